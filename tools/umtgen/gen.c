/*
 * umtgen's generator (used by tools/umtgen and bench/umtbench): writes a
 * realistic synthetic trace of any size with the library's writer,
 * deterministically for a seed.
 *
 * The trace holds T
 * interleaved threads; about 90% of the records are instruction records of K
 * distinct instructions (register, immediate, MEM0 load and store, push, pop,
 * lea, movsb, mov ah, syscall, nop shapes, sharing decoded bodies and
 * disassembly strings), the rest syscall entry/exit pairs (some skipped),
 * context changes, thread begins and ends and the application end. Operand
 * values are consistent within each record: a MEM0 address equals its
 * phrase's effective address, a push's address is rsp - 8. Memory use does
 * not depend on N; writes go out in the writer's 4 MiB chunks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"

/* ---- deterministic random numbers (xorshift64*) ----------------------------- */

static uint64_t rng_state;

static inline uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n). */
static inline uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

/* ---- XED 20150121 register numbers ------------------------------------------ */

enum { XED_RAX = 74, XED_R8 = 82, XED_EAX = 58, XED_R8D = 66, XED_AH = 106,
       XED_RIP = 111, XED_RFLAGS = 41, XED_STACKPUSH = 131, XED_STACKPOP = 132 };
enum { G_RAX, G_RCX, G_RDX, G_RBX, G_RSP, G_RBP, G_RSI, G_RDI, G_R8 };

static int16_t gpr64(int g) { return (int16_t)(g < 8 ? XED_RAX + g : XED_R8 + g - 8); }
static int16_t gpr32(int g) { return (int16_t)(g < 8 ? XED_EAX + g : XED_R8D + g - 8); }
static const char *const gpr_name64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi",
	"rdi", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const gpr_name32[16] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi",
	"edi", "r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};

/* ---- instruction shapes ----------------------------------------------------- */

enum shape { S_NOP, S_MOV_RR, S_ADD_RI, S_LOAD, S_STORE, S_PUSH, S_POP, S_LEA, S_MOVSB,
             S_MOV_AH, S_SYSCALL, S_COUNT };

/* Relative frequencies of the shapes among instructions. */
static const unsigned shape_weight[S_COUNT] = {3, 20, 15, 20, 10, 8, 8, 8, 2, 2, 1};

struct ins_info {
	uint8_t shape, dst, src, scale; /* registers are GPR indexes 0-15 */
	int32_t disp;
	int32_t imm;
	uint16_t lc_size;
};

/* A decoded body being built. */
struct body {
	umt_decoded_ins d;
	umt_lc_slot s[8];
	uint16_t off;
};

static void body_init(struct body *b, uint8_t flags, uint8_t eff, int16_t mnemonic)
{
	memset(b, 0, sizeof *b);
	b->d.Category = (int16_t)(mnemonic % 40 + 1);
	b->d.Mnemonic = mnemonic;
	b->d.Form = (int16_t)(mnemonic * 3);
	b->d.Flags = flags;
	b->d.EffOperSize = eff;
	b->d.EffAddrSize = 8;
	b->d.Mem0SegSlot = b->d.Mem0BaseSlot = b->d.Mem0IndexSlot = b->d.Mem1BaseSlot =
		UMT_SLOT_NA;
	for (int i = 0; i < 4; i++)
		b->d.ExpOper[i].BeforeSlot = b->d.ExpOper[i].AfterSlot = UMT_SLOT_NA;
}

/* The writer's default context map: slots' common names come from it (ERRATA 23). */
static umt_context_map cmap;

static uint8_t slot(struct body *b, int16_t reg, int16_t size, uint8_t aw)
{
	umt_lc_slot *s = &b->s[b->d.LCCount];
	s->RegName = reg;
	s->CommonRegName = reg > 0 && reg < UMT_CONTEXT_MAP_REGS ? cmap.CommonName[reg] : reg;
	s->ValueSize = size;
	s->Offset = b->off;
	s->AddrWidth = aw;
	b->off = (uint16_t)(b->off + size + (aw ? 8 : 0));
	return b->d.LCCount++;
}

static void oper(struct body *b, int16_t reg, int16_t size, uint8_t flags, uint8_t before,
                 uint8_t after, uint8_t off)
{
	umt_exp_oper *o = &b->d.ExpOper[b->d.ExpCount++];
	o->RegName = reg;
	o->Size = size;
	o->Flags = flags;
	o->BeforeSlot = before;
	o->AfterSlot = after;
	o->BeforeOffset = off;
	o->AfterOffset = after == UMT_SLOT_NA ? 0 : off;
}

/* Marks where the write-only-before and the after groups start. */
static void groups(struct body *b, uint8_t first_out, uint8_t first_after)
{
	b->d.FirstOutSlot = first_out;
	b->d.FirstAfterSlot = first_after;
}

#define R UMT_OPER_F_READ
#define W UMT_OPER_F_WRITE
#define NA UMT_SLOT_NA
#define MEM0 ((int16_t)UMT_REG_MEM0)
#define MEM1 ((int16_t)UMT_REG_MEM1)
#define AGEN ((int16_t)UMT_REG_AGEN)

/* Builds the decoded body and disassembly of instruction @p in. */
static void build_body(const struct ins_info *in, struct body *b, char *text, size_t size)
{
	int16_t d64 = gpr64(in->dst), s64 = gpr64(in->src);
	uint8_t a, c, m;
	switch (in->shape) {
	case S_NOP:
		body_init(b, 0, 4, 0x1f0);
		snprintf(text, size, "nop");
		break;
	case S_MOV_RR:
		body_init(b, 0, 8, 0x1b1);
		a = slot(b, s64, 8, 0);
		groups(b, 1, 2);
		c = slot(b, d64, 8, 0);
		m = slot(b, d64, 8, 0);
		oper(b, d64, 8, W, c, m, 0);
		oper(b, s64, 8, R, a, NA, 0);
		snprintf(text, size, "mov %s, %s", gpr_name64[in->dst], gpr_name64[in->src]);
		break;
	case S_ADD_RI: /* add r32, imm32: the slot is the 64-bit register */
		body_init(b, UMT_DEC_F_32IN64, 4, 0x7);
		a = slot(b, d64, 8, 0);
		groups(b, 1, 1);
		c = slot(b, d64, 8, 0);
		slot(b, XED_RFLAGS, 8, 0);
		oper(b, gpr32(in->dst), 4, R | W, a, c, 0);
		oper(b, 0, 4, R, UMT_SLOT_IMM0, NA, 0);
		b->d.ConstSlot[0] = in->imm;
		snprintf(text, size, "add %s, 0x%x", gpr_name32[in->dst], (unsigned)in->imm);
		break;
	case S_LOAD: /* mov r64, qword ptr [base + index * scale + disp] */
		body_init(b, UMT_DEC_F_READS_MEM, 8, 0x1b1);
		b->d.Mem0BaseSlot = slot(b, s64, 8, 0);
		b->d.Mem0IndexSlot = slot(b, gpr64(G_RCX), 8, 0);
		b->d.Mem0Scale = in->scale;
		a = slot(b, MEM0, 8, 8);
		groups(b, 3, 4);
		c = slot(b, d64, 8, 0);
		m = slot(b, d64, 8, 0);
		oper(b, d64, 8, W, c, m, 0);
		oper(b, MEM0, 8, R, a, NA, 8);
		b->d.ConstSlot[0] = in->disp;
		snprintf(text, size, "mov %s, qword ptr [%s+rcx*%u%+d]", gpr_name64[in->dst],
		         gpr_name64[in->src], in->scale, in->disp);
		break;
	case S_STORE: /* mov qword ptr [base + disp], r64 */
		body_init(b, UMT_DEC_F_WRITES_MEM, 8, 0x1b1);
		b->d.Mem0BaseSlot = slot(b, d64, 8, 0);
		a = slot(b, s64, 8, 0);
		groups(b, 2, 3);
		c = slot(b, MEM0, 8, 8);
		m = slot(b, MEM0, 8, 8);
		oper(b, MEM0, 8, W, c, m, 8);
		oper(b, s64, 8, R, a, NA, 0);
		b->d.ConstSlot[0] = in->disp;
		snprintf(text, size, "mov qword ptr [%s%+d], %s", gpr_name64[in->dst], in->disp,
		         gpr_name64[in->src]);
		break;
	case S_PUSH:
		body_init(b, UMT_DEC_F_WRITES_MEM, 8, 0x2a3);
		a = slot(b, s64, 8, 0);
		slot(b, gpr64(G_RSP), 8, 0);
		groups(b, 2, 2);
		slot(b, XED_STACKPUSH, 8, 8);
		slot(b, gpr64(G_RSP), 8, 0);
		oper(b, s64, 8, R, a, NA, 0);
		snprintf(text, size, "push %s", gpr_name64[in->src]);
		break;
	case S_POP:
		body_init(b, UMT_DEC_F_READS_MEM, 8, 0x28f);
		slot(b, gpr64(G_RSP), 8, 0);
		slot(b, XED_STACKPOP, 8, 8);
		groups(b, 2, 3);
		c = slot(b, d64, 8, 0);
		m = slot(b, d64, 8, 0);
		slot(b, gpr64(G_RSP), 8, 0);
		oper(b, d64, 8, W, c, m, 0);
		snprintf(text, size, "pop %s", gpr_name64[in->dst]);
		break;
	case S_LEA: /* lea r64, ptr [base + disp] */
		body_init(b, 0, 8, 0x17e);
		b->d.Mem0BaseSlot = slot(b, s64, 8, 0);
		a = slot(b, AGEN, 8, 0);
		groups(b, 2, 3);
		c = slot(b, d64, 8, 0);
		m = slot(b, d64, 8, 0);
		oper(b, d64, 8, W, c, m, 0);
		oper(b, AGEN, 8, R, a, NA, 0);
		b->d.ConstSlot[0] = in->disp;
		snprintf(text, size, "lea %s, ptr [%s%+d]", gpr_name64[in->dst], gpr_name64[in->src],
		         in->disp);
		break;
	case S_MOVSB: /* movsb byte ptr [rdi], byte ptr [rsi] */
		body_init(b, UMT_DEC_F_READS_MEM | UMT_DEC_F_WRITES_MEM, 4, 0x1c7);
		b->d.Mem1BaseSlot = slot(b, gpr64(G_RSI), 8, 0);
		b->d.Mem0BaseSlot = slot(b, gpr64(G_RDI), 8, 0);
		a = slot(b, MEM1, 1, 8);
		groups(b, 3, 4);
		c = slot(b, MEM0, 1, 8);
		m = slot(b, MEM0, 1, 8);
		slot(b, gpr64(G_RSI), 8, 0);
		slot(b, gpr64(G_RDI), 8, 0);
		oper(b, MEM0, 1, W, c, m, 8);
		oper(b, MEM1, 1, R, a, NA, 8);
		snprintf(text, size, "movsb byte ptr [rdi], byte ptr [rsi]");
		break;
	case S_MOV_AH: /* mov ah, imm8: ah at byte 1 of the rax slot */
		body_init(b, 0, 4, 0x1b1);
		groups(b, 0, 1);
		c = slot(b, gpr64(G_RAX), 8, 0);
		m = slot(b, gpr64(G_RAX), 8, 0);
		oper(b, XED_AH, 1, W, c, m, 1);
		oper(b, 0, 1, R, UMT_SLOT_IMM0, NA, 0);
		b->d.ConstSlot[0] = in->imm & 0xff;
		snprintf(text, size, "mov ah, 0x%x", (unsigned)(in->imm & 0xff));
		break;
	default: /* S_SYSCALL */
		body_init(b, 0, 4, 0x2f6);
		slot(b, gpr64(G_RAX), 8, 0);
		groups(b, 1, 1);
		slot(b, gpr64(G_RCX), 8, 0);
		slot(b, gpr64(11), 8, 0);
		snprintf(text, size, "syscall");
		break;
	}
	b->d.LCSize = b->off;
}

/* ---- the generator's state ------------------------------------------------------ */

#define DATA_SIZE (1u << 20)
#define STACK_SIZE (1u << 16)

struct thread_state {
	uint64_t r[16];
	uint64_t data;      /* base of its data area */
	uint64_t stack_top;
	uint64_t tib;
	uint32_t pc;        /* current instruction */
	int64_t syscall;    /* syscall in flight, -1 when none */
	int64_t sys_begin;
	int kernel_left;    /* records other threads run while this one is in a syscall */
	int live;
};

struct gen {
	umt_writer *w;
	uint64_t records, produced;
	uint32_t threads, ins_count;
	struct ins_info *ins;
	struct thread_state *th;
	int64_t next_syscall;
	uint64_t code_end[3];
	int quiet;
	double start;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int fail(const char *what)
{
	fprintf(stderr, "umtgen: %s: %s\n", what, umt_errmsg());
	return -1;
}

/* ---- instruction table ------------------------------------------------------------ */

static const uint64_t module_base[3] = {0x140000000ull, 0x7ff800000000ull, 0x7ffd00000000ull};
static const char *const module_name[3] = {"C:\\Program Files\\App\\app.exe",
	"C:\\Windows\\System32\\kernel32.dll", "C:\\Windows\\System32\\ntdll.dll"};

static uint8_t pick_shape(void)
{
	unsigned total = 0;
	for (int i = 0; i < S_COUNT; i++)
		total += shape_weight[i];
	unsigned x = rnd_below(total);
	for (uint8_t i = 0; i < S_COUNT; i++) {
		if (x < shape_weight[i])
			return i;
		x -= shape_weight[i];
	}
	return S_NOP;
}

/* A general register an instruction may use freely (not rsp, not rcx: the index). */
static uint8_t pick_gpr(void)
{
	static const uint8_t usable[] = {G_RAX, G_RDX, G_RBX, G_RBP, G_RSI, G_RDI, 8, 9, 10, 12};
	return usable[rnd_below(sizeof usable)];
}

/* Open-addressing dedup of bodies and strings by their instruction key. */
struct dedup {
	uint64_t *keys;
	int64_t *fp;
	uint32_t cap;
};

static int64_t *dedup_slot(struct dedup *h, uint64_t key, int *found)
{
	uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 40) & (h->cap - 1);
	while (h->keys[i] && h->keys[i] != key)
		i = (i + 1) & (h->cap - 1);
	*found = h->keys[i] == key;
	h->keys[i] = key;
	return &h->fp[2 * i];
}

static int write_instructions(struct gen *g)
{
	struct dedup h = {0};
	h.cap = 1;
	while (h.cap < 2 * g->ins_count)
		h.cap <<= 1;
	h.keys = calloc(h.cap, sizeof *h.keys);
	h.fp = calloc(2 * (size_t)h.cap, sizeof *h.fp);
	g->ins = calloc(g->ins_count, sizeof *g->ins);
	if (!h.keys || !h.fp || !g->ins)
		return fprintf(stderr, "umtgen: out of memory\n"), -1;
	static const int32_t disps[4] = {0, 8, 0x10, -0x20};
	uint64_t addr[3] = {module_base[0] + 0x1000, module_base[1] + 0x1000,
	                    module_base[2] + 0x1000};
	int rc = 0;
	for (uint32_t i = 0; rc == 0 && i < g->ins_count; i++) {
		struct ins_info *in = &g->ins[i];
		in->shape = pick_shape();
		in->dst = pick_gpr();
		in->src = pick_gpr();
		in->scale = (uint8_t)(1u << rnd_below(4));
		in->disp = disps[rnd_below(4)];
		in->imm = (int32_t)rnd_below(4) * 0x10 + 1;
		uint64_t key = 1 + (in->shape | (uint64_t)in->dst << 8 | (uint64_t)in->src << 16 |
		                    (uint64_t)in->scale << 24 | (uint64_t)(uint32_t)in->disp << 32) +
		               ((uint64_t)(uint32_t)in->imm << 56);
		struct body b;
		char text[96];
		build_body(in, &b, text, sizeof text);
		in->lc_size = b.d.LCSize;
		int found;
		int64_t *fp = dedup_slot(&h, key, &found);
		if (!found) {
			rc = umt_writer_add_decoded(g->w, &b.d, b.s, &fp[0]);
			if (rc == 0)
				rc = umt_writer_add_disasm(g->w, text, &fp[1]);
		}
		/* 60% in the application, 25% kernel32, 15% ntdll; syscalls in ntdll */
		unsigned x = rnd_below(100);
		int m = in->shape == S_SYSCALL ? 2 : x < 60 ? 0 : x < 85 ? 1 : 2;
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.Type = in->shape == S_SYSCALL ? UMT_INS_FAST_SYSCALL64
		         : in->shape == S_NOP   ? UMT_INS_NOP
		                                : UMT_INS_NORMAL;
		r.CSis64Bits = 1;
		r.CodeSize = (uint8_t)(1 + rnd_below(7));
		for (int k = 0; k < r.CodeSize; k++)
			r.CodeBytes[k] = (uint8_t)rnd();
		r.ModuleID = m;
		r.Address = (int64_t)addr[m];
		addr[m] += r.CodeSize;
		r.DecodedFP = fp[0];
		r.DisasmFP = fp[1];
		if (rc == 0)
			rc = umt_writer_add_ins(g->w, &r, NULL);
	}
	for (int m = 0; m < 3; m++)
		g->code_end[m] = addr[m];
	free(h.keys);
	free(h.fp);
	return rc < 0 ? fail("instructions") : 0;
}

/* ---- records ----------------------------------------------------------------------- */

static inline void put64(uint8_t *lc, size_t *n, uint64_t v)
{
	memcpy(lc + *n, &v, 8);
	*n += 8;
}

static inline void put8(uint8_t *lc, size_t *n, uint8_t v)
{
	lc[(*n)++] = v;
}

/* A data address for a thread: 8-aligned, leaving room for index and disp. */
static inline uint64_t data_addr(const struct thread_state *t)
{
	return t->data + 0x100 + ((uint64_t)rnd_below(DATA_SIZE - 0x1000) & ~7ull);
}

/* Fills the LC of one execution of @p in by thread @p t, updating its registers. */
static size_t build_lc(const struct ins_info *in, struct thread_state *t, uint8_t *lc)
{
	size_t n = 0;
	uint64_t *r = t->r, v, a;
	switch (in->shape) {
	case S_MOV_RR:
		put64(lc, &n, r[in->src]);
		put64(lc, &n, r[in->dst]);
		r[in->dst] = r[in->src];
		put64(lc, &n, r[in->dst]);
		break;
	case S_ADD_RI:
		put64(lc, &n, r[in->dst]);
		r[in->dst] = (uint32_t)(r[in->dst] + (uint32_t)in->imm);
		put64(lc, &n, r[in->dst]);
		put64(lc, &n, 0x202 | (r[in->dst] == 0 ? 0x40 : 0));
		break;
	case S_LOAD:
		r[in->src] = data_addr(t);
		r[G_RCX] = rnd_below(64);
		a = r[in->src] + r[G_RCX] * in->scale + (uint64_t)(int64_t)in->disp;
		v = rnd();
		put64(lc, &n, r[in->src]);
		put64(lc, &n, r[G_RCX]);
		put64(lc, &n, a);
		put64(lc, &n, v);
		put64(lc, &n, r[in->dst]);
		r[in->dst] = v;
		put64(lc, &n, v);
		break;
	case S_STORE:
		r[in->dst] = data_addr(t);
		a = r[in->dst] + (uint64_t)(int64_t)in->disp;
		put64(lc, &n, r[in->dst]);
		put64(lc, &n, r[in->src]);
		put64(lc, &n, a);
		put64(lc, &n, rnd());
		put64(lc, &n, a);
		put64(lc, &n, r[in->src]);
		break;
	case S_PUSH:
		if (r[G_RSP] < t->stack_top - STACK_SIZE + 0x100)
			r[G_RSP] = t->stack_top - 0x1000; /* a new frame: stay inside the stack */
		put64(lc, &n, r[in->src]);
		put64(lc, &n, r[G_RSP]);
		r[G_RSP] -= 8;
		put64(lc, &n, r[G_RSP]);
		put64(lc, &n, r[in->src]);
		put64(lc, &n, r[G_RSP]);
		break;
	case S_POP:
		if (r[G_RSP] > t->stack_top - 0x100)
			r[G_RSP] = t->stack_top - 0x1000;
		v = rnd() & 0xffffffff;
		put64(lc, &n, r[G_RSP]);
		put64(lc, &n, r[G_RSP]);
		put64(lc, &n, v);
		put64(lc, &n, r[in->dst]);
		r[in->dst] = v;
		put64(lc, &n, v);
		r[G_RSP] += 8;
		put64(lc, &n, r[G_RSP]);
		break;
	case S_LEA:
		a = r[in->src] + (uint64_t)(int64_t)in->disp;
		put64(lc, &n, r[in->src]);
		put64(lc, &n, a);
		put64(lc, &n, r[in->dst]);
		r[in->dst] = a;
		put64(lc, &n, a);
		break;
	case S_MOVSB:
		r[G_RSI] = data_addr(t);
		r[G_RDI] = data_addr(t);
		v = rnd() & 0xff;
		put64(lc, &n, r[G_RSI]);
		put64(lc, &n, r[G_RDI]);
		put64(lc, &n, r[G_RSI]);
		put8(lc, &n, (uint8_t)v);
		put64(lc, &n, r[G_RDI]);
		put8(lc, &n, (uint8_t)rnd());
		put64(lc, &n, r[G_RDI]);
		put8(lc, &n, (uint8_t)v);
		put64(lc, &n, ++r[G_RSI]);
		put64(lc, &n, ++r[G_RDI]);
		break;
	case S_MOV_AH:
		put64(lc, &n, r[G_RAX]);
		r[G_RAX] = (r[G_RAX] & ~0xff00ull) | (uint64_t)(in->imm & 0xff) << 8;
		put64(lc, &n, r[G_RAX]);
		break;
	case S_SYSCALL:
		r[G_RAX] = rnd_below(0x1a0);
		put64(lc, &n, r[G_RAX]);
		put64(lc, &n, r[G_RCX]);
		put64(lc, &n, 0x246);
		break;
	default:
		break;
	}
	return n;
}

static void fill_dump(const struct thread_state *t, uint64_t rip, uint8_t dump[512])
{
	memset(dump, 0, 512);
	memcpy(dump, t->r, sizeof t->r); /* GPR i at 8 * i (umt_context_map_default) */
	uint64_t rflags = 0x246;
	memcpy(dump + 128, &rflags, 8);
	memcpy(dump + 136, &rip, 8);
	static const uint16_t seg[6] = {0x33, 0x2b, 0x2b, 0x2b, 0x53, 0x2b};
	memcpy(dump + 144, seg, sizeof seg);
	memcpy(dump + 164, &t->tib, 8);
}

static int emit_context(struct gen *g, uint32_t tid, uint8_t type, int64_t syscall_id)
{
	struct thread_state *t = &g->th[tid];
	uint8_t dump[512], tib[64];
	fill_dump(t, module_base[2] + 0x1000, dump);
	umt_mem_ref mem = {t->tib, sizeof tib, tib};
	umt_context_desc ctx = {dump, sizeof dump, &mem, 0};
	if (type == UMT_REC_THREAD_BEGIN) { /* the TIB, at the thread's TIBAddr */
		memset(tib, 0, sizeof tib);
		memcpy(tib + 8, &t->stack_top, 8);
		ctx.mem_count = 1;
	}
	umt_exec_desc d = {.type = type, .flags = UMT_EXEC_F_64BIT, .thread_id = (int32_t)tid,
	                   .syscall_id = syscall_id, .context = &ctx};
	return umt_writer_add_exec(g->w, &d, NULL);
}

static int write_syscall_row(struct gen *g, struct thread_state *t, int64_t end, int completed)
{
	int64_t args[4] = {(int64_t)t->r[10], (int64_t)t->r[G_RDX], (int64_t)t->r[8],
	                   (int64_t)t->r[9]};
	umt_syscall_desc s = {
		.raw_id = (int16_t)(t->r[G_RAX] & 0x7fff), .uniform_id = (int16_t)(t->r[G_RAX] + 3),
		.convention = UMT_SYSCALL_CONV_FAST64, .completed = (uint8_t)completed,
		.begin_eid = t->sys_begin, .end_eid = end, .before_sp = (int64_t)t->r[G_RSP],
		.result = completed ? 0 : 0x103, .args = args, .arg_count = 4,
	};
	int rc = umt_writer_add_syscall(g->w, t->syscall, &s);
	t->syscall = -1;
	return rc;
}

/* One record of thread @p tid: an instruction, or a syscall or context event.
 * The 32 random bits of @p roll decide the rare events. */
static int step(struct gen *g, uint32_t tid, uint64_t roll)
{
	struct thread_state *t = &g->th[tid];
	if (t->syscall >= 0) { /* returning from the kernel */
		int64_t id = t->syscall;
		uint64_t rid = umt_writer_exec_count(g->w);
		if ((roll & 0x1f) < 2) { /* 1 in 16: the stack was unwound past the call */
			umt_exec_desc d = {.type = UMT_REC_SYSCALL_SKIPPED, .flags = UMT_EXEC_F_64BIT,
			                   .thread_id = (int32_t)tid, .syscall_id = id};
			return umt_writer_add_exec(g->w, &d, NULL) < 0 ||
			               write_syscall_row(g, t, (int64_t)rid, 0) < 0 ? -1 : 0;
		}
		t->r[G_RAX] = 0;
		return emit_context(g, tid, UMT_REC_SYSCALL_EXIT, id) < 0 ||
		               write_syscall_row(g, t, (int64_t)rid, 1) < 0 ? -1 : 0;
	}
	if (((roll >> 8) & 0x3fff) == 0) /* 1 in 16384: APC, exception, callback or unknown */
		return emit_context(g, tid, (uint8_t)(UMT_REC_CTX_APC + ((roll >> 22) & 3)), 0);
	const struct ins_info *in = &g->ins[t->pc];
	uint8_t lc[128];
	umt_exec_desc d = {.type = UMT_REC_INSTRUCTION, .flags = UMT_EXEC_F_64BIT,
	                   .thread_id = (int32_t)tid, .ins_id = t->pc, .lc = lc};
	d.lc_size = build_lc(in, t, lc);
	int rc = umt_writer_add_exec(g->w, &d, NULL);
	/* mostly straight-line code, with a branch now and then */
	if (((roll >> 24) & 0xf) == 0) /* 1 in 16: a branch */
		t->pc = rnd_below(g->ins_count);
	else if (++t->pc == g->ins_count)
		t->pc = 0;
	if (rc == 0 && in->shape == S_SYSCALL) {
		t->syscall = g->next_syscall++;
		t->sys_begin = (int64_t)umt_writer_exec_count(g->w);
		t->kernel_left = 1 + (int)rnd_below(8);
		rc = emit_context(g, tid, UMT_REC_SYSCALL_ENTRY, t->syscall);
	}
	return rc;
}

/* The thread to run next: a random one (from the low bits of @p roll),
 * skipping those in the kernel for a while. */
static uint32_t pick_thread(struct gen *g, uint64_t roll)
{
	uint32_t tid = (uint32_t)(((roll & 0xffffffff) * g->threads) >> 32);
	struct thread_state *t = &g->th[tid];
	if (t->syscall >= 0 && t->kernel_left > 0 && g->threads > 1) {
		t->kernel_left--;
		tid = (tid + 1) % g->threads;
		if (g->th[tid].syscall >= 0 && g->th[tid].kernel_left > 0)
			g->th[tid].kernel_left--;
	}
	return tid;
}

static void progress(struct gen *g, int final)
{
	if (g->quiet || !isatty(2))
		return;
	double dt = now() - g->start;
	uint64_t n = umt_writer_exec_count(g->w);
	fprintf(stderr, "\rumtgen: %llu / %llu records (%.0f%%), %.1f M records/s%s",
	        (unsigned long long)n, (unsigned long long)g->records,
	        100.0 * (double)n / (double)(g->records ? g->records : 1),
	        dt > 0 ? (double)n / dt / 1e6 : 0.0, final ? "\n" : "");
}

static int write_records(struct gen *g)
{
	int rc = 0;
	for (uint32_t tid = 0; rc == 0 && tid < g->threads; tid++)
		rc = emit_context(g, tid, UMT_REC_THREAD_BEGIN, 0);
	/* the last records: thread ends for threads 1.., then the application end */
	uint64_t body_end = g->records > g->threads ? g->records - g->threads : 0;
	/* a syscall takes two records: stop starting them near the end */
	for (uint64_t steps = 1; rc == 0 && umt_writer_exec_count(g->w) + 2 < body_end; steps++) {
		uint64_t roll = rnd();
		/* the low half picks the thread, the high half the rare events */
		rc = step(g, pick_thread(g, roll), roll >> 32);
		if ((steps & 0xfffff) == 0)
			progress(g, 0);
	}
	int64_t nop = -1;
	for (uint32_t i = 0; i < g->ins_count && nop < 0; i++)
		if (g->ins[i].shape == S_NOP)
			nop = i;
	while (rc == 0 && umt_writer_exec_count(g->w) < body_end) { /* pad with nops */
		umt_exec_desc d = {.type = UMT_REC_INSTRUCTION, .flags = UMT_EXEC_F_64BIT,
		                   .thread_id = 0, .ins_id = nop};
		if (nop < 0) { /* no nop among the instructions: a context change will do */
			rc = emit_context(g, 0, UMT_REC_CTX_UNKNOWN, 0);
			continue;
		}
		rc = umt_writer_add_exec(g->w, &d, NULL);
	}
	for (uint32_t tid = 0; rc == 0 && tid < g->threads; tid++)
		if (g->th[tid].syscall >= 0) /* still in the kernel when the trace ends */
			rc = write_syscall_row(g, &g->th[tid], -1, 0);
	for (uint32_t tid = 1; rc == 0 && tid < g->threads; tid++) {
		umt_exec_desc d = {.type = UMT_REC_THREAD_END, .flags = UMT_EXEC_F_64BIT,
		                   .thread_id = (int32_t)tid};
		rc = umt_writer_add_exec(g->w, &d, NULL);
	}
	umt_exec_desc end = {.type = UMT_REC_APP_END, .flags = UMT_EXEC_F_64BIT, .thread_id = 0};
	if (rc == 0)
		rc = umt_writer_add_exec(g->w, &end, NULL);
	progress(g, 1);
	return rc < 0 ? fail("records") : 0;
}

/* ---- tables ------------------------------------------------------------------------ */

static int cmp_range(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int write_threads(struct gen *g)
{
	int rc = 0;
	for (uint32_t tid = 0; rc == 0 && tid < g->threads; tid++) {
		struct thread_state *t = &g->th[tid];
		t->tib = 0x7fffffde000ull - 0x2000ull * tid;
		t->stack_top = 0x10000000ull + (uint64_t)tid * 0x100000;
		t->data = 0x200000000ull + (uint64_t)tid * 0x1000000;
		for (int i = 0; i < 16; i++)
			t->r[i] = rnd() & 0xffff;
		t->r[G_RSP] = t->stack_top - 0x1000;
		t->pc = rnd_below(g->ins_count);
		t->syscall = -1;
		rc = umt_writer_add_thread(g->w, 0x1000 + 4 * (int32_t)tid, (int64_t)t->tib, NULL);
	}
	return rc < 0 ? fail("threads") : 0;
}

/* Address ranges and modules, once the code extents are known. */
static int write_layout(struct gen *g)
{
	int rc = 0;
	/* ranges: code, stacks, data, TIBs; sorted and merged (page granularity) */
	size_t n = 0, cap = 3 + 3 * (size_t)g->threads;
	int64_t (*r)[2] = calloc(cap, sizeof *r);
	if (r == NULL)
		return fprintf(stderr, "umtgen: out of memory\n"), -1;
	for (int m = 0; m < 3; m++) {
		r[n][0] = (int64_t)(module_base[m] + 0x1000);
		r[n++][1] = (int64_t)((g->code_end[m] | 0xfff));
	}
	for (uint32_t tid = 0; tid < g->threads; tid++) {
		const struct thread_state *t = &g->th[tid];
		r[n][0] = (int64_t)(t->stack_top - STACK_SIZE);
		r[n++][1] = (int64_t)t->stack_top - 1;
		r[n][0] = (int64_t)t->data;
		r[n++][1] = (int64_t)(t->data + DATA_SIZE - 1);
		r[n][0] = (int64_t)t->tib;
		r[n++][1] = (int64_t)t->tib + 0xfff;
	}
	qsort(r, n, sizeof *r, cmp_range);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && r[i][0] <= r[k - 1][1] + 1) {
			if (r[i][1] > r[k - 1][1])
				r[k - 1][1] = r[i][1];
		} else {
			r[k][0] = r[i][0];
			r[k++][1] = r[i][1];
		}
	}
	for (size_t i = 0; rc == 0 && i < k; i++)
		rc = umt_writer_add_address_range(g->w, r[i][0], r[i][1]);
	free(r);
	for (int m = 0; rc == 0 && m < 3; m++) {
		umt_module_desc d = {
			.load_eid = 0, .unload_eid = -1, .start_addr = (int64_t)module_base[m],
			.end_addr = (int64_t)(module_base[m] + 0x3fffffff), .win_name = module_name[m],
			.device_name = module_name[m], .version_info = {6, 1, 7601, (uint16_t)m},
		};
		rc = umt_writer_add_module(g->w, &d, NULL);
	}
	return rc < 0 ? fail("layout") : 0;
}

/* ---- entry point ------------------------------------------------------------ */

void umtgen_params_init(struct umtgen_params *p)
{
	memset(p, 0, sizeof *p);
	p->records = 1000000;
	p->threads = 4;
	p->instructions = 4096;
	p->seed = 1;
	p->flavour = UMT_FLAVOUR_2015;
}

int umtgen_write(const char *dir, const struct umtgen_params *p)
{
	struct gen g = {.records = p->records, .threads = p->threads,
	                .ins_count = p->instructions, .quiet = p->quiet};
	if (p->records < 2 * (uint64_t)p->threads || p->threads < 1 || p->instructions < 16) {
		fprintf(stderr, "umtgen: bad parameters\n");
		return -1;
	}
	rng_state = p->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	if (rng_state == 0)
		rng_state = 1;
	g.th = calloc(g.threads, sizeof *g.th);
	if (g.th == NULL)
		return fprintf(stderr, "umtgen: out of memory\n"), -1;
	umt_writer_options o;
	umt_writer_options_init(&o, p->flavour);
	umt_context_map_default(&cmap, o.ins_record_version, o.xml.xed_version);
	int rc = umt_writer_open(dir, &o, &g.w) < 0 ? fail(dir) : 0;
	g.start = now();
	if (rc == 0 && (write_threads(&g) < 0 || write_instructions(&g) < 0 ||
	                write_layout(&g) < 0 || write_records(&g) < 0)) {
		umt_writer_abort(g.w);
		rc = -1;
	} else if (rc == 0 && umt_writer_finish(g.w) < 0) {
		rc = fail("finish");
	}
	free(g.ins);
	free(g.th);
	return rc;
}
