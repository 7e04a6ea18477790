/*
 * umtgen: emit helpers, function frames, the system modules and the
 * threads' entry points (see progbuild.h for the code's conventions).
 */
#include <stdio.h>

#include "machine.h"
#include "progbuild.h"

uint64_t pc_rand(struct pctx *c)
{
	return xorshift64s(&c->rng);
}

uint32_t pc_below(struct pctx *c, uint32_t n)
{
	return n ? (uint32_t)(((pc_rand(c) >> 32) * (uint64_t)n) >> 32) : 0;
}

/* ---- emitting ------------------------------------------------------------------------ */

void Esym(struct pctx *c, struct insn in, uint8_t sym)
{
	pb_emit(c->p, in, sym);
}

void E0(struct pctx *c, uint8_t op)
{
	Esym(c, ins0(op), 0);
}

void E1_(struct pctx *c, uint8_t op, struct opnd a)
{
	Esym(c, ins1(op, a), 0);
}

void E2_(struct pctx *c, uint8_t op, struct opnd a, struct opnd b)
{
	Esym(c, ins2(op, a, b), 0);
}

void E3_(struct pctx *c, uint8_t op, struct opnd a, struct opnd b, struct opnd d)
{
	Esym(c, ins3(op, a, b, d), 0);
}

static struct opnd symbolic(struct opnd o)
{
	o.hi = SYMBOLIC;
	return o;
}

void Ejcc(struct pctx *c, uint8_t cc, uint32_t label, int short_form)
{
	struct insn in = ins1(OP_JCC, symbolic(rel_(label)));
	in.cc = cc;
	in.pfx = short_form ? P_SHORT : 0;
	Esym(c, in, 0);
}

void Ejmp(struct pctx *c, uint32_t label, int short_form)
{
	struct insn in = ins1(OP_JMP, symbolic(rel_(label)));
	in.pfx = short_form ? P_SHORT : 0;
	Esym(c, in, 0);
}

/* The current module's import slot holding the address of @p label. */
static uint32_t import_slot(struct pctx *c, uint32_t label)
{
	for (int i = 0; i < c->niat; i++)
		if (c->iat[i].module == c->p->cur && c->iat[i].label == label)
			return c->iat[i].slot;
	uint32_t slot = pb_data(c->p, c->w, c->w, NULL);
	pb_data_addr(c->p, slot, 0, label, c->w);
	if (c->niat < (int)(sizeof c->iat / sizeof c->iat[0]))
		c->iat[c->niat++] = (struct import){c->p->cur, label, slot};
	return slot;
}

void Ecall(struct pctx *c, uint32_t label)
{
	int m = pb_label_module(c->p, label);
	if (m >= 0 && m != c->p->cur) /* modules are far apart: calls go through imports */
		E1(c, OP_CALL, G(c, c->w, import_slot(c, label)));
	else
		E1(c, OP_CALL, symbolic(rel_(label)));
}

struct opnd R(struct pctx *c, uint8_t reg)
{
	return r_(reg, c->w);
}

struct opnd M(uint8_t size, uint8_t base, int64_t disp)
{
	return m_(size, base, REG_NONE, 1, disp);
}

struct opnd G(struct pctx *c, uint8_t size, uint32_t label)
{
	return symbolic(c->m64 ? mrip_(size, label) : m_(size, REG_NONE, REG_NONE, 1, label));
}

struct opnd G_at(struct pctx *c, uint8_t size, uint32_t label, uint32_t off)
{
	struct opnd o = G(c, size, label);
	o.val = (int64_t)((uint64_t)label | (uint64_t)off << 32);
	return o;
}

struct opnd L(struct pctx *c, uint32_t label)
{
	return symbolic(i_(c->w, label));
}

/* ---- frames ------------------------------------------------------------------------------ */

#define FRAME64 0x90 /* 0x50 of outgoing arguments, 8 locals */
#define FRAME32 0x30 /* 8 locals (cdecl pushes its arguments below) */

int64_t local_off(const struct pctx *c, int i)
{
	return c->m64 ? 0x28 + 8 * i : 0x14 + 4 * i;
}

void fn_prologue(struct pctx *c, int load_slice)
{
	E1(c, OP_PUSH, R(c, G_BP));
	E2(c, OP_MOV, R(c, G_BP), R(c, G_SP));
	E1(c, OP_PUSH, R(c, G_BX));
	E1(c, OP_PUSH, R(c, G_SI));
	E1(c, OP_PUSH, R(c, G_DI));
	if (c->m64)
		E1(c, OP_PUSH, R(c, G_12));
	E2(c, OP_SUB, R(c, G_SP), i_(c->w, c->m64 ? FRAME64 : FRAME32));
	if (load_slice) /* the thread's data slice: the TEB's TLS pointer */
		E2(c, OP_MOV, R(c, G_BX), mseg_(c->w, c->m64 ? SEG_GS : SEG_FS, c->m64 ? 0x58 : 0x2c));
	if (c->m64) { /* arguments arrive in rcx, rdx: keep them in locals 6 and 7 */
		E2(c, OP_MOV, M(8, G_BP, -local_off(c, 6)), R(c, G_CX));
		E2(c, OP_MOV, M(8, G_BP, -local_off(c, 7)), R(c, G_DX));
	}
}

void fn_leave(struct pctx *c)
{
	E2(c, OP_ADD, R(c, G_SP), i_(c->w, c->m64 ? FRAME64 : FRAME32));
	if (c->m64)
		E1(c, OP_POP, R(c, G_12));
	E1(c, OP_POP, R(c, G_DI));
	E1(c, OP_POP, R(c, G_SI));
	E1(c, OP_POP, R(c, G_BX));
	E1(c, OP_POP, R(c, G_BP));
}

void fn_epilogue(struct pctx *c)
{
	fn_leave(c);
	E0(c, OP_RET);
}

struct opnd arg_in(struct pctx *c, int i)
{
	if (c->m64)
		return M(8, G_BP, -local_off(c, 6 + i));
	return M(4, G_BP, 8 + 4 * i);
}

void set_arg(struct pctx *c, int i, struct opnd value)
{
	if (c->m64)
		E2(c, OP_MOV, R(c, i == 0 ? G_CX : G_DX), value);
	else
		E1(c, OP_PUSH, value);
}

void call_args(struct pctx *c, uint32_t label, int nargs)
{
	Ecall(c, label);
	if (!c->m64 && nargs > 0)
		E2(c, OP_ADD, R(c, G_SP), i_(4, 4 * nargs));
}

/* ---- the system modules ----------------------------------------------------------------- */

#include "kernel.h"

/* ntdll's stub of a system call: the service number in eax, then syscall
 * (64-bit: the first argument moves to r10) or int 0x2e (32-bit: edx points
 * to the arguments on the stack). */
static void stub(struct pctx *c, int which)
{
	c->stub[which] = pb_label(c->p);
	pb_bind(c->p, c->stub[which]);
	if (c->m64) {
		E2(c, OP_MOV, R(c, G_10), R(c, G_CX));
		E2(c, OP_MOV, r_(G_AX, 4), i_(4, sysdefs[which].raw));
		E0(c, OP_SYSCALL);
	} else {
		E2(c, OP_MOV, r_(G_AX, 4), i_(4, sysdefs[which].raw));
		E2(c, OP_LEA, R(c, G_DX), M(4, G_SP, 4));
		E1(c, OP_INT, i_(1, 0x2e));
	}
	E0(c, OP_RET);
}

/* Argument @p i of an NT call about to be made in 64-bit code (4 and up on
 * the stack above the shadow space) from a value. */
static void nt_arg64(struct pctx *c, int i, struct opnd v)
{
	static const uint8_t regs[4] = {G_CX, G_DX, G_8, G_9};
	if (i < 4) {
		E2(c, OP_MOV, R(c, regs[i]), v);
	} else if (v.kind == O_IMM) {
		E2(c, OP_MOV, M(8, G_SP, 8 * i), v);
	} else {
		E2(c, OP_MOV, R(c, G_AX), v);
		E2(c, OP_MOV, M(8, G_SP, 8 * i), R(c, G_AX));
	}
}

/*
 * Calls NT function @p which with @p n arguments: each is an immediate, a
 * memory operand or a local's address (kind O_MEM with base rbp and
 * LOCAL_ADDR in scale). 64-bit: registers and stack slots; 32-bit: pushed
 * right to left, the stack cleaned after.
 */
#define LOCAL_ADDR 0x40
static void nt_call(struct pctx *c, int which, const struct opnd *args, int n)
{
	for (int k = 0; k < n; k++) {
		int i = c->m64 ? k : n - 1 - k;
		struct opnd v = args[i];
		if (v.kind == O_MEM && v.scale == LOCAL_ADDR) { /* the address of a local */
			v.scale = 1;
			E2(c, OP_LEA, R(c, G_AX), v);
			v = R(c, G_AX);
		}
		if (c->m64)
			nt_arg64(c, i, v);
		else
			E1(c, OP_PUSH, v);
	}
	call_args(c, c->stub[which], c->m64 ? 0 : n);
}

static struct opnd local_addr(struct pctx *c, int i)
{
	struct opnd o = M(c->w, G_BP, -local_off(c, i));
	o.scale = LOCAL_ADDR;
	return o;
}

static struct opnd local(struct pctx *c, int i)
{
	return M(c->w, G_BP, -local_off(c, i));
}

static uint32_t begin_fn(struct pctx *c)
{
	uint32_t l = pb_label(c->p);
	pb_bind(c->p, l);
	fn_prologue(c, 0);
	return l;
}

/* kernel32: ReadFile(buffer, length) and WriteFile(buffer, length) on handle
 * 0x44, the I/O status block in locals 0 and 1; they return Information. */
static uint32_t k32_io(struct pctx *c, int which)
{
	uint32_t l = begin_fn(c);
	int iosb = 1; /* local 1 is the lower address: Status, then Information (local 0) */
	struct opnd args[9] = {i_(c->w, 0x44), i_(c->w, 0), i_(c->w, 0), i_(c->w, 0),
	                       local_addr(c, iosb), arg_in(c, 0), arg_in(c, 1), i_(c->w, 0),
	                       i_(c->w, 0)};
	nt_call(c, which, args, 9);
	E2(c, OP_MOV, R(c, G_AX), local(c, 0));
	fn_epilogue(c);
	return l;
}

static uint32_t k32_functions(struct pctx *c)
{
	c->k_read = k32_io(c, SYS_READ);
	c->k_write = k32_io(c, SYS_WRITE);
	c->k_qpc = begin_fn(c); /* QueryPerformanceCounter(counter) */
	struct opnd qpc[2] = {arg_in(c, 0), i_(c->w, 0)};
	nt_call(c, SYS_QPC, qpc, 2);
	fn_epilogue(c);
	c->k_alloc = begin_fn(c); /* VirtualAlloc(size): RWX pages, returns their address */
	E2(c, OP_MOV, local(c, 0), i_(c->w, 0));
	E2(c, OP_MOV, R(c, G_AX), arg_in(c, 0));
	E2(c, OP_MOV, local(c, 1), R(c, G_AX));
	struct opnd alloc[6] = {i_(c->w, -1), local_addr(c, 0), i_(c->w, 0), local_addr(c, 1),
	                        i_(c->w, 0x3000), i_(c->w, 0x40)};
	nt_call(c, SYS_ALLOC, alloc, 6);
	E2(c, OP_MOV, R(c, G_AX), local(c, 0));
	fn_epilogue(c);
	c->k_yield = begin_fn(c); /* SwitchToThread() */
	nt_call(c, SYS_YIELD, NULL, 0);
	fn_epilogue(c);
	c->k_map = begin_fn(c); /* LoadPlugin(): maps section 0x88, returns its address */
	E2(c, OP_MOV, local(c, 0), i_(c->w, 0));
	E2(c, OP_MOV, local(c, 1), i_(c->w, 0));
	struct opnd map[10] = {i_(c->w, 0x88), i_(c->w, -1), local_addr(c, 0), i_(c->w, 0),
	                       i_(c->w, 0), i_(c->w, 0), local_addr(c, 1), i_(c->w, 1),
	                       i_(c->w, 0), i_(c->w, 0x20)};
	nt_call(c, SYS_MAP, map, 10);
	E2(c, OP_MOV, R(c, G_AX), local(c, 0));
	fn_epilogue(c);
	c->k_unmap = begin_fn(c); /* UnloadPlugin(base) */
	struct opnd unmap[2] = {i_(c->w, -1), arg_in(c, 0)};
	nt_call(c, SYS_UNMAP, unmap, 2);
	fn_epilogue(c);
	c->k_wait = begin_fn(c); /* WaitForever(): an event nobody sets (handle 0x48) */
	struct opnd wait[3] = {i_(c->w, 0x48), i_(c->w, 0), i_(c->w, 0)};
	nt_call(c, SYS_WAIT, wait, 3);
	fn_epilogue(c);
	return 0;
}

/* The application's shared globals. */
static void app_globals(struct pctx *c)
{
	c->g_pool = pb_data(c->p, 64 * 8, 64, NULL);
	c->g_lock = pb_data(c->p, 8, 8, NULL);
	c->g_counter = pb_data(c->p, 8, 8, NULL);
	c->g_iter = pb_data(c->p, 8, 8, NULL);
	c->g_plugin_base = pb_data(c->p, 8, 8, NULL);
	c->g_plugin_fn = pb_data(c->p, 8, 8, NULL);
	c->g_fault_idx = pb_data(c->p, 8, 8, NULL);
	uint32_t scratch = pb_data(c->p, 64, 64, NULL);
	/* pointers handed to risky functions: scratch memory, except entry 2 (the
	 * null page: reads and writes fault) and entry 5 (the code of jit_setup:
	 * readable, writes fault) */
	uint8_t init[64] = {0};
	init[2 * c->w] = 0x10;
	c->g_ptrs = pb_data(c->p, 8 * (uint64_t)c->w, 8, init);
	for (int i = 0; i < 8; i++)
		if (i != 2)
			pb_data_addr(c->p, c->g_ptrs, (uint64_t)i * c->w, i == 5 ? c->jit_setup : scratch,
			             c->w);
}

/* jit_setup(): allocates the thread's JIT buffer, writes the JIT pattern's
 * first version (mov eax, imm32; add eax, ecx; ret with imm32 0) and seeds
 * the task dispatcher with the thread ID (from the TEB). */
static void jit_setup(struct pctx *c)
{
	pb_bind(c->p, c->jit_setup);
	fn_prologue(c, 1);
	set_arg(c, 0, i_(c->w, 0x1000));
	call_args(c, c->k_alloc, 1);
	E2(c, OP_MOV, M(c->w, G_BX, SL_JIT_PTR), R(c, G_AX));
	if (c->m64) {
		E2(c, OP_MOV, R(c, G_AX), i_(8, (int64_t)0xc3c80100000000b8ull));
		E2(c, OP_MOV, M(8, G_BX, SL_JIT_PAT), R(c, G_AX));
	} else {
		E2(c, OP_MOV, M(4, G_BX, SL_JIT_PAT), i_(4, 0xb8));
		E2(c, OP_MOV, M(4, G_BX, SL_JIT_PAT + 4), i_(4, (int64_t)(int32_t)0xc3c80100));
	}
	E2(c, OP_MOV, r_(G_AX, 4), mseg_(4, c->m64 ? SEG_GS : SEG_FS, c->m64 ? 0x48 : 0x24));
	E2(c, OP_MOV, M(4, G_BX, SL_STATE), r_(G_AX, 4));
	fn_epilogue(c);
}

/* plugin_load() maps the plugin once and publishes its entry point;
 * plugin_unload() unpublishes it, then unmaps it. Only main calls them. */
static uint32_t plugin_load(struct pctx *c)
{
	uint32_t l = begin_fn(c), done = pb_label(c->p);
	E2(c, OP_MOV, R(c, G_AX), G(c, c->w, c->g_plugin_base));
	E2(c, OP_TEST, R(c, G_AX), R(c, G_AX));
	Ejcc(c, CC_NZ, done, 1);
	call_args(c, c->k_map, 0);
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_base), R(c, G_AX));
	E2(c, OP_TEST, R(c, G_AX), R(c, G_AX));
	Ejcc(c, CC_Z, done, 1);
	E2(c, OP_MOV, R(c, G_AX), L(c, c->plugin_entry));
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_fn), R(c, G_AX));
	pb_bind(c->p, done);
	fn_epilogue(c);
	return l;
}

static uint32_t plugin_unload(struct pctx *c)
{
	uint32_t l = begin_fn(c), done = pb_label(c->p);
	E2(c, OP_MOV, R(c, G_AX), G(c, c->w, c->g_plugin_base));
	E2(c, OP_TEST, R(c, G_AX), R(c, G_AX));
	Ejcc(c, CC_Z, done, 1);
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_fn), i_(c->w, 0));
	set_arg(c, 0, R(c, G_AX));
	call_args(c, c->k_unmap, 1);
	E2(c, OP_MOV, G(c, c->w, c->g_plugin_base), i_(c->w, 0));
	pb_bind(c->p, done);
	fn_epilogue(c);
	return l;
}

int pb_system(struct pctx *c, uint64_t filetime_base)
{
	static const uint16_t app_ver[4] = {1, 0, 0, 7}, nt_ver[4] = {6, 1, 7601, 17514},
	                      k32_ver[4] = {6, 1, 7601, 17651};
	c->w = c->m64 ? 8 : 4;
	c->app = pb_module(c->p, "C:\\Program Files\\UMTGen\\app.exe",
	                   c->m64 ? 0x140000000ull : 0x400000ull, 0, filetime_base, app_ver);
	c->jit_setup = pb_label(c->p);
	c->plugin_entry = pb_label(c->p);
	app_globals(c);
	c->ntdll = pb_module(c->p, "C:\\Windows\\System32\\ntdll.dll",
	                     c->m64 ? 0x7ffd00000000ull : 0x77000000ull, 0,
	                     filetime_base - 2931000000000ull, nt_ver);
	for (int i = 0; i < SYS_COUNT; i++)
		stub(c, i);
	c->k32 = pb_module(c->p, "C:\\Windows\\System32\\kernel32.dll",
	                   c->m64 ? 0x7ff800000000ull : 0x76000000ull, 0,
	                   filetime_base - 2930000000000ull, k32_ver);
	k32_functions(c);
	pb_select(c->p, c->app);
	jit_setup(c);
	c->plugin_load = plugin_load(c);
	c->plugin_unload = plugin_unload(c);
	return c->p->failed ? -1 : 0;
}

void pb_plugin(struct pctx *c, int small)
{
	static const uint16_t ver[4] = {2, 3, 0, 41};
	int cur = c->p->cur;
	c->plugin = pb_module(c->p, "C:\\Program Files\\UMTGen\\plugin.dll",
	                      c->m64 ? 0x180000000ull : 0x6d000000ull, 1, 130791744000000000ull, ver);
	c->p->abi.plugin_module = c->plugin;
	c->p->abi.section_handle = 0x88;
	pb_bind(c->p, c->plugin_entry); /* plugin_entry(x): some work, a system call */
	fn_prologue(c, 1);
	if (small) { /* x * 3 + 1 */
		E2(c, OP_MOV, R(c, G_AX), arg_in(c, 0));
		E2(c, OP_LEA, R(c, G_AX), m_(c->w, G_AX, G_AX, 2, 1));
		fn_epilogue(c);
		pb_select(c->p, cur);
		return;
	}
	uint32_t loop = pb_label(c->p);
	E2(c, OP_MOV, M(4, G_BP, -local_off(c, 0)), i_(4, 3));
	pb_bind(c->p, loop);
	st_alu(c);
	st_heap(c);
	E1(c, OP_DEC, M(4, G_BP, -local_off(c, 0)));
	Ejcc(c, CC_NZ, loop, 0);
	st_syscall(c, SYS_QPC);
	E2(c, OP_MOV, R(c, G_AX), arg_in(c, 0));
	fn_epilogue(c);
	pb_select(c->p, cur);
}

/* The dispatcher: a per-thread LCG picks the next task from the table. */
static void dispatch(struct pctx *c, uint32_t task_table, int ntasks)
{
	E2(c, OP_MOV, r_(G_AX, 4), M(4, G_BX, SL_STATE));
	E3(c, OP_IMUL, r_(G_AX, 4), r_(G_AX, 4), i_(4, 0x41c64e6d));
	E2(c, OP_ADD, r_(G_AX, 4), i_(4, 0x3039));
	E2(c, OP_MOV, M(4, G_BX, SL_STATE), r_(G_AX, 4));
	E2(c, OP_SHR, r_(G_AX, 4), i_(1, 16));
	E2(c, OP_AND, r_(G_AX, 4), i_(4, ntasks - 1));
	E2(c, OP_MOV, r_(G_CX, 4), r_(G_AX, 4)); /* the task's argument */
	if (c->m64) {
		struct opnd tab = G(c, 8, task_table);
		E2(c, OP_LEA, R(c, G_DX), tab);
		E1(c, OP_CALL, m_(8, G_DX, G_AX, 8, 0));
	} else {
		struct opnd tab = G(c, 4, task_table);
		tab.index = G_AX;
		tab.scale = 4;
		E1(c, OP_PUSH, R(c, G_CX));
		E1(c, OP_CALL, tab);
		E2(c, OP_ADD, R(c, G_SP), i_(4, 4));
	}
}

/* main: the plugin comes and goes with the iteration count (loaded at 1,
 * unloaded at half the period), is called while loaded; then a task. */
static void main_loop_plugin(struct pctx *c, int period)
{
	uint32_t no_load = pb_label(c->p), no_unload = pb_label(c->p), no_call = pb_label(c->p);
	E1(c, OP_INC, G(c, 4, c->g_iter));
	E2(c, OP_MOV, r_(G_AX, 4), G(c, 4, c->g_iter));
	E2(c, OP_AND, r_(G_AX, 4), i_(4, period - 1));
	E2(c, OP_CMP, r_(G_AX, 4), i_(4, 1));
	Ejcc(c, CC_NZ, no_load, 1);
	Ecall(c, c->plugin_load);
	pb_bind(c->p, no_load);
	E2(c, OP_CMP, r_(G_AX, 4), i_(4, period / 2));
	Ejcc(c, CC_NZ, no_unload, 1);
	Ecall(c, c->plugin_unload);
	pb_bind(c->p, no_unload);
	E2(c, OP_MOV, R(c, G_AX), G(c, c->w, c->g_plugin_fn));
	E2(c, OP_TEST, R(c, G_AX), R(c, G_AX));
	Ejcc(c, CC_Z, no_call, 1);
	set_arg(c, 0, i_(c->w, 9));
	E1(c, OP_CALL, R(c, G_AX));
	if (!c->m64)
		E2(c, OP_ADD, R(c, G_SP), i_(4, 4));
	pb_bind(c->p, no_call);
}

void pb_entries(struct pctx *c, uint32_t task_table, int ntasks, int plugin_period)
{
	for (int worker = 0; worker < 2; worker++) {
		uint32_t entry = pb_label(c->p), loop = pb_label(c->p);
		pb_bind(c->p, entry);
		E2(c, OP_MOV, R(c, G_BX), mseg_(c->w, c->m64 ? SEG_GS : SEG_FS, c->m64 ? 0x58 : 0x2c));
		if (c->m64) /* entered with rsp 8 modulo 16: align it for calls */
			E2(c, OP_SUB, R(c, G_SP), i_(8, 0x28));
		Ecall(c, c->jit_setup);
		pb_bind(c->p, loop);
		if (!worker && c->plugin >= 0)
			main_loop_plugin(c, plugin_period);
		dispatch(c, task_table, ntasks);
		Ejmp(c, loop, 0);
		if (worker)
			c->p->abi.worker_label = entry;
		else
			c->p->abi.main_label = entry;
	}
}
