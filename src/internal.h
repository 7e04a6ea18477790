/*
 * libumtrace - private declarations shared by src/ only.
 */
#ifndef UMTRACE_INTERNAL_H
#define UMTRACE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "umtrace/umtrace.h"

#define UMT_HIDDEN __attribute__((visibility("hidden")))
#define UMT_LIKELY(x) __builtin_expect(!!(x), 1)
#define UMT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UMT_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- error.c ---------------------------------------------------------- */

/** What a location in an error message refers to. */
enum umt_loc_kind {
	UMT_LOC_NONE = 0, /* "FILE: msg" */
	UMT_LOC_OFFSET,   /* "FILE: at offset 0x..: msg" */
	UMT_LOC_RECORD,   /* "FILE: record N at offset 0x..: msg" */
	UMT_LOC_ROW       /* "FILE: row N at offset 0x..: msg" */
};

/**
 * Records a failure for umt_errmsg() and returns @p code. @p file is a
 * umt_file_id, or -1 for messages not about a trace file.
 */
UMT_HIDDEN int umt__fail(int code, int file, enum umt_loc_kind kind, uint64_t id,
                         uint64_t offset, const char *fmt, ...) UMT_PRINTF(6, 7);

/** Records a failure with a free-form message. */
UMT_HIDDEN int umt__failf(int code, const char *fmt, ...) UMT_PRINTF(2, 3);

/** Clears the calling thread's message. */
UMT_HIDDEN void umt__clear_error(void);

/** The location named by the calling thread's last failure (file -1: none). */
struct umt_loc {
	int file;
	enum umt_loc_kind kind;
	uint64_t id;
	uint64_t offset;
};
UMT_HIDDEN void umt__last_loc(struct umt_loc *out);

/* ---- map.c ------------------------------------------------------------ */

/** One file of a trace: its bytes, and how they were obtained. */
struct umt_map {
	const uint8_t *data; /* never NULL once present: "" for empty files */
	uint64_t size;
	bool present;
	bool mapped;         /* munmap() needed */
	/* identity at open, to tell whether the file changed since */
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
};

/**
 * Maps file @p name of directory fd @p dirfd read-only. A missing file
 * leaves m->present false and returns 0 when @p optional, UMT_E_MISSING
 * otherwise. An empty file is present with size 0.
 */
UMT_HIDDEN int umt__map_file(int dirfd, int file, bool optional, struct umt_map *m);

/** Only stats the file (size and identity), for files mapped lazily. */
UMT_HIDDEN int umt__stat_file(int dirfd, int file, bool optional, struct umt_map *m);

/** Maps a file previously stat'ed by umt__stat_file(). */
UMT_HIDDEN int umt__map_later(int dirfd, int file, struct umt_map *m);

/** Wraps a caller buffer. */
UMT_HIDDEN void umt__map_buffer(const umt_buffer *b, struct umt_map *m);

/**
 * madvise() on the pages holding bytes [off, off + len) of @p m (clamped to
 * the file); 0 for buffers that were not mapped.
 */
UMT_HIDDEN int umt__map_advise(const struct umt_map *m, int file, uint64_t off, uint64_t len,
                               int advice);

/** Releases what umt__map_file() obtained. */
UMT_HIDDEN void umt__unmap(struct umt_map *m);

/* ---- bounds helpers ---------------------------------------------------- */

/** true when [off, off + len) lies inside [0, size), without overflow. */
static inline bool umt__span_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/** Little-endian loads from unaligned bytes (the format is little-endian). */
static inline uint64_t umt__ld64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline uint32_t umt__ld32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}
static inline uint16_t umt__ld16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* ---- trace.c ---------------------------------------------------------- */

/** Validated geometry of a fixed-size table (*.itable). */
struct umt_itable {
	const uint8_t *rows; /* row 0 */
	uint64_t count;
	uint64_t row_size;
	uint64_t table_fp;
	int32_t record_ver;
	/* extra area (ins.itable, module.itable); empty otherwise */
	const uint8_t *extra;
	uint64_t extra_fp;
	uint64_t extra_size;
};

struct umt_trace {
	struct umt_map files[UMT_FILE_COUNT];
	int dirfd; /* -1 when opened from memory */

	/* exec.vtable / exec.offsets */
	const uint8_t *exec_records;
	uint64_t exec_size;
	const uint8_t *exec_offsets;
	uint64_t exec_count;
	int32_t exec_version;

	/* exec.prev_next.column, mapped on first use */
	pthread_mutex_t lazy_lock;
	_Atomic(const uint8_t *) prev_next;
	int open_advice; /* umt_advice given at open, applied to prev/next when mapped */

	/* syscall.vtable / syscall.offsets */
	const uint8_t *sys_records;
	uint64_t sys_size;
	const uint8_t *sys_offsets;
	uint64_t sys_count;
	int32_t sys_version;
	int32_t unified_ids_version;

	struct umt_itable ins;
	struct umt_itable module;
	struct umt_itable thread;
	struct umt_itable aspace;

	const umt_context_map *cmap;

	/*
	 * State built lazily on first use, under lazy_lock, published with a
	 * release store and read with an acquire load; freed by close.
	 */
	_Atomic(uint64_t *) ins_checked;                  /* ins.c: 1 bit per checked row */
	_Atomic(uint8_t *) exec_checked;                  /* exec.c: 1 byte per checked chunk */
	_Atomic(struct umt_module_index *) module_index;  /* module.c */
	_Atomic(umt_meta *) meta;                         /* meta.c */
	int meta_status;                                  /* meta.c: 0, or the failed parse's code */
	char *meta_error;                                 /* meta.c: its message */
};

/**
 * meta.c: the trace's XED version as a number (20150121), parsing trace.xml
 * on first use; -1 when unknown (no trace.xml, no date, malformed file).
 * Pin build numbers (56759) are returned as they are (< 19000000).
 */
UMT_HIDDEN int64_t umt__trace_xed_date(const umt_trace *t);

/* Releases of the lazily built state, called by umt_trace_close(). */
UMT_HIDDEN void umt__exec_release(umt_trace *t);
UMT_HIDDEN void umt__ins_release(umt_trace *t);
UMT_HIDDEN void umt__module_release(umt_trace *t);
UMT_HIDDEN void umt__meta_release(umt_trace *t);

/** exec.c: reports record @p id out of range (UMT_E_RANGE, the message set). */
UMT_HIDDEN int umt__exec_out_of_range(const umt_trace *t, uint64_t id) __attribute__((cold));

/**
 * exec.c: the map of checked chunks (one byte per 4096 records, see
 * umt__chunk_checked()) if a scan or a view allocated it, else NULL.
 */
UMT_HIDDEN const uint8_t *umt__exec_chunk_map(const umt_trace *t);

/** The exec.prev_next.column bytes, mapping them on first use; NULL on error. */
UMT_HIDDEN const uint8_t *umt__prev_next(const umt_trace *t);


/* ---- writer helpers (utf.c) ------------------------------------------- */

/**
 * Converts UTF-8 @p s to UTF-16LE units in @p out (capacity @p cap units).
 * Returns the number of units, or -1 on invalid UTF-8 or overflow.
 */
UMT_HIDDEN long umt__utf8_to_utf16(const char *s, uint16_t *out, size_t cap);

#endif /* UMTRACE_INTERNAL_H */
