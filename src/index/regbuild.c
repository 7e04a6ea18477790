/*
 * libumtrace - the register section's part of the build's scan (section.h,
 * regs.h): each range follows the register file of every thread it sees,
 * relative to the unknown state at its start, checkpoints it after every
 * K-th record of the thread in the range, and ends with each thread's
 * relative state after its last record there. Everything goes to the
 * build's spill file as it comes (in chunks of SPILL_CHUNK bytes); the
 * range keeps where it went. Memory: a relative state per thread seen,
 * freed at the range's end.
 */
#include <stdlib.h>

#include "build.h"
#include "regs.h"

#define SPILL_CHUNK (1u << 20)

uint64_t umt__regs_rule(uint64_t count, uint64_t interval, uint64_t *since)
{
	uint64_t inside = count / interval;
	if (inside > 0)
		*since = count % interval;
	else
		*since += count;
	if (*since < interval)
		return inside;
	*since = 0; /* only without checkpoints inside: fewer than 2K records went by */
	return inside | RB_AT_END;
}

/* What every range shares: the trace's register context and its rows' plans. */
int umt__regs_build_begin(struct ix_build *b, void **global)
{
	struct regctx *c = malloc(sizeof *c);
	int rc = c ? umt__regctx_init(c, b->t) : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc < 0 && c) {
		umt__regctx_free(c);
		free(c);
		c = NULL;
	}
	*global = c;
	return rc;
}

void umt__regs_build_end(void *global)
{
	umt__regctx_free(global);
	free(global);
}

int umt__regs_range_begin(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
                          void **state)
{
	(void)range, (void)first, (void)end;
	struct rb_range *g = calloc(1, sizeof *g);
	if (g == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	*state = g;
	g->b = b;
	g->ctx = b->section_global[UMT_IX_REGS_BIT];
	g->nthreads = umt_thread_count(b->t);
	g->cap = SPILL_CHUNK + umt__rs_encoded_max(g->ctx->dump) + 32;
	g->by_thread = calloc(g->nthreads ? g->nthreads : 1, sizeof(struct rb_thread *));
	g->buf = malloc(g->cap);
	g->enc = malloc(umt__rs_encoded_max(g->ctx->dump));
	if (g->by_thread == NULL || g->buf == NULL || g->enc == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	return 0;
}

/* Writes the pending bytes to the spill file as one chunk. */
static int flush(struct rb_range *g)
{
	if (g->len == 0)
		return 0;
	if (g->nchunks == g->chunks_cap) {
		size_t cap = g->chunks_cap ? 2 * g->chunks_cap : 4;
		struct rb_chunk *p = realloc(g->chunks, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: out of memory");
		g->chunks = p, g->chunks_cap = cap;
	}
	struct rb_chunk *c = &g->chunks[g->nchunks];
	int rc = umt__ixb_spill(g->b, g->buf, g->len, &c->at);
	c->len = g->len;
	g->nchunks += rc == 0;
	g->len = 0;
	return rc;
}

/* Appends a varint length and the encoding of @p s after @p record to the pending bytes. */
static void put_state(struct rb_range *g, struct rstate *s, uint64_t record)
{
	size_t n = umt__rs_encode(s, record, g->enc);
	g->len += umt__put_varint(g->buf + g->len, n);
	memcpy(g->buf + g->len, g->enc, n);
	g->len += n;
}

static int checkpoint(struct rb_range *g, uint64_t thread, struct rb_thread *th,
                      uint64_t record)
{
	g->len += umt__put_varint(g->buf + g->len, thread);
	g->len += umt__put_varint(g->buf + g->len, record);
	put_state(g, &th->s, record);
	return g->len >= SPILL_CHUNK ? flush(g) : 0;
}

/* The state of a thread first seen in this range. */
static int thread_seen(struct rb_range *g, uint64_t thread, uint64_t id, struct rb_thread **out)
{
	struct rb_thread *th = calloc(1, sizeof *th);
	int rc = th ? umt__rs_alloc(&th->s, g->ctx->dump, true, true)
	            : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc == 0 && g->norder == g->order_cap) {
		size_t cap = g->order_cap ? 2 * g->order_cap : 16;
		uint64_t *p = realloc(g->order, cap * sizeof *p);
		if (p == NULL)
			rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
		else
			g->order = p, g->order_cap = cap;
	}
	if (rc < 0) {
		if (th)
			umt__rs_free(&th->s);
		free(th);
		return rc;
	}
	th->first = id;
	g->order[g->norder++] = thread;
	g->by_thread[thread] = th;
	*out = th;
	return 0;
}

int umt__regs_record(void *state, const umt_rec *r)
{
	struct rb_range *g = state;
	if (r->thread_id < 0 || (uint64_t)r->thread_id >= g->nthreads)
		return 0; /* a record of no thread of the table has no register file */
	uint64_t thread = (uint64_t)r->thread_id;
	struct rb_thread *th = g->by_thread[thread];
	int rc = th ? 0 : thread_seen(g, thread, r->id, &th);
	if (rc == 0)
		rc = umt__regs_apply(g->ctx, &th->s, r, -1);
	if (rc < 0)
		return rc;
	th->last = r->id;
	if (++th->count % UMT_IX_REGS_INTERVAL == 0)
		rc = checkpoint(g, thread, th, r->id);
	return rc;
}

/* Frees what the scan of a range needed: its threads' states and buffers. */
static void drop_scan(struct rb_range *g)
{
	for (size_t i = 0; g->by_thread && i < g->norder; i++) {
		umt__rs_free(&g->by_thread[g->order[i]]->s);
		free(g->by_thread[g->order[i]]);
	}
	free(g->by_thread);
	free(g->order);
	free(g->buf);
	free(g->enc);
	g->by_thread = NULL;
	g->order = NULL;
	g->buf = g->enc = NULL;
}

/* Grows the summary @p sum (capacity *cap) to hold @p more bytes after @p len. */
static int room(uint8_t **sum, size_t *cap, size_t len, size_t more)
{
	if (len + more <= *cap)
		return 0;
	size_t want = 2 * *cap > len + more ? 2 * *cap : len + more;
	uint8_t *p = realloc(*sum, want);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	*sum = p, *cap = want;
	return 0;
}

/* The range's summary (struct rb_range), built whole and spilled in one piece. */
static int summary(struct rb_range *g)
{
	size_t cap = 8 + g->norder * 32 + 4096, len = 8;
	uint8_t *sum = malloc(cap);
	if (sum == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	uint64_t n = g->norder;
	memcpy(sum, &n, 8);
	for (size_t i = 0; i < g->norder; i++, len += 32) {
		const struct rb_thread *th = g->by_thread[g->order[i]];
		uint64_t row[4] = {g->order[i], th->count, th->first, th->last};
		memcpy(sum + len, row, sizeof row);
	}
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < g->norder; i++) {
		struct rb_thread *th = g->by_thread[g->order[i]];
		size_t k = umt__rs_encode(&th->s, th->last, g->enc);
		if ((rc = room(&sum, &cap, len, k + 10)) == 0) {
			len += umt__put_varint(sum + len, k);
			memcpy(sum + len, g->enc, k);
			len += k;
		}
	}
	if (rc == 0)
		rc = umt__ixb_spill(g->b, sum, len, &g->summary.at);
	g->summary.len = len;
	free(sum);
	return rc;
}

int umt__regs_range_end(struct ix_build *b, void *state)
{
	(void)b;
	struct rb_range *g = state;
	int rc = flush(g);
	if (rc == 0)
		rc = summary(g);
	drop_scan(g);
	return rc;
}

void umt__regs_free_state(void *state)
{
	struct rb_range *g = state;
	if (g == NULL)
		return;
	drop_scan(g);
	free(g->chunks);
	free(g);
}
