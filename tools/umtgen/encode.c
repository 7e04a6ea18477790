/*
 * umtgen: the x86 encoder. Turns a struct insn into the bytes a real
 * assembler would emit (prefixes, REX or VEX, opcode, ModRM, SIB,
 * displacement, immediate), for 64-bit and 32-bit code. Only the forms the
 * generator uses exist; anything else returns -1. Tests disassemble every
 * instruction row with objdump and compare it with x86_disasm().
 */
#include <string.h>

#include "x86.h"

/* One encoding being assembled. */
struct form {
	uint8_t opc;         /* opcode byte */
	uint8_t two;         /* 0x0f escape */
	uint8_t mand;        /* mandatory prefix (0xf3) or 0 */
	uint8_t w;           /* REX.W */
	uint8_t o16;         /* 0x66 */
	int regfield;        /* ModRM.reg: register index or /digit; -1 without ModRM */
	const struct opnd *rm; /* ModRM.rm operand, or NULL */
	int plus_reg;        /* register added to the opcode, or -1 */
	int64_t imm;         /* immediate */
	uint8_t imm_size;    /* 0, 1, 2, 4, 8 */
	uint8_t rel_size;    /* 0, 1, 4: relative branch */
	uint64_t rel_target;
	uint8_t vex;         /* 2-byte VEX, L = 1 (256-bit), pp from mand */
	uint8_t byte_reg;    /* a byte register operand exists (REX 0x40 for spl..dil) */
	uint8_t high_byte;   /* ah, ch, dh or bh is an operand (no REX possible) */
};

struct out {
	uint8_t *b;
	int n;
	int disp_at;  /* offset of a RIP-relative disp32, or -1 */
	uint64_t rip_target;
};

static void put(struct out *o, uint8_t v)
{
	if (o->n < 15)
		o->b[o->n] = v;
	o->n++;
}

static void put_le(struct out *o, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		put(o, (uint8_t)(v >> (8 * i)));
}

static uint8_t regnum(uint8_t reg)
{
	return (uint8_t)(reg >= V_0 ? reg - V_0 : reg);
}

/* REX bits a ModRM operand needs: X from the index, B from the base or register. */
static uint8_t rm_rex(const struct opnd *rm)
{
	if (rm == NULL)
		return 0;
	if (rm->kind == O_REG)
		return regnum(rm->reg) >= 8 ? 1 : 0;
	uint8_t r = 0;
	if (rm->index != REG_NONE && rm->index >= 8)
		r |= 2;
	if (rm->base != REG_NONE && rm->base != REG_RIP && rm->base >= 8)
		r |= 1;
	return r;
}

static int fits8(int64_t v)
{
	return v >= -128 && v <= 127;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* The register number an operand has in ModRM (ah..bh are 4-7). */
static int regfield_of(const struct opnd *o)
{
	return o->hi ? o->reg + 4 : regnum(o->reg);
}

/* ModRM, SIB and displacement of a memory operand. */
static int put_mem(struct out *o, int reg, const struct opnd *m, int mode64)
{
	uint8_t r = (uint8_t)((reg & 7) << 3);
	int has_base = m->base != REG_NONE, has_index = m->index != REG_NONE;
	if (m->base == REG_RIP) {
		if (!mode64 || has_index)
			return -1;
		put(o, (uint8_t)(r | 5));
		o->disp_at = o->n;
		o->rip_target = (uint64_t)m->val;
		put_le(o, 0, 4);
		return 0;
	}
	uint8_t ss = m->scale == 8 ? 3 : m->scale == 4 ? 2 : m->scale == 2 ? 1 : 0;
	if (has_index && m->index == G_SP)
		return -1; /* rsp cannot be an index */
	if (!has_base) {
		if (has_index) {
			put(o, (uint8_t)(r | 4));
			put(o, (uint8_t)(ss << 6 | (m->index & 7) << 3 | 5));
		} else if (mode64) { /* [disp32] needs a SIB: rm 101 is RIP-relative */
			put(o, (uint8_t)(r | 4));
			put(o, 0x25);
		} else {
			put(o, (uint8_t)(r | 5));
		}
		put_le(o, (uint64_t)m->val, 4);
		return 0;
	}
	uint8_t b = m->base & 7;
	int dsize = m->val == 0 && b != 5 ? 0 : fits8(m->val) ? 1 : 4;
	uint8_t mod = dsize == 0 ? 0 : dsize == 1 ? 0x40 : 0x80;
	if (has_index || b == 4) {
		put(o, (uint8_t)(mod | r | 4));
		uint8_t idx = has_index ? (uint8_t)(m->index & 7) : 4;
		put(o, (uint8_t)((has_index ? ss : 0) << 6 | idx << 3 | b));
	} else {
		put(o, (uint8_t)(mod | r | b));
	}
	put_le(o, (uint64_t)m->val, dsize);
	return 0;
}

/* Assembles @p f: prefixes, REX/VEX, opcode, ModRM, immediate, branch offset. */
static int assemble(const struct form *f, const struct insn *in, uint64_t addr, int mode64,
                    struct out *o)
{
	const struct opnd *rm = f->rm;
	if (rm && rm->kind == O_MEM && rm->seg != SEG_NONE)
		put(o, rm->seg == SEG_FS ? 0x64 : 0x65);
	if (f->o16)
		put(o, 0x66);
	if (in->pfx & P_LOCK)
		put(o, 0xf0);
	if (in->pfx & P_REP)
		put(o, 0xf3);
	if (f->mand && !f->vex)
		put(o, f->mand);
	uint8_t rex = (uint8_t)((f->w ? 8 : 0) | (f->regfield >= 0 && (f->regfield & 8) ? 4 : 0) |
	                        rm_rex(rm) | (f->plus_reg >= 8 ? 1 : 0));
	if (f->vex) {
		if (rex & 0xb) /* 2-byte VEX has only R */
			return -1;
		put(o, 0xc5);
		put(o, (uint8_t)((rex & 4 ? 0 : 0x80) | 0x78 | 0x04 | (f->mand == 0xf3 ? 2 : 0)));
	} else if (rex || f->byte_reg) {
		if (!mode64 || f->high_byte)
			return -1; /* no REX in 32-bit code, nor with ah..bh */
		put(o, (uint8_t)(0x40 | rex));
	}
	if (f->two && !f->vex)
		put(o, 0x0f);
	put(o, (uint8_t)(f->opc + (f->plus_reg >= 0 ? (f->plus_reg & 7) : 0)));
	if (f->regfield >= 0) {
		if (rm->kind == O_REG)
			put(o, (uint8_t)(0xc0 | (f->regfield & 7) << 3 | (regfield_of(rm) & 7)));
		else if (put_mem(o, f->regfield, rm, mode64) < 0)
			return -1;
	}
	put_le(o, (uint64_t)f->imm, f->imm_size);
	if (f->rel_size) {
		uint64_t next = addr + (uint64_t)o->n + f->rel_size;
		int64_t d = (int64_t)(f->rel_target - next);
		if (!mode64) /* 32-bit code wraps around 4 GiB */
			d = (int32_t)(uint32_t)(f->rel_target - next);
		if ((f->rel_size == 1 && !fits8(d)) || !fits32(d))
			return -1;
		put_le(o, (uint64_t)d, f->rel_size);
	}
	if (o->n > 15)
		return -1;
	if (o->disp_at >= 0) { /* RIP-relative: from the end of the instruction */
		int64_t d = (int64_t)(o->rip_target - (addr + (uint64_t)o->n));
		if (d < INT32_MIN || d > INT32_MAX)
			return -1;
		for (int i = 0; i < 4; i++)
			o->b[o->disp_at + i] = (uint8_t)((uint64_t)d >> (8 * i));
	}
	return o->n;
}

/* Operand size prefixes (66, REX.W) for a general-register size. */
static void size_prefix(struct form *f, uint8_t size)
{
	f->w = size == 8;
	f->o16 = size == 2;
}

/* Whether an operand is spl, bpl, sil or dil (needs a REX prefix). */
static int low_byte_reg(const struct opnd *o)
{
	return o->kind == O_REG && o->size == 1 && !o->hi && o->reg >= 4 && o->reg < 8;
}

/* Immediate of an operation of size @p size: imm8 when allowed and it fits. */
static void set_imm(struct form *f, int64_t v, uint8_t size)
{
	f->imm = v;
	f->imm_size = size == 1 ? 1 : size == 2 ? 2 : 4;
}

/* Two register-or-memory operands: the "r/m, reg" opcode @p base (+1 when
 * wider than a byte), or where @p can_load and the source is memory or P_ALT
 * asks for it, the "reg, r/m" opcode base + 2 (+1). */
static int reg_rm(const struct insn *in, struct form *f, uint8_t base, int can_load)
{
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	int wide = a->size != 1;
	if (can_load && a->kind == O_REG && (b->kind == O_MEM || (in->pfx & P_ALT))) {
		f->opc = (uint8_t)(base + 2 + wide);
		f->regfield = regfield_of(a);
		f->rm = b;
	} else {
		f->opc = (uint8_t)(base + wide);
		f->regfield = regfield_of(b);
		f->rm = a;
	}
	return 0;
}

/* add/or/adc/sbb/and/sub/xor/cmp and test: /digit forms and r/m, reg forms. */
static int form_alu(const struct insn *in, struct form *f)
{
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	size_prefix(f, a->size);
	int wide = a->size != 1, test = in->op == OP_TEST;
	if (b->kind == O_IMM) {
		f->rm = a;
		if (test) {
			f->opc = wide ? 0xf7 : 0xf6;
			f->regfield = 0;
			set_imm(f, b->val, a->size);
		} else if (wide && fits8(b->val)) {
			f->opc = 0x83;
			f->regfield = in->op;
			f->imm = b->val;
			f->imm_size = 1;
		} else {
			f->opc = wide ? 0x81 : 0x80;
			f->regfield = in->op;
			set_imm(f, b->val, a->size);
		}
		return 0;
	}
	return reg_rm(in, f, test ? 0x84 : (uint8_t)(8 * in->op), !test);
}

static int form_mov(const struct insn *in, struct form *f)
{
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	size_prefix(f, a->size);
	int wide = a->size != 1;
	/* mov r, imm: b0+r / b8+r, except r64 with a value a sign-extended imm32
	 * holds (c7 /0, as assemblers do) unless P_ALT asks for the imm64 form */
	if (b->kind == O_IMM && a->kind == O_REG &&
	    (a->size != 8 || !fits32(b->val) || (in->pfx & P_ALT))) {
		f->opc = wide ? 0xb8 : 0xb0;
		f->plus_reg = regfield_of(a);
		f->imm = b->val;
		f->imm_size = a->size; /* imm8, imm16, imm32 or imm64 */
		f->w = a->size == 8;
		return 0;
	}
	if (b->kind == O_IMM) { /* C6/C7 /0: for r64, a sign-extended imm32 */
		f->opc = wide ? 0xc7 : 0xc6;
		f->regfield = 0;
		f->rm = a;
		set_imm(f, b->val, a->size);
		return 0;
	}
	return reg_rm(in, f, 0x88, 1);
}

/* inc, dec, shl, shr, movzx, movsx, lea, imul. */
static int form_unary(const struct insn *in, struct form *f)
{
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	size_prefix(f, a->size);
	int wide = a->size != 1;
	switch (in->op) {
	case OP_INC:
	case OP_DEC:
		f->opc = wide ? 0xff : 0xfe;
		f->regfield = in->op == OP_INC ? 0 : 1;
		f->rm = a;
		return 0;
	case OP_SHL:
	case OP_SHR:
		f->regfield = in->op == OP_SHL ? 4 : 5;
		f->rm = a;
		if (b->kind == O_REG) { /* by cl */
			f->opc = wide ? 0xd3 : 0xd2;
		} else if (b->val == 1 && !(in->pfx & P_ALT)) {
			f->opc = wide ? 0xd1 : 0xd0;
		} else {
			f->opc = wide ? 0xc1 : 0xc0;
			f->imm = b->val;
			f->imm_size = 1;
		}
		return 0;
	case OP_MOVZX:
	case OP_MOVSX:
		f->two = 1;
		f->opc = (uint8_t)((in->op == OP_MOVZX ? 0xb6 : 0xbe) + (b->size == 2));
		f->regfield = regfield_of(a);
		f->rm = b;
		f->byte_reg = low_byte_reg(b);
		return 0;
	case OP_LEA:
		f->opc = 0x8d;
		f->regfield = regfield_of(a);
		f->rm = b;
		return 0;
	default: /* OP_IMUL */
		f->regfield = regfield_of(a);
		f->rm = b;
		if (in->nops == 2) {
			f->two = 1;
			f->opc = 0xaf;
		} else if (fits8(in->o[2].val)) {
			f->opc = 0x6b;
			f->imm = in->o[2].val;
			f->imm_size = 1;
		} else {
			f->opc = 0x69;
			set_imm(f, in->o[2].val, a->size);
		}
		return 0;
	}
}

/* push, pop, call, ret, jmp, jcc. */
static int form_flow(const struct insn *in, struct form *f)
{
	const struct opnd *a = &in->o[0];
	switch (in->op) {
	case OP_PUSH:
		if (a->kind == O_IMM) {
			f->opc = fits8(a->val) ? 0x6a : 0x68;
			f->imm = a->val;
			f->imm_size = fits8(a->val) ? 1 : 4;
		} else if (a->kind == O_REG) {
			f->opc = 0x50;
			f->plus_reg = a->reg;
		} else {
			f->opc = 0xff;
			f->regfield = 6;
			f->rm = a;
		}
		return 0;
	case OP_POP:
		f->opc = 0x58;
		f->plus_reg = a->reg;
		return 0;
	case OP_RET:
		f->opc = 0xc3;
		return 0;
	case OP_CALL:
	case OP_JMP:
		if (a->kind == O_REL) {
			int rel8 = in->op == OP_JMP && (in->pfx & P_SHORT);
			f->opc = in->op == OP_CALL ? 0xe8 : rel8 ? 0xeb : 0xe9;
			f->rel_size = rel8 ? 1 : 4;
			f->rel_target = (uint64_t)a->val;
		} else {
			f->opc = 0xff;
			f->regfield = in->op == OP_CALL ? 2 : 4;
			f->rm = a;
		}
		return 0;
	default: /* OP_JCC */
		f->two = !(in->pfx & P_SHORT);
		f->opc = (uint8_t)((f->two ? 0x80 : 0x70) + in->cc);
		f->rel_size = f->two ? 4 : 1;
		f->rel_target = (uint64_t)a->val;
		return 0;
	}
}

/* xchg, cmpxchg, string and vector moves, system instructions. */
static int form_other(const struct insn *in, struct form *f)
{
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	switch (in->op) {
	case OP_XCHG:
	case OP_CMPXCHG:
		size_prefix(f, a->size);
		f->two = in->op == OP_CMPXCHG;
		f->opc = (uint8_t)((f->two ? 0xb0 : 0x86) + (a->size != 1));
		f->regfield = regfield_of(b);
		f->rm = a;
		return 0;
	case OP_MOVSB:
	case OP_STOSB:
		f->opc = in->op == OP_MOVSB ? 0xa4 : 0xaa;
		return 0;
	case OP_MOVDQU:
	case OP_MOVAPS:
	case OP_VMOVDQU: {
		int store = a->kind == O_MEM;
		f->two = 1;
		f->mand = in->op == OP_MOVAPS ? 0 : 0xf3;
		f->vex = in->op == OP_VMOVDQU;
		f->opc = in->op == OP_MOVAPS ? (store ? 0x29 : 0x28) : (store ? 0x7f : 0x6f);
		f->regfield = regnum(store ? b->reg : a->reg);
		f->rm = store ? a : b;
		return 0;
	}
	case OP_SYSCALL:
		f->two = 1;
		f->opc = 0x05;
		return 0;
	case OP_INT:
		f->opc = 0xcd;
		f->imm = a->val;
		f->imm_size = 1;
		return 0;
	default: /* OP_NOP */
		f->opc = 0x90;
		return 0;
	}
}

/* Operands that must be of one size are (immediates aside). */
static int sizes_agree(const struct insn *in)
{
	switch (in->op) {
	case OP_MOVZX: case OP_MOVSX: case OP_LEA: case OP_SHL: case OP_SHR: case OP_PUSH:
	case OP_POP: case OP_CALL: case OP_JMP: case OP_JCC: case OP_INT:
		return 1;
	default:
		break;
	}
	for (int i = 1; i < in->nops; i++)
		if (in->o[i].kind != O_IMM && in->o[i].kind != O_REL && in->o[i].size != in->o[0].size)
			return 0;
	return 1;
}

int x86_encode(const struct insn *in, uint64_t addr, int mode64, uint8_t out[15],
               struct enc_info *info)
{
	if (!sizes_agree(in))
		return -1;
	struct form f;
	memset(&f, 0, sizeof f);
	f.regfield = -1;
	f.plus_reg = -1;
	for (int i = 0; i < in->nops; i++) {
		f.byte_reg |= (uint8_t)low_byte_reg(&in->o[i]);
		f.high_byte |= (uint8_t)(in->o[i].kind == O_REG && in->o[i].hi);
	}
	int rc;
	if (in->op <= OP_CMP || in->op == OP_TEST)
		rc = form_alu(in, &f);
	else if (in->op == OP_MOV)
		rc = form_mov(in, &f);
	else if (in->op == OP_INC || in->op == OP_DEC || in->op == OP_SHL || in->op == OP_SHR ||
	         in->op == OP_MOVZX || in->op == OP_MOVSX || in->op == OP_LEA || in->op == OP_IMUL)
		rc = form_unary(in, &f);
	else if (in->op >= OP_PUSH && in->op <= OP_JCC)
		rc = form_flow(in, &f);
	else
		rc = form_other(in, &f);
	if (rc < 0 || (f.w && !mode64))
		return -1;
	uint8_t tmp[16];
	struct out o = {tmp, 0, -1, 0};
	int n = assemble(&f, in, addr, mode64, &o);
	if (n < 0)
		return -1;
	memcpy(out, tmp, (size_t)n);
	if (info) {
		info->len = (uint8_t)n;
		info->opcode = f.opc;
		info->two_byte = f.two;
		info->rex_w = f.w;
		info->opsize16 = f.o16;
		info->imm_size = f.imm_size;
		info->rel_size = f.rel_size;
	}
	return n;
}

/* ---- operand constructors ---------------------------------------------------- */

struct opnd r_(uint8_t reg, uint8_t size)
{
	struct opnd o = {O_REG, size, reg, 0, REG_NONE, REG_NONE, 1, SEG_NONE, 0};
	return o;
}

struct opnd rh_(uint8_t reg)
{
	struct opnd o = r_(reg, 1);
	o.hi = 1;
	return o;
}

struct opnd m_(uint8_t size, uint8_t base, uint8_t index, uint8_t scale, int64_t disp)
{
	struct opnd o = {O_MEM, size, 0, 0, base, index, scale, SEG_NONE, disp};
	return o;
}

struct opnd mseg_(uint8_t size, uint8_t seg, int64_t disp)
{
	struct opnd o = m_(size, REG_NONE, REG_NONE, 1, disp);
	o.seg = seg;
	return o;
}

struct opnd mrip_(uint8_t size, uint64_t target)
{
	return m_(size, REG_RIP, REG_NONE, 1, (int64_t)target);
}

struct opnd i_(uint8_t size, int64_t value)
{
	struct opnd o = {O_IMM, size, 0, 0, REG_NONE, REG_NONE, 1, SEG_NONE, value};
	return o;
}

struct opnd rel_(uint64_t target)
{
	struct opnd o = {O_REL, 8, 0, 0, REG_NONE, REG_NONE, 1, SEG_NONE, (int64_t)target};
	return o;
}
