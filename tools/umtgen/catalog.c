/*
 * umtgen: the catalogue of every instruction form the encoder supports, in
 * 64-bit and 32-bit code, with registers, bases, indexes, scales and
 * displacements that exercise every ModRM/SIB/REX corner (rsp and r12
 * bases, rbp and r13 with no displacement, r8-r15, RIP-relative, absolute
 * with fs/gs). xed.c numbers the forms, mnemonics and categories it names;
 * tests/gen/gen_forms prints it for the objdump comparison.
 */
#include <string.h>

#include "x86.h"

struct cat {
	void (*fn)(const struct insn *in, int mode64, uint64_t address, void *arg);
	void *arg;
	uint64_t address; /* of the next instruction: 0x40 apart */
};

static void emit(struct cat *c, const struct insn *in, int mode64)
{
	c->fn(in, mode64, mode64 ? c->address : (uint32_t)c->address, c->arg);
	c->address += 0x40;
}

static struct insn I2(uint8_t op, struct opnd a, struct opnd b)
{
	struct insn in;
	memset(&in, 0, sizeof in);
	in.op = op;
	in.nops = 2;
	in.o[0] = a;
	in.o[1] = b;
	return in;
}

static struct insn I1(uint8_t op, struct opnd a)
{
	struct insn in = I2(op, a, a);
	in.nops = 1;
	return in;
}

static struct insn I0(uint8_t op)
{
	struct insn in = I1(op, i_(1, 0));
	in.nops = 0;
	return in;
}

/* Memory operands of size @p s covering the addressing corners. */
static int mems(struct opnd *m, uint8_t s, int mode64)
{
	int n = 0;
	m[n++] = m_(s, G_BX, REG_NONE, 1, 0);
	m[n++] = m_(s, G_SP, REG_NONE, 1, 0x20);
	m[n++] = m_(s, G_BP, REG_NONE, 1, -8);
	m[n++] = m_(s, G_BP, REG_NONE, 1, 0);
	m[n++] = m_(s, G_SI, G_CX, 4, 0x10);
	m[n++] = m_(s, G_DI, G_DX, 8, -0x1000);
	m[n++] = m_(s, REG_NONE, G_AX, 2, 0x1234);
	m[n++] = mseg_(s, mode64 ? SEG_GS : SEG_FS, mode64 ? 0x30 : 0x18);
	if (!mode64) /* an absolute address (64-bit code uses RIP-relative ones) */
		m[n++] = m_(s, REG_NONE, REG_NONE, 1, 0x404218);
	if (mode64) {
		m[n++] = m_(s, G_12, REG_NONE, 1, 0x7f);
		m[n++] = m_(s, G_13, REG_NONE, 1, 0);
		m[n++] = m_(s, G_8, G_9, 1, 0x80);
		m[n++] = m_(s, G_BX, G_12, 2, 0);
		m[n++] = m_(s, G_15, G_13, 8, -0x7fffffff);
		m[n++] = mrip_(s, 0x140003000);
	}
	return n;
}

static void alu_forms(struct cat *c, int mode64)
{
	uint8_t sizes[4] = {1, 2, 4, 8};
	struct opnd m[16];
	for (int op = OP_ADD; op <= OP_CMP; op++) {
		for (int k = 0; k < (mode64 ? 4 : 3); k++) {
			uint8_t s = sizes[k];
			uint8_t r1 = mode64 ? G_9 : G_DX, r2 = mode64 ? G_SI : G_BX;
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_AX, s), r_(r2, s)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, P_ALT, {r_(r1, s), r_(G_CX, s)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(r1, s), i_(s, 0x7f)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_DX, s), i_(s, s == 1 ? -3 : -0x80)}},
			    mode64);
			if (s > 1)
				emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_BX, s), i_(s, 0x1234)}}, mode64);
			int n = mems(m, s, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {m[k % n], r_(G_CX, s)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_DX, s), m[(k + 3) % n]}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {m[(k + 5) % n], i_(s, 5)}}, mode64);
			if (s > 1)
				emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {m[(k + 6) % n], i_(s, 0x400)}},
				     mode64);
		}
	}
	for (int k = 0; k < (mode64 ? 4 : 3); k++) {
		uint8_t s = sizes[k];
		int n = mems(m, s, mode64);
		emit(c, &(struct insn){OP_TEST, 2, 0, 0, {r_(G_AX, s), r_(G_AX, s)}}, mode64);
		emit(c, &(struct insn){OP_TEST, 2, 0, 0, {m[k], r_(G_BX, s)}}, mode64);
		emit(c, &(struct insn){OP_TEST, 2, 0, 0, {r_(G_CX, s), i_(s, 0x40)}}, mode64);
		emit(c, &(struct insn){OP_TEST, 2, 0, 0, {m[(k + 2) % n], i_(s, 1)}}, mode64);
	}
}

static void mov_forms(struct cat *c, int mode64)
{
	uint8_t sizes[4] = {1, 2, 4, 8};
	struct opnd m[16];
	for (int k = 0; k < (mode64 ? 4 : 3); k++) {
		uint8_t s = sizes[k];
		int n = mems(m, s, mode64);
		for (int j = 0; j < n; j++) {
			emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_AX, s), m[j]}}, mode64);
			uint8_t r = (uint8_t)(j % (s == 1 && !mode64 ? 4 : 8)); /* no dil in 32-bit code */
			emit(c, &(struct insn){OP_MOV, 2, 0, 0, {m[j], r_(r, s)}}, mode64);
		}
		uint8_t src = s == 1 && !mode64 ? G_DX : G_SI;
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_BX, s), r_(src, s)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, P_ALT, {r_(G_BX, s), r_(src, s)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_CX, s), i_(s, 0x12)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {m[1], i_(s, 0x34)}}, mode64);
	}
	emit(c, &(struct insn){OP_MOV, 2, 0, 0, {rh_(G_AX), i_(1, 0x7f)}}, mode64);
	emit(c, &(struct insn){OP_MOV, 2, 0, 0, {rh_(G_BX), r_(G_CX, 1)}}, mode64);
	mems(m, 1, mode64);
	emit(c, &(struct insn){OP_MOV, 2, 0, 0, {m[0], rh_(G_DX)}}, mode64);
	if (mode64) {
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_SI, 1), r_(G_DI, 1)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_10, 8), i_(8, 0x123456789abcdef)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, P_ALT, {r_(G_AX, 8), i_(8, 0x10)}}, mode64);
		emit(c, &(struct insn){OP_MOV, 2, 0, 0, {r_(G_AX, 8), i_(8, -2)}}, mode64);
	}
}

static void unary_forms(struct cat *c, int mode64)
{
	uint8_t sizes[4] = {1, 2, 4, 8};
	struct opnd m[16];
	for (int k = 0; k < (mode64 ? 4 : 3); k++) {
		uint8_t s = sizes[k];
		uint8_t hi = mode64 ? G_14 : s == 1 ? G_BX : G_DI;
		int n = mems(m, s, mode64);
		for (int op = OP_INC; op <= OP_DEC; op++) {
			emit(c, &(struct insn){(uint8_t)op, 1, 0, 0, {r_(hi, s)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 1, 0, 0, {m[(k + op) % n]}}, mode64);
		}
		for (int op = OP_SHL; op <= OP_SHR; op++) {
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_DX, s), i_(1, 1)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, P_ALT, {r_(G_DX, s), i_(1, 1)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(hi, s), i_(1, 5)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {m[k % n], i_(1, 3)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_BX, s), r_(G_CX, 1)}}, mode64);
		}
		if (s == 1)
			continue;
		struct opnd m1[16], m2[16];
		mems(m1, 1, mode64);
		mems(m2, 2, mode64);
		for (int op = OP_MOVZX; op <= OP_MOVSX; op++) {
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_AX, s), r_(G_CX, 1)}}, mode64);
			if (s < 8) /* ah..bh cannot go with a REX prefix */
				emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_AX, s), rh_(G_BX)}}, mode64);
			emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(hi, s), m1[k]}}, mode64);
			if (s > 2) {
				emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_DX, s), r_(G_SI, 2)}}, mode64);
				emit(c, &(struct insn){(uint8_t)op, 2, 0, 0, {r_(G_DX, s), m2[k + 2]}}, mode64);
			}
		}
		emit(c, &(struct insn){OP_LEA, 2, 0, 0, {r_(G_AX, s), m[(k + 4) % n]}}, mode64);
		emit(c, &(struct insn){OP_IMUL, 2, 0, 0, {r_(G_AX, s), r_(hi, s)}}, mode64);
		emit(c, &(struct insn){OP_IMUL, 2, 0, 0, {r_(G_CX, s), m[k]}}, mode64);
		emit(c, &(struct insn){OP_IMUL, 3, 0, 0, {r_(G_DX, s), r_(G_BX, s), i_(s, 0x10)}}, mode64);
		emit(c, &(struct insn){OP_IMUL, 3, 0, 0, {r_(G_DX, s), m[k + 1], i_(s, 0x1000)}}, mode64);
		emit(c, &(struct insn){OP_IMUL, 3, 0, 0, {r_(G_SI, s), r_(G_DI, s), i_(s, 0x300)}},
		     mode64);
		emit(c, &(struct insn){OP_IMUL, 3, 0, 0, {r_(G_SI, s), m[k + 2], i_(s, 3)}}, mode64);
	}
	if (mode64) /* spl, bpl, sil, dil need a REX prefix */
		emit(c, &(struct insn){OP_MOVZX, 2, 0, 0, {r_(G_AX, 4), r_(G_SI, 1)}}, mode64);
}

static void flow_forms(struct cat *c, int mode64)
{
	uint8_t w = mode64 ? 8 : 4;
	struct opnd m[16];
	int n = mems(m, w, mode64);
#define here (mode64 ? c->address : (uint32_t)c->address)
	for (uint8_t r = 0; r < (mode64 ? 16 : 8); r += 3) {
		emit(c, &(struct insn){OP_PUSH, 1, 0, 0, {r_(r, w)}}, mode64);
		emit(c, &(struct insn){OP_POP, 1, 0, 0, {r_(r, w)}}, mode64);
	}
	emit(c, &(struct insn){OP_PUSH, 1, 0, 0, {i_(w, 0x10)}}, mode64);
	emit(c, &(struct insn){OP_PUSH, 1, 0, 0, {i_(w, 0x12345)}}, mode64);
	emit(c, &(struct insn){OP_PUSH, 1, 0, 0, {m[2]}}, mode64);
	emit(c, &(struct insn){OP_CALL, 1, 0, 0, {rel_(here + 0x1000)}}, mode64);
	emit(c, &(struct insn){OP_CALL, 1, 0, 0, {rel_(here - 0x40)}}, mode64);
	emit(c, &(struct insn){OP_CALL, 1, 0, 0, {r_(G_AX, w)}}, mode64);
	emit(c, &(struct insn){OP_CALL, 1, 0, 0, {m[n - 1]}}, mode64);
	emit(c, &(struct insn){OP_JMP, 1, 0, P_SHORT, {rel_(here + 0x20)}}, mode64);
	emit(c, &(struct insn){OP_JMP, 1, 0, 0, {rel_(here + 0x2000)}}, mode64);
	emit(c, &(struct insn){OP_JMP, 1, 0, 0, {r_(G_DX, w)}}, mode64);
	emit(c, &(struct insn){OP_JMP, 1, 0, 0, {m[4]}}, mode64);
	for (uint8_t cc = 0; cc < 16; cc++) {
		emit(c, &(struct insn){OP_JCC, 1, cc, P_SHORT, {rel_(here + 0x70 - 0x0e * cc)}}, mode64);
		emit(c, &(struct insn){OP_JCC, 1, cc, 0, {rel_(here + 0x4000 - 0x300 * cc)}}, mode64);
	}
	struct insn ret = I0(OP_RET);
	emit(c, &ret, mode64);
#undef here
}

static void other_forms(struct cat *c, int mode64)
{
	uint8_t sizes[4] = {1, 2, 4, 8};
	struct opnd m[16];
	for (int k = 0; k < (mode64 ? 4 : 3); k++) {
		uint8_t s = sizes[k];
		int n = mems(m, s, mode64);
		emit(c, &(struct insn){OP_XCHG, 2, 0, 0, {m[k % n], r_(G_AX, s)}}, mode64);
		emit(c, &(struct insn){OP_XCHG, 2, 0, 0, {r_(G_CX, s), r_(G_DX, s)}}, mode64);
		emit(c, &(struct insn){OP_CMPXCHG, 2, 0, P_LOCK, {m[(k + 1) % n], r_(G_DX, s)}}, mode64);
		emit(c, &(struct insn){OP_CMPXCHG, 2, 0, 0, {r_(G_BX, s), r_(G_CX, s)}}, mode64);
	}
	struct insn s0 = I0(OP_MOVSB), s1 = I0(OP_STOSB);
	emit(c, &s0, mode64);
	emit(c, &s1, mode64);
	s0.pfx = s1.pfx = P_REP;
	emit(c, &s0, mode64);
	emit(c, &s1, mode64);
	struct opnd x[16], y[16];
	int nx = mems(x, 16, mode64);
	mems(y, 32, mode64);
	uint8_t vhi = mode64 ? V_0 + 9 : V_0 + 7;
	for (int j = 0; j < nx; j++) {
		struct insn a = I2(OP_MOVDQU, r_(V_0 + (uint8_t)(j % 8), 16), x[j]);
		struct insn b = I2(OP_MOVDQU, x[j], r_(vhi, 16));
		emit(c, &a, mode64);
		emit(c, &b, mode64);
	}
	struct insn a = I2(OP_MOVAPS, r_(V_0 + 1, 16), r_(vhi, 16));
	struct insn d = I2(OP_MOVAPS, r_(V_0 + 2, 16), x[0]);
	struct insn e = I2(OP_MOVAPS, x[1], r_(V_0 + 3, 16));
	struct insn f = I2(OP_VMOVDQU, r_(V_0, 32), y[0]);
	struct insn g = I2(OP_VMOVDQU, y[4], r_(V_0 + 5, 32));
	struct insn h = I2(OP_VMOVDQU, r_(vhi, 32), y[2]);
	emit(c, &a, mode64);
	emit(c, &d, mode64);
	emit(c, &e, mode64);
	emit(c, &f, mode64);
	emit(c, &g, mode64);
	emit(c, &h, mode64);
	struct insn sys = mode64 ? I0(OP_SYSCALL) : I1(OP_INT, i_(1, 0x2e));
	struct insn nop = I0(OP_NOP);
	emit(c, &sys, mode64);
	emit(c, &nop, mode64);
}

void x86_catalog(void (*fn)(const struct insn *in, int mode64, uint64_t address, void *arg),
                 void *arg)
{
	struct cat c = {fn, arg, 0x140001000};
	for (int mode64 = 1; mode64 >= 0; mode64--) {
		alu_forms(&c, mode64);
		mov_forms(&c, mode64);
		unary_forms(&c, mode64);
		flow_forms(&c, mode64);
		other_forms(&c, mode64);
	}
}
