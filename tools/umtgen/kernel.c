/*
 * umtgen: the simulated kernel.
 *
 * A system call is three records of its thread: the syscall (or int 0x2e)
 * instruction, the entry (a register dump: rip already after the
 * instruction, the service number in eax) and, when the kernel returns, the
 * exit: the dump after the call (the status in rax; rcx and r11 hold what
 * syscall put there) with every byte the kernel wrote as a memory block.
 * Arguments follow the Windows x64 convention (r10, rdx, r8, r9, then the
 * stack above the shadow space), or the stack at edx in 32-bit code.
 *
 * A fault is dispatched like Windows' table-based unwinding: the innermost
 * guarded call on the thread's stack catches it; the kernel writes an
 * EXCEPTION_RECORD below the faulting stack pointer (the exception context
 * record's memory block) and resumes at the handler with the stack pointer
 * of before that call, the callee-saved registers it had then, rax the
 * exception code and rcx the record's address. The frames in between are
 * abandoned.
 */
#include <stdlib.h>

#include "kernel.h"
#include "pipe.h"
#include "progbuild.h"
#include "sim.h"

const struct sysdef sysdefs[] = {
	[SYS_READ] = {"NtReadFile", 0x03, 9, {0x160, 0x16c}},
	[SYS_WRITE] = {"NtWriteFile", 0x05, 9, {0x1f2, 0x201}},
	[SYS_QPC] = {"NtQueryPerformanceCounter", 0x2e, 2, {0x13f, 0x14a}},
	[SYS_ALLOC] = {"NtAllocateVirtualMemory", 0x15, 6, {0x011, 0x012}},
	[SYS_YIELD] = {"NtYieldExecution", 0x46, 0, {0x1fc, 0x20b}},
	[SYS_MAP] = {"NtMapViewOfSection", 0x25, 10, {0x0dd, 0x0e4}},
	[SYS_UNMAP] = {"NtUnmapViewOfSection", 0x27, 2, {0x1d4, 0x1e2}},
	[SYS_CLOSE] = {"NtClose", 0x0c, 1, {0x039, 0x03b}},
	[SYS_WAIT] = {"NtWaitForSingleObject", 0x01, 3, {0x1e8, 0x1f7}},
};
const int sysdef_count = SYS_COUNT;

#define STATUS_SUCCESS 0u
#define STATUS_ACCESS_VIOLATION 0xc0000005u
#define STATUS_CONFLICTING_ADDRESSES 0xc0000018u
#define STATUS_NOT_MAPPED_VIEW 0xc0000019u

static uint64_t kernel_rand(struct gen *g)
{
	return xorshift64s(&g->kernel_rng);
}

static unsigned word(const struct gen *g)
{
	return g->mode64 ? 8 : 4;
}

/* ---- entry -------------------------------------------------------------------------------- */

int kernel_entry(struct gen *g, struct thread *t, uint8_t flags)
{
	uint64_t number = reg64(t, RF_GPR(G_AX)) & 0xffffffffu;
	int which = -1;
	for (int i = 0; i < SYS_COUNT; i++)
		if (sysdefs[i].raw == number)
			which = i;
	if (which < 0)
		return gen_fail(g, "thread %d calls unknown system service 0x%llx", t->id,
		                (unsigned long long)number);
	t->sys.which = which;
	t->sys.id = g->next_syscall++;
	t->sys.begin = gen_now(g);
	t->sys.sp = reg64(t, RF_GPR(G_SP));
	/* 64-bit calls report at least 4 arguments (the spec's ArgCount) */
	t->sys.nargs = (uint8_t)(g->mode64 && sysdefs[which].nargs < 4 ? 4 : sysdefs[which].nargs);
	for (unsigned i = 0; i < t->sys.nargs; i++) {
		static const uint8_t regs[4] = {G_10, G_DX, G_8, G_9};
		if (g->mode64 && i < 4)
			t->sys.args[i] = reg64(t, RF_GPR(regs[i]));
		else if (g->mode64)
			t->sys.args[i] = mem_get64(&g->mem, t->sys.sp + 0x28 + 8 * (i - 4), 8);
		else
			t->sys.args[i] = mem_get64(&g->mem, (reg64(t, RF_GPR(G_DX)) + 4 * i) & 0xffffffffu, 4);
	}
	t->state = TS_KERNEL;
	/* the kernel keeps the thread a while; yielding, longer */
	uint64_t pause = 1 + kernel_rand(g) % (6 * (uint64_t)g->nth + 2);
	t->wake_at = gen_now(g) + 1 + (which == SYS_YIELD ? 4 * pause : pause);
	if (which == SYS_WAIT) /* the event is never set: the call never returns */
		t->wake_at = UINT64_MAX;
	return gen_context(g, t, UMT_REC_SYSCALL_ENTRY, t->sys.id, NULL, 0, flags);
}

/* ---- the kernel's work --------------------------------------------------------------------- */

/* What the kernel wrote during one call: the exit record's memory blocks. */
struct kwrites {
	umt_mem_ref m[4];
	uint32_t n;
	uint8_t *buf; /* copies of the written bytes, for the record */
	uint64_t used, cap;
};

static int kw_put(struct gen *g, struct thread *t, struct kwrites *kw, uint64_t addr,
                  const void *data, uint64_t size)
{
	if (kw->used + size > kw->cap) {
		uint64_t cap = kw->cap ? kw->cap : 65536;
		while (cap < kw->used + size)
			cap *= 2;
		uint8_t *b = realloc(kw->buf, cap);
		if (b == NULL)
			return gen_fail(g, "out of memory");
		kw->buf = b;
		kw->cap = cap;
	}
	gen_kernel_write(g, t, addr, data, size, "syscall");
	memcpy(kw->buf + kw->used, data, size);
	kw->m[kw->n++] = (umt_mem_ref){addr, size, NULL}; /* data pointers set at the end */
	kw->used += size;
	return 0;
}

/* A pointer-sized out parameter. */
static int kw_word(struct gen *g, struct thread *t, struct kwrites *kw, uint64_t addr,
                   uint64_t value)
{
	return kw_put(g, t, kw, addr, &value, word(g));
}

static int writable(struct gen *g, uint64_t addr, uint64_t size)
{
	return addr != 0 && mem_ok(&g->mem, addr, size, PERM_W);
}

/* NtReadFile writes the file's bytes into Buffer, then the I/O status block
 * (NtWriteFile only the status block). */
static int sys_io(struct gen *g, struct thread *t, struct kwrites *kw, int read, uint64_t *status)
{
	const uint64_t *a = t->sys.args;
	uint64_t iosb = a[4], buffer = a[5], length = a[6] & 0xffffffffu;
	*status = STATUS_ACCESS_VIOLATION;
	if (!writable(g, iosb, 2 * (uint64_t)word(g)) || (read && !writable(g, buffer, length)))
		return 0;
	if (read) { /* the file: text, deterministic for the seed */
		static const char alphabet[] = "etaoin shrdlucmfwypvbgkjqxz,.\n0123456789";
		uint8_t *data = malloc(length ? length : 1);
		if (data == NULL)
			return gen_fail(g, "out of memory");
		for (uint64_t i = 0; i < length; i++)
			data[i] = (uint8_t)alphabet[kernel_rand(g) % (sizeof alphabet - 1)];
		int rc = kw_put(g, t, kw, buffer, data, length);
		free(data);
		if (rc < 0)
			return -1;
	}
	*status = STATUS_SUCCESS;
	return kw_word(g, t, kw, iosb, STATUS_SUCCESS) < 0 ||
	       kw_word(g, t, kw, iosb + word(g), length) < 0 ? -1 : 0;
}

/* NtAllocateVirtualMemory: fresh pages (executable for PAGE_EXECUTE_READWRITE),
 * their address and size written back. */
static int sys_alloc(struct gen *g, struct thread *t, struct kwrites *kw, uint64_t *status)
{
	const uint64_t *a = t->sys.args;
	unsigned w = word(g);
	*status = STATUS_ACCESS_VIOLATION;
	if (!writable(g, a[1], w) || !writable(g, a[3], w))
		return 0;
	uint64_t size = (mem_get64(&g->mem, a[3], w) + PAGE_MASK) & ~PAGE_MASK, base = g->valloc_next;
	if (size == 0 || size > (1u << 24))
		size = PAGE_SIZE;
	g->valloc_next += size + 0x10000;
	if (mem_map(&g->mem, base, size, PERM_R | PERM_W | (a[5] == 0x40 ? PERM_X : 0)) < 0 ||
	    gen_range(g, base, size) < 0)
		return gen_fail(g, "out of memory");
	*status = STATUS_SUCCESS;
	return kw_word(g, t, kw, a[1], base) < 0 || kw_word(g, t, kw, a[3], size) < 0 ? -1 : 0;
}

int kernel_map_module(struct gen *g, int img, int64_t eid)
{
	const struct module_img *m = &g->prog.mods[img];
	if (mem_map(&g->mem, m->base, m->data_start - m->base, PERM_R | PERM_X) < 0 ||
	    mem_map(&g->mem, m->data_start, m->end - m->data_start, PERM_R | PERM_W) < 0 ||
	    gen_range(g, m->base, m->end - m->base) < 0)
		return gen_fail(g, "out of memory");
	struct modrow *r = grow(g->mods, &g->mcap, (size_t)g->nmods, sizeof *r, 8);
	if (r == NULL)
		return gen_fail(g, "out of memory");
	g->mods = r;
	r += g->nmods;
	memset(r, 0, sizeof *r);
	r->img = img;
	r->load = eid;
	r->unload = -1;
	g->row_of[img] = g->nmods++;
	return 0;
}

/* NtMapViewOfSection of the plugin's section: its image, written by the
 * kernel (the whole image is a memory block), and a new module row. */
static int sys_map(struct gen *g, struct thread *t, struct kwrites *kw, uint64_t *status)
{
	const uint64_t *a = t->sys.args;
	int img = g->prog.abi.plugin_module;
	*status = STATUS_CONFLICTING_ADDRESSES;
	if (img < 0 || a[0] != g->prog.abi.section_handle || g->row_of[img] >= 0 ||
	    !writable(g, a[2], word(g)) || !writable(g, a[6], word(g)))
		return 0;
	const struct module_img *m = &g->prog.mods[img];
	if (kernel_map_module(g, img, (int64_t)gen_now(g)) < 0)
		return -1;
	int rc = kw_put(g, t, kw, m->base, m->image, m->end - m->base);
	*status = STATUS_SUCCESS;
	return rc < 0 || kw_word(g, t, kw, a[2], m->base) < 0 ||
	       kw_word(g, t, kw, a[6], m->end - m->base) < 0 ? -1 : 0;
}

static int sys_unmap(struct gen *g, struct thread *t, uint64_t *status)
{
	int img = g->prog.abi.plugin_module;
	*status = STATUS_NOT_MAPPED_VIEW;
	if (img < 0 || g->row_of[img] < 0 || t->sys.args[1] != g->prog.mods[img].base)
		return 0;
	const struct module_img *m = &g->prog.mods[img];
	mem_unmap(&g->mem, m->base, m->end - m->base);
	g->mods[g->row_of[img]].unload = (int64_t)gen_now(g);
	g->row_of[img] = -1;
	*status = STATUS_SUCCESS;
	return 0;
}

/* NtQueryPerformanceCounter: a 100 ns counter that follows the records. */
static int sys_qpc(struct gen *g, struct thread *t, struct kwrites *kw, uint64_t *status)
{
	const uint64_t *a = t->sys.args;
	*status = STATUS_ACCESS_VIOLATION;
	if (!writable(g, a[0], 8) || (a[1] && !writable(g, a[1], 8)))
		return 0;
	uint64_t counter = 0x2d6a1c8e000ull + 16 * gen_now(g), freq = 10000000;
	*status = STATUS_SUCCESS;
	if (kw_put(g, t, kw, a[0], &counter, 8) < 0)
		return -1;
	return a[1] ? kw_put(g, t, kw, a[1], &freq, 8) : 0;
}

static int write_row(struct gen *g, struct thread *t, int64_t end, int completed,
                     uint64_t result)
{
	const struct sysdef *s = &sysdefs[t->sys.which];
	int64_t args[12];
	for (unsigned i = 0; i < t->sys.nargs; i++)
		args[i] = (int64_t)t->sys.args[i];
	umt_syscall_desc d = {
		.raw_id = (int16_t)s->raw, .uniform_id = s->uid[g->old ? 0 : 1],
		.convention = g->mode64 ? UMT_SYSCALL_CONV_FAST64 : UMT_SYSCALL_CONV_ALT,
		.completed = (uint8_t)completed, .begin_eid = (int64_t)t->sys.begin, .end_eid = end,
		.before_sp = (int64_t)t->sys.sp, .result = (int64_t)result, .args = args,
		.arg_count = t->sys.nargs,
	};
	g->used_syscalls |= 1u << t->sys.which;
	if (pipe_syscall(g->pipe, t->sys.id, &d) < 0)
		return gen_fail(g, "the writer stopped");
	return 0;
}

int kernel_unfinished(struct gen *g, struct thread *t)
{
	return write_row(g, t, -1, 0, 0);
}

int kernel_exit(struct gen *g, struct thread *t, uint8_t flags)
{
	struct kwrites kw = {.n = 0};
	uint64_t status = STATUS_SUCCESS;
	int rc = 0;
	switch (t->sys.which) {
	case SYS_READ: rc = sys_io(g, t, &kw, 1, &status); break;
	case SYS_WRITE: rc = sys_io(g, t, &kw, 0, &status); break;
	case SYS_ALLOC: rc = sys_alloc(g, t, &kw, &status); break;
	case SYS_MAP: rc = sys_map(g, t, &kw, &status); break;
	case SYS_UNMAP: rc = sys_unmap(g, t, &status); break;
	case SYS_QPC: rc = sys_qpc(g, t, &kw, &status); break;
	default: break; /* NtYieldExecution, NtClose: nothing to write */
	}
	uint64_t off = 0;
	for (uint32_t i = 0; i < kw.n; i++) { /* the blocks' bytes, now that the buffer stays */
		kw.m[i].data = kw.buf + off;
		off += kw.m[i].size;
		gen_pending_mem(t, kw.m[i].address, kw.m[i].size);
	}
	set_reg64(t, RF_GPR(G_AX), g->mode64 ? status : (uint32_t)status);
	t->state = TS_RUN;
	t->sample_next = 1;
	uint64_t id = gen_now(g);
	if (rc == 0)
		rc = gen_context(g, t, UMT_REC_SYSCALL_EXIT, t->sys.id, kw.m, kw.n, flags);
	if (rc == 0)
		rc = write_row(g, t, (int64_t)id, 1, status);
	free(kw.buf);
	return rc;
}

/* ---- exceptions ------------------------------------------------------------------------------ */

/* EXCEPTION_RECORD64 (0x98 bytes) or EXCEPTION_RECORD32 (0x50) of an access
 * violation: code, flags, record, address, two parameters (write, address). */
static uint64_t exception_record(const struct gen *g, const struct thread *t, uint8_t *rec)
{
	uint32_t code = STATUS_ACCESS_VIOLATION, nparams = 2;
	memset(rec, 0, 0x98);
	memcpy(rec, &code, 4);
	if (g->mode64) {
		uint64_t w = (uint64_t)t->fault_write;
		memcpy(rec + 16, &t->fault_rip, 8);
		memcpy(rec + 24, &nparams, 4);
		memcpy(rec + 32, &w, 8);
		memcpy(rec + 40, &t->fault_addr, 8);
		return 0x98;
	}
	uint32_t rip = (uint32_t)t->fault_rip, w = (uint32_t)t->fault_write,
	         addr = (uint32_t)t->fault_addr;
	memcpy(rec + 12, &rip, 4);
	memcpy(rec + 16, &nparams, 4);
	memcpy(rec + 20, &w, 4);
	memcpy(rec + 24, &addr, 4);
	return 0x50;
}

int kernel_exception(struct gen *g, struct thread *t, uint8_t flags)
{
	uint32_t f = t->nframes;
	while (f > 0 && t->frames[f - 1].guard == 0)
		f--;
	if (f == 0)
		return gen_fail(g, "thread %d faults at 0x%llx outside any guarded call", t->id,
		                (unsigned long long)t->fault_rip);
	const struct frame *fr = &t->frames[f - 1];
	const struct guard *gd = &g->prog.guards[fr->guard - 1];
	uint8_t rec[0x98];
	uint64_t size = exception_record(g, t, rec);
	uint64_t at = (reg64(t, RF_GPR(G_SP)) - 0x600) & ~(uint64_t)0xf;
	if (!mem_ok(&g->mem, at, size, PERM_W))
		return gen_fail(g, "thread %d: no stack for the exception record", t->id);
	gen_kernel_write(g, t, at, rec, size, "context");
	gen_pending_mem(t, at, size);
	static const uint8_t saved[8] = {G_BX, G_BP, G_SI, G_DI, G_12, G_13, G_14, G_15};
	for (int i = 0; i < 8; i++)
		set_reg64(t, RF_GPR(saved[i]), fr->saved[i]);
	set_reg64(t, RF_GPR(G_SP), fr->slot + word(g));
	set_reg64(t, RF_RIP, pb_addr(&g->prog, gd->handler_label));
	set_reg64(t, RF_GPR(G_AX), STATUS_ACCESS_VIOLATION);
	set_reg64(t, RF_GPR(G_CX), at);
	while (t->nframes >= f) /* the guarded call's frame and those above it */
		truth_call(g, t, &t->frames[--t->nframes], -1);
	t->state = TS_RUN;
	t->site = NO_SITE;
	t->sample_next = 1;
	umt_mem_ref m = {at, size, rec};
	return gen_context(g, t, UMT_REC_CTX_EXCEPTION, 0, &m, 1, flags);
}

int kernel_write_header(const char *dir, int version, uint32_t used)
{
	char names[SYS_COUNT][64], file[32];
	const char *ptr[SYS_COUNT];
	int values[SYS_COUNT], n = 0;
	for (int i = 0; i < SYS_COUNT; i++)
		if (used & (1u << i)) {
			snprintf(names[n], sizeof names[n], "SYSCALL_%s_0500_%u", sysdefs[i].name,
			         sysdefs[i].nargs);
			ptr[n] = names[n];
			values[n++] = sysdefs[i].uid[version];
		}
	snprintf(file, sizeof file, "syscall_unified_id_v%d.h", version);
	return xed_write_enum(dir, file, "SyscallUnifiedIdEnum", "SYSCALL_UNIFIED_ID_H", ptr, values, n);
}
