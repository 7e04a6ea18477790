/*
 * libumtrace - the register section's part of the build's scan (section.h,
 * regs.h): each range follows the register file of every thread it sees,
 * checkpoints it after every K-th record of the thread in the range, and
 * ends with each thread's state after its last record there. Everything
 * goes to the build's spill file as it comes (in chunks of SPILL_CHUNK
 * bytes); the range keeps where it went.
 *
 * The states are absolute when the range knows the state at its start: the
 * trace's first range (nothing known yet), and a range that begins where an
 * absolute range ended that had finished by then (a build on one thread:
 * every range), which takes over that range's states (struct rb_carry).
 * Other ranges follow states relative to the unknown state at their start,
 * which the assembly composes (regassemble.c); absolute ones it copies as
 * they are. Memory: a state per thread seen in the range, or, carried, per
 * thread seen since the trace's start (within CARRY_MEMORY), freed when no
 * range takes them over.
 */
#include <stdlib.h>

#include "build.h"
#include "regs.h"

#define SPILL_CHUNK (1u << 20)
/* The most the carried states may take: past it, the next range starts relative. */
#define CARRY_MEMORY ((uint64_t)64 << 20)

/* The states an absolute range left for the range that begins at its end. */
struct rb_carry {
	uint64_t end;                /* that range's end: the taker's first record */
	struct rb_thread **by_thread; /* NULL: nothing carried */
	uint64_t *alive;             /* the threads with a state */
	size_t nalive, alive_cap;
};

/* What every range shares: the trace's register context, the carried states. */
struct rb_global {
	struct regctx ctx; /* first: the ranges' g->ctx */
	struct rb_carry carry;
};

static void free_states(struct rb_thread **by_thread, uint64_t *alive, size_t n)
{
	for (size_t i = 0; by_thread && i < n; i++) {
		umt__rs_free(&by_thread[alive[i]]->s);
		free(by_thread[alive[i]]);
	}
	free(by_thread);
	free(alive);
}

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

int umt__regs_build_begin(struct ix_build *b, void **global)
{
	struct rb_global *c = calloc(1, sizeof *c);
	int rc = c ? umt__regctx_init(&c->ctx, b->t)
	           : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc < 0 && c) {
		umt__regctx_free(&c->ctx);
		free(c);
		c = NULL;
	}
	*global = c;
	return rc;
}

void umt__regs_build_end(void *global)
{
	struct rb_global *c = global;
	free_states(c->carry.by_thread, c->carry.alive, c->carry.nalive);
	umt__regctx_free(&c->ctx);
	free(c);
}

/* Takes over the states carried to a range that begins at record @p first. */
static void take_carry(struct rb_range *g, struct rb_global *c, uint64_t first)
{
	pthread_mutex_lock(&g->b->mu);
	struct rb_carry k = c->carry;
	if (k.by_thread && k.end == first)
		memset(&c->carry, 0, sizeof c->carry);
	pthread_mutex_unlock(&g->b->mu);
	if (k.by_thread == NULL || k.end != first)
		return;
	g->by_thread = k.by_thread;
	g->alive = k.alive, g->nalive = k.nalive, g->alive_cap = k.alive_cap;
	for (size_t i = 0; i < g->nalive; i++)
		g->by_thread[g->alive[i]]->count = 0; /* not seen in this range yet */
	g->absolute = true;
}

int umt__regs_range_begin(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
                          void **state)
{
	(void)range;
	struct rb_range *g = calloc(1, sizeof *g);
	if (g == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	*state = g;
	g->b = b;
	g->ctx = b->section_global[UMT_IX_REGS_BIT];
	g->nthreads = umt_thread_count(b->t);
	g->end = end;
	g->cap = SPILL_CHUNK + umt__rs_encoded_max(g->ctx->dump) + 32;
	take_carry(g, b->section_global[UMT_IX_REGS_BIT], first);
	g->absolute |= first == 0; /* before the trace's first record nothing is known */
	if (g->by_thread == NULL)
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

/* Out of line (both): once every K records of a thread, once per thread and range. */
static UMT_NOINLINE int checkpoint(struct rb_range *g, uint64_t thread, struct rb_thread *th,
                                   uint64_t record)
{
	g->len += umt__put_varint(g->buf + g->len, thread);
	g->len += umt__put_varint(g->buf + g->len, record);
	put_state(g, &th->s, record);
	return g->len >= SPILL_CHUNK ? flush(g) : 0;
}

/* Appends @p v to the list @p *list (*n entries of *cap). */
static int push(uint64_t **list, size_t *n, size_t *cap, uint64_t v)
{
	if (*n == *cap) {
		size_t want = *cap ? 2 * *cap : 16;
		uint64_t *p = realloc(*list, want * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: out of memory");
		*list = p, *cap = want;
	}
	(*list)[(*n)++] = v;
	return 0;
}

/* A thread's first record in this range: its state (new unless carried) and its row. */
static UMT_NOINLINE int thread_seen(struct rb_range *g, uint64_t thread, uint64_t id,
                                    struct rb_thread **out)
{
	struct rb_thread *th = g->by_thread[thread];
	int rc = 0;
	if (th == NULL) {
		th = calloc(1, sizeof *th);
		rc = th ? umt__rs_alloc(&th->s, g->ctx->dump, !g->absolute, true)
		        : umt__failf(UMT_E_NOMEM, "index build: out of memory");
		if (rc == 0)
			rc = push(&g->alive, &g->nalive, &g->alive_cap, thread);
		if (rc < 0) {
			if (th)
				umt__rs_free(&th->s);
			free(th);
			return rc;
		}
		g->by_thread[thread] = th;
	}
	if ((rc = push(&g->order, &g->norder, &g->order_cap, thread)) < 0)
		return rc;
	th->first = id;
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
	int rc = th && th->count ? 0 : thread_seen(g, thread, r->id, &th);
	if (rc == 0)
		rc = umt__regs_apply(g->ctx, &th->s, r, -1);
	if (rc < 0)
		return rc;
	th->last = r->id;
	if (++th->count % UMT_IX_REGS_INTERVAL == 0)
		rc = checkpoint(g, thread, th, r->id);
	return rc;
}

/* Frees what the scan of a range needed: its threads' states (unless carried) and buffers. */
static void drop_scan(struct rb_range *g)
{
	free_states(g->by_thread, g->alive, g->nalive);
	free(g->order);
	free(g->buf);
	free(g->enc);
	g->by_thread = NULL;
	g->alive = g->order = NULL;
	g->buf = g->enc = NULL;
}

/* Leaves an absolute range's states to the range that begins at its end (the
 * one carried before, which no range took, is dropped). */
static void carry(struct rb_range *g)
{
	size_t one = sizeof(struct rb_thread) + (size_t)g->ctx->dump * 34;
	if (!g->absolute || g->nalive * one > CARRY_MEMORY)
		return;
	struct rb_global *c = g->b->section_global[UMT_IX_REGS_BIT];
	struct rb_carry k = {g->end, g->by_thread, g->alive, g->nalive, g->alive_cap};
	pthread_mutex_lock(&g->b->mu);
	struct rb_carry old = c->carry;
	c->carry = k;
	pthread_mutex_unlock(&g->b->mu);
	free_states(old.by_thread, old.alive, old.nalive);
	g->by_thread = NULL;
	g->alive = NULL;
	g->nalive = 0;
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
	if (rc == 0)
		carry(g);
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
