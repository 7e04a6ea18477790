/*
 * libumtrace - sorted runs of index entries: sorting a buffer, spilling it
 * to a scratch file, reading runs back and merging them (the build's
 * external sort, src/index/runs.c).
 */
#ifndef UMTRACE_IX_RUNS_H
#define UMTRACE_IX_RUNS_H

#include "ixint.h"

/** Order of entries by their (list, key, locator), a total order. */
static inline bool umt__ix_order_less(uint64_t al, uint64_t ak, uint32_t aloc, uint64_t bl,
                                      uint64_t bk, uint32_t bloc)
{
	if (al != bl)
		return al < bl;
	if (ak != bk)
		return ak < bk;
	return aloc < bloc;
}

static inline bool umt__ix_entry_less(const struct ix_entry *a, const struct ix_entry *b)
{
	return umt__ix_order_less(a->list, a->key, a->locator, b->list, b->key, b->locator);
}

/** The widest digit of umt__ix_sort(), in bits, and the counters it needs (runs.c). */
#define UMT_IX_SORT_DIGIT 14u
/* the most a sort's digits take: 4 passes of 14 bits (5 passes are of 13) */
#define UMT_IX_SORT_COUNTS ((size_t)4 << UMT_IX_SORT_DIGIT)

/**
 * Sorts @p n (< 2^32) entries by list, stably: entries extracted in record
 * order are in (key, locator) order already, so the result is in entry
 * order. Uses @p tmp (n entries) and @p counts (UMT_IX_SORT_COUNTS) as
 * scratch; returns the array holding the result (@p a or @p tmp).
 */
UMT_HIDDEN struct ix_entry *umt__ix_sort(struct ix_entry *a, struct ix_entry *tmp, size_t n,
                                         uint32_t *counts);

/*
 * A sorted run: in memory (mem != NULL), or in a scratch file, compressed:
 * frames of UMT_IX_FRAME entries, each entry delta-coded against the one
 * before it in its frame (runs.c says how), about a third of the entries'
 * size. Less to write and read back, less write-back for the kernel to
 * throttle, and a third of the temporary disk space. The frame table (16
 * bytes a frame, in memory) locates entry i's frame and a page's first
 * frame without reading the file.
 */
#define UMT_IX_FRAME 4096u

struct ix_frame {
	uint64_t offset;     /* in the file */
	uint64_t first_page; /* of the frame's first entry */
};

struct ix_run {
	struct ix_entry *mem; /* in a worker's buffer (struct ix_build's blocks own them) */
	int fd;               /* -1 for memory runs; owned by the build's commit */
	uint64_t count;
	unsigned block;       /* memory runs: the block holding them */
	struct ix_frame *frames; /* file runs: ceil(count / UMT_IX_FRAME), owned; offsets in fd */
	uint64_t end;         /* file runs: where the run's bytes end in fd (its size for scratch
	                         files, which hold one run from offset 0) */
	const char *name;     /* file runs from another process (parts.c): the file, for
	                         messages; NULL for scratch files */
};

/** Writes a file run entry by entry, through a buffer. */
struct ix_run_writer {
	int fd;
	uint8_t *buf;
	size_t cap, len;
	uint64_t offset, count;
	struct ix_frame *frames;
	size_t nframes, frames_cap;
	struct ix_entry prev;
	uint64_t sum; /* FNV-1a of the bytes written, when summed (a part file's payload) */
	bool summed;
};

/** Starts a run in @p fd (from offset 0: callers may move w->offset forward before the first
 * put, and set w->summed) with a buffer of @p cap bytes. @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_runw_init(struct ix_run_writer *w, int fd, size_t cap);
/** Appends @p e (in entry order). @return 0; UMT_E_IO, UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_runw_put(struct ix_run_writer *w, const struct ix_entry *e);
/** Flushes and describes the run in @p out (which then owns the frames); frees the writer in
 * all cases. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_runw_finish(struct ix_run_writer *w, struct ix_run *out);
/** Frees what the writer still owns (after a failure). */
UMT_HIDDEN void umt__ix_runw_free(struct ix_run_writer *w);

/** Writes @p n sorted entries as the file run @p out in @p fd. @return 0; UMT_E_IO, UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_run_write(int fd, const struct ix_entry *e, uint64_t n, struct ix_run *out);

/**
 * Checks a file run that another process wrote (a part file, parts.c) and
 * builds its frame table: @p r holds fd, count, end and name; its entries
 * are the bytes [start, end). Every entry is decoded: well formed, in entry
 * order, frames where they must be, the last ending at @p end exactly.
 * @return 0 and *sum, FNV-1a of the bytes; UMT_E_CORRUPT (message: r->name
 *   and the byte offset), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ix_run_load(struct ix_run *r, uint64_t start, uint64_t *sum);

/** Frees a run's frame table. */
UMT_HIDDEN void umt__ix_run_free(struct ix_run *r);

/** The index of the first entry of @p r whose page is >= @p page. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_run_seek(const struct ix_run *r, uint64_t page, uint64_t *out);

/** Reads entries [from, to) of a run: in place for memory runs, decoded from a buffer for files. */
struct ix_cursor {
	const struct ix_run *run;
	uint64_t next, end;         /* entries of the run still to read */
	uint8_t *buf;               /* file runs: bytes read ahead (not owned) */
	size_t cap, len, pos;       /* its capacity, fill, position */
	uint64_t file_off;          /* the file offset of buf[len] */
	struct ix_entry one;        /* file runs: the current entry */
	uint64_t *sum;              /* when not NULL: FNV-1a of every byte read, continued */
	const struct ix_entry *cur; /* the current entry, NULL at the end */
};

/** Bytes a cursor's buffer needs at least. */
#define UMT_IX_CURSOR_MIN (64u << 10)
/** Bytes a cursor's buffer of a file run gets when the budget allows: reads long enough
 * that a disk streams them. */
#define UMT_IX_READ_WANT ((uint64_t)4 << 20)

/** Positions @p c on [from, to) of @p r with a buffer @p buf of @p cap bytes (>= UMT_IX_CURSOR_MIN). */
UMT_HIDDEN int umt__ix_cursor_init(struct ix_cursor *c, const struct ix_run *r, uint64_t from,
                                   uint64_t to, uint8_t *buf, size_t cap);
/** Moves to the next entry (cur NULL at the end). @return 0; UMT_E_IO, UMT_E_CORRUPT. */
UMT_HIDDEN int umt__ix_cursor_next(struct ix_cursor *c);

/* A cursor in the merge's heap with its current entry's order fields beside it: a
 * comparison reads the heap, not two cursors and their entries. */
struct ix_merge_slot {
	uint64_t list, key;
	uint32_t locator;
	uint32_t pad;
	struct ix_cursor *c;
};

/** A k-way merge of cursors, smallest entry first. */
struct ix_merge {
	struct ix_merge_slot *heap;
	size_t n;
};

/** Builds the heap over @p c[0..n) (cursors at their first entry). @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_merge_init(struct ix_merge *m, struct ix_cursor *c, size_t n);
/** The smallest entry, or NULL when every cursor is done. */
static inline const struct ix_entry *umt__ix_merge_top(const struct ix_merge *m)
{
	return m->n ? m->heap[0].c->cur : NULL;
}
/** Consumes the smallest entry. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_merge_pop(struct ix_merge *m);
UMT_HIDDEN void umt__ix_merge_free(struct ix_merge *m);

#endif
