/*
 * umtgen's ground truth against its traces, read through the library's
 * reader only (tools/umtgen writes both; this test trusts neither):
 *   - registers: at each sampled record, every register value the trace
 *     holds before it (LC before slots, the dump of a thread-begin or a
 *     syscall entry) and after the thread's previous record (its LC after
 *     slots, or the dump of an exit, an exception or an entry) equals the
 *     truth's register file;
 *   - writes: every instruction write of the truth is the after value of a
 *     memory slot of its record, every after memory slot of a non-flagged
 *     instruction record is a write of the truth, every kernel or context
 *     write is a memory block of its record;
 *   - memory: the truth's "mem" samples agree with the replayed writes;
 *   - calls: each call line's call, target, return and nesting agree with
 *     the records; coverage agrees with a scan of the records.
 * Over seeds, both flavours, both code widths, several threads, an abort.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "gen.h"
#include "jsonl.h"

/* ---- the replayed memory: written bytes per page ----------------------------------------- */

struct page {
	uint64_t number;
	uint8_t data[4096], written[4096];
};

struct memory {
	struct page **slots;
	uint64_t cap, count;
};

static struct page *page_of(struct memory *m, uint64_t addr, int create)
{
	uint64_t n = addr >> 12;
	if (create && (m->count + 1) * 2 > m->cap) {
		uint64_t cap = m->cap ? 2 * m->cap : 256;
		struct page **s = calloc(cap, sizeof *s);
		assert_non_null(s);
		for (uint64_t i = 0; i < m->cap; i++)
			if (m->slots[i]) {
				uint64_t k = (m->slots[i]->number * 0x9e3779b97f4a7c15ull) & (cap - 1);
				while (s[k])
					k = (k + 1) & (cap - 1);
				s[k] = m->slots[i];
			}
		free(m->slots);
		m->slots = s;
		m->cap = cap;
	}
	if (m->cap == 0)
		return NULL;
	uint64_t k = (n * 0x9e3779b97f4a7c15ull) & (m->cap - 1);
	for (; m->slots[k]; k = (k + 1) & (m->cap - 1))
		if (m->slots[k]->number == n)
			return m->slots[k];
	if (!create)
		return NULL;
	struct page *p = calloc(1, sizeof *p);
	assert_non_null(p);
	p->number = n;
	m->slots[k] = p;
	m->count++;
	return p;
}

static void mem_write(struct memory *m, uint64_t addr, const uint8_t *data, uint64_t size)
{
	for (uint64_t i = 0; i < size; i++) {
		struct page *p = page_of(m, addr + i, 1);
		p->data[(addr + i) & 4095] = data[i];
		p->written[(addr + i) & 4095] = 1;
	}
}

static void mem_free(struct memory *m)
{
	for (uint64_t i = 0; i < m->cap; i++)
		free(m->slots[i]);
	free(m->slots);
}

/* ---- the check's state ------------------------------------------------------------------------- */

struct call {
	uint64_t id, caller, target, depth;
	int64_t ret, parent;
	int thread;
};

struct check {
	umt_trace *t;
	uint32_t dump;
	struct memory mem;
	/* instruction writes of the truth: (record, address) pairs, open addressing */
	uint64_t (*writes)[2];
	uint64_t wcap, nwrites;
	struct call *calls;
	size_t ncalls, ccap;
	/* counts of what was compared, so that a silent pass is impossible */
	uint64_t regs_before, regs_after, dump_bytes, ins_writes, kernel_writes, mem_bytes;
	uint64_t samples, coverage_lines;
};

static void add_write(struct check *c, uint64_t id, uint64_t addr)
{
	if ((c->nwrites + 1) * 2 > c->wcap) {
		uint64_t cap = c->wcap ? 2 * c->wcap : 4096;
		uint64_t(*w)[2] = calloc(cap, sizeof *w);
		assert_non_null(w);
		for (uint64_t i = 0; i < c->wcap; i++)
			if (c->writes[i][1]) {
				uint64_t k = ((c->writes[i][0] * 31 + c->writes[i][1]) * 0x9e3779b97f4a7c15ull) & (cap - 1);
				while (w[k][1])
					k = (k + 1) & (cap - 1);
				memcpy(w[k], c->writes[i], sizeof w[k]);
			}
		free(c->writes);
		c->writes = w;
		c->wcap = cap;
	}
	uint64_t k = ((id * 31 + addr) * 0x9e3779b97f4a7c15ull) & (c->wcap - 1);
	while (c->writes[k][1])
		k = (k + 1) & (c->wcap - 1);
	c->writes[k][0] = id;
	c->writes[k][1] = addr;
	c->nwrites++;
}

static int has_write(const struct check *c, uint64_t id, uint64_t addr)
{
	if (c->wcap == 0)
		return 0;
	uint64_t k = ((id * 31 + addr) * 0x9e3779b97f4a7c15ull) & (c->wcap - 1);
	for (; c->writes[k][1]; k = (k + 1) & (c->wcap - 1))
		if (c->writes[k][0] == id && c->writes[k][1] == addr)
			return 1;
	return 0;
}

/* ---- registers ------------------------------------------------------------------------------- */

/* The truth's register file as dump bytes (and which bytes it gives). */
struct regfile {
	uint8_t bytes[1024], known[1024];
};

static void truth_regfile(struct check *c, const struct jv *regs, int is64, struct regfile *rf)
{
	memset(rf, 0, sizeof *rf);
	assert_non_null(regs);
	assert_int_equal(regs->type, J_OBJ);
	for (int i = 0; i < regs->n; i++) {
		int r = umt_reg_by_name(c->t, regs->keys[i]);
		assert_true(r >= 0);
		umt_reg_desc d;
		assert_int_equal(umt_context_map_reg(c->t, r, &d), 0);
		const umt_reg_info *ri = is64 ? &d.map64 : &d.map32;
		assert_true(is64 ? d.in64 : d.in32);
		uint8_t v[64];
		const char *s = regs->items[i].text;
		long n;
		if (s[0] == '0' && s[1] == 'x') {
			uint64_t x = strtoull(s, NULL, 16);
			memcpy(v, &x, 8);
			n = ri->Size;
			assert_true(n <= 8);
		} else {
			n = json_hex(s, v, sizeof v);
			assert_int_equal(n, ri->Size);
		}
		assert_true(ri->Offset + n <= c->dump);
		memcpy(rf->bytes + ri->Offset, v, (size_t)n);
		memset(rf->known + ri->Offset, 1, (size_t)n);
	}
}

/* Register slots of group @p after (0: before and write-only, 1: after) of an
 * instruction record against the register file. */
static void slots_vs_regfile(struct check *c, const umt_rec *r, int after, const struct regfile *rf)
{
	umt_ins_exec x;
	assert_int_equal(umt_rec_ins_exec(c->t, r, &x), 0);
	const umt_decoded_ins *d = x.dec.ins;
	for (unsigned k = after ? d->FirstAfterSlot : 0; k < (after ? d->LCCount : d->FirstAfterSlot);
	     k++) {
		const umt_lc_slot *s = &x.dec.slots[k];
		umt_reg_desc rd;
		if (s->AddrWidth || (uint16_t)s->RegName >= 0xfffd ||
		    umt_context_map_reg(c->t, s->RegName, &rd) < 0 || !(x.is_64bit ? rd.in64 : rd.in32))
			continue;
		const umt_reg_info *ri = x.is_64bit ? &rd.map64 : &rd.map32;
		umt_value v;
		assert_int_equal(umt_lc_slot_value(&x, k, &v, NULL), 0);
		unsigned n = v.size < ri->Size ? v.size : ri->Size;
		int all = 1;
		for (unsigned i = 0; i < n; i++)
			all &= rf->known[ri->Offset + i];
		if (!all)
			continue; /* a register the truth does not list (x87) */
		if (memcmp(v.data, rf->bytes + ri->Offset, n) != 0)
			fail_msg("record %llu slot %u (%s) %s: the trace and the truth differ",
			         (unsigned long long)r->id, k, rd.name, after ? "after" : "before");
		if (after)
			c->regs_after++;
		else
			c->regs_before++;
	}
}

static void dump_vs_regfile(struct check *c, const umt_rec *r, const struct regfile *rf)
{
	umt_context ctx;
	assert_int_equal(umt_rec_context(c->t, r, &ctx), 0);
	for (uint32_t i = 0; i < ctx.regs_size; i++)
		if (rf->known[i]) {
			if (ctx.regs[i] != rf->bytes[i])
				fail_msg("record %llu: dump byte %u is 0x%02x, the truth says 0x%02x",
				         (unsigned long long)r->id, i, ctx.regs[i], rf->bytes[i]);
			c->dump_bytes++;
		}
}

/* A "regs" line: before record N, and after the thread's previous record. */
static void check_regs(struct check *c, const struct jv *line)
{
	uint64_t id, thread;
	assert_int_equal(json_u64(line, "id", &id), 0);
	assert_int_equal(json_u64(line, "thread_id", &thread), 0);
	umt_rec r;
	assert_int_equal(umt_exec_get(c->t, id, &r), 0);
	assert_int_equal(r.thread_id, (int32_t)thread);
	struct regfile rf;
	truth_regfile(c, json_get(line, "regs"), umt_rec_is_64bit(&r), &rf);
	c->samples++;
	if (r.type == UMT_REC_INSTRUCTION)
		slots_vs_regfile(c, &r, 0, &rf);
	else if (r.type == UMT_REC_THREAD_BEGIN || r.type == UMT_REC_SYSCALL_ENTRY)
		dump_vs_regfile(c, &r, &rf); /* these dumps are the state before as well */
	int64_t prev, next;
	assert_int_equal(umt_exec_links(c->t, id, &prev, &next), 0);
	if (prev < 0)
		return;
	umt_rec p;
	assert_int_equal(umt_exec_get(c->t, (uint64_t)prev, &p), 0);
	if (p.type == UMT_REC_INSTRUCTION && !umt_rec_is_incomplete(&p))
		slots_vs_regfile(c, &p, 1, &rf);
	else if (umt_rec_type_has_context(p.type))
		dump_vs_regfile(c, &p, &rf); /* every dump also holds the state after */
}

/* ---- writes and memory ------------------------------------------------------------------------- */

/* An instruction write: the after value of one of the record's memory slots. */
static void check_ins_write(struct check *c, const umt_rec *r, uint64_t addr, const uint8_t *data,
                            long size)
{
	umt_ins_exec x;
	assert_int_equal(umt_rec_ins_exec(c->t, r, &x), 0);
	for (unsigned k = x.dec.ins->FirstAfterSlot; k < x.dec.ins->LCCount; k++) {
		umt_value v;
		uint64_t a;
		if (x.dec.slots[k].AddrWidth == 0)
			continue;
		assert_int_equal(umt_lc_slot_value(&x, k, &v, &a), 0);
		if (a == addr && v.size == (uint32_t)size && memcmp(v.data, data, (size_t)size) == 0) {
			add_write(c, r->id, addr);
			c->ins_writes++;
			return;
		}
	}
	fail_msg("record %llu: no after memory slot holds the write at 0x%llx",
	         (unsigned long long)r->id, (unsigned long long)addr);
}

/* A kernel or context write: a memory block of the record. */
static void check_block_write(struct check *c, const umt_rec *r, uint64_t addr,
                              const uint8_t *data, long size)
{
	umt_context ctx;
	assert_int_equal(umt_rec_context(c->t, r, &ctx), 0);
	for (uint32_t i = 0; i < ctx.mem_count; i++) {
		umt_mem_ref m;
		assert_int_equal(umt_context_mem_get(&ctx, i, &m), 0);
		if (m.address == addr && m.size == (uint64_t)size && memcmp(m.data, data, (size_t)size) == 0) {
			c->kernel_writes++;
			return;
		}
	}
	fail_msg("record %llu: no memory block holds the write at 0x%llx", (unsigned long long)r->id,
	         (unsigned long long)addr);
}

static void check_write(struct check *c, const struct jv *line)
{
	uint64_t id, thread, addr, size;
	assert_int_equal(json_u64(line, "id", &id), 0);
	assert_int_equal(json_u64(line, "thread_id", &thread), 0);
	assert_int_equal(json_u64(line, "address", &addr), 0);
	assert_int_equal(json_u64(line, "size", &size), 0);
	const struct jv *by = json_get(line, "by"), *hex = json_get(line, "data");
	assert_non_null(by);
	assert_non_null(hex);
	uint8_t *data = malloc(size + 1);
	assert_non_null(data);
	assert_int_equal(json_hex(hex->text, data, (long)size), (long)size);
	umt_rec r;
	assert_int_equal(umt_exec_get(c->t, id, &r), 0);
	assert_int_equal(r.thread_id, (int32_t)thread);
	if (!strcmp(by->text, "instruction")) {
		assert_int_equal(r.type, UMT_REC_INSTRUCTION);
		check_ins_write(c, &r, addr, data, (long)size);
	} else {
		assert_true(!strcmp(by->text, "syscall") ? r.type == UMT_REC_SYSCALL_EXIT
		                                         : r.type == UMT_REC_THREAD_BEGIN ||
		                                                   r.type == UMT_REC_CTX_EXCEPTION);
		check_block_write(c, &r, addr, data, (long)size);
	}
	mem_write(&c->mem, addr, data, size);
	free(data);
}

/* A "mem" line: every byte some write of the truth set so far agrees. */
static void check_mem(struct check *c, const struct jv *line)
{
	uint64_t addr;
	uint8_t data[4096];
	assert_int_equal(json_u64(line, "address", &addr), 0);
	long n = json_hex(json_get(line, "data")->text, data, sizeof data);
	assert_true(n > 0);
	for (long i = 0; i < n; i++) {
		const struct page *p = page_of(&c->mem, addr + (uint64_t)i, 0);
		if (p && p->written[(addr + (uint64_t)i) & 4095]) {
			assert_int_equal(p->data[(addr + (uint64_t)i) & 4095], data[i]);
			c->mem_bytes++;
		}
	}
}

static void expect_in_space(struct check *c, uint64_t id, uint64_t addr)
{
	if (umt_address_space_find(c->t, addr, NULL) != 1)
		fail_msg("record %llu: 0x%llx is in no address range", (unsigned long long)id,
		         (unsigned long long)addr);
}

/* Every after memory slot of every complete instruction record was a write;
 * every instruction and memory operand (faulting ones too) lies in the
 * address space table. */
static void check_all_writes_listed(struct check *c)
{
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, c->t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) == 1) {
		if (r.type != UMT_REC_INSTRUCTION)
			continue;
		umt_ins_exec x;
		const umt_ins_rec *row;
		assert_int_equal(umt_rec_ins_exec(c->t, &r, &x), 0);
		assert_int_equal(umt_ins_get(c->t, (uint64_t)x.ins_id, &row), 0);
		expect_in_space(c, r.id, (uint64_t)row->Address);
		for (unsigned k = 0; k < x.dec.ins->LCCount; k++) {
			uint64_t a;
			umt_value v;
			if (x.dec.slots[k].AddrWidth == 0)
				continue;
			assert_int_equal(umt_lc_slot_value(&x, k, &v, &a), 0);
			expect_in_space(c, r.id, a);
			if (k >= x.dec.ins->FirstAfterSlot && !umt_rec_is_incomplete(&r) &&
			    !has_write(c, r.id, a))
				fail_msg("record %llu writes 0x%llx: not in the truth", (unsigned long long)r.id,
				         (unsigned long long)a);
		}
	}
}

/* Syscall rows against their entry and exit dumps: the first four arguments
 * are r10, rdx, r8, r9 at the entry (64-bit), the result rax at the exit. */
static void check_syscalls(struct check *c)
{
	static const char *const regs[4] = {"r10", "rdx", "r8", "r9"};
	for (uint64_t i = 0; i < umt_syscall_count(c->t); i++) {
		umt_syscall s;
		umt_rec r;
		umt_context ctx;
		umt_value v;
		assert_int_equal(umt_syscall_get(c->t, i, &s), 0);
		assert_int_equal(umt_exec_get(c->t, (uint64_t)s.rec->BeginEID, &r), 0);
		assert_int_equal(umt_rec_context(c->t, &r, &ctx), 0);
		for (unsigned k = 0; k < 4 && ctx.is_64bit; k++) {
			uint64_t arg;
			assert_int_equal(umt_syscall_arg(&s, k, &arg), 0);
			assert_int_equal(umt_context_reg(c->t, &ctx, umt_reg_by_name(c->t, regs[k]), &v), 0);
			assert_int_equal(umt_value_u64(&v), arg);
		}
		if (!s.rec->Completed)
			continue;
		assert_int_equal(umt_exec_get(c->t, (uint64_t)s.rec->EndEID, &r), 0);
		assert_int_equal(umt_rec_context(c->t, &r, &ctx), 0);
		int rax = umt_reg_by_name(c->t, ctx.is_64bit ? "rax" : "eax");
		assert_int_equal(umt_context_reg(c->t, &ctx, rax, &v), 0);
		assert_int_equal(umt_value_u64(&v), (uint64_t)s.rec->Result);
	}
}

/* ---- calls and coverage -------------------------------------------------------------------------- */

static void add_call(struct check *c, const struct jv *line)
{
	if (c->ncalls == c->ccap) {
		c->ccap = c->ccap ? 2 * c->ccap : 1024;
		c->calls = realloc(c->calls, c->ccap * sizeof *c->calls);
		assert_non_null(c->calls);
	}
	struct call *k = &c->calls[c->ncalls++];
	uint64_t v;
	assert_int_equal(json_u64(line, "id", &k->id), 0);
	assert_int_equal(json_u64(line, "thread_id", &v), 0);
	k->thread = (int)v;
	assert_int_equal(json_u64(line, "caller", &k->caller), 0);
	assert_int_equal(json_u64(line, "target", &k->target), 0);
	assert_int_equal(json_u64(line, "depth", &k->depth), 0);
	k->ret = json_u64(line, "return_id", &v) == 0 ? (int64_t)v : -1;
	k->parent = json_u64(line, "parent", &v) == 0 ? (int64_t)v : -1;
}

/* Address, size and disassembly of instruction record @p id. */
static void ins_of(struct check *c, uint64_t id, uint64_t *addr, unsigned *size, const char **text)
{
	umt_rec r;
	int64_t ins = -1;
	assert_int_equal(umt_exec_get(c->t, id, &r), 0);
	assert_int_equal(umt_rec_ins(&r, &ins, NULL, NULL), 0);
	const umt_ins_rec *row;
	const uint8_t *bytes;
	size_t len;
	assert_int_equal(umt_ins_get(c->t, (uint64_t)ins, &row), 0);
	assert_int_equal(umt_ins_code(c->t, (uint64_t)ins, &bytes, size), 0);
	assert_int_equal(umt_ins_disasm(c->t, (uint64_t)ins, text, &len), 0);
	*addr = (uint64_t)row->Address;
}

/* The instruction address of the thread's record after @p id, or 0 when it
 * is not an instruction (the thread ended). */
static uint64_t next_address(struct check *c, uint64_t id)
{
	int64_t prev, next;
	assert_int_equal(umt_exec_links(c->t, id, &prev, &next), 0);
	umt_rec r;
	if (next < 0 || umt_exec_get(c->t, (uint64_t)next, &r) < 0 || r.type != UMT_REC_INSTRUCTION)
		return 0;
	uint64_t a;
	unsigned n;
	const char *s;
	ins_of(c, (uint64_t)next, &a, &n, &s);
	return a;
}

static const struct call *find_call(const struct check *c, int64_t id)
{
	for (size_t i = 0; i < c->ncalls; i++) /* calls are few enough */
		if ((int64_t)c->calls[i].id == id)
			return &c->calls[i];
	return NULL;
}

static void check_calls(struct check *c)
{
	assert_true(c->ncalls > 0);
	for (size_t i = 0; i < c->ncalls; i++) {
		const struct call *k = &c->calls[i];
		uint64_t a, t;
		unsigned n;
		const char *text;
		ins_of(c, k->id, &a, &n, &text);
		assert_int_equal(a, k->caller);
		assert_true(!strncmp(text, "call ", 5));
		if ((t = next_address(c, k->id)) != 0)
			assert_int_equal(t, k->target);
		if (k->ret >= 0) {
			uint64_t ra;
			unsigned rn;
			ins_of(c, (uint64_t)k->ret, &ra, &rn, &text);
			assert_true(!strcmp(text, "ret") && (uint64_t)k->ret > k->id);
			if ((t = next_address(c, (uint64_t)k->ret)) != 0)
				assert_int_equal(t, k->caller + n); /* back after the call */
		}
		const struct call *p = k->parent >= 0 ? find_call(c, k->parent) : NULL;
		assert_true(k->parent < 0 ? k->depth == 0 : p != NULL);
		if (p) {
			assert_int_equal(p->depth + 1, k->depth);
			assert_int_equal(p->thread, k->thread);
			assert_true(p->id < k->id && (p->ret < 0 || (uint64_t)p->ret > k->id));
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A coverage line against a scan of the records of its module row. */
static void check_coverage(struct check *c, const struct jv *line)
{
	uint64_t mod = UINT64_MAX, execs, n = 0, cap = 1024;
	json_u64(line, "module_id", &mod);
	assert_int_equal(json_u64(line, "executions", &execs), 0);
	uint64_t *seen = malloc(cap * sizeof *seen), count = 0;
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, c->t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) == 1) {
		int64_t ins = -1;
		const umt_ins_rec *row;
		if (r.type != UMT_REC_INSTRUCTION || umt_rec_ins(&r, &ins, NULL, NULL) < 0 ||
		    umt_ins_get(c->t, (uint64_t)ins, &row) < 0 ||
		    (mod == UINT64_MAX ? row->ModuleID != -1 : row->ModuleID != (int32_t)mod))
			continue;
		count++;
		if (n == cap)
			seen = realloc(seen, (cap *= 2) * sizeof *seen);
		seen[n++] = (uint64_t)row->Address;
	}
	qsort(seen, n, sizeof *seen, cmp_u64);
	uint64_t u = 0;
	for (uint64_t i = 0; i < n; i++)
		if (u == 0 || seen[u - 1] != seen[i])
			seen[u++] = seen[i];
	const struct jv *addrs = json_get(line, "addresses");
	assert_int_equal(count, execs);
	assert_int_equal((uint64_t)addrs->n, u);
	for (uint64_t i = 0; i < u; i++)
		assert_int_equal(strtoull(addrs->items[i].text, NULL, 16), seen[i]);
	free(seen);
	c->coverage_lines++;
}

/* ---- driver ------------------------------------------------------------------------------------------ */

static void read_truth(struct check *c, const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0) {
		struct jv v;
		assert_int_equal(json_parse(line, &v), 0);
		const char *kind = json_get(&v, "kind")->text;
		if (!strcmp(kind, "regs"))
			check_regs(c, &v);
		else if (!strcmp(kind, "write"))
			check_write(c, &v);
		else if (!strcmp(kind, "mem"))
			check_mem(c, &v);
		else if (!strcmp(kind, "call"))
			add_call(c, &v);
		else if (!strcmp(kind, "coverage"))
			check_coverage(c, &v);
		else
			fail_msg("unknown truth line kind %s", kind);
		json_free(&v);
	}
	free(line);
	fclose(f);
}

static void run_config(struct umtgen_params *p)
{
	char *dir = fx_tmpdir(), trace[4096], truth[4096];
	snprintf(trace, sizeof trace, "%s/trace", dir);
	snprintf(truth, sizeof truth, "%s/truth.jsonl", dir);
	p->truth = truth;
	p->quiet = 1;
	assert_int_equal(umtgen_write(trace, p), 0);
	struct check c;
	memset(&c, 0, sizeof c);
	assert_int_equal(umt_trace_open(trace, 0, &c.t), 0);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(c.t, &info), 0);
	assert_int_equal(info.exec_count, p->records);
	c.dump = info.dump_size;
	umt_verify_result res;
	assert_int_equal(umt_verify(c.t, NULL, &res), 0);
	assert_int_equal(res.errors + res.warnings, 0);
	read_truth(&c, truth);
	check_all_writes_listed(&c);
	check_syscalls(&c);
	check_calls(&c);
	print_message("%llu samples: %llu before, %llu after register values, %llu dump bytes, "
	              "%llu instruction and %llu kernel writes, %llu memory bytes, %zu calls\n",
	              (unsigned long long)c.samples, (unsigned long long)c.regs_before,
	              (unsigned long long)c.regs_after, (unsigned long long)c.dump_bytes,
	              (unsigned long long)c.ins_writes, (unsigned long long)c.kernel_writes,
	              (unsigned long long)c.mem_bytes, c.ncalls);
	assert_true(c.samples > 0 && c.regs_before > 0 && c.regs_after > 0 && c.dump_bytes > 0);
	assert_true(c.ins_writes > 0 && c.kernel_writes > 0 && c.mem_bytes > 0);
	assert_true(c.coverage_lines >= 4);
	umt_trace_close(c.t);
	mem_free(&c.mem);
	free(c.writes);
	free(c.calls);
	fx_rmtree(dir);
	free(dir);
}

static struct umtgen_params params(uint64_t seed, uint32_t threads, int flavour, int code32)
{
	struct umtgen_params p;
	umtgen_params_init(&p);
	p.records = 40000;
	p.threads = threads;
	p.seed = seed;
	p.flavour = flavour;
	p.code32 = code32;
	p.truth_every = 16;
	return p;
}

static void test_64bit_2015(void **state)
{
	(void)state;
	struct umtgen_params p = params(1, 4, UMT_FLAVOUR_2015, 0);
	run_config(&p);
}

static void test_64bit_2014(void **state)
{
	(void)state;
	struct umtgen_params p = params(2, 3, UMT_FLAVOUR_2014, 0);
	run_config(&p);
}

static void test_32bit_2015(void **state)
{
	(void)state;
	struct umtgen_params p = params(3, 3, UMT_FLAVOUR_2015, 1);
	run_config(&p);
}

static void test_32bit_2014(void **state)
{
	(void)state;
	struct umtgen_params p = params(4, 2, UMT_FLAVOUR_2014, 1);
	run_config(&p);
}

static void test_abort(void **state)
{
	(void)state;
	struct umtgen_params p = params(5, 5, UMT_FLAVOUR_2015, 0);
	p.abort_run = 1;
	run_config(&p);
}

static void test_one_thread_deep(void **state)
{
	(void)state;
	struct umtgen_params p = params(6, 1, UMT_FLAVOUR_2015, 0);
	p.call_depth = 10;
	p.syscall_rate = 40;
	p.mem_share = 90;
	run_config(&p);
}

/* The bundled sample's program, as tools/mksample runs it, and in 32-bit code. */
static void test_sample(void **state)
{
	(void)state;
	for (int code32 = 0; code32 < 2; code32++) {
		struct umtgen_params p = params(1, 2, code32 ? UMT_FLAVOUR_2014 : UMT_FLAVOUR_2015, code32);
		p.sample = 1;
		p.records = 220;
		run_config(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_64bit_2015), cmocka_unit_test(test_64bit_2014),
		cmocka_unit_test(test_32bit_2015), cmocka_unit_test(test_32bit_2014),
		cmocka_unit_test(test_abort),      cmocka_unit_test(test_one_thread_deep),
		cmocka_unit_test(test_sample),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
