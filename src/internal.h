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
#define UMT_NOINLINE __attribute__((noinline))

/* ---- error.c ---------------------------------------------------------- */

/** What a location in an error message refers to. */
enum umt_loc_kind {
	UMT_LOC_NONE = 0, /* "FILE: msg" */
	UMT_LOC_OFFSET,   /* "FILE: at offset 0x..: msg" */
	UMT_LOC_RECORD,   /* "FILE: record N at offset 0x..: msg" */
	UMT_LOC_ROW       /* "FILE: row N at offset 0x..: msg" */
};

/**
 * Records a failure for umt_errmsg(): the message names @p file (a
 * umt_file_id, or -1 for messages not about a trace file) and the location.
 * Out of line: formatting is for failure paths only.
 */
UMT_HIDDEN void umt__fail_record(int file, enum umt_loc_kind kind, uint64_t id, uint64_t offset,
                                 const char *fmt, ...) UMT_PRINTF(5, 6);

/** Records a failure with a free-form message. */
UMT_HIDDEN void umt__failf_record(const char *fmt, ...) UMT_PRINTF(1, 2);

/*
 * umt__fail(code, file, kind, id, offset, fmt, ...) records a failure and
 * evaluates to @p code; umt__failf(code, fmt, ...) likewise. Macros, so that
 * the caller (and the static analyser) sees the status it returns: an
 * out-of-line function returning its argument is opaque to the analyser,
 * which then explores error paths as if they succeeded. @p code is
 * evaluated after the message is recorded: pass a constant or a local,
 * never an expression reading errno.
 */
#define umt__fail(code, ...) (umt__fail_record(__VA_ARGS__), (code))
#define umt__failf(code, ...) (umt__failf_record(__VA_ARGS__), (code))

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

/** Records again a failure whose message and location were kept. */
UMT_HIDDEN void umt__fail_replay(const struct umt_loc *loc, const char *msg);

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

/**
 * Maps file @p name of directory fd @p dirfd read-only, whole (files that
 * are not traces: indexes). Never blocks on a FIFO; a missing file is
 * UMT_E_MISSING, anything but a regular file UMT_E_IO; messages name
 * @p name.
 */
UMT_HIDDEN int umt__map_named(int dirfd, const char *name, struct umt_map *m);

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

/* ---- lazy.c: parts of a trace handle built on first use ---------------- */

/** The parts of a trace handle that are built on first use, not at open. */
enum umt_lazy_part {
	UMT_LAZY_PREV_NEXT,    /* exec.c: exec.prev_next.column mapped (a struct umt_map) */
	UMT_LAZY_EXEC_CHECKED, /* exec.c: 1 bit per chunk of records checked by a block scan */
	UMT_LAZY_INS_CHECKED,  /* ins.c: 1 bit per instruction row whose body was checked */
	UMT_LAZY_MODULE_INDEX, /* module.c: the index of umt_module_find() */
	UMT_LAZY_META,         /* meta.c: trace.xml parsed (a umt_meta) */
	UMT_LAZY_ACCESS_PLANS, /* access.c: the memory slots of each instruction row */
	UMT_LAZY_SEMANTICS,    /* semantics.c: each instruction row decoded by Zydis */
	UMT_LAZY_PART_COUNT
};

/**
 * How one part is built and released. build() runs at most once at a time,
 * under the registry's lock, and returns 0 with the part in *out (NULL for
 * "nothing to build": callers then get NULL and go without), or a negative
 * status with its message recorded. release() frees a part built by build().
 */
struct umt_lazy_kind {
	enum umt_lazy_part part;
	int (*build)(const umt_trace *t, void **out);
	void (*release)(void *part);
};

struct umt_lazy_slot {
	_Atomic(void *) value;            /* published with release, read with acquire */
	const struct umt_lazy_kind *kind; /* how to release value */
	int status;                       /* a remembered failure of build(), 0 if none */
	char *message;                    /* its message */
	struct umt_loc loc;               /* and location */
};

/**
 * The registry of lazily built parts. The trace handle is shared as const
 * between threads; this is the only state it reaches that changes after
 * open (through a pointer to non-const set at open, so no const is cast away).
 */
struct umt_lazy {
	pthread_mutex_t lock;
	struct umt_lazy_slot slot[UMT_LAZY_PART_COUNT];
};

UMT_HIDDEN void umt__lazy_init(struct umt_lazy *l);

/** Releases every part built, through its kind's release(); called by close. */
UMT_HIDDEN void umt__lazy_release(struct umt_lazy *l);

/**
 * The slow path of umt__lazy_get(): builds the part under the lock unless
 * another thread did, and publishes it. A failure of build() is remembered
 * and returned again (with its message) by every later call, except
 * UMT_E_NOMEM and UMT_E_IO, after which a later call tries again.
 */
UMT_HIDDEN int umt__lazy_build(struct umt_lazy *l, const umt_trace *t,
                               const struct umt_lazy_kind *k, void **out);

/** Published for a part built as "nothing" (build() gave NULL). */
UMT_HIDDEN extern char umt__lazy_nothing;

/* ---- trace.c ---------------------------------------------------------- */

/** Validated geometry of a fixed-size table (*.itable). */
struct umt_itable {
	const uint8_t *rows; /* row 0 */
	uint64_t count;      /* rows readable */
	uint64_t declared;   /* RowCount of the header (count unless salvaged; 0 if unknown) */
	uint64_t row_size;
	uint64_t table_fp;
	int32_t record_ver;  /* -1 when the table was lost at open */
	/* extra area (ins.itable, module.itable); empty otherwise */
	const uint8_t *extra;
	uint64_t extra_fp;
	uint64_t extra_size;
};

/** What a salvage open (UMT_OPEN_SALVAGE) made of each file. */
struct umt_salvage {
	bool on;                       /* opened with UMT_OPEN_SALVAGE */
	int status[UMT_FILE_COUNT];    /* enum umt_file_status */
	int code[UMT_FILE_COUNT];      /* the failure that reduced it or made it unavailable */
	char *why[UMT_FILE_COUNT];     /* its message, without the file name; NULL if intact */
};

struct umt_trace {
	struct umt_map files[UMT_FILE_COUNT];
	int dirfd; /* -1 when opened from memory */
	int open_advice; /* umt_advice given at open, applied to prev/next when mapped */

	/* exec.vtable / exec.offsets */
	const uint8_t *exec_records;
	uint64_t exec_size;
	const uint8_t *exec_offsets; /* at least exec_count + 1 entries */
	uint64_t exec_count;         /* records readable */
	uint64_t exec_declared;      /* RecordCount (exec_count unless salvaged) */
	int32_t exec_version;        /* -1 when unknown (salvaged short header) */

	/* syscall.vtable / syscall.offsets */
	const uint8_t *sys_records;
	uint64_t sys_size;
	const uint8_t *sys_offsets;
	uint64_t sys_count;     /* records readable */
	uint64_t sys_declared;  /* RecordCount (sys_count unless salvaged; 0 if unknown) */
	int32_t sys_version;
	int32_t unified_ids_version;

	struct umt_itable ins;
	struct umt_itable module;
	struct umt_itable thread;
	struct umt_itable aspace;

	const umt_context_map *cmap; /* never NULL: an empty map when lost at open */

	struct umt_salvage salvage;

	/* parts built on first use: lazy points to lazy_parts (see struct umt_lazy) */
	struct umt_lazy *lazy;
	struct umt_lazy lazy_parts;
};

/**
 * The part of kind @p k, building it on first use: one acquire load once
 * built (the per-record paths take no lock). 0 with *out (NULL when the
 * part is "nothing"), or a negative status with its message.
 */
static inline int umt__lazy_get(const umt_trace *t, const struct umt_lazy_kind *k, void **out)
{
	void *v = atomic_load_explicit(&t->lazy->slot[k->part].value, memory_order_acquire);
	if (UMT_LIKELY(v != NULL)) {
		*out = v == &umt__lazy_nothing ? NULL : v;
		return 0;
	}
	return umt__lazy_build(t->lazy, t, k, out);
}

/** The part of kind @p k if it was built, without building it; NULL otherwise. */
static inline void *umt__lazy_peek(const umt_trace *t, const struct umt_lazy_kind *k)
{
	void *v = atomic_load_explicit(&t->lazy->slot[k->part].value, memory_order_acquire);
	return v == &umt__lazy_nothing ? NULL : v;
}

/** ElemCount of the context map, loaded once and never above the 512 entries of its arrays. */
static inline unsigned umt__cmap_elems(const umt_context_map *m)
{
	unsigned n = m->ElemCount;
	return n < UMT_CONTEXT_MAP_REGS ? n : UMT_CONTEXT_MAP_REGS;
}

/**
 * context.c: register @p reg below the context map's ElemCount (loaded once
 * and clamped to the 512 entries of its arrays, whatever the mapping shows
 * later): 0, UMT_E_RANGE, the loss at open of a salvaged map, or
 * UMT_E_INVAL for a NULL @p t (naming @p fn).
 */
UMT_HIDDEN int umt__reg_check(const umt_trace *t, int reg, const char *fn);

/**
 * meta.c: the trace's XED version as a number (20150121), parsing trace.xml
 * on first use; -1 when unknown (no trace.xml, no date, malformed file).
 * Pin build numbers (56759) are returned as they are (< 19000000).
 */
UMT_HIDDEN int64_t umt__trace_xed_date(const umt_trace *t);

/**
 * exec.c: the mapping of exec.prev_next.column, mapped on first use; 0 and
 * *out, or UMT_E_IO (mapping failed), or the failure that lost it at open.
 */
UMT_HIDDEN int umt__prev_next(const umt_trace *t, const struct umt_map **out);

/** exec.c: reports record @p id out of range (UMT_E_RANGE, the message set). */
UMT_HIDDEN int umt__exec_out_of_range(const umt_trace *t, uint64_t id) __attribute__((cold));

/**
 * exec.c: the map of checked chunks (one byte per 4096 records, see
 * umt__chunk_checked()) if a scan or a view allocated it, else NULL.
 */
UMT_HIDDEN const uint8_t *umt__exec_chunk_map(const umt_trace *t);


/* ---- salvage.c: damaged traces opened with UMT_OPEN_SALVAGE ---------------- */

/**
 * Marks @p file reduced or unavailable (enum umt_file_status) because of
 * failure @p code, whose reason is the printf-style @p fmt (a file that is
 * already marked keeps its first reason). Returns 0, or UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__salvage_mark(umt_trace *t, int file, int status, int code,
                                 const char *fmt, ...) UMT_PRINTF(5, 6);

/** The calling thread's last message after its leading "FILE: " (about @p file). */
UMT_HIDDEN const char *umt__errmsg_after(int file);

/**
 * Salvages the execution table after open's check failed with @p rc: the
 * records wholly inside exec.vtable and exec.offsets stay readable (a binary
 * search over the offsets, no scan). @p header_ok: exec.vtable's 16-byte
 * header was read and checked (else the count comes from exec.offsets).
 * Returns 0, or @p rc when nothing can be salvaged.
 */
UMT_HIDDEN int umt__salvage_exec(umt_trace *t, int rc, bool header_ok);

/** Frees the reasons; called by close. */
UMT_HIDDEN void umt__salvage_release(umt_trace *t);

/**
 * Cold path of the accessors of a table that @p file holds: when the table
 * was lost at open, or item @p id lies between what was readable and what
 * was declared (@p declared), records "FILE: record/row N lost at open: why"
 * (or "FILE: unavailable, lost at open: why") and returns the failure's
 * code; returns 0 otherwise. For exec.vtable and syscall.vtable, the index
 * file is named when the damage is there.
 */
UMT_HIDDEN int umt__lost(const umt_trace *t, int file, enum umt_loc_kind kind, uint64_t id,
                         uint64_t declared);

/** How a table words an ID past its readable items. */
struct umt_range_msg {
	int lost_file;            /* the table's file, for umt__lost() */
	enum umt_loc_kind kind;   /* UMT_LOC_RECORD or UMT_LOC_ROW */
	int range_file;           /* the file the range error names, -1 for none */
	const char *item, *items; /* "thread", "threads" */
};

/**
 * The cold path of an accessor given @p id >= @p count: records the loss at
 * open (umt__lost()), else UMT_E_RANGE "ITEM N is out of range (COUNT
 * ITEMS)", and returns that code. Use umt__out_of_range().
 */
UMT_HIDDEN int umt__out_of_range_record(const umt_trace *t, const struct umt_range_msg *m,
                                        uint64_t id, uint64_t count, uint64_t declared);

/* umt__out_of_range_record(), visibly negative to the caller and the analyser. */
static inline int umt__out_of_range(const umt_trace *t, const struct umt_range_msg *m,
                                    uint64_t id, uint64_t count, uint64_t declared)
{
	int rc = umt__out_of_range_record(t, m, id, count, declared);
	return rc < 0 ? rc : UMT_E_RANGE;
}

/* ---- writer helpers (utf.c) ------------------------------------------- */

/**
 * Converts UTF-8 @p s to UTF-16LE units in @p out (capacity @p cap units).
 * Returns the number of units, or -1 on invalid UTF-8 or overflow.
 */
UMT_HIDDEN long umt__utf8_to_utf16(const char *s, uint16_t *out, size_t cap);

/*
 * umt_sem_get() for loops over records (the index's calls section): a row
 * already found not to decode fails at once with UMT_E_CORRUPT and no
 * message (formatting one per record cost more than the whole build).
 */
UMT_HIDDEN int umt__sem_fast(const umt_trace *t, uint64_t ins_id, umt_sem *out);

/**
 * umt_module_find() without its message for an address no module holds, for
 * callers that expect many (the coverage of floating code: module.c).
 * @return 0 with *module_id; 1 when no module holds @p address at @p eid;
 *   umt_module_find()'s errors.
 */
UMT_HIDDEN int umt__module_lookup(const umt_trace *t, uint64_t address, uint64_t eid,
                                  uint64_t *module_id);

#endif /* UMTRACE_INTERNAL_H */
