/*
 * umtgen's instruction semantics (tools/umtgen/exec.c) against the processor
 * running the tests: each register form of each arithmetic, logic, shift,
 * multiply, move and exchange instruction, at every operand size, with
 * random and edge-case inputs and incoming flags, executed both by the
 * simulated machine and natively (encoded by umtgen's encoder into an
 * executable page, between loads and stores of every register). Results and
 * the flags the manuals define must agree; flags they leave undefined are
 * not compared (umtgen documents its choice). x86-64 hosts only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decoded.h"
#include "exec.h"
#include "machine.h"

#if defined(__x86_64__)
#include <sys/mman.h>

/* Registers the instructions under test may use (not rsp, not rdi: the stub's pointer). */
static const uint8_t usable[] = {G_AX, G_CX, G_DX, G_BX, G_BP, G_SI, G_8, G_9, G_10, G_11,
                                 G_12, G_13, G_14, G_15};
#define NUSABLE (sizeof usable / sizeof usable[0])

struct state {
	uint64_t r[16];
	uint64_t flags;
};

static uint8_t *page;
static uint64_t rng = 0x1234567887654321ull;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static uint64_t value(void)
{
	static const uint64_t edges[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
	                                 0x80000000, 0xffffffff, 0x7fffffffffffffffull,
	                                 0x8000000000000000ull, UINT64_MAX, 2, 31, 63};
	return rnd() % 3 ? rnd() >> (rnd() % 64) : edges[rnd() % (sizeof edges / sizeof edges[0])];
}

static size_t put(uint8_t *at, const struct insn *in)
{
	struct enc_info e;
	int n = x86_encode(in, (uint64_t)(uintptr_t)at, 1, at, &e);
	assert_true(n > 0);
	return (size_t)n;
}

/* The stub: save callee-saved registers, load every usable register and the
 * flags from *rdi, run @p in, store them back, restore, return. */
static void build_stub(const struct insn *in)
{
	static const uint8_t saved[] = {G_BX, G_BP, G_12, G_13, G_14, G_15};
	uint8_t *p = page;
	for (size_t i = 0; i < sizeof saved; i++)
		p += put(p, &(struct insn){OP_PUSH, 1, 0, 0, {r_(saved[i], 8)}});
	for (size_t i = 0; i < NUSABLE; i++)
		p += put(p, &(struct insn){OP_MOV, 2, 0, 0, {r_(usable[i], 8), m_(8, G_DI, REG_NONE, 1, 8 * usable[i])}});
	p += put(p, &(struct insn){OP_PUSH, 1, 0, 0, {m_(8, G_DI, REG_NONE, 1, 128)}});
	*p++ = 0x9d; /* popfq */
	p += put(p, in);
	*p++ = 0x9c; /* pushfq */
	for (size_t i = 0; i < NUSABLE; i++)
		p += put(p, &(struct insn){OP_MOV, 2, 0, 0, {m_(8, G_DI, REG_NONE, 1, 8 * usable[i]), r_(usable[i], 8)}});
	p += put(p, &(struct insn){OP_POP, 1, 0, 0, {r_(G_AX, 8)}});
	p += put(p, &(struct insn){OP_MOV, 2, 0, 0, {m_(8, G_DI, REG_NONE, 1, 128), r_(G_AX, 8)}});
	for (size_t i = sizeof saved; i-- > 0;)
		p += put(p, &(struct insn){OP_POP, 1, 0, 0, {r_(saved[i], 8)}});
	*p++ = 0xc3; /* ret */
	__builtin___clear_cache((char *)page, (char *)p);
}

static void run_native(const struct insn *in, struct state *s)
{
	build_stub(in);
	void (*fn)(struct state *);
	void *code = page;
	memcpy(&fn, &code, sizeof fn);
	fn(s);
}

static void run_simulated(const struct insn *in, struct state *s)
{
	static umt_context_map cmap;
	static struct xed_used used;
	umt_context_map_default(&cmap, 1, "20150121");
	struct dec_ctx c = {1, 0, &cmap, &used};
	uint8_t code[15], regs[RF_MAX], lc[1 << 12];
	struct enc_info e;
	int n = x86_encode(in, 0x1000, 1, code, &e);
	assert_true(n > 0);
	struct decoded d;
	assert_int_equal(decoded_build(&c, in, &e, 0x1000, &d), 0);
	memset(regs, 0, sizeof regs);
	for (int i = 0; i < 16; i++)
		memcpy(regs + RF_GPR(i), &s->r[i], 8);
	memcpy(regs + RF_RFLAGS, &s->flags, 8);
	struct mem m;
	mem_init(&m);
	struct exec_result r;
	exec_insn(&m, regs, 1, in, 0x1000, (uint8_t)n, &d, lc, 1, &r);
	assert_int_equal(r.status, EX_OK);
	for (int i = 0; i < 16; i++)
		memcpy(&s->r[i], regs + RF_GPR(i), 8);
	memcpy(&s->flags, regs + RF_RFLAGS, 8);
	mem_free(&m);
}

/* Runs @p in both ways from the same random state (rcx = *@p rcx when given);
 * compares every register and the flags of @p defined. */
static void compare_rcx(const struct insn *in, uint64_t defined, const uint64_t *rcx)
{
	struct state a, b;
	memset(&a, 0, sizeof a);
	for (size_t i = 0; i < NUSABLE; i++)
		a.r[usable[i]] = value();
	if (rcx)
		a.r[G_CX] = *rcx;
	a.flags = 0x202 | (rnd() & F_STATUS);
	b = a;
	run_native(in, &a);
	run_simulated(in, &b);
	for (size_t i = 0; i < NUSABLE; i++)
		if (a.r[usable[i]] != b.r[usable[i]]) {
			char text[128];
			x86_disasm(in, 1, 0, text, sizeof text);
			fail_msg("%s: register %u is 0x%llx natively, 0x%llx simulated", text, usable[i],
			         (unsigned long long)a.r[usable[i]], (unsigned long long)b.r[usable[i]]);
		}
	if ((a.flags ^ b.flags) & defined & F_STATUS) {
		char text[128];
		x86_disasm(in, 1, 0, text, sizeof text);
		fail_msg("%s: flags 0x%llx natively, 0x%llx simulated (defined 0x%llx)", text,
		         (unsigned long long)a.flags, (unsigned long long)b.flags,
		         (unsigned long long)defined);
	}
}

static void compare(const struct insn *in, uint64_t defined)
{
	compare_rcx(in, defined, NULL);
}

static uint8_t reg(void)
{
	return usable[rnd() % NUSABLE];
}

/* A register operand of @p size (ah, ch, dh, bh sometimes, never with REX). */
static struct opnd reg_of(uint8_t size, int allow_hi)
{
	if (size == 1 && allow_hi && rnd() % 3 == 0)
		return rh_((uint8_t)(rnd() % 4));
	uint8_t r = reg();
	while (size == 1 && allow_hi && r >= 4) /* without REX: al, cl, dl, bl only */
		r = (uint8_t)(rnd() % 4);
	return r_(r, size);
}

#define ALL F_STATUS
#define NO_AF (F_STATUS & ~F_AF)

static void test_alu(void **state)
{
	(void)state;
	static const uint8_t sizes[4] = {1, 2, 4, 8};
	for (int trial = 0; trial < 400; trial++)
		for (int op = OP_ADD; op <= OP_CMP; op++) {
			uint8_t s = sizes[trial % 4];
			int hi = rnd() % 2;
			struct opnd a = reg_of(s, hi), b = reg_of(s, hi);
			struct opnd imm = i_(s, (int64_t)value());
			imm.val = s == 8 ? (int32_t)imm.val : imm.val; /* imm32 sign-extended */
			uint64_t defined = op == OP_AND || op == OP_OR || op == OP_XOR ? NO_AF : ALL;
			compare(&(struct insn){(uint8_t)op, 2, 0, (uint8_t)(rnd() % 2 ? P_ALT : 0), {a, b}}, defined);
			compare(&(struct insn){(uint8_t)op, 2, 0, 0, {a, imm}}, defined);
			compare(&(struct insn){OP_TEST, 2, 0, 0, {a, b}}, NO_AF);
		}
}

static void test_inc_dec_mov_xchg(void **state)
{
	(void)state;
	static const uint8_t sizes[4] = {1, 2, 4, 8};
	for (int trial = 0; trial < 600; trial++) {
		uint8_t s = sizes[trial % 4];
		struct opnd a = reg_of(s, 1), b = reg_of(s, 1);
		compare(&(struct insn){OP_INC, 1, 0, 0, {a}}, ALL);
		compare(&(struct insn){OP_DEC, 1, 0, 0, {a}}, ALL);
		compare(&(struct insn){OP_MOV, 2, 0, 0, {a, b}}, ALL);
		struct opnd imm = i_(s, (int64_t)value());
		imm.val = s == 8 ? (int32_t)imm.val : imm.val;
		compare(&(struct insn){OP_MOV, 2, 0, 0, {a, imm}}, ALL);
		if (!(a.reg == b.reg && a.hi == b.hi))
			compare(&(struct insn){OP_XCHG, 2, 0, 0, {a, b}}, ALL);
		if (s > 1) {
			struct opnd c = reg_of(s, 0), d = reg_of(s, 0);
			compare(&(struct insn){OP_CMPXCHG, 2, 0, 0, {c, d}}, ALL);
		}
	}
}

static void test_shifts(void **state)
{
	(void)state;
	static const uint8_t sizes[4] = {1, 2, 4, 8};
	for (int trial = 0; trial < 800; trial++) {
		uint8_t s = sizes[trial % 4];
		unsigned bits = 8u * s;
		struct opnd a = reg_of(s, 1);
		uint8_t op = rnd() % 2 ? OP_SHL : OP_SHR;
		unsigned n = 1 + (unsigned)(rnd() % (bits - 1)); /* counts the generator uses */
		uint64_t defined = n == 1 ? NO_AF : NO_AF & ~(uint64_t)F_OF;
		compare(&(struct insn){op, 2, 0, (uint8_t)(n == 1 && rnd() % 2 ? P_ALT : 0), {a, i_(1, n)}},
		        defined);
		/* by cl, the count masked to 5 (6) bits: 0 changes nothing; past the
		 * width (8- and 16-bit operands) CF is undefined too */
		struct opnd b = reg_of(s, 0);
		while (b.reg == G_CX)
			b = reg_of(s, 0);
		uint64_t cl = value(), m = cl & (s == 8 ? 63 : 31);
		defined = m == 0 ? ALL : m == 1 ? NO_AF : m < bits ? NO_AF & ~(uint64_t)F_OF
		                                                   : NO_AF & ~(uint64_t)(F_OF | F_CF);
		compare_rcx(&(struct insn){op, 2, 0, 0, {b, r_(G_CX, 1)}}, defined, &cl);
	}
}

static void test_imul_movx(void **state)
{
	(void)state;
	static const uint8_t sizes[3] = {2, 4, 8};
	for (int trial = 0; trial < 900; trial++) {
		uint8_t s = sizes[trial % 3];
		struct opnd a = reg_of(s, 0), b = reg_of(s, 0);
		uint64_t cf_of = F_CF | F_OF; /* SF ZF AF PF are undefined after imul */
		compare(&(struct insn){OP_IMUL, 2, 0, 0, {a, b}}, cf_of);
		int64_t imm = s == 2 ? (int16_t)value() : (int32_t)value();
		compare(&(struct insn){OP_IMUL, 3, 0, 0, {a, b, i_(s, imm)}}, cf_of);
		compare(&(struct insn){OP_IMUL, 3, 0, 0, {a, b, i_(s, (int8_t)value())}}, cf_of);
		uint8_t from = s == 2 ? 1 : (uint8_t)(1 + rnd() % 2);
		struct opnd c = reg_of(from, s < 8 && a.reg < 8); /* ah..bh: no REX */
		compare(&(struct insn){OP_MOVZX, 2, 0, 0, {a, c}}, ALL);
		compare(&(struct insn){OP_MOVSX, 2, 0, 0, {a, c}}, ALL);
		compare(&(struct insn){OP_LEA, 2, 0, 0, {a, m_(s, reg(), G_DX, 4, (int8_t)value())}}, ALL);
	}
}

static int setup(void **state)
{
	(void)state;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return page == MAP_FAILED ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	munmap(page, 4096);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alu), cmocka_unit_test(test_inc_dec_mov_xchg),
		cmocka_unit_test(test_shifts), cmocka_unit_test(test_imul_movx),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

#else /* not an x86-64 host: nothing to compare with */

int main(void)
{
	printf("not an x86-64 host: skipped\n");
	return 77;
}

#endif
