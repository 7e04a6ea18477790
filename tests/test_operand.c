/*
 * operand.c: operand values of instruction records, memory addresses,
 * memory phrases and effective addresses, LC slots, register lookup.
 *
 * The main fixture is assembled here byte by byte at the spec's literal
 * offsets (no format.h struct, no writer): an instruction table, one
 * instruction record per instruction and a context map, replacing those
 * files of fx_handmade(). The writer-built standard trace is checked too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "std_trace.h"

/* XED 20150121 register numbers (ERRATA 17) */
enum {
	AX = 42, CX, DX, BX, SP, BP, SI, DI,
	EAX = 58, ECX, EDX, EBX, ESP, EBP, ESI, EDI,
	RAX = 74, RCX, RDX, RBX, RSP, RBP, RSI, RDI,
	AL = 90, CL, DL, BL, SPL, BPL, SIL, DIL,
	AH = 106, CH, DH, BH,
	STACKPUSH = 131, FSBASE = 140, GSBASE = 141,
	STACKPOP_2014 = 126, /* XED 20140106 numbering: memory is told by AddrWidth */
	MEM0 = 0xffff, MEM1 = 0xfffe, AGEN = 0xfffd,
	NA = 0xff, IMM0 = 0xfd, IMM1 = 0xfe, R = 1, W = 2, RW = 3
};

/* ---- the hand-assembled trace ---------------------------------------------------- */

struct oper_def { uint16_t reg, size; uint8_t flags, before, after, boff, aoff; };
struct slot_def { uint16_t reg, vsize, off; uint8_t aw; };
struct ins_def {
	const char *text;
	uint8_t cs64, flags, eff_oper, eff_addr;
	uint16_t lc_size;
	uint8_t first_out, first_after, lc_count, exp_count;
	uint8_t seg, base, scale, index, mem1;
	int64_t c0, c1;
	struct oper_def op[4];
	struct slot_def slot[8];
};

enum { I_MOV_GS, I_MOV_EDX, I_MOV_AH, I_IMUL, I_MOV_IMM, I_PUSH, I_LEA, I_MOVSB, I_NOP,
       I_MOV32, I_POP, N_INS };

static const struct ins_def defs[N_INS] = {
	[I_MOV_GS] = {"mov rax, qword ptr gs:[rbx+rcx*4-0x10]", 1, 0x10, 8, 8, 56, 4, 5, 6, 2,
	              0, 1, 4, 2, NA, -0x10, 0,
	              {{RAX, 8, W, 4, 5, 0, 0}, {MEM0, 8, R, 3, NA, 8, 0}},
	              {{GSBASE, 8, 0, 0}, {RBX, 8, 8, 0}, {RCX, 8, 16, 0}, {MEM0, 8, 24, 8},
	               {RAX, 8, 40, 0}, {RAX, 8, 48, 0}}},
	[I_MOV_EDX] = {"mov edx, ecx", 1, 0x08, 4, 8, 24, 1, 2, 3, 2, NA, NA, 0, NA, NA, 0, 0,
	               {{EDX, 4, W, 1, 2, 0, 0}, {ECX, 4, R, 0, NA, 0, 0}},
	               {{RCX, 8, 0, 0}, {RDX, 8, 8, 0}, {RDX, 8, 16, 0}}},
	[I_MOV_AH] = {"mov ah, al", 1, 0, 4, 8, 16, 1, 1, 2, 2, NA, NA, 0, NA, NA, 0, 0,
	              {{AH, 1, W, 0, 1, 1, 1}, {AL, 1, R, 0, NA, 0, 0}},
	              {{RAX, 8, 0, 0}, {RAX, 8, 8, 0}}},
	[I_IMUL] = {"imul edx, ecx, -0x3", 1, 0x08, 4, 8, 24, 1, 2, 3, 3, NA, NA, 0, NA, NA, -3, 0,
	            {{EDX, 4, W, 1, 2, 0, 0}, {ECX, 4, R, 0, NA, 0, 0}, {0, 1, R, IMM0, NA, 0, 0}},
	            {{RCX, 8, 0, 0}, {RDX, 8, 8, 0}, {RDX, 8, 16, 0}}},
	[I_MOV_IMM] = {"mov dword ptr [rax+0x8], 0x11223344", 1, 0x20, 4, 8, 32, 1, 2, 3, 2,
	               NA, 0, 0, NA, NA, 8, 0x11223344,
	               {{MEM0, 4, W, 1, 2, 8, 8}, {0, 4, R, IMM1, NA, 0, 0}},
	               {{RAX, 8, 0, 0}, {MEM0, 4, 8, 8}, {MEM0, 4, 20, 8}}},
	[I_PUSH] = {"push rbx", 1, 0x20, 8, 8, 40, 2, 2, 4, 1, NA, NA, 0, NA, NA, 0, 0,
	            {{RBX, 8, R, 0, NA, 0, 0}},
	            {{RBX, 8, 0, 0}, {RSP, 8, 8, 0}, {STACKPUSH, 8, 16, 8}, {RSP, 8, 32, 0}}},
	[I_LEA] = {"lea rdx, ptr [rax+rbx*2+0x100]", 1, 0, 8, 8, 40, 3, 4, 5, 2, NA, 0, 2, 1, NA,
	           0x100, 0,
	           {{RDX, 8, W, 3, 4, 0, 0}, {AGEN, 8, R, 2, NA, 0, 0}},
	           {{RAX, 8, 0, 0}, {RBX, 8, 8, 0}, {AGEN, 8, 16, 0}, {RDX, 8, 24, 0},
	            {RDX, 8, 32, 0}}},
	[I_MOVSB] = {"movsb byte ptr [rdi], byte ptr [rsi]", 1, 0x30, 4, 8, 59, 3, 4, 7, 2,
	             NA, 1, 0, NA, 0, 0, 0,
	             {{MEM0, 1, W, 3, 4, 8, 8}, {MEM1, 1, R, 2, NA, 8, 0}},
	             {{RSI, 8, 0, 0}, {RDI, 8, 8, 0}, {MEM1, 1, 16, 8}, {MEM0, 1, 25, 8},
	              {MEM0, 1, 34, 8}, {RSI, 8, 43, 0}, {RDI, 8, 51, 0}}},
	[I_NOP] = {"nop", 1, 0, 4, 8, 0, 0, 0, 0, 0, NA, NA, 0, NA, NA, 0, 0, {{0}}, {{0}}},
	[I_MOV32] = {"mov eax, dword ptr fs:[ebx+ecx*4+0x10]", 0, 0x10, 4, 4, 32, 4, 5, 6, 2,
	             0, 1, 4, 2, NA, 0x10, 0,
	             {{EAX, 4, W, 4, 5, 0, 0}, {MEM0, 4, R, 3, NA, 8, 0}},
	             {{FSBASE, 4, 0, 0}, {EBX, 4, 4, 0}, {ECX, 4, 8, 0}, {MEM0, 4, 12, 4},
	              {EAX, 4, 24, 0}, {EAX, 4, 28, 0}}},
	[I_POP] = {"pop rbx", 1, 0x10, 8, 8, 48, 2, 3, 5, 1, NA, NA, 0, NA, NA, 0, 0,
	           {{RBX, 8, W, 2, 3, 0, 0}},
	           {{RSP, 8, 0, 0}, {STACKPOP_2014, 8, 8, 8}, {RBX, 8, 24, 0}, {RBX, 8, 32, 0},
	            {RSP, 8, 40, 0}}},
};

/* One LC value: @p size bytes of @p value at @p off. */
struct lc_def { uint16_t off; uint8_t size; uint64_t value; };

#define GS_BASE 0x7ff600000000ull
static const struct lc_def lcs[N_INS][8] = {
	[I_MOV_GS] = {{0, 8, GS_BASE}, {8, 8, 0x1000}, {16, 8, 0x20},
	              {24, 8, GS_BASE + 0x1000 + 0x80 - 0x10}, {32, 8, 0x1122334455667788},
	              {40, 8, 0xaaaaaaaaaaaaaaaa}, {48, 8, 0x1122334455667788}},
	[I_MOV_EDX] = {{0, 8, 0xdeadbeef12345678}, {8, 8, UINT64_MAX}, {16, 8, 0x12345678}},
	[I_MOV_AH] = {{0, 8, 0x1111111111112233}, {8, 8, 0x1111111111113333}},
	[I_IMUL] = {{0, 8, 0x10}, {8, 8, 0x77}, {16, 8, 0xffffffd0}},
	[I_MOV_IMM] = {{0, 8, 0x500000}, {8, 8, 0x500008}, {16, 4, 0}, {20, 8, 0x500008},
	               {28, 4, 0x11223344}},
	[I_PUSH] = {{0, 8, 0xb0b0}, {8, 8, 0x7fff0000}, {16, 8, 0x7ffefff8}, {24, 8, 0xb0b0},
	            {32, 8, 0x7ffefff8}},
	[I_LEA] = {{0, 8, 0x1000}, {8, 8, 0x30}, {16, 8, 0x1160}, {24, 8, 0}, {32, 8, 0x1160}},
	[I_MOVSB] = {{0, 8, 0x600000}, {8, 8, 0x700000}, {16, 8, 0x600000}, {24, 1, 0x41},
	             {25, 8, 0x700000}, {33, 1, 0}, {34, 8, 0x700000}, {42, 1, 0x41}},
	[I_MOV32] = {{0, 4, 0x7ffdf000}, {4, 4, 0x80000000}, {8, 4, 0x20000000},
	             {12, 8, 0xdead00007ffdf010}, /* high bytes beyond AddrWidth 4 */
	             {20, 4, 0x44332211}, {24, 4, 0xcccccccc}, {28, 4, 0x44332211}},
	[I_POP] = {{0, 8, 0x7ffefff8}, {8, 8, 0x7ffefff8}, {16, 8, 0xcafe}, {24, 8, 0xb0b0},
	           {32, 8, 0xcafe}, {40, 8, 0x7fff0000}},
};
/* MOVSB's last two slots, beyond 8 lc_defs */
static const struct lc_def movsb_tail[2] = {{43, 8, 0x600001}, {51, 8, 0x700001}};

/* The common name of a register in this trace: spec 11.1 for insRec version
 * 1 (rax, eax, ax, al, ah -> ax), the largest enclosing register for 0 (-> rax). */
static uint16_t common_of(uint16_t reg, int ver)
{
	for (uint16_t i = 0; i < 8; i++)
		if (reg == RAX + i || reg == EAX + i || reg == AX + i || reg == AL + i ||
		    (i < 4 && reg == AH + i))
			return (uint16_t)(ver ? AX + i : RAX + i);
	return reg;
}

/* Writes instruction @p k's cStr and decodedIns at x + *n; returns their FPs. */
static void put_ins(uint8_t *x, size_t *n, const struct ins_def *d, int ver, size_t *str_fp,
                    size_t *dec_fp)
{
	size_t len = strlen(d->text);
	*str_fp = *n;
	fx_put16(x + *n, (uint16_t)len);               /* cStr Length */
	memcpy(x + *n + 2, d->text, len + 1);          /* characters and NUL */
	*n += len + 3;
	uint8_t *p = x + (*dec_fp = *n);
	p[6] = d->flags;
	p[7] = d->exp_count;
	for (int i = 0; i < 4; i++) {                  /* expOper[4] at 8 */
		uint8_t *o = p + 8 + 12 * i;
		const struct oper_def *od = &d->op[i];
		fx_put16(o + 0, od->reg);
		fx_put16(o + 2, od->size);
		o[4] = od->flags;
		o[5] = od->before;
		o[6] = od->after;
		o[7] = od->boff;
		o[8] = od->aoff;
	}
	p[56] = d->eff_oper;
	p[57] = d->eff_addr;
	fx_put16(p + 58, d->lc_size);
	p[60] = d->first_out;
	p[61] = d->first_after;
	p[62] = d->lc_count;
	p[63] = d->seg;
	p[64] = d->base;
	p[65] = d->scale;
	p[66] = d->index;
	p[67] = d->mem1;
	fx_put64(p + 72, (uint64_t)d->c0);
	fx_put64(p + 80, (uint64_t)d->c1);
	for (int i = 0; i < d->lc_count; i++) {        /* lcSlot[LCCount] at 88 */
		uint8_t *s = p + 88 + 12 * i;
		fx_put16(s + 0, d->slot[i].reg);
		fx_put16(s + 2, common_of(d->slot[i].reg, ver));
		fx_put16(s + 4, d->slot[i].vsize);
		fx_put16(s + 6, d->slot[i].off);
		s[8] = d->slot[i].aw;
	}
	*n += 88 + 12 * (size_t)d->lc_count;
}

#define T_ROW 64
static size_t h_dec_fp[N_INS];

static void build_ins_table(struct fx_trace *t, int ver)
{
	uint8_t x[4096];
	size_t n = 0, str_fp[N_INS];
	memset(x, 0, sizeof x);
	for (int k = 0; k < N_INS; k++)
		put_ins(x, &n, &defs[k], ver, &str_fp[k], &h_dec_fp[k]);
	size_t extra_fp = 48 + N_INS * T_ROW, size = extra_fp + n;
	uint8_t *p = calloc(1, size);
	fx_put32(p + 4, (uint32_t)ver);    /* RecordVer */
	fx_put64(p + 8, N_INS);            /* RowCount */
	fx_put64(p + 16, T_ROW);           /* RowSize */
	fx_put64(p + 24, 48);              /* TableFP */
	fx_put64(p + 32, extra_fp);        /* ExtraFP */
	fx_put64(p + 40, n);               /* ExtraSize */
	for (int k = 0; k < N_INS; k++) {
		uint8_t *r = p + 48 + T_ROW * k;
		fx_put64(r + 0, (uint64_t)k);          /* ID */
		r[9] = defs[k].cs64;                   /* CSis64Bits */
		r[10] = 1;                             /* CodeSize */
		fx_put64(r + 16, 0x401000u + 16u * (unsigned)k); /* Address */
		fx_put64(r + 40, str_fp[k]);           /* DisasmFP */
		fx_put64(r + 48, h_dec_fp[k]);         /* DecodedFP */
	}
	memcpy(p + extra_fp, x, n);
	free(t->data[UMT_FILE_INS]);
	t->data[UMT_FILE_INS] = p;
	t->size[UMT_FILE_INS] = size;
}

/* Record k: instruction k, its LC from lcs[k]; 64-bit except MOV32. */
static uint64_t h_rec_off[N_INS + 1];

static void build_exec(struct fx_trace *t)
{
	uint8_t *v = calloc(1, 16 + N_INS * (14 + 64));
	fx_put32(v + 0, 1);                 /* Version */
	fx_put64(v + 8, N_INS);             /* RecordCount */
	size_t at = 16;
	for (int k = 0; k < N_INS; k++) {
		uint8_t *r = v + at;
		h_rec_off[k] = at;
		fx_put32(r + 0, 0);                             /* ThreadID */
		r[4] = 0;                                       /* Type: instruction */
		r[5] = k == I_MOV32 ? 0x00 : 0x01;              /* Flags: 64-bit */
		fx_put64(r + 6, (uint64_t)k);                   /* InsID */
		uint8_t *lc = r + 14;
		for (int j = 0; j < 8 && lcs[k][j].size; j++)
			for (int b = 0; b < lcs[k][j].size; b++)
				lc[lcs[k][j].off + b] = (uint8_t)(lcs[k][j].value >> (8 * b));
		if (k == I_MOVSB)
			for (int j = 0; j < 2; j++)
				fx_put64(lc + movsb_tail[j].off, movsb_tail[j].value);
		at += 14 + defs[k].lc_size;
	}
	h_rec_off[N_INS] = at;
	free(t->data[UMT_FILE_EXEC_VTABLE]);
	t->data[UMT_FILE_EXEC_VTABLE] = v;
	t->size[UMT_FILE_EXEC_VTABLE] = at;

	uint8_t *o = calloc(N_INS + 1, 8);
	uint8_t *pn = calloc(N_INS, 16);
	for (int k = 0; k <= N_INS; k++)
		fx_put64(o + 8 * k, h_rec_off[k]);
	for (int k = 0; k < N_INS; k++) {                   /* one thread, in order */
		fx_put64(pn + 16 * k, (uint64_t)(k - 1));
		fx_put64(pn + 16 * k + 8, k + 1 < N_INS ? (uint64_t)(k + 1) : UINT64_MAX);
	}
	free(t->data[UMT_FILE_EXEC_OFFSETS]);
	free(t->data[UMT_FILE_EXEC_PREV_NEXT]);
	t->data[UMT_FILE_EXEC_OFFSETS] = o;
	t->size[UMT_FILE_EXEC_OFFSETS] = (N_INS + 1) * 8;
	t->data[UMT_FILE_EXEC_PREV_NEXT] = pn;
	t->size[UMT_FILE_EXEC_PREV_NEXT] = N_INS * 16;
}

/* Context map: GPR families of both modes, fsbase and gsbase; DumpSize 96. */
static void set_reg(uint8_t *cm, uint16_t reg, const char *name, int ver, int off32, int size32,
                    int off64, int size64, uint16_t eff32, uint16_t eff64)
{
	fx_put16(cm + 16 + 2 * reg, common_of(reg, ver));     /* CommonName */
	memcpy(cm + 1040 + 16 * reg, name, strlen(name));     /* StrName */
	if (size32) {
		fx_put16(cm + 9232 + 8 * reg, (uint16_t)off32); /* RegMap32 Offset */
		cm[9232 + 8 * reg + 2] = (uint8_t)size32;       /* Size */
		fx_put16(cm + 9232 + 8 * reg + 4, eff32);       /* EffLargest */
	}
	if (size64) {
		fx_put16(cm + 13328 + 8 * reg, (uint16_t)off64);
		cm[13328 + 8 * reg + 2] = (uint8_t)size64;
		fx_put16(cm + 13328 + 8 * reg + 4, eff64);
	}
}

static void build_context_map(struct fx_trace *t, int ver)
{
	static const char *const n64[8] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"};
	static const char *const n32[8] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"};
	static const char *const n16[8] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"};
	static const char *const n8[8] = {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil"};
	static const char *const nh[4] = {"ah", "ch", "dh", "bh"};
	uint8_t *cm = calloc(1, 17424);
	fx_put16(cm + 0, 96);                                  /* DumpSize */
	fx_put16(cm + 2, 280);                                 /* ElemCount */
	for (int i = 0; i < 512; i++) {
		fx_put16(cm + 16 + 2 * i, (uint16_t)i);
		fx_put16(cm + 9232 + 8 * i, 0xffff);
		fx_put16(cm + 9232 + 8 * i + 4, (uint16_t)i);
		fx_put16(cm + 13328 + 8 * i, 0xffff);
		fx_put16(cm + 13328 + 8 * i + 4, (uint16_t)i);
	}
	for (uint16_t i = 0; i < 8; i++) {
		uint16_t r64 = RAX + i, r32 = EAX + i;
		set_reg(cm, r64, n64[i], ver, 0, 0, 8 * i, 8, 0, r64);
		set_reg(cm, r32, n32[i], ver, 8 * i, 4, 8 * i, 4, r32, r64);
		set_reg(cm, AX + i, n16[i], ver, 8 * i, 2, 8 * i, 2, r32, r64);
		/* spl, bpl, sil, dil exist in 64-bit code only */
		set_reg(cm, AL + i, n8[i], ver, 8 * i, i < 4 ? 1 : 0, 8 * i, 1, r32, r64);
		if (i < 4)
			set_reg(cm, AH + i, nh[i], ver, 8 * i + 1, 1, 8 * i + 1, 1, r32, r64);
	}
	set_reg(cm, FSBASE, "fsbase", ver, 64, 4, 64, 8, FSBASE, FSBASE);
	set_reg(cm, GSBASE, "gsbase", ver, 72, 4, 72, 8, GSBASE, GSBASE);
	free(t->data[UMT_FILE_CONTEXT_MAP]);
	t->data[UMT_FILE_CONTEXT_MAP] = cm;
	t->size[UMT_FILE_CONTEXT_MAP] = 17424;
}

static void build(struct fx_trace *t, int ver)
{
	fx_handmade(t);
	build_ins_table(t, ver);
	build_exec(t);
	build_context_map(t, ver);
	fx_sync(t);
}

static umt_trace *open_ok(struct fx_trace *t)
{
	umt_trace *tr = NULL;
	int rc = fx_open(t, &tr);
	if (rc != 0)
		print_error("open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	return tr;
}

/* Binds record @p id (= instruction id in the hand trace). */
static void bind(umt_trace *tr, uint64_t id, umt_ins_exec *x)
{
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, id, &r), 0);
	int rc = umt_rec_ins_exec(tr, &r, x);
	if (rc != 0)
		print_error("bind %llu: %s\n", (unsigned long long)id, umt_errmsg());
	assert_int_equal(rc, 0);
}

/* Asserts operand @p i's value at @p when: @p size bytes reading as @p want. */
static void expect_oper(const umt_ins_exec *x, unsigned i, int when, uint32_t size,
                         uint64_t want)
{
	umt_value v;
	int rc = umt_operand_value(x, i, when, &v);
	if (rc != 0)
		print_error("operand %u: %s\n", i, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(v.size, size);
	assert_int_equal(v.is_const, 0);
	assert_true(v.data >= x->lc && v.data + v.size <= x->lc + x->lc_size);
	assert_int_equal(umt_value_u64(&v), want);
}

static void expect_no_after(const umt_ins_exec *x, unsigned i)
{
	umt_value v;
	assert_int_equal(umt_operand_value(x, i, UMT_AFTER, &v), UMT_E_NO_VALUE);
}

static uint64_t address_of(const umt_ins_exec *x, unsigned i)
{
	uint64_t a = 0;
	int rc = umt_operand_address(x, i, &a);
	if (rc != 0)
		print_error("address %u: %s\n", i, umt_errmsg());
	assert_int_equal(rc, 0);
	return a;
}

/* ---- hand-assembled: explicit operands ------------------------------------------- */

static void test_hand_operands(void **state)
{
	(void)state;
	struct fx_trace t;
	build(&t, 1);
	umt_trace *tr = open_ok(&t);
	umt_ins_exec x;
	umt_value v;
	uint64_t a;

	/* mov rax, qword ptr gs:[rbx+rcx*4-0x10] */
	bind(tr, I_MOV_GS, &x);
	assert_int_equal(x.record_id, I_MOV_GS);
	assert_int_equal(x.ins_id, I_MOV_GS);
	assert_int_equal(x.lc_size, 56);
	assert_int_equal(x.lc_offset, h_rec_off[I_MOV_GS] + 14);
	assert_ptr_equal(x.lc, t.data[UMT_FILE_EXEC_VTABLE] + h_rec_off[I_MOV_GS] + 14);
	assert_int_equal(x.is_64bit, 1);
	assert_int_equal(umt_operand_kind(&x, 0), UMT_KIND_REGISTER);
	assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_MEMORY);
	expect_oper(&x, 0, UMT_BEFORE, 8, 0xaaaaaaaaaaaaaaaa);
	expect_oper(&x, 0, UMT_AFTER, 8, 0x1122334455667788);
	expect_oper(&x, 1, UMT_BEFORE, 8, 0x1122334455667788);
	expect_no_after(&x, 1);
	assert_int_equal(address_of(&x, 1), GS_BASE + 0x1070);
	assert_int_equal(umt_operand_address(&x, 0, &a), UMT_E_NO_VALUE);
	assert_int_equal(umt_operand_value(&x, 2, UMT_BEFORE, &v), UMT_E_RANGE);
	assert_int_equal(umt_operand_kind(&x, 2), UMT_E_RANGE);
	assert_int_equal(umt_operand_address(&x, 2, &a), UMT_E_RANGE);
	assert_int_equal(umt_operand_value(&x, 0, 2, &v), UMT_E_INVAL);
	assert_int_equal(umt_operand_value(&x, 0, UMT_BEFORE, NULL), UMT_E_INVAL);
	assert_int_equal(umt_operand_address(&x, 1, NULL), UMT_E_INVAL);
	assert_int_equal(umt_operand_kind(NULL, 0), UMT_E_INVAL);

	/* mov edx, ecx: 4-byte operands in 8-byte slots rdx and rcx */
	bind(tr, I_MOV_EDX, &x);
	assert_int_equal(umt_decoded_is_32in64(&x.dec), 1);
	expect_oper(&x, 0, UMT_BEFORE, 4, 0xffffffff);
	expect_oper(&x, 0, UMT_AFTER, 4, 0x12345678);
	expect_oper(&x, 1, UMT_BEFORE, 4, 0x12345678);
	expect_no_after(&x, 1);

	/* mov ah, al: ah at byte 1 of the rax slot */
	bind(tr, I_MOV_AH, &x);
	expect_oper(&x, 0, UMT_BEFORE, 1, 0x22);
	expect_oper(&x, 0, UMT_AFTER, 1, 0x33);
	expect_oper(&x, 1, UMT_BEFORE, 1, 0x33);
	assert_int_equal(umt_operand_value(&x, 0, UMT_AFTER, &v), 0);
	assert_ptr_equal(v.data, x.lc + 9);

	/* imul edx, ecx, -0x3: immediate through slot 0xfd */
	bind(tr, I_IMUL, &x);
	assert_int_equal(umt_operand_kind(&x, 2), UMT_KIND_IMMEDIATE);
	assert_int_equal(umt_operand_value(&x, 2, UMT_BEFORE, &v), 0);
	assert_int_equal(v.is_const, 1);
	assert_int_equal(v.size, 1);
	assert_int_equal(v.data[0], 0xfd);
	assert_int_equal(umt_value_u64(&v), 0xfd);
	assert_ptr_equal(v.data, (const uint8_t *)x.dec.ins + 72);
	expect_no_after(&x, 2);
	assert_int_equal(umt_operand_address(&x, 2, &a), UMT_E_NO_VALUE);
	expect_oper(&x, 0, UMT_AFTER, 4, 0xffffffd0);
	expect_oper(&x, 1, UMT_BEFORE, 4, 0x10);

	/* mov dword ptr [rax+0x8], 0x11223344: write-only memory, immediate via 0xfe */
	bind(tr, I_MOV_IMM, &x);
	assert_int_equal(umt_operand_kind(&x, 0), UMT_KIND_MEMORY);
	assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_IMMEDIATE);
	expect_oper(&x, 0, UMT_BEFORE, 4, 0);
	expect_oper(&x, 0, UMT_AFTER, 4, 0x11223344);
	assert_int_equal(address_of(&x, 0), 0x500008);
	assert_int_equal(umt_operand_value(&x, 1, UMT_BEFORE, &v), 0);
	assert_int_equal(v.is_const, 1);
	assert_int_equal(v.size, 4);
	assert_ptr_equal(v.data, (const uint8_t *)x.dec.ins + 80);
	assert_int_equal(umt_value_u64(&v), 0x11223344);

	/* push rbx: the explicit operand is the register */
	bind(tr, I_PUSH, &x);
	assert_int_equal(x.dec.ins->ExpCount, 1);
	assert_int_equal(umt_operand_kind(&x, 0), UMT_KIND_REGISTER);
	expect_oper(&x, 0, UMT_BEFORE, 8, 0xb0b0);
	expect_no_after(&x, 0);

	/* lea rdx, ptr [rax+rbx*2+0x100]: AGEN's value is the address */
	bind(tr, I_LEA, &x);
	assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_AGEN);
	expect_oper(&x, 1, UMT_BEFORE, 8, 0x1160);
	assert_int_equal(address_of(&x, 1), 0x1160);
	expect_oper(&x, 0, UMT_AFTER, 8, 0x1160);

	/* movsb: MEM0 [rdi] written, MEM1 [rsi] read, at unaligned LC offsets */
	bind(tr, I_MOVSB, &x);
	assert_int_equal(umt_operand_kind(&x, 0), UMT_KIND_MEMORY);
	assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_MEMORY);
	expect_oper(&x, 0, UMT_BEFORE, 1, 0);
	expect_oper(&x, 0, UMT_AFTER, 1, 0x41);
	expect_oper(&x, 1, UMT_BEFORE, 1, 0x41);
	expect_no_after(&x, 1);
	assert_int_equal(address_of(&x, 0), 0x700000);
	assert_int_equal(address_of(&x, 1), 0x600000);

	/* nop: no operands at all */
	bind(tr, I_NOP, &x);
	assert_int_equal(x.lc_size, 0);
	assert_int_equal(umt_operand_kind(&x, 0), UMT_E_RANGE);
	assert_int_equal(umt_operand_value(&x, 0, UMT_BEFORE, &v), UMT_E_RANGE);
	assert_int_equal(umt_operand_address(&x, 0, &a), UMT_E_RANGE);

	/* 32-bit mov eax, fs:[...]: the stored address is masked to AddrWidth 4 */
	bind(tr, I_MOV32, &x);
	assert_int_equal(x.is_64bit, 0);
	expect_oper(&x, 1, UMT_BEFORE, 4, 0x44332211);
	assert_int_equal(address_of(&x, 1), 0x7ffdf010);
	expect_oper(&x, 0, UMT_BEFORE, 4, 0xcccccccc);
	expect_oper(&x, 0, UMT_AFTER, 4, 0x44332211);

	/* pop rbx: write-only register operand */
	bind(tr, I_POP, &x);
	expect_oper(&x, 0, UMT_BEFORE, 8, 0xb0b0);
	expect_oper(&x, 0, UMT_AFTER, 8, 0xcafe);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- hand-assembled: memory phrases ----------------------------------------------- */

static void expect_phrase(umt_trace *tr, uint64_t id, int which, int16_t seg_reg, uint64_t seg,
                          int16_t base_reg, uint64_t base, int16_t index_reg, uint64_t index,
                          uint8_t scale, int64_t disp, uint64_t ea)
{
	umt_ins_exec x;
	umt_mem_phrase p;
	bind(tr, id, &x);
	int rc = umt_ins_exec_phrase(&x, which, &p);
	if (rc != 0)
		print_error("phrase of %llu: %s\n", (unsigned long long)id, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(p.seg_reg, seg_reg);
	assert_int_equal(p.seg, seg);
	assert_int_equal(p.base_reg, base_reg);
	assert_int_equal(p.base, base);
	assert_int_equal(p.index_reg, index_reg);
	assert_int_equal(p.index, index);
	assert_int_equal(p.scale, scale);
	assert_int_equal(p.disp, disp);
	assert_int_equal(p.ea, ea);
}

static void expect_no_phrase(umt_trace *tr, uint64_t id, int which)
{
	umt_ins_exec x;
	umt_mem_phrase p;
	bind(tr, id, &x);
	assert_int_equal(umt_ins_exec_phrase(&x, which, &p), UMT_E_NO_VALUE);
}

static void test_hand_phrases(void **state)
{
	(void)state;
	struct fx_trace t;
	build(&t, 1);
	umt_trace *tr = open_ok(&t);
	/* seg + base + index * scale + disp, displacement negative: the stored address */
	expect_phrase(tr, I_MOV_GS, 0, GSBASE, GS_BASE, RBX, 0x1000, RCX, 0x20, 4, -0x10,
	              GS_BASE + 0x1070);
	/* 32-bit code, 4-byte FS base (ERRATA 14): 0x7ffdf000 + 0x80000000 + 4 * 0x20000000
	 * + 0x10 = 0x17ffdf010 wraps modulo 2^32 to the stored address */
	expect_phrase(tr, I_MOV32, 0, FSBASE, 0x7ffdf000, EBX, 0x80000000, ECX, 0x20000000, 4,
	              0x10, 0x7ffdf010);
	/* AGEN: the phrase gives the computed value */
	expect_phrase(tr, I_LEA, 0, 0, 0, RAX, 0x1000, RBX, 0x30, 2, 0x100, 0x1160);
	/* base and displacement only; scale 0 */
	expect_phrase(tr, I_MOV_IMM, 0, 0, 0, RAX, 0x500000, 0, 0, 0, 8, 0x500008);
	/* MEM0 has rdi as base; MEM1 only a base, rsi */
	expect_phrase(tr, I_MOVSB, 0, 0, 0, RDI, 0x700000, 0, 0, 0, 0, 0x700000);
	expect_phrase(tr, I_MOVSB, 1, 0, 0, RSI, 0x600000, 0, 0, 0, 0, 0x600000);
	/* no phrase */
	expect_no_phrase(tr, I_MOV_GS, 1);
	expect_no_phrase(tr, I_MOV_EDX, 0);
	expect_no_phrase(tr, I_PUSH, 0);
	expect_no_phrase(tr, I_NOP, 0);
	expect_no_phrase(tr, I_NOP, 1);

	umt_ins_exec x;
	umt_mem_phrase p;
	bind(tr, I_MOV_GS, &x);
	assert_int_equal(umt_ins_exec_phrase(&x, 2, &p), UMT_E_INVAL);
	assert_int_equal(umt_ins_exec_phrase(&x, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_ins_exec_phrase(NULL, 0, &p), UMT_E_INVAL);

	/* an index slot with scale 0 contributes nothing */
	uint8_t *scale = t.data[UMT_FILE_INS] + 48 + N_INS * T_ROW + h_dec_fp[I_MOV_GS] + 65;
	*scale = 0;
	assert_int_equal(umt_ins_exec_phrase(&x, 0, &p), 0);
	assert_int_equal(p.index_reg, 0);
	assert_int_equal(p.index, 0);
	assert_int_equal(p.ea, GS_BASE + 0x1000 - 0x10);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- hand-assembled: every LC slot --------------------------------------------------- */

static void test_hand_slots(void **state)
{
	(void)state;
	struct fx_trace t;
	build(&t, 1);
	umt_trace *tr = open_ok(&t);
	for (int k = 0; k < N_INS; k++) {
		umt_ins_exec x;
		bind(tr, (uint64_t)k, &x);
		const struct ins_def *d = &defs[k];
		assert_int_equal(x.dec.ins->LCCount, d->lc_count);
		for (unsigned s = 0; s < d->lc_count; s++) {
			const struct slot_def *sd = &d->slot[s];
			umt_value v;
			uint64_t addr = 1234;
			assert_int_equal(umt_lc_slot_value(&x, s, &v, &addr), 0);
			int group = s < d->first_out ? UMT_SLOT_GROUP_BEFORE
			          : s < d->first_after ? UMT_SLOT_GROUP_BEFORE_WRITE_ONLY
			                               : UMT_SLOT_GROUP_AFTER;
			assert_int_equal(umt_decoded_slot_group(&x.dec, s), group);
			assert_int_equal(v.size, sd->vsize);
			uint16_t voff = (uint16_t)(sd->off + (sd->aw ? 8 : 0));
			assert_ptr_equal(v.data, x.lc + voff);
			/* the value and address written for this slot */
			uint64_t want_v = 0, want_a = 0;
			for (int j = 0; j < 8; j++) {
				const struct lc_def *l = &lcs[k][j];
				if (l->size && l->off == voff)
					want_v = l->value;
				if (l->size && sd->aw && l->off == sd->off)
					want_a = l->value;
			}
			if (k == I_MOVSB && s >= 5)
				want_v = movsb_tail[s - 5].value;
			if (sd->aw == 4)
				want_a &= 0xffffffff;
			assert_int_equal(umt_value_u64(&v), want_v);
			assert_int_equal(addr, want_a);
		}
		umt_value v;
		assert_int_equal(umt_lc_slot_value(&x, d->lc_count, &v, NULL), UMT_E_RANGE);
	}
	/* STACKPUSH (XED 2015 number) and STACKPOP (XED 2014 number): memory by AddrWidth */
	umt_ins_exec x;
	umt_value v;
	uint64_t a;
	bind(tr, I_PUSH, &x);
	assert_int_equal(umt_lc_slot_value(&x, 2, &v, &a), 0);
	assert_int_equal(a, 0x7ffefff8);
	assert_int_equal(umt_value_u64(&v), 0xb0b0);
	assert_int_equal(umt_decoded_slot_group(&x.dec, 2), UMT_SLOT_GROUP_AFTER);
	bind(tr, I_POP, &x);
	assert_int_equal(umt_lc_slot_value(&x, 1, &v, &a), 0);
	assert_int_equal(a, 0x7ffefff8);
	assert_int_equal(umt_value_u64(&v), 0xcafe);
	assert_int_equal(umt_decoded_slot_group(&x.dec, 1), UMT_SLOT_GROUP_BEFORE);
	assert_int_equal(umt_lc_slot_value(&x, 1, NULL, &a), UMT_E_INVAL);
	assert_int_equal(umt_lc_slot_value(NULL, 1, &v, &a), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- hand-assembled: registers in the LC ------------------------------------------- */

static void expect_reg(umt_trace *tr, const umt_ins_exec *x, const char *name, int when,
                       uint32_t size, uint64_t want)
{
	int reg = umt_reg_by_name(tr, name);
	assert_true(reg > 0);
	umt_value v;
	int rc = umt_lc_find_reg(tr, x, reg, when, &v);
	if (rc != 0)
		print_error("%s: %s\n", name, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(v.size, size);
	assert_int_equal(umt_value_u64(&v), want);
}

static void expect_no_reg(umt_trace *tr, const umt_ins_exec *x, const char *name, int when)
{
	int reg = umt_reg_by_name(tr, name);
	assert_true(reg > 0);
	umt_value v;
	assert_int_equal(umt_lc_find_reg(tr, x, reg, when, &v), UMT_E_NOT_FOUND);
}

static void find_regs(int ver)
{
	struct fx_trace t;
	build(&t, ver);
	umt_trace *tr = open_ok(&t);
	assert_int_equal(umt_ins_slot_name_kind(tr),
	                 ver ? UMT_SLOT_COMMON_REG_NAME : UMT_SLOT_LARGEST_ENCLOSING);
	umt_ins_exec x;

	/* rax before 0x1111111111112233, after 0x1111111111113333 */
	bind(tr, I_MOV_AH, &x);
	expect_reg(tr, &x, "rax", UMT_BEFORE, 8, 0x1111111111112233);
	expect_reg(tr, &x, "eax", UMT_BEFORE, 4, 0x11112233);
	expect_reg(tr, &x, "ax", UMT_BEFORE, 2, 0x2233);
	expect_reg(tr, &x, "al", UMT_BEFORE, 1, 0x33);
	expect_reg(tr, &x, "ah", UMT_BEFORE, 1, 0x22);
	expect_reg(tr, &x, "AH", UMT_AFTER, 1, 0x33);
	expect_reg(tr, &x, "eax", UMT_AFTER, 4, 0x11113333);
	expect_no_reg(tr, &x, "rbx", UMT_BEFORE);
	expect_no_reg(tr, &x, "bh", UMT_AFTER);

	/* edx in rdx, dh at byte 1 */
	bind(tr, I_MOV_EDX, &x);
	expect_reg(tr, &x, "edx", UMT_AFTER, 4, 0x12345678);
	expect_reg(tr, &x, "dl", UMT_AFTER, 1, 0x78);
	expect_reg(tr, &x, "dh", UMT_AFTER, 1, 0x56);
	expect_reg(tr, &x, "rdx", UMT_AFTER, 8, 0x12345678);
	expect_reg(tr, &x, "rdx", UMT_BEFORE, 8, UINT64_MAX); /* write-only group is "before" */
	expect_reg(tr, &x, "ecx", UMT_BEFORE, 4, 0x12345678);
	expect_reg(tr, &x, "ch", UMT_BEFORE, 1, 0x56);
	expect_no_reg(tr, &x, "ecx", UMT_AFTER);

	/* 32-bit record: the 32-bit map; al and ah inside eax slots */
	bind(tr, I_MOV32, &x);
	expect_reg(tr, &x, "eax", UMT_AFTER, 4, 0x44332211);
	expect_reg(tr, &x, "al", UMT_AFTER, 1, 0x11);
	expect_reg(tr, &x, "ah", UMT_AFTER, 1, 0x22);
	expect_reg(tr, &x, "ax", UMT_AFTER, 2, 0x2211);
	expect_reg(tr, &x, "bl", UMT_BEFORE, 1, 0x00);
	expect_reg(tr, &x, "bx", UMT_BEFORE, 2, 0x0000);
	expect_reg(tr, &x, "fsbase", UMT_BEFORE, 4, 0x7ffdf000);
	expect_no_reg(tr, &x, "rax", UMT_AFTER); /* larger than the slot */
	expect_no_reg(tr, &x, "gsbase", UMT_BEFORE);

	/* memory slots are not registers */
	bind(tr, I_PUSH, &x);
	expect_reg(tr, &x, "rsp", UMT_AFTER, 8, 0x7ffefff8);
	expect_reg(tr, &x, "esp", UMT_BEFORE, 4, 0x7fff0000);
	expect_reg(tr, &x, "spl", UMT_BEFORE, 1, 0x00);
	umt_value v;
	assert_int_equal(umt_lc_find_reg(tr, &x, STACKPUSH, UMT_AFTER, &v), UMT_E_NOT_FOUND);

	/* by common name and minimum size, the common name from the trace's own map */
	umt_reg_desc al;
	assert_int_equal(umt_context_map_reg(tr, umt_reg_by_name(tr, "al"), &al), 0);
	assert_int_equal(al.common, ver ? AX : RAX);
	bind(tr, I_MOV_AH, &x);
	assert_int_equal(umt_lc_find_common(&x, al.common, 1, UMT_BEFORE), 0);
	assert_int_equal(umt_lc_find_common(&x, al.common, 8, UMT_AFTER), 1);
	assert_int_equal(umt_lc_find_common(&x, al.common, 9, UMT_AFTER), UMT_E_NOT_FOUND);
	bind(tr, I_MOV_GS, &x);
	assert_int_equal(umt_lc_find_common(&x, al.common, 8, UMT_BEFORE), 4);
	assert_int_equal(umt_lc_find_common(&x, al.common, 8, UMT_AFTER), 5);
	assert_int_equal(umt_lc_find_common(&x, MEM0, 0, UMT_BEFORE), UMT_E_NOT_FOUND);
	assert_int_equal(umt_lc_find_common(&x, al.common, 8, 7), UMT_E_INVAL);

	/* misuse */
	assert_int_equal(umt_lc_find_reg(tr, &x, 280, UMT_BEFORE, &v), UMT_E_RANGE);
	assert_int_equal(umt_lc_find_reg(tr, &x, -1, UMT_BEFORE, &v), UMT_E_RANGE);
	assert_int_equal(umt_lc_find_reg(tr, &x, RAX, 5, &v), UMT_E_INVAL);
	assert_int_equal(umt_lc_find_reg(NULL, &x, RAX, UMT_BEFORE, &v), UMT_E_INVAL);
	assert_int_equal(umt_lc_find_reg(tr, &x, RAX, UMT_BEFORE, NULL), UMT_E_INVAL);
	bind(tr, I_NOP, &x);
	expect_no_reg(tr, &x, "rax", UMT_BEFORE);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_hand_find_reg_v1(void **state)
{
	(void)state;
	find_regs(1);
}

/* insRec version 0: lcSlot offset 2 and CommonName both say "largest enclosing" (ERRATA 23). */
static void test_hand_find_reg_v0(void **state)
{
	(void)state;
	find_regs(0);
}

/* ---- error paths --------------------------------------------------------------------- */

static void expect_bind_error(struct fx_trace *t, uint64_t id, int code, const char *file,
                              const char *what)
{
	umt_trace *tr = open_ok(t);
	umt_rec r;
	umt_ins_exec x;
	assert_int_equal(umt_exec_get(tr, id, &r), 0);
	int rc = umt_rec_ins_exec(tr, &r, &x);
	if (rc != code || !strstr(umt_errmsg(), file) || !strstr(umt_errmsg(), what))
		print_error("expected %d (%s, %s), got %d: %s\n", code, file, what, rc,
		            umt_errmsg());
	assert_int_equal(rc, code);
	assert_non_null(strstr(umt_errmsg(), file));
	assert_non_null(strstr(umt_errmsg(), what));
	umt_trace_close(tr);
}

static void test_errors(void **state)
{
	(void)state;
	struct fx_trace t;
	char want[96];

	/* InsID outside the instruction table */
	build(&t, 1);
	uint8_t *rec = t.data[UMT_FILE_EXEC_VTABLE] + h_rec_off[I_LEA];
	fx_put64(rec + 6, N_INS);
	snprintf(want, sizeof want, "record %d at offset 0x%llx:", I_LEA,
	         (unsigned long long)h_rec_off[I_LEA] + 6);
	expect_bind_error(&t, I_LEA, UMT_E_BOUNDS, "exec.vtable: ", want);
	fx_put64(rec + 6, UINT64_MAX); /* -1 */
	expect_bind_error(&t, I_LEA, UMT_E_BOUNDS, "exec.vtable: ", "InsID -1");

	/* LC shorter than LCSize: the nop record (no LC) claims to be a mov */
	fx_put64(rec + 6, I_LEA);
	fx_put64(t.data[UMT_FILE_EXEC_VTABLE] + h_rec_off[I_NOP] + 6, I_MOV_GS);
	snprintf(want, sizeof want, "record %d at offset 0x%llx:", I_NOP,
	         (unsigned long long)h_rec_off[I_NOP] + 14);
	expect_bind_error(&t, I_NOP, UMT_E_TRUNCATED, "exec.vtable: ", want);
	expect_bind_error(&t, I_NOP, UMT_E_TRUNCATED, "exec.vtable: ",
	                  "LCSize 56 of instruction 0");

	/* a bad decoded body: the message names the instruction */
	uint8_t *d = t.data[UMT_FILE_INS] + 48 + N_INS * T_ROW + h_dec_fp[I_LEA];
	d[62 + 1] = 0xfc; /* Mem0SegSlot */
	expect_bind_error(&t, I_LEA, UMT_E_BOUNDS, "ins.itable: ", "row 6 at");
	fx_free(&t);

	/* accesses are checked against the LC length */
	build(&t, 1);
	umt_trace *tr = open_ok(&t);
	umt_ins_exec x;
	umt_value v;
	uint64_t a;
	bind(tr, I_MOVSB, &x);
	x.lc_size = 40; /* a caller-made view shorter than its instruction needs */
	snprintf(want, sizeof want, "record %d at offset 0x%llx:", I_MOVSB,
	         (unsigned long long)h_rec_off[I_MOVSB] + 14 + 34 + 8);
	assert_int_equal(umt_operand_value(&x, 0, UMT_AFTER, &v), UMT_E_BOUNDS);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: "));
	assert_non_null(strstr(umt_errmsg(), want));
	assert_int_equal(umt_lc_slot_value(&x, 6, &v, &a), UMT_E_BOUNDS);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: "));
	assert_int_equal(umt_operand_value(&x, 0, UMT_BEFORE, &v), 0);
	assert_int_equal(umt_lc_find_reg(tr, &x, RDI, UMT_AFTER, &v), UMT_E_BOUNDS);
	assert_int_equal(umt_ins_exec_phrase(&x, 0, &(umt_mem_phrase){0}), 0);
	x.lc_size = 8;
	assert_int_equal(umt_ins_exec_phrase(&x, 0, &(umt_mem_phrase){0}), UMT_E_BOUNDS);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: "));

	/* not an instruction record; misuse */
	umt_rec r;
	memset(&r, 0, sizeof r);
	r.type = UMT_REC_THREAD_BEGIN;
	r.data = t.data[UMT_FILE_EXEC_VTABLE] + 16;
	r.size = 22;
	r.id = 0;
	r.offset = 16;
	assert_int_equal(umt_rec_ins_exec(tr, &r, &x), UMT_E_INVAL);
	assert_non_null(strstr(umt_errmsg(), "exec.vtable: record 0"));
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	assert_int_equal(umt_rec_ins_exec(NULL, &r, &x), UMT_E_INVAL);
	assert_int_equal(umt_rec_ins_exec(tr, NULL, &x), UMT_E_INVAL);
	assert_int_equal(umt_rec_ins_exec(tr, &r, NULL), UMT_E_INVAL);
	assert_int_equal(umt_value_u64(NULL), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- the writer-built standard trace ---------------------------------------------- */

static uint64_t lc64(uint64_t id, uint64_t at)
{
	uint64_t v = 0;
	for (int b = 7; b >= 0; b--)
		v = (v << 8) | std_lc_byte(id, at + (uint64_t)b);
	return v;
}

static void std_checks(umt_trace *tr)
{
	umt_rec r;
	umt_ins_exec x;
	umt_value v;
	umt_mem_phrase p;
	int seen[STD_INS] = {0};
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		assert_int_equal(umt_exec_get(tr, id, &r), 0);
		if (r.type != UMT_REC_INSTRUCTION) {
			assert_int_equal(umt_rec_ins_exec(tr, &r, &x), UMT_E_INVAL);
			continue;
		}
		assert_int_equal(umt_rec_ins_exec(tr, &r, &x), 0);
		assert_int_equal(x.ins_id, std_arg[id]);
		assert_int_equal(x.lc_size, std_ins_lc_size[x.ins_id]);
		assert_int_equal(x.is_64bit, 1);
		seen[x.ins_id]++;
		/* every slot's value, from the bytes the writer was given */
		for (unsigned s = 0; s < x.dec.ins->LCCount; s++) {
			uint64_t a;
			const umt_lc_slot *sl = &x.dec.slots[s];
			assert_int_equal(umt_lc_slot_value(&x, s, &v, &a), 0);
			uint64_t head = sl->AddrWidth ? 8 : 0;
			assert_int_equal(umt_value_u64(&v), lc64(id, sl->Offset + head));
			assert_int_equal(a, head ? lc64(id, sl->Offset) : 0);
		}
		switch (x.ins_id) {
		case 0: /* mov rax, qword ptr [rbx+rcx*4+0x10] */
			expect_oper(&x, 0, UMT_BEFORE, 8, lc64(id, 32));
			expect_oper(&x, 0, UMT_AFTER, 8, lc64(id, 40));
			expect_oper(&x, 1, UMT_BEFORE, 8, lc64(id, 24));
			expect_no_after(&x, 1);
			assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_MEMORY);
			assert_int_equal(address_of(&x, 1), lc64(id, 16));
			assert_int_equal(umt_ins_exec_phrase(&x, 0, &p), 0);
			assert_int_equal(p.base_reg, RBX);
			assert_int_equal(p.base, lc64(id, 0));
			assert_int_equal(p.index_reg, RCX);
			assert_int_equal(p.index, lc64(id, 8));
			assert_int_equal(p.scale, 4);
			assert_int_equal(p.disp, 0x10);
			assert_int_equal(p.seg_reg, 0);
			assert_int_equal(p.ea, lc64(id, 0) + lc64(id, 8) * 4 + 0x10);
			assert_int_equal(umt_ins_exec_phrase(&x, 1, &p), UMT_E_NO_VALUE);
			break;
		case 1: /* push rbp: STACKPUSH slot 2 */
			expect_oper(&x, 0, UMT_BEFORE, 8, lc64(id, 0));
			assert_int_equal(umt_operand_kind(&x, 0), UMT_KIND_REGISTER);
			assert_int_equal(umt_lc_slot_value(&x, 2, &v, &(uint64_t){0}), 0);
			assert_ptr_equal(v.data, x.lc + 24);
			break;
		case 2: /* lea rdx, [rax+8] */
			assert_int_equal(umt_operand_kind(&x, 1), UMT_KIND_AGEN);
			assert_int_equal(address_of(&x, 1), lc64(id, 8));
			assert_int_equal(umt_ins_exec_phrase(&x, 0, &p), 0);
			assert_int_equal(p.base, lc64(id, 0));
			assert_int_equal(p.ea, lc64(id, 0) + 8);
			expect_oper(&x, 0, UMT_AFTER, 8, lc64(id, 24));
			break;
		default: /* nops */
			assert_int_equal(x.lc_size, 0);
			assert_int_equal(umt_operand_value(&x, 0, UMT_BEFORE, &v), UMT_E_RANGE);
			break;
		}
	}
	for (int i = 0; i < STD_INS; i++)
		assert_true(seen[i] > 0);
}

static void test_std(void **state)
{
	(void)state;
	for (int flavour = UMT_FLAVOUR_2015; flavour <= UMT_FLAVOUR_2014; flavour++) {
		char *dir = fx_tmpdir();
		assert_int_equal(fx_write_standard(dir, flavour), 0);
		umt_trace *tr = NULL;
		assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
		std_checks(tr);
		umt_trace_close(tr);
		fx_rmtree(dir);
		free(dir);
	}
}

/* Registers in the standard trace, through the writer's default context map. */
static void test_std_find_reg(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr = NULL;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	umt_rec r;
	umt_ins_exec x;
	assert_int_equal(umt_exec_get(tr, 1, &r), 0); /* mov: rax slots 3 (before) and 4 (after) */
	assert_int_equal(umt_rec_ins_exec(tr, &r, &x), 0);
	expect_reg(tr, &x, "rax", UMT_AFTER, 8, lc64(1, 40));
	expect_reg(tr, &x, "eax", UMT_AFTER, 4, lc64(1, 40) & 0xffffffff);
	expect_reg(tr, &x, "al", UMT_BEFORE, 1, std_lc_byte(1, 32));
	expect_reg(tr, &x, "ah", UMT_BEFORE, 1, std_lc_byte(1, 33));
	expect_reg(tr, &x, "ecx", UMT_BEFORE, 4, lc64(1, 8) & 0xffffffff);
	expect_no_reg(tr, &x, "rcx", UMT_AFTER);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_operands),
		cmocka_unit_test(test_hand_phrases),
		cmocka_unit_test(test_hand_slots),
		cmocka_unit_test(test_hand_find_reg_v1),
		cmocka_unit_test(test_hand_find_reg_v0),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_std),
		cmocka_unit_test(test_std_find_reg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
