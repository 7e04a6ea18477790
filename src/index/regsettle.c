/*
 * libumtrace - a thread's register bytes at one of its records, read
 * backwards (regs.h): index.h section 1 takes each byte from its latest
 * observation, so walking the thread's records from the record back, the
 * first effect that covers a byte settles it (a record's effects taken in
 * reverse: phase 1 before phase 0, the last slot first). The walk stops
 * when every byte asked for is settled, or at the thread's latest
 * checkpoint before the record, whose state settles the rest. Where
 * context records are frequent (a syscall every few hundred instructions)
 * this reads a few dozen records instead of replaying up to 2K - 1; it
 * never reads more.
 */
#include <stdlib.h>

#include "regs.h"

#define MAX_EFFECTS 800 /* a gap, a dump, 255 slots with their zero-extensions */

int umt__settle_init(struct settle *w, const struct regs_data *d)
{
	memset(w, 0, sizeof *w);
	w->d = d;
	w->done = malloc(d->ctx.dump ? d->ctx.dump : 1);
	w->fx = malloc(MAX_EFFECTS * sizeof *w->fx);
	int rc = w->done && w->fx ? umt__rs_alloc(&w->ck, d->ctx.dump, false, false)
	                          : umt__failf(UMT_E_NOMEM, "register state: out of memory");
	if (rc < 0)
		umt__settle_free(w);
	return rc;
}

void umt__settle_free(struct settle *w)
{
	free(w->done);
	free(w->fx);
	umt__rs_free(&w->ck);
	memset(w, 0, sizeof *w);
}

static int collect(void *arg, const struct reg_effect *e)
{
	struct settle *w = arg;
	if (w->nfx == MAX_EFFECTS)
		return umt__failf(UMT_E_CORRUPT, "a record with more than %u register effects",
		                  MAX_EFFECTS);
	w->fx[w->nfx++] = *e;
	return 0;
}

/* The effects of phase(s) @p phase of @p r, last first, on the bytes still open. */
static int settle_record(struct settle *w, struct rstate *s, const umt_rec *r, int phase)
{
	w->nfx = 0;
	int rc = umt__regs_effects(&w->d->ctx, r, phase, collect, w);
	for (size_t i = w->nfx; rc == 0 && i-- > 0 && w->left > 0;) {
		const struct reg_effect *e = &w->fx[i];
		uint32_t from = e->off > w->lo ? e->off : w->lo;
		uint32_t to = e->off + e->len < w->hi ? e->off + e->len : w->hi;
		bool value = e->kind == RE_OBSERVE || e->kind == RE_WRITE;
		for (uint32_t b = from; b < to; b++) {
			if (w->done[b])
				continue;
			w->done[b] = 1;
			w->left--;
			s->val[b] = value ? e->data[b - e->off] : 0;
			s->known[b] = value;
			s->src[b] = r->id;
		}
	}
	return rc;
}

/* The bytes still open from the checkpoint @p entry (or unknown, none, without one). */
static int settle_rest(struct settle *w, struct rstate *s, int has, uint64_t entry)
{
	uint64_t record;
	int rc = has ? umt__regs_load(w->d, entry, &w->ck, &record) : 0;
	if (rc < 0)
		return rc;
	for (uint32_t b = w->lo; b < w->hi; b++) {
		if (w->done[b])
			continue;
		s->val[b] = has ? w->ck.val[b] : 0;
		s->known[b] = has ? w->ck.known[b] : 0;
		s->src[b] = has ? umt__rs_src(&w->ck, b) : UMT_NO_RECORD;
	}
	return 0;
}

int umt__regs_settle(struct settle *w, uint64_t thread, uint64_t at, int upto, uint32_t lo,
                     uint32_t hi, struct rstate *s)
{
	const struct regs_data *d = w->d;
	uint64_t entry, x = UMT_NO_RECORD;
	int has = umt__regs_find(d, thread, at, &entry);
	if (has < 0)
		return has;
	if (has)
		memcpy(&x, &d->entries[entry].Record, 8);
	memset(w->done + lo, 0, hi - lo);
	w->lo = lo, w->hi = hi, w->left = hi - lo;
	umt_thread_iter it;
	umt_rec r;
	bool first = true;
	int rc = umt_thread_iter_init(&it, d->ctx.t, at, UMT_BACKWARD);
	while (rc == 0 && w->left > 0 && (rc = umt_thread_iter_next(&it, &r)) > 0) {
		rc = 0;
		if (first && (r.thread_id < 0 || (uint64_t)r.thread_id != thread))
			return umt__failf(UMT_E_INVAL, "record %llu is not of thread %llu",
			                  (unsigned long long)at, (unsigned long long)thread);
		if (!first && x != UMT_NO_RECORD && r.id <= x)
			break; /* the checkpoint holds the state after x */
		if (first)
			s->mode64 = (r.flags & UMT_EXEC_F_64BIT) != 0; /* the map of the record itself */
		if (!first || upto != SETTLE_BEFORE) /* of the record itself: as asked */
			rc = settle_record(w, s, &r, first && upto == SETTLE_AT ? 0 : -1);
		first = false;
	}
	if (rc < 0)
		return rc;
	return w->left > 0 ? settle_rest(w, s, has, entry) : 0;
}
