/*
 * umtgen: statements, the small instruction sequences function bodies are
 * made of. Each keeps the program's invariants: memory operands address
 * the thread's slice (rbx), the frame (rbp), the shared globals or the TEB;
 * values that index memory are masked first; loops count down a local.
 */
#include "machine.h"
#include "progbuild.h"

static const uint8_t scratch64[] = {G_AX, G_CX, G_DX, G_8, G_9, G_10, G_11};
static const uint8_t scratch32[] = {G_AX, G_CX, G_DX};

static uint8_t scratch(struct pctx *c)
{
	return c->m64 ? scratch64[pc_below(c, sizeof scratch64)] : scratch32[pc_below(c, 3)];
}

/* An operand size: 32 and 64 bits most often. */
static uint8_t pick_size(struct pctx *c)
{
	static const uint8_t s64[8] = {1, 2, 4, 4, 4, 8, 8, 8}, s32[8] = {1, 2, 4, 4, 4, 4, 4, 4};
	return (c->m64 ? s64 : s32)[pc_below(c, 8)];
}

/* A register operand of @p size (ah, ch, dh now and then for bytes). */
static struct opnd sreg(struct pctx *c, uint8_t size, int allow_hi)
{
	if (size == 1 && allow_hi && pc_below(c, 4) == 0)
		return rh_((uint8_t)pc_below(c, 3)); /* never bh: rbx holds the slice */
	uint8_t r = scratch(c);
	return r_(r, size);
}

static int is_hi(const struct opnd *o)
{
	return o->kind == O_REG && o->hi;
}

/* ah..dh cannot meet a REX prefix: the other operand must be al..dl/ah..dh. */
static struct opnd partner(struct pctx *c, const struct opnd *a, uint8_t size)
{
	if (is_hi(a))
		return pc_below(c, 2) ? rh_((uint8_t)pc_below(c, 3)) : r_((uint8_t)pc_below(c, 3), 1);
	return sreg(c, size, !c->m64 || a->reg < 4);
}

static int64_t imm_for(struct pctx *c, uint8_t size)
{
	switch (pc_below(c, 4)) {
	case 0: return (int64_t)pc_below(c, 16);
	case 1: return size == 1 ? (int8_t)pc_rand(c) : (int64_t)pc_below(c, 128) - 64;
	case 2: return size >= 4 ? (int32_t)pc_rand(c) : size == 2 ? (int16_t)pc_rand(c)
	                                                              : (int8_t)pc_rand(c);
	default: return 1;
	}
}

/* One register instruction. */
static void alu_one(struct pctx *c)
{
	uint8_t size = pick_size(c);
	struct opnd a = sreg(c, size, 1), b = partner(c, &a, size);
	switch (pc_below(c, 12)) {
	case 0: case 1: case 2: case 3: { /* add or adc sbb and sub xor cmp, register or imm */
		uint8_t op = (uint8_t)pc_below(c, 8);
		E2(c, op, a, pc_below(c, 2) ? b : i_(size, imm_for(c, size)));
		break;
	}
	case 4: E2(c, OP_TEST, a, pc_below(c, 2) ? b : i_(size, imm_for(c, size))); break;
	case 5: E1(c, pc_below(c, 2) ? OP_INC : OP_DEC, a); break;
	case 6: /* shifts by less than the width, or by cl */
		if (pc_below(c, 4) == 0 && !is_hi(&a) && !(a.reg == G_CX))
			E2(c, pc_below(c, 2) ? OP_SHL : OP_SHR, a, r_(G_CX, 1));
		else
		{
			int64_t by = 1 + pc_below(c, 8u * size - 1); /* drawn first, as gcc did */
			E2(c, pc_below(c, 2) ? OP_SHL : OP_SHR, a, i_(1, by));
		}
		break;
	case 7: /* imul r, r/m or r, r/m, imm: 16 bits and up */
		if (size == 1)
			size = 4;
		a = sreg(c, size, 0);
		b = sreg(c, size, 0);
		if (pc_below(c, 2))
			E2(c, OP_IMUL, a, b);
		else
			E3(c, OP_IMUL, a, b, i_(size, imm_for(c, size == 8 ? 4 : size)));
		break;
	case 8: /* movzx, movsx */
		if (size == 1)
			size = 4;
		a = sreg(c, size, 0);
		b = sreg(c, (uint8_t)(size == 2 ? 1 : 1 + pc_below(c, 2)), c->m64 ? 0 : 1);
		if (is_hi(&b) && size == 8)
			b = r_(G_AX, 1);
		E2(c, pc_below(c, 2) ? OP_MOVZX : OP_MOVSX, a, b);
		break;
	case 9: /* lea */
		a = sreg(c, c->w, 0);
		{ /* drawn last to first, as gcc evaluated the arguments (E2 says why) */
			int64_t disp = imm_for(c, 1);
			uint8_t scale = (uint8_t)(1u << pc_below(c, 4)), index = scratch(c);
			E2(c, OP_LEA, a, m_(c->w, scratch(c), index, scale, disp));
		}
		break;
	case 10: /* xchg two registers */
		if (!(a.kind == b.kind && a.reg == b.reg && a.hi == b.hi))
			E2(c, OP_XCHG, a, b);
		break;
	default: /* mov register or immediate */
		E2(c, OP_MOV, a, pc_below(c, 2) ? b : i_(size, imm_for(c, size)));
		break;
	}
}

void st_alu(struct pctx *c)
{
	int n = 1 + (int)pc_below(c, 3);
	for (int i = 0; i < n; i++)
		alu_one(c);
}

/* Locals 0-2: statements' scratch (3-5 count loops, 6-7 hold the arguments). */
void st_local(struct pctx *c)
{
	int64_t off = -local_off(c, (int)pc_below(c, 3));
	uint8_t size = (uint8_t)(pc_below(c, 2) ? c->w : 4);
	struct opnd v = M(size, G_BP, off), r = sreg(c, size, 0);
	switch (pc_below(c, 6)) {
	case 0: E2(c, OP_MOV, v, r); break;
	case 1: E2(c, OP_MOV, r, v); break;
	case 2: { /* the operand drawn first, then the operation, as gcc did */
		struct opnd src = pc_below(c, 2) ? r : i_(size, imm_for(c, size));
		E2(c, pc_below(c, 2) ? OP_ADD : OP_XOR, v, src);
		break;
	}
	case 3: E1(c, pc_below(c, 2) ? OP_INC : OP_DEC, M(4, G_BP, off)); break;
	case 4: E2(c, OP_MOVZX, r_(scratch(c), 4), M(1, G_BP, off)); break;
	default: E2(c, OP_CMP, v, i_(size, imm_for(c, size))); break;
	}
}

/* [rbx + rcx * 8 + array] with rcx masked to the array's entries. */
void st_heap(struct pctx *c)
{
	uint64_t half = c->slice_size / 2, entries = (half - SL_ARRAY - 0x100) / 8, mask = 1;
	while (mask * 2 <= entries)
		mask *= 2;
	mask--;
	uint8_t w = c->w, src = scratch(c);
	if (src != G_CX)
		E2(c, OP_MOV, r_(G_CX, 4), r_(src, 4));
	E2(c, OP_AND, r_(G_CX, 4), i_(4, (int64_t)mask));
	uint8_t size = (uint8_t)(pc_below(c, 3) ? w : 1u << pc_below(c, 3));
	struct opnd m = m_(size, G_BX, G_CX, w, SL_ARRAY + (int64_t)pc_below(c, 8) * 8);
	uint8_t r = scratch(c);
	while (r == G_CX)
		r = scratch(c);
	switch (pc_below(c, 7)) {
	case 0: case 1: E2(c, OP_MOV, r_(r, size), m); break;
	case 2: E2(c, OP_MOV, m, r_(r, size)); break;
	case 3: E2(c, pc_below(c, 2) ? OP_ADD : OP_SUB, m, r_(r, size)); break;
	case 4: E1(c, OP_INC, m); break;
	case 5:
		m.size = (uint8_t)(1 + pc_below(c, 2));
		E2(c, pc_below(c, 2) ? OP_MOVZX : OP_MOVSX, r_(r, 4), m);
		break;
	default: E2(c, OP_XCHG, m, r_(r, size)); break;
	}
}

/* The shared pool of globals: RIP-relative in 64-bit code, absolute in 32-bit. */
void st_global(struct pctx *c)
{
	uint32_t off = 8 * pc_below(c, 64);
	uint8_t size = (uint8_t)(pc_below(c, 2) ? c->w : 4);
	struct opnd g = G_at(c, size, c->g_pool, off);
	uint8_t r = scratch(c);
	switch (pc_below(c, 5)) {
	case 0: case 1: E2(c, OP_MOV, r_(r, size), g); break;
	case 2: E2(c, OP_ADD, g, r_(r, size)); break;
	case 3: E1(c, OP_INC, g); break;
	default: E2(c, OP_LEA, R(c, r), G_at(c, c->w, c->g_pool, off)); break;
	}
}

void st_stack(struct pctx *c)
{
	uint8_t a = scratch(c), b = scratch(c);
	E1(c, OP_PUSH, R(c, a));
	E1(c, OP_PUSH, pc_below(c, 2) ? i_(c->w, imm_for(c, 1)) : M(c->w, G_BX, SL_VARS));
	E1(c, OP_POP, R(c, b));
	E1(c, OP_POP, R(c, scratch(c)));
}

/* TEB fields: Self, the thread ID, the stack limit. */
void st_teb(struct pctx *c)
{
	static const int16_t f64[3] = {0x30, 0x48, 0x10}, f32[3] = {0x18, 0x24, 0x08};
	int k = (int)pc_below(c, 3);
	E2(c, OP_MOV, R(c, scratch(c)),
	   mseg_(c->w, c->m64 ? SEG_GS : SEG_FS, c->m64 ? f64[k] : f32[k]));
}

/* rep movsb from the slice's buffer area, or rep stosb into it. */
void st_rep(struct pctx *c, int stos, uint16_t count)
{
	int64_t half = (int64_t)(c->slice_size / 2);
	E2(c, OP_LEA, R(c, G_DI), M(c->w, G_BX, half + 0x4000 + (int64_t)pc_below(c, 16) * 64));
	if (stos)
		E2(c, OP_MOV, r_(G_AX, 1), i_(1, (int8_t)pc_rand(c)));
	else
		E2(c, OP_LEA, R(c, G_SI), M(c->w, G_BX, half + (int64_t)pc_below(c, 16) * 8));
	E2(c, OP_MOV, r_(G_CX, 4), i_(4, count));
	struct insn in = ins0(stos ? OP_STOSB : OP_MOVSB);
	in.pfx = P_REP;
	in.o[0].val = count;
	Esym(c, in, 0);
}

/* SSE and AVX moves between the slice's buffers and xmm/ymm registers. */
void st_vector(struct pctx *c)
{
	if (!c->vectors) {
		st_alu(c);
		return;
	}
	int64_t half = (int64_t)(c->slice_size / 2);
	uint8_t x0 = (uint8_t)(V_0 + pc_below(c, 4)), x1 = (uint8_t)(V_0 + 4 + pc_below(c, 2));
	E2(c, OP_MOVDQU, r_(x0, 16), M(16, G_BX, half + (int64_t)pc_below(c, 64)));
	E2(c, OP_MOVAPS, r_(x1, 16), r_(x0, 16));
	E2(c, OP_MOVDQU, M(16, G_BX, half + 0x6000 + (int64_t)pc_below(c, 64) * 16), r_(x1, 16));
	if (pc_below(c, 2)) {
		uint8_t y = (uint8_t)(V_0 + 2 + pc_below(c, 6));
		E2(c, OP_VMOVDQU, r_(y, 32), M(32, G_BX, half + 0x100 + (int64_t)pc_below(c, 32)));
		E2(c, OP_VMOVDQU, M(32, G_BX, half + 0x7000 + (int64_t)pc_below(c, 32) * 32), r_(y, 32));
	}
}

/* A lock-free increment (lock cmpxchg loop) or a spin lock (xchg). */
void st_lock(struct pctx *c, int spin)
{
	uint8_t w = c->w;
	uint32_t again = pb_label(c->p);
	if (!spin) {
		E2(c, OP_MOV, R(c, G_AX), G(c, w, c->g_counter));
		pb_bind(c->p, again);
		E2(c, OP_LEA, R(c, G_DX), M(w, G_AX, 1));
		struct insn in = ins2(OP_CMPXCHG, G(c, w, c->g_counter), R(c, G_DX));
		in.pfx = P_LOCK;
		Esym(c, in, 0);
		Ejcc(c, CC_NZ, again, 1);
		return;
	}
	pb_bind(c->p, again);
	E2(c, OP_MOV, r_(G_AX, 4), i_(4, 1));
	E2(c, OP_XCHG, G(c, 4, c->g_lock), r_(G_AX, 4));
	E2(c, OP_TEST, r_(G_AX, 4), r_(G_AX, 4));
	Ejcc(c, CC_NZ, again, 1);
	E1(c, OP_INC, G_at(c, w, c->g_pool, 8));
	E2(c, OP_MOV, G(c, 4, c->g_lock), i_(4, 0));
}

/* Rewrites the thread's JIT code (a new immediate each time) and calls it. */
void st_jit(struct pctx *c)
{
	uint32_t skip = pb_label(c->p);
	E2(c, OP_MOV, R(c, G_DI), M(c->w, G_BX, SL_JIT_PTR));
	E2(c, OP_TEST, R(c, G_DI), R(c, G_DI));
	Ejcc(c, CC_Z, skip, 0);
	E2(c, OP_MOV, R(c, G_AX), M(c->w, G_BX, SL_JIT_PAT));
	E2(c, OP_ADD, R(c, G_AX), i_(c->w, 0x100));
	E2(c, OP_MOV, M(c->w, G_BX, SL_JIT_PAT), R(c, G_AX));
	E2(c, OP_MOV, M(c->w, G_DI, 0), R(c, G_AX));
	if (!c->m64) {
		E2(c, OP_MOV, R(c, G_AX), M(4, G_BX, SL_JIT_PAT + 4));
		E2(c, OP_MOV, M(4, G_DI, 4), R(c, G_AX));
	}
	E2(c, OP_MOV, r_(G_CX, 4), i_(4, 1 + pc_below(c, 100)));
	E1(c, OP_CALL, R(c, G_DI));
	E2(c, OP_MOV, M(4, G_BP, -local_off(c, 0)), r_(G_AX, 4));
	pb_bind(c->p, skip);
}

/* ReadFile into the slice's buffer area, then a use of the data read. */
void st_read(struct pctx *c, uint32_t length)
{
	int64_t half = (int64_t)(c->slice_size / 2);
	E2(c, OP_LEA, R(c, G_AX), M(c->w, G_BX, half));
	set_arg(c, 1, i_(c->w, length));
	set_arg(c, 0, R(c, G_AX));
	call_args(c, c->k_read, 2);
	E2(c, OP_MOVZX, r_(G_DX, 4), M(1, G_BX, half + (int64_t)pc_below(c, length)));
	E2(c, OP_ADD, M(4, G_BP, -local_off(c, 1)), r_(G_DX, 4));
}

void st_syscall(struct pctx *c, int which)
{
	switch (which) {
	case SYS_READ:
		st_read(c, 64u << pc_below(c, 7));
		break;
	case SYS_WRITE:
		E2(c, OP_LEA, R(c, G_AX), M(c->w, G_BX, (int64_t)(c->slice_size / 2)));
		set_arg(c, 1, i_(c->w, 64));
		set_arg(c, 0, R(c, G_AX));
		call_args(c, c->k_write, 2);
		break;
	case SYS_YIELD:
		call_args(c, c->k_yield, 0);
		break;
	default: /* SYS_QPC: the counter lands in the slice's scratch words */
		E2(c, OP_LEA, R(c, G_AX), M(c->w, G_BX, SL_SCRATCH));
		set_arg(c, 0, R(c, G_AX));
		call_args(c, c->k_qpc, 1);
		E2(c, OP_MOV, R(c, G_DX), M(c->w, G_BX, SL_SCRATCH));
		break;
	}
}

/* Calls @p fn directly (how 0), through a register (1) or a pointer in
 * memory (2), with a register and a small constant as arguments. */
void st_call(struct pctx *c, uint32_t fn, int how)
{
	set_arg(c, 1, R(c, G_AX));
	set_arg(c, 0, i_(c->w, pc_below(c, 64)));
	if (how == 0) {
		Ecall(c, fn);
	} else if (how == 1) {
		if (c->m64)
			E2(c, OP_LEA, R(c, G_AX), G(c, 8, fn));
		else
			E2(c, OP_MOV, R(c, G_AX), L(c, fn));
		E1(c, OP_CALL, R(c, G_AX));
	} else {
		uint32_t ptr = pb_data(c->p, c->w, c->w, NULL);
		pb_data_addr(c->p, ptr, 0, fn, c->w);
		E1(c, OP_CALL, G(c, c->w, ptr));
	}
	if (!c->m64)
		E2(c, OP_ADD, R(c, G_SP), i_(4, 8));
	E2(c, OP_ADD, M(c->w, G_BP, -local_off(c, (int)pc_below(c, 3))), R(c, G_AX));
}

/* A call of @p risky(pointer, value) guarded by a handler: the pointer comes
 * from the fault table (one entry in four faults), the handler keeps eax. */
void st_guarded(struct pctx *c, uint32_t risky)
{
	uint32_t start = pb_label(c->p), end = pb_label(c->p), handler = pb_label(c->p),
	         join = pb_label(c->p);
	E2(c, OP_MOV, r_(G_AX, 4), G(c, 4, c->g_fault_idx));
	E1(c, OP_INC, G(c, 4, c->g_fault_idx));
	E2(c, OP_AND, r_(G_AX, 4), i_(4, 7));
	if (c->m64) {
		E2(c, OP_LEA, R(c, G_DX), G(c, 8, c->g_ptrs));
		E2(c, OP_MOV, R(c, G_CX), m_(8, G_DX, G_AX, 8, 0));
		E2(c, OP_MOV, r_(G_DX, 4), i_(4, 0x5a5a));
	} else {
		struct opnd tab = G(c, 4, c->g_ptrs);
		tab.index = G_AX;
		tab.scale = 4;
		E2(c, OP_MOV, R(c, G_CX), tab);
		E1(c, OP_PUSH, i_(4, 0x5a5a));
		E1(c, OP_PUSH, R(c, G_CX));
	}
	pb_bind(c->p, start);
	Ecall(c, risky);
	pb_bind(c->p, end);
	E2(c, OP_MOV, M(4, G_BP, -local_off(c, 1)), r_(G_AX, 4));
	Ejmp(c, join, 1);
	pb_bind(c->p, handler);
	E2(c, OP_MOV, M(4, G_BP, -local_off(c, 2)), r_(G_AX, 4));
	pb_bind(c->p, join);
	if (!c->m64)
		E2(c, OP_ADD, R(c, G_SP), i_(4, 8));
	pb_guard(c->p, start, end, handler);
}
