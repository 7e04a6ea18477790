/*
 * salvage.c and UMT_OPEN_SALVAGE: damaged traces still open for what they
 * hold.
 *
 * Every file of the standard writer trace is cut at many points (0, inside
 * and at the end of its header, at, before and after every record, entry and
 * row boundary, inside records, entries and rows, and at its end), each cut
 * in its own exact-size allocation (ASan catches a read past it). For each
 * cut the test computes from the intact bytes and the cut position alone
 * (spec offsets read with fx_get64, a linear scan where the library
 * searches) which records and rows must stay readable, and then checks that
 * exactly those read back, that the next ones report that they were lost at
 * open, that the other tables are untouched, and that a strict open fails
 * where the salvage open had to give something up.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

static struct fx_trace base; /* the standard 2015 trace, intact */
static unsigned cuts[UMT_FILE_COUNT]; /* cut traces made, by file */

static int setup(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	int rc = fx_write_standard(dir, UMT_FLAVOUR_2015);
	fx_load_dir(dir, &base);
	fx_rmtree(dir);
	free(dir);
	return rc;
}

static int teardown(void **state)
{
	(void)state;
	unsigned total = 0;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		print_message("%-22s cut at %u points\n", umt_file_name(f), cuts[f]);
		total += cuts[f];
	}
	print_message("%u cut traces opened strict and salvaged\n", total);
	fx_free(&base);
	return 0;
}

/* ---- the intact bytes (spec offsets) ----------------------------------------- */

static uint64_t at64(int f, uint64_t off)
{
	return fx_get64(base.data[f] + off);
}

/* exec.offsets entry @p i */
static uint64_t rec_off(uint64_t i)
{
	return at64(UMT_FILE_EXEC_OFFSETS, 8 * i);
}

/* RecordCount of exec.vtable */
static uint64_t declared_records(void)
{
	return at64(UMT_FILE_EXEC_VTABLE, 8);
}

/* The records wholly inside the first @p cut bytes of exec.vtable: a linear scan. */
static uint64_t records_inside(uint64_t cut)
{
	uint64_t k = 0;
	while (cut >= 16 && k < declared_records() && rec_off(k + 1) <= cut)
		k++;
	return k;
}

/* ---- cutting and opening ------------------------------------------------------ */

/* A copy of the base with file @p f cut to @p size bytes, in its own allocation. */
static void cut(struct fx_trace *t, int f, size_t size)
{
	fx_copy(t, &base);
	fx_truncate(t, f, size);
	cuts[f]++;
}

static umt_trace *open_salvage(struct fx_trace *t)
{
	umt_trace *tr = NULL;
	int rc = umt_trace_open_mem(t->buf, UMT_OPEN_SALVAGE, &tr);
	if (rc != 0)
		print_error("salvage open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	return tr;
}

/* A strict open of @p t succeeds exactly when @p intact. */
static void expect_strict(struct fx_trace *t, bool intact)
{
	umt_trace *tr = NULL;
	int rc = umt_trace_open_mem(t->buf, 0, &tr);
	assert_int_equal(rc == 0, intact);
	umt_trace_close(tr);
}

/* The cut points of a file of @p size bytes: around each of @p n boundaries, and its middles. */
static size_t cut_points(const uint64_t *bounds, size_t n, uint64_t size, uint64_t *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t b = bounds[i], next = i + 1 < n ? bounds[i + 1] : size;
		uint64_t cand[] = {b ? b - 1 : 0, b, b + 1, b + (next > b ? (next - b) / 2 : 0)};
		for (size_t c = 0; c < 4; c++) {
			bool dup = cand[c] > size;
			for (size_t j = 0; j < k && !dup; j++)
				dup = out[j] == cand[c];
			if (!dup)
				out[k++] = cand[c];
		}
	}
	return k;
}

/* Every file other than those in @p damaged reads as intact. */
static void expect_others_intact(const umt_trace *tr, unsigned damaged)
{
	umt_trace_info i;
	assert_int_equal(umt_trace_get_info(tr, &i), 0);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (damaged & (1u << f))
			continue;
		assert_int_equal(i.file_status[f], UMT_FILE_INTACT);
		assert_null(i.file_problem[f]);
	}
	if (!(damaged & (1u << UMT_FILE_THREAD)))
		assert_int_equal(i.thread_count, STD_THREADS);
	if (!(damaged & (1u << UMT_FILE_MODULE)))
		assert_int_equal(i.module_count, STD_MODULES);
	if (!(damaged & (1u << UMT_FILE_INS)))
		assert_int_equal(i.ins_count, STD_INS);
	if (!(damaged & (3u << UMT_FILE_SYSCALL_VTABLE)))
		assert_int_equal(i.syscall_count, STD_SYSCALLS);
	if (!(damaged & (1u << UMT_FILE_ADDRESS_SPACE)))
		assert_int_equal(i.address_range_count, STD_RANGES);
	if (!(damaged & (1u << UMT_FILE_CONTEXT_MAP)))
		assert_int_equal(i.dump_size, 512);
}

#define BIT(f) (1u << (f))

/* ---- an intact trace, the flags ------------------------------------------------ */

static void test_intact(void **state)
{
	(void)state;
	umt_trace *tr = open_salvage(&base);
	umt_trace_info i;
	assert_int_equal(umt_trace_get_info(tr, &i), 0);
	assert_int_equal(i.salvaged, 0);
	assert_int_equal(i.exec_count, STD_RECORDS);
	assert_int_equal(i.exec_declared, STD_RECORDS);
	assert_int_equal(i.ins_declared, STD_INS);
	assert_int_equal(i.syscall_declared, STD_SYSCALLS);
	assert_int_equal(i.module_declared, STD_MODULES);
	assert_int_equal(i.thread_declared, STD_THREADS);
	assert_int_equal(i.address_range_declared, STD_RANGES);
	expect_others_intact(tr, 0);
	umt_verify_result res;
	assert_int_equal(umt_verify(tr, NULL, &res), 0);
	umt_trace_close(tr);

	/* the flags are a bit set: one hint at most, plus salvage */
	assert_int_equal(umt_trace_open_mem(base.buf, UMT_OPEN_SALVAGE | UMT_OPEN_SEQUENTIAL, &tr),
	                 0);
	umt_trace_close(tr);
	assert_int_equal(umt_trace_open_mem(base.buf, UMT_OPEN_SALVAGE | UMT_OPEN_RANDOM, &tr), 0);
	umt_trace_close(tr);
	assert_int_equal(umt_trace_open_mem(base.buf,
	                                    UMT_OPEN_SALVAGE | UMT_OPEN_SEQUENTIAL | UMT_OPEN_RANDOM,
	                                    &tr),
	                 UMT_E_INVAL);
	assert_int_equal(umt_trace_open_mem(base.buf, UMT_OPEN_SALVAGE | 8u, &tr), UMT_E_INVAL);
	assert_int_equal(umt_trace_open("/nonexistent", 8u, &tr), UMT_E_INVAL);
}

/* ---- the execution table ------------------------------------------------------- */

/*
 * Thread 0's chain from its FirstEID: the records of thread 0 below @p k, in
 * order; then an out-of-table link (UMT_E_BOUNDS) if its chain goes on past k.
 */
static void expect_thread0_chain(const umt_trace *tr, uint64_t k)
{
	uint64_t chain[STD_RECORDS], n = 0;
	for (uint64_t id = 0; id < STD_RECORDS; id++)
		if (std_threads[id] == 0)
			chain[n++] = id;
	umt_thread_iter it;
	int rc = umt_thread_iter_init_thread(&it, tr, 0);
	if (chain[0] >= k) {
		fx_expect_error(rc, UMT_E_BOUNDS, "thread.itable", "FirstEID");
		return;
	}
	assert_int_equal(rc, 0);
	umt_rec r;
	uint64_t j = 0, readable = 0;
	while (readable < n && chain[readable] < k)
		readable++;
	while ((rc = umt_thread_iter_next(&it, &r)) == 1) {
		assert_int_equal(r.id, chain[j]);
		j++;
	}
	assert_int_equal(j, readable); /* stopped where the data ends */
	if (j < n)
		fx_expect_error(rc, UMT_E_BOUNDS, "exec.prev_next.column", "outside the table");
	else
		assert_int_equal(rc, 0);
}

/*
 * Records [0, k) read back as written; [k, declared) were lost at open
 * (by @p lost_file, with @p lost_code; @p gone: the whole file was lost);
 * the declared count is out of range.
 */
static void expect_records(const umt_trace *tr, uint64_t k, int lost_code, const char *lost_file,
                           bool gone)
{
	assert_int_equal(umt_exec_count(tr), k);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	uint64_t n = 0;
	while (umt_exec_iter_next(&it, &r) == 1) {
		assert_int_equal(r.id, n);
		assert_int_equal(r.type, std_types[n]);
		assert_int_equal(r.thread_id, std_threads[n]);
		assert_int_equal(r.offset, rec_off(n));
		assert_int_equal(r.size, rec_off(n + 1) - rec_off(n));
		n++;
	}
	assert_int_equal(n, k);
	for (uint64_t id = k; id < STD_RECORDS; id++) {
		char what[64];
		snprintf(what, sizeof what, "record %llu lost at open", (unsigned long long)id);
		fx_expect_error(umt_exec_get(tr, id, &r), lost_code, lost_file,
		                gone ? "unavailable, lost at open" : what);
	}
	if (!gone) /* else every ID reads as lost */
		fx_expect_error(umt_exec_get(tr, STD_RECORDS, &r), UMT_E_RANGE, "record",
		                "out of range");
	uint64_t bounds[5];
	assert_int_equal(umt_exec_split(tr, 4, bounds), 0);
	assert_int_equal(bounds[0], 0);
	assert_int_equal(bounds[4], k);
}

static void test_exec_vtable_cuts(void **state)
{
	(void)state;
	uint64_t bounds[STD_RECORDS + 5], points[4 * (STD_RECORDS + 5)];
	size_t nb = 0, size = base.size[UMT_FILE_EXEC_VTABLE];
	bounds[nb++] = 0;
	bounds[nb++] = 8;
	for (uint64_t i = 0; i <= STD_RECORDS; i++)
		bounds[nb++] = rec_off(i); /* record 0 starts at 16: the end of the header */
	size_t np = cut_points(bounds, nb, size, points);
	assert_true(np > 3 * STD_RECORDS);
	for (size_t p = 0; p < np; p++) {
		uint64_t c = points[p], k = records_inside(c);
		struct fx_trace t;
		cut(&t, UMT_FILE_EXEC_VTABLE, c);
		bool intact = c == size;
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.salvaged, !intact);
		assert_int_equal(i.exec_declared, STD_RECORDS);
		assert_int_equal(i.exec_version, c < 16 ? -1 : 1);
		assert_int_equal(i.file_status[UMT_FILE_EXEC_VTABLE],
		                 intact ? UMT_FILE_INTACT : UMT_FILE_REDUCED);
		/* open's own failure: a short header, else the end offset outside the file */
		expect_records(tr, k, c < 16 ? UMT_E_TRUNCATED : UMT_E_BOUNDS, "exec.vtable", false);
		expect_others_intact(tr, BIT(UMT_FILE_EXEC_VTABLE));
		expect_thread0_chain(tr, k);
		umt_verify_result res;
		assert_int_equal(umt_verify(tr, NULL, &res), intact ? 0 : UMT_E_CORRUPT);
		umt_trace_close(tr);
		fx_free(&t);
	}
}

static void test_exec_offsets_cuts(void **state)
{
	(void)state;
	size_t size = base.size[UMT_FILE_EXEC_OFFSETS];
	for (uint64_t c = 0; c <= size; c += 4) { /* every entry boundary and mid-entry */
		uint64_t entries = c / 8, k = entries ? entries - 1 : 0;
		struct fx_trace t;
		cut(&t, UMT_FILE_EXEC_OFFSETS, c);
		bool intact = c == size;
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.file_status[UMT_FILE_EXEC_OFFSETS],
		                 intact ? UMT_FILE_INTACT : UMT_FILE_REDUCED);
		if (!intact)
			assert_non_null(strstr(i.file_problem[UMT_FILE_EXEC_OFFSETS], "entries"));
		/* the file is shorter than (RecordCount + 1) * 8: open's failure is TRUNCATED */
		expect_records(tr, k, UMT_E_TRUNCATED, "exec.offsets", false);
		expect_others_intact(tr, BIT(UMT_FILE_EXEC_OFFSETS));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* exec.vtable shorter than its header: the count comes from exec.offsets, or nothing opens. */
static void test_exec_header_lost(void **state)
{
	(void)state;
	struct fx_trace t;
	cut(&t, UMT_FILE_EXEC_VTABLE, 12);
	umt_trace *tr = open_salvage(&t);
	umt_trace_info i;
	umt_trace_get_info(tr, &i);
	assert_int_equal(i.exec_count, 0);
	assert_int_equal(i.exec_declared, STD_RECORDS);
	assert_int_equal(i.exec_version, -1);
	assert_non_null(strstr(i.file_problem[UMT_FILE_EXEC_VTABLE], "shorter than its 16-byte"));
	expect_others_intact(tr, BIT(UMT_FILE_EXEC_VTABLE));
	umt_trace_close(tr);
	/* exec.offsets not a whole number of entries: the count is unknown */
	fx_free(&t);
	cut(&t, UMT_FILE_EXEC_VTABLE, 12);
	fx_truncate(&t, UMT_FILE_EXEC_OFFSETS, 8 * 10 + 3);
	tr = NULL;
	fx_expect_error(umt_trace_open_mem(t.buf, UMT_OPEN_SALVAGE, &tr), UMT_E_TRUNCATED,
	                "exec.vtable", "does not give the record count");
	assert_null(tr);
	/* no exec.offsets at all: the same */
	free(t.data[UMT_FILE_EXEC_OFFSETS]);
	t.data[UMT_FILE_EXEC_OFFSETS] = NULL;
	t.size[UMT_FILE_EXEC_OFFSETS] = 0;
	fx_sync(&t);
	fx_expect_error(umt_trace_open_mem(t.buf, UMT_OPEN_SALVAGE, &tr), UMT_E_TRUNCATED,
	                "exec.vtable", "does not give the record count");
	fx_free(&t);
	/* a bad Version or RecordCount is not salvaged */
	fx_copy(&t, &base);
	fx_put32(t.data[UMT_FILE_EXEC_VTABLE], 7);
	fx_expect_error(umt_trace_open_mem(t.buf, UMT_OPEN_SALVAGE, &tr), UMT_E_VERSION,
	                "exec.vtable", "Version 7");
	fx_free(&t);
}

/* ---- exec.prev_next.column ------------------------------------------------------ */

static void expect_links_lost(const umt_trace *tr)
{
	int64_t prev, next;
	umt_thread_iter it;
	fx_expect_error(umt_exec_links(tr, 0, &prev, &next), UMT_E_TRUNCATED,
	                "exec.prev_next.column", "unavailable, lost at open");
	fx_expect_error(umt_thread_iter_init(&it, tr, 0, UMT_FORWARD), UMT_E_TRUNCATED,
	                "exec.prev_next.column", "unavailable, lost at open");
	fx_expect_error(umt_thread_iter_init_thread(&it, tr, 1), UMT_E_TRUNCATED,
	                "exec.prev_next.column", "unavailable, lost at open");
}

static void test_prev_next_cuts(void **state)
{
	(void)state;
	size_t size = base.size[UMT_FILE_EXEC_PREV_NEXT];
	uint64_t points[] = {0, 1, 15, 16, 17, 16 * 20, 16 * 20 + 8, size - 16, size - 1, size};
	for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
		struct fx_trace t;
		cut(&t, UMT_FILE_EXEC_PREV_NEXT, points[p]);
		bool intact = points[p] == size;
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		/* every record is readable, so a short column cannot link them all */
		assert_int_equal(i.file_status[UMT_FILE_EXEC_PREV_NEXT],
		                 intact ? UMT_FILE_INTACT : UMT_FILE_UNAVAILABLE);
		expect_records(tr, STD_RECORDS, 0, NULL, false);
		if (intact)
			expect_thread0_chain(tr, STD_RECORDS);
		else
			expect_links_lost(tr);
		expect_others_intact(tr, BIT(UMT_FILE_EXEC_PREV_NEXT));
		umt_trace_close(tr);
		fx_free(&t);
	}
	/* exec.vtable cut after record 20: a column of 20 entries still links those */
	uint64_t k = 20;
	for (int extra = -1; extra <= 3; extra++) {
		struct fx_trace t;
		cut(&t, UMT_FILE_EXEC_VTABLE, rec_off(k));
		fx_truncate(&t, UMT_FILE_EXEC_PREV_NEXT, 16 * k + (uint64_t)(extra < 0 ? -16 : extra));
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.exec_count, k);
		assert_int_equal(i.file_status[UMT_FILE_EXEC_PREV_NEXT],
		                 extra < 0 ? UMT_FILE_UNAVAILABLE : UMT_FILE_REDUCED);
		if (extra < 0)
			expect_links_lost(tr);
		else
			expect_thread0_chain(tr, k);
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* The same from a directory, where the column is mapped on first use. */
static void test_prev_next_directory(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), path[4096];
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	snprintf(path, sizeof path, "%s/exec.prev_next.column", dir);
	assert_int_equal(truncate(path, 16 * 5 + 3), 0);
	umt_trace *tr = NULL;
	fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_TRUNCATED, "exec.prev_next.column",
	                NULL);
	assert_int_equal(umt_trace_open(dir, UMT_OPEN_SALVAGE, &tr), 0);
	for (int n = 0; n < 2; n++) /* the failure is remembered: the same every time */
		expect_links_lost(tr);
	umt_verify_result res;
	fx_expect_error(umt_verify(tr, NULL, &res), UMT_E_CORRUPT, "exec.prev_next.column",
	                "unavailable");
	assert_int_equal(res.records, STD_RECORDS); /* the records were all checked */
	umt_trace_close(tr);
	/* and an exec.vtable cut to 5 records: 5 entries are enough, mapped lazily */
	snprintf(path, sizeof path, "%s/exec.vtable", dir);
	assert_int_equal(truncate(path, (off_t)rec_off(5)), 0);
	assert_int_equal(umt_trace_open(dir, UMT_OPEN_SALVAGE, &tr), 0);
	expect_thread0_chain(tr, 5);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

/* ---- fixed-size tables ------------------------------------------------------------ */

/* Geometry of a *.itable from its intact header (spec 4.2.1, 9). */
struct geom {
	int file;
	uint64_t header, rows, row_size, table_fp, extra_fp, extra_size;
};

static struct geom geom_of(int f)
{
	bool extra = f == UMT_FILE_INS || f == UMT_FILE_MODULE;
	struct geom g = {f, extra ? 48 : 32, at64(f, 8), at64(f, 16), at64(f, 24), 0, 0};
	if (extra) {
		g.extra_fp = at64(f, 32);
		g.extra_size = at64(f, 40);
	}
	return g;
}

/* What a cut at @p c keeps: the rows wholly inside, and the bytes of the extra area inside. */
static uint64_t rows_kept(const struct geom *g, uint64_t c)
{
	if (c < g->header || c < g->table_fp)
		return 0;
	uint64_t n = (c - g->table_fp) / g->row_size;
	return n < g->rows ? n : g->rows;
}

static uint64_t extra_kept(const struct geom *g, uint64_t c)
{
	if (c < g->extra_fp)
		return 0;
	return c - g->extra_fp < g->extra_size ? c - g->extra_fp : g->extra_size;
}

/* The row pointer of table @p f, row @p id, through its accessor. */
static int get_row(const umt_trace *tr, int f, uint64_t id, const void **row)
{
	switch (f) {
	case UMT_FILE_INS: return umt_ins_get(tr, id, (const umt_ins_rec **)row);
	case UMT_FILE_MODULE: return umt_module_get(tr, id, (const umt_module_rec **)row);
	case UMT_FILE_THREAD: return umt_thread_get(tr, id, (const umt_thread_rec **)row);
	default: return umt_address_range_get(tr, id, (const umt_address_range **)row);
	}
}

/* The ins.itable extra area: a disassembly or decoded body is readable iff inside what was kept. */
static void expect_ins_extra(const umt_trace *tr, const struct geom *g, uint64_t id, uint64_t kept)
{
	uint64_t row = g->table_fp + id * g->row_size;
	uint64_t dis = at64(UMT_FILE_INS, row + 40), dec = at64(UMT_FILE_INS, row + 48);
	const uint8_t *x = base.data[UMT_FILE_INS] + g->extra_fp;
	uint64_t dis_end = dis + 3 + (uint16_t)(x[dis] | x[dis + 1] << 8); /* cStr: Length + 3 */
	uint64_t dec_end = dec + 88 + 12 * (uint64_t)x[dec + 62];           /* LCCount at 62 */
	const char *text;
	size_t len;
	umt_decoded d;
	if (dis_end <= kept) {
		assert_int_equal(umt_ins_disasm(tr, id, &text, &len), 0);
		assert_string_equal(text, std_ins_disasm[id]);
	} else {
		fx_expect_error(umt_ins_disasm(tr, id, &text, &len), UMT_E_BOUNDS, "ins.itable",
		                "extra area");
	}
	if (dec_end <= kept)
		assert_int_equal(umt_ins_decoded(tr, id, &d), 0);
	else
		fx_expect_error(umt_ins_decoded(tr, id, &d), UMT_E_BOUNDS, "ins.itable", "extra area");
}

/* A module name is readable iff its uStr (Length, units, NUL) lies inside what was kept. */
static void expect_module_names(const umt_trace *tr, const struct geom *g, uint64_t id,
                                uint64_t kept)
{
	for (int which = 0; which < 2; which++) {
		uint64_t fp = at64(UMT_FILE_MODULE, g->table_fp + id * g->row_size + 32 + 8 * which);
		const uint8_t *p = base.data[UMT_FILE_MODULE] + fp;
		uint64_t end = fp - g->extra_fp + 2 + 2 * (uint64_t)(p[0] | p[1] << 8) + 2;
		const uint8_t *units;
		size_t n;
		int rc = umt_module_name_utf16(tr, id, which, &units, &n);
		if (end <= kept)
			assert_int_equal(rc, 0);
		else
			fx_expect_error(rc, UMT_E_BOUNDS, "module.itable", "extra area");
	}
}

/* Cuts the fixed-size table whose umt_file_id is *state everywhere and checks each outcome. */
static void test_itable_cuts(void **state)
{
	int f = *(const int *)*state;
	struct geom g = geom_of(f);
	size_t size = base.size[f];
	uint64_t bounds[64], points[256];
	size_t nb = 0;
	for (uint64_t b = 0; b < g.header; b += 8)
		bounds[nb++] = b;
	for (uint64_t r = 0; r <= g.rows; r++)
		bounds[nb++] = g.table_fp + r * g.row_size;
	if (g.extra_size > 0)
		bounds[nb++] = g.extra_fp + g.extra_size / 2;
	bounds[nb++] = size;
	size_t np = cut_points(bounds, nb, size, points);
	for (size_t p = 0; p < np; p++) {
		uint64_t c = points[p], kept_rows = rows_kept(&g, c), kept_extra = extra_kept(&g, c);
		bool lost = c < g.header, intact = c == size;
		struct fx_trace t;
		cut(&t, f, c);
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.file_status[f], intact ? UMT_FILE_INTACT
		                                   : lost ? UMT_FILE_UNAVAILABLE
		                                          : UMT_FILE_REDUCED);
		const void *row;
		for (uint64_t id = 0; id < kept_rows; id++) {
			assert_int_equal(get_row(tr, f, id, &row), 0);
			assert_memory_equal(row, base.data[f] + g.table_fp + id * g.row_size, g.row_size);
			if (f == UMT_FILE_INS)
				expect_ins_extra(tr, &g, id, kept_extra);
			if (f == UMT_FILE_MODULE)
				expect_module_names(tr, &g, id, kept_extra);
		}
		/* the rows after: lost (a short header: TRUNCATED, short rows: BOUNDS) */
		for (uint64_t id = kept_rows; id < g.rows; id++)
			fx_expect_error(get_row(tr, f, id, &row), lost ? UMT_E_TRUNCATED : UMT_E_BOUNDS,
			                umt_file_name(f), lost ? "unavailable, lost at open" : "lost at open");
		if (!lost)
			fx_expect_error(get_row(tr, f, g.rows, &row), UMT_E_RANGE, "", "out of range");
		expect_records(tr, STD_RECORDS, 0, NULL, false);
		expect_others_intact(tr, BIT(f));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* ---- syscalls ---------------------------------------------------------------------- */

static void test_syscall_vtable_cuts(void **state)
{
	(void)state;
	size_t size = base.size[UMT_FILE_SYSCALL_VTABLE];
	uint64_t bounds[2 * STD_SYSCALLS + 3], points[64];
	size_t nb = 0;
	bounds[nb++] = 0;
	bounds[nb++] = 8;
	for (uint64_t s = 0; s < STD_SYSCALLS; s++) { /* (Offset, Size) pairs */
		uint64_t off = at64(UMT_FILE_SYSCALL_OFFSETS, 16 * s);
		bounds[nb++] = off;
		bounds[nb++] = off + at64(UMT_FILE_SYSCALL_OFFSETS, 16 * s + 8);
	}
	size_t np = cut_points(bounds, nb, size, points);
	for (size_t p = 0; p < np; p++) {
		uint64_t c = points[p];
		struct fx_trace t;
		cut(&t, UMT_FILE_SYSCALL_VTABLE, c);
		/* open checks the 16-byte header only; records are checked when read */
		expect_strict(&t, c >= 16);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.file_status[UMT_FILE_SYSCALL_VTABLE],
		                 c < 16 ? UMT_FILE_UNAVAILABLE : UMT_FILE_INTACT);
		assert_int_equal(i.syscall_count, c < 16 ? 0 : STD_SYSCALLS);
		for (uint64_t s = 0; s < STD_SYSCALLS; s++) {
			umt_syscall sc;
			uint64_t end = at64(UMT_FILE_SYSCALL_OFFSETS, 16 * s) +
			               at64(UMT_FILE_SYSCALL_OFFSETS, 16 * s + 8);
			int rc = umt_syscall_get(tr, s, &sc);
			if (c < 16)
				fx_expect_error(rc, UMT_E_TRUNCATED, "syscall.vtable",
				                "unavailable, lost at open");
			else if (end > c)
				fx_expect_error(rc, UMT_E_BOUNDS, "syscall.offsets", "ends past the end");
			else
				assert_int_equal(rc, 0);
		}
		umt_rec r;
		umt_syscall sc;
		assert_int_equal(umt_exec_get(tr, 6, &r), 0); /* a syscall entry (SyscallID 2) */
		if (c < 16)
			fx_expect_error(umt_rec_syscall(tr, &r, &sc), UMT_E_TRUNCATED, "syscall.vtable",
			                "unavailable");
		expect_others_intact(tr, BIT(UMT_FILE_SYSCALL_VTABLE));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

static void test_syscall_offsets_cuts(void **state)
{
	(void)state;
	size_t size = base.size[UMT_FILE_SYSCALL_OFFSETS];
	for (uint64_t c = 0; c <= size; c += 4) {
		uint64_t pairs = c / 16;
		struct fx_trace t;
		cut(&t, UMT_FILE_SYSCALL_OFFSETS, c);
		bool intact = c == size;
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.syscall_count, pairs);
		assert_int_equal(i.syscall_declared, STD_SYSCALLS);
		assert_int_equal(i.file_status[UMT_FILE_SYSCALL_OFFSETS],
		                 intact ? UMT_FILE_INTACT : UMT_FILE_REDUCED);
		for (uint64_t s = 0; s < STD_SYSCALLS; s++) {
			umt_syscall sc;
			int rc = umt_syscall_get(tr, s, &sc);
			if (s < pairs) {
				assert_int_equal(rc, 0);
				assert_int_equal(sc.offset, at64(UMT_FILE_SYSCALL_OFFSETS, 16 * s));
			} else {
				fx_expect_error(rc, UMT_E_TRUNCATED, "syscall.offsets", "lost at open");
			}
		}
		expect_records(tr, STD_RECORDS, 0, NULL, false);
		expect_others_intact(tr, BIT(UMT_FILE_SYSCALL_OFFSETS));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* ---- context map, trace.xml ---------------------------------------------------------- */

static void test_context_map_cuts(void **state)
{
	(void)state;
	uint64_t points[] = {0, 1, 2, 4, 16, 1040, 9232, 13328, 17423, 17424};
	for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
		bool intact = points[p] == 17424;
		struct fx_trace t;
		cut(&t, UMT_FILE_CONTEXT_MAP, points[p]);
		expect_strict(&t, intact);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.file_status[UMT_FILE_CONTEXT_MAP],
		                 intact ? UMT_FILE_INTACT : UMT_FILE_UNAVAILABLE);
		assert_int_equal(umt_context_map_get(tr)->ElemCount, intact ? 280 : 0);
		/* record 0, thread-begin: its TIB memory block reads either way */
		umt_rec r;
		umt_context c;
		umt_mem_ref m;
		assert_int_equal(umt_exec_get(tr, 0, &r), 0);
		assert_int_equal(umt_rec_context(tr, &r, &c), 0);
		assert_int_equal(c.regs_size, intact ? 512 : 0);
		assert_int_equal(umt_context_mem_get(&c, 0, &m), 0);
		assert_int_equal(m.address, (uint64_t)std_tib[0]);
		assert_int_equal(m.size, STD_TIB_SIZE);
		for (uint64_t j = 0; j < STD_TIB_SIZE; j++)
			assert_int_equal(m.data[j], std_tib_byte(0, j));
		umt_reg_desc d;
		umt_value v;
		if (intact) {
			assert_int_equal(umt_context_reg(tr, &c, umt_reg_by_name(tr, "rax"), &v), 0);
		} else {
			fx_expect_error(umt_context_map_reg(tr, 74, &d), UMT_E_TRUNCATED,
			                "context_map.itable", "unavailable, lost at open");
			fx_expect_error(umt_reg_by_name(tr, "rax"), UMT_E_TRUNCATED, "context_map.itable",
			                "unavailable, lost at open");
			fx_expect_error(umt_context_reg(tr, &c, 74, &v), UMT_E_TRUNCATED,
			                "context_map.itable", "unavailable, lost at open");
		}
		expect_others_intact(tr, BIT(UMT_FILE_CONTEXT_MAP));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

static void test_trace_xml_cuts(void **state)
{
	(void)state;
	size_t size = base.size[UMT_FILE_TRACE_XML];
	uint64_t points[] = {0, 1, 5, size / 3, size / 2, size - 20};
	for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
		struct fx_trace t;
		cut(&t, UMT_FILE_TRACE_XML, points[p]);
		/* trace.xml is parsed on first use: open is not concerned, either way */
		expect_strict(&t, true);
		umt_trace *tr = open_salvage(&t);
		const umt_meta *m;
		fx_expect_error(umt_trace_meta(tr, &m), UMT_E_XML, "trace.xml", NULL);
		expect_records(tr, STD_RECORDS, 0, NULL, false);
		expect_others_intact(tr, 0);
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* ---- missing files -------------------------------------------------------------------- */

/* Every accessor of the table in @p f (lost at open) says so with @p code. */
static void expect_table_lost(const umt_trace *tr, int f, int code)
{
	const char *name = umt_file_name(f), *what = "unavailable, lost at open";
	const void *row;
	uint64_t id;
	umt_rec r;
	switch (f) {
	case UMT_FILE_THREAD:
		fx_expect_error(get_row(tr, f, 0, &row), code, name, what);
		fx_expect_error(umt_thread_find_win_tid(tr, std_win_tid[1], &id), code, name, what);
		umt_thread_iter it;
		fx_expect_error(umt_thread_iter_init_thread(&it, tr, 0), code, name, what);
		break;
	case UMT_FILE_MODULE:
		fx_expect_error(get_row(tr, f, 0, &row), code, name, what);
		const umt_module_rec_2015 *r15;
		fx_expect_error(umt_module_get_2015(tr, 0, &r15), code, name, what);
		char buf[64];
		fx_expect_error(umt_module_name(tr, 0, UMT_MODULE_WIN_NAME, buf, sizeof buf), code,
		                name, what);
		fx_expect_error(umt_module_find(tr, 0x401000, 1, &id), code, name, what);
		fx_expect_error(umt_ins_module(tr, 0, &id), code, name, what);
		break;
	case UMT_FILE_ADDRESS_SPACE:
		fx_expect_error(get_row(tr, f, 0, &row), code, name, what);
		fx_expect_error(umt_address_space_find(tr, 0x401000, &id), code, name, what);
		break;
	case UMT_FILE_INS: {
		const char *text;
		size_t len;
		umt_decoded d;
		umt_ins_exec x;
		fx_expect_error(get_row(tr, f, 0, &row), code, name, what);
		fx_expect_error(umt_ins_disasm(tr, 0, &text, &len), code, name, what);
		fx_expect_error(umt_ins_decoded(tr, 0, &d), code, name, what);
		assert_int_equal(umt_exec_get(tr, 1, &r), 0); /* an instruction record */
		fx_expect_error(umt_rec_ins_exec(tr, &r, &x), code, name, what);
		break;
	}
	case UMT_FILE_SYSCALL_VTABLE:
	case UMT_FILE_SYSCALL_OFFSETS: {
		umt_syscall s;
		fx_expect_error(umt_syscall_get(tr, 0, &s), code, name, what);
		assert_int_equal(umt_exec_get(tr, 6, &r), 0);
		fx_expect_error(umt_rec_syscall(tr, &r, &s), code, name, what);
		break;
	}
	case UMT_FILE_CONTEXT_MAP:
		fx_expect_error(umt_reg_by_name(tr, "rax"), code, name, what);
		break;
	case UMT_FILE_EXEC_PREV_NEXT:
		fx_expect_error(umt_exec_links(tr, 0, NULL, NULL), code, name, what);
		break;
	case UMT_FILE_TRACE_XML: {
		const umt_meta *m;
		fx_expect_error(umt_trace_meta(tr, &m), code, name, what);
		fx_expect_error(umt_trace_meta_check(tr), code, name, what);
		break;
	}
	default:
		fail();
	}
}

static void test_missing_files(void **state)
{
	(void)state;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		struct fx_trace t;
		fx_copy(&t, &base);
		free(t.data[f]);
		t.data[f] = NULL;
		t.size[f] = 0;
		fx_sync(&t);
		umt_trace *tr = NULL;
		int rc = umt_trace_open_mem(t.buf, UMT_OPEN_SALVAGE, &tr);
		if (f == UMT_FILE_EXEC_VTABLE) { /* no trace without it */
			fx_expect_error(rc, UMT_E_MISSING, "exec.vtable", "missing");
			fx_free(&t);
			continue;
		}
		assert_int_equal(rc, 0);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		if (f == UMT_FILE_TRACE_XML) { /* optional: not a loss */
			assert_int_equal(i.salvaged, 0);
		} else {
			assert_int_equal(i.salvaged, 1);
			assert_int_equal(i.file_status[f], UMT_FILE_UNAVAILABLE);
			assert_string_equal(i.file_problem[f], "missing (no buffer given)");
		}
		if (f == UMT_FILE_EXEC_OFFSETS)
			expect_records(tr, 0, UMT_E_MISSING, "exec.offsets", true);
		else if (f != UMT_FILE_TRACE_XML)
			expect_table_lost(tr, f, UMT_E_MISSING);
		if (f != UMT_FILE_EXEC_OFFSETS && f != UMT_FILE_EXEC_PREV_NEXT && f != UMT_FILE_THREAD)
			expect_thread0_chain(tr, STD_RECORDS);
		umt_verify_result res;
		assert_int_equal(umt_verify(tr, NULL, &res), f == UMT_FILE_TRACE_XML ? 0 : UMT_E_CORRUPT);
		umt_trace_close(tr);
		fx_free(&t);
	}
}

/* A header that cannot be used loses its table the same way, with its own code. */
static void test_bad_headers(void **state)
{
	(void)state;
	static const struct {
		int file;
		size_t at;
		uint32_t value;
		int code;
	} cases[] = {
		{UMT_FILE_THREAD, 0, 1, UMT_E_VERSION},         /* HeaderVer */
		{UMT_FILE_MODULE, 4, 9, UMT_E_VERSION},         /* RecordVer */
		{UMT_FILE_ADDRESS_SPACE, 20, 0x80000000u, UMT_E_BOUNDS}, /* RowSize negative */
		{UMT_FILE_INS, 28, 0x7fffffffu, UMT_E_BOUNDS},  /* TableFP past the file */
		{UMT_FILE_SYSCALL_VTABLE, 4, 5, UMT_E_VERSION}, /* UnifiedIDsVer */
		{UMT_FILE_CONTEXT_MAP, 2, 600, UMT_E_BOUNDS},   /* ElemCount (16-bit, at 2) */
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		struct fx_trace t;
		fx_copy(&t, &base);
		uint8_t *p = t.data[cases[c].file] + cases[c].at;
		if (cases[c].file == UMT_FILE_CONTEXT_MAP)
			fx_put16(p, (uint16_t)cases[c].value);
		else
			fx_put32(p, cases[c].value);
		expect_strict(&t, false);
		umt_trace *tr = open_salvage(&t);
		umt_trace_info i;
		umt_trace_get_info(tr, &i);
		assert_int_equal(i.file_status[cases[c].file], UMT_FILE_UNAVAILABLE);
		expect_table_lost(tr, cases[c].file, cases[c].code);
		expect_records(tr, STD_RECORDS, 0, NULL, false);
		expect_others_intact(tr, BIT(cases[c].file));
		umt_trace_close(tr);
		fx_free(&t);
	}
}

int main(void)
{
	static const int thread = UMT_FILE_THREAD, module = UMT_FILE_MODULE,
	                 aspace = UMT_FILE_ADDRESS_SPACE, ins = UMT_FILE_INS;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intact),
		cmocka_unit_test(test_exec_vtable_cuts),
		cmocka_unit_test(test_exec_offsets_cuts),
		cmocka_unit_test(test_exec_header_lost),
		cmocka_unit_test(test_prev_next_cuts),
		cmocka_unit_test(test_prev_next_directory),
		cmocka_unit_test_prestate(test_itable_cuts, (void *)&thread),
		cmocka_unit_test_prestate(test_itable_cuts, (void *)&module),
		cmocka_unit_test_prestate(test_itable_cuts, (void *)&aspace),
		cmocka_unit_test_prestate(test_itable_cuts, (void *)&ins),
		cmocka_unit_test(test_syscall_vtable_cuts),
		cmocka_unit_test(test_syscall_offsets_cuts),
		cmocka_unit_test(test_context_map_cuts),
		cmocka_unit_test(test_trace_xml_cuts),
		cmocka_unit_test(test_missing_files),
		cmocka_unit_test(test_bad_headers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
