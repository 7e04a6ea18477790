/*
 * libumtrace - assembling the calls section (calls.h): every range's events
 * replayed in record order (callreplay.c) into calls.tab, calls.thr and,
 * through the sorter (callsort.c), the index by target.
 *
 * calls.tab is in (thread, call record) order and the replay goes in record
 * order: each thread's rows are written through a window of its next rows,
 * flushed when full. A frame that outlives its window (its end, or its
 * target when the thread's next record came late, is known after its row
 * was written) gets a patch; patches are gathered, sorted and applied in
 * place, a file block at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "build.h"
#include "calls.h"

#define NONE UINT64_MAX
#define PATCH_BLOCK 1024u /* rows read, patched and written back at once */
#define ROW_AT(row) (64 + (row) * sizeof(umt_ix_call_row))

/* A change to a row already written: its end or its target. */
struct patch {
	uint64_t row, value;
	uint8_t target; /* 0: EndID and the end bits; 1: Target and the source bits */
	uint8_t bits;
};

/* A thread's window: rows [first, first + n) not yet written. */
struct window {
	umt_ix_call_row *rows;
	uint64_t first;
	uint32_t n;
};

struct cwriter {
	struct ix_build *b;
	int fd; /* calls.tab */
	struct window *w;
	uint64_t nthreads;
	uint32_t window;
	struct patch *patches;
	size_t npatches;
	struct call_sorter *sort;
	umt_ix_call_row *block; /* PATCH_BLOCK rows */
};

int umt__ix_calls_pread(int fd, void *p, size_t n, uint64_t at, const char *what)
{
	uint8_t *q = p;
	while (n > 0) {
		ssize_t k = pread(fd, q, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "%s: cannot read back: %s", what,
			                  k < 0 ? strerror(errno) : "short file");
		q += k;
		n -= (size_t)k;
		at += (uint64_t)k;
	}
	return 0;
}

static int cmp_patch(const void *a, const void *b)
{
	const struct patch *x = a, *y = b;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void patch_row(umt_ix_call_row *r, const struct patch *p)
{
	if (p->target) {
		r->Target = p->value;
		r->Flags = (uint8_t)((r->Flags & 0x3u) | p->bits << 2);
	} else {
		r->EndID = p->value;
		r->Flags = (uint8_t)((r->Flags & 0xcu) | p->bits);
	}
}

/* The gathered patches, in row order, a block of rows at a time. */
static int apply_patches(struct cwriter *w)
{
	/* a row has at most one patch of each kind, and they touch other fields: any order */
	qsort(w->patches, w->npatches, sizeof *w->patches, cmp_patch);
	int rc = 0;
	for (size_t i = 0, j; rc == 0 && i < w->npatches; i = j) {
		uint64_t lo = w->patches[i].row;
		for (j = i; j < w->npatches && w->patches[j].row - lo < PATCH_BLOCK; j++)
			;
		uint64_t n = w->patches[j - 1].row + 1 - lo;
		rc = umt__ix_calls_pread(w->fd, w->block, n * sizeof *w->block, ROW_AT(lo),
		                         "index build: calls.tab");
		for (size_t k = i; rc == 0 && k < j; k++)
			patch_row(&w->block[w->patches[k].row - lo], &w->patches[k]);
		if (rc == 0)
			rc = umt__ix_pwrite_all(w->fd, w->block, n * sizeof *w->block, ROW_AT(lo));
	}
	w->npatches = 0;
	return rc;
}

/* Changes row @p row of a thread: in its window, or by a patch. */
static int change(struct cwriter *w, int32_t thread, uint64_t row, const struct patch *p)
{
	struct window *win = &w->w[thread];
	if (row >= win->first && row - win->first < win->n) {
		patch_row(&win->rows[row - win->first], p);
		return 0;
	}
	if (w->npatches == umt__ix_calls_limits.patch_max) {
		int rc = apply_patches(w);
		if (rc < 0)
			return rc;
	}
	w->patches[w->npatches++] = *p;
	return 0;
}

static int flush_window(struct cwriter *w, struct window *win)
{
	int rc = win->n ? umt__ix_pwrite_all(w->fd, win->rows, win->n * sizeof *win->rows,
	                                     ROW_AT(win->first)) : 0;
	win->first += win->n;
	win->n = 0;
	return rc;
}

/* ---- the sink of the replay ---------------------------------------------------------------- */

static int w_open(void *ctx, const struct call_open *c)
{
	struct cwriter *w = ctx;
	struct window *win = &w->w[c->thread];
	if (win->rows == NULL && (win->rows = malloc(w->window * sizeof *win->rows)) == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (win->n == w->window) {
		int rc = flush_window(w, win);
		if (rc < 0)
			return rc;
	}
	umt_ix_call_row *r = &win->rows[win->n++];
	memset(r, 0, sizeof *r);
	r->CallID = c->id;
	r->EndID = NONE;
	r->Caller = c->caller;
	r->Target = c->target;
	r->Parent = c->parent;
	r->Depth = c->depth;
	r->Length = c->length;
	r->Flags = UMT_IX_CALL_FLAGS(UMT_CALL_OPEN, c->source);
	if (!c->final)
		return 0;
	struct call_key k = {c->target, c->id, c->row};
	return umt__ix_csort_add(w->sort, &k);
}

static int w_target(void *ctx, int32_t thread, uint64_t row, uint64_t id, uint64_t target,
                    unsigned source)
{
	struct cwriter *w = ctx;
	struct patch p = {row, target, 1, (uint8_t)source};
	struct call_key k = {target, id, row};
	int rc = change(w, thread, row, &p);
	return rc == 0 ? umt__ix_csort_add(w->sort, &k) : rc;
}

static int w_close(void *ctx, int32_t thread, uint64_t row, uint64_t end_id, unsigned end)
{
	struct patch p = {row, end_id, 0, (uint8_t)end};
	return change(ctx, thread, row, &p);
}

/* ---- assembling -------------------------------------------------------------------------------- */

static int spill_write(void *ctx, const void *p, size_t n, uint64_t *at)
{
	return umt__ixb_spill(ctx, p, n, at);
}

static int spill_read(void *ctx, void *p, size_t n, uint64_t at)
{
	return umt__ixb_spill_read(ctx, p, n, at);
}

static int replay_one(void *ctx, const struct call_event *e)
{
	return umt__ix_replay_event(ctx, e);
}

/* Calls per thread over every range; the threads' first rows. */
static void thread_rows(uint64_t n, void *const *states, unsigned nranges, uint64_t *calls,
                        uint64_t *base, uint64_t info[UMT_IX_INFO_WORDS])
{
	uint64_t total = 0;
	for (unsigned k = 0; k < nranges; k++) {
		const struct calls_range *s = states[k];
		for (size_t i = 0; i < s->ncounts; i++)
			calls[s->counts[i].thread] += s->counts[i].calls;
		info[CALLS_INFO_IGNORED] += s->ignored;
	}
	for (uint64_t i = 0; i < n; i++) {
		base[i] = total;
		total += calls[i];
		info[CALLS_INFO_THREADS] += calls[i] != 0;
	}
	info[CALLS_INFO_CALLS] = total;
}

/* calls.thr: the threads that made calls. */
static int write_threads(struct ix_build *b, uint64_t n, const uint64_t *calls,
                         const uint64_t *base)
{
	int fd, rc = umt__ixb_create(b, UMT_IX_CALLS_THR, &fd);
	if (rc == 0)
		rc = umt__ixb_file_header(b, fd, "UMTCLTHR");
	struct ix_out o;
	if (rc == 0 && (rc = umt__ix_out_init(&o, fd, 64u << 10)) == 0) {
		o.size = 64; /* after the header */
		for (uint64_t i = 0; rc == 0 && i < n; i++) {
			umt_ix_call_thread e = {(int32_t)i, 0, base[i], calls[i]};
			if (calls[i])
				rc = umt__ix_out_put(&o, &e, sizeof e);
		}
		if (rc == 0)
			rc = umt__ix_out_flush(&o);
		umt__ix_out_free(&o);
	}
	return rc;
}

static int writer_init(struct cwriter *w, struct ix_build *b, uint64_t n, const uint64_t *base,
                       uint64_t threads_with_calls)
{
	memset(w, 0, sizeof *w);
	w->b = b;
	w->nthreads = n;
	const struct calls_limits *l = &umt__ix_calls_limits;
	uint64_t per = l->window_bytes / sizeof(umt_ix_call_row) / (threads_with_calls + 1);
	w->window = per < l->window_min ? l->window_min : per > l->window_max ? l->window_max
	                                                                     : (uint32_t)per;
	w->w = calloc(n ? n : 1, sizeof *w->w);
	w->patches = malloc(l->patch_max * sizeof *w->patches);
	w->block = malloc(PATCH_BLOCK * sizeof *w->block);
	if (w->w == NULL || w->patches == NULL || w->block == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (uint64_t i = 0; i < n; i++)
		w->w[i].first = base[i];
	int rc = umt__ixb_create(b, UMT_IX_CALLS_TAB, &w->fd);
	if (rc == 0)
		rc = umt__ixb_file_header(b, w->fd, "UMTCLTAB");
	return rc == 0 ? umt__ix_csort_new(b, &w->sort) : rc;
}

/* The windows flushed, the patches applied: calls.tab is complete. */
static int writer_finish(struct cwriter *w)
{
	int rc = 0;
	for (uint64_t i = 0; rc == 0 && i < w->nthreads; i++)
		rc = flush_window(w, &w->w[i]);
	return rc == 0 ? apply_patches(w) : rc;
}

static void writer_free(struct cwriter *w)
{
	for (uint64_t i = 0; w->w && i < w->nthreads; i++)
		free(w->w[i].rows);
	free(w->w);
	free(w->patches);
	free(w->block);
	umt__ix_csort_free(w->sort);
}

/* Replays every range into the writer; checks that each thread got the rows counted. */
static int replay_ranges(struct cwriter *w, void *const *states, unsigned nranges,
                         const uint64_t *calls, const uint64_t *base,
                         uint64_t info[UMT_IX_INFO_WORDS])
{
	struct call_sink sink = {w_open, w_target, w_close, w};
	struct call_spill spill = {spill_write, spill_read, w->b};
	struct call_replay *r;
	uint64_t *seen = calloc(w->nthreads ? w->nthreads : 1, sizeof *seen);
	int rc = seen ? umt__ix_replay_new(w->nthreads, base, &sink, &spill, "index build", &r)
	              : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc < 0) {
		free(seen);
		return rc;
	}
	for (unsigned k = 0; rc == 0 && k < nranges; k++)
		rc = umt__ix_calls_range_events(states[k], replay_one, r);
	if (rc == 0)
		rc = umt__ix_replay_finish(r, info, seen);
	for (uint64_t i = 0; rc == 0 && i < w->nthreads; i++)
		if (seen[i] != calls[i])
			rc = umt__failf(UMT_E_IO, "index build: the calls' events read back inconsistent");
	umt__ix_replay_free(r);
	free(seen);
	return rc;
}

int umt__ix_calls_assemble(struct ix_build *b, void *const *states, unsigned nranges,
                           uint64_t info[UMT_IX_INFO_WORDS])
{
	uint64_t n = umt_thread_count(b->t), targets = 0;
	uint64_t *calls = calloc(n ? n : 1, sizeof *calls), *base = calloc(n ? n : 1, sizeof *base);
	struct cwriter w = {0};
	memset(info, 0, UMT_IX_INFO_WORDS * sizeof *info);
	int rc = calls && base ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc == 0) {
		thread_rows(n, states, nranges, calls, base, info);
		rc = writer_init(&w, b, n, base, info[CALLS_INFO_THREADS]);
	}
	if (rc == 0)
		rc = replay_ranges(&w, states, nranges, calls, base, info);
	if (rc == 0)
		rc = writer_finish(&w);
	if (rc == 0)
		rc = write_threads(b, n, calls, base);
	if (rc == 0)
		rc = umt__ix_csort_finish(w.sort, &targets);
	info[CALLS_INFO_TARGETS] = targets;
	writer_free(&w);
	free(calls);
	free(base);
	return rc;
}
