/*
 * umtgen: the run. One record per step of one thread: the scheduler picks a
 * thread (quanta of a few to a few dozen records, threads in the kernel
 * wait), the thread's state says what its next record is (thread begin, an
 * instruction, a system call entry or exit, an exception context). The
 * trace ends with exactly the requested number of records: the last ones
 * are the thread ends and the application end (or, for an aborted process,
 * one last flagged record per thread).
 */
#include <stdlib.h>
#include <unistd.h>

#include "exec.h"
#include "kernel.h"
#include "pipe.h"
#include "progbuild.h"
#include "sim.h"

/* ---- calls and returns ---------------------------------------------------------------- */

static int push_frame(struct gen *g, struct thread *t, const struct site *s,
                      const struct exec_result *r, uint64_t id)
{
	struct frame *f = grow(t->frames, &t->fcap, t->nframes, sizeof *f, 64);
	if (f == NULL)
		return gen_fail(g, "out of memory");
	t->frames = f;
	f += t->nframes;
	memset(f, 0, sizeof *f);
	f->call_id = id;
	f->caller = s->addr;
	f->target = reg64(t, RF_RIP);
	f->slot = r->ea[MO_PUSH];
	f->parent = t->nframes ? (int64_t)t->frames[t->nframes - 1].call_id : -1;
	f->depth = t->nframes;
	f->guard = s->guard;
	f->ret_site = s->fall;
	if (s->guard) { /* what the unwinder restores: the callee-saved registers */
		static const uint8_t saved[8] = {G_BX, G_BP, G_SI, G_DI, G_12, G_13, G_14, G_15};
		for (int i = 0; i < 8; i++)
			f->saved[i] = reg64(t, RF_GPR(saved[i]));
	}
	t->nframes++;
	return 0;
}

/* A return through slot @p slot: frames below it were abandoned, its own returns. */
static void pop_frames(struct gen *g, struct thread *t, uint64_t slot, uint64_t id)
{
	while (t->nframes && t->frames[t->nframes - 1].slot < slot)
		truth_call(g, t, &t->frames[--t->nframes], -1);
	if (t->nframes && t->frames[t->nframes - 1].slot == slot)
		truth_call(g, t, &t->frames[--t->nframes], (int64_t)id);
}

/* ---- one instruction ---------------------------------------------------------------------- */

static uint8_t fault_flags(const struct gen *g, int status)
{
	int read = status == EX_FAULT_READ;
	if (g->par->flavour == UMT_FLAVOUR_2014) /* exec v0 */
		return read ? UMT_EXEC_V0_F_EXC_INPUT : UMT_EXEC_V0_F_EXC_EXECUTE;
	return (uint8_t)(UMT_EXEC_V1_F_FAULT | UMT_EXEC_V1_F_BAD_OUTPUTS |
	                 (read ? UMT_EXEC_V1_F_BAD_INPUTS : 0));
}

/* What an instruction leaves for the thread's next records. */
static int after_insn(struct gen *g, struct thread *t, const struct site *s,
                      const struct decoded *d, const uint8_t *lc, const struct exec_result *r,
                      uint64_t id)
{
	if (r->status != EX_OK) {
		t->state = TS_EXCEPTION;
		t->fault_rip = s->addr;
		t->fault_addr = r->fault_addr;
		t->fault_write = r->status == EX_FAULT_WRITE;
		t->sample_next = 1;
		return gen_range(g, r->fault_addr, 1);
	}
	for (int k = d->first_after; g->truth && k < d->count; k++) /* the record's writes */
		if (d->src[k].kind == SRC_MEM)
			truth_write(g, id, t, r->ea[d->src[k].memop], lc + d->slots[k].Offset + 8,
			            d->src[k].size, "instruction");
	if (r->call && push_frame(g, t, s, r, id) < 0)
		return -1;
	uint32_t ret_site = t->nframes ? t->frames[t->nframes - 1].ret_site : NO_SITE;
	if (r->ret)
		pop_frames(g, t, r->ea[MO_POP], id);
	if (s->in.op == OP_SYSCALL || (s->in.op == OP_INT && s->in.o[0].val == 0x2e))
		t->state = TS_ENTRY;
	/* the next site without a lookup when control went the usual way */
	uint64_t rip = reg64(t, RF_RIP);
	const struct site *sites = g->prog.sites;
	if (s->fall != NO_SITE && sites[s->fall].addr == rip)
		t->site = s->fall;
	else if (s->target != NO_SITE && sites[s->target].addr == rip)
		t->site = s->target;
	else if (r->ret && ret_site != NO_SITE && sites[ret_site].addr == rip)
		t->site = ret_site;
	else
		t->site = NO_SITE;
	return 0;
}

static int step_insn(struct gen *g, struct thread *t, uint8_t flags)
{
	struct site *s;
	const struct decoded *d;
	uint64_t rip = reg64(t, RF_RIP);
	if (!rows_known(g, t, rip, &s, &d) && rows_resolve(g, t, rip, &s, &d) < 0)
		return -1;
	uint8_t *lc = pipe_exec_room(g->pipe, d->lc_size); /* the LC is written in place */
	if (lc == NULL)
		return gen_fail(g, "the writer stopped");
	uint64_t id = gen_now(g);
	struct exec_result r;
	exec_insn(&g->mem, t->regs, g->mode64, &s->in, s->addr, s->len, d, lc, t->garbage++, &r);
	if (r.status == EX_BAD)
		return gen_fail(g, "rep count of the instruction at 0x%llx is not in rcx",
		                (unsigned long long)s->addr);
	if (r.status != EX_OK && !t->sampled) /* a fault changed nothing: still "before" */
		truth_regs(g, t, id);
	flags |= gen_mode_flag(g);
	if (s->in.pfx & P_REP)
		flags |= UMT_EXEC_F_REP_FIRST; /* one record covers every iteration */
	if (r.not_taken)
		flags |= UMT_EXEC_F_NOT_EXECUTED;
	if (r.status != EX_OK)
		flags |= fault_flags(g, r.status);
	umt_exec_desc e = {.type = UMT_REC_INSTRUCTION, .flags = flags, .thread_id = t->id,
	                   .ins_id = s->row, .lc = lc, .lc_size = d->lc_size};
	pipe_exec_fields(lc, &e);
	g->now++;
	int row = s->module >= 0 ? g->row_of[(int)s->module] : -1;
	if (s->covered != row + 2) { /* new to this module row's coverage */
		coverage_add(g, row, s->addr);
		s->covered = row + 2;
	}
	(row >= 0 ? &g->mods[row] : &g->floating)->execs++;
	if (flags & 0xf0) /* the record after a flagged one is sampled too */
		t->sample_next = 1;
	return after_insn(g, t, s, d, lc, &r, id);
}

/* ---- the other steps ------------------------------------------------------------------- */

/*
 * Truth before the thread's next record: its registers when the record is
 * sampled; memory the kernel wrote for it; every fourth sampling period, the
 * top of its stack and a word of its data slice.
 */
static void sample(struct gen *g, struct thread *t, int force)
{
	t->sampled = 0;
	if (g->truth == NULL) {
		t->sample_next = 0;
		return;
	}
	uint64_t id = gen_now(g);
	t->sampled = force || t->sample_next || (g->truth_every && id % g->truth_every == 0);
	t->sample_next = 0;
	if (t->sampled)
		truth_regs(g, t, id);
	for (uint32_t i = 0; i < t->npending; i++)
		truth_mem(g, id, t->pending[i].addr, t->pending[i].size);
	t->npending = 0;
	if (g->truth_every && id % (4 * g->truth_every) == 0 && t->state != TS_NEW) {
		truth_mem(g, id, reg64(t, RF_GPR(G_SP)), 64);
		truth_mem(g, id, t->slice + SL_ARRAY + 8 * (id % 64), 64);
	}
}

/* The thread's information block: what a thread-begin context carries. */
static uint64_t build_tib(const struct gen *g, const struct thread *t, uint8_t *tib)
{
	memset(tib, 0, 0x68);
	if (g->mode64) {
		uint64_t f[][2] = {{0x08, t->stack_hi}, {0x10, t->stack_lo}, {0x30, t->tib},
		                   {0x40, 4242}, {0x48, t->win_tid}, {0x58, t->slice},
		                   {0x60, 0x7fffffd3000ull}};
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			memcpy(tib + f[i][0], &f[i][1], 8);
		return 0x68;
	}
	uint32_t f[][2] = {{0x00, 0xffffffffu}, {0x04, (uint32_t)t->stack_hi},
	                   {0x08, (uint32_t)t->stack_lo}, {0x18, (uint32_t)t->tib}, {0x20, 4242},
	                   {0x24, t->win_tid}, {0x2c, (uint32_t)t->slice}, {0x30, 0x7efde000u}};
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		memcpy(tib + f[i][0], &f[i][1], 4);
	return 0x34;
}

static int step_begin(struct gen *g, struct thread *t, uint8_t flags)
{
	uint8_t tib[0x68];
	uint64_t size = build_tib(g, t, tib);
	gen_kernel_write(g, t, t->tib, tib, size, "context");
	umt_mem_ref m = {t->tib, size, tib};
	t->state = TS_RUN;
	g->nnew--;
	return gen_context(g, t, UMT_REC_THREAD_BEGIN, 0, &m, 1, flags);
}

static int step(struct gen *g, struct thread *t, uint8_t flags, int force_sample)
{
	sample(g, t, force_sample || t->state == TS_NEW);
	switch (t->state) {
	case TS_NEW: return step_begin(g, t, flags);
	case TS_ENTRY: return kernel_entry(g, t, flags);
	case TS_KERNEL: return kernel_exit(g, t, flags);
	case TS_EXCEPTION: return kernel_exception(g, t, flags);
	default: return step_insn(g, t, flags);
	}
}

/* ---- scheduling --------------------------------------------------------------------------- */

static int runnable(const struct thread *t, uint64_t now)
{
	switch (t->state) {
	case TS_NEW: return now >= 4 * (uint64_t)t->id; /* threads start one after another */
	case TS_KERNEL: return t->wake_at <= now;
	case TS_DONE: return 0;
	default: return 1;
	}
}

static uint32_t sched_below(struct gen *g, uint32_t n)
{
	return (uint32_t)(((xorshift64s(&g->sched_rng) >> 32) * n) >> 32);
}

/* The current thread for the rest of its quantum, else a random runnable one
 * (when none is, the first to come back from the kernel). */
static struct thread *pick(struct gen *g)
{
	uint64_t now = gen_now(g);
	if (g->quantum > 0 && runnable(&g->th[g->cur], now)) {
		g->quantum--;
		return &g->th[g->cur];
	}
	uint32_t n = 0, best = 0;
	for (uint32_t i = 0; i < g->nth; i++)
		n += (uint32_t)runnable(&g->th[i], now);
	if (n == 0) { /* every thread is away: the first back from the kernel runs */
		for (uint32_t i = 1; i < g->nth; i++) {
			const struct thread *a = &g->th[i], *b = &g->th[best];
			uint64_t ta = a->state == TS_KERNEL ? a->wake_at : a->state == TS_NEW ? 4u * i : UINT64_MAX;
			uint64_t tb = b->state == TS_KERNEL ? b->wake_at : b->state == TS_NEW ? 4u * best : UINT64_MAX;
			if (ta < tb)
				best = i;
		}
	} else {
		uint32_t k = sched_below(g, n);
		for (best = 0; best < g->nth; best++)
			if (runnable(&g->th[best], now) && k-- == 0)
				break;
	}
	if (g->th[best].state == TS_KERNEL && g->th[best].wake_at == UINT64_MAX)
		return NULL; /* every thread waits forever: the program cannot go on */
	g->cur = best;
	g->quantum = sched_below(g, g->par->quantum);
	return &g->th[best];
}

/* ---- the end ---------------------------------------------------------------------------------- */

/* The thread stops: open calls are abandoned, a system call never returns. */
static int stop_thread(struct gen *g, struct thread *t)
{
	if (t->state == TS_KERNEL && kernel_unfinished(g, t) < 0)
		return -1;
	while (t->nframes)
		truth_call(g, t, &t->frames[--t->nframes], -1);
	t->state = TS_DONE;
	return 0;
}

static int end_thread(struct gen *g, struct thread *t, uint8_t type)
{
	sample(g, t, 1);
	if (stop_thread(g, t) < 0)
		return -1;
	umt_exec_desc d = {.type = type, .flags = gen_mode_flag(g), .thread_id = t->id};
	return gen_record(g, &d);
}

static int finish_threads(struct gen *g)
{
	for (uint32_t i = 1; i < g->nth; i++) /* threads the run never started */
		if (g->th[i].state == TS_NEW && step(g, &g->th[i], 0, 1) < 0)
			return -1;
	for (uint32_t i = 1; i < g->nth; i++)
		if (end_thread(g, &g->th[i], UMT_REC_THREAD_END) < 0)
			return -1;
	return end_thread(g, &g->th[0], UMT_REC_APP_END);
}

/* An aborted process: one last record of every thread, flagged (exec v1:
 * aborted; v0: internal error), then nothing. */
static int abort_threads(struct gen *g)
{
	for (uint32_t i = 0; i < g->nth; i++) {
		struct thread *t = &g->th[i];
		if (step(g, t, UMT_EXEC_V1_F_ABORTED, 1) < 0 || stop_thread(g, t) < 0)
			return -1;
	}
	return 0;
}

static void progress(const struct gen *g, double start, int final)
{
	if (g->par->quiet || !isatty(2))
		return;
	double dt = gen_seconds() - start;
	uint64_t n = gen_now(g);
	fprintf(stderr, "\rumtgen: %llu / %llu records (%.0f%%), %.1f M records/s%s",
	        (unsigned long long)n, (unsigned long long)g->target,
	        100.0 * (double)n / (double)(g->target ? g->target : 1),
	        dt > 0 ? (double)n / dt / 1e6 : 0.0, final ? "\n" : "");
}

int gen_run(struct gen *g)
{
	double start = gen_seconds();
	uint64_t threads = g->nth;
	for (uint64_t steps = 1;; steps++) {
		uint64_t now = gen_now(g);
		uint64_t reserve = g->par->abort_run ? threads : threads + g->nnew;
		if (g->target - now <= reserve)
			break;
		struct thread *t = pick(g);
		if (t == NULL)
			return gen_fail(g, "every thread waits forever at record %llu",
			                (unsigned long long)now);
		if (step(g, t, 0, 0) < 0)
			return -1;
		if ((steps & 0xfffff) == 0)
			progress(g, start, 0);
	}
	int rc = g->par->abort_run ? abort_threads(g) : finish_threads(g);
	progress(g, start, 1);
	return rc;
}
