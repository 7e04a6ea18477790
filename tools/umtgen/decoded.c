/*
 * umtgen: decodedIns, LC slots and the LC plan of an instruction (spec 7.2,
 * 7.3.3 and ERRATA 11-14):
 *   - three slot groups: before values of read operands, before values of
 *     write-only operands (FirstOutSlot..FirstAfterSlot), after values;
 *   - register slots name the enclosing register (rax for eax, al and ah,
 *     eax in 32-bit code; ah at offset 1); vector slots the operand's own
 *     register; flags are rflags/eflags, the instruction pointer rip/eip;
 *   - memory slots (MEM0, MEM1, STACKPUSH, STACKPOP) hold an address of
 *     AddrWidth significant bytes then the value; AGEN holds the address;
 *   - MEM0/AGEN phrase registers are read slots, the FS/GS base included,
 *     the displacement is ConstSlot[0] (RIP-relative: the absolute
 *     address); immediates and branch targets use the next constant slot;
 *   - every written operand, explicit or implicit, also has its before
 *     value (in the read group when it is read, else the write-only group).
 */
#include <string.h>

#include "decoded.h"
#include "machine.h"

enum use_kind { U_GPR, U_VEC, U_FLAGS, U_RIP, U_SEGBASE, U_MEM, U_AGEN };
enum { A_R = 1, A_W = 2, A_RW = 3 };
enum { GRP_BEFORE, GRP_WO, GRP_AFTER };

/* A value in the LC: what it is and how many bytes. */
struct use {
	uint8_t kind, id;
	uint16_t size;
};

struct builder {
	const struct dec_ctx *c;
	struct use grp[3][MAX_SLOTS];
	int n[3];
	int bad;
};

/* The slot of @p u in group @p g (shared with an identical one). */
static int add(struct builder *b, int g, struct use u)
{
	for (int i = 0; i < b->n[g]; i++)
		if (b->grp[g][i].kind == u.kind && b->grp[g][i].id == u.id &&
		    b->grp[g][i].size == u.size)
			return i;
	if (b->n[0] + b->n[1] + b->n[2] >= MAX_SLOTS) {
		b->bad = 1;
		return 0;
	}
	b->grp[g][b->n[g]] = u;
	return b->n[g]++;
}

/* A slot reference: group and index in it, made absolute at the end. */
struct ref {
	int8_t g, i;
};

static const struct ref NO_REF = {-1, 0};

static struct ref ref_of(int g, int i)
{
	struct ref r = {(int8_t)g, (int8_t)i};
	return r;
}

/* ---- what an instruction reads and writes ------------------------------------- */

struct implicit {
	struct use u;
	uint8_t acc;
};

/* An explicit operand as the decoded instruction lists it. */
struct xop {
	struct opnd o;
	uint16_t size; /* bytes (a rep string operand is wider than o.size can say) */
	uint8_t acc;
	uint8_t memop; /* MO_MEM0 or MO_MEM1 for memory operands */
	uint8_t agen;  /* lea's address operand: AGEN, no memory access */
};

static uint8_t gpr_size(const struct dec_ctx *c)
{
	return c->mode64 ? 8 : 4;
}

/* Explicit operands (synthesised for movsb and stosb) and their access. */
static int explicit_ops(const struct dec_ctx *c, const struct insn *in, struct xop *x)
{
	static const uint8_t acc2[OP_COUNT][3] = {
		[OP_ADD] = {A_RW, A_R}, [OP_OR] = {A_RW, A_R}, [OP_ADC] = {A_RW, A_R},
		[OP_SBB] = {A_RW, A_R}, [OP_AND] = {A_RW, A_R}, [OP_SUB] = {A_RW, A_R},
		[OP_XOR] = {A_RW, A_R}, [OP_CMP] = {A_R, A_R}, [OP_TEST] = {A_R, A_R},
		[OP_MOV] = {A_W, A_R}, [OP_MOVZX] = {A_W, A_R}, [OP_MOVSX] = {A_W, A_R},
		[OP_LEA] = {A_W, A_R}, [OP_INC] = {A_RW}, [OP_DEC] = {A_RW},
		[OP_SHL] = {A_RW, A_R}, [OP_SHR] = {A_RW, A_R}, [OP_PUSH] = {A_R},
		[OP_POP] = {A_W}, [OP_CALL] = {A_R}, [OP_JMP] = {A_R}, [OP_JCC] = {A_R},
		[OP_XCHG] = {A_RW, A_RW}, [OP_CMPXCHG] = {A_RW, A_R}, [OP_MOVDQU] = {A_W, A_R},
		[OP_MOVAPS] = {A_W, A_R}, [OP_VMOVDQU] = {A_W, A_R}, [OP_INT] = {A_R}};
	(void)c;
	if (in->op == OP_MOVSB || in->op == OP_STOSB) {
		uint16_t size = (in->pfx & P_REP) ? rep_count(in) : 1;
		x[0] = (struct xop){m_(1, G_DI, REG_NONE, 1, 0), size, A_W, MO_MEM0, 0};
		if (in->op == OP_MOVSB)
			x[1] = (struct xop){m_(1, G_SI, REG_NONE, 1, 0), size, A_R, MO_MEM1, 0};
		else
			x[1] = (struct xop){r_(G_AX, 1), 1, A_R, MO_MEM0, 0};
		return 2;
	}
	for (int i = 0; i < in->nops; i++) {
		x[i] = (struct xop){in->o[i], in->o[i].size, acc2[in->op][i], MO_MEM0,
		                    (uint8_t)(in->op == OP_LEA && i == 1)};
		if (in->op == OP_IMUL)
			x[i].acc = i == 0 ? (in->nops == 2 ? A_RW : A_W) : A_R;
	}
	return in->nops;
}

static int implicit_ops(const struct dec_ctx *c, const struct insn *in, struct implicit *m)
{
	uint16_t w = gpr_size(c);
	struct use sp = {U_GPR, G_SP, w}, flags = {U_FLAGS, 0, w}, rip = {U_RIP, 0, w};
	struct use stack = {U_MEM, MO_PUSH, w};
	int n = 0;
	switch (in->op) {
	case OP_ADC: case OP_SBB:
		m[n++] = (struct implicit){flags, A_RW};
		break;
	case OP_ADD: case OP_OR: case OP_AND: case OP_SUB: case OP_XOR: case OP_CMP:
	case OP_TEST: case OP_INC: case OP_DEC: case OP_SHL: case OP_SHR: case OP_IMUL:
		m[n++] = (struct implicit){flags, A_W};
		break;
	case OP_PUSH:
	case OP_CALL:
		m[n++] = (struct implicit){sp, A_RW};
		m[n++] = (struct implicit){stack, A_W};
		if (in->op == OP_CALL)
			m[n++] = (struct implicit){rip, A_W};
		break;
	case OP_POP:
	case OP_RET:
		stack.id = MO_POP;
		m[n++] = (struct implicit){sp, A_RW};
		m[n++] = (struct implicit){stack, A_R};
		if (in->op == OP_RET)
			m[n++] = (struct implicit){rip, A_W};
		break;
	case OP_JMP:
		m[n++] = (struct implicit){rip, A_W};
		break;
	case OP_JCC:
		m[n++] = (struct implicit){flags, A_R};
		m[n++] = (struct implicit){rip, A_W};
		break;
	case OP_CMPXCHG:
		m[n++] = (struct implicit){(struct use){U_GPR, G_AX, w}, A_RW};
		m[n++] = (struct implicit){flags, A_W};
		break;
	case OP_MOVSB:
	case OP_STOSB:
		if (in->op == OP_MOVSB)
			m[n++] = (struct implicit){(struct use){U_GPR, G_SI, w}, A_RW};
		m[n++] = (struct implicit){(struct use){U_GPR, G_DI, w}, A_RW};
		if (in->pfx & P_REP)
			m[n++] = (struct implicit){(struct use){U_GPR, G_CX, w}, A_RW};
		break;
	case OP_SYSCALL:
		m[n++] = (struct implicit){(struct use){U_GPR, G_AX, w}, A_R};
		m[n++] = (struct implicit){flags, A_R};
		m[n++] = (struct implicit){(struct use){U_GPR, G_CX, w}, A_W};
		m[n++] = (struct implicit){(struct use){U_GPR, G_11, w}, A_W};
		break;
	case OP_INT:
		m[n++] = (struct implicit){(struct use){U_GPR, G_AX, w}, A_R};
		m[n++] = (struct implicit){(struct use){U_GPR, G_DX, w}, A_R};
		break;
	default:
		break;
	}
	return n;
}

/* ---- slots -------------------------------------------------------------------- */

static struct use reg_use(const struct dec_ctx *c, const struct opnd *o)
{
	if (o->reg >= V_0)
		return (struct use){U_VEC, (uint8_t)(o->reg - V_0), o->size};
	return (struct use){U_GPR, o->reg, gpr_size(c)};
}

/* Phrase slots of a memory operand (MEM0 or AGEN: segment base, base, index). */
struct phrase {
	struct ref seg, base, index;
	uint8_t scale;
	int64_t disp;
	int present;
};

static void phrase_of(struct builder *b, const struct opnd *o, struct phrase *p)
{
	uint16_t w = gpr_size(b->c);
	p->present = 1;
	p->seg = p->base = p->index = NO_REF;
	p->scale = 0;
	p->disp = o->val; /* RIP-relative: already the absolute address (spec 7.2.2) */
	if (o->seg != SEG_NONE)
		p->seg = ref_of(GRP_BEFORE, add(b, GRP_BEFORE, (struct use){U_SEGBASE, o->seg, w}));
	if (o->base != REG_NONE && o->base != REG_RIP)
		p->base = ref_of(GRP_BEFORE, add(b, GRP_BEFORE, (struct use){U_GPR, o->base, w}));
	if (o->index != REG_NONE) {
		p->index = ref_of(GRP_BEFORE, add(b, GRP_BEFORE, (struct use){U_GPR, o->index, w}));
		p->scale = o->scale;
	}
}

/* Before and after slots of a value read and/or written. */
static void place_value(struct builder *b, struct use u, uint8_t acc, struct ref *before,
                        struct ref *after)
{
	int g = (acc & A_R) ? GRP_BEFORE : GRP_WO;
	*before = ref_of(g, add(b, g, u));
	*after = (acc & A_W) ? ref_of(GRP_AFTER, add(b, GRP_AFTER, u)) : NO_REF;
}

/* The trace's register number of a use (MEM0, MEM1, AGEN: special names). */
static int use_reg(const struct dec_ctx *c, struct use u)
{
	int x;
	switch (u.kind) {
	case U_GPR: x = xed_reg_of(u.id, (uint8_t)u.size, 0, c->mode64); break;
	case U_VEC: x = (u.size == 32 ? X_YMM0 : X_XMM0) + u.id; break;
	case U_FLAGS: x = c->mode64 ? X_RFLAGS : X_EFLAGS; break;
	case U_RIP: x = c->mode64 ? X_RIP : X_EIP; break;
	case U_SEGBASE: x = u.id == SEG_FS ? X_FSBASE : X_GSBASE; break;
	case U_AGEN: return UMT_REG_AGEN;
	default:
		if (u.id == MO_MEM0)
			return UMT_REG_MEM0;
		if (u.id == MO_MEM1)
			return UMT_REG_MEM1;
		x = u.id == MO_PUSH ? X_STACKPUSH : X_STACKPOP;
		break;
	}
	int r = xed_reg(c->old, x);
	if (r >= 0 && r < 512)
		c->used->reg[r] = 1;
	return r;
}

static struct lc_src src_of(const struct dec_ctx *c, struct use u)
{
	struct lc_src s = {.kind = SRC_REG, .size = u.size};
	switch (u.kind) {
	case U_GPR: s.off = (uint16_t)RF_GPR(u.id); break;
	case U_VEC: s.off = (uint16_t)RF_VECTOR(u.id); break;
	case U_FLAGS: s.off = RF_RFLAGS; break;
	case U_RIP: s.off = RF_RIP; break;
	case U_SEGBASE: s.off = u.id == SEG_FS ? RF_FSBASE : RF_GSBASE; break;
	case U_MEM: s.kind = SRC_MEM; s.memop = u.id; break;
	default: s.kind = SRC_AGEN; s.size = gpr_size(c); break;
	}
	return s;
}

/* ---- the decoded instruction ---------------------------------------------------- */

/* An explicit operand's slots, before they are numbered. */
struct xref {
	struct ref before, after;
	int16_t reg;
	uint16_t size;
	uint8_t off, flags;
};

static uint8_t slot_index(const struct builder *b, struct ref r)
{
	if (r.g < 0)
		return UMT_SLOT_NA;
	return (uint8_t)((r.g > 0 ? b->n[0] : 0) + (r.g > 1 ? b->n[1] : 0) + r.i);
}

/* Numbers the slots, lays out the LC and fills the plan. @return LCSize or -1. */
static int number_slots(const struct builder *b, struct decoded *out)
{
	const struct dec_ctx *c = b->c;
	int off = 0, k = 0;
	memset(out->mem_size, 0, sizeof out->mem_size);
	out->mem_read = out->mem_write = out->mem_any = 0;
	for (int g = 0; g < 3; g++)
		for (int i = 0; i < b->n[g]; i++, k++) {
			struct use u = b->grp[g][i];
			int reg = use_reg(c, u);
			if (reg < 0)
				return -1;
			int mem = u.kind == U_MEM;
			umt_lc_slot *s = &out->slots[k];
			memset(s, 0, sizeof *s);
			s->RegName = (int16_t)reg;
			s->CommonRegName = (int16_t)(reg < UMT_CONTEXT_MAP_REGS ? c->cmap->CommonName[reg] : reg);
			s->ValueSize = (int16_t)u.size;
			s->Offset = (uint16_t)off;
			s->AddrWidth = (uint8_t)(mem ? gpr_size(c) : 0);
			out->src[k] = src_of(c, u);
			out->src[k].lc = (uint16_t)off;
			if (mem) {
				out->mem_size[u.id] = u.size;
				out->mem_any |= (uint8_t)(1u << u.id);
				if (g == GRP_BEFORE)
					out->mem_read |= (uint8_t)(1u << u.id);
				if (g == GRP_AFTER)
					out->mem_write |= (uint8_t)(1u << u.id);
			}
			off += u.size + (mem ? 8 : 0);
		}
	return off > INT16_MAX ? -1 : off;
}

static uint8_t eff_oper_size(const struct dec_ctx *c, const struct insn *in,
                             const struct enc_info *e)
{
	if (e->rex_w)
		return 8;
	if (e->opsize16)
		return 2;
	int stack = in->op == OP_PUSH || in->op == OP_POP || in->op == OP_CALL ||
	            in->op == OP_RET || in->op == OP_JMP;
	return c->mode64 && stack ? 8 : 4;
}

/* decodedIns.Flags: prefixes, 32-bit writes in 64-bit code, memory access. */
static uint8_t dec_flags(const struct builder *b, const struct insn *in, const struct xop *x,
                         int nx)
{
	uint8_t f = 0;
	if (in->pfx & P_REP)
		f |= UMT_DEC_F_REP;
	if (in->pfx & P_LOCK)
		f |= UMT_DEC_F_LOCK;
	for (int i = 0; i < nx; i++)
		if (b->c->mode64 && x[i].o.kind == O_REG && x[i].o.reg < V_0 && x[i].size == 4 &&
		    (x[i].acc & A_W))
			f |= UMT_DEC_F_32IN64;
	for (int i = 0; i < b->n[GRP_BEFORE]; i++)
		if (b->grp[GRP_BEFORE][i].kind == U_MEM)
			f |= UMT_DEC_F_READS_MEM;
	for (int i = 0; i < b->n[GRP_AFTER]; i++)
		if (b->grp[GRP_AFTER][i].kind == U_MEM)
			f |= UMT_DEC_F_WRITES_MEM;
	return f;
}

/* Slots of one explicit operand; constants take the next constant slot. */
static void explicit_slots(struct builder *b, const struct xop *x, int64_t *consts, int *nconst,
                           struct xref *r)
{
	const struct dec_ctx *c = b->c;
	uint16_t w = gpr_size(c);
	memset(r, 0, sizeof *r);
	r->flags = x->acc;
	r->size = x->size;
	r->before = r->after = NO_REF;
	switch (x->o.kind) {
	case O_REG:
		place_value(b, reg_use(c, &x->o), x->acc, &r->before, &r->after);
		r->reg = (int16_t)xed_reg(c->old, xed_reg_of(x->o.reg, x->o.size, x->o.hi, c->mode64));
		if (r->reg >= 0)
			c->used->reg[r->reg] = 1; /* named by --xed-headers too */
		r->off = x->o.hi ? 1 : 0;
		break;
	case O_MEM:
		if (x->agen) {
			r->before = ref_of(GRP_BEFORE, add(b, GRP_BEFORE, (struct use){U_AGEN, 0, w}));
			r->reg = (int16_t)UMT_REG_AGEN;
			r->size = w;
			break;
		}
		place_value(b, (struct use){U_MEM, x->memop, x->size}, x->acc, &r->before, &r->after);
		r->reg = (int16_t)(x->memop == MO_MEM1 ? UMT_REG_MEM1 : UMT_REG_MEM0);
		r->off = 8;
		break;
	default: /* immediate or branch target: a constant slot */
		r->before = ref_of(-2, *nconst);
		consts[(*nconst)++] = x->o.kind == O_REL && !c->mode64 ? (int64_t)(uint32_t)x->o.val
		                                                        : x->o.val;
		r->reg = 0;
		break;
	}
}

static void write_operands(const struct builder *b, const struct xref *r, int nx,
                           umt_decoded_ins *d)
{
	d->ExpCount = (uint8_t)nx;
	for (int i = 0; i < 4; i++) {
		umt_exp_oper *o = &d->ExpOper[i];
		memset(o, 0, sizeof *o);
		o->BeforeSlot = o->AfterSlot = UMT_SLOT_NA;
		if (i >= nx)
			continue;
		o->RegName = r[i].reg;
		o->Size = (int16_t)r[i].size;
		o->Flags = r[i].flags;
		o->BeforeSlot = r[i].before.g == -2 ? (uint8_t)(UMT_SLOT_IMM0 + r[i].before.i)
		                                    : slot_index(b, r[i].before);
		o->AfterSlot = slot_index(b, r[i].after);
		o->BeforeOffset = r[i].off;
		o->AfterOffset = (uint8_t)(r[i].after.g < 0 ? 0 : r[i].off);
	}
}

int decoded_build(const struct dec_ctx *c, const struct insn *in, const struct enc_info *e,
                  uint64_t addr, struct decoded *out)
{
	(void)addr;
	struct builder b;
	memset(&b, 0, sizeof b);
	b.c = c;
	struct xop x[3];
	struct implicit m[6];
	struct xref r[3];
	struct phrase p0 = {0}, p1 = {0};
	int64_t consts[2] = {0, 0};
	int nconst = 0;
	int nx = explicit_ops(c, in, x), nm = implicit_ops(c, in, m);
	/* phrase registers first, as the tracer lists them (movsb: rsi, then rdi) */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < nx; i++)
			if (x[i].o.kind == O_MEM && (x[i].memop == MO_MEM1) == (pass == 0))
				phrase_of(&b, &x[i].o, pass == 0 ? &p1 : &p0);
	if (p0.present)
		consts[nconst++] = p0.disp;
	for (int i = 0; i < nx; i++)
		explicit_slots(&b, &x[i], consts, &nconst, &r[i]);
	for (int i = 0; i < nm; i++) {
		struct ref before, after;
		place_value(&b, m[i].u, m[i].acc, &before, &after);
	}
	umt_decoded_ins *d = &out->d;
	memset(d, 0, sizeof *d);
	int lc = b.bad ? -1 : number_slots(&b, out);
	if (lc < 0)
		return -1;
	write_operands(&b, r, nx, d);
	d->Flags = dec_flags(&b, in, x, nx);
	d->EffOperSize = eff_oper_size(c, in, e);
	d->EffAddrSize = gpr_size(c);
	d->LCSize = (uint16_t)lc;
	d->FirstOutSlot = (uint8_t)b.n[GRP_BEFORE];
	d->FirstAfterSlot = (uint8_t)(b.n[GRP_BEFORE] + b.n[GRP_WO]);
	d->LCCount = (uint8_t)(d->FirstAfterSlot + b.n[GRP_AFTER]);
	d->Mem0SegSlot = slot_index(&b, p0.present ? p0.seg : NO_REF);
	d->Mem0BaseSlot = slot_index(&b, p0.present ? p0.base : NO_REF);
	d->Mem0IndexSlot = slot_index(&b, p0.present ? p0.index : NO_REF);
	d->Mem0Scale = (uint8_t)(p0.present && p0.index.g >= 0 ? p0.scale : 0);
	d->Mem1BaseSlot = slot_index(&b, p1.present ? p1.base : NO_REF);
	d->ConstSlot[0] = consts[0];
	d->ConstSlot[1] = consts[1];
	char form[96];
	x86_form(in, e, form, sizeof form);
	int iclass = xed_iclass(c->old, xed_iclass_name(in), c->used);
	int cat = xed_category(c->old, xed_category_name(in), c->used);
	int iform = xed_iform(c->old, form, c->used);
	if (iclass < 0 || cat < 0 || iform < 0)
		return -1;
	d->Category = (int16_t)cat;
	d->Mnemonic = (int16_t)iclass;
	d->Form = (int16_t)iform;
	out->mem_opnd = -1;
	for (int i = 0; i < in->nops; i++)
		if (in->o[i].kind == O_MEM)
			out->mem_opnd = (int8_t)i;
	out->first_after = (uint8_t)d->FirstAfterSlot;
	out->count = (uint8_t)d->LCCount;
	out->lc_size = (uint16_t)lc;
	return 0;
}
