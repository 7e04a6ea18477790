/*
 * test_coverage: the index's coverage section (index.h section 10).
 *
 * A hand-built trace whose coverage is worked out by hand in the comments
 * (a module loaded twice under names that differ in case, a row
 * instrumented twice at one address with two sizes, floating code inside a
 * module's range while it is loaded and after it is unloaded, JIT code,
 * a row never executed), and generated traces checked against a
 * brute-force scan written here from the rule of index.h (a linear search
 * of the module table, not umt_module_find()) and against umtgen's ground
 * truth (its machine knows which module ran what). Also: the bytes do not
 * depend on threads or budget, an index without the section, a damaged
 * cov.table, and two traces compared with known differences.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "gen/jsonl.h"
#include "umtrace/index.h"

#define APP 0x140000000ull
#define K32 0x7ff800000000ull
#define K32B 0x7ff900000000ull
#define JIT 0x500000ull

/* ---- the hand-built traces ------------------------------------------------------------- */

struct spec {
	uint64_t app_base;
	int k32_twice;           /* kernel32 unloaded at record 20 and loaded again elsewhere */
	const int *rows_run;     /* the row of each record, -1 for other records (see below) */
	size_t nrecords;
};

/* An empty decoded body and the text "nop", for rows that need nothing more. */
static void add_nop_body(umt_writer *w, int64_t *dfp, int64_t *tfp)
{
	umt_decoded_ins dec;
	memset(&dec, 0, sizeof dec);
	dec.Mem0SegSlot = dec.Mem0BaseSlot = dec.Mem0IndexSlot = dec.Mem1BaseSlot = 0xff;
	assert_int_equal(umt_writer_add_decoded(w, &dec, NULL, dfp), 0);
	assert_int_equal(umt_writer_add_disasm(w, "nop", tfp), 0);
}

/* Rows: 0 app+0x1000 (4 bytes), 1 app+0x1004 (1), 2 app+0x1000 again (2), 3 k32+0x1000 (3),
 * 4 k32b+0x1000 (3), 5 floating at k32+0x2000 (1), 6 floating JIT (2), 7 app+0x2000 (never),
 * 8 app+0x3000 (1), 9 floating at 0x600000 (1). */
static void add_rows(umt_writer *w, uint64_t app)
{
	static const struct { int64_t module; uint64_t address; uint8_t size; } rows[] = {
		{0, 0x1000, 4}, {0, 0x1004, 1}, {0, 0x1000, 2}, {1, K32 + 0x1000, 3},
		{2, K32B + 0x1000, 3}, {-1, K32 + 0x2000, 1}, {-1, JIT, 2}, {0, 0x2000, 1},
		{0, 0x3000, 1}, {-1, 0x600000, 1}};
	int64_t dfp, tfp;
	add_nop_body(w, &dfp, &tfp);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.CSis64Bits = 1;
		r.CodeSize = rows[i].size;
		memset(r.CodeBytes, 0x90, r.CodeSize);
		r.ModuleID = (int32_t)rows[i].module;
		r.Address = (int64_t)(rows[i].module == 0 ? app + rows[i].address : rows[i].address);
		r.DisasmFP = tfp;
		r.DecodedFP = dfp;
		assert_int_equal(umt_writer_add_ins(w, &r, NULL), 0);
	}
}

static void add_modules(umt_writer *w, const struct spec *s)
{
	umt_module_desc m;
	memset(&m, 0, sizeof m);
	m.unload_eid = -1;
	m.start_addr = (int64_t)s->app_base;
	m.end_addr = (int64_t)(s->app_base + 0xffff);
	m.win_name = "C:\\App\\app.exe";
	assert_int_equal(umt_writer_add_module(w, &m, NULL), 0);
	m.start_addr = (int64_t)K32;
	m.end_addr = (int64_t)(K32 + 0xffff);
	m.win_name = "C:\\Windows\\System32\\KERNEL32.DLL";
	m.unload_eid = s->k32_twice ? 20 : -1;
	assert_int_equal(umt_writer_add_module(w, &m, NULL), 0);
	if (!s->k32_twice)
		return;
	m.load_eid = 20;
	m.unload_eid = -1;
	m.start_addr = (int64_t)K32B;
	m.end_addr = (int64_t)(K32B + 0xffff);
	m.win_name = "c:\\windows\\system32\\kernel32.dll";
	assert_int_equal(umt_writer_add_module(w, &m, NULL), 0);
}

/* -2: thread-begin; -3: thread-end; -4: app-end; else an instruction of that row. Threads
 * alternate by record parity, except the first two begins. */
static void write_spec(const char *dir, const struct spec *s)
{
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	int32_t tid;
	assert_int_equal(umt_writer_add_thread(w, 10, 0x1000, &tid), 0);
	assert_int_equal(umt_writer_add_thread(w, 11, 0x2000, &tid), 0);
	add_modules(w, s);
	add_rows(w, s->app_base);
	for (size_t i = 0; i < s->nrecords; i++) {
		umt_exec_desc e;
		memset(&e, 0, sizeof e);
		e.flags = 1 | (i == 9 ? 0x04 : 0) | (i == 10 ? 0x40 : 0); /* false condition, fault */
		e.thread_id = (int32_t)(i % 2);
		int row = s->rows_run[i];
		e.type = row >= 0 ? UMT_REC_INSTRUCTION
		         : row == -2 ? UMT_REC_THREAD_BEGIN : row == -3 ? UMT_REC_THREAD_END
		                                           : UMT_REC_APP_END;
		e.ins_id = row;
		assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	}
	assert_int_equal(umt_writer_finish(w), 0);
}

/* Trace A: record 0 and 1 begin the threads; 2..21 instructions; 22, 23 end. */
static const int run_a[] = {-2, -2, 0, 1, 0, 3, 5, 6, 2, 5, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                            4, 5, -3, -4};
/* Trace B: app elsewhere; app+0x1000, app+0x3000, k32+0x1000 and 0x600000 run. */
static const int run_b[] = {-2, -2, 0, 8, 3, 9, -3, -4};

static const struct spec spec_a = {APP, 1, run_a, sizeof run_a / sizeof run_a[0]};
static const struct spec spec_b = {0x7ff700000000ull, 0, run_b, sizeof run_b / sizeof run_b[0]};

static umt_index *build_open(const umt_trace *t, const char *dir, unsigned threads,
                             uint64_t memory, uint64_t sections)
{
	return fx_must_build_index(t, dir, threads, memory, sections);
}

struct want_entry {
	int64_t module;
	uint64_t base, executions;
	size_t n;
	struct { uint64_t address, executions; uint32_t size; } a[3];
};

/*
 * Trace A by hand. app: 0x140001000 by rows 0 (records 2, 4) and 2 (8), size max(4, 2);
 * 0x140001004 by row 1 (3, 11-19). kernel32 first load: row 3 (5), and the floating row 5
 * while loaded (6, 9: 9 has a false condition, it still counts). Second load: row 4 (20).
 * Outside modules: row 6 (7, 10: 10 faulted) and row 5 after the unload (21).
 */
static const struct want_entry want_a[] = {
	{0, APP, 13, 2, {{APP + 0x1000, 3, 4}, {APP + 0x1004, 10, 1}}},
	{1, K32, 3, 2, {{K32 + 0x1000, 1, 3}, {K32 + 0x2000, 2, 1}}},
	{2, K32B, 1, 1, {{K32B + 0x1000, 1, 3}}},
	{-1, 0, 3, 2, {{JIT, 2, 2}, {K32 + 0x2000, 1, 1}}},
};

static void check_entries(const umt_index *ix, const struct want_entry *w, size_t n)
{
	assert_int_equal(umt_coverage_count(ix), n);
	for (size_t e = 0; e < n; e++) {
		umt_coverage_module m;
		assert_int_equal(umt_coverage_get(ix, e, &m), 0);
		assert_int_equal(m.module_id, w[e].module);
		assert_int_equal(m.base, w[e].base);
		assert_int_equal(m.addresses, w[e].n);
		assert_int_equal(m.executions, w[e].executions);
		for (size_t k = 0; k < w[e].n; k++) {
			umt_coverage_address a, f;
			assert_int_equal(umt_coverage_address_get(ix, e, k, &a), 0);
			assert_int_equal(a.address, w[e].a[k].address);
			assert_int_equal(a.executions, w[e].a[k].executions);
			assert_int_equal(a.size, w[e].a[k].size);
			assert_int_equal(umt_coverage_find(ix, e, a.address, &f), 1);
			assert_int_equal(f.executions, a.executions);
			assert_int_equal(umt_coverage_find(ix, e, a.address + 1, NULL), 0);
		}
		umt_coverage_address a;
		assert_int_equal(umt_coverage_address_get(ix, e, w[e].n, &a), UMT_E_RANGE);
	}
	umt_coverage_module m;
	assert_int_equal(umt_coverage_get(ix, n, &m), UMT_E_RANGE);
	assert_int_equal(umt_coverage_find(ix, 0, APP + 0x2000, NULL), 0); /* row 7: never ran */
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*n + 1);
	assert_int_equal(fread(b, 1, *n, f), *n);
	fclose(f);
	return b;
}

static void test_hand_trace(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *tr = fx_path(dir, "a"), *i1 = fx_path(dir, "i1"),
	     *i2 = fx_path(dir, "i2");
	write_spec(tr, &spec_a);
	umt_trace *t = fx_must_open_dir(tr);
	umt_index *ix = build_open(t, i1, 1, 0, UMT_INDEX_SECTIONS_ALL);
	check_entries(ix, want_a, sizeof want_a / sizeof want_a[0]);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	/* three threads and the smallest budget: the same bytes */
	ix = build_open(t, i2, 3, 1 << 20, UMT_INDEX_SECTIONS_ALL);
	umt_index_close(ix);
	char *f1 = fx_path(i1, "cov.table"), *f2 = fx_path(i2, "cov.table");
	size_t n1, n2;
	uint8_t *b1 = slurp(f1, &n1), *b2 = slurp(f2, &n2);
	/* 64-byte header, 4 entries of 48 bytes, 7 addresses of 24 */
	assert_int_equal(n1, 64 + 4 * 48 + 7 * 24);
	assert_int_equal(n1, n2);
	assert_memory_equal(b1 + 24, b2 + 24, n1 - 24); /* past the header's BuildID */
	free(b1), free(b2), free(f1), free(f2);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(tr), free(i1), free(i2);
}

static void test_without_section(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *tr = fx_path(dir, "a"), *ix_dir = fx_path(dir, "i");
	write_spec(tr, &spec_a);
	umt_trace *t = fx_must_open_dir(tr);
	umt_index *ix = build_open(t, ix_dir, 2, 0, UMT_INDEX_SECTION_MEMORY);
	umt_coverage_module m;
	assert_int_equal(umt_coverage_count(ix), 0);
	assert_int_equal(umt_coverage_get(ix, 0, &m), UMT_E_MISSING);
	assert_non_null(strstr(umt_errmsg(), "no coverage section"));
	assert_int_equal(umt_index_verify(ix), 0);
	struct stat st;
	char *f = fx_path(ix_dir, "cov.table");
	assert_int_not_equal(stat(f, &st), 0);
	umt_index_close(ix);
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.sections = 1u << 5; /* a part this library does not know */
	assert_int_equal(umt_index_build(t, ix_dir, &o, NULL), UMT_E_INVAL);
	assert_int_equal(umt_coverage_get(NULL, 0, &m), UMT_E_INVAL);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(tr), free(ix_dir), free(f);
}

/* ---- a damaged cov.table ---------------------------------------------------------------- */

/* Every query and the check on whatever opens; nothing may crash (ASan). */
static void exercise(const umt_index *ix)
{
	for (uint64_t e = 0; e < umt_coverage_count(ix); e++) {
		umt_coverage_module m;
		if (umt_coverage_get(ix, e, &m) < 0)
			continue;
		for (uint64_t k = 0; k < m.addresses && k < 16; k++) {
			umt_coverage_address a;
			if (umt_coverage_address_get(ix, e, k, &a) == 0)
				umt_coverage_find(ix, e, a.address, NULL);
		}
		umt_coverage_find(ix, e, APP + 0x1000, NULL);
	}
	umt_index_verify(ix);
	umt_coverage_diff(ix, ix, NULL, NULL);
}

static void test_damaged_table(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *tr = fx_path(dir, "a"), *ix_dir = fx_path(dir, "i");
	write_spec(tr, &spec_a);
	umt_trace *t = fx_must_open_dir(tr);
	umt_index_close(build_open(t, ix_dir, 1, 0, UMT_INDEX_SECTIONS_ALL));
	char *f = fx_path(ix_dir, "cov.table");
	size_t n;
	uint8_t *good = slurp(f, &n);
	unsigned opened = 0, caught = 0;
	for (size_t at = 0; at < n; at++) {
		for (int v = 0; v < 2; v++) {
			uint8_t *bad = malloc(n);
			memcpy(bad, good, n);
			bad[at] = v ? (uint8_t)(bad[at] ^ 0x80) : 0xff;
			if (bad[at] == good[at]) { /* 0xff already there: no change */
				free(bad);
				continue;
			}
			FILE *out = fopen(f, "wb");
			assert_int_equal(fwrite(bad, 1, n, out), n);
			fclose(out);
			free(bad);
			umt_index *ix;
			if (umt_index_open(t, ix_dir, &ix) != 0)
				continue;
			opened++;
			caught += umt_index_verify(ix) != 0;
			exercise(ix);
			umt_index_close(ix);
		}
	}
	/* a change past the file header opens; the check finds every one that changed a byte */
	assert_true(opened > 0);
	assert_int_equal(caught, opened);
	free(good);
	free(f);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(tr), free(ix_dir);
}

/* ---- two traces compared ----------------------------------------------------------------- */

struct got {
	size_t n;
	umt_coverage_delta d[16];
};

static int collect(const umt_coverage_delta *d, void *ctx)
{
	struct got *g = ctx;
	assert_true(g->n < 16);
	g->d[g->n++] = *d;
	return 0;
}

static int stop_at_two(const umt_coverage_delta *d, void *ctx)
{
	(void)d;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_diff(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *ta = fx_path(dir, "a"), *tb = fx_path(dir, "b"),
	     *ia = fx_path(dir, "ia"), *ib = fx_path(dir, "ib");
	write_spec(ta, &spec_a);
	write_spec(tb, &spec_b);
	umt_trace *a = fx_must_open_dir(ta), *b = fx_must_open_dir(tb);
	umt_index *xa = build_open(a, ia, 1, 0, UMT_INDEX_SECTIONS_ALL);
	umt_index *xb = build_open(b, ib, 1, 0, UMT_INDEX_SECTIONS_ALL);
	uint64_t bb = spec_b.app_base;
	/*
	 * app.exe (group 0): A ran offsets 0x1000, 0x1004; B 0x1000, 0x3000 (at its own base).
	 * kernel32.dll (group 1; A's two rows, one name up to case): A 0x1000, 0x2000; B 0x1000.
	 * Outside modules (group 2): A 0x500000 and 0x7ff800002000; B 0x600000.
	 */
	static const struct { int side; uint64_t group; int64_t module; uint64_t offset; } want[] = {
		{0, 0, 0, 0x1004}, {1, 0, 0, 0x3000}, {0, 1, 1, 0x2000},
		{0, 2, -1, JIT}, {1, 2, -1, 0x600000}, {0, 2, -1, K32 + 0x2000}};
	const uint64_t address[] = {APP + 0x1004, bb + 0x3000, K32 + 0x2000, JIT, 0x600000,
	                            K32 + 0x2000};
	const uint64_t execs[] = {10, 1, 2, 2, 1, 1};
	struct got g = {0};
	assert_int_equal(umt_coverage_diff(xa, xb, collect, &g), 0);
	assert_int_equal(g.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < g.n; i++) {
		assert_int_equal(g.d[i].side, want[i].side);
		assert_int_equal(g.d[i].group, want[i].group);
		assert_int_equal(g.d[i].module_id, want[i].module);
		assert_int_equal(g.d[i].offset, want[i].offset);
		assert_int_equal(g.d[i].address, address[i]);
		assert_int_equal(g.d[i].executions, execs[i]);
	}
	/* a trace against itself: nothing; a stop */
	struct got same = {0};
	assert_int_equal(umt_coverage_diff(xa, xa, collect, &same), 0);
	assert_int_equal(same.n, 0);
	int calls = 0;
	assert_int_equal(umt_coverage_diff(xa, xb, stop_at_two, &calls), 42);
	assert_int_equal(umt_coverage_diff(xa, xb, NULL, NULL), UMT_E_INVAL);
	umt_index_close(xa);
	umt_index_close(xb);
	umt_trace_close(a);
	umt_trace_close(b);
	fx_rmtree(dir);
	free(dir), free(ta), free(tb), free(ia), free(ib);
}

/* ---- generated traces against a brute-force scan ---------------------------------------- */

/* The module holding @p a at record @p id, by a linear search of the table; -1 for none. */
static int64_t module_at(const umt_trace *t, uint64_t a, uint64_t id)
{
	for (uint64_t m = 0; m < umt_module_count(t); m++) {
		const umt_module_rec *r;
		assert_int_equal(umt_module_get(t, m, &r), 0);
		if (a >= (uint64_t)r->StartAddr && a <= (uint64_t)r->EndAddr &&
		    id >= (uint64_t)r->LoadEID && id < (uint64_t)r->UnloadEID)
			return (int64_t)m;
	}
	return -1;
}

struct bf_hit {
	uint64_t entry, address;
};

static int by_hit(const void *x, const void *y)
{
	const struct bf_hit *a = x, *b = y;
	if (a->entry != b->entry)
		return a->entry < b->entry ? -1 : 1;
	return a->address < b->address ? -1 : a->address > b->address;
}

static void check_brute_force(const umt_trace *t, const umt_index *ix)
{
	uint64_t entries = umt_module_count(t) + 1, n = 0, cap = 1024;
	uint64_t *execs = calloc(entries, sizeof *execs);
	struct bf_hit *h = malloc(cap * sizeof *h);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) == 1) {
		int64_t ins;
		const umt_ins_rec *row;
		if (r.type != UMT_REC_INSTRUCTION)
			continue;
		assert_int_equal(umt_rec_ins(&r, &ins, NULL, NULL), 0);
		assert_int_equal(umt_ins_get(t, (uint64_t)ins, &row), 0);
		int64_t m = row->ModuleID >= 0 ? row->ModuleID
		                               : module_at(t, (uint64_t)row->Address, r.id);
		uint64_t e = m < 0 ? entries - 1 : (uint64_t)m;
		execs[e]++;
		if (n == cap)
			h = realloc(h, (cap *= 2) * sizeof *h);
		h[n++] = (struct bf_hit){e, (uint64_t)row->Address};
	}
	qsort(h, n, sizeof *h, by_hit);
	assert_int_equal(umt_coverage_count(ix), entries);
	uint64_t i = 0;
	for (uint64_t e = 0; e < entries; e++) {
		umt_coverage_module m;
		assert_int_equal(umt_coverage_get(ix, e, &m), 0);
		assert_int_equal(m.executions, execs[e]);
		uint64_t k = 0;
		for (; i < n && h[i].entry == e; i++) {
			if (i > 0 && h[i - 1].entry == e && h[i - 1].address == h[i].address)
				continue;
			umt_coverage_address a;
			assert_int_equal(umt_coverage_address_get(ix, e, k++, &a), 0);
			assert_int_equal(a.address, h[i].address);
		}
		assert_int_equal(m.addresses, k);
	}
	free(execs);
	free(h);
}

static void test_generated(void **state)
{
	(void)state;
	static const char *const args[] = {
		"--records 20000 --threads 3 --instructions 300 --seed 7",
		"--records 15000 --threads 2 --instructions 200 --seed 8 --flavour 2014",
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *dir = fx_tmpdir(), *tr = fx_path(dir, "t"), *ix_dir = fx_path(dir, "i");
		fx_umtgen(tr, args[i]);
		umt_trace *t = fx_must_open_dir(tr);
		umt_index *ix = build_open(t, ix_dir, 2, 0, UMT_INDEX_SECTIONS_ALL);
		check_brute_force(t, ix);
		assert_int_equal(umt_index_verify(ix), 0);
		umt_index_close(ix);
		umt_trace_close(t);
		fx_rmtree(dir);
		free(dir), free(tr), free(ix_dir);
	}
	/* the standard writer trace too (floating rows, two modules) */
	char *dir = fx_tmpdir(), *tr = fx_path(dir, "t"), *ix_dir = fx_path(dir, "i");
	assert_int_equal(fx_write_standard(tr, UMT_FLAVOUR_2015), 0);
	umt_trace *t = fx_must_open_dir(tr);
	umt_index *ix = build_open(t, ix_dir, 1, 0, UMT_INDEX_SECTIONS_ALL);
	check_brute_force(t, ix);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(tr), free(ix_dir);
}

/* ---- against umtgen's ground truth ------------------------------------------------------- */

/* One truth line of kind "coverage" against the index's entry of its module row. */
static void check_truth_line(const umt_trace *t, const umt_index *ix, const struct jv *line)
{
	uint64_t entry = umt_coverage_count(ix) - 1, base = 0, execs;
	json_u64(line, "module_id", &entry); /* null: the code outside modules, the last entry */
	json_u64(line, "base", &base);
	assert_int_equal(json_u64(line, "executions", &execs), 0);
	umt_coverage_module m;
	assert_int_equal(umt_coverage_get(ix, entry, &m), 0);
	assert_int_equal(m.base, base);
	assert_int_equal(m.executions, execs);
	const struct jv *name = json_get(line, "module"), *addrs = json_get(line, "addresses");
	if (m.module_id >= 0) {
		char got[1024];
		assert_true(umt_module_name(t, (uint64_t)m.module_id, UMT_MODULE_WIN_NAME, got,
		                            sizeof got) >= 0);
		assert_string_equal(got, name->text);
	} else {
		assert_int_equal(name->type, J_NULL);
	}
	assert_int_equal(m.addresses, (uint64_t)addrs->n);
	for (int k = 0; k < addrs->n; k++) {
		umt_coverage_address a;
		assert_int_equal(umt_coverage_address_get(ix, entry, (uint64_t)k, &a), 0);
		assert_int_equal(a.address, strtoull(addrs->items[k].text, NULL, 16));
	}
}

/* Every coverage line of truth file @p truth against the index of @p trace built into @p ix_dir. */
static void check_truth_file(const char *trace, const char *truth, const char *ix_dir)
{
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, ix_dir, 2, 0, UMT_INDEX_SECTIONS_ALL);
	FILE *f = fopen(truth, "r");
	assert_non_null(f);
	char *text = NULL;
	size_t cap = 0;
	uint64_t lines = 0;
	while (getline(&text, &cap, f) > 0) {
		if (strstr(text, "\"kind\":\"coverage\"") == NULL)
			continue;
		struct jv v;
		assert_int_equal(json_parse(text, &v), 0);
		check_truth_line(t, ix, &v);
		json_free(&v);
		lines++;
	}
	assert_int_equal(lines, umt_coverage_count(ix)); /* every module row, and outside */
	free(text);
	fclose(f);
	umt_index_close(ix);
	umt_trace_close(t);
}

static void test_truth(void **state)
{
	(void)state;
	static const char *const args[] = {
		"--seed 5", "--seed 6 --code32", "--seed 7 --flavour 2014 --threads 3",
		"--seed 8 --abort", "--seed 9 --flavour 2014 --code32 --syscall-rate 40"};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *dir = fx_tmpdir(), *tr = fx_path(dir, "t"), *ix_dir = fx_path(dir, "i"),
		     *truth = fx_path(dir, "truth.jsonl"), cmd[9000];
		snprintf(cmd, sizeof cmd, "--records 30K %s --truth %s", args[i], truth);
		fx_umtgen(tr, cmd);
		check_truth_file(tr, truth, ix_dir);
		fx_rmtree(dir);
		free(dir), free(tr), free(ix_dir), free(truth);
	}
	/* the bundled sample and its truth (the index into a scratch directory) */
	char *dir = fx_tmpdir(), *ix_dir = fx_path(dir, "i");
	check_truth_file(UMT_SAMPLE_DIR, UMT_SAMPLE_DIR ".truth.jsonl", ix_dir);
	fx_rmtree(dir);
	free(dir), free(ix_dir);
}

/*
 * Many rows and a small budget: the dense counters the budget holds (one)
 * are taken by one range at a time, the other ranges count in their hash
 * tables; the file is the same bytes as with one thread, and right.
 */
static void test_budget_paths(void **state)
{
	(void)state;
	enum { ROWS = 70000, RECORDS = 6000 };
	char *dir = fx_tmpdir(), *tr = fx_path(dir, "t"), *i1 = fx_path(dir, "i1"),
	     *i3 = fx_path(dir, "i3");
	umt_writer *w;
	int32_t tid;
	assert_int_equal(umt_writer_open(tr, NULL, &w), 0);
	assert_int_equal(umt_writer_add_thread(w, 1, 0x1000, &tid), 0);
	int64_t dfp, tfp;
	add_nop_body(w, &dfp, &tfp);
	umt_module_desc md = {.unload_eid = -1, .start_addr = 0x10000000, .end_addr = 0x1fffffff,
	                      .win_name = "C:\\big.dll"};
	assert_int_equal(umt_writer_add_module(w, &md, NULL), 0);
	for (int i = 0; i < ROWS; i++) {
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.CodeSize = 1;
		r.CodeBytes[0] = 0x90;
		r.CSis64Bits = 1;
		r.ModuleID = i % 7 ? 0 : -1; /* some floating, inside the module's range */
		r.Address = 0x10000000 + 4 * (int64_t)(i % 50000); /* rows sharing addresses */
		r.DisasmFP = tfp;
		r.DecodedFP = dfp;
		assert_int_equal(umt_writer_add_ins(w, &r, NULL), 0);
	}
	uint64_t x = 12345;
	for (int i = 0; i < RECORDS; i++) {
		umt_exec_desc e = {.type = UMT_REC_INSTRUCTION, .flags = 1};
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		e.ins_id = (int64_t)((x >> 33) % ROWS);
		assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	}
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *t = fx_must_open_dir(tr);
	umt_index_close(build_open(t, i1, 1, 0, UMT_INDEX_SECTIONS_ALL));
	umt_index *ix = build_open(t, i3, 3, 1 << 20, UMT_INDEX_SECTIONS_ALL);
	check_brute_force(t, ix);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	char *f1 = fx_path(i1, "cov.table"), *f3 = fx_path(i3, "cov.table");
	size_t n1, n3;
	uint8_t *b1 = slurp(f1, &n1), *b3 = slurp(f3, &n3);
	assert_int_equal(n1, n3);
	assert_memory_equal(b1 + 24, b3 + 24, n1 - 24);
	free(b1), free(b3), free(f1), free(f3);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(tr), free(i1), free(i3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_trace),   cmocka_unit_test(test_without_section),
		cmocka_unit_test(test_damaged_table), cmocka_unit_test(test_diff),
		cmocka_unit_test(test_generated),    cmocka_unit_test(test_budget_paths),
		cmocka_unit_test(test_truth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
