/*
 * umtgen: what the program writers share (progbuild.c): shorthands that
 * emit one instruction in the code's width, the system modules (ntdll's
 * system call stubs, kernel32's wrappers), the application's globals and
 * its threads' entry points, and building blocks (statements) that both the
 * random program (randprog.c) and the sample's program (sampleprog.c) use.
 *
 * Conventions of the generated code: Windows x64 calls (rcx, rdx, r8, r9,
 * then the stack above 32 bytes of shadow space; rax returns) in 64-bit
 * code, cdecl in 32-bit code (arguments pushed, eax returns). rbx/ebx holds
 * the thread's data slice (loaded from the TEB's TLS pointer), rsi/rdi and
 * r12 are free callee-saved registers, every function saves all of them.
 */
#ifndef UMTGEN_PROGBUILD_H
#define UMTGEN_PROGBUILD_H

#include <stdint.h>

#include "program.h"
#include "util.h"

/* Offsets in a thread's data slice (rbx). */
enum {
	SL_STATE = 0x00,   /* dword: the task dispatcher's LCG state */
	SL_JIT_PTR = 0x08, /* the thread's JIT buffer, 0 until allocated */
	SL_JIT_PAT = 0x10, /* the 8 code bytes the JIT writes, changed each time */
	SL_SCRATCH = 0x20, /* 0x20 bytes for syscall outputs */
	SL_VARS = 0x40,    /* small variables up to 0x400 */
	SL_ARRAY = 0x400   /* indexed heap array; buffers in the slice's upper half */
};

/* Syscalls the kernel (kernel.c) implements; their stubs are in ntdll. */
enum {
	SYS_READ, SYS_WRITE, SYS_QPC, SYS_ALLOC, SYS_YIELD, SYS_MAP, SYS_UNMAP, SYS_CLOSE,
	SYS_WAIT, SYS_COUNT
};

/* The program being written and what the writers need to know about it. */
struct pctx {
	struct program *p;
	int m64;      /* 64-bit code */
	uint8_t w;    /* bytes of a pointer */
	int vectors;  /* xmm/ymm instructions allowed (2015 flavour) */
	uint64_t rng;
	int app, ntdll, k32, plugin; /* module indexes (plugin -1 when none) */
	uint32_t stub[SYS_COUNT];    /* ntdll stubs */
	uint32_t k_read, k_write, k_qpc, k_alloc, k_yield, k_map, k_unmap, k_wait; /* kernel32 */
	uint32_t g_pool;             /* 64 shared qwords */
	uint32_t g_lock, g_counter, g_iter, g_plugin_base, g_plugin_fn, g_fault_idx, g_ptrs;
	uint32_t plugin_entry;       /* the plugin's exported function */
	uint32_t plugin_load, plugin_unload; /* map it and publish its entry, the reverse */
	uint32_t jit_setup;          /* allocates the thread's JIT buffer */
	uint64_t slice_size;
	struct import { int module; uint32_t label, slot; } iat[64]; /* import slots per module */
	int niat;
};

uint64_t pc_rand(struct pctx *c);
uint32_t pc_below(struct pctx *c, uint32_t n);

/* Emit helpers: the label operands are flagged with the sym mask. */
void E0(struct pctx *c, uint8_t op);
void E1_(struct pctx *c, uint8_t op, struct opnd a);
void E2_(struct pctx *c, uint8_t op, struct opnd a, struct opnd b);
void E3_(struct pctx *c, uint8_t op, struct opnd a, struct opnd b, struct opnd d);
/*
 * E1-E3 through macros that evaluate the arguments last to first: C leaves
 * the order of a call's arguments open, and several of them draw from the
 * program's random sequence (an operation, a register, an immediate), so
 * that gcc (last to first) and clang (first to last) made other programs
 * from one seed. The order is gcc's, so that traces stay as they were.
 */
#define E1(c, op, a)                                                                          \
	do {                                                                                  \
		struct opnd e_a_ = (a);                                                       \
		E1_(c, (uint8_t)(op), e_a_);                                                  \
	} while (0)
#define E2(c, op, a, b)                                                                       \
	do {                                                                                  \
		struct opnd e_b_ = (b), e_a_ = (a);                                           \
		E2_(c, (uint8_t)(op), e_a_, e_b_);                                            \
	} while (0)
#define E3(c, op, a, b, d)                                                                    \
	do {                                                                                  \
		struct opnd e_d_ = (d), e_b_ = (b), e_a_ = (a);                               \
		E3_(c, (uint8_t)(op), e_a_, e_b_, e_d_);                                      \
	} while (0)
void Esym(struct pctx *c, struct insn in, uint8_t sym);
void Ejcc(struct pctx *c, uint8_t cc, uint32_t label, int short_form);
void Ejmp(struct pctx *c, uint32_t label, int short_form);
/* A call; into another module through an import slot (call [rip+slot]). */
void Ecall(struct pctx *c, uint32_t label);

/* Register operand of the code's width / a register of @p size. */
struct opnd R(struct pctx *c, uint8_t reg);
/* [base + disp] of @p size. */
struct opnd M(uint8_t size, uint8_t base, int64_t disp);
/* A global: [rip + label] in 64-bit code, [label] in 32-bit code; G_at adds @p off. */
struct opnd G(struct pctx *c, uint8_t size, uint32_t label);
struct opnd G_at(struct pctx *c, uint8_t size, uint32_t label, uint32_t off);
/* The address of a label as an immediate (mov r, imm). */
struct opnd L(struct pctx *c, uint32_t label);

/* Function frame: push rbp; mov rbp, rsp; push rbx rsi rdi (r12); sub rsp, FRAME. */
void fn_prologue(struct pctx *c, int load_slice);
/* The frame undone, the saved registers restored: before a ret or a tail jump. */
void fn_leave(struct pctx *c);
void fn_epilogue(struct pctx *c);
/* Locals of the frame: [rbp - local_off(i)], i in [0, LOCALS). */
#define LOCALS 8
int64_t local_off(const struct pctx *c, int i);
/* The first and second argument of the current function (after the prologue). */
struct opnd arg_in(struct pctx *c, int i);
/* Loads argument i (0 or 1) of a call about to be made. */
void set_arg(struct pctx *c, int i, struct opnd value);
/* A call with the arguments set by set_arg (cleans the stack in 32-bit code). */
void call_args(struct pctx *c, uint32_t label, int nargs);

/* The system modules (ntdll, kernel32) and the application's globals. */
int pb_system(struct pctx *c, uint64_t filetime_base);

/* The plugin module (mapped at run time) with one exported function: a
 * loop and a system call, or (@p small) a few instructions. */
void pb_plugin(struct pctx *c, int small);

/* Entry points: main (plugin management, then the task loop) and worker. */
void pb_entries(struct pctx *c, uint32_t task_table, int ntasks, int plugin_period);

/* ---- statements --------------------------------------------------------------------- */

void st_alu(struct pctx *c);
void st_local(struct pctx *c);
void st_heap(struct pctx *c);
void st_global(struct pctx *c);
void st_stack(struct pctx *c);
void st_teb(struct pctx *c);
void st_rep(struct pctx *c, int stos, uint16_t count);
void st_vector(struct pctx *c);
void st_lock(struct pctx *c, int spin);
void st_jit(struct pctx *c);
void st_read(struct pctx *c, uint32_t length);
void st_syscall(struct pctx *c, int which);
/* A call to @p fn whose dynamic cost the caller accounts for. */
void st_call(struct pctx *c, uint32_t fn, int how);
/* A guarded call of @p risky with a pointer from the fault table. */
void st_guarded(struct pctx *c, uint32_t risky);

#endif
