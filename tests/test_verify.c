/*
 * verify.c: one broken fixture per check, each asserting the status,
 * severity, class, file, ID and offset of what umt_verify() reports; the
 * cap, the stop by callback, progress calls, check selection, and clean
 * traces (the hand-made one, both writer flavours, the sample, umtgen).
 *
 * Offsets of the hand-made trace are those of fixtures/handmade.c: records
 * at fx_hm_offsets[], ins.itable row 0 at 48 and its decodedIns at 118,
 * syscall records 1 at 16 and 0 at 88, module row 0 at 48, thread rows at
 * 32 and 72, address range 0 at 32.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "std_trace.h"

#define MAXP 64

/* examples/sample-trace of the source tree ($UMT_SAMPLE overrides). */
static const char *sample_dir(void)
{
	static char path[4096];
	if (getenv("UMT_SAMPLE"))
		return getenv("UMT_SAMPLE");
	snprintf(path, sizeof path, "%s", __FILE__);
	char *slash = strrchr(path, '/');
	snprintf(slash ? slash : path, sizeof path - (size_t)(slash ? slash - path : 0),
	         "%s../examples/sample-trace", slash ? "/" : "");
	return path;
}

/* What one umt_verify() call reported. */
struct got {
	int rc;
	umt_verify_result res;
	int n;                    /* problems reported */
	umt_problem p[MAXP];
	char msg[MAXP][512];
	int stop_after;           /* on_problem returns 1 at this count (0: never) */
	int progress_calls;
	uint64_t last_done, total;
	int progress_bad;         /* done decreased or total changed */
};

static int on_problem(const umt_problem *p, void *ctx)
{
	struct got *g = ctx;
	if (g->n < MAXP) {
		g->p[g->n] = *p;
		snprintf(g->msg[g->n], sizeof g->msg[g->n], "%s", p->message);
		g->p[g->n].message = g->msg[g->n];
	}
	g->n++;
	return g->stop_after != 0 && g->n >= g->stop_after;
}

static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct got *g = ctx;
	if ((g->progress_calls > 0 && (done < g->last_done || total != g->total)) || done > total)
		g->progress_bad = 1;
	g->progress_calls++;
	g->last_done = done;
	g->total = total;
}

static void dump(const struct got *g)
{
	for (int i = 0; i < g->n && i < MAXP; i++) {
		const umt_problem *p = &g->p[i];
		print_message("  [%s %d class 0x%x file %d id %lld off 0x%llx] %s\n",
		              p->severity ? "warning" : "error", p->status, p->check, p->file,
		              (long long)p->id, (unsigned long long)p->offset, p->message);
	}
}

static void verify_trace(umt_trace *tr, unsigned checks, uint64_t max, struct got *g)
{
	umt_verify_options o;
	umt_verify_options_init(&o);
	o.checks = checks;
	o.max_problems = max;
	o.on_problem = on_problem;
	o.on_progress = on_progress;
	o.ctx = g;
	g->rc = umt_verify(tr, &o, &g->res);
}

static void verify_fx(struct fx_trace *fx, unsigned checks, struct got *g)
{
	umt_trace *tr = NULL;
	int rc = fx_open(fx, &tr);
	if (rc != 0)
		print_error("open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	memset(g, 0, sizeof *g);
	verify_trace(tr, checks, 0, g);
	umt_trace_close(tr);
}

/* Asserts that g holds problem @p i with these fields and a message naming the file. */
static void expect_at(const struct got *g, int i, int status, int severity, unsigned check,
                      int file, int64_t id, uint64_t offset)
{
	const umt_problem *p = &g->p[i];
	if (p->status != status || p->severity != severity || p->check != check ||
	    p->file != file || p->id != id || p->offset != offset) {
		print_error("problem %d is not {%d, %d, 0x%x, %d, %lld, 0x%llx}:\n", i, status,
		            severity, check, file, (long long)id, (unsigned long long)offset);
		dump(g);
	}
	assert_int_equal(p->status, status);
	assert_int_equal(p->severity, severity);
	assert_int_equal(p->check, check);
	assert_int_equal(p->file, file);
	assert_int_equal(p->id, id);
	assert_int_equal(p->offset, offset);
	/* "FILE: record N at offset 0x..: what", as umt_errmsg() */
	char head[128];
	snprintf(head, sizeof head, "%s: ", umt_file_name(file));
	assert_memory_equal(p->message, head, strlen(head));
	if (id >= 0) {
		snprintf(head, sizeof head, " %lld at offset 0x%llx: ", (long long)id,
		         (unsigned long long)offset);
		assert_non_null(strstr(p->message, head));
	}
}

static void expect_count(const struct got *g, int n)
{
	if (g->n != n) {
		print_error("%d problems, expected %d:\n", g->n, n);
		dump(g);
	}
	assert_int_equal(g->n, n);
	uint64_t errors = 0, warnings = 0;
	for (int i = 0; i < n && i < MAXP; i++)
		*(g->p[i].severity == UMT_SEVERITY_ERROR ? &errors : &warnings) += 1;
	assert_int_equal(g->res.errors, errors);
	assert_int_equal(g->res.warnings, warnings);
	assert_int_equal(g->rc, errors ? UMT_E_CORRUPT : 0);
	assert_int_equal(g->res.stopped, 0);
}

/* Verifies @p fx with @p checks and expects exactly one problem. */
static void expect1(struct fx_trace *fx, unsigned checks, int status, int severity,
                    unsigned check, int file, int64_t id, uint64_t offset)
{
	struct got g;
	verify_fx(fx, checks, &g);
	expect_count(&g, 1);
	expect_at(&g, 0, status, severity, check, file, id, offset);
}

/* An error of @p check found with every check on, alone. */
#define E1(fx, st, chk, file, id, off) \
	expect1(fx, UMT_CHECK_ALL, st, UMT_SEVERITY_ERROR, chk, file, id, off)

static void clean(struct fx_trace *fx, unsigned checks)
{
	struct got g;
	verify_fx(fx, checks, &g);
	expect_count(&g, 0);
}

static uint8_t *at(struct fx_trace *t, int f, uint64_t off)
{
	assert_true(off < t->size[f]);
	return t->data[f] + off;
}

/* Record i of the hand-made trace, byte offset j. */
static uint8_t *rec(struct fx_trace *t, int i, uint64_t j)
{
	return at(t, UMT_FILE_EXEC_VTABLE, fx_hm_offsets[i] + j);
}

/* Replaces file @p f with @p n bytes of @p data. */
static void set_file(struct fx_trace *t, int f, const void *data, size_t n)
{
	free(t->data[f]);
	t->data[f] = malloc(n ? n : 1);
	memcpy(t->data[f], data, n);
	t->size[f] = n;
	fx_sync(t);
}

#define E UMT_SEVERITY_ERROR
#define W UMT_SEVERITY_WARNING
#define HM_INS_ROW 48
#define HM_DEC 118
#define HM_SYS0 88
#define HM_SYS1 16
#define HM_MOD 48
#define HM_TH(i) (32 + 40 * (i))
#define XMAP64(reg) (13328 + 8 * (reg))

/* ---- clean traces -------------------------------------------------------- */

static void test_clean_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	struct got g;
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 0);
	assert_int_equal(g.res.records, FX_HM_RECORDS);
	fx_free(&t);
}

/* The standard trace's instruction 0 is a MEM0 load whose LC bytes are a pattern. */
static void fix_std_mem0(struct fx_trace *t)
{
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		if (std_types[id] != UMT_REC_INSTRUCTION || std_arg[id] != 0)
			continue;
		uint8_t *lc = t->data[UMT_FILE_EXEC_VTABLE] +
		              fx_get64(t->data[UMT_FILE_EXEC_OFFSETS] + 8 * id) + 14;
		/* mov rax, [rbx + rcx * 4 + 0x10]: rbx at 0, rcx at 8, MEM0 address at 16 */
		fx_put64(lc + 16, fx_get64(lc) + fx_get64(lc + 8) * 4 + 0x10);
	}
}

static void load_std(struct fx_trace *t, int flavour)
{
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, flavour), 0);
	fx_load_dir(dir, t);
	fx_rmtree(dir);
	free(dir);
}

static void test_clean_std(void **state)
{
	(void)state;
	for (int flavour = UMT_FLAVOUR_2015; flavour <= UMT_FLAVOUR_2014; flavour++) {
		struct fx_trace t;
		load_std(&t, flavour);
		clean(&t, UMT_CHECK_ALL & ~UMT_CHECK_MEM0);
		/* Its LC bytes are a pattern, so the five records of instruction 0 (a MEM0
		 * load) store addresses that are not their phrase's: warnings only. */
		struct got g;
		verify_fx(&t, UMT_CHECK_ALL, &g);
		expect_count(&g, 5);
		static const int64_t ids[5] = {1, 7, 15, 27, 32};
		for (int i = 0; i < 5; i++) {
			const uint8_t *o = t.data[UMT_FILE_EXEC_OFFSETS] + 8 * (uint64_t)ids[i];
			expect_at(&g, i, UMT_E_CORRUPT, W, UMT_CHECK_MEM0, UMT_FILE_EXEC_VTABLE,
			          ids[i], fx_get64(o) + 14 + 16);
		}
		fix_std_mem0(&t);
		clean(&t, UMT_CHECK_ALL);
		fx_free(&t);
	}
}

static void test_clean_sample(void **state)
{
	(void)state;
	umt_trace *tr;
	assert_int_equal(umt_trace_open(sample_dir(), 0, &tr), 0);
	struct got g;
	memset(&g, 0, sizeof g);
	verify_trace(tr, UMT_CHECK_ALL, 0, &g);
	expect_count(&g, 0);
	assert_int_equal(g.res.records, umt_exec_count(tr));
	umt_trace_close(tr);
}

static void test_clean_umtgen(void **state)
{
	(void)state;
	/* ctest runs the tests in <build>/tests; $UMTGEN overrides */
	const char *gen = getenv("UMTGEN") ? getenv("UMTGEN") : "../tools/umtgen/umtgen";
	if (access(gen, X_OK) != 0) {
		print_message("%s is not built: no umtgen trace to verify\n", gen);
		skip();
	}
	/* both flavours, both code widths, an aborted process, several sizes and
	 * shapes of program: every umtgen trace verifies clean */
	static const char *const args[] = {
		"--records 30K --threads 5",
		"--records 20K --threads 2 --flavour 2014 --seed 9",
		"--records 25K --threads 3 --code32 --seed 11",
		"--records 15K --threads 4 --code32 --flavour 2014 --seed 12",
		"--records 12K --threads 6 --abort --seed 13",
		"--records 40K --threads 1 --call-depth 10 --syscall-rate 60 --mem-share 90 --seed 14",
		"--records 8K --threads 2 --instructions 200 --call-depth 2 --mem-share 10 --seed 15",
		"--records 2K --threads 64 --footprint 64K --seed 16"};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		char *dir = fx_tmpdir(), cmd[8192];
		snprintf(cmd, sizeof cmd, "'%s' %s --quiet '%s'", gen, args[i], dir);
		assert_int_equal(system(cmd), 0);
		umt_trace *tr;
		assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
		struct got g;
		memset(&g, 0, sizeof g);
		verify_trace(tr, UMT_CHECK_ALL, 0, &g);
		expect_count(&g, 0);
		assert_int_equal(g.res.records, umt_exec_count(tr));
		umt_trace_close(tr);
		fx_rmtree(dir);
		free(dir);
	}
}

/* ---- trace.xml ----------------------------------------------------------- */

static void test_xml(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	static const char bad[] = "<?xml version=\"1.0\"?>\n<Xed><Version>1</Xed>\n";
	set_file(&t, UMT_FILE_TRACE_XML, bad, sizeof bad - 1);
	E1(&t, UMT_E_XML, UMT_CHECK_XML, UMT_FILE_TRACE_XML, -1, 0);
	/* exec.vtable Version is 1 */
	static const char other[] =
		"<?xml version=\"1.0\"?>\n<TraceMetaData><RawTrace><UMTracer><Exec><Format>"
		"<Version>0</Version></Format></Exec></UMTracer></RawTrace></TraceMetaData>\n";
	set_file(&t, UMT_FILE_TRACE_XML, other, sizeof other - 1);
	E1(&t, UMT_E_CORRUPT, UMT_CHECK_XML, UMT_FILE_TRACE_XML, -1, 0);
	static const char good[] =
		"<?xml version=\"1.0\"?>\n<TraceMetaData><RawTrace><UMTracer><Exec><Format>"
		"<Version>1</Version></Format></Exec></UMTracer></RawTrace></TraceMetaData>\n";
	set_file(&t, UMT_FILE_TRACE_XML, good, sizeof good - 1);
	clean(&t, UMT_CHECK_ALL);
	static const char rootless[] = "<?xml version=\"1.0\"?><Xed><Version>20150121</Version>"
	                               "</Xed><App><Bitness>64</Bitness></App>";
	set_file(&t, UMT_FILE_TRACE_XML, rootless, sizeof rootless - 1);
	clean(&t, UMT_CHECK_ALL);
	fx_free(&t);
}

/* ---- context map --------------------------------------------------------- */

static void test_context_map(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_CONTEXT_MAP;
	const unsigned c = UMT_CHECK_CONTEXT_MAP;
	fx_handmade(&t);
	fx_put16(at(&t, f, XMAP64(111)), 12); /* rip: 12 + 8 > DumpSize 16 */
	E1(&t, UMT_E_BOUNDS, c, f, 111, XMAP64(111));
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, 9232 + 8 * 5 + 2) = 4; /* RegMap32[5]: Offset 0xffff, Size 4 */
	E1(&t, UMT_E_CORRUPT, c, f, 5, 9232 + 8 * 5);
	fx_free(&t);

	fx_handmade(&t);
	fx_put16(at(&t, f, XMAP64(74) + 4), 600); /* rax EffLargest */
	E1(&t, UMT_E_BOUNDS, c, f, 74, XMAP64(74) + 4);
	fx_free(&t);

	fx_handmade(&t);
	fx_put16(at(&t, f, 16 + 2 * 3), 300); /* CommonName[3] >= ElemCount 280 */
	E1(&t, UMT_E_BOUNDS, c, f, 3, 16 + 2 * 3);
	fx_free(&t);

	/* rip (bytes 8 to 16) given rax (0 to 8) as its largest register */
	fx_handmade(&t);
	fx_put16(at(&t, f, XMAP64(111) + 4), 74);
	E1(&t, UMT_E_CORRUPT, c, f, 111, XMAP64(111) + 4);
	fx_free(&t);

	/* rax grown to 12 bytes overlaps rip, another largest register */
	fx_handmade(&t);
	*at(&t, f, XMAP64(74) + 2) = 12;
	E1(&t, UMT_E_CORRUPT, c, f, 111, XMAP64(111));
	fx_free(&t);
}

/* ---- thread table -------------------------------------------------------- */

static void test_threads(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_THREAD;
	const unsigned c = UMT_CHECK_THREADS;
	fx_handmade(&t);
	fx_put32(at(&t, f, HM_TH(1)), 5); /* ID */
	E1(&t, UMT_E_CORRUPT, c, f, 1, HM_TH(1));
	fx_free(&t);

	/* With the links check, a bad FirstEID, LastEID or RecCount also disagrees
	 * with the records seen; the row checks alone report it once. */
	fx_handmade(&t);
	fx_put64(at(&t, f, HM_TH(0) + 16), (uint64_t)-7);
	expect1(&t, c, UMT_E_BOUNDS, E, c, f, 0, HM_TH(0) + 16);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_TH(0) + 24), 99);
	expect1(&t, c, UMT_E_BOUNDS, E, c, f, 0, HM_TH(0) + 24);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_TH(0) + 32), 15);
	expect1(&t, c, UMT_E_BOUNDS, E, c, f, 0, HM_TH(0) + 32);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_TH(0) + 32), 0); /* RecCount 0 with a FirstEID */
	expect1(&t, c, UMT_E_CORRUPT, E, c, f, 0, HM_TH(0) + 32);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_TH(1) + 24), 1); /* LastEID 1 < FirstEID 2 */
	expect1(&t, c, UMT_E_CORRUPT, E, c, f, 1, HM_TH(1) + 24);
	fx_free(&t);
}

/* ---- module table -------------------------------------------------------- */

static void test_modules(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_MODULE;
	const unsigned c = UMT_CHECK_MODULES;
	fx_handmade(&t);
	fx_put64(at(&t, f, HM_MOD + 32), 0x1000); /* WinNameFP outside the file */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_MOD + 32);
	fx_free(&t);

	fx_handmade(&t);
	fx_put16(at(&t, f, 110), 100); /* "dev": Length past the area */
	E1(&t, UMT_E_BOUNDS, c, f, 0, 110);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, 118) = 'x'; /* the NUL unit after "dev" */
	E1(&t, UMT_E_CORRUPT, c, f, 0, 118);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_MOD + 16), 0x500000); /* StartAddr > EndAddr */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_MOD + 16);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_MOD), (uint64_t)-5); /* LoadEID */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_MOD);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_MOD), 3);
	fx_put64(at(&t, f, HM_MOD + 8), 2); /* UnloadEID < LoadEID */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_MOD + 8);
	fx_free(&t);
}

/* ---- address space ------------------------------------------------------- */

static void test_address_space(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_ADDRESS_SPACE;
	const unsigned c = UMT_CHECK_ADDRESS_SPACE;
	fx_handmade(&t);
	fx_put64(at(&t, f, 32), 0x400010);
	E1(&t, UMT_E_CORRUPT, c, f, 0, 32);
	fx_put64(at(&t, f, 32), 0x400000);
	fx_put64(at(&t, f, 40), 0x40fffe);
	E1(&t, UMT_E_CORRUPT, c, f, 0, 40);
	fx_put64(at(&t, f, 32), 0x410000);
	fx_put64(at(&t, f, 40), 0x40ffff); /* First > Last, both aligned */
	E1(&t, UMT_E_CORRUPT, c, f, 0, 40);
	/* two ranges: the second overlaps the first */
	uint8_t two[64];
	memcpy(two, t.data[f], 48);
	fx_put64(two + 8, 2);
	fx_put64(two + 32, 0x400000);
	fx_put64(two + 48, 0x40f000);
	fx_put64(two + 56, 0x411fff);
	set_file(&t, f, two, sizeof two);
	E1(&t, UMT_E_CORRUPT, c, f, 1, 48);
	fx_put64(two + 48, 0x410000); /* adjacent and ordered: fine */
	set_file(&t, f, two, sizeof two);
	clean(&t, UMT_CHECK_ALL);
	fx_put64(two + 48, 0x300000);
	fx_put64(two + 56, 0x300fff); /* disjoint but out of order */
	set_file(&t, f, two, sizeof two);
	E1(&t, UMT_E_CORRUPT, c, f, 1, 48);
	fx_free(&t);
}

/* ---- instruction table --------------------------------------------------- */

static void test_instructions(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_INS;
	const unsigned c = UMT_CHECK_INS;
	fx_handmade(&t);
	fx_put64(at(&t, f, HM_INS_ROW), 3); /* ID */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_INS_ROW);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, HM_INS_ROW + 10) = 16; /* CodeSize */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_INS_ROW + 10);
	*at(&t, f, HM_INS_ROW + 10) = 0;
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_INS_ROW + 10);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_INS_ROW + 16), 0x500000); /* Address outside module 0 */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_INS_ROW + 16);
	fx_free(&t);

	fx_handmade(&t);
	fx_put32(at(&t, f, HM_INS_ROW + 12), 5); /* ModuleID */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_INS_ROW + 12);
	fx_put32(at(&t, f, HM_INS_ROW + 12), (uint32_t)-1); /* floating code */
	clean(&t, UMT_CHECK_ALL);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_INS_ROW + 40), 200); /* DisasmFP */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_INS_ROW + 40);
	fx_free(&t);

	/* A bad body is reported once, by its row, not by each record using it. */
	fx_handmade(&t);
	fx_put64(at(&t, f, HM_INS_ROW + 48), 1000); /* DecodedFP */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_INS_ROW + 48);
	fx_free(&t);

	fx_handmade(&t);
	fx_put16(at(&t, f, HM_DEC + 88 + 6), 4); /* slot 0 Offset: 4 + 8 > LCSize 8 */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_DEC + 88 + 6);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, HM_DEC + 64) = 0xfc; /* Mem0BaseSlot */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_DEC + 64);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, HM_DEC + 7) = 5; /* ExpCount */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_DEC + 7);
	fx_free(&t);
}

/* File offset of the decodedIns of instruction row @p i. */
static uint64_t body_of(const struct fx_trace *t, uint64_t i)
{
	const uint8_t *h = t->data[UMT_FILE_INS];
	uint64_t row = fx_get64(h + 24) + i * fx_get64(h + 16);
	return fx_get64(h + 32) + fx_get64(h + row + 48);
}

/*
 * The standard trace's instruction 0, mov rax, [rbx + rcx * 4 + 0x10]:
 * slots rbx, rcx, MEM0 (before), rax (before, write-only), rax (after);
 * operand 0 rax written (slots 3, 4), operand 1 MEM0 read (slot 2, offset 8).
 */
static void test_decoded_rules(void **state)
{
	(void)state;
	struct fx_trace base, t;
	const int f = UMT_FILE_INS;
	const unsigned c = UMT_CHECK_INS;
	load_std(&base, UMT_FLAVOUR_2015);
	fix_std_mem0(&base);
	clean(&base, UMT_CHECK_ALL);
	const uint64_t b = body_of(&base, 0), b1 = body_of(&base, 1); /* 1: push rbp */
	const uint64_t op0 = b + 8, op1 = b + 20;
	const struct {
		uint64_t off;
		int width;
		uint64_t value;
		int status;
		uint64_t at;
	} cases[] = {
		{b + 88, 2, 600, UMT_E_BOUNDS, b + 88},          /* slot 0: past ElemCount */
		{b + 88 + 2, 2, 600, UMT_E_BOUNDS, b + 88 + 2},  /* its common name too */
		{op0 + 5, 1, UMT_SLOT_NA, UMT_E_CORRUPT, op0 + 5}, /* BeforeSlot SLOT_NA */
		{op1 + 6, 1, 4, UMT_E_CORRUPT, op1 + 6},         /* read-only with an after slot */
		{op0 + 5, 1, 0, UMT_E_CORRUPT, op0 + 5},         /* write-only, in the read group */
		{op1 + 7, 1, 0, UMT_E_CORRUPT, op1 + 7},         /* memory slot offset not 8 */
		{op1 + 2, 2, 9, UMT_E_CORRUPT, op1 + 2},         /* 9 bytes in an 8-byte slot */
		{b1 + 64, 1, 0, UMT_E_CORRUPT, b1 + 64},         /* a MEM0 base without MEM0 */
		{b + 67, 1, 0, UMT_E_CORRUPT, b + 67},           /* a MEM1 base without MEM1 */
		{b + 64, 1, 4, UMT_E_CORRUPT, b + 64},           /* the base from an after slot */
		{b + 65, 1, 0, UMT_E_CORRUPT, b + 65},           /* scale 0 with an index */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		fx_copy(&t, &base);
		uint8_t *p = t.data[f] + cases[k].off;
		if (cases[k].width == 1)
			*p = (uint8_t)cases[k].value;
		else
			fx_put16(p, (uint16_t)cases[k].value);
		int64_t row = cases[k].off >= b1 && cases[k].off < b1 + 88; /* push's body: row 1 */
		expect1(&t, c, cases[k].status, E, c, f, row, cases[k].at);
		fx_free(&t);
	}
	/* flags neither read nor written: then the read group no longer fits either */
	fx_copy(&t, &base);
	t.data[f][op1 + 4] = 0;
	struct got g;
	verify_fx(&t, c, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, op1 + 4);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, f, 0, op1 + 5);
	fx_free(&t);
	fx_free(&base);
}

/* ---- MEM0 addresses (ERRATA 13) ------------------------------------------ */

static void test_mem0(void **state)
{
	(void)state;
	struct fx_trace t;
	load_std(&t, UMT_FLAVOUR_2015);
	fix_std_mem0(&t);
	uint64_t off = fx_get64(t.data[UMT_FILE_EXEC_OFFSETS] + 8 * 15) + 14 + 16;
	t.data[UMT_FILE_EXEC_VTABLE][off] ^= 0x40;
	expect1(&t, UMT_CHECK_ALL, UMT_E_CORRUPT, W, UMT_CHECK_MEM0, UMT_FILE_EXEC_VTABLE, 15,
	        off);
	clean(&t, UMT_CHECK_ALL & ~UMT_CHECK_MEM0);
	/* only the 4 address bytes count when AddrWidth is 4 */
	t.data[UMT_FILE_EXEC_VTABLE][off] ^= 0x40;
	t.data[UMT_FILE_EXEC_VTABLE][off + 5] ^= 0x40;
	const uint8_t *ins = t.data[UMT_FILE_INS];
	uint64_t row0 = fx_get64(ins + 24);                          /* TableFP */
	uint64_t dec = fx_get64(ins + 32) + fx_get64(ins + row0 + 48); /* ExtraFP + DecodedFP */
	uint8_t *aw = t.data[UMT_FILE_INS] + dec + 88 + 2 * 12 + 8;  /* slot 2 AddrWidth */
	assert_int_equal(*aw, 8);
	*aw = 4;
	clean(&t, UMT_CHECK_ALL);
	fx_free(&t);

	/* 32-bit code (flag 0x01 clear): the effective address wraps modulo 2^32 */
	load_std(&t, UMT_FLAVOUR_2015);
	fix_std_mem0(&t);
	uint8_t *r = t.data[UMT_FILE_EXEC_VTABLE] + off - 14 - 16; /* record 15 */
	uint64_t ea = fx_get64(r + 14 + 16);
	assert_true(ea > UINT32_MAX);
	r[5] &= (uint8_t)~UMT_EXEC_F_64BIT;
	expect1(&t, UMT_CHECK_MEM0, UMT_E_CORRUPT, W, UMT_CHECK_MEM0, UMT_FILE_EXEC_VTABLE, 15,
	        off);
	fx_put64(r + 14 + 16, ea & UINT32_MAX);
	clean(&t, UMT_CHECK_ALL);
	fx_free(&t);
}

/* ---- syscall table ------------------------------------------------------- */

static void test_syscall_rows(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_SYSCALL_VTABLE;
	const unsigned c = UMT_CHECK_SYSCALLS;
	fx_handmade(&t);
	fx_put64(at(&t, UMT_FILE_SYSCALL_OFFSETS, 0), 1000); /* (Offset, Size) of row 0 */
	E1(&t, UMT_E_BOUNDS, c, UMT_FILE_SYSCALL_OFFSETS, 0, 0);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_SYS0 + 40), 200); /* ArgsFP */
	E1(&t, UMT_E_BOUNDS, c, f, 0, HM_SYS0 + 40);
	fx_put64(at(&t, f, HM_SYS0 + 40), HM_SYS0 + 56); /* absolute (ERRATA 7) */
	expect1(&t, UMT_CHECK_ALL, UMT_E_BOUNDS, W, c, f, 0, HM_SYS0 + 40);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, HM_SYS0 + 5) = 0; /* Completed, but EndEID is an exit */
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_SYS0 + 5);
	*at(&t, f, HM_SYS0 + 5) = 2;
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_SYS0 + 5);
	fx_free(&t);

	fx_handmade(&t);
	*at(&t, f, HM_SYS1 + 5) = 1; /* Completed, but EndEID is a skipped exit */
	E1(&t, UMT_E_CORRUPT, c, f, 1, HM_SYS1 + 5);
	fx_put64(at(&t, f, HM_SYS1 + 16), (uint64_t)-1); /* never returned, yet Completed */
	struct got g;
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 1, HM_SYS1 + 5);
	/* and the skipped exit that row 1 no longer names */
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, UMT_FILE_EXEC_VTABLE, 7, fx_hm_offsets[7] + 6);
	fx_free(&t);
}

static void test_syscall_links(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_SYSCALL_VTABLE, fx = UMT_FILE_EXEC_VTABLE;
	const unsigned c = UMT_CHECK_SYSCALLS;
	struct got g;
	/* Each bad Begin/EndEID also leaves its record unnamed: two problems. */
	fx_handmade(&t);
	fx_put64(at(&t, f, HM_SYS0 + 8), 14); /* BeginEID outside */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_BOUNDS, E, c, f, 0, HM_SYS0 + 8);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, fx, 3, fx_hm_offsets[3] + 6);
	fx_put64(at(&t, f, HM_SYS0 + 8), 1); /* an instruction */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, HM_SYS0 + 8);
	fx_put64(at(&t, f, HM_SYS0 + 8), 6); /* syscall 1's entry */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, HM_SYS0 + 8);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(at(&t, f, HM_SYS0 + 16), 4); /* EndEID: an instruction */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, HM_SYS0 + 16);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, fx, 5, fx_hm_offsets[5] + 6);
	fx_put64(at(&t, f, HM_SYS0 + 16), 7); /* syscall 1's skipped exit */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, HM_SYS0 + 16);
	fx_put64(at(&t, f, HM_SYS0 + 16), 99);
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_BOUNDS, E, c, f, 0, HM_SYS0 + 16);
	fx_free(&t);

	/* entry and exit swapped: EndEID before BeginEID */
	fx_handmade(&t);
	*rec(&t, 3, 4) = UMT_REC_SYSCALL_EXIT;
	*rec(&t, 5, 4) = UMT_REC_SYSCALL_ENTRY;
	fx_put64(at(&t, f, HM_SYS0 + 8), 5);
	fx_put64(at(&t, f, HM_SYS0 + 16), 3);
	E1(&t, UMT_E_CORRUPT, c, f, 0, HM_SYS0 + 16);
	fx_free(&t);

	/* the end in another thread */
	fx_handmade(&t);
	fx_put64(rec(&t, 7, 6), 0); /* thread 1's skipped exit names syscall 0 */
	fx_put64(at(&t, f, HM_SYS0 + 16), 7);
	*at(&t, f, HM_SYS0 + 5) = 0;
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 3);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 0, HM_SYS0 + 16); /* thread 1, not 0 */
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, f, 1, HM_SYS1 + 16); /* row 1's end names 0 */
	expect_at(&g, 2, UMT_E_CORRUPT, E, c, fx, 5, fx_hm_offsets[5] + 6); /* 5 unnamed */
	fx_free(&t);

	/* an execution record naming a row that names another record */
	fx_handmade(&t);
	fx_put64(rec(&t, 6, 6), 0);
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 1, HM_SYS1 + 8);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, fx, 6, fx_hm_offsets[6] + 6);
	fx_free(&t);
}

/* ---- execution records --------------------------------------------------- */

static void test_exec_extent(void **state)
{
	(void)state;
	struct fx_trace t;
	const unsigned c = UMT_CHECK_EXEC;
	/* 8 unused bytes between the header and record 0 */
	fx_handmade(&t);
	size_t n = t.size[UMT_FILE_EXEC_VTABLE];
	uint8_t *v = calloc(1, n + 8);
	memcpy(v, t.data[UMT_FILE_EXEC_VTABLE], 16);
	memcpy(v + 24, t.data[UMT_FILE_EXEC_VTABLE] + 16, n - 16);
	set_file(&t, UMT_FILE_EXEC_VTABLE, v, n + 8);
	free(v);
	for (int i = 0; i <= FX_HM_RECORDS; i++)
		fx_put64(at(&t, UMT_FILE_EXEC_OFFSETS, 8 * (uint64_t)i), fx_hm_offsets[i] + 8);
	E1(&t, UMT_E_CORRUPT, c, UMT_FILE_EXEC_OFFSETS, -1, 0);
	fx_free(&t);

	/* 8 bytes after the last record: a warning */
	fx_handmade(&t);
	n = t.size[UMT_FILE_EXEC_VTABLE];
	v = calloc(1, n + 8);
	memcpy(v, t.data[UMT_FILE_EXEC_VTABLE], n);
	set_file(&t, UMT_FILE_EXEC_VTABLE, v, n + 8);
	free(v);
	expect1(&t, UMT_CHECK_ALL, UMT_E_CORRUPT, W, c, UMT_FILE_EXEC_OFFSETS, -1,
	        FX_HM_RECORDS * 8);
	fx_free(&t);
}

static void test_exec_records(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_VTABLE;
	const unsigned c = UMT_CHECK_EXEC;
	struct got g;
	/* decreasing offsets: record 4 ends before it begins */
	fx_handmade(&t);
	fx_put64(at(&t, UMT_FILE_EXEC_OFFSETS, 8 * 5), fx_hm_offsets[4] - 2);
	verify_fx(&t, c, &g);
	assert_true(g.n >= 1);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, UMT_FILE_EXEC_OFFSETS, 4, 4 * 8);
	/* past the end of exec.vtable */
	fx_put64(at(&t, UMT_FILE_EXEC_OFFSETS, 8 * 5), fx_hm_offsets[5]);
	fx_put64(at(&t, UMT_FILE_EXEC_OFFSETS, 8 * 13), 600);
	verify_fx(&t, c, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_BOUNDS, E, c, f, 12, fx_hm_offsets[12]);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, UMT_FILE_EXEC_OFFSETS, 13, 13 * 8);
	fx_free(&t);

	/* A record refused by the iterator keeps its thread's chain: one problem. */
	fx_handmade(&t);
	*rec(&t, 12, 4) = UMT_REC_THREAD_BEGIN; /* 10 bytes, a thread-begin needs 22 */
	E1(&t, UMT_E_TRUNCATED, c, f, 12, fx_hm_offsets[12]);
	*rec(&t, 12, 4) = 7; /* undefined (ERRATA 9) */
	E1(&t, UMT_E_TYPE, c, f, 12, fx_hm_offsets[12] + 4);
	fx_free(&t);

	fx_handmade(&t);
	fx_put32(rec(&t, 4, 0), 9); /* ThreadID; its thread's chain then breaks too */
	expect1(&t, c, UMT_E_BOUNDS, E, c, f, 4, fx_hm_offsets[4]);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(rec(&t, 1, 6), 5); /* InsID */
	E1(&t, UMT_E_BOUNDS, c, f, 1, fx_hm_offsets[1] + 6);
	fx_free(&t);

	fx_handmade(&t);
	fx_put16(at(&t, UMT_FILE_INS, HM_DEC + 58), 10); /* LCSize 10, records hold 8 */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_TRUNCATED, E, c, f, 1, fx_hm_offsets[1] + 14);
	expect_at(&g, 1, UMT_E_TRUNCATED, E, c, f, 4, fx_hm_offsets[4] + 14);
	fx_free(&t);
}

static void test_exec_contexts(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_VTABLE;
	const unsigned c = UMT_CHECK_EXEC;
	fx_handmade(&t);
	fx_put64(rec(&t, 8, 6 + 8), 100); /* RegsFP */
	E1(&t, UMT_E_BOUNDS, c, f, 8, fx_hm_offsets[8] + 6 + 8);
	fx_free(&t);

	fx_handmade(&t);
	fx_put32(rec(&t, 8, 6), 5); /* MemCount */
	E1(&t, UMT_E_BOUNDS, c, f, 8, fx_hm_offsets[8] + 6);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(rec(&t, 0, 6 + 16 + 8), 1000); /* contextMem 0 Size */
	E1(&t, UMT_E_BOUNDS, c, f, 0, fx_hm_offsets[0] + 6 + 16);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(rec(&t, 5, 14 + 8), 40); /* syscall exit's RegsFP: 40 + 16 > 32 left */
	E1(&t, UMT_E_BOUNDS, c, f, 5, fx_hm_offsets[5] + 14 + 8);
	fx_free(&t);
}

static void test_exec_lc_and_fps(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_VTABLE;
	const unsigned c = UMT_CHECK_EXEC;
	struct got g;
	/* LCSize 4 (slot rax read as 4 bytes): the records' 8-byte LCs are too long */
	fx_handmade(&t);
	fx_put16(at(&t, UMT_FILE_INS, HM_DEC + 58), 4);
	fx_put16(at(&t, UMT_FILE_INS, HM_DEC + 88 + 4), 4);
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, W, c, f, 1, fx_hm_offsets[1] + 14 + 4);
	expect_at(&g, 1, UMT_E_CORRUPT, W, c, f, 4, fx_hm_offsets[4] + 14 + 4);
	fx_free(&t);

	/* the register dump over the rmContext's own fields */
	fx_handmade(&t);
	fx_put64(rec(&t, 8, 6 + 8), 8);
	E1(&t, UMT_E_CORRUPT, c, f, 8, fx_hm_offsets[8] + 6 + 8);
	fx_free(&t);

	/* a memory block over the MemRefs array */
	fx_handmade(&t);
	fx_put64(rec(&t, 0, 6 + 16 + 16), 24);
	E1(&t, UMT_E_CORRUPT, c, f, 0, fx_hm_offsets[0] + 6 + 16 + 16);
	fx_free(&t);
}

static void test_exec_syscall_ids(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_VTABLE;
	struct got g;
	fx_handmade(&t);
	fx_put64(rec(&t, 6, 6), 9); /* entry: SyscallID outside the table */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, UMT_CHECK_SYSCALLS, UMT_FILE_SYSCALL_VTABLE, 1,
	          HM_SYS1 + 8);
	expect_at(&g, 1, UMT_E_BOUNDS, E, UMT_CHECK_EXEC, f, 6, fx_hm_offsets[6] + 6);
	fx_free(&t);

	fx_handmade(&t);
	fx_put64(rec(&t, 7, 6), (uint64_t)-1); /* -1 on a skipped exit */
	expect1(&t, UMT_CHECK_EXEC, UMT_E_BOUNDS, E, UMT_CHECK_EXEC, f, 7, fx_hm_offsets[7] + 6);
	fx_free(&t);

	/* -1 on an exit is allowed (no entry); row 0 no longer finds its exit */
	fx_handmade(&t);
	fx_put64(rec(&t, 5, 6), (uint64_t)-1);
	E1(&t, UMT_E_CORRUPT, UMT_CHECK_SYSCALLS, UMT_FILE_SYSCALL_VTABLE, 0, HM_SYS0 + 16);
	fx_free(&t);
}

static void test_exec_thread_order(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_VTABLE;
	const unsigned c = UMT_CHECK_EXEC;
	struct got g;
	fx_handmade(&t);
	*rec(&t, 2, 4) = UMT_REC_CTX_APC; /* thread 1 starts without a thread-begin */
	E1(&t, UMT_E_CORRUPT, c, f, 2, fx_hm_offsets[2] + 4);
	fx_free(&t);

	fx_handmade(&t);
	*rec(&t, 8, 4) = UMT_REC_THREAD_BEGIN; /* a second one in thread 0 */
	E1(&t, UMT_E_CORRUPT, c, f, 8, fx_hm_offsets[8] + 4);
	fx_free(&t);

	fx_handmade(&t);
	*rec(&t, 10, 4) = UMT_REC_THREAD_END; /* thread 1 ends, then runs records 11, 12 */
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 2);
	expect_at(&g, 0, UMT_E_CORRUPT, E, c, f, 11, fx_hm_offsets[11]);
	expect_at(&g, 1, UMT_E_CORRUPT, E, c, f, 12, fx_hm_offsets[12]);
	fx_free(&t);

	fx_handmade(&t);
	*rec(&t, 12, 4) = UMT_REC_APP_END; /* not the last record */
	E1(&t, UMT_E_CORRUPT, c, f, 12, fx_hm_offsets[12] + 4);
	fx_free(&t);
}

/* ---- prev/next links ----------------------------------------------------- */

static void test_links(void **state)
{
	(void)state;
	struct fx_trace t;
	const int f = UMT_FILE_EXEC_PREV_NEXT;
	const unsigned c = UMT_CHECK_LINKS;
	static const struct {
		int rec, next; /* which link of which record */
		int64_t value;
		int status;
		int64_t id; /* record reported */
		uint64_t offset;
	} cases[] = {
		{4, 0, 99, UMT_E_BOUNDS, 4, 4 * 16},        /* Prev outside the table */
		{4, 1, -5, UMT_E_BOUNDS, 4, 4 * 16 + 8},    /* Next outside */
		{4, 0, 0, UMT_E_CORRUPT, 4, 4 * 16},        /* Prev to the wrong record */
		{0, 1, 3, UMT_E_CORRUPT, 0, 8},             /* prev(next(0)) = 1, not 0 */
		{1, 1, 1, UMT_E_CORRUPT, 1, 16 + 8},        /* self-link */
		{4, 0, 4, UMT_E_CORRUPT, 4, 4 * 16},        /* self-link backward */
		{1, 1, 2, UMT_E_CORRUPT, 1, 16 + 8},        /* to another thread */
		{3, 1, 1, UMT_E_CORRUPT, 3, 3 * 16 + 8},    /* a cycle 1 -> 3 -> 1 */
		{13, 1, 0, UMT_E_CORRUPT, 13, 13 * 16 + 8}, /* the last record goes on */
		{2, 0, 1, UMT_E_CORRUPT, 2, 2 * 16},        /* a first record has a Prev */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fx_handmade(&t);
		fx_put64(at(&t, f, 16 * (uint64_t)cases[i].rec + 8 * (uint64_t)cases[i].next),
		         (uint64_t)cases[i].value);
		E1(&t, cases[i].status, c, f, cases[i].id, cases[i].offset);
		fx_free(&t);
	}
	/* the thread rows against the chains */
	static const struct {
		int field;
		int64_t value;
	} rows[] = {{16, 4}, {24, 11}, {32, 6}, {24, -1} /* ended with a thread-end */};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		fx_handmade(&t);
		fx_put64(at(&t, UMT_FILE_THREAD, HM_TH(1) + (uint64_t)rows[i].field),
		         (uint64_t)rows[i].value);
		E1(&t, UMT_E_CORRUPT, c, UMT_FILE_THREAD, 1, HM_TH(1) + (uint64_t)rows[i].field);
		fx_free(&t);
	}
}

/* ---- options ------------------------------------------------------------- */

/* The hand-made trace with one problem in each of five classes. */
static void five_problems(struct fx_trace *t)
{
	fx_handmade(t);
	fx_put32(at(t, UMT_FILE_THREAD, HM_TH(1)), 5);                    /* THREADS */
	fx_put64(at(t, UMT_FILE_MODULE, HM_MOD + 16), 0x500000);          /* MODULES */
	fx_put64(at(t, UMT_FILE_ADDRESS_SPACE, 32), 0x400010);            /* ADDRESS_SPACE */
	fx_put64(at(t, UMT_FILE_INS, HM_INS_ROW), 3);                     /* INS */
	fx_put64(at(t, UMT_FILE_EXEC_PREV_NEXT, 0 * 16 + 8), 3);          /* LINKS */
}

static void test_selection(void **state)
{
	(void)state;
	struct fx_trace t;
	five_problems(&t);
	struct got g;
	verify_fx(&t, UMT_CHECK_ALL, &g);
	expect_count(&g, 5);
	static const unsigned classes[] = {UMT_CHECK_THREADS, UMT_CHECK_MODULES,
	                                   UMT_CHECK_ADDRESS_SPACE, UMT_CHECK_INS, UMT_CHECK_LINKS};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(g.p[i].check, classes[i]); /* tables first, records last */
	for (size_t i = 0; i < 5; i++) {
		verify_fx(&t, classes[i], &g);
		expect_count(&g, 1);
		assert_int_equal(g.p[0].check, classes[i]);
		verify_fx(&t, UMT_CHECK_ALL & ~classes[i], &g);
		expect_count(&g, 4);
	}
	verify_fx(&t, 0, &g);
	expect_count(&g, 0);
	assert_int_equal(g.res.records, 0);
	verify_fx(&t, UMT_CHECK_EXEC, &g);
	assert_int_equal(g.res.records, FX_HM_RECORDS);

	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_verify_options o;
	umt_verify_options_init(&o);
	o.checks = UMT_CHECK_ALL + 1; /* an unknown class */
	assert_int_equal(umt_verify(tr, &o, NULL), UMT_E_INVAL);
	assert_int_equal(umt_verify(NULL, NULL, NULL), UMT_E_INVAL);
	/* no options: the defaults; no result wanted; the message names the first error */
	assert_int_equal(umt_verify(tr, NULL, NULL), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), "5 errors, 0 warnings"));
	assert_non_null(strstr(umt_errmsg(), "thread.itable: row 1 at offset 0x48: ID 5"));
	umt_verify_options_init(NULL); /* harmless */
	assert_int_equal(o.max_problems, 1000);
	umt_trace_close(tr);
	fx_free(&t);
}

/* A cap is a cap even when one row has several problems (found by fuzzing). */
static void test_cap_within_one_row(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	fx_put64(at(&t, UMT_FILE_MODULE, HM_MOD + 0), 5);         /* LoadEID 5 */
	fx_put64(at(&t, UMT_FILE_MODULE, HM_MOD + 8), 0);         /* UnloadEID 0 < LoadEID */
	fx_put64(at(&t, UMT_FILE_MODULE, HM_MOD + 16), 0x500000); /* StartAddr > EndAddr */
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	struct got g;
	memset(&g, 0, sizeof g);
	verify_trace(tr, UMT_CHECK_MODULES, 0, &g);
	assert_true(g.n >= 2);
	assert_int_equal(g.p[0].id, 0);
	assert_int_equal(g.p[1].id, 0);
	memset(&g, 0, sizeof g);
	verify_trace(tr, UMT_CHECK_MODULES, 1, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.res.errors, 1);
	assert_int_equal(g.res.stopped, 1);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_cap_and_stop(void **state)
{
	(void)state;
	struct fx_trace t;
	five_problems(&t);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	struct got g;
	for (uint64_t max = 1; max <= 6; max++) {
		memset(&g, 0, sizeof g);
		verify_trace(tr, UMT_CHECK_ALL, max, &g);
		int n = max < 5 ? (int)max : 5;
		assert_int_equal(g.n, n);
		assert_int_equal(g.res.errors, (uint64_t)n);
		assert_int_equal(g.res.stopped, max <= 5); /* the 5th problem reaches a cap of 5 */
		assert_int_equal(g.rc, UMT_E_CORRUPT);
		/* stopped early, no final progress call: done < total */
		if (max < 5)
			assert_true(g.last_done < g.total);
	}
	for (int stop = 1; stop <= 3; stop++) {
		memset(&g, 0, sizeof g);
		g.stop_after = stop;
		verify_trace(tr, UMT_CHECK_ALL, 0, &g);
		assert_int_equal(g.n, stop);
		assert_int_equal(g.res.stopped, 1);
		assert_int_equal(g.res.errors, (uint64_t)stop);
	}
	/* a warning alone, stopped: no error, so success */
	memset(&g, 0, sizeof g);
	g.stop_after = 1;
	umt_trace_close(tr);
	fx_free(&t);
	load_std(&t, UMT_FLAVOUR_2015);
	assert_int_equal(fx_open(&t, &tr), 0);
	verify_trace(tr, UMT_CHECK_ALL, 0, &g);
	assert_int_equal(g.rc, 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.res.warnings, 1);
	assert_int_equal(g.res.stopped, 1);
	umt_trace_close(tr);
	fx_free(&t);
}

/* A trace of @p n records: one thread-begin, then nops. */
static void write_long(const char *dir, uint64_t n)
{
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	assert_int_equal(umt_writer_add_thread(w, 1, 0x1000, NULL), 0);
	umt_decoded_ins d;
	memset(&d, 0, sizeof d);
	d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	int64_t dec, str, ins;
	assert_int_equal(umt_writer_add_decoded(w, &d, NULL, &dec), 0);
	assert_int_equal(umt_writer_add_disasm(w, "nop", &str), 0);
	umt_ins_rec row;
	memset(&row, 0, sizeof row);
	row.CodeSize = 1;
	row.ModuleID = -1;
	row.DisasmFP = str;
	row.DecodedFP = dec;
	assert_int_equal(umt_writer_add_ins(w, &row, &ins), 0);
	umt_exec_desc e = {.type = UMT_REC_THREAD_BEGIN, .thread_id = 0};
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	e.type = UMT_REC_INSTRUCTION;
	e.ins_id = ins;
	for (uint64_t i = 1; i < n; i++)
		assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	assert_int_equal(umt_writer_finish(w), 0);
}

static void test_progress(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	const uint64_t n = (UINT64_C(5) << 20) / 2; /* 2.5 Mi records */
	write_long(dir, n);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	struct got g;
	memset(&g, 0, sizeof g);
	verify_trace(tr, UMT_CHECK_ALL, 0, &g);
	expect_count(&g, 0);
	/* (0, total), about every 2^20 units, then (total, total) */
	uint64_t total = n + 1 + 1 + 0; /* records, the thread row, the instruction row */
	assert_int_equal(g.total, total);
	assert_int_equal(g.last_done, total);
	assert_int_equal(g.progress_bad, 0);
	assert_int_equal(g.progress_calls, 2 + 2);
	memset(&g, 0, sizeof g);
	verify_trace(tr, UMT_CHECK_THREADS, 0, &g);
	assert_int_equal(g.total, 1);
	assert_int_equal(g.progress_calls, 2);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_handmade),
		cmocka_unit_test(test_clean_std),
		cmocka_unit_test(test_clean_sample),
		cmocka_unit_test(test_clean_umtgen),
		cmocka_unit_test(test_xml),
		cmocka_unit_test(test_context_map),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_modules),
		cmocka_unit_test(test_address_space),
		cmocka_unit_test(test_instructions),
		cmocka_unit_test(test_decoded_rules),
		cmocka_unit_test(test_mem0),
		cmocka_unit_test(test_syscall_rows),
		cmocka_unit_test(test_syscall_links),
		cmocka_unit_test(test_exec_extent),
		cmocka_unit_test(test_exec_records),
		cmocka_unit_test(test_exec_contexts),
		cmocka_unit_test(test_exec_lc_and_fps),
		cmocka_unit_test(test_exec_syscall_ids),
		cmocka_unit_test(test_exec_thread_order),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_cap_and_stop),
		cmocka_unit_test(test_cap_within_one_row),
		cmocka_unit_test(test_progress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
