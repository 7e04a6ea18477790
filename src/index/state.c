/*
 * libumtrace - the registers of a thread at a record (index.h section 7):
 * at one of the thread's records, read backwards from it (regsettle.c); at
 * another thread's, the thread's latest checkpoint before the record and
 * its records from there (regwalk.c).
 */
#include <stdlib.h>

#include "regs.h"

struct state_internal {
	const umt_index *ix;
	const struct regs_data *d;
	struct rstate rs;
	struct settle w;
};

int umt_state_init(const umt_index *ix, umt_state *s)
{
	if (ix == NULL || s == NULL)
		return umt__failf(UMT_E_INVAL, "umt_state_init: invalid argument");
	memset(s, 0, sizeof *s);
	const struct regs_data *d = umt__regs_of(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	struct state_internal *in = calloc(1, sizeof *in);
	if (in == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_state_init: out of memory");
	int rc = umt__rs_alloc(&in->rs, d->ctx.dump, false, false);
	if (rc == 0 && (rc = umt__settle_init(&in->w, d)) < 0)
		umt__rs_free(&in->rs);
	if (rc < 0) {
		free(in);
		return rc;
	}
	in->ix = ix;
	in->d = d;
	s->at = UMT_NO_RECORD;
	s->size = d->ctx.dump;
	s->data = in->rs.val;
	s->known = in->rs.known;
	s->sources = in->rs.src;
	s->internal = in;
	return 0;
}

void umt_state_release(umt_state *s)
{
	if (s == NULL || s->internal == NULL)
		return;
	struct state_internal *in = s->internal;
	umt__rs_free(&in->rs);
	umt__settle_free(&in->w);
	free(in);
	memset(s, 0, sizeof *s);
}

int umt_state_at(const umt_index *ix, uint64_t at, int64_t thread, umt_state *s)
{
	struct state_internal *in = s ? s->internal : NULL;
	if (ix == NULL || in == NULL || in->ix != ix)
		return umt__failf(UMT_E_INVAL, "umt_state_at: invalid argument (a state of another index?)");
	const struct regs_data *d = in->d;
	if (at >= umt_exec_count(ix->trace) || (thread >= 0 && (uint64_t)thread >= d->thread_count))
		return umt__failf(UMT_E_RANGE, "umt_state_at: record %llu or thread %lld out of range "
		                  "(%llu records, %llu threads)", (unsigned long long)at,
		                  (long long)thread, (unsigned long long)umt_exec_count(ix->trace),
		                  (unsigned long long)d->thread_count);
	umt_rec r;
	uint64_t t = (uint64_t)thread, last;
	int rc = umt_exec_get(ix->trace, at, &r);
	if (rc == 0 && thread < 0)
		rc = umt__regs_thread_of(ix, d, at, &t);
	/* a record of the thread: read backwards from it (usually a few records); another
	 * thread's: the thread's records up to it, forwards from its checkpoint */
	if (rc == 0 && r.thread_id >= 0 && (uint64_t)r.thread_id == t)
		rc = umt__regs_settle(&in->w, t, at, SETTLE_AT, 0, d->ctx.dump, &in->rs);
	else if (rc == 0 && (rc = umt__regs_replay(d, t, at, &in->rs, NULL, NULL, &last)) == 0 &&
	         last == UMT_NO_RECORD)
		in->rs.mode64 = (r.flags & UMT_EXEC_F_64BIT) != 0; /* no record yet: the map of at's */
	umt__rs_flatten(&in->rs); /* s->sources are the bytes' own */
	s->at = at;
	s->thread = t;
	s->is_64bit = in->rs.mode64;
	return rc;
}

int umt_state_reg(const umt_state *s, int reg, umt_reg_value *out)
{
	const struct state_internal *in = s ? s->internal : NULL;
	if (in == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_state_reg: invalid argument");
	const struct regctx *c = &in->d->ctx;
	if (reg < 0 || reg >= c->map->ElemCount)
		return umt__failf(UMT_E_RANGE, "register %d is outside the context map (ElemCount %u)",
		                  reg, c->map->ElemCount);
	uint32_t off, len;
	int largest;
	if (!umt__regs_place(c, reg, s->is_64bit != 0, &off, &len, &largest))
		return umt__failf(UMT_E_NOT_FOUND, "register %d is not in the %d-bit register dump",
		                  reg, s->is_64bit ? 64 : 32);
	memset(out, 0, sizeof *out);
	out->reg = reg;
	out->largest = largest;
	out->offset = off;
	out->size = len;
	out->data = s->data + off;
	out->known = s->known + off;
	out->source = UMT_NO_RECORD;
	for (uint32_t b = off; b < off + len; b++) {
		out->known_bytes += s->known[b] != 0;
		if (s->sources[b] != UMT_NO_RECORD &&
		    (out->source == UMT_NO_RECORD || s->sources[b] > out->source))
			out->source = s->sources[b];
	}
	return 0;
}
