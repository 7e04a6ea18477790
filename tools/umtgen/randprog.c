/*
 * umtgen: a random program. Functions are written level by level: a
 * function of level L calls only functions of lower levels (and itself, for
 * the recursive ones), so every call returns; loops count down; the cost
 * of a call (instructions executed) is estimated while writing and kept
 * under a budget per level, so one task stays short enough for small traces
 * to show many. The top levels make the task table the threads' dispatcher
 * draws from.
 */
#include <stdlib.h>
#include <string.h>

#include "machine.h"
#include "progbuild.h"
#include "randprog.h"

struct fn {
	uint32_t label;
	uint32_t cost; /* instructions one call executes, estimated */
	int level;
};

struct rp {
	struct pctx c;
	const struct prog_params *pp;
	struct fn *fns;
	int nfns;
	size_t cap;
	uint32_t risky[3]; /* read, write, outer: the guarded statement calls outer */
};

static uint32_t budget(int level)
{
	uint32_t b = 40;
	for (int i = 0; i < level && b < 3000; i++)
		b *= 3;
	return b < 3000 ? b : 3000;
}

/* A function of a lower level that costs at most @p max (or the cheapest). */
static const struct fn *callee(struct rp *r, int level, uint32_t max)
{
	const struct fn *best = NULL;
	for (int tries = 0; tries < 8; tries++) {
		const struct fn *f = &r->fns[pc_below(&r->c, (uint32_t)r->nfns)];
		if (f->level >= level)
			continue;
		if (f->cost <= max)
			return f;
		if (best == NULL || f->cost < best->cost)
			best = f;
	}
	for (int i = 0; i < r->nfns && best == NULL; i++)
		if (r->fns[i].level < level)
			best = &r->fns[i];
	return best && best->cost <= max ? best : NULL;
}

/* Backward conditional branch: short when it reaches. */
static void jcc_back(struct pctx *c, uint8_t cc, uint32_t label)
{
	const struct module_img *m = &c->p->mods[c->p->cur];
	int64_t d = (int64_t)(pb_addr(c->p, label) - (m->code_at + 2));
	Ejcc(c, cc, label, d >= -128);
}

static uint32_t simple_stmt(struct rp *r)
{
	struct pctx *c = &r->c;
	uint32_t before = c->p->nsites;
	int mem = (int)pc_below(c, 100) < (int)r->pp->mem_share;
	switch (mem ? pc_below(c, 4) : 4) {
	case 0: st_local(c); break;
	case 1: st_heap(c); break;
	case 2: st_global(c); break;
	case 3: st_teb(c); break;
	default: st_alu(c); break;
	}
	return c->p->nsites - before;
}

static uint32_t body(struct rp *r, int level, uint32_t room, int depth);

/* if (cond) { a } else { b }, bodies of simple statements (short branches). */
static uint32_t if_else(struct rp *r)
{
	struct pctx *c = &r->c;
	uint32_t other = pb_label(c->p), join = pb_label(c->p), cost = 2;
	/* one random draw per statement: arguments are evaluated in no set order, and the
	 * same seed must give the same program with any compiler (the order gcc took) */
	int64_t imm = (int64_t)pc_below(c, 64);
	E2(c, pc_below(c, 2) ? OP_CMP : OP_TEST, r_(G_AX, 4), i_(4, imm));
	Ejcc(c, (uint8_t)pc_below(c, 16), other, 1);
	cost += simple_stmt(r);
	Ejmp(c, join, 1);
	pb_bind(c->p, other);
	cost += simple_stmt(r);
	pb_bind(c->p, join);
	return cost;
}

/* A counted loop on a local: 2 to 6 iterations of a short body. */
static uint32_t loop(struct rp *r, int level, uint32_t room, int depth)
{
	struct pctx *c = &r->c;
	uint32_t trips = 2 + pc_below(c, 5), top = pb_label(c->p);
	int64_t counter = -local_off(c, 3 + depth); /* locals 3-5 count loops */
	E2(c, OP_MOV, M(4, G_BP, counter), i_(4, trips));
	pb_bind(c->p, top);
	uint32_t inner = body(r, level, room / trips, depth + 1);
	E1(c, OP_DEC, M(4, G_BP, counter));
	jcc_back(c, CC_NZ, top);
	return 1 + trips * (inner + 2);
}

/* One statement of a level-@p level function; @p room is what it may cost. */
static uint32_t statement(struct rp *r, int level, uint32_t room, int depth)
{
	struct pctx *c = &r->c;
	const struct prog_params *pp = r->pp;
	uint32_t x = pc_below(c, 1000), before = c->p->nsites;
	if (level > 0 && x < pp->syscall_rate) {
		st_syscall(c, (int)pc_below(c, 4)); /* read, write, QPC, yield: ~30 instructions */
		return 40;
	}
	x = pc_below(c, 1000);
	if (pp->jit && x < 8) {
		st_jit(c);
		return c->p->nsites - before + 3;
	}
	if (pp->faults && level >= 2 && x < 16 && room >= 80) {
		st_guarded(c, r->risky[2]);
		return 80;
	}
	if (level > 0 && x < 180) {
		const struct fn *f = callee(r, level, room > 8 ? room - 8 : 0);
		if (f) {
			st_call(c, f->label, (int)pc_below(c, 3));
			return f->cost + 8;
		}
	}
	if (depth < 3 && x < 260 && room >= 40)
		return loop(r, level, room, depth);
	if (x < 340)
		return if_else(r);
	if ((int)pc_below(c, 100) >= (int)pp->mem_share)
		return simple_stmt(r);
	switch (pc_below(c, 16)) {
	case 0: st_stack(c); break;
	case 1: {
		uint16_t bytes = (uint16_t)(16u << pc_below(c, 10)); /* drawn first, as gcc did */
		st_rep(c, (int)pc_below(c, 2), bytes);
		break;
	}
	case 2: st_vector(c); break;
	case 3: st_lock(c, (int)pc_below(c, 2)); break;
	default: return simple_stmt(r);
	}
	return c->p->nsites - before;
}

static uint32_t body(struct rp *r, int level, uint32_t room, int depth)
{
	uint32_t n = 1 + pc_below(&r->c, depth ? 3 : 7), cost = 0;
	for (uint32_t i = 0; i < n && cost < room; i++)
		cost += statement(r, level, room - cost, depth);
	return cost;
}

static int add_fn(struct rp *r, uint32_t label, uint32_t cost, int level)
{
	struct fn *f = grow(r->fns, &r->cap, (size_t)r->nfns, sizeof *f, 64);
	if (f == NULL)
		return -1;
	r->fns = f;
	r->fns[r->nfns++] = (struct fn){label, cost, level};
	return 0;
}

/* A function of @p level; one in eight of level 1 and up ends in a tail jump,
 * one in eight is recursive. */
static int function(struct rp *r, int level)
{
	struct pctx *c = &r->c;
	uint32_t l = pb_label(c->p);
	pb_bind(c->p, l);
	fn_prologue(c, 1);
	uint32_t cost = 20, kind = level > 0 ? pc_below(c, 8) : 7;
	if (kind == 0) { /* recursive: f(n) = n == 0 ? 1 : f(n - 1) + 3, n = arg & 7 */
		uint32_t base = pb_label(c->p), done = pb_label(c->p);
		struct opnd n = arg_in(c, 0);
		n.size = 4;
		E2(c, OP_MOV, r_(G_AX, 4), n);
		E2(c, OP_AND, r_(G_AX, 4), i_(4, 7));
		E2(c, OP_MOV, M(4, G_BP, -local_off(c, 2)), r_(G_AX, 4));
		Ejcc(c, CC_Z, base, 0);
		cost += body(r, 0, 30, 2);
		E2(c, OP_MOV, r_(G_CX, 4), M(4, G_BP, -local_off(c, 2)));
		E1(c, OP_DEC, r_(G_CX, 4));
		set_arg(c, 1, R(c, G_AX));
		set_arg(c, 0, R(c, G_CX));
		call_args(c, l, 2);
		E2(c, OP_ADD, r_(G_AX, 4), i_(4, 3));
		Ejmp(c, done, 0);
		pb_bind(c->p, base);
		E2(c, OP_MOV, r_(G_AX, 4), i_(4, 1));
		pb_bind(c->p, done);
		cost *= 8;
	} else {
		cost += body(r, level, budget(level), 0);
		E2(c, OP_MOV, R(c, G_AX), M(c->w, G_BP, -local_off(c, 0)));
	}
	const struct fn *tail = kind == 1 ? callee(r, level, budget(level)) : NULL;
	if (tail == NULL) {
		fn_epilogue(c);
	} else { /* tail jump: the callee returns to our caller */
		/* the callee finds its arguments where ours were (rcx/rdx, or the stack) */
		fn_leave(c);
		Ejmp(c, tail->label, 0);
		cost += tail->cost;
	}
	return add_fn(r, l, cost, level);
}

/* risky_read(p) reads [p], risky_write(p, v) writes [p + 8]; risky(p, v)
 * calls one of them: entries 2 and 5 of the pointer table make them fault. */
static void risky_functions(struct rp *r)
{
	struct pctx *c = &r->c;
	for (int k = 0; k < 3; k++) {
		r->risky[k] = pb_label(c->p);
		pb_bind(c->p, r->risky[k]);
		fn_prologue(c, k == 2);
		if (k < 2)
			E2(c, OP_MOV, R(c, G_AX), arg_in(c, 0));
		if (k == 0) {
			E2(c, OP_MOV, R(c, G_AX), M(c->w, G_AX, 0));
		} else if (k == 1) {
			E2(c, OP_MOV, R(c, G_DX), arg_in(c, 1));
			E2(c, OP_MOV, M(c->w, G_AX, 8), R(c, G_DX));
		} else {
			st_alu(c);
			set_arg(c, 1, arg_in(c, 1));
			set_arg(c, 0, arg_in(c, 0));
			E2(c, OP_TEST, M(4, G_BX, SL_STATE), i_(4, 1));
			uint32_t other = pb_label(c->p), join = pb_label(c->p);
			Ejcc(c, CC_NZ, other, 1);
			Ecall(c, r->risky[0]);
			Ejmp(c, join, 1);
			pb_bind(c->p, other);
			Ecall(c, r->risky[1]);
			pb_bind(c->p, join);
			if (!c->m64)
				E2(c, OP_ADD, R(c, G_SP), i_(4, 8));
		}
		fn_epilogue(c);
	}
}

/* A task that rewrites and calls the thread's JIT code twice. */
static uint32_t jit_task(struct rp *r)
{
	struct pctx *c = &r->c;
	uint32_t l = pb_label(c->p);
	pb_bind(c->p, l);
	fn_prologue(c, 1);
	st_jit(c);
	st_alu(c);
	st_jit(c);
	E2(c, OP_MOV, R(c, G_AX), M(c->w, G_BP, -local_off(c, 0)));
	fn_epilogue(c);
	return l;
}

/* The task table: the functions of the top two levels, newest first, and
 * the JIT task. */
static uint32_t task_table(struct rp *r, int levels, int ntasks)
{
	uint32_t table = pb_data(r->c.p, (uint64_t)ntasks * r->c.w, 8, NULL);
	if (r->pp->jit)
		pb_data_addr(r->c.p, table, (uint64_t)--ntasks * r->c.w, jit_task(r), r->c.w);
	for (int i = 0, k = r->nfns - 1; i < ntasks; i++, k--) {
		while (k >= 0 && r->fns[k].level < levels - 2)
			k--;
		if (k < 0)
			k = r->nfns - 1;
		pb_data_addr(r->c.p, table, (uint64_t)i * r->c.w, r->fns[k].label, r->c.w);
	}
	return table;
}

static int write_program(struct rp *r)
{
	struct program *p = r->c.p;
	const struct prog_params *pp = r->pp;
	if (pb_system(&r->c, 130790000000000000ull) < 0)
		return -1;
	pb_select(p, r->c.app);
	risky_functions(r);
	int levels = pp->depth < 1 ? 1 : (int)pp->depth;
	/* level by level, until the program has about pp->size instructions */
	for (int pass = 0; p->nsites < pp->size || pass == 0; pass++)
		for (int level = 0; level < levels && !p->failed; level++)
			if (function(r, level) < 0)
				return -1;
	enum { NTASKS = 8 };
	uint32_t table = task_table(r, levels, NTASKS);
	r->c.plugin = -1;
	if (pp->plugin)
		pb_plugin(&r->c, 0);
	pb_entries(&r->c, table, NTASKS, 32);
	return pb_finish(p);
}

int randprog_build(struct program *p, const struct prog_params *pp)
{
	struct rp r;
	memset(&r, 0, sizeof r);
	r.pp = pp;
	r.c.p = p;
	r.c.m64 = pp->mode64;
	r.c.vectors = pp->vectors;
	r.c.rng = pp->seed * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull;
	r.c.slice_size = pp->slice_size;
	pb_init(p, pp->mode64);
	int rc = write_program(&r);
	free(r.fns);
	return rc < 0 || p->failed ? -1 : 0;
}
