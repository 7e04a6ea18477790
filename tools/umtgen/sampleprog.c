/*
 * umtgen: the program of the bundled sample trace (tools/mksample): a short
 * run that shows each kind of event once. The main thread computes fact(2)
 * recursively, reads 64 bytes of a file (a system call whose buffer comes
 * back as a memory block) and sums three of them, maps the plugin (a module
 * load) and calls into it, then makes a guarded call that faults (an access
 * violation, the exception context, the handler), and counts in a loop
 * until the trace ends. The worker copies its buffer with rep movsb, SSE and
 * AVX moves, bumps the shared counter with lock cmpxchg, sets ah, then waits
 * for an event that never comes (its system call is still running when the
 * trace ends).
 */
#include "machine.h"
#include "progbuild.h"
#include "randprog.h"

/* fact(n) = n == 0 ? 1 : n * fact(n - 1), without a frame: the argument
 * in ecx (64-bit) or on the stack (32-bit), pushed across the call. */
static uint32_t fact(struct pctx *c)
{
	uint32_t l = pb_label(c->p), base = pb_label(c->p);
	pb_bind(c->p, l);
	if (!c->m64)
		E2(c, OP_MOV, r_(G_CX, 4), M(4, G_SP, 4));
	E2(c, OP_TEST, r_(G_CX, 4), r_(G_CX, 4));
	Ejcc(c, CC_Z, base, 1);
	E1(c, OP_PUSH, R(c, G_CX));
	if (c->m64) { /* shadow space, and rsp stays 16-aligned at the call */
		E2(c, OP_LEA, r_(G_CX, 4), m_(4, G_CX, REG_NONE, 1, -1));
		E2(c, OP_SUB, R(c, G_SP), i_(8, 0x20));
	} else {
		E2(c, OP_LEA, r_(G_AX, 4), m_(4, G_CX, REG_NONE, 1, -1));
		E1(c, OP_PUSH, R(c, G_AX));
	}
	Ecall(c, l);
	E2(c, OP_ADD, R(c, G_SP), i_(c->w, c->m64 ? 0x20 : 4));
	E1(c, OP_POP, R(c, G_CX));
	E2(c, OP_IMUL, r_(G_AX, 4), r_(G_CX, 4));
	E0(c, OP_RET);
	pb_bind(c->p, base);
	E2(c, OP_MOV, r_(G_AX, 4), i_(4, 1));
	E0(c, OP_RET);
	return l;
}

/* risky(p) = *p, without a frame. */
static uint32_t risky(struct pctx *c)
{
	uint32_t l = pb_label(c->p);
	pb_bind(c->p, l);
	if (c->m64) {
		E2(c, OP_MOV, R(c, G_AX), M(8, G_CX, 0));
	} else {
		E2(c, OP_MOV, R(c, G_AX), M(4, G_SP, 4));
		E2(c, OP_MOV, R(c, G_AX), M(4, G_AX, 0));
	}
	E0(c, OP_RET);
	return l;
}

/* A thread's entry: a frame for the statements' locals, its data slice. */
static void entry_frame(struct pctx *c, uint32_t label)
{
	pb_bind(c->p, label);
	E1(c, OP_PUSH, R(c, G_BP));
	E2(c, OP_MOV, R(c, G_BP), R(c, G_SP));
	E2(c, OP_SUB, R(c, G_SP), i_(c->w, c->m64 ? 0x90 : 0x30));
	E2(c, OP_MOV, R(c, G_BX), mseg_(c->w, c->m64 ? SEG_GS : SEG_FS, c->m64 ? 0x58 : 0x2c));
}

/* main: fact(2); ReadFile of 64 bytes and the sum of three of them; the
 * plugin mapped and called; a guarded call that faults; then a loop. */
static void main_thread(struct pctx *c, uint32_t f, uint32_t r)
{
	int64_t half = (int64_t)(c->slice_size / 2);
	uint32_t top = pb_label(c->p), idle = pb_label(c->p);
	entry_frame(c, c->p->abi.main_label);
	set_arg(c, 0, i_(c->w, 2));
	call_args(c, f, 1);
	E2(c, OP_LEA, R(c, G_AX), M(c->w, G_BX, half));
	set_arg(c, 1, i_(c->w, 64));
	set_arg(c, 0, R(c, G_AX));
	call_args(c, c->k_read, 2);
	E2(c, OP_LEA, R(c, G_SI), M(c->w, G_BX, half));
	E2(c, OP_XOR, r_(G_DX, 4), r_(G_DX, 4));
	E2(c, OP_MOV, r_(G_CX, 4), i_(4, 3));
	pb_bind(c->p, top);
	E2(c, OP_MOVZX, r_(G_AX, 4), M(1, G_SI, 0));
	E2(c, OP_ADD, r_(G_DX, 4), r_(G_AX, 4));
	E2(c, OP_ADD, R(c, G_SI), i_(c->w, 8));
	E1(c, OP_DEC, r_(G_CX, 4));
	Ejcc(c, CC_NZ, top, 1);
	call_args(c, c->k_map, 0);
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_base), R(c, G_AX));
	E2(c, OP_MOV, R(c, G_AX), L(c, c->plugin_entry));
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_fn), R(c, G_AX));
	set_arg(c, 0, i_(c->w, 9));
	E1(c, OP_CALL, R(c, G_AX));
	if (!c->m64)
		E2(c, OP_ADD, R(c, G_SP), i_(4, 4));
	E2(c, OP_MOV, G(c, 4, c->g_fault_idx), i_(4, 2)); /* the null pointer entry */
	st_guarded(c, r);
	pb_bind(c->p, idle);
	E1(c, OP_INC, r_(G_AX, 4));
	E2(c, OP_CMP, r_(G_AX, 4), i_(4, 1000));
	Ejcc(c, CC_NZ, idle, 1);
	E2(c, OP_XOR, r_(G_AX, 4), r_(G_AX, 4));
	Ejmp(c, idle, 1);
}

/* worker: rep movsb, SSE and AVX moves, lock cmpxchg, ah; then it waits
 * forever (the trace ends during that system call). */
static void worker_thread(struct pctx *c)
{
	entry_frame(c, c->p->abi.worker_label);
	st_rep(c, 0, 32);
	if (c->vectors)
		st_vector(c);
	st_lock(c, 0);
	E2(c, OP_MOV, rh_(G_AX), i_(1, 0x7f));
	E1(c, OP_PUSH, R(c, G_AX));
	E1(c, OP_POP, R(c, G_DX));
	call_args(c, c->k_wait, 0);
	E0(c, OP_NOP);
}

static int write_sample(struct pctx *c)
{
	if (pb_system(c, 130790000000000000ull) < 0)
		return -1;
	pb_select(c->p, c->app);
	uint32_t f = fact(c), r = risky(c);
	pb_plugin(c, 1);
	c->p->abi.main_label = pb_label(c->p);
	c->p->abi.worker_label = pb_label(c->p);
	main_thread(c, f, r);
	worker_thread(c);
	return pb_finish(c->p);
}

int sampleprog_build(struct program *p, const struct prog_params *pp)
{
	struct pctx c;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.m64 = pp->mode64;
	c.vectors = pp->vectors;
	c.rng = pp->seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull;
	c.slice_size = pp->slice_size;
	c.plugin = -1;
	pb_init(p, pp->mode64);
	return write_sample(&c) < 0 || p->failed ? -1 : 0;
}
