/*
 * libumtrace - sorted runs of index entries: sorting a buffer, spilling it
 * to a scratch file, reading runs back and merging them (the build's
 * external sort, src/index/runs.c).
 */
#ifndef UMTRACE_IX_RUNS_H
#define UMTRACE_IX_RUNS_H

#include "ixint.h"

/** Order of entries: list, then key, then locator (a total order). */
static inline bool umt__ix_entry_less(const struct ix_entry *a, const struct ix_entry *b)
{
	if (a->list != b->list)
		return a->list < b->list;
	if (a->key != b->key)
		return a->key < b->key;
	return a->locator < b->locator;
}

/**
 * Sorts @p n entries by list, stably: entries extracted in record order are
 * in (key, locator) order already, so the result is in entry order. Uses
 * @p tmp (n entries) as scratch; returns the array holding the result
 * (@p a or @p tmp).
 */
UMT_HIDDEN struct ix_entry *umt__ix_sort(struct ix_entry *a, struct ix_entry *tmp, size_t n);

/** A sorted run: in memory (mem != NULL) or in a scratch file (fd). */
struct ix_run {
	struct ix_entry *mem; /* in a worker's buffer (struct ix_build's blocks own them) */
	int fd;               /* -1 for memory runs; owned by the build's commit */
	uint64_t count;
	unsigned block;       /* memory runs: the block holding them */
};

/** Writes @p n entries to @p fd from offset 0. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_run_write(int fd, const struct ix_entry *e, uint64_t n);

/** Entry @p i of a run (one pread for file runs). @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_run_get(const struct ix_run *r, uint64_t i, struct ix_entry *out);

/** The first entry of @p r at or after index @p lo whose page is >= @p page. */
UMT_HIDDEN int umt__ix_run_seek(const struct ix_run *r, uint64_t page, uint64_t *out);

/** Reads entries [from, to) of a run in chunks. */
struct ix_cursor {
	const struct ix_run *run;
	uint64_t next, end;        /* entries of the run still to read */
	struct ix_entry *buf;      /* file runs: chunk buffer (not owned) */
	size_t cap, n, i;          /* its capacity, fill, position */
	const struct ix_entry *cur; /* the current entry, NULL at the end */
};

/** Positions @p c on [from, to) of @p r with chunk buffer @p buf of @p cap entries. */
UMT_HIDDEN int umt__ix_cursor_init(struct ix_cursor *c, const struct ix_run *r, uint64_t from,
                                   uint64_t to, struct ix_entry *buf, size_t cap);
/** Moves to the next entry (cur NULL at the end). @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_cursor_next(struct ix_cursor *c);

/** A k-way merge of cursors, smallest entry first. */
struct ix_merge {
	struct ix_cursor **heap;
	size_t n;
};

/** Builds the heap over @p c[0..n) (cursors at their first entry). @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_merge_init(struct ix_merge *m, struct ix_cursor *c, size_t n);
/** The smallest entry, or NULL when every cursor is done. */
static inline const struct ix_entry *umt__ix_merge_top(const struct ix_merge *m)
{
	return m->n ? m->heap[0]->cur : NULL;
}
/** Consumes the smallest entry. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_merge_pop(struct ix_merge *m);
UMT_HIDDEN void umt__ix_merge_free(struct ix_merge *m);

#endif
