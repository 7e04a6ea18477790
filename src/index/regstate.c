/*
 * libumtrace - a thread's register file as index.h section 1 defines it
 * (regs.h): its storage, one effect of a record applied to it, and the
 * composition of the build's range-relative states.
 *
 * A byte changes (lc) when a record writes it and it was not known, or
 * known with another value, or the write is a clobber or a gap: "changed"
 * is conservative where the trace cannot tell. A range-relative state does
 * not know the bytes the range has not seen; the first write of such a byte
 * is kept pending (pend, pval) and decided when the range is composed with
 * the state at its start.
 */
#include <stdlib.h>

#include "regs.h"

int umt__rs_alloc(struct rstate *s, uint32_t size, bool rel, bool track)
{
	memset(s, 0, sizeof *s);
	size_t n = size ? size : 1;
	size_t words = track ? (rel ? 4 : 3) : 1;
	size_t groups = rel ? n / 8 + 1 : 0; /* seen8 */
	uint8_t *p = malloc(n * (2 + words * 8 + (rel ? 1 : 0)) + groups);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "register state: out of memory");
	s->size = size;
	s->rel = rel;
	s->track = track;
	s->src = (uint64_t *)(void *)p; /* the 8-byte fields first: aligned */
	if (track) {
		s->lw = s->src + n;
		s->lc = s->lw + n;
		if (rel)
			s->pend = s->lc + n;
	}
	s->val = p + n * words * 8;
	s->known = s->val + n;
	if (rel) {
		s->pval = s->known + n;
		s->seen8 = s->pval + n;
	}
	umt__rs_clear(s);
	return 0;
}

void umt__rs_free(struct rstate *s)
{
	if (s)
		free(s->src);
}

void umt__rs_forget_seen(struct rstate *s)
{
	if (s->seen8)
		memset(s->seen8, 0, s->size / 8 + 1);
}

void umt__rs_clear(struct rstate *s)
{
	uint64_t none = s->rel ? RS_UNSET : UMT_NO_RECORD;
	s->fsrc = s->flw = s->flc = none;
	memset(s->val, 0, s->size);
	memset(s->known, 0, s->size);
	umt__rs_forget_seen(s);
	for (uint32_t b = 0; b < s->size; b++) {
		s->src[b] = none;
		if (s->track)
			s->lw[b] = s->lc[b] = none;
		if (s->pend)
			s->pend[b] = RS_UNSET;
	}
	s->mode64 = false;
}

/* @p n records of @p p, each the larger of its own and the floor @p f ("none" smallest). */
static void lift(uint64_t *p, uint32_t n, uint64_t f)
{
	if (f >= RS_UNSET)
		return; /* no floor */
	for (uint32_t b = 0; b < n; b++) {
		uint64_t v = p[b] >= RS_UNSET ? 0 : p[b];
		p[b] = v > f ? v : f;
	}
}

void umt__rs_flatten(struct rstate *s)
{
	uint64_t none = s->rel ? RS_UNSET : UMT_NO_RECORD;
	lift(s->src, s->size, s->fsrc);
	if (s->track) {
		lift(s->lw, s->size, s->flw);
		lift(s->lc, s->size, s->flc);
	}
	s->fsrc = s->flw = s->flc = none;
}

void umt__rs_copy(struct rstate *to, const struct rstate *from)
{
	memcpy(to->val, from->val, from->size);
	memcpy(to->known, from->known, from->size);
	memcpy(to->src, from->src, from->size * sizeof *to->src);
	if (to->track && from->track) {
		memcpy(to->lw, from->lw, from->size * sizeof *to->lw);
		memcpy(to->lc, from->lc, from->size * sizeof *to->lc);
	}
	if (to->pend && from->pend) {
		memcpy(to->pend, from->pend, from->size * sizeof *to->pend);
		memcpy(to->pval, from->pval, from->size);
	}
	umt__rs_forget_seen(to);
	to->mode64 = from->mode64;
	to->fsrc = from->fsrc;
	to->flw = from->flw;
	to->flc = from->flc;
}

/* The records of @p out: those of @p abs followed by @p rel (both flat). The arrays
 * are taken into locals once: byte stores could otherwise alias the structures and
 * make the compiler reload every pointer after each. */
static void compose_records(struct rstate *out, const struct rstate *abs,
                            const struct rstate *rel)
{
	const uint64_t *rlw = rel->lw, *rlc = rel->lc, *pend = rel->pend;
	const uint64_t *alw = abs->lw, *alc = abs->lc;
	const uint8_t *aval = abs->val, *aknown = abs->known, *pval = rel->pval;
	uint64_t *olw = out->lw, *olc = out->lc;
	for (uint32_t b = 0, n = out->size; b < n; b++) {
		uint64_t lc = rlc[b], lw = rlw[b], p = pend[b];
		/* a pending first write is decided now that the value before is known */
		bool changed = p != RS_UNSET && (!aknown[b] || aval[b] != pval[b]);
		olc[b] = lc != RS_UNSET ? lc : changed ? p : alc[b];
		olw[b] = lw != RS_UNSET ? lw : alw[b];
	}
}

void umt__rs_compose(struct rstate *out, struct rstate *abs, const struct rstate *rel)
{
	umt__rs_flatten(abs);
	if (out->track)
		compose_records(out, abs, rel); /* first: it reads abs's values */
	const uint64_t *rsrc = rel->src, *asrc = abs->src;
	const uint8_t *rval = rel->val, *rknown = rel->known, *aval = abs->val;
	const uint8_t *aknown = abs->known;
	uint64_t *osrc = out->src;
	uint8_t *oval = out->val, *oknown = out->known;
	for (uint32_t b = 0, n = out->size; b < n; b++) {
		bool set = rsrc[b] != RS_UNSET;
		oval[b] = set ? rval[b] : aval[b];
		oknown[b] = set ? rknown[b] : aknown[b];
		osrc[b] = set ? rsrc[b] : asrc[b];
	}
	out->mode64 = rel->mode64;
	out->fsrc = out->flw = out->flc = UMT_NO_RECORD;
	umt__rs_forget_seen(out);
}

void umt__rs_effect(struct rstate *s, const struct reg_effect *e, uint64_t id)
{
	umt__rs_effect_inline(s, e, id);
}
