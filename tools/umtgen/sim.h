/*
 * umtgen: the simulation's state, shared by the run loop (run.c), the
 * kernel (kernel.c), instruction rows (rows.c), the trace's tables
 * (tables.c) and the ground truth (truth.c).
 */
#ifndef UMTGEN_SIM_H
#define UMTGEN_SIM_H

#include <stdio.h>

#include "decoded.h"
#include "gen.h"
#include "machine.h"
#include "program.h"
#include "util.h"
#include "umtrace/umtrace.h"
#include "xed.h"

/* An open call of a thread (for the truth's call lines and exceptions). */
struct frame {
	uint64_t call_id;  /* record of the call instruction */
	uint64_t caller;   /* address of the call instruction */
	uint64_t target;
	uint64_t slot;     /* address of the return address on the stack */
	int64_t parent;    /* call_id of the enclosing open call, -1 */
	uint32_t depth;
	uint32_t guard;    /* program guard + 1 of a guarded call, else 0 */
	uint32_t ret_site; /* the site after the call, where its return usually goes */
	uint64_t saved[8]; /* callee-saved registers at a guarded call */
};

enum tstate { TS_NEW, TS_RUN, TS_ENTRY, TS_KERNEL, TS_EXCEPTION, TS_DONE };

struct thread {
	_Alignas(16) uint8_t regs[RF_MAX]; /* the register file, laid out as the dump */
	int32_t id;
	uint32_t win_tid;
	int state;          /* enum tstate */
	uint64_t tib, stack_lo, stack_hi, slice;
	uint32_t site;      /* the site at rip when known, else NO_SITE */
	struct frame *frames;
	uint32_t nframes;
	size_t fcap;
	struct {            /* the system call in flight */
		int which;      /* SYS_* */
		int64_t id;     /* its syscall row */
		uint64_t begin, sp;
		uint64_t args[12];
		uint8_t nargs;
	} sys;
	uint64_t wake_at;   /* TS_KERNEL: the kernel returns at this record */
	uint64_t fault_rip, fault_addr;
	int fault_write;
	int sample_next;    /* truth: sample the thread's next record */
	int sampled;        /* truth: the registers before the current step were sampled */
	struct { uint64_t addr, size; } pending[4]; /* truth: memory to show before the next record */
	uint32_t npending;
	uint64_t garbage;   /* seed of the garbage a faulting instruction leaves */
};

/* One module row: one load of a module image. */
struct modrow {
	int img;            /* program module */
	int64_t load, unload;
	uint64_t *cover;    /* executed addresses (open addressing, 0 = empty) */
	uint64_t ncover, cover_cap;
	uint64_t execs;     /* instruction records */
};

/* Code built at run time: an instruction decoded from memory. */
struct dynsite {
	struct site s;
	uint32_t gen;       /* page generation it was decoded at */
};

struct gen {
	const struct umtgen_params *par;
	umt_writer *w;
	struct pipe *pipe; /* writer calls during the run (pipe.c) */
	int64_t nins;      /* instruction rows */
	struct program prog;
	struct mem mem;
	struct thread *th;
	uint32_t nth;
	int mode64, old;
	uint32_t dump_size;
	umt_context_map cmap;
	struct dec_ctx dctx;
	struct xed_used used;
	/* distinct decoded bodies (site.dec - 1 is the number the pipe gives it) */
	struct decoded *decs;
	uint32_t ndecs, dcap;
	uint32_t *dec_hash;
	uint64_t dec_hash_cap;
	/* disassembly strings and their FPs */
	struct strent { uint64_t hash; int64_t number; char *text; } *strs;
	uint64_t str_cap, nstrs;
	/* module rows; the row each program module is mapped as now (-1) */
	struct modrow *mods;
	int nmods;
	size_t mcap;
	int row_of[MAX_MODULES];
	struct modrow floating; /* coverage of code outside modules */
	/* JIT code */
	struct dynsite *dyn;
	uint32_t ndyn;
	size_t dyncap;
	/* the kernel */
	uint64_t valloc_next;
	int64_t next_syscall;
	uint64_t kernel_rng;
	uint32_t used_syscalls; /* bit per SYS_*: for the syscall header */
	/* pages used, for the address space table */
	struct { uint64_t first, last; } *ranges;
	uint64_t nranges;
	size_t rcap;
	/* the run */
	uint64_t target; /* records to write */
	uint64_t now;    /* records written */
	uint64_t sched_rng;
	uint32_t cur, quantum;
	uint32_t nnew;   /* threads not begun yet */
	/* the truth */
	FILE *truth;
	uint64_t truth_every;
	struct { char name[16]; uint16_t off, size; } tregs[64];
	int ntregs;
	int failed;
};

/* Reports a failure once (generator bug or I/O) and returns -1. */
int gen_fail(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records: the next record's ID; an execution record. */
static inline uint64_t gen_now(const struct gen *g)
{
	return g->now;
}
int gen_record(struct gen *g, const umt_exec_desc *d);
/* A context record of @p t (its registers as the dump, @p n memory blocks). */
int gen_context(struct gen *g, struct thread *t, uint8_t type, int64_t sys_id,
                const umt_mem_ref *mem, uint32_t n, uint8_t flags);
uint8_t gen_mode_flag(const struct gen *g);

/* The run (run.c): records until the target, then the threads' ends. */
int gen_run(struct gen *g);
double gen_seconds(void);

/* Registers of a thread. */
static inline uint64_t reg64(const struct thread *t, unsigned off)
{
	uint64_t v;
	memcpy(&v, t->regs + off, 8);
	return v;
}
static inline void set_reg64(struct thread *t, unsigned off, uint64_t v)
{
	memcpy(t->regs + off, &v, 8);
}

/* Memory written by the kernel or a context record: the write and its truth line. */
void gen_kernel_write(struct gen *g, struct thread *t, uint64_t addr, const void *data,
                      uint64_t size, const char *by);
/* Truth: memory the kernel wrote, shown ("mem") before the thread's next record. */
void gen_pending_mem(struct thread *t, uint64_t addr, uint64_t size);
/* The pages [addr, addr + size) are used (address space table). */
int gen_range(struct gen *g, uint64_t addr, uint64_t size);

/* ---- rows.c: instruction rows ---------------------------------------------------- */

/* The site at @p rip of @p t (static or JIT), with its row for the current code. */
int rows_resolve(struct gen *g, struct thread *t, uint64_t rip, struct site **site,
                 const struct decoded **dec);
void rows_free(struct gen *g);

/* rows_resolve() when the thread's known site is at @p rip and its page
 * changed neither code nor permission since its row: 1, else 0. */
static inline int rows_known(struct gen *g, const struct thread *t, uint64_t rip,
                             struct site **site, const struct decoded **dec)
{
	if (t->site == NO_SITE)
		return 0;
	struct site *s = &g->prog.sites[t->site];
	if (s->addr != rip || s->row < 0 || s->page->gen != s->row_gen)
		return 0;
	*site = s;
	*dec = &g->decs[s->dec - 1];
	return 1;
}

/* ---- kernel.c ---------------------------------------------------------------------- */

int kernel_entry(struct gen *g, struct thread *t, uint8_t flags);
int kernel_exit(struct gen *g, struct thread *t, uint8_t flags);
/* Writes the syscall row of a call that never returned (EndEID -1). */
int kernel_unfinished(struct gen *g, struct thread *t);
int kernel_exception(struct gen *g, struct thread *t, uint8_t flags);
/* Maps a program module image as a new module row at record @p eid. */
int kernel_map_module(struct gen *g, int img, int64_t eid);
/* syscall_unified_id_v@p version.h naming the calls of @p used (a SYS_* bit mask). */
int kernel_write_header(const char *dir, int version, uint32_t used);

/* ---- tables.c ------------------------------------------------------------------------ */

int tables_context_map(struct gen *g);
int tables_finish(struct gen *g); /* modules, address ranges */
/* Adds @p addr to the executed addresses of module row @p row (-1: outside modules). */
void coverage_add(struct gen *g, int row, uint64_t addr);

/* ---- truth.c ---------------------------------------------------------------------------- */

void truth_regs_setup(struct gen *g);
void truth_regs(struct gen *g, const struct thread *t, uint64_t id);
void truth_mem(struct gen *g, uint64_t id, uint64_t addr, uint64_t size);
void truth_write(struct gen *g, uint64_t id, const struct thread *t, uint64_t addr,
                 const void *data, uint64_t size, const char *by);
void truth_call(struct gen *g, const struct thread *t, const struct frame *f, int64_t ret);
void truth_coverage(struct gen *g);

#endif
