/*
 * umtgen's generator (used by tools/umtgen, tools/mksample and bench/umtbench):
 * builds a program (randprog.c or sampleprog.c), lays out the address
 * space, runs it on the simulated machine (run.c) and writes the trace with
 * the library's writer, the ground truth and the enum headers beside it.
 *
 * Address space (64-bit code; 32-bit in parentheses): app.exe 0x140000000
 * (0x400000), plugin.dll 0x180000000 (0x6d000000), kernel32 0x7ff800000000
 * (0x76000000), ntdll 0x7ffd00000000 (0x77000000); thread k's stack 64 KiB
 * at 0x1000000 + 0x20000 k, its TEB at 0x7fffffde000 - 0x2000 k
 * (0x7ffdd000 - 0x1000 k), its data slice at 0x20000000000 + k * slice
 * (0x30000000 + k * slice); pages the kernel hands out from 0x30000000000
 * (0x22000000).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <time.h>

#include "kernel.h"
#include "pipe.h"
#include "progbuild.h"
#include "randprog.h"
#include "sim.h"

int gen_fail(struct gen *g, const char *fmt, ...)
{
	if (!g->failed) {
		g->failed = 1;
		va_list ap;
		va_start(ap, fmt);
		fputs("umtgen: ", stderr);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	return -1;
}

double gen_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint8_t gen_mode_flag(const struct gen *g)
{
	return g->mode64 ? UMT_EXEC_F_64BIT : 0;
}

int gen_record(struct gen *g, const umt_exec_desc *d)
{
	if (pipe_exec(g->pipe, d) < 0)
		return gen_fail(g, "the writer stopped");
	g->now++;
	return 0;
}

int gen_context(struct gen *g, struct thread *t, uint8_t type, int64_t sys_id,
                const umt_mem_ref *mem, uint32_t n, uint8_t flags)
{
	umt_context_desc ctx = {t->regs, g->dump_size, mem, n};
	umt_exec_desc d = {.type = type, .flags = (uint8_t)(flags | gen_mode_flag(g)),
	                   .thread_id = t->id, .syscall_id = sys_id, .context = &ctx};
	if (pipe_context(g->pipe, &d) < 0)
		return gen_fail(g, "the writer stopped");
	g->now++;
	return 0;
}

void gen_kernel_write(struct gen *g, struct thread *t, uint64_t addr, const void *data,
                      uint64_t size, const char *by)
{
	mem_put(&g->mem, addr, data, size);
	truth_write(g, gen_now(g), t, addr, data, size, by);
}

void gen_pending_mem(struct thread *t, uint64_t addr, uint64_t size)
{
	if (t->npending < sizeof t->pending / sizeof t->pending[0]) {
		t->pending[t->npending].addr = addr;
		t->pending[t->npending].size = size;
		t->npending++;
	}
}

int gen_range(struct gen *g, uint64_t addr, uint64_t size)
{
	void *r = grow(g->ranges, &g->rcap, g->nranges, sizeof g->ranges[0], 64);
	if (r == NULL)
		return gen_fail(g, "out of memory");
	g->ranges = r;
	g->ranges[g->nranges].first = addr & ~PAGE_MASK;
	g->ranges[g->nranges].last = ((addr + (size ? size : 1) - 1) | PAGE_MASK);
	g->nranges++;
	return 0;
}

/* ---- setting up -------------------------------------------------------------------------- */

static int build_program(struct gen *g, const struct umtgen_params *p)
{
	struct prog_params pp = {
		.mode64 = g->mode64, .vectors = !g->old, .seed = p->seed, .size = p->instructions,
		.depth = p->call_depth, .mem_share = p->mem_share, .syscall_rate = p->syscall_rate,
		.slice_size = p->footprint, .plugin = 1, .jit = 1, .faults = 1,
	};
	int rc = p->sample ? sampleprog_build(&g->prog, &pp) : randprog_build(&g->prog, &pp);
	if (rc < 0)
		return gen_fail(g, "building the program: %s", g->prog.error);
	return 0;
}

/* Modules mapped before the trace starts: rows from 0, loaded at record 0. */
static int map_static_modules(struct gen *g)
{
	for (int i = 0; i < MAX_MODULES; i++)
		g->row_of[i] = -1;
	for (int i = 0; i < g->prog.nmods; i++) {
		const struct module_img *m = &g->prog.mods[i];
		if (m->dynamic)
			continue;
		if (kernel_map_module(g, i, 0) < 0)
			return -1;
		mem_put(&g->mem, m->base, m->image, m->end - m->base);
	}
	return 0;
}

static void init_registers(struct gen *g, struct thread *t)
{
	memset(t->regs, 0, sizeof t->regs);
	uint64_t entry = t->id == 0 ? g->prog.abi.entry_main : g->prog.abi.entry_worker;
	set_reg64(t, RF_GPR(G_SP), t->stack_hi - (g->mode64 ? 0x48 : 0x24));
	set_reg64(t, RF_GPR(G_CX), (uint64_t)t->id);
	set_reg64(t, RF_RIP, entry);
	set_reg64(t, RF_RFLAGS, 0x202);
	uint16_t seg64[6] = {0x33, 0x2b, 0x2b, 0x2b, 0x53, 0x2b}, seg32[6] = {0x23, 0x2b, 0x2b, 0x2b, 0x53, 0x2b};
	memcpy(t->regs + RF_SEG, g->mode64 ? seg64 : seg32, sizeof seg64);
	set_reg64(t, g->mode64 ? RF_GSBASE : RF_FSBASE, t->tib);
	uint32_t mxcsr = 0x1f80;
	memcpy(t->regs + RF_MXCSR, &mxcsr, 4);
}

static int setup_threads(struct gen *g, const struct umtgen_params *p)
{
	g->nth = p->threads;
	g->nnew = p->threads;
	g->th = calloc(g->nth, sizeof *g->th);
	if (g->th == NULL)
		return gen_fail(g, "out of memory");
	uint64_t heap = g->mode64 ? 0x20000000000ull : 0x30000000ull;
	if (!g->mode64 && heap + (uint64_t)g->nth * p->footprint > 0x6c000000ull)
		return gen_fail(g, "%u threads of %llu bytes do not fit 32-bit code", g->nth,
		                (unsigned long long)p->footprint);
	for (uint32_t k = 0; k < g->nth; k++) {
		struct thread *t = &g->th[k];
		t->id = (int32_t)k;
		t->win_tid = 0x1a2c + 4 * k;
		t->stack_lo = 0x1000000ull + 0x20000ull * k;
		t->stack_hi = t->stack_lo + 0x10000;
		t->tib = g->mode64 ? 0x7fffffde000ull - 0x2000ull * k : 0x7ffdd000ull - 0x1000ull * k;
		t->slice = heap + (uint64_t)k * p->footprint;
		t->site = NO_SITE;
		t->garbage = p->seed * 0x9e3779b97f4a7c15ull + k + 1;
		init_registers(g, t);
		if (mem_map(&g->mem, t->stack_lo, 0x10000, PERM_R | PERM_W) < 0 ||
		    mem_map(&g->mem, t->tib, PAGE_SIZE, PERM_R | PERM_W) < 0 ||
		    mem_map(&g->mem, t->slice, p->footprint, PERM_R | PERM_W) < 0)
			return gen_fail(g, "out of memory");
		if (gen_range(g, t->stack_lo, 0x10000) < 0 || gen_range(g, t->tib, PAGE_SIZE) < 0 ||
		    gen_range(g, t->slice, p->footprint) < 0)
			return -1;
		if (umt_writer_add_thread(g->w, (int32_t)t->win_tid, (int64_t)t->tib, NULL) < 0)
			return gen_fail(g, "thread %u: %s", k, umt_errmsg());
	}
	g->valloc_next = g->mode64 ? 0x30000000000ull : 0x22000000ull;
	return 0;
}

static int open_writer(struct gen *g, const char *dir, const struct umtgen_params *p)
{
	umt_writer_options o;
	umt_writer_options_init(&o, p->flavour);
	o.xml.bitness = g->mode64 ? "64" : "32";
	o.xml.has_ymm = g->old ? "0" : "1";
	o.xml.app_command_line = "\"C:\\Program Files\\UMTGen\\app.exe\" --input data.txt";
	o.xml.pin_command_line = "pin.exe -t UMTracer.dll -- \"C:\\Program Files\\UMTGen\\app.exe\"";
	/* writes of 256 KiB: the kernel copies bytes the writer produced moments
	 * before, still in the shared cache (4 MiB buffers come back from memory) */
	o.buffer_size = 256 * 1024;
	if (umt_writer_open(dir, &o, &g->w) < 0)
		return gen_fail(g, "%s: %s", dir, umt_errmsg());
	return tables_context_map(g);
}

/* ---- the entry point ----------------------------------------------------------------------- */

void umtgen_params_init(struct umtgen_params *p)
{
	memset(p, 0, sizeof *p);
	p->records = 1000000;
	p->threads = 4;
	p->instructions = 4096;
	p->seed = 1;
	p->flavour = UMT_FLAVOUR_2015;
	p->call_depth = 6;
	p->footprint = 256 * 1024;
	p->syscall_rate = 6;
	p->mem_share = 50;
	p->quantum = 32;
	p->truth_every = 64;
}

static int check_params(const struct umtgen_params *p)
{
	const char *why = NULL;
	if (p->threads < 1 || p->threads > 4096)
		why = "threads must be 1 to 4096";
	else if (p->records < 2 * (uint64_t)p->threads)
		why = "records must be at least twice the threads";
	else if (p->call_depth < 1 || p->call_depth > 12)
		why = "the call depth must be 1 to 12";
	else if (p->footprint < 65536 || (p->footprint & (p->footprint - 1)) ||
	         p->footprint > ((uint64_t)1 << 32))
		why = "the footprint must be a power of 2 from 64 KiB to 4 GiB";
	else if (p->syscall_rate > 1000 || p->mem_share > 100)
		why = "the syscall rate is per mille, the memory share a percentage";
	else if (p->quantum < 1 || p->quantum > 10000000)
		why = "the quantum must be 1 to 10M records";
	if (why)
		fprintf(stderr, "umtgen: %s\n", why);
	return why ? -1 : 0;
}

static int write_extras(struct gen *g, const struct umtgen_params *p)
{
	if (p->xed_headers &&
	    (xed_write_headers(p->xed_headers, g->old, &g->used) < 0 ||
	     kernel_write_header(p->xed_headers, g->old ? 0 : 1, g->used_syscalls) < 0))
		return gen_fail(g, "writing the headers in %s", p->xed_headers);
	truth_coverage(g);
	if (g->truth && (fflush(g->truth) != 0 || ferror(g->truth)))
		return gen_fail(g, "%s: cannot write the truth", p->truth);
	return 0;
}

static int generate(struct gen *g, const char *dir, const struct umtgen_params *p)
{
	if (build_program(g, p) < 0 || open_writer(g, dir, p) < 0)
		return -1;
	g->dctx = (struct dec_ctx){g->mode64, g->old, &g->cmap, &g->used};
	if (p->truth && (g->truth = fopen(p->truth, "w")) == NULL)
		return gen_fail(g, "%s: cannot create the truth file", p->truth);
	truth_regs_setup(g);
	if (map_static_modules(g) < 0 || setup_threads(g, p) < 0)
		return -1;
	if ((g->pipe = pipe_open(g->w)) == NULL)
		return gen_fail(g, "out of memory");
	int run = gen_run(g);
	char err[256];
	int piped = pipe_close(g->pipe, err, sizeof err);
	g->pipe = NULL;
	if (run < 0)
		return -1;
	if (piped < 0)
		return gen_fail(g, "writing the trace: %s", err);
	if (tables_finish(g) < 0)
		return -1;
	int rc = umt_writer_finish(g->w);
	g->w = NULL;
	if (rc < 0)
		return gen_fail(g, "finish: %s", umt_errmsg());
	return write_extras(g, p);
}

int umtgen_write(const char *dir, const struct umtgen_params *p)
{
	if (check_params(p) < 0)
		return -1;
	struct gen *g = calloc(1, sizeof *g);
	if (g == NULL)
		return fprintf(stderr, "umtgen: out of memory\n"), -1;
	g->par = p;
	g->mode64 = !p->code32;
	g->old = p->flavour == UMT_FLAVOUR_2014;
	g->target = p->records;
	g->truth_every = p->truth_every;
	g->sched_rng = p->seed * 0xd1b54a32d192ed03ull + 0x9e3779b97f4a7c15ull;
	g->kernel_rng = p->seed * 0x8cb92ba72f3d8dd7ull + 0x2545f4914f6cdd1dull;
	mem_init(&g->mem);
	int rc = generate(g, dir, p);
	if (g->w)
		umt_writer_abort(g->w);
	if (g->truth && fclose(g->truth) != 0 && rc == 0)
		rc = gen_fail(g, "%s: cannot close the truth file", p->truth);
	for (uint32_t i = 0; i < g->nth; i++)
		free(g->th[i].frames);
	for (int i = 0; i < g->nmods; i++)
		free(g->mods[i].cover);
	free(g->floating.cover);
	free(g->mods);
	free(g->th);
	free(g->ranges);
	rows_free(g);
	pb_free(&g->prog);
	mem_free(&g->mem);
	free(g);
	return rc;
}
