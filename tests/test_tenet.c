/*
 * test_tenet: umtdump tenet TRACE --thread T OUT, read back by a parser
 * written here from Tenet's reader (gaasedelen/tenet, tenet/trace/file.py
 * and reader.py), and replayed step by step against the trace.
 *
 * The format as that reader takes it: one step per line; items separated by
 * ',', each NAME=VALUE with the name upper-cased; the instruction pointer
 * (RIP or EIP) is the step's address; a name of the architecture's register
 * list is a register whose value (hex) holds from this step on; MR, MW, MRW
 * are memory read, written, both: ADDRESS:HEXBYTES. Registers at a step are
 * those of its line and the latest earlier ones; memory at a step is the
 * latest access at or before it, a write winning over a read of the same
 * step. Anything else fails the parse.
 *
 * At every step the replayed state must be what the trace records: the
 * instruction's address; every register value the instruction reads or
 * writes before executing (its before values); otherwise the latest value
 * recorded earlier in the thread (a context, or the after value of an
 * earlier instruction whose outputs can be believed); every trusted read
 * and write of the instruction at its address. Traces: the sample, a
 * hand-built one (64-bit and 32-bit code in one thread, contexts in the
 * middle, unreliable outputs, an x86 thread), generated ones of both
 * flavours.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "fixture.h"

#define NREGS 17
static const char *const amd64[NREGS] = {"RAX", "RBX", "RCX", "RDX", "RBP", "RSP",
                                         "RSI", "RDI", "R8",  "R9",  "R10", "R11",
                                         "R12", "R13", "R14", "R15", "RIP"};
static const char *const x86[9] = {"EAX", "EBX", "ECX", "EDX", "EBP", "ESP", "ESI", "EDI",
                                   "EIP"};

/* ---- the parser and the replay --------------------------------------------------------- */

/* Memory as a small open-addressing map from address to byte. */
struct mem {
	uint64_t *addr;
	uint8_t *val, *used;
	size_t cap, n;
};

static void mem_put(struct mem *m, uint64_t a, uint8_t v);

static void mem_grow(struct mem *m)
{
	struct mem old = *m;
	m->cap = m->cap ? 2 * m->cap : 1024;
	m->addr = calloc(m->cap, sizeof *m->addr);
	m->val = calloc(m->cap, 1);
	m->used = calloc(m->cap, 1);
	m->n = 0;
	for (size_t i = 0; i < old.cap; i++)
		if (old.used[i])
			mem_put(m, old.addr[i], old.val[i]);
	free(old.addr), free(old.val), free(old.used);
}

static size_t mem_slot(const struct mem *m, uint64_t a)
{
	size_t i = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);
	while (m->used[i] && m->addr[i] != a)
		i = (i + 1) & (m->cap - 1);
	return i;
}

static void mem_put(struct mem *m, uint64_t a, uint8_t v)
{
	if (2 * (m->n + 1) > m->cap)
		mem_grow(m);
	size_t i = mem_slot(m, a);
	m->n += !m->used[i];
	m->used[i] = 1;
	m->addr[i] = a;
	m->val[i] = v;
}

static int mem_get(const struct mem *m, uint64_t a, uint8_t *v)
{
	if (m->cap == 0)
		return 0;
	size_t i = mem_slot(m, a);
	*v = m->val[i];
	return m->used[i];
}

struct access_item {
	int write;
	uint64_t address;
	uint8_t *data;
	size_t n;
};

struct replay {
	int wide;
	uint64_t reg[NREGS];
	int set[NREGS];
	uint64_t ip;
	struct mem mem;
	struct access_item acc[64];
	int nacc;
};

static int reg_index(const struct replay *r, const char *name)
{
	const char *const *names = r->wide ? amd64 : x86;
	int n = r->wide ? NREGS : 9;
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static uint8_t *unhex(const char *s, size_t *n)
{
	size_t len = strlen(s);
	assert_true(len % 2 == 0);
	uint8_t *b = malloc(len / 2 + 1);
	for (size_t i = 0; i < len / 2; i++) {
		unsigned v;
		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		b[i] = (uint8_t)v;
	}
	*n = len / 2;
	return b;
}

/* One item NAME=VALUE of a line. */
static void parse_item(struct replay *r, char *item)
{
	char *eq = strchr(item, '=');
	assert_non_null(eq);
	*eq = '\0';
	for (char *p = item; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	const char *value = eq + 1;
	int k = reg_index(r, item);
	if (!strcmp(item, r->wide ? "RIP" : "EIP")) {
		r->ip = strtoull(value, NULL, 16);
	} else if (k >= 0) {
		r->reg[k] = strtoull(value, NULL, 16);
		r->set[k] = 1;
	} else if (!strcmp(item, "MR") || !strcmp(item, "MW") || !strcmp(item, "MRW")) {
		const char *colon = strchr(value, ':');
		assert_non_null(colon);
		assert_true(r->nacc < 64);
		struct access_item *a = &r->acc[r->nacc++];
		a->write = item[1] == 'W' || item[2] == 'W';
		a->address = strtoull(value, NULL, 16);
		a->data = unhex(colon + 1, &a->n);
	} else {
		fail_msg("not a Tenet item: %s", item);
	}
}

/* Applies one line: its registers, then its reads, then its writes (writes win). */
static void replay_line(struct replay *r, char *line)
{
	r->nacc = 0;
	line[strcspn(line, "\n")] = '\0';
	for (char *save = NULL, *item = strtok_r(line, ",", &save); item;
	     item = strtok_r(NULL, ",", &save))
		parse_item(r, item);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < r->nacc; i++)
			if (r->acc[i].write == pass)
				for (size_t k = 0; k < r->acc[i].n; k++)
					mem_put(&r->mem, r->acc[i].address + k, r->acc[i].data[k]);
}

/* ---- the trace's side ------------------------------------------------------------------ */

struct truth {
	const umt_trace *t;
	int wide;
	int id64[NREGS], id32[NREGS];
	uint64_t value[NREGS];
	int known[NREGS];
};

static void truth_merge(struct truth *s, int r, const umt_value *v)
{
	uint64_t bytes = 0;
	unsigned n = v->size < 8 ? v->size : 8;
	memcpy(&bytes, v->data, n);
	uint64_t mask = n == 8 ? UINT64_MAX : (1ull << (8 * n)) - 1;
	s->value[r] = ((s->known[r] ? s->value[r] : 0) & ~mask) | (bytes & mask);
	if (!s->wide)
		s->value[r] &= 0xffffffffu;
	s->known[r] = 1;
}

static void truth_context(struct truth *s, const umt_rec *rec)
{
	umt_context c;
	assert_int_equal(umt_rec_context(s->t, rec, &c), 0);
	for (int r = 0; r < NREGS; r++) {
		umt_value v;
		if (!s->wide && r >= 8 && r != NREGS - 1)
			continue;
		if ((s->id64[r] >= 0 && umt_context_reg(s->t, &c, s->id64[r], &v) == 0) ||
		    (s->id32[r] >= 0 && umt_context_reg(s->t, &c, s->id32[r], &v) == 0))
			truth_merge(s, r, &v);
	}
}

/* The registers the instruction records at @p when: merged into the truth. */
static void truth_lc(struct truth *s, const umt_ins_exec *x, int when, int check_against,
                     const struct replay *rp)
{
	for (int r = 0; r < NREGS - 1; r++) {
		umt_value v;
		if (!s->wide && r >= 8)
			continue;
		int id = x->is_64bit ? s->id64[r] : s->id32[r];
		if (id < 0 || umt_lc_find_reg(s->t, x, id, when, &v) != 0)
			continue;
		truth_merge(s, r, &v);
		if (check_against) { /* the value the instruction reads: exactly, in its width */
			unsigned n = v.size < 8 ? v.size : 8;
			uint64_t bytes = 0, mask = n == 8 ? UINT64_MAX : (1ull << (8 * n)) - 1;
			memcpy(&bytes, v.data, n);
			assert_true(rp->set[r]);
			assert_int_equal(rp->reg[r] & mask, bytes & mask & (s->wide ? UINT64_MAX : 0xffffffffu));
		}
	}
}

/* Every trusted read and write of the record against the replayed memory. */
static void check_accesses(const umt_trace *t, const umt_rec *rec, const struct replay *rp)
{
	umt_access_iter it;
	umt_access a;
	assert_int_equal(umt_access_iter_init(&it, t, rec, UMT_ACCESS_READ | UMT_ACCESS_WRITE), 0);
	while (umt_access_iter_next(&it, &a) == 1) {
		if (!(a.trust & UMT_TRUST_VALUE))
			continue;
		for (uint64_t k = 0; k < a.size; k++) {
			uint8_t v;
			int written = 0;
			for (int i = 0; i < rp->nacc; i++)
				written |= rp->acc[i].write && a.address + k >= rp->acc[i].address &&
				           a.address + k < rp->acc[i].address + rp->acc[i].n;
			if (a.kind == UMT_ACCESS_READ && written)
				continue; /* this step's write wins, as in Tenet */
			assert_true(mem_get(&rp->mem, a.address + k, &v));
			assert_int_equal(v, a.data[k]);
		}
	}
}

/* ---- one thread: export, parse, replay, compare ---------------------------------------- */

static void check_thread(const char *trace, umt_trace *t, uint64_t thread, const char *dir)
{
	char out[4200], cmd[9000];
	snprintf(out, sizeof out, "%s/t%llu.tenet", dir, (unsigned long long)thread);
	snprintf(cmd, sizeof cmd, "'%s' --quiet tenet --thread %llu '%s' '%s'", getenv("UMTDUMP"),
	         (unsigned long long)thread, trace, out);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(out, "r");
	assert_non_null(f);
	struct truth s = {.t = t};
	struct replay rp;
	memset(&rp, 0, sizeof rp);
	for (int r = 0; r < NREGS; r++) {
		s.id64[r] = umt_reg_by_name(t, amd64[r]);
		s.id32[r] = r < 8 ? umt_reg_by_name(t, x86[r]) : r == NREGS - 1 ? umt_reg_by_name(t, "eip") : -1;
	}
	umt_thread_iter it;
	umt_rec rec;
	char *line = NULL;
	size_t cap = 0;
	int exec_version = 1;
	umt_trace_info info;
	if (umt_trace_get_info(t, &info) == 0)
		exec_version = info.exec_version;
	/* the file's architecture: the first instruction's (64-bit when there is none) */
	s.wide = rp.wide = 1;
	assert_int_equal(umt_thread_iter_init_thread(&it, t, thread), 0);
	while (umt_thread_iter_next(&it, &rec) == 1)
		if (rec.type == UMT_REC_INSTRUCTION) {
			s.wide = rp.wide = (rec.flags & UMT_EXEC_F_64BIT) != 0;
			break;
		}
	assert_int_equal(umt_thread_iter_init_thread(&it, t, thread), 0);
	while (umt_thread_iter_next(&it, &rec) == 1) {
		if (rec.type != UMT_REC_INSTRUCTION) {
			if (umt_rec_type_has_context(rec.type))
				truth_context(&s, &rec);
			continue;
		}
		umt_ins_exec x;
		const umt_ins_rec *row;
		assert_int_equal(umt_rec_ins_exec(t, &rec, &x), 0);
		assert_int_equal(umt_ins_get(t, (uint64_t)x.ins_id, &row), 0);
		assert_true(getline(&line, &cap, f) > 0);
		replay_line(&rp, line);
		assert_int_equal(rp.ip, (uint64_t)row->Address);
		truth_lc(&s, &x, UMT_BEFORE, 1, &rp);
		for (int r = 0; r < NREGS - 1; r++) /* what earlier records left */
			if (s.known[r]) {
				assert_true(rp.set[r]);
				assert_int_equal(rp.reg[r], s.value[r]);
			}
		check_accesses(t, &rec, &rp);
		for (int i = 0; i < rp.nacc; i++)
			free(rp.acc[i].data);
		if (umt_exec_reliability(exec_version, rec.flags) & UMT_RELIABLE_OUTPUTS)
			truth_lc(&s, &x, UMT_AFTER, 0, NULL);
	}
	assert_true(getline(&line, &cap, f) < 0); /* no line for nothing */
	free(line);
	fclose(f);
	free(rp.mem.addr), free(rp.mem.val), free(rp.mem.used);
}

static void check_trace(const char *trace)
{
	umt_trace *t = fx_must_open_dir(trace);
	char *dir = fx_tmpdir();
	for (uint64_t th = 0; th < umt_thread_count(t); th++)
		check_thread(trace, t, th, dir);
	fx_rmtree(dir);
	free(dir);
	umt_trace_close(t);
}

/* ---- the hand-built trace ------------------------------------------------------------- */

enum { RAX = 74, RCX = 75, RDX = 76, RBX = 77, EAX = 58, ECX = 59, MEM0 = 0xffff };

struct hrow {
	int is64;
	uint8_t first_out, first_after, count;
	struct { uint16_t reg, size; uint8_t aw; } s[4];
};

/* 0: rax <- [rbx] (64-bit); 1: rcx += rax; 2: ecx <- eax (32-bit); 3: [rdx] <- rcx (peek). */
static const struct hrow hrows[] = {
	{1, 2, 2, 3, {{RBX, 8, 0}, {MEM0, 8, 8}, {RAX, 8, 0}}},
	{1, 2, 2, 3, {{RCX, 8, 0}, {RAX, 8, 0}, {RCX, 8, 0}}},
	{0, 1, 1, 2, {{EAX, 4, 0}, {ECX, 4, 0}}},
	{1, 2, 3, 4, {{RDX, 8, 0}, {RCX, 8, 0}, {MEM0, 8, 8}, {MEM0, 8, 8}}},
};

static uint16_t lc_size(const struct hrow *h)
{
	uint16_t n = 0;
	for (unsigned i = 0; i < h->count; i++)
		n = (uint16_t)(n + h->s[i].size + (h->s[i].aw ? 8 : 0));
	return n;
}

static void add_hrows(umt_writer *w)
{
	for (size_t k = 0; k < sizeof hrows / sizeof hrows[0]; k++) {
		const struct hrow *h = &hrows[k];
		umt_decoded_ins d;
		umt_lc_slot sl[4];
		memset(&d, 0, sizeof d);
		memset(sl, 0, sizeof sl);
		d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = 0xff;
		d.FirstOutSlot = h->first_out;
		d.FirstAfterSlot = h->first_after;
		d.LCCount = h->count;
		d.LCSize = lc_size(h);
		uint16_t off = 0;
		for (unsigned i = 0; i < h->count; i++) {
			sl[i].RegName = (int16_t)h->s[i].reg;
			sl[i].CommonRegName = (int16_t)h->s[i].reg;
			sl[i].ValueSize = (int16_t)h->s[i].size;
			sl[i].Offset = off;
			sl[i].AddrWidth = h->s[i].aw;
			off = (uint16_t)(off + h->s[i].size + (h->s[i].aw ? 8 : 0));
		}
		int64_t dfp, tfp;
		assert_int_equal(umt_writer_add_decoded(w, &d, sl, &dfp), 0);
		assert_int_equal(umt_writer_add_disasm(w, "x", &tfp), 0);
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.CSis64Bits = (uint8_t)h->is64;
		r.CodeSize = 1;
		r.CodeBytes[0] = 0x90;
		r.ModuleID = -1;
		r.Address = (int64_t)(0x401000 + 0x10 * k);
		r.DisasmFP = tfp;
		r.DecodedFP = dfp;
		assert_int_equal(umt_writer_add_ins(w, &r, NULL), 0);
	}
}

/* An instruction of row @p k whose LC bytes are @p seed, seed + 1...; memory at @p addr. */
static void add_ins(umt_writer *w, int32_t thread, int k, uint8_t flags, uint8_t seed,
                    uint64_t addr)
{
	const struct hrow *h = &hrows[k];
	uint8_t lc[64];
	uint16_t n = lc_size(h), off = 0;
	for (unsigned i = 0; i < n; i++)
		lc[i] = (uint8_t)(seed + i);
	for (unsigned i = 0; i < h->count; i++) {
		if (h->s[i].aw)
			memcpy(lc + off, &addr, 8);
		off = (uint16_t)(off + h->s[i].size + (h->s[i].aw ? 8 : 0));
	}
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_INSTRUCTION;
	e.flags = (uint8_t)(flags | (h->is64 ? UMT_EXEC_F_64BIT : 0));
	e.thread_id = thread;
	e.ins_id = k;
	e.lc = lc;
	e.lc_size = n;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

static void add_context(umt_writer *w, const umt_context_map *m, int32_t thread, uint8_t type,
                        int is64, uint8_t seed)
{
	uint8_t regs[4096];
	for (unsigned i = 0; i < m->DumpSize; i++)
		regs[i] = (uint8_t)(seed ^ (i * 7));
	(void)m;
	umt_context_desc c = {regs, m->DumpSize, NULL, 0};
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.flags = is64 ? UMT_EXEC_F_64BIT : 0;
	e.thread_id = thread;
	e.syscall_id = -1;
	e.context = &c;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

static void write_hand(const char *dir)
{
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	umt_context_map m;
	umt_context_map_default(&m, 1, NULL);
	int32_t tid;
	assert_int_equal(umt_writer_add_thread(w, 1, 0x7000, &tid), 0);
	assert_int_equal(umt_writer_add_thread(w, 2, 0x8000, &tid), 0);
	add_hrows(w);
	add_context(w, &m, 0, UMT_REC_THREAD_BEGIN, 1, 0x10);
	add_context(w, &m, 1, UMT_REC_THREAD_BEGIN, 0, 0x20);
	add_ins(w, 0, 0, 0, 0x30, 0x9000);                    /* rax <- [rbx] */
	add_ins(w, 0, 1, 0, 0x40, 0);                         /* rcx += rax */
	add_ins(w, 1, 2, 0, 0x50, 0);                         /* the x86 thread */
	add_ins(w, 0, 2, 0, 0x60, 0);                         /* 32-bit code in a 64-bit thread */
	add_context(w, &m, 0, UMT_REC_SYSCALL_EXIT, 1, 0x70); /* every register anew */
	add_ins(w, 0, 3, 0, 0x80, 0x9004);                    /* [rdx] <- rcx: overlaps [rbx] */
	add_ins(w, 0, 1, 0x20, 0x90, 0);                      /* outputs not reliable */
	add_ins(w, 0, 0, UMT_EXEC_F_INSTR_OFF, 0xa0, 0x9000); /* after a gap */
	add_ins(w, 1, 2, 0, 0xb0, 0);
	assert_int_equal(umt_writer_finish(w), 0);
}

static void test_hand_trace(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	write_hand(dir);
	check_trace(dir);
	/* the first line of thread 0 holds the thread-begin context's registers */
	umt_trace *t = fx_must_open_dir(dir);
	char *tmp = fx_tmpdir(), cmd[9000], out[4200];
	snprintf(out, sizeof out, "%s/x.tenet", tmp);
	snprintf(cmd, sizeof cmd, "'%s' --quiet tenet --thread 1 '%s' '%s'", getenv("UMTDUMP"), dir,
	         out);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(out, "r");
	char line[4096];
	assert_non_null(fgets(line, sizeof line, f));
	assert_non_null(strstr(line, "eip=0x401020")); /* row 2, an x86 thread */
	assert_null(strstr(line, "rax="));
	fclose(f);
	umt_trace_close(t);
	fx_rmtree(tmp);
	fx_rmtree(dir);
	free(tmp);
	free(dir);
}

static void test_sample(void **state)
{
	(void)state;
	check_trace(UMT_SAMPLE_DIR);
}

static void test_generated(void **state)
{
	(void)state;
	static const char *const args[] = {
		"--records 6000 --threads 3 --instructions 200 --seed 21",
		"--records 5000 --threads 2 --instructions 150 --seed 22 --flavour 2014",
		"--records 5000 --threads 2 --seed 23 --code32",
		"--records 5000 --threads 2 --seed 24 --flavour 2014 --code32 --abort",
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *dir = fx_tmpdir(), cmd[4200];
		snprintf(cmd, sizeof cmd, "'%s' --quiet %s '%s/t'", getenv("UMTGEN"), args[i], dir);
		assert_int_equal(system(cmd), 0);
		snprintf(cmd, sizeof cmd, "%s/t", dir);
		check_trace(cmd);
		fx_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	if (getenv("UMTDUMP") == NULL || getenv("UMTGEN") == NULL) {
		fprintf(stderr, "test_tenet: set UMTDUMP and UMTGEN (ctest does)\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_trace),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
