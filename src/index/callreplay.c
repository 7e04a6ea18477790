/*
 * libumtrace - the matching of calls with returns (index.h section 11,
 * "the matching rule"): the events of every range replayed in record
 * order against one stack of open frames per thread. The only code that
 * applies the rule: the build writes what it finds, verify compares it
 * with the index (calls.h, struct call_sink).
 *
 * A stack holds (row, slot) frames with strictly decreasing slots from the
 * bottom up, so every rule pops from the top. Its top blocks stay in
 * memory; when it grows past two blocks the bottom one goes to the spill
 * file and comes back when the stack shrinks to nothing in memory: a
 * thread a million calls deep costs two blocks of memory.
 */
#include <stdlib.h>

#include "calls.h"

#define BLOCK umt__ix_calls_limits.stack_block /* frames per spilled block */
#define NONE UINT64_MAX

struct frame {
	uint64_t row, slot;
};

struct rthread {
	struct frame *f;     /* the top of the stack, in memory */
	size_t n, cap;       /* frames in f, its capacity */
	uint64_t *spilled;   /* offsets of the blocks below f in the spill file, bottom first */
	size_t nspilled, spilled_cap;
	uint64_t base, next; /* the thread's first row; its next row */
	uint64_t pending;    /* the row whose target awaits the thread's next record, or NONE */
	uint64_t pending_id, pending_target;
	uint8_t pending_source;
};

struct call_replay {
	struct rthread *th;
	uint64_t nthreads;
	struct call_sink sink;
	struct call_spill spill;
	const char *what;
	uint64_t returned, abandoned, open, unmatched;
};

int umt__ix_replay_new(uint64_t nthreads, const uint64_t *base, const struct call_sink *sink,
                       const struct call_spill *spill, const char *what, struct call_replay **out)
{
	struct call_replay *r = calloc(1, sizeof *r);
	if (r == NULL || (r->th = calloc(nthreads ? nthreads : 1, sizeof *r->th)) == NULL) {
		free(r);
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", what);
	}
	r->nthreads = nthreads;
	r->sink = *sink;
	r->spill = *spill;
	r->what = what;
	for (uint64_t i = 0; i < nthreads; i++) {
		r->th[i].base = r->th[i].next = base[i];
		r->th[i].pending = NONE;
	}
	*out = r;
	return 0;
}

void umt__ix_replay_free(struct call_replay *r)
{
	if (r == NULL)
		return;
	for (uint64_t i = 0; i < r->nthreads; i++) {
		free(r->th[i].f);
		free(r->th[i].spilled);
	}
	free(r->th);
	free(r);
}

/* ---- the stacks --------------------------------------------------------------------------- */

static uint64_t depth_of(const struct rthread *t)
{
	return t->nspilled * BLOCK + t->n;
}

static int push(struct call_replay *r, struct rthread *t, struct frame f)
{
	if (t->n == 2 * BLOCK) { /* the bottom block to the spill file */
		uint64_t at;
		if (t->nspilled == t->spilled_cap) {
			size_t cap = t->spilled_cap ? 2 * t->spilled_cap : 8;
			uint64_t *p = realloc(t->spilled, cap * sizeof *p);
			if (p == NULL)
				return umt__failf(UMT_E_NOMEM, "%s: out of memory", r->what);
			t->spilled = p;
			t->spilled_cap = cap;
		}
		int rc = r->spill.write(r->spill.ctx, t->f, BLOCK * sizeof *t->f, &at);
		if (rc < 0)
			return rc;
		t->spilled[t->nspilled++] = at;
		memmove(t->f, t->f + BLOCK, BLOCK * sizeof *t->f);
		t->n = BLOCK;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct frame *p = realloc(t->f, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "%s: out of memory", r->what);
		t->f = p;
		t->cap = cap;
	}
	t->f[t->n++] = f;
	return 0;
}

/* Pops the top frame; the block below comes back when memory holds none. */
static int pop(struct call_replay *r, struct rthread *t)
{
	if (--t->n > 0 || t->nspilled == 0)
		return 0;
	if (t->cap < BLOCK) {
		struct frame *p = realloc(t->f, 2 * BLOCK * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "%s: out of memory", r->what);
		t->f = p;
		t->cap = 2 * BLOCK;
	}
	t->n = BLOCK;
	return r->spill.read(r->spill.ctx, t->f, BLOCK * sizeof *t->f, t->spilled[--t->nspilled]);
}

/* Closes the top frame. */
static int close_top(struct call_replay *r, int32_t thread, struct rthread *t, uint64_t end_id,
                     unsigned end)
{
	int rc = r->sink.close(r->sink.ctx, thread, t->f[t->n - 1].row, end_id, end);
	if (rc == 0)
		rc = pop(r, t);
	return rc;
}

/* Abandons the frames whose slot is below @p sp (or at it, with @p inclusive). */
static int unwind(struct call_replay *r, int32_t thread, struct rthread *t, uint64_t id,
                  uint64_t sp, bool inclusive)
{
	int rc = 0;
	while (rc == 0 && t->n > 0 &&
	       (t->f[t->n - 1].slot < sp || (inclusive && t->f[t->n - 1].slot == sp))) {
		rc = close_top(r, thread, t, id, UMT_CALL_ABANDONED);
		r->abandoned++;
	}
	return rc;
}

/* ---- the events ------------------------------------------------------------------------------ */

/* The pending target of the thread becomes final: the next record's address, or the fallback. */
static int settle(struct call_replay *r, int32_t thread, struct rthread *t,
                  const struct call_event *next)
{
	if (t->pending == NONE)
		return 0;
	uint64_t row = t->pending;
	t->pending = NONE;
	if (next && next->source == UMT_CALL_TARGET_NEXT)
		return r->sink.target(r->sink.ctx, thread, row, t->pending_id, next->value,
		                      UMT_CALL_TARGET_NEXT);
	return r->sink.target(r->sink.ctx, thread, row, t->pending_id, t->pending_target,
	                      t->pending_source);
}

static int on_call(struct call_replay *r, struct rthread *t, const struct call_event *e)
{
	int rc = settle(r, e->thread, t, NULL);
	if (rc == 0)
		rc = unwind(r, e->thread, t, e->id, e->value, true);
	if (rc < 0)
		return rc;
	if (t->base == NONE)
		return umt__failf(UMT_E_CORRUPT, "%s: thread %d makes a call at record %llu that the "
		                  "index does not list", r->what, e->thread, (unsigned long long)e->id);
	uint64_t depth = depth_of(t);
	if (depth > UINT32_MAX)
		return umt__failf(UMT_E_RANGE, "%s: thread %d is more than 2^32 calls deep at record %llu",
		                  r->what, e->thread, (unsigned long long)e->id);
	struct call_open c = {.row = t->next++, .id = e->id, .caller = e->caller, .target = e->target,
	                      .parent = t->n ? t->f[t->n - 1].row : NONE, .depth = (uint32_t)depth,
	                      .thread = e->thread, .length = e->length, .source = e->source,
	                      .final = e->final};
	rc = r->sink.open(r->sink.ctx, &c);
	if (rc == 0 && !e->final) {
		t->pending = c.row;
		t->pending_id = e->id;
		t->pending_target = e->target;
		t->pending_source = e->source;
	}
	return rc == 0 ? push(r, t, (struct frame){c.row, e->value}) : rc;
}

static int on_ret(struct call_replay *r, struct rthread *t, const struct call_event *e)
{
	int rc = unwind(r, e->thread, t, e->id, e->value, false);
	if (rc < 0)
		return rc;
	if (t->n > 0 && t->f[t->n - 1].slot == e->value) {
		r->returned++;
		return close_top(r, e->thread, t, e->id, UMT_CALL_RETURNED);
	}
	r->unmatched++;
	return 0;
}

int umt__ix_replay_event(struct call_replay *r, const struct call_event *e)
{
	if (e->thread < 0 || (uint64_t)e->thread >= r->nthreads)
		return umt__failf(UMT_E_IO, "%s: an event of thread %d, outside the thread table",
		                  r->what, e->thread);
	struct rthread *t = &r->th[e->thread];
	switch (e->kind) {
	case CEV_CALL:
		return on_call(r, t, e);
	case CEV_RET:
		return on_ret(r, t, e);
	case CEV_SP:
		return unwind(r, e->thread, t, e->id, e->value, false);
	default:
		return settle(r, e->thread, t, e);
	}
}

int umt__ix_replay_finish(struct call_replay *r, uint64_t info[UMT_IX_INFO_WORDS],
                          uint64_t *calls)
{
	int rc = 0;
	for (uint64_t i = 0; rc == 0 && i < r->nthreads; i++) {
		struct rthread *t = &r->th[i];
		rc = settle(r, (int32_t)i, t, NULL);
		while (rc == 0 && t->n > 0) {
			rc = close_top(r, (int32_t)i, t, NONE, UMT_CALL_OPEN);
			r->open++;
		}
		if (calls)
			calls[i] = t->next - t->base;
	}
	info[CALLS_INFO_RETURNED] = r->returned;
	info[CALLS_INFO_ABANDONED] = r->abandoned;
	info[CALLS_INFO_OPEN] = r->open;
	info[CALLS_INFO_UNMATCHED] = r->unmatched;
	return rc;
}
