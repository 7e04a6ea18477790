/*
 * Fuzz target: the writer. The input is a program of writer calls with
 * their arguments: byte 0 selects the mode and the options, then each call
 * is an opcode byte followed by the bytes its arguments are taken from
 * (zeros once the input is used up).
 *
 * Two modes (bit 0 of byte 0):
 *   - arbitrary: every argument as the input says, within what a caller can
 *     honestly pass: wrong regs_size, undeclared and negative threads, unknown
 *     record types, raw records, huge sizes, NULL pointers, duplicate,
 *     negative and huge syscall IDs, invalid UTF-8, any context map, bad
 *     options. Sizes that come with a pointer stay within the buffer behind
 *     it, unless they are ones the writer must refuse before reading
 *     (counts above INT32_MAX, sizes above 2^63 - 1). Syscall IDs that are
 *     valid stay below 16: a valid ID of 2^31 is legal but costs 32 GiB.
 *   - consistent: the same calls, with the values that relate records and
 *     tables derived from what was written (a thread's first record is its
 *     thread-begin and none follows its thread-end, InsIDs name written rows,
 *     LC lengths are their LCSize, syscall records and rows match, module and
 *     address ranges are ordered, the default context map), so that the
 *     finished trace must pass umt_verify() without any problem.
 * In both modes an opcode also selects calls that must fail (UMT_E_INVAL).
 *
 * Invariants:
 *   - A call that fails changes nothing: the program is run twice, the
 *     second time without the calls that failed the first time; every call
 *     of the second run succeeds with the same ID, finish returns the same,
 *     and both directories hold the same bytes.
 *   - An UMT_E_IO is sticky: every later call and finish return it.
 *   - The calls meant to fail return UMT_E_INVAL.
 *   - A finished trace opens (the writer never writes what open refuses), has
 *     as many records as calls succeeded, and umt_verify() reports nothing
 *     in consistent mode; in arbitrary mode it reports no problem of the
 *     classes the writer alone decides (UMT_CHECK_LINKS: the prev/next column
 *     and the thread rows against the records; UMT_CHECK_THREADS), while
 *     records, rows and tables hold what the caller gave. Except after a raw
 *     record the writer could not link: one whose ThreadID was not declared
 *     yet (verify judges it against the threads declared by finish), or one
 *     shorter than its 6-byte header (the writer links it to no thread, but
 *     umt_verify() takes a ThreadID from the bytes that follow it in
 *     exec.vtable, the next record's, and then reports its chain).
 *   - No temporary file is left behind, whether finish succeeded or not.
 * Traces are written into a directory on tmpfs (/dev/shm) when there is
 * one; each input writes over the previous input's trace.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "umtrace/umtrace.h"

enum {
	MAX_CALLS = 512, MAX_THREADS = 8, MAX_INS = 64, MAX_BODIES = 16, MAX_STRINGS = 16,
	MAX_MODULES = 8, MAX_SYSCALLS = 32, POOL = 1 << 17, SKIPPED = 1
};

/* Bytes behind every pointer the target passes. */
static uint8_t pool[POOL];
static char long_text[40000];

/* ---- the input ---------------------------------------------------------------- */

struct in {
	const uint8_t *p;
	size_t n;
};

/* The next @p bytes bytes, little-endian; zeros past the end. */
static uint64_t take(struct in *in, unsigned bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++, in->n -= in->n > 0)
		v |= (uint64_t)(in->n ? *in->p++ : 0) << (8 * i);
	return v;
}

/* ---- what was written (updated only by calls that succeeded) -------------------- */

enum { NEW = 0, RUNNING, ENDED };

struct model {
	int32_t threads;
	uint8_t state[MAX_THREADS];
	int64_t ins;
	uint16_t ins_lc[MAX_INS];
	int bodies, strings;
	int64_t body_fp[MAX_BODIES], str_fp[MAX_STRINGS];
	uint16_t body_lc[MAX_BODIES];
	int modules;
	uint64_t mod_start[MAX_MODULES], mod_end[MAX_MODULES];
	uint64_t range_next; /* where the next address range may start */
	bool ranges_full;
	int64_t syscalls;    /* consistent: IDs handed to entries; arbitrary: rows written */
	struct { int64_t begin; int32_t thread; bool open; } sys[MAX_SYSCALLS];
	uint64_t records;
	bool app_ended, contexts;
	bool unlinked_raw; /* a raw record the writer could not link (see the top) */
	uint16_t dump;
};

/* One run of the program. */
struct gen {
	struct in in;
	bool consistent, second;
	umt_writer *w;
	struct model m;
	int call;
	bool io_failed;
	int *rc;       /* per call: the first run's result */
	uint64_t *id;  /* per call: the ID it returned */
};

/*
 * Ends call g->call: the first run records its result; the second run made
 * only the calls that succeeded the first time, and they must succeed alike.
 * @return the call's result (the first run's for a call not made).
 */
static int done(struct gen *g, int rc, uint64_t id)
{
	int i = g->call++;
	if (!g->second) {
		FUZZ_CHECK(!g->io_failed || rc == UMT_E_IO); /* sticky */
		g->io_failed |= rc == UMT_E_IO;
		g->rc[i] = rc;
		g->id[i] = id;
		return rc;
	}
	if (rc == SKIPPED)
		return g->rc[i];
	FUZZ_CHECK(rc == 0 && id == g->id[i]);
	return 0;
}

/* Whether to make the next call: in the second run, only if it succeeded. */
static bool make(const struct gen *g)
{
	return !g->second || g->rc[g->call] == 0;
}

#define CALL(g, expr, idv) done(g, make(g) ? (expr) : SKIPPED, (uint64_t)(idv))

/* A thread in @p state (consistent), or any number around the declared ones. */
static int32_t pick_thread(struct gen *g, int state)
{
	uint8_t raw = (uint8_t)take(&g->in, 1);
	if (!g->consistent)
		return (int32_t)(raw % (g->m.threads + 2)) - 1;
	for (int32_t k = 0; k < g->m.threads; k++) {
		int32_t t = (raw + k) % g->m.threads;
		if (g->m.state[t] == state)
			return t;
	}
	return -1;
}

/* ---- records -------------------------------------------------------------------- */

/* A context: regs, and up to 4 memory references in @p mem. */
static void make_context(struct gen *g, umt_context_desc *c, umt_mem_ref mem[4])
{
	uint8_t kind = (uint8_t)take(&g->in, 1);
	uint16_t raw = (uint16_t)take(&g->in, 2);
	c->regs = kind & 1 ? NULL : pool;
	c->regs_size = c->regs == NULL ? 0 : g->consistent || (kind & 2) ? g->m.dump : raw;
	c->mem = kind & 4 && !g->consistent ? NULL : mem;
	c->mem_count = (kind >> 3) % 5;
	if (!g->consistent && (kind >> 6) == 3) /* refused before the array is read */
		c->mem_count = kind & 32 ? UINT32_MAX : (uint32_t)INT32_MAX + 1;
	static const uint64_t huge[] = {INT64_MAX, UINT64_MAX, (uint64_t)1 << 63};
	for (int i = 0; i < 4; i++) {
		uint8_t how = (uint8_t)take(&g->in, 1);
		mem[i].address = take(&g->in, 8);
		mem[i].size = take(&g->in, 2) % 2048;
		mem[i].data = pool + how;
		if (!g->consistent && how >= 0xf8) /* a size alone over the record limit */
			mem[i].size = huge[how % 3];
		if (!g->consistent && how >= 0xf0 && how < 0xf8)
			mem[i].data = NULL;
	}
}

static int add_exec(struct gen *g, const umt_exec_desc *d)
{
	uint64_t id = 0;
	int rc = CALL(g, umt_writer_add_exec(g->w, d, &id), g->m.records);
	if (rc == 0) {
		FUZZ_CHECK(g->second || id == g->m.records);
		g->m.records++;
		g->m.contexts |= d->type != UMT_REC_INSTRUCTION && d->type != UMT_REC_THREAD_END &&
		                 d->type != UMT_REC_APP_END && d->type != UMT_REC_SYSCALL_SKIPPED;
	}
	return rc;
}

static void op_instruction(struct gen *g)
{
	umt_exec_desc d = {.type = UMT_REC_INSTRUCTION, .flags = (uint8_t)take(&g->in, 1)};
	d.thread_id = pick_thread(g, RUNNING);
	uint64_t ins = take(&g->in, 8);
	uint8_t kind = (uint8_t)take(&g->in, 1);
	uint16_t lc = (uint16_t)take(&g->in, 2);
	d.lc = pool + kind;
	if (g->consistent) {
		if (d.thread_id < 0 || g->m.ins == 0 || g->m.app_ended)
			return;
		d.ins_id = (int64_t)(ins % (uint64_t)g->m.ins);
		d.lc_size = g->m.ins_lc[d.ins_id];
	} else {
		static const uint64_t sizes[] = {UMT_WRITER_MAX_LC, UMT_WRITER_MAX_LC + 1, UINT64_MAX - 5};
		d.ins_id = (int64_t)ins;
		d.lc_size = kind < 0xf0 ? lc % 300u : sizes[kind % 3];
		d.lc = kind & 0x80 && kind < 0xf0 ? NULL : d.lc;
	}
	add_exec(g, &d);
}

/* Thread-begin and context changes (types 1, 8-11); arbitrary: any type. */
static void op_context(struct gen *g)
{
	/* one take() per statement: the order of initializers is unspecified */
	uint8_t type = (uint8_t)take(&g->in, 1);
	umt_context_desc c;
	umt_mem_ref mem[4];
	umt_exec_desc d = {.flags = (uint8_t)take(&g->in, 1)};
	d.syscall_id = (int64_t)take(&g->in, 8);
	d.exit_code = (int32_t)take(&g->in, 4);
	bool begin = type & 1;
	d.type = (uint8_t)(g->consistent ? (begin ? UMT_REC_THREAD_BEGIN : 8 + (type >> 1) % 4)
	                                 : type % 14);
	d.thread_id = pick_thread(g, begin ? NEW : RUNNING);
	make_context(g, &c, mem);
	d.context = type & 0x80 ? NULL : &c;
	if (g->consistent && (d.thread_id < 0 || g->m.app_ended))
		return;
	if (add_exec(g, &d) == 0 && g->consistent && begin)
		g->m.state[d.thread_id] = RUNNING;
}

/* Consistent only: a syscall entry with the next syscall ID. */
static void op_syscall_entry(struct gen *g)
{
	umt_context_desc c;
	umt_mem_ref mem[4];
	umt_exec_desc d = {.type = UMT_REC_SYSCALL_ENTRY, .flags = (uint8_t)take(&g->in, 1)};
	d.thread_id = pick_thread(g, RUNNING);
	make_context(g, &c, mem);
	d.context = &c;
	d.syscall_id = g->m.syscalls;
	if (d.thread_id < 0 || g->m.syscalls >= MAX_SYSCALLS || g->m.app_ended)
		return;
	int64_t begin = (int64_t)g->m.records;
	if (add_exec(g, &d) == 0) {
		g->m.sys[g->m.syscalls].begin = begin;
		g->m.sys[g->m.syscalls].thread = d.thread_id;
		g->m.sys[g->m.syscalls].open = true;
		g->m.syscalls++;
	}
}

/* The syscall row of @p id: its end (or none: -1) decides Completed. */
static int write_syscall_row(struct gen *g, int64_t id, int64_t end, bool exited)
{
	int64_t args[3] = {0, id, end};
	args[0] = (int64_t)take(&g->in, 8);
	umt_syscall_desc s = {.uniform_id = (int16_t)id, .completed = exited,
	                      .begin_eid = g->m.sys[id].begin, .end_eid = end, .args = args,
	                      .extras = pool};
	s.raw_id = (int16_t)take(&g->in, 2);
	s.result = (int64_t)take(&g->in, 8);
	s.arg_count = (uint8_t)(take(&g->in, 1) % 4);
	s.extras_size = take(&g->in, 1) % 16;
	return CALL(g, umt_writer_add_syscall(g->w, id, &s), 0);
}

/* Consistent only: the exit or skipped exit of an open syscall, and its row. */
static void op_syscall_end(struct gen *g)
{
	uint8_t pick = (uint8_t)take(&g->in, 1), exit = (uint8_t)take(&g->in, 1) & 1;
	umt_context_desc c;
	umt_mem_ref mem[4];
	make_context(g, &c, mem);
	int64_t id = -1;
	for (int64_t k = 0; k < g->m.syscalls && id < 0; k++) {
		int64_t s = (pick + k) % g->m.syscalls;
		if (g->m.sys[s].open && g->m.state[g->m.sys[s].thread] == RUNNING)
			id = s;
	}
	if (id < 0 || g->m.app_ended)
		return;
	umt_exec_desc d = {.type = exit ? UMT_REC_SYSCALL_EXIT : UMT_REC_SYSCALL_SKIPPED,
	                   .thread_id = g->m.sys[id].thread, .syscall_id = id, .context = &c};
	int64_t end = (int64_t)g->m.records;
	if (add_exec(g, &d) == 0) {
		g->m.sys[id].open = false;
		FUZZ_CHECK(write_syscall_row(g, id, end, exit) == 0);
	}
}

/* Arbitrary only: a syscall row of any ID (small, or one that must be refused). */
static void op_syscall_row(struct gen *g)
{
	uint8_t how = (uint8_t)take(&g->in, 1), argc = (uint8_t)take(&g->in, 1);
	static const int64_t refused[] = {-1, -2, ((int64_t)1 << 60) - 1,
	                                  UMT_WRITER_SYSCALL_ID_LIMIT, INT64_MAX};
	int64_t id = how < 0xe0 ? how % 16 : refused[how % 5];
	uint64_t extras = take(&g->in, 2) % 64;
	if (how & 1 && how >= 0xd0)
		extras = how & 2 ? UINT64_MAX : (uint64_t)1 << 63;
	umt_syscall_desc s = {.args = (const int64_t *)pool, .arg_count = argc, .extras = pool,
	                      .extras_size = extras, .args_fp_absolute = how & 4};
	s.raw_id = (int16_t)take(&g->in, 2);
	s.convention = (uint8_t)take(&g->in, 1);
	s.completed = (uint8_t)take(&g->in, 1);
	s.begin_eid = (int64_t)take(&g->in, 8);
	s.end_eid = (int64_t)take(&g->in, 8);
	s.extra_count = (uint8_t)take(&g->in, 1);
	if (how & 8)
		s.args = NULL;
	if (CALL(g, umt_writer_add_syscall(g->w, id, &s), 0) == 0)
		g->m.syscalls++;
}

static void op_thread_end(struct gen *g)
{
	umt_exec_desc d = {.type = UMT_REC_THREAD_END, .exit_code = (int32_t)take(&g->in, 4)};
	d.thread_id = pick_thread(g, RUNNING);
	if (g->consistent && (d.thread_id < 0 || g->m.app_ended))
		return;
	if (add_exec(g, &d) == 0 && g->consistent)
		g->m.state[d.thread_id] = ENDED;
}

/* Arbitrary only: a record of any bytes, or sizes that must be refused. */
static void op_raw(struct gen *g)
{
	uint8_t how = (uint8_t)take(&g->in, 1);
	uint8_t bytes[64] = {0};
	size_t n = how % 64;
	for (size_t i = 0; i < n; i++)
		bytes[i] = (uint8_t)take(&g->in, 1);
	if (how >= 0xf0) /* one of the declared threads, so that its chain is linked */
		memset(bytes, 0, 4);
	const void *p = how >= 0xe0 && how < 0xe8 ? NULL : bytes;
	uint64_t size = how >= 0xe8 && how < 0xf0 ? (uint64_t)1 << 63 : n;
	uint64_t id = 0;
	if (CALL(g, umt_writer_add_exec_raw(g->w, p, size, &id), g->m.records) == 0) {
		int32_t tid;
		memcpy(&tid, bytes, sizeof tid);
		g->m.records++;
		g->m.unlinked_raw |= size < 6 || tid >= g->m.threads;
	}
}

/* ---- tables ----------------------------------------------------------------------- */

static void op_thread(struct gen *g)
{
	int32_t tid = (int32_t)take(&g->in, 4), id = -1;
	int64_t tib = (int64_t)take(&g->in, 8);
	if (g->m.threads >= MAX_THREADS)
		return;
	if (CALL(g, umt_writer_add_thread(g->w, tid, tib, &id), id) == 0) {
		FUZZ_CHECK(g->second || id == g->m.threads);
		g->m.state[g->m.threads++] = NEW;
	}
}

static void op_decoded(struct gen *g)
{
	umt_decoded_ins d;
	uint8_t *b = (uint8_t *)&d;
	for (size_t i = 0; i < sizeof d; i++)
		b[i] = (uint8_t)take(&g->in, 1);
	const umt_lc_slot *slots = (const umt_lc_slot *)pool;
	if (g->consistent) { /* no slots, no operands: the LC is opaque bytes */
		uint16_t lc = d.LCSize % 129;
		memset(&d, 0, sizeof d);
		d.LCSize = lc;
		d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	} else if (d.Category & 1) {
		slots = NULL;
	}
	int64_t fp = -1;
	int rc = CALL(g, umt_writer_add_decoded(g->w, &d, slots, &fp), fp);
	if (rc == 0 && g->m.bodies < MAX_BODIES) {
		g->m.body_fp[g->m.bodies] = fp;
		g->m.body_lc[g->m.bodies++] = d.LCSize;
	}
}

static void op_disasm(struct gen *g)
{
	uint8_t how = (uint8_t)take(&g->in, 1);
	char text[48];
	size_t n = how % sizeof text;
	for (size_t i = 0; i + 1 < n; i++)
		text[i] = (char)(take(&g->in, 1) | 1); /* no NUL inside */
	text[n ? n - 1 : 0] = '\0';
	const char *s = !g->consistent && how >= 0xf0 ? long_text : text;
	int64_t fp = -1, *fpp = !g->consistent && how >= 0xe8 && how < 0xf0 ? NULL : &fp;
	int rc = CALL(g, umt_writer_add_disasm(g->w, s, fpp), fp);
	if (rc == 0 && g->m.strings < MAX_STRINGS)
		g->m.str_fp[g->m.strings++] = fp;
}

/* Consistent: a row naming a written body and string, inside a module or none. */
static bool consistent_row(struct gen *g, umt_ins_rec *r, int *body)
{
	if (g->m.bodies == 0 || g->m.strings == 0 || g->m.ins >= MAX_INS)
		return false;
	*body = (int)((uint8_t)r->Pad1[0] % g->m.bodies);
	r->DecodedFP = g->m.body_fp[*body];
	r->DisasmFP = g->m.str_fp[(uint8_t)r->Pad2[0] % g->m.strings];
	r->CodeSize = 1 + r->CodeSize % 15;
	r->ModuleID = -1;
	if (g->m.modules > 0 && (r->Type & 1)) {
		int m = r->ModuleID = (int32_t)((uint32_t)r->ModuleID % (uint32_t)g->m.modules);
		uint64_t span = g->m.mod_end[m] - g->m.mod_start[m];
		uint64_t raw = (uint64_t)r->Address;
		r->Address = (int64_t)(g->m.mod_start[m] + (span == UINT64_MAX ? raw : raw % (span + 1)));
	}
	return true;
}

static void op_ins_row(struct gen *g)
{
	umt_ins_rec r;
	uint8_t *b = (uint8_t *)&r;
	for (size_t i = 0; i < sizeof r; i++)
		b[i] = (uint8_t)take(&g->in, 1);
	int body = 0;
	if (g->consistent && !consistent_row(g, &r, &body))
		return;
	const umt_ins_rec *row = !g->consistent && r.Pad1[0] == 0xff ? NULL : &r;
	int64_t id = -1;
	if (CALL(g, umt_writer_add_ins(g->w, row, &id), id) == 0) {
		FUZZ_CHECK(g->second || id == g->m.ins);
		if (g->m.ins < MAX_INS)
			g->m.ins_lc[g->m.ins] = g->m.body_lc[body];
		g->m.ins++;
	}
}

/* A module name: UTF-8 (printable in consistent mode) or UTF-16 units. */
static void module_name(struct gen *g, char text[32], const char **utf8, const uint16_t **u16,
                        size_t *len)
{
	uint8_t how = (uint8_t)take(&g->in, 1);
	for (int i = 0; i < 31; i++) {
		uint8_t c = (uint8_t)take(&g->in, 1);
		text[i] = (char)(g->consistent ? 0x20 + c % 0x5f : c);
	}
	text[how % 32] = '\0';
	*utf8 = how & 0x40 ? NULL : text;
	*u16 = how & 0x80 ? (const uint16_t *)pool : NULL;
	*len = !g->consistent && how >= 0xf8 ? 40000 : how % 32;
}

static void op_module(struct gen *g)
{
	umt_module_desc m = {.unload_eid = -1};
	m.load_eid = (int64_t)take(&g->in, 8);
	m.unload_eid = (int64_t)take(&g->in, 8);
	m.start_addr = (int64_t)take(&g->in, 8);
	m.end_addr = (int64_t)take(&g->in, 8);
	m.last_file_write_time = take(&g->in, 8);
	char a[32], b[32];
	module_name(g, a, &m.win_name, &m.win_name_utf16, &m.win_name_utf16_len);
	module_name(g, b, &m.device_name, &m.device_name_utf16, &m.device_name_utf16_len);
	if (g->consistent) {
		if (g->m.modules >= MAX_MODULES)
			return;
		uint64_t start = (uint64_t)m.start_addr & ~(uint64_t)0xfff;
		uint64_t size = 1 + (uint64_t)m.end_addr % 0x100000;
		m.start_addr = (int64_t)start;
		m.end_addr = (int64_t)(start > UINT64_MAX - size ? UINT64_MAX : start + size - 1);
		m.load_eid = m.load_eid & 0x3ff;
		m.unload_eid = m.unload_eid & 1 ? -1 : m.load_eid + (m.unload_eid & 0x3fe);
	}
	int64_t id = -1;
	if (CALL(g, umt_writer_add_module(g->w, &m, &id), id) == 0 && g->m.modules < MAX_MODULES) {
		g->m.mod_start[g->m.modules] = (uint64_t)m.start_addr;
		g->m.mod_end[g->m.modules++] = (uint64_t)m.end_addr;
	}
}

/* Consistent: page-aligned, sorted, disjoint ranges. */
static void op_range(struct gen *g)
{
	uint64_t first = take(&g->in, 8), last = take(&g->in, 8);
	if (g->consistent) {
		uint64_t start = g->m.range_next + (first % 4) * 4096, size = (1 + last % 16) * 4096;
		if (g->m.ranges_full || start < g->m.range_next || start > UINT64_MAX - size)
			return;
		first = start;
		last = start + size - 1;
	}
	if (CALL(g, umt_writer_add_address_range(g->w, (int64_t)first, (int64_t)last), 0) == 0) {
		g->m.ranges_full = last == UINT64_MAX;
		g->m.range_next = last + 1;
	}
}

/* Arbitrary only: the default map with any ElemCount and a DumpSize below 1 KiB. */
static void op_context_map(struct gen *g)
{
	static umt_context_map map;
	umt_context_map_default(&map, (int)(take(&g->in, 1) & 1), NULL);
	map.ElemCount = (uint16_t)(take(&g->in, 2) % 600);
	map.DumpSize = (uint16_t)(take(&g->in, 2) % 1024);
	if (CALL(g, umt_writer_set_context_map(g->w, &map), 0) == 0)
		g->m.dump = map.DumpSize;
}

/* ---- calls that must fail ------------------------------------------------------------ */

/* The call of kind @p k that must be refused (UMT_E_INVAL); UMT_E_INVAL to skip one. */
static int bad_call(struct gen *g, unsigned k)
{
	umt_writer *w = g->w;
	umt_mem_ref sum[2] = {{0, INT64_MAX, pool}, {0, INT64_MAX, pool}};
	umt_context_desc wrong = {pool, g->m.dump + 1u, NULL, 0}, no_mem = {NULL, 0, NULL, 2};
	umt_context_desc big = {NULL, 0, sum, 2};
	umt_exec_desc d = {.type = UMT_REC_THREAD_BEGIN, .thread_id = g->m.threads > 0 ? 0 : -1,
	                   .context = &wrong, .lc = pool};
	umt_syscall_desc s = {0};
	umt_module_desc m = {.win_name = "ok", .device_name = "\xe0\x80\xaf"};
	umt_context_map map;
	int64_t fp;
	switch (k) {
	case 0: d.type = 7; return umt_writer_add_exec(w, &d, NULL);
	case 1: d.type = UMT_REC_THREAD_END; d.thread_id = g->m.threads; return umt_writer_add_exec(w, &d, NULL);
	case 2: return umt_writer_add_exec(w, &d, NULL); /* regs_size */
	case 3: d.context = &no_mem; return umt_writer_add_exec(w, &d, NULL);
	case 4: d.context = &big; return umt_writer_add_exec(w, &d, NULL);
	case 5: d.type = 0; d.lc_size = UMT_WRITER_MAX_LC + 1; return umt_writer_add_exec(w, &d, NULL);
	case 6: d.type = 0; d.lc_size = UINT64_MAX - 5; return umt_writer_add_exec(w, &d, NULL);
	case 7: return umt_writer_add_syscall(w, ((int64_t)1 << 60) - 1, &s);
	case 8: return umt_writer_add_syscall(w, -1, &s);
	case 9: return umt_writer_add_syscall(w, UMT_WRITER_SYSCALL_ID_LIMIT, &s);
	case 10: return umt_writer_add_module(w, &m, NULL);
	case 11: return umt_writer_add_disasm(w, long_text, &fp);
	case 12: return umt_writer_add_exec_raw(w, pool, (uint64_t)1 << 63, NULL);
	case 13:
		umt_context_map_default(&map, 1, NULL);
		map.ElemCount = UMT_CONTEXT_MAP_REGS + 1;
		return umt_writer_set_context_map(w, &map);
	case 14:
		if (!g->m.contexts)
			return UMT_E_INVAL;
		umt_context_map_default(&map, 1, NULL);
		map.DumpSize = (uint16_t)(g->m.dump + 1);
		return umt_writer_set_context_map(w, &map);
	case 15: return umt_writer_add_exec(w, NULL, NULL);
	case 16: return umt_writer_add_syscall(w, 0, NULL);
	case 17: return umt_writer_add_ins(w, NULL, NULL);
	case 18: return umt_writer_add_decoded(w, NULL, NULL, &fp);
	default: return umt_writer_add_module(w, NULL, NULL);
	}
}

static void op_bad(struct gen *g)
{
	unsigned k = (unsigned)take(&g->in, 1) % 20;
	int rc = CALL(g, bad_call(g, k), 0);
	FUZZ_CHECK(rc == UMT_E_INVAL || (g->io_failed && rc == UMT_E_IO));
}

/* ---- one run ----------------------------------------------------------------------- */

/* Options from byte 0 and the bytes after it; arbitrary mode may make them invalid. */
static void options(struct gen *g, uint8_t b, umt_writer_options *o, char xml[32])
{
	umt_writer_options_init(o, b & 2 ? UMT_FLAVOUR_2014 : UMT_FLAVOUR_2015);
	o->thread_row_size = b & 4 ? 48 : 40;
	o->module_row_size ^= b & 8 ? 48 ^ 64 : 0;
	o->write_trace_xml = !(b & 16);
	o->buffer_size = 1; /* raised to 64 KiB: the smallest windows */
	for (int i = 0; i < 31; i++)
		xml[i] = (char)take(&g->in, 1);
	xml[31] = '\0';
	if (g->consistent)
		return;
	switch (b >> 5) {
	case 1: o->exec_version = 2; break;
	case 2: o->thread_row_size = 44; break;
	case 3: o->buffer_size = UMT_WRITER_MAX_BUFFER + 1; break;
	case 4: o->xml.os_name = xml; break;      /* any bytes: control characters, bad UTF-8 */
	case 5: o->xml_text = xml; break;
	case 6: o->buffer_size = 0; break;        /* the default, 4 MiB */
	default: break;
	}
}

static void step(struct gen *g)
{
	static void (*const consistent_ops[])(struct gen *) = {
		op_thread, op_instruction, op_context, op_syscall_entry, op_syscall_end,
		op_thread_end, op_decoded, op_disasm, op_ins_row, op_module, op_range, op_bad,
		op_instruction, op_instruction};
	static void (*const arbitrary_ops[])(struct gen *) = {
		op_thread, op_instruction, op_context, op_syscall_row, op_raw, op_thread_end,
		op_decoded, op_disasm, op_ins_row, op_module, op_range, op_bad, op_context_map,
		op_instruction};
	unsigned op = (unsigned)take(&g->in, 1) % (sizeof consistent_ops / sizeof consistent_ops[0]);
	(g->consistent ? consistent_ops : arbitrary_ops)[op](g);
}

/* Consistent: the rows of syscalls still open, then maybe an application end. */
static void close_up(struct gen *g)
{
	for (int64_t id = 0; id < g->m.syscalls; id++)
		if (g->m.sys[id].open)
			FUZZ_CHECK(write_syscall_row(g, id, -1, false) == 0);
	int32_t t = pick_thread(g, RUNNING);
	umt_exec_desc d = {.type = UMT_REC_APP_END, .thread_id = t, .exit_code = 1};
	if (t >= 0 && (take(&g->in, 1) & 1))
		add_exec(g, &d);
}

/* Runs the program into @p dir. @return finish's result (or open's). */
static int run(struct gen *g, const uint8_t *data, size_t size, const char *dir)
{
	g->in = (struct in){data + 1, size - 1};
	g->consistent = data[0] & 1;
	umt_writer_options o;
	char xml[32];
	options(g, data[0], &o, xml);
	int rc = umt_writer_open(dir, &o, &g->w);
	if (rc < 0) {
		FUZZ_CHECK(!g->consistent && g->w == NULL);
		return rc;
	}
	g->m.dump = 512; /* the default context map's */
	while (g->in.n > 0 && g->call < MAX_CALLS - 2 * MAX_SYSCALLS)
		step(g);
	if (g->consistent)
		close_up(g);
	if (g->second || !g->io_failed)
		return umt_writer_finish(g->w);
	rc = umt_writer_finish(g->w);
	FUZZ_CHECK(rc == UMT_E_IO);
	return rc;
}

/* ---- checks of the result ---------------------------------------------------------------- */

static char base[4096], dir_a[4200], dir_b[4200];

static void remove_files(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return;
	const struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char path[8400];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlink(path);
	}
	closedir(d);
}

/* Removes directory @p top made by setup(), with its a/ and b/. */
static void remove_top(const char *top)
{
	const char *const subs[] = {"a", "b"};
	for (int i = 0; i < 2; i++) {
		char dir[4200];
		if (snprintf(dir, sizeof dir, "%s/%s", top, subs[i]) >= (int)sizeof dir)
			continue; /* setup() makes short paths: cannot happen */
		remove_files(dir);
		rmdir(dir);
	}
	rmdir(top);
}

static void cleanup(void)
{
	remove_top(base);
}

/*
 * libFuzzer ends with _Exit() (no atexit handlers) and crashes end with
 * abort(): directories of processes that are gone are removed here.
 */
static void remove_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	const struct dirent *e;
	while (d != NULL && (e = readdir(d)) != NULL) {
		long pid;
		char top[4200];
		if (sscanf(e->d_name, "umt-fuzz-writer-%ld", &pid) != 1 || pid <= 0 ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(top, sizeof top, "%s/%s", tmp, e->d_name);
		remove_top(top);
	}
	if (d != NULL)
		closedir(d);
}

static void setup(void)
{
	for (size_t i = 0; i < sizeof pool; i++)
		pool[i] = (uint8_t)(i * 131 + (i >> 8));
	memset(long_text, 'a', sizeof long_text - 1);
	struct stat st;
	const char *tmp = getenv("TMPDIR");
	if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
		tmp = "/dev/shm";
	tmp = tmp && *tmp ? tmp : "/tmp";
	remove_stale(tmp);
	snprintf(base, sizeof base, "%s/umt-fuzz-writer-%ld", tmp, (long)getpid());
	remove_top(base); /* a process of the same number that died */
	FUZZ_CHECK(mkdir(base, 0700) == 0);
	snprintf(dir_a, sizeof dir_a, "%s/a", base);
	snprintf(dir_b, sizeof dir_b, "%s/b", base);
	atexit(cleanup);
}

/* The bytes of file @p name of @p dir (NULL when absent); *n its size. */
static uint8_t *load(const char *dir, const char *name, size_t *n)
{
	char path[8400];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "rb");
	*n = 0;
	if (fp == NULL)
		return NULL;
	size_t cap = 1 << 16;
	uint8_t *p = malloc(cap);
	size_t k;
	while (p != NULL && (k = fread(p + *n, 1, cap - *n, fp)) > 0) {
		*n += k;
		if (*n == cap) {
			uint8_t *q = realloc(p, cap *= 2);
			if (q == NULL)
				free(p);
			p = q;
		}
	}
	fclose(fp);
	FUZZ_CHECK(p != NULL);
	return p;
}

/* Both directories hold the same files, byte for byte, and no temporary. */
static void same_dirs(void)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		size_t na, nb;
		uint8_t *a = load(dir_a, umt_file_name(f), &na), *b = load(dir_b, umt_file_name(f), &nb);
		FUZZ_CHECK((a == NULL) == (b == NULL));
		FUZZ_CHECK(na == nb && (na == 0 || memcmp(a, b, na) == 0));
		free(a);
		free(b);
	}
	const char *dirs[] = {dir_a, dir_b};
	for (int i = 0; i < 2; i++) {
		DIR *d = opendir(dirs[i]);
		const struct dirent *e;
		while (d != NULL && (e = readdir(d)) != NULL)
			FUZZ_CHECK(strstr(e->d_name, ".tmp-") == NULL);
		if (d != NULL)
			closedir(d);
	}
}

struct problems {
	uint64_t count, writer_owned, xml;
	bool print, print_owned; /* problems that break an invariant: say which */
};

static int on_problem(const umt_problem *p, void *ctx)
{
	struct problems *n = ctx;
	bool writer_owned = (p->check & (UMT_CHECK_LINKS | UMT_CHECK_THREADS)) != 0;
	if (n->print || (writer_owned && n->print_owned))
		fprintf(stderr, "%s\n", p->message);
	n->count++;
	n->writer_owned += writer_owned;
	n->xml += p->check == UMT_CHECK_XML;
	return 0;
}

/* The finished trace opens and verifies as the mode promises. */
static void check_trace(const struct gen *g, bool own_xml)
{
	umt_trace *t;
	FUZZ_CHECK(umt_trace_open(dir_a, 0, &t) == 0);
	FUZZ_CHECK(umt_exec_count(t) == g->m.records);
	struct problems n = {.print = g->consistent, .print_owned = !g->m.unlinked_raw};
	umt_verify_options o;
	umt_verify_options_init(&o);
	o.max_problems = 0;
	o.on_problem = on_problem;
	o.ctx = &n;
	umt_verify_result res;
	int rc = umt_verify(t, &o, &res);
	FUZZ_CHECK(rc == 0 || rc == UMT_E_CORRUPT);
	FUZZ_CHECK(!g->consistent || n.count == 0);
	FUZZ_CHECK(g->m.unlinked_raw || n.writer_owned == 0);
	FUZZ_CHECK(!own_xml || n.xml == 0);
	umt_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	if (!ready) {
		setup();
		ready = true;
	}
	if (size == 0)
		return 0;
	static int rcs[MAX_CALLS];
	static uint64_t ids[MAX_CALLS];
	struct gen g1 = {.rc = rcs, .id = ids}, g2 = {.rc = rcs, .id = ids, .second = true};
	int rc1 = run(&g1, data, size, dir_a);
	if (g1.io_failed) { /* the second run would succeed where the first could not */
		remove_files(dir_a);
		remove_files(dir_b);
		return 0;
	}
	int rc2 = run(&g2, data, size, dir_b);
	FUZZ_CHECK(rc1 == rc2);
	FUZZ_CHECK(g1.call == g2.call);
	same_dirs();
	if (rc1 == 0)
		check_trace(&g1, (data[0] >> 5) != 5);
	return 0;
}
