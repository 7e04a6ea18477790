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
 */
#include "regs.h"

static const uint8_t zeros[8];

int umt__regctx_init(struct regctx *c, const umt_trace *t)
{
	umt_trace_info info;
	int rc = umt_trace_get_info(t, &info);
	if (rc < 0)
		return rc;
	c->t = t;
	c->map = umt_context_map_get(t);
	c->dump = info.dump_size;
	c->exec_version = info.exec_version;
	return 0;
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

/* The dump bytes of register slot @p s: false when it is not a register of the map. */
static bool slot_place(const struct regctx *c, const umt_lc_slot *s, bool mode64, uint32_t *off,
                       uint32_t *len, int *largest)
{
	if (s->AddrWidth != 0 || s->ValueSize <= 0 ||
	    !umt__regs_place(c, s->RegName, mode64, off, len, largest))
		return false;
	if ((uint32_t)s->ValueSize < *len)
		*len = (uint32_t)s->ValueSize;
	return true;
}

/* Phase 1 of one output slot: its write, observation or clobber, and a zero-extension. */
static int output(const struct regctx *c, const umt_ins_exec *x, const umt_lc_slot *s,
                  unsigned flags, unsigned rel, reg_sink sink, void *arg)
{
	bool mode64 = (flags & UMT_EXEC_F_64BIT) != 0, executed = !(flags & UMT_EXEC_F_NOT_EXECUTED);
	uint32_t off, len, loff, llen;
	int largest, l2;
	if (!slot_place(c, s, mode64, &off, &len, &largest))
		return 0;
	struct reg_effect e = {RE_WRITE, off, len, x->lc + s->Offset};
	if (!(rel & UMT_RELIABLE_OUTPUTS))
		e.kind = RE_CLOBBER;
	else if (!executed)
		e.kind = RE_OBSERVE;
	if (!executed && e.kind == RE_CLOBBER)
		return 0; /* nothing happened, and nothing can be believed */
	int rc = sink(arg, &e);
	/* a 32-bit output in 64-bit code zeroes the upper half of its 64-bit register */
	if (rc == 0 && executed && mode64 && len == 4 && umt_decoded_is_32in64(&x->dec) &&
	    umt__regs_place(c, largest, true, &loff, &llen, &l2) && llen == 8 && loff == off) {
		struct reg_effect z = {e.kind, off + 4, 4, e.kind == RE_WRITE ? zeros : NULL};
		rc = sink(arg, &z);
	}
	return rc;
}

/* The register slots of an instruction record, for the phases in @p phases. */
static int instruction(const struct regctx *c, const umt_rec *r, unsigned phases, reg_sink sink,
                       void *arg)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(c->t, r, &x);
	if (rc < 0)
		return rc;
	unsigned rel = umt_exec_reliability(c->exec_version, r->flags);
	bool mode64 = (r->flags & UMT_EXEC_F_64BIT) != 0;
	unsigned count = x.dec.ins->LCCount, first_after = x.dec.ins->FirstAfterSlot;
	for (unsigned k = 0; rc == 0 && (phases & 1) && (rel & UMT_RELIABLE_INPUTS) && k < first_after;
	     k++) {
		const umt_lc_slot *s = &x.dec.slots[k];
		uint32_t off, len;
		int largest;
		if (slot_place(c, s, mode64, &off, &len, &largest)) {
			struct reg_effect e = {RE_OBSERVE, off, len, x.lc + s->Offset};
			rc = sink(arg, &e);
		}
	}
	for (unsigned k = first_after; rc == 0 && (phases & 2) && k < count; k++)
		rc = output(c, &x, &x.dec.slots[k], r->flags, rel, sink, arg);
	return rc;
}

int umt__regs_effects(const struct regctx *c, const umt_rec *r, int phase, reg_sink sink,
                      void *arg)
{
	unsigned phases = phase < 0 ? 3u : 1u << phase; /* -1: both, in order */
	int rc = 0;
	if ((phases & 1) && (r->flags & UMT_EXEC_F_INSTR_OFF)) {
		struct reg_effect gap = {RE_GAP, 0, c->dump, NULL};
		rc = sink(arg, &gap);
	}
	if (rc == 0 && (phases & 1) && umt_rec_type_has_context(r->type)) {
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

struct apply_arg {
	struct rstate *s;
	uint64_t id;
};

static int apply_one(void *arg, const struct reg_effect *e)
{
	const struct apply_arg *a = arg;
	umt__rs_effect(a->s, e, a->id);
	return 0;
}

int umt__regs_apply(const struct regctx *c, struct rstate *s, const umt_rec *r, int phase)
{
	struct apply_arg a = {s, r->id};
	s->mode64 = (r->flags & UMT_EXEC_F_64BIT) != 0;
	return umt__regs_effects(c, r, phase, apply_one, &a);
}
