/*
 * libumtrace - what a record does to its thread's register file (index.h
 * section 1, regs.h): the effects of its two phases, read through the
 * reader's public API only.
 *
 * Phase 0 is the state "at" the record: a gap (exec flag 0x02: the
 * thread's earlier state is unknown), then the dump of a context record
 * (an observation that is also the thread's new state, so a write), then
 * the trusted before values of an instruction's register slots (read,
 * read-write and write-only operands alike: all tell what the register
 * held). Phase 1 is what the record leaves: the after values of its
 * register slots (trusted outputs), the upper half of the 64-bit register
 * zeroed for a 4-byte output of a 64-bit record with decodedIns flag 0x08,
 * or clobbers where the outputs are not trusted. A false condition (0x04)
 * writes nothing: its after values are observations of unchanged registers.
 * Register slots are those with AddrWidth 0 whose RegName the context map
 * places in the record's mode (so MEM0, MEM1, AGEN and STACKPUSH/STACKPOP
 * never are); the bytes are the slot's first min(ValueSize, Size) bytes at
 * the map's Offset. Within a phase the slots apply in slot order.
 *
 * Where a row's slots go depends only on the row and the mode: it is worked
 * out once (a plan, struct reg_plan) and shared by every thread through one
 * atomically published pointer per row and mode. A record then costs its
 * LC length check and a few copies.
 */
#include <stdlib.h>

#include "regs.h"

static const uint8_t zeros[8];

int umt__regctx_init(struct regctx *c, const umt_trace *t)
{
	umt_trace_info info;
	memset(c, 0, sizeof *c);
	int rc = umt_trace_get_info(t, &info);
	if (rc < 0)
		return rc;
	c->t = t;
	c->map = umt_context_map_get(t);
	c->dump = info.dump_size;
	c->exec_version = info.exec_version;
	c->rows = info.ins_count;
	c->slow_flags = UMT_EXEC_F_INSTR_OFF | UMT_EXEC_F_NOT_EXECUTED;
	for (unsigned bit = 1; bit < 0x100; bit <<= 1) /* reliability: an or of flag tests */
		if (umt_exec_reliability(c->exec_version, bit) !=
		    (UMT_RELIABLE_INPUTS | UMT_RELIABLE_OUTPUTS))
			c->slow_flags |= (uint8_t)bit;
	c->plans = calloc(2 * c->rows + 1, sizeof *c->plans); /* pages touched as rows are met */
	return c->plans ? 0 : umt__failf(UMT_E_NOMEM, "register plans: out of memory");
}

void umt__regctx_free(struct regctx *c)
{
	for (uint64_t i = 0; c->plans && i < 2 * c->rows; i++)
		free(atomic_load_explicit(&c->plans[i], memory_order_relaxed));
	free(c->plans);
	c->plans = NULL;
}

bool umt__regs_place(const struct regctx *c, int reg, bool mode64, uint32_t *off, uint32_t *len,
                     int *largest)
{
	if (reg < 0 || reg >= c->map->ElemCount)
		return false;
	const umt_reg_info *ri = mode64 ? &c->map->RegMap64[reg] : &c->map->RegMap32[reg];
	if (ri->Offset == 0xffff || ri->Size == 0 || (uint32_t)ri->Offset + ri->Size > c->dump)
		return false;
	*off = ri->Offset;
	*len = ri->Size;
	*largest = reg;
	int l = ri->EffLargest;
	if (l != reg && l >= 0 && l < c->map->ElemCount) {
		const umt_reg_info *li = mode64 ? &c->map->RegMap64[l] : &c->map->RegMap32[l];
		/* only a present register that encloses it (a damaged map names others) */
		if (li->Offset != 0xffff && li->Size > 0 && (uint32_t)li->Offset + li->Size <= c->dump &&
		    li->Offset <= ri->Offset && ri->Offset + ri->Size <= li->Offset + li->Size)
			*largest = l;
	}
	return true;
}

/* ---- plans ------------------------------------------------------------------------------- */

/* Adds slot @p s to plan @p p when it is a register of the map; outputs may zero-extend. */
static void plan_slot(const struct regctx *c, const umt_decoded *dec, const umt_lc_slot *s,
                      bool mode64, bool output, struct reg_plan *p)
{
	uint32_t off, len, loff, llen;
	int largest, l2;
	if (s->AddrWidth != 0 || s->ValueSize <= 0 ||
	    !umt__regs_place(c, s->RegName, mode64, &off, &len, &largest))
		return;
	if ((uint32_t)s->ValueSize < len)
		len = (uint32_t)s->ValueSize;
	/* a 32-bit output in 64-bit code zeroes the upper half of its 64-bit register */
	bool zext = output && mode64 && len == 4 && umt_decoded_is_32in64(dec) &&
	            umt__regs_place(c, largest, true, &loff, &llen, &l2) && llen == 8 && loff == off;
	p->slot[p->nbefore + p->nafter] =
		(struct reg_plan_slot){s->Offset, (uint16_t)off, (uint16_t)len, zext, 0, REG_NO_PAIR};
	if (output)
		p->nafter++;
	else
		p->nbefore++;
}

/* Whether slot @p e's bytes (with the zero-extended half) overlap [off, off + len). */
static bool overlaps(const struct reg_plan_slot *e, uint32_t off, uint32_t len)
{
	uint32_t end = (uint32_t)e->dump_off + e->len + (e->zext ? 4u : 0u);
	return e->dump_off < off + len && off < end;
}

/*
 * Pairs each after value with the before value of the same bytes that the
 * state holds just before it is written: the last before slot touching
 * them has exactly its bytes, and no earlier after slot touches them. The
 * write then needs only the two values (umt__rs_rewrite()), and the
 * observation goes: the write replaces all it set. Only for records whose
 * inputs and outputs are trusted and that executed (apply_trusted()).
 */
static void plan_pairs(struct reg_plan *p)
{
	struct reg_plan_slot *after = p->slot + p->nbefore;
	for (unsigned j = 0; j < p->nafter; j++) {
		uint32_t off = after[j].dump_off, len = after[j].len;
		bool clear = true;
		for (unsigned k = 0; clear && k < j; k++)
			clear = !overlaps(&after[k], off, len);
		for (unsigned i = p->nbefore; clear && i-- > 0;) {
			if (!overlaps(&p->slot[i], off, len))
				continue;
			if (p->slot[i].dump_off == off && p->slot[i].len == len && !p->slot[i].fused) {
				after[j].pair = p->slot[i].lc_off;
				p->slot[i].fused = 1;
			}
			break; /* the last before slot touching them decides */
		}
	}
}

/* The plan of a row in one mode, from a record of it (checked by umt_rec_ins_exec()). */
static int make_plan(const struct regctx *c, const umt_rec *r, bool mode64, struct reg_plan **out)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(c->t, r, &x);
	if (rc < 0)
		return rc;
	unsigned count = x.dec.ins->LCCount, first_after = x.dec.ins->FirstAfterSlot;
	struct reg_plan *p = malloc(sizeof *p + count * sizeof p->slot[0]);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "register plans: out of memory");
	p->lc_size = x.dec.ins->LCSize;
	p->nbefore = p->nafter = 0;
	for (unsigned k = 0; k < first_after && k < count; k++)
		plan_slot(c, &x.dec, &x.dec.slots[k], mode64, false, p);
	for (unsigned k = first_after; k < count; k++)
		plan_slot(c, &x.dec, &x.dec.slots[k], mode64, true, p);
	plan_pairs(p);
	*out = p;
	return 0;
}

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#define COLD __attribute__((noinline, cold))
#else
#define ALWAYS_INLINE inline
#define COLD
#endif

/* Why record @p r has no plan: its InsID outside the table, or its LC shorter
 * than its row's (the errors of umt_rec_ins_exec()). */
static COLD int plan_error(const struct regctx *c, const umt_rec *r, int64_t id)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(c->t, r, &x); /* reports either */
	if (rc < 0)
		return rc;
	if (id < 0 || (uint64_t)id >= c->rows) /* not reached: reported above */
		return umt__failf(UMT_E_CORRUPT, "record %llu: InsID %lld outside the instruction table",
		                  (unsigned long long)r->id, (long long)id);
	return umt__failf(UMT_E_CORRUPT, "record %llu: LC shorter than its row's",
	                  (unsigned long long)r->id);
}

/* Makes the plan of slot @p slot's row from record @p r and publishes it (or
 * takes the one another thread published first). */
static COLD int plan_make(const struct regctx *c, const umt_rec *r,
                          _Atomic(struct reg_plan *) *slot, struct reg_plan **out)
{
	struct reg_plan *p, *expected = NULL;
	int rc = make_plan(c, r, r->flags & UMT_EXEC_F_64BIT, &p);
	if (rc < 0)
		return rc;
	if (!atomic_compare_exchange_strong_explicit(slot, &expected, p, memory_order_acq_rel,
	                                             memory_order_acquire)) {
		free(p); /* another thread made it first */
		p = expected;
	}
	*out = p;
	return 0;
}

/* The plan of instruction record @p r and its LC; the record's errors as
 * umt_rec_ins_exec(). Inline: every instruction record takes it, and only
 * the first record of a row or a damaged one leaves the fast path. */
static ALWAYS_INLINE int plan_of(const struct regctx *c, const umt_rec *r,
                                 const struct reg_plan **out, const uint8_t **lc)
{
	int64_t id = -1;
	uint64_t lc_size = 0;
	int rc = umt_rec_ins(r, &id, lc, &lc_size);
	if (rc < 0)
		return rc;
	if (UMT_UNLIKELY(id < 0 || (uint64_t)id >= c->rows))
		return plan_error(c, r, id);
	_Atomic(struct reg_plan *) *slot = &c->plans[(uint64_t)id * 2 + (r->flags & UMT_EXEC_F_64BIT)];
	struct reg_plan *p = atomic_load_explicit(slot, memory_order_acquire);
	if (UMT_UNLIKELY(p == NULL) && (rc = plan_make(c, r, slot, &p)) < 0)
		return rc;
	if (UMT_UNLIKELY(lc_size < p->lc_size))
		return plan_error(c, r, id);
	*out = p;
	return 0;
}

/* The effects of an instruction record's register slots by its plan @p p and LC @p lc,
 * for the phases in @p phases (inlined in each caller, so that a known sink is called
 * directly). */
static ALWAYS_INLINE int planned(const struct regctx *c, const umt_rec *r,
                                 const struct reg_plan *p, const uint8_t *lc, unsigned phases,
                                 reg_sink sink, void *arg)
{
	int rc = 0;
	unsigned rel = umt_exec_reliability(c->exec_version, r->flags);
	bool executed = !(r->flags & UMT_EXEC_F_NOT_EXECUTED);
	for (unsigned i = 0; rc == 0 && (phases & 1) && (rel & UMT_RELIABLE_INPUTS) && i < p->nbefore;
	     i++) {
		const struct reg_plan_slot *e = &p->slot[i];
		struct reg_effect x = {RE_OBSERVE, e->dump_off, e->len, lc + e->lc_off};
		rc = sink(arg, &x);
	}
	/* outputs: trusted, written (observed under a false condition); untrusted, clobbered
	 * (nothing under a false condition: nothing happened, nothing can be believed) */
	uint8_t kind = (rel & UMT_RELIABLE_OUTPUTS) ? (executed ? RE_WRITE : RE_OBSERVE) : RE_CLOBBER;
	for (unsigned i = 0; rc == 0 && (phases & 2) && (executed || kind != RE_CLOBBER) &&
	                     i < p->nafter; i++) {
		const struct reg_plan_slot *e = &p->slot[p->nbefore + i];
		struct reg_effect x = {kind, e->dump_off, e->len, kind == RE_CLOBBER ? NULL : lc + e->lc_off};
		rc = sink(arg, &x);
		if (rc == 0 && e->zext && executed) {
			struct reg_effect z = {kind, e->dump_off + 4u, 4, kind == RE_WRITE ? zeros : NULL};
			rc = sink(arg, &z);
		}
	}
	return rc;
}

/* The effects of an instruction record's register slots (as planned()). */
static ALWAYS_INLINE int instruction(const struct regctx *c, const umt_rec *r, unsigned phases,
                                     reg_sink sink, void *arg)
{
	const struct reg_plan *p = NULL;
	const uint8_t *lc = NULL;
	int rc = plan_of(c, r, &p, &lc);
	return rc < 0 ? rc : planned(c, r, p, lc, phases, sink, arg);
}

static ALWAYS_INLINE int effects(const struct regctx *c, const umt_rec *r, int phase,
                                  reg_sink sink, void *arg)
{
	unsigned phases = phase < 0 ? 3u : 1u << phase; /* -1: both, in order */
	int rc = 0;
	if ((phases & 1) && (r->flags & UMT_EXEC_F_INSTR_OFF)) {
		struct reg_effect gap = {RE_GAP, 0, c->dump, NULL};
		rc = sink(arg, &gap);
	}
	/* types with a context: 1, 4, 5, 8-11 (umt_rec_type_has_context(), without a call) */
	if (rc == 0 && (phases & 1) && r->type < 16 && ((0x0f32u >> r->type) & 1)) {
		umt_context ctx;
		if ((rc = umt_rec_context(c->t, r, &ctx)) < 0)
			return rc;
		struct reg_effect dump = {RE_WRITE, 0, ctx.regs_size < c->dump ? ctx.regs_size : c->dump,
		                          ctx.regs};
		rc = sink(arg, &dump);
	}
	if (rc == 0 && r->type == UMT_REC_INSTRUCTION)
		rc = instruction(c, r, phases, sink, arg);
	return rc;
}

int umt__regs_effects(const struct regctx *c, const umt_rec *r, int phase, reg_sink sink,
                      void *arg)
{
	return effects(c, r, phase, sink, arg);
}

struct apply_arg {
	struct rstate *s;
	uint64_t id;
};

static int apply_one(void *arg, const struct reg_effect *e)
{
	const struct apply_arg *a = arg;
	umt__rs_effect_inline(a->s, e, a->id);
	return 0;
}

/*
 * Both phases of an instruction record with no gap, whose inputs and outputs
 * are trusted and that executed (none of c->slow_flags), applied: the
 * build's and the replays' common record. The effects are the plan's slots
 * in order with each paired observation folded into its write
 * (plan_pairs()): the same state, with fewer stores.
 */
static int apply_trusted(const struct regctx *c, struct rstate *s, const umt_rec *r)
{
	const struct reg_plan *p = NULL;
	const uint8_t *lc = NULL;
	int rc = plan_of(c, r, &p, &lc);
	if (rc < 0)
		return rc;
	uint64_t id = r->id;
	for (unsigned i = 0; i < p->nbefore; i++) {
		const struct reg_plan_slot *e = &p->slot[i];
		if (!e->fused) {
			umt__rs_values(s, e->dump_off, e->len, lc + e->lc_off);
			umt__rs_fill(s->src + e->dump_off, id, e->len);
		}
	}
	for (unsigned i = 0; i < p->nafter; i++) {
		const struct reg_plan_slot *e = &p->slot[p->nbefore + i];
		if (e->pair != REG_NO_PAIR)
			umt__rs_rewrite(s, e->dump_off, e->len, lc + e->pair, lc + e->lc_off, id);
		else
			umt__rs_write(s, e->dump_off, e->len, lc + e->lc_off, id);
		if (e->zext)
			umt__rs_write(s, e->dump_off + 4u, 4, zeros, id);
	}
	return 0;
}

int umt__regs_apply(const struct regctx *c, struct rstate *s, const umt_rec *r, int phase)
{
	s->mode64 = (r->flags & UMT_EXEC_F_64BIT) != 0;
	if (phase < 0 && r->type == UMT_REC_INSTRUCTION && !(r->flags & c->slow_flags))
		return apply_trusted(c, s, r);
	struct apply_arg a = {s, r->id};
	return effects(c, r, phase, apply_one, &a);
}
