/*
 * The corruption matrix: systematically broken traces, built in memory
 * from the hand-made trace, both writer flavours and the bundled sample,
 * each opened and walked through the whole API (walk()) and verified.
 *
 * Every mutation must be reported by open, by an accessor or by
 * umt_verify() (a mutation the format cannot tell from valid data is listed
 * as harmless, and then everything must still succeed); nothing may crash,
 * hang or read out of bounds (run under ASan + UBSan: every file is its own
 * exact-size allocation, so reading one byte past it is caught).
 *
 * Mutations: truncation at every header field boundary and inside records;
 * every count, size, row size, FP and offset field of the spec set to 0,
 * -1, past the end and to values that overflow count * size and offset +
 * size; missing, empty and misplaced files; LC slots past LCSize, LCCount
 * 255, ExpCount 5, slot 0xfc, string lengths past their area, unpaired
 * surrogates; prev/next cycles, self-links and links to other threads.
 *
 * Each mutation is also opened with UMT_OPEN_SALVAGE and walked the same
 * way: nothing unexpected may happen, it must report problems exactly when
 * the strict open does (a lost table is reported by umt_verify()), and the
 * same number when the strict open succeeded.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "std_trace.h"

/* ---- the walker ---------------------------------------------------------- */

/* Soft results a call may legitimately return besides content errors. */
#define SOFT_RANGE (1u << 0)
#define SOFT_NOT_FOUND (1u << 1)
#define SOFT_NO_VALUE (1u << 2)

struct walk {
	const umt_trace *t;
	bool salvage;        /* opened with UMT_OPEN_SALVAGE: lost tables give open's code */
	unsigned problems;   /* content errors from accessors, verify's errors and warnings */
	unsigned unexpected; /* misuse codes, broken guarantees, endless iterations */
	const char *first_unexpected;
	uint64_t sink;       /* bytes read, so that every returned byte is touched */
};

static bool content_error(int rc)
{
	return rc == UMT_E_TRUNCATED || rc == UMT_E_BOUNDS || rc == UMT_E_TYPE ||
	       rc == UMT_E_CORRUPT || rc == UMT_E_XML || rc == UMT_E_VERSION;
}

static void unexpected(struct walk *w, const char *what)
{
	if (w->unexpected++ == 0)
		w->first_unexpected = what;
	print_message("unexpected: %s (%s)\n", what, umt_errmsg());
}

/* Accounts for one call's result; returns true on success. */
static bool ok(struct walk *w, int rc, unsigned soft, const char *what)
{
	if (rc >= 0)
		return true;
	if (content_error(rc) || (w->salvage && (rc == UMT_E_MISSING || rc == UMT_E_IO)))
		w->problems++;
	else if (!((soft & SOFT_RANGE) && rc == UMT_E_RANGE) &&
	         !((soft & SOFT_NOT_FOUND) && rc == UMT_E_NOT_FOUND) &&
	         !((soft & SOFT_NO_VALUE) && rc == UMT_E_NO_VALUE))
		unexpected(w, what);
	return false;
}

static void touch(struct walk *w, const void *p, uint64_t n)
{
	const uint8_t *b = p;
	for (uint64_t i = 0; i < n; i++)
		w->sink += b[i];
}

static void touch_value(struct walk *w, const umt_value *v)
{
	touch(w, v->data, v->size);
	w->sink += umt_value_u64(v);
}

static void walk_operands(struct walk *w, const umt_ins_exec *x)
{
	const umt_decoded_ins *d = x->dec.ins;
	umt_value v;
	uint64_t a;
	for (unsigned i = 0; i <= d->ExpCount; i++) { /* one past the end too */
		ok(w, umt_operand_kind(x, i), SOFT_RANGE, "operand kind");
		for (int when = UMT_BEFORE; when <= UMT_AFTER; when++)
			if (ok(w, umt_operand_value(x, i, when, &v), SOFT_RANGE | SOFT_NO_VALUE,
			       "operand value"))
				touch_value(w, &v);
		if (ok(w, umt_operand_address(x, i, &a), SOFT_RANGE | SOFT_NO_VALUE, "address"))
			w->sink += a;
		w->sink += umt_decoded_operand(&x->dec, i) != NULL;
	}
	for (int which = 0; which <= 1; which++) {
		umt_mem_phrase ph;
		if (ok(w, umt_ins_exec_phrase(x, which, &ph), SOFT_NO_VALUE, "phrase"))
			w->sink += ph.ea;
	}
	for (unsigned s = 0; s <= d->LCCount; s++) {
		if (ok(w, umt_lc_slot_value(x, s, &v, &a), SOFT_RANGE, "slot value")) {
			touch_value(w, &v);
			w->sink += a;
		}
		ok(w, umt_decoded_slot_group(&x->dec, s), SOFT_RANGE, "slot group");
		const umt_lc_slot *sl = umt_decoded_slot(&x->dec, s);
		if (sl == NULL)
			continue;
		char name[UMT_REG_NAME_MAX];
		w->sink += umt_reg_name(w->t, (uint16_t)sl->RegName, name, sizeof name) != NULL;
		for (int when = UMT_BEFORE; when <= UMT_AFTER; when++) {
			ok(w, umt_lc_find_common(x, sl->CommonRegName, 1, when), SOFT_NOT_FOUND,
			   "find common");
			if (ok(w, umt_lc_find_reg(w->t, x, (uint16_t)sl->RegName, when, &v),
			       SOFT_NOT_FOUND | SOFT_RANGE, "find reg"))
				touch_value(w, &v);
		}
	}
	static const int regs[] = {0, 42, 58, 74, 90, 106, 111, 140, 184, 511, 512};
	for (size_t k = 0; k < sizeof regs / sizeof regs[0]; k++)
		if (ok(w, umt_lc_find_reg(w->t, x, regs[k], UMT_BEFORE, &v),
		       SOFT_NOT_FOUND | SOFT_RANGE, "find reg"))
			touch_value(w, &v);
}

static void walk_context(struct walk *w, const umt_rec *r)
{
	umt_context c;
	if (!ok(w, umt_rec_context(w->t, r, &c), 0, "context"))
		return;
	touch(w, c.regs, c.regs_size);
	for (uint32_t k = 0; k < c.mem_count; k++) {
		umt_mem_ref m;
		if (ok(w, umt_context_mem_get(&c, k, &m), 0, "context mem"))
			touch(w, m.data, m.size);
	}
	umt_mem_ref m;
	ok(w, umt_context_mem_get(&c, c.mem_count, &m), SOFT_RANGE, "context mem past");
	for (int reg = 0; reg < UMT_CONTEXT_MAP_REGS; reg++) {
		umt_value v;
		if (ok(w, umt_context_reg(w->t, &c, reg, &v), SOFT_NOT_FOUND | SOFT_RANGE, "reg"))
			touch_value(w, &v);
	}
}

static void walk_record(struct walk *w, const umt_rec *r)
{
	const umt_trace *t = w->t;
	int64_t v64;
	int32_t v32;
	int64_t prev, next;
	ok(w, umt_exec_links(t, r->id, &prev, &next), 0, "links");
	touch(w, r->data, r->size);
	w->sink += (uint64_t)umt_rec_is_64bit(r) + (uint64_t)umt_rec_is_incomplete(r);
	w->sink += umt_rec_type_name(r->type) != NULL;
	if (r->type == UMT_REC_INSTRUCTION) {
		const uint8_t *lc;
		uint64_t n;
		if (ok(w, umt_rec_ins(r, &v64, &lc, &n), 0, "rec ins"))
			touch(w, lc, n);
		umt_ins_exec x;
		if (ok(w, umt_rec_ins_exec(t, r, &x), 0, "ins exec"))
			walk_operands(w, &x);
	}
	if (r->type >= UMT_REC_SYSCALL_ENTRY && r->type <= UMT_REC_SYSCALL_SKIPPED) {
		ok(w, umt_rec_syscall_id(r, &v64), 0, "syscall id");
		umt_syscall s;
		if (ok(w, umt_rec_syscall(t, r, &s), SOFT_NO_VALUE, "rec syscall"))
			w->sink += s.rec->BeginEID;
	}
	if (r->type == UMT_REC_THREAD_END || r->type == UMT_REC_APP_END)
		ok(w, umt_rec_exit_code(r, &v32), 0, "exit code");
	if (umt_rec_type_has_context(r->type))
		walk_context(w, r);
}

/* Follows a thread chain; more steps than records means it never ends. */
static int64_t walk_chain(struct walk *w, umt_thread_iter *it)
{
	uint64_t steps = 0, n = umt_exec_count(w->t);
	int64_t last = -1;
	umt_rec r;
	int rc;
	while ((rc = umt_thread_iter_next(it, &r)) != 0) {
		if (!ok(w, rc, 0, "thread iter"))
			break;
		last = (int64_t)r.id;
		if (++steps > n) {
			unexpected(w, "thread iteration does not end");
			break;
		}
	}
	return last;
}

static void walk_exec(struct walk *w)
{
	const umt_trace *t = w->t;
	uint64_t n = umt_exec_count(t), seen = 0;
	umt_exec_iter it;
	umt_rec r;
	int rc;
	ok(w, umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0, "iter init");
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		if (++seen > n) {
			unexpected(w, "record iteration does not end");
			break;
		}
		if (ok(w, rc, 0, "iter next"))
			walk_record(w, &r);
	}
	if (seen != n)
		unexpected(w, "iteration count differs from RecordCount");
	for (uint64_t id = 0; id <= n; id++) /* random access, one past the end too */
		if (ok(w, umt_exec_get(t, id, &r), id == n ? SOFT_RANGE : 0, "exec get"))
			w->sink += r.size;
	for (uint64_t th = 0; th < umt_thread_count(t); th++) {
		umt_thread_iter ti;
		int64_t last = -1;
		if (ok(w, umt_thread_iter_init_thread(&ti, t, th), 0, "thread iter init"))
			last = walk_chain(w, &ti);
		const umt_thread_rec *row;
		if (umt_thread_get(t, th, &row) == 0 && row->LastEID >= 0 &&
		    (uint64_t)row->LastEID < n && row->LastEID != last &&
		    ok(w, umt_thread_iter_init(&ti, t, (uint64_t)row->LastEID, UMT_BACKWARD), 0,
		       "backward init"))
			walk_chain(w, &ti);
		if (last >= 0 &&
		    ok(w, umt_thread_iter_init(&ti, t, (uint64_t)last, UMT_BACKWARD), 0, "back"))
			walk_chain(w, &ti);
	}
}

static void walk_ins(struct walk *w)
{
	const umt_trace *t = w->t;
	ok(w, umt_ins_slot_name_kind(t), 0, "slot name kind");
	for (uint64_t i = 0; i <= umt_ins_count(t); i++) {
		unsigned soft = i == umt_ins_count(t) ? SOFT_RANGE : 0;
		const umt_ins_rec *row;
		if (ok(w, umt_ins_get(t, i, &row), soft, "ins get"))
			w->sink += (uint64_t)row->Address;
		const uint8_t *code;
		unsigned size;
		if (ok(w, umt_ins_code(t, i, &code, &size), soft, "ins code"))
			touch(w, code, size);
		const char *text;
		size_t len;
		if (ok(w, umt_ins_disasm(t, i, &text, &len), soft, "disasm") && strlen(text) != len)
			unexpected(w, "disassembly length");
		uint64_t mod;
		ok(w, umt_ins_module(t, i, &mod), soft | SOFT_NOT_FOUND, "ins module");
		umt_decoded d;
		if (ok(w, umt_ins_decoded(t, i, &d), soft, "decoded")) {
			touch(w, d.ins, sizeof *d.ins);
			touch(w, d.slots, (uint64_t)d.ins->LCCount * sizeof *d.slots);
			for (unsigned s = 0; s < d.ins->LCCount; s++)
				ok(w, umt_decoded_slot_group(&d, s), 0, "slot group");
		}
	}
}

static void walk_syscalls(struct walk *w)
{
	const umt_trace *t = w->t;
	for (uint64_t i = 0; i <= umt_syscall_count(t); i++) {
		umt_syscall s;
		if (!ok(w, umt_syscall_get(t, i, &s), i == umt_syscall_count(t) ? SOFT_RANGE : 0,
		        "syscall get"))
			continue;
		touch(w, s.rec, sizeof *s.rec);
		touch(w, s.extras, s.extras_size);
		for (unsigned a = 0; a <= s.rec->ArgCount; a++) {
			uint64_t v;
			if (ok(w, umt_syscall_arg(&s, a, &v), SOFT_RANGE, "syscall arg"))
				w->sink += v;
		}
	}
}

static void walk_modules(struct walk *w)
{
	const umt_trace *t = w->t;
	for (uint64_t i = 0; i <= umt_module_count(t); i++) {
		unsigned soft = i == umt_module_count(t) ? SOFT_RANGE : 0;
		const umt_module_rec *row = NULL;
		const umt_module_rec_2015 *row15;
		ok(w, umt_module_get(t, i, &row), soft, "module get");
		if (ok(w, umt_module_get_2015(t, i, &row15), soft | SOFT_NO_VALUE, "module 2015"))
			w->sink += row15->LastFileWriteTime + row15->VersionInfo[3];
		for (int which = UMT_MODULE_WIN_NAME; which <= UMT_MODULE_DEVICE_NAME; which++) {
			const uint8_t *units;
			size_t n;
			int rc = umt_module_name_utf16(t, i, which, &units, &n);
			if (ok(w, rc, soft, "name utf16"))
				touch(w, units, 2 * (uint64_t)n);
			char buf[40];
			long len = umt_module_name(t, i, which, buf, sizeof buf);
			if (ok(w, len < 0 ? (int)len : 0, soft, "name") &&
			    strlen(buf) > (size_t)len)
				unexpected(w, "module name length");
		}
		if (row == NULL)
			continue;
		uint64_t id;
		ok(w, umt_module_find(t, (uint64_t)row->StartAddr, (uint64_t)row->LoadEID, &id),
		   SOFT_NOT_FOUND, "module find");
		ok(w, umt_module_find(t, (uint64_t)row->EndAddr, (uint64_t)row->UnloadEID - 1, &id),
		   SOFT_NOT_FOUND, "module find");
	}
	uint64_t id;
	ok(w, umt_module_find(t, 0, 0, &id), SOFT_NOT_FOUND, "module find");
	ok(w, umt_module_find(t, UINT64_MAX, UINT64_MAX, &id), SOFT_NOT_FOUND, "module find");
}

static void walk_small_tables(struct walk *w)
{
	const umt_trace *t = w->t;
	for (uint64_t i = 0; i <= umt_thread_count(t); i++) {
		const umt_thread_rec *row;
		if (!ok(w, umt_thread_get(t, i, &row), i == umt_thread_count(t) ? SOFT_RANGE : 0,
		        "thread get"))
			continue;
		uint64_t id;
		ok(w, umt_thread_find_win_tid(t, row->WinTID, &id), 0, "find tid");
	}
	for (uint64_t i = 0; i <= umt_address_range_count(t); i++) {
		const umt_address_range *r;
		if (!ok(w, umt_address_range_get(t, i, &r),
		        i == umt_address_range_count(t) ? SOFT_RANGE : 0, "range get"))
			continue;
		uint64_t id;
		ok(w, umt_address_space_find(t, (uint64_t)r->First, &id), 0, "range find");
		ok(w, umt_address_space_find(t, (uint64_t)r->Last, NULL), 0, "range find");
	}
	ok(w, umt_address_space_find(t, 0, NULL), 0, "range find");
	ok(w, umt_address_space_find(t, UINT64_MAX, NULL), 0, "range find");
	const umt_context_map *m = umt_context_map_get(t);
	for (int reg = 0; reg <= UMT_CONTEXT_MAP_REGS; reg++) {
		umt_reg_desc d;
		if (!ok(w, umt_context_map_reg(t, reg, &d), SOFT_RANGE, "map reg"))
			continue;
		if (strlen(d.name) > UMT_REG_NAME_SIZE)
			unexpected(w, "register name length");
		if (d.name[0] != '\0' && ok(w, umt_reg_by_name(t, d.name), 0, "reg by name"))
			w->sink += (uint64_t)umt_reg_by_name(t, d.name);
		char name[UMT_REG_NAME_MAX];
		if (umt_reg_name(t, reg, name, sizeof name) == NULL || strlen(name) >= sizeof name)
			unexpected(w, "register name");
	}
	w->sink += m->DumpSize;
}

static void walk_meta(struct walk *w)
{
	const umt_meta *m;
	if (!ok(w, umt_trace_meta(w->t, &m), 0, "meta"))
		return;
	umt_meta_info info;
	ok(w, umt_meta_get_info(m, &info), 0, "meta info");
	for (size_t i = 0; i < umt_meta_leaf_count(m); i++) {
		const char *path, *text;
		if (ok(w, umt_meta_leaf(m, i, &path, &text), 0, "meta leaf"))
			w->sink += strlen(path) + strlen(text);
	}
	const char *x = umt_meta_get(m, "Xed/Version");
	w->sink += x ? strlen(x) : 0;
	ok(w, umt_trace_meta_check(w->t), 0, "meta check");
}

static void walk_verify(struct walk *w)
{
	umt_verify_options o;
	umt_verify_options_init(&o);
	o.max_problems = 0;
	umt_verify_result res;
	int rc = umt_verify(w->t, &o, &res);
	if (rc != (res.errors ? UMT_E_CORRUPT : 0))
		unexpected(w, "verify status");
	if (res.records != umt_exec_count(w->t))
		unexpected(w, "verify record count");
	/* what verify passes, no accessor may refuse */
	if (res.errors == 0 && w->problems > 0)
		unexpected(w, "verify passes a trace that an accessor refuses");
	w->problems += (unsigned)(res.errors + res.warnings);
}

/* Everything the API offers on @p t; returns the problems found. */
static unsigned walk(const umt_trace *t, struct walk *w, bool salvage)
{
	memset(w, 0, sizeof *w);
	w->t = t;
	w->salvage = salvage;
	umt_trace_info info;
	ok(w, umt_trace_get_info(t, &info), 0, "info");
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		w->sink += umt_trace_file_size(t, f);
	if (umt_trace_changed(t) != 0)
		unexpected(w, "changed");
	walk_meta(w);
	walk_small_tables(w);
	walk_modules(w);
	walk_ins(w);
	walk_syscalls(w);
	walk_exec(w);
	walk_verify(w);
	return w->problems;
}

/* ---- fixtures ------------------------------------------------------------ */

/* UMT_SURVEY=1: list every mismatch instead of stopping at the first (to review the matrix) */
static bool survey;

enum { FX_HANDMADE, FX_STD2015, FX_STD2014, FX_SAMPLE, FX_COUNT };
static const char *const fx_names[FX_COUNT] = {"handmade", "std2015", "std2014", "sample"};
static struct fx_trace base[FX_COUNT];

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

static uint64_t rec_off(const struct fx_trace *t, uint64_t i)
{
	return fx_get64(t->data[UMT_FILE_EXEC_OFFSETS] + 8 * i);
}
static uint64_t rec_count(const struct fx_trace *t)
{
	return fx_get64(t->data[UMT_FILE_EXEC_VTABLE] + 8);
}
static uint8_t rec_type(const struct fx_trace *t, uint64_t i)
{
	return t->data[UMT_FILE_EXEC_VTABLE][rec_off(t, i) + 4];
}

/* The standard trace's MEM0 load stores pattern bytes: make its addresses its phrase's. */
static void fix_std_mem0(struct fx_trace *t)
{
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		if (std_types[id] != UMT_REC_INSTRUCTION || std_arg[id] != 0)
			continue;
		uint8_t *lc = t->data[UMT_FILE_EXEC_VTABLE] + rec_off(t, id) + 14;
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
	fix_std_mem0(t);
}

static int setup(void **state)
{
	(void)state;
	survey = getenv("UMT_SURVEY") != NULL;
	fx_handmade(&base[FX_HANDMADE]);
	load_std(&base[FX_STD2015], UMT_FLAVOUR_2015);
	load_std(&base[FX_STD2014], UMT_FLAVOUR_2014);
	fx_load_dir(sample_dir(), &base[FX_SAMPLE]);
	assert_non_null(base[FX_SAMPLE].data[UMT_FILE_EXEC_VTABLE]);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < FX_COUNT; i++)
		fx_free(&base[i]);
	return 0;
}

/* ---- running one mutation ------------------------------------------------ */

static unsigned mutations, harmless_ones, salvaged_opens;

/*
 * The same trace opened with UMT_OPEN_SALVAGE and walked: nothing
 * unexpected, and it reports problems exactly when a strict open does
 * (@p strict: its count, @p strict_opened: whether it opened); the same
 * count when the strict open succeeded, as salvage then changes nothing.
 */
static void check_salvage(struct fx_trace *t, const char *what, unsigned strict,
                          bool strict_opened)
{
	umt_trace *tr = NULL;
	fx_sync(t);
	int rc = umt_trace_open_mem(t->buf, UMT_OPEN_SALVAGE, &tr);
	if (rc < 0) {
		if (strict_opened || (!content_error(rc) && rc != UMT_E_MISSING))
			fail_msg("%s: salvage open failed with %d: %s", what, rc, umt_errmsg());
		return;
	}
	struct walk w;
	unsigned n = walk(tr, &w, true);
	umt_trace_close(tr);
	salvaged_opens++;
	if (w.unexpected)
		fail_msg("%s: salvage: %u unexpected results, first: %s", what, w.unexpected,
		         w.first_unexpected);
	if ((n == 0) != (strict == 0) || (strict_opened && n != strict))
		fail_msg("%s: salvage found %u problems, a strict open %u", what, n, strict);
}

/* Opens and walks @p t; returns the problems (open failing counts as one). */
static unsigned check_trace(struct fx_trace *t, const char *what)
{
	umt_trace *tr = NULL;
	mutations++;
	int rc = fx_open(t, &tr);
	if (rc < 0) {
		if (!content_error(rc) && rc != UMT_E_MISSING)
			fail_msg("%s: open failed with %d: %s", what, rc, umt_errmsg());
		if (!survey)
			check_salvage(t, what, 1, false);
		return 1;
	}
	struct walk w;
	unsigned n = walk(tr, &w, false);
	umt_trace_close(tr);
	if (w.unexpected && !survey)
		fail_msg("%s: %u unexpected results, first: %s", what, w.unexpected,
		         w.first_unexpected);
	if (!survey)
		check_salvage(t, what, n, true);
	return n;
}

/* @p t must be reported (harmless 0) or must still pass entirely (harmless 1). */
static void expect(struct fx_trace *t, bool harmless, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void expect(struct fx_trace *t, bool harmless, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	unsigned n = check_trace(t, what);
	harmless_ones += harmless;
	if (harmless && n != 0) {
		if (!survey)
			fail_msg("%s: a harmless mutation reported %u problems", what, n);
		print_message("REPORTED %s: %u problems\n", what, n);
	} else if (!harmless && n == 0) {
		if (!survey)
			fail_msg("%s: the mutation went unnoticed", what);
		print_message("UNNOTICED %s\n", what);
	}
}

/* A copy of fixture @p fx with file @p f cut to @p size bytes (its own allocation). */
static void cut_copy(struct fx_trace *dst, int fx, int f, size_t size)
{
	fx_copy(dst, &base[fx]);
	fx_truncate(dst, f, size);
}

static void put(uint8_t *p, int width, uint64_t v)
{
	switch (width) {
	case 1: p[0] = (uint8_t)v; break;
	case 2: fx_put16(p, (uint16_t)v); break;
	case 4: fx_put32(p, (uint32_t)v); break;
	default: fx_put64(p, v); break;
	}
}

static uint64_t get(const uint8_t *p, int width)
{
	uint64_t v = 0;
	for (int i = width - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* ---- the baselines ------------------------------------------------------- */

static void test_baselines(void **state)
{
	(void)state;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		struct fx_trace t;
		fx_copy(&t, &base[fx]);
		expect(&t, true, "%s as built", fx_names[fx]);
		fx_free(&t);
	}
}

/* ---- truncation ---------------------------------------------------------- */

/* Header field boundaries of each file. */
static const uint64_t itable_cuts[] = {0, 1, 4, 8, 16, 24, 32, 40, 48};
static const uint64_t vtable_cuts[] = {0, 1, 4, 8, 15, 16};
static const uint64_t cmap_cuts[] = {0, 1, 2, 4, 16, 1040, 9232, 13328, 17423};

static void cuts_of(int f, const uint64_t **cuts, size_t *n)
{
	switch (f) {
	case UMT_FILE_EXEC_VTABLE:
	case UMT_FILE_SYSCALL_VTABLE:
		*cuts = vtable_cuts;
		*n = sizeof vtable_cuts / sizeof vtable_cuts[0];
		break;
	case UMT_FILE_CONTEXT_MAP:
		*cuts = cmap_cuts;
		*n = sizeof cmap_cuts / sizeof cmap_cuts[0];
		break;
	case UMT_FILE_INS:
	case UMT_FILE_MODULE:
		*cuts = itable_cuts;
		*n = sizeof itable_cuts / sizeof itable_cuts[0];
		break;
	case UMT_FILE_THREAD:
	case UMT_FILE_ADDRESS_SPACE:
		*cuts = itable_cuts;
		*n = 7; /* up to 32: the generic header */
		break;
	default: /* index files and trace.xml: entry boundaries */
		*cuts = vtable_cuts;
		*n = 3;
		break;
	}
}

static void test_truncation(void **state)
{
	(void)state;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		for (int f = 0; f < UMT_FILE_COUNT; f++) {
			size_t size = base[fx].size[f];
			if (base[fx].data[f] == NULL)
				continue;
			const uint64_t *cuts;
			size_t n;
			cuts_of(f, &cuts, &n);
			/* header boundaries, then points inside the records or rows */
			uint64_t more[] = {size / 3, size / 2, size - 8, size - 1};
			for (size_t k = 0; k < n + 4; k++) {
				uint64_t at = k < n ? cuts[k] : more[k - n];
				if (at >= size)
					continue;
				struct fx_trace t;
				cut_copy(&t, fx, f, at);
				/* trace.xml cut in its final whitespace: the same document */
				bool harmless = f == UMT_FILE_TRACE_XML && at > 0;
				for (uint64_t j = at; j < size && harmless; j++)
					harmless = strchr(" \r\n\t", base[fx].data[f][j]) != NULL;
				expect(&t, harmless, "%s: %s cut at %llu of %zu", fx_names[fx],
				       umt_file_name(f), (unsigned long long)at, size);
				fx_free(&t);
			}
			/* inside records of exec.vtable: every record boundary + 3 */
			for (uint64_t i = 0; f == UMT_FILE_EXEC_VTABLE && i < rec_count(&base[fx]);
			     i += 1 + rec_count(&base[fx]) / 5) {
				struct fx_trace t;
				cut_copy(&t, fx, f, rec_off(&base[fx], i) + 3);
				expect(&t, false, "%s: exec.vtable cut inside record %llu",
				       fx_names[fx], (unsigned long long)i);
				fx_free(&t);
			}
		}
	}
}

/* ---- missing, empty and misplaced files ---------------------------------- */

static void test_missing_and_empty(void **state)
{
	(void)state;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		for (int f = 0; f < UMT_FILE_COUNT; f++) {
			struct fx_trace t;
			fx_copy(&t, &base[fx]);
			free(t.data[f]);
			t.data[f] = NULL;
			t.size[f] = 0;
			/* trace.xml is optional */
			expect(&t, f == UMT_FILE_TRACE_XML, "%s: %s missing", fx_names[fx],
			       umt_file_name(f));
			t.data[f] = malloc(1);
			fx_sync(&t);
			/* an empty trace.xml is malformed ("Document is empty") */
			expect(&t, false, "%s: %s empty", fx_names[fx], umt_file_name(f));
			fx_free(&t);
		}
	}
}

static void write_dir(const char *dir, const struct fx_trace *t)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (t->data[f] == NULL)
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
		FILE *fp = fopen(path, "wb");
		assert_non_null(fp);
		assert_int_equal(fwrite(t->data[f], 1, t->size[f], fp), t->size[f]);
		assert_int_equal(fclose(fp), 0);
	}
}

/* Opens a directory and walks it; returns the problems (open failing counts as one). */
static unsigned check_dir(const char *dir, int *open_rc)
{
	umt_trace *tr = NULL;
	*open_rc = umt_trace_open(dir, 0, &tr);
	if (*open_rc < 0)
		return 1;
	struct walk w;
	unsigned n = walk(tr, &w, false);
	umt_trace_close(tr);
	assert_int_equal(w.unexpected, 0);
	return n;
}

static void test_file_system(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), path[4096], moved[4096];
	int rc;
	write_dir(dir, &base[FX_STD2015]);
	assert_int_equal(check_dir(dir, &rc), 0);
	/* each file missing in turn: only trace.xml is optional */
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
		snprintf(moved, sizeof moved, "%s/moved", dir);
		assert_int_equal(rename(path, moved), 0);
		unsigned n = check_dir(dir, &rc);
		if (f == UMT_FILE_TRACE_XML) {
			assert_int_equal(n, 0);
		} else { /* exec.vtable is the writer's commit record (section 17) */
			assert_int_equal(rc, f == UMT_FILE_EXEC_VTABLE ? UMT_E_INCOMPLETE : UMT_E_MISSING);
			assert_non_null(strstr(umt_errmsg(), umt_file_name(f)));
		}
		/* a directory where the file should be */
		assert_int_equal(mkdir(path, 0700), 0);
		assert_true(check_dir(dir, &rc) > 0);
		assert_int_equal(rmdir(path), 0);
		/* an empty file */
		FILE *fp = fopen(path, "wb");
		assert_non_null(fp);
		fclose(fp);
		assert_true(check_dir(dir, &rc) > 0);
		assert_int_equal(rename(moved, path), 0);
	}
	assert_int_equal(check_dir(dir, &rc), 0);
	/* a file given instead of a directory */
	snprintf(path, sizeof path, "%s/exec.vtable", dir);
	assert_int_equal(check_dir(path, &rc), 1);
	assert_int_equal(rc, UMT_E_IO);
	/* a path that does not exist */
	snprintf(path, sizeof path, "%s/nothing-here", dir);
	assert_int_equal(check_dir(path, &rc), 1);
	assert_int_equal(rc, UMT_E_MISSING);
	fx_rmtree(dir);
	free(dir);
	/* a directory that is not a trace: empty, then with unrelated files */
	dir = fx_tmpdir();
	assert_int_equal(check_dir(dir, &rc), 1);
	assert_int_equal(rc, UMT_E_MISSING);
	snprintf(path, sizeof path, "%s/readme.txt", dir);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs("not a trace\n", fp);
	fclose(fp);
	assert_int_equal(check_dir(dir, &rc), 1);
	assert_int_equal(rc, UMT_E_MISSING);
	fx_rmtree(dir);
	free(dir);
}

/* ---- field mutations ----------------------------------------------------- */

/* One field of the spec, located in a fixture. */
struct field {
	char name[64];
	int file;
	uint64_t off;
	int width;
	uint64_t past;     /* a value past the end of what the field indexes */
	uint64_t extra[4]; /* values of interest for this field */
	int nextra;
};

#define MAXF 256
struct fields {
	struct field f[MAXF];
	int n;
};

static struct field *add(struct fields *fs, int file, uint64_t off, int width, uint64_t past,
                         const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static struct field *add(struct fields *fs, int file, uint64_t off, int width, uint64_t past,
                         const char *fmt, ...)
{
	assert_true(fs->n < MAXF);
	struct field *f = &fs->f[fs->n++];
	memset(f, 0, sizeof *f);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->name, sizeof f->name, fmt, ap);
	va_end(ap);
	f->file = file;
	f->off = off;
	f->width = width;
	f->past = past;
	return f;
}

static void extra(struct field *f, uint64_t v)
{
	f->extra[f->nextra++] = v;
}

/* Headers of the fixed-size tables (spec 4.2.1). */
static void header_fields(struct fields *fs, const struct fx_trace *t, int file, bool with_extra)
{
	const char *n = umt_file_name(file);
	uint64_t size = t->size[file];
	add(fs, file, 0, 4, 1, "%s HeaderVer", n);
	add(fs, file, 4, 4, 2, "%s RecordVer", n);
	/* RowCount * RowSize overflows with 2^60 rows */
	extra(add(fs, file, 8, 8, size, "%s RowCount", n), UINT64_C(1) << 60);
	extra(add(fs, file, 16, 8, size, "%s RowSize", n), UINT64_C(1) << 60);
	add(fs, file, 24, 8, size, "%s TableFP", n);
	if (with_extra) {
		add(fs, file, 32, 8, size, "%s ExtraFP", n);
		/* ExtraFP + ExtraSize overflows */
		extra(add(fs, file, 40, 8, size, "%s ExtraSize", n), UINT64_MAX - 7);
	}
}

/* The fields of the first record of @p type, if there is one. */
static void record_fields(struct fields *fs, const struct fx_trace *t, uint8_t type)
{
	uint64_t n = rec_count(t), i = 0;
	while (i < n && rec_type(t, i) != type)
		i++;
	if (i == n)
		return;
	const int v = UMT_FILE_EXEC_VTABLE;
	uint64_t off = rec_off(t, i);
	const char *tn = umt_rec_type_name(type);
	uint64_t threads = fx_get64(t->data[UMT_FILE_THREAD] + 8);
	add(fs, v, off, 4, threads, "%s record %llu ThreadID", tn, (unsigned long long)i);
	extra(add(fs, v, off + 4, 1, UMT_REC_TYPE_LIMIT, "%s record Type", tn), 7);
	if (type == UMT_REC_INSTRUCTION)
		add(fs, v, off + 6, 8, fx_get64(t->data[UMT_FILE_INS] + 8), "%s InsID", tn);
	if (type >= UMT_REC_SYSCALL_ENTRY && type <= UMT_REC_SYSCALL_SKIPPED)
		add(fs, v, off + 6, 8, fx_get64(t->data[UMT_FILE_SYSCALL_VTABLE] + 8),
		    "%s SyscallID", tn);
	if (!umt_rec_type_has_context(type))
		return;
	bool sys = type == UMT_REC_SYSCALL_ENTRY || type == UMT_REC_SYSCALL_EXIT;
	uint64_t ctx = off + (sys ? 14 : 6);
	uint64_t size = rec_off(t, i + 1) - off;
	add(fs, v, ctx, 4, size, "%s rmContext MemCount", tn);
	add(fs, v, ctx + 8, 8, size, "%s rmContext RegsFP", tn);
	if (fx_get64(t->data[v] + ctx) & 0xffffffff) { /* a contextMem */
		/* DataFP + Size overflows */
		extra(add(fs, v, ctx + 16 + 8, 8, size, "%s contextMem Size", tn), UINT64_MAX - 7);
		add(fs, v, ctx + 16 + 16, 8, size, "%s contextMem DataFP", tn);
	}
}

/* The instruction row with the largest body: its row, strings, body, slots, operands. */
static void ins_fields(struct fields *fs, const struct fx_trace *t)
{
	const int f = UMT_FILE_INS;
	const uint8_t *h = t->data[f];
	uint64_t count = fx_get64(h + 8), row_size = fx_get64(h + 16), table = fx_get64(h + 24);
	uint64_t xfp = fx_get64(h + 32), xsize = fx_get64(h + 40), best = 0, best_score = 0;
	for (uint64_t i = 0; i < count; i++) {
		const uint8_t *d = h + xfp + fx_get64(h + table + i * row_size + 48);
		uint64_t score = (uint64_t)d[62] * 16 + d[7];
		if (score > best_score)
			best = i, best_score = score;
	}
	uint64_t row = table + best * row_size, dec = xfp + fx_get64(h + row + 48);
	uint64_t modules = fx_get64(t->data[UMT_FILE_MODULE] + 8);
	const uint8_t *d = h + dec;
	uint8_t lc_count = d[62];
	add(fs, f, row, 8, count, "insRec ID");
	add(fs, f, row + 10, 1, 16, "insRec CodeSize");
	add(fs, f, row + 12, 4, modules, "insRec ModuleID");
	add(fs, f, row + 40, 8, xsize, "insRec DisasmFP");
	add(fs, f, row + 48, 8, xsize, "insRec DecodedFP");
	add(fs, f, xfp + fx_get64(h + row + 40), 2, xsize, "cStr Length");
	extra(add(fs, f, dec + 7, 1, 5, "decodedIns ExpCount"), 5);
	add(fs, f, dec + 58, 2, 0x8000, "decodedIns LCSize");
	add(fs, f, dec + 60, 1, lc_count + 1u, "decodedIns FirstOutSlot");
	add(fs, f, dec + 61, 1, lc_count + 1u, "decodedIns FirstAfterSlot");
	extra(add(fs, f, dec + 62, 1, lc_count + 1u, "decodedIns LCCount"), 255);
	static const char *const phrase[] = {"Mem0SegSlot", "Mem0BaseSlot", "Mem0Scale",
	                                     "Mem0IndexSlot", "Mem1BaseSlot"};
	for (int k = 0; k < 5; k++)
		extra(add(fs, f, dec + 63 + (uint64_t)k, 1, lc_count, "decodedIns %s", phrase[k]),
		      k == 2 ? 3 : 0xfc);
	if (d[7] > 0) { /* operand 0 */
		uint64_t o = dec + 8;
		add(fs, f, o + 2, 2, 0x7000, "expOper Size");
		extra(add(fs, f, o + 5, 1, lc_count, "expOper BeforeSlot"), 0xfc);
		extra(add(fs, f, o + 6, 1, lc_count, "expOper AfterSlot"), 0xfc);
		add(fs, f, o + 7, 1, 0x80, "expOper BeforeOffset");
		add(fs, f, o + 8, 1, 0x80, "expOper AfterOffset");
	}
	for (uint64_t s = 0; s < lc_count && s < 3; s++) {
		uint64_t o = dec + 88 + 12 * s;
		uint16_t lc_size = (uint16_t)get(d + 58, 2);
		add(fs, f, o + 4, 2, lc_size + 1u, "lcSlot %llu ValueSize", (unsigned long long)s);
		/* an offset past LCSize */
		extra(add(fs, f, o + 6, 2, lc_size + 1u, "lcSlot %llu Offset",
		          (unsigned long long)s), lc_size);
		add(fs, f, o + 8, 1, 9, "lcSlot %llu AddrWidth", (unsigned long long)s);
	}
}

static void syscall_fields(struct fields *fs, const struct fx_trace *t)
{
	const uint8_t *o = t->data[UMT_FILE_SYSCALL_OFFSETS];
	uint64_t n = rec_count(t), vsize = t->size[UMT_FILE_SYSCALL_VTABLE];
	if (t->size[UMT_FILE_SYSCALL_OFFSETS] < 16)
		return;
	const int f = UMT_FILE_SYSCALL_VTABLE;
	add(fs, f, 0, 4, 1, "syscall.vtable Version");
	add(fs, f, 4, 4, 2, "syscall.vtable UnifiedIDsVer");
	add(fs, f, 8, 8, vsize, "syscall.vtable RecordCount");
	/* Offset + Size overflows */
	extra(add(fs, UMT_FILE_SYSCALL_OFFSETS, 0, 8, vsize, "syscall pair 0 Offset"),
	      UINT64_MAX - 15);
	extra(add(fs, UMT_FILE_SYSCALL_OFFSETS, 8, 8, vsize, "syscall pair 0 Size"),
	      UINT64_MAX - 15);
	uint64_t r = fx_get64(o), size = fx_get64(o + 8);
	add(fs, f, r + 6, 1, 0xff, "syscallRec ArgCount");
	add(fs, f, r + 8, 8, n, "syscallRec BeginEID");
	add(fs, f, r + 16, 8, n, "syscallRec EndEID");
	add(fs, f, r + 40, 8, size + 1, "syscallRec ArgsFP");
	add(fs, f, r + 48, 8, size + 1, "syscallRec ExtrasFP");
	add(fs, f, r + 5, 1, 2, "syscallRec Completed");
}

static void table_fields(struct fields *fs, const struct fx_trace *t)
{
	uint64_t n = rec_count(t);
	const uint8_t *m = t->data[UMT_FILE_MODULE];
	uint64_t mrow = fx_get64(m + 24), msize = t->size[UMT_FILE_MODULE];
	add(fs, UMT_FILE_MODULE, mrow + 32, 8, msize, "moduleRec WinNameFP");
	add(fs, UMT_FILE_MODULE, mrow + 40, 8, msize, "moduleRec DeviceNameFP");
	extra(add(fs, UMT_FILE_MODULE, fx_get64(m + mrow + 32), 2, 0x7fff, "uStr Length"), 0x7fff);
	const uint8_t *th = t->data[UMT_FILE_THREAD];
	uint64_t trow = fx_get64(th + 24);
	add(fs, UMT_FILE_THREAD, trow, 4, fx_get64(th + 8), "threadRec ID");
	add(fs, UMT_FILE_THREAD, trow + 16, 8, n, "threadRec FirstEID");
	add(fs, UMT_FILE_THREAD, trow + 24, 8, n, "threadRec LastEID");
	add(fs, UMT_FILE_THREAD, trow + 32, 8, n + 1, "threadRec RecCount");
	uint64_t arow = fx_get64(t->data[UMT_FILE_ADDRESS_SPACE] + 24);
	add(fs, UMT_FILE_ADDRESS_SPACE, arow, 8, 0x1001, "addressRange First");
	add(fs, UMT_FILE_ADDRESS_SPACE, arow + 8, 8, 0x1001, "addressRange Last");
	const int c = UMT_FILE_CONTEXT_MAP;
	add(fs, c, 0, 2, 0x8000, "context map DumpSize");
	add(fs, c, 2, 2, 513, "context map ElemCount");
	const uint64_t rax = 74;
	add(fs, c, 16 + 2 * rax, 2, 512, "context map CommonName[rax]");
	add(fs, c, 13328 + 8 * rax, 2, 0x8000, "RegMap64[rax] Offset");
	add(fs, c, 13328 + 8 * rax + 2, 1, 0x81, "RegMap64[rax] Size");
	add(fs, c, 13328 + 8 * rax + 4, 2, 512, "RegMap64[rax] EffLargest");
}

static void exec_fields(struct fields *fs, const struct fx_trace *t)
{
	uint64_t n = rec_count(t), vsize = t->size[UMT_FILE_EXEC_VTABLE];
	add(fs, UMT_FILE_EXEC_VTABLE, 0, 4, 2, "exec.vtable Version");
	add(fs, UMT_FILE_EXEC_VTABLE, 8, 8, n + 1, "exec.vtable RecordCount");
	uint64_t entries[] = {0, 1, n / 2, n - 1, n};
	for (size_t k = 0; k < 5; k++)
		add(fs, UMT_FILE_EXEC_OFFSETS, 8 * entries[k], 8, vsize, "exec.offsets[%llu]",
		    (unsigned long long)entries[k]);
	uint64_t links[] = {1, n / 2, n - 1};
	for (size_t k = 0; k < 3; k++) {
		add(fs, UMT_FILE_EXEC_PREV_NEXT, 16 * links[k], 8, n, "Prev[%llu]",
		    (unsigned long long)links[k]);
		add(fs, UMT_FILE_EXEC_PREV_NEXT, 16 * links[k] + 8, 8, n, "Next[%llu]",
		    (unsigned long long)links[k]);
	}
	static const uint8_t types[] = {UMT_REC_INSTRUCTION, UMT_REC_THREAD_BEGIN,
	                                UMT_REC_THREAD_END, UMT_REC_APP_END,
	                                UMT_REC_SYSCALL_ENTRY, UMT_REC_SYSCALL_EXIT,
	                                UMT_REC_SYSCALL_SKIPPED, UMT_REC_CTX_APC};
	for (size_t k = 0; k < sizeof types; k++)
		record_fields(fs, t, types[k]);
}

static void fields_of(struct fields *fs, const struct fx_trace *t)
{
	fs->n = 0;
	header_fields(fs, t, UMT_FILE_INS, true);
	header_fields(fs, t, UMT_FILE_MODULE, true);
	header_fields(fs, t, UMT_FILE_THREAD, false);
	header_fields(fs, t, UMT_FILE_ADDRESS_SPACE, false);
	exec_fields(fs, t);
	ins_fields(fs, t);
	syscall_fields(fs, t);
	table_fields(fs, t);
}

/*
 * Mutations the format cannot tell from valid data: the trace then reads as
 * another valid trace, and everything must still succeed. Each entry is a
 * field name prefix, a fixture (-1: any) and the value.
 */
static const struct harmless {
	const char *field;
	int fx;
	uint64_t value;
	const char *why;
} harmless[] = {
	{"address_space.itable RowCount", -1, 0, "an empty table is valid"},
	{"addressRange First", -1, 0, "the first range grows down to 0: still sorted"},
	{"addressRange Last", FX_HANDMADE, INT64_MAX, "the only range grows to the top"},
	{"addressRange Last", FX_HANDMADE, UINT64_MAX, "the only range grows to the top"},
	{"context map CommonName", -1, 0, "another register as common name"},
	{"decodedIns FirstOutSlot", FX_HANDMADE, 0, "no operand uses the regrouped slot"},
	{"decodedIns ExpCount", -1, 0, "operands are optional; slots stay"},
	{"decodedIns Mem1BaseSlot", FX_SAMPLE, UMT_SLOT_NA, "a MEM1 without base register"},
	{"expOper Size", -1, 0, "a 0-byte operand value"},
	{"lcSlot 0 ValueSize", FX_HANDMADE, 0, "a slot no operand uses"},
	{"lcSlot 0 ValueSize", FX_SAMPLE, 0, "MEM1's base read as 0 bytes; MEM1 is not checked"},
	{"lcSlot 2 Offset", FX_SAMPLE, 0, "MEM1 address not checked against its base"},
	{"exec.vtable Version", FX_HANDMADE, 0, "no flag of version 1 used, no trace.xml"},
	{"ins.itable RecordVer", FX_HANDMADE, 0, "offset 2 of slots read as LargestEnclosing"},
	{"syscall.vtable UnifiedIDsVer", FX_HANDMADE, 0, "no trace.xml to disagree"},
	{"syscall.vtable UnifiedIDsVer", FX_STD2015, 0, "the 2015 trace.xml does not say"},
	{"syscall.vtable UnifiedIDsVer", FX_SAMPLE, 0, "the 2015 trace.xml does not say"},
	{"insRec ModuleID", -1, UINT32_MAX, "-1: floating code"},
	{"syscallRec ArgCount", -1, 0, "fewer arguments"},
	{"thread-begin contextMem Size", -1, 0, "an empty memory block"},
	{"thread-begin rmContext MemCount", -1, 0, "no memory block"},
	{"syscall-exit contextMem Size", FX_SAMPLE, 0, "an empty memory block"},
	{"syscall-exit rmContext MemCount", FX_SAMPLE, 0, "no memory block"},
	{"threadRec LastEID", -1, UINT64_MAX, "row 0 ends with the application: may say running"},
	{NULL, 0, 0, NULL},
};

static bool is_harmless(int fx, const struct field *f, uint64_t value)
{
	for (const struct harmless *h = harmless; h->field != NULL; h++)
		if (strncmp(f->name, h->field, strlen(h->field)) == 0 &&
		    (h->fx < 0 || h->fx == fx) && h->value == value)
			return true;
	return false;
}

static void mutate_field(int fx, const struct field *f)
{
	uint64_t ones = f->width == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * f->width)) - 1;
	uint64_t top = ones >> 1; /* largest positive value */
	uint64_t values[12] = {0, ones, f->past, top, top + 1, top - 7};
	int n = 6;
	for (int k = 0; k < f->nextra; k++)
		values[n++] = f->extra[k];
	uint64_t orig = get(base[fx].data[f->file] + f->off, f->width);
	for (int k = 0; k < n; k++) {
		uint64_t v = values[k] & ones;
		bool seen = v == orig;
		for (int j = 0; j < k && !seen; j++)
			seen = (values[j] & ones) == v;
		if (seen)
			continue;
		struct fx_trace t;
		fx_copy(&t, &base[fx]);
		put(t.data[f->file] + f->off, f->width, v);
		expect(&t, is_harmless(fx, f, v), "%s: %s (%s at 0x%llx) = 0x%llx", fx_names[fx],
		       f->name, umt_file_name(f->file), (unsigned long long)f->off,
		       (unsigned long long)v);
		fx_free(&t);
	}
}

static void test_fields(void **state)
{
	(void)state;
	static struct fields fs;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		fields_of(&fs, &base[fx]);
		for (int i = 0; i < fs.n; i++)
			mutate_field(fx, &fs.f[i]);
	}
	print_message("%u mutations, %u of them harmless; %u opened and walked in salvage mode\n",
	              mutations, harmless_ones, salvaged_opens);
}

/* ---- prev/next cycles, self-links, links to other threads ---------------- */

static int32_t rec_thread(const struct fx_trace *t, uint64_t i)
{
	return (int32_t)get(t->data[UMT_FILE_EXEC_VTABLE] + rec_off(t, i), 4);
}

static void set_link(struct fx_trace *t, uint64_t i, int next, int64_t v)
{
	fx_put64(t->data[UMT_FILE_EXEC_PREV_NEXT] + 16 * i + (next ? 8 : 0), (uint64_t)v);
}

static int64_t link_of(const struct fx_trace *t, uint64_t i, int next)
{
	return (int64_t)fx_get64(t->data[UMT_FILE_EXEC_PREV_NEXT] + 16 * i + (next ? 8 : 0));
}

/* Record j nearest to i (after it when @p after) in another thread, or -1. */
static int64_t other_thread(const struct fx_trace *t, uint64_t i, bool after)
{
	uint64_t n = rec_count(t);
	for (uint64_t d = 1; d < n; d++) {
		uint64_t j = after ? i + d : i - d;
		if ((after && j >= n) || (!after && d > i))
			break;
		if (rec_thread(t, j) != rec_thread(t, i))
			return (int64_t)j;
	}
	return -1;
}

static void test_links(void **state)
{
	(void)state;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		uint64_t n = rec_count(&base[fx]);
		uint64_t picks[] = {1, n / 2, n - 2};
		for (size_t k = 0; k < 3; k++) {
			uint64_t i = picks[k];
			int64_t prev = link_of(&base[fx], i, 0), next = link_of(&base[fx], i, 1);
			struct {
				const char *what;
				int which; /* 0 Prev, 1 Next, 2 both ways between i and its Prev */
				int64_t value;
			} cases[] = {
				{"Next self-link", 1, (int64_t)i},
				{"Prev self-link", 0, (int64_t)i},
				{"Next back to Prev (cycle)", 1, prev},
				{"Prev forward to Next (cycle)", 0, next},
				{"Next to another thread", 1, other_thread(&base[fx], i, true)},
				{"Prev to another thread", 0, other_thread(&base[fx], i, false)},
				{"two-record cycle", 2, prev},
			};
			for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
				if (cases[c].value < 0)
					continue;
				struct fx_trace t;
				fx_copy(&t, &base[fx]);
				if (cases[c].which == 2) { /* i -> prev -> i */
					set_link(&t, i, 1, prev);
					set_link(&t, (uint64_t)prev, 1, (int64_t)i);
				} else {
					set_link(&t, i, cases[c].which, cases[c].value);
				}
				expect(&t, false, "%s: record %llu: %s (%lld)", fx_names[fx],
				       (unsigned long long)i, cases[c].what,
				       (long long)cases[c].value);
				fx_free(&t);
			}
		}
	}
}

/* ---- unpaired UTF-16 surrogates in module names -------------------------- */

static void test_surrogates(void **state)
{
	(void)state;
	for (int fx = 0; fx < FX_COUNT; fx++) {
		const uint8_t *m = base[fx].data[UMT_FILE_MODULE];
		uint64_t fp = fx_get64(m + fx_get64(m + 24) + 32); /* row 0 WinNameFP */
		uint64_t len = get(m + fp, 2);
		assert_true(len >= 2);
		static const struct {
			const char *what;
			int at; /* unit index; -1: the last */
			uint16_t u0, u1;
			const char *utf8; /* expected at the start or end of the name */
		} cases[] = {
			{"lone high surrogate", 0, 0xd800, 0, "\xef\xbf\xbd"},
			{"lone low surrogate", 0, 0xdc00, 0, "\xef\xbf\xbd"},
			{"high surrogate at the end", -1, 0xdbff, 0, "\xef\xbf\xbd"},
			{"a pair (U+1F600)", 0, 0xd83d, 0xde00, "\xf0\x9f\x98\x80"},
		};
		for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
			struct fx_trace t;
			fx_copy(&t, &base[fx]);
			uint64_t unit = cases[c].at < 0 ? len - 1 : (uint64_t)cases[c].at;
			uint8_t *u = t.data[UMT_FILE_MODULE] + fp + 2 + 2 * unit;
			fx_put16(u, cases[c].u0);
			if (cases[c].u1)
				fx_put16(u + 2, cases[c].u1);
			expect(&t, true, "%s: module name with a %s", fx_names[fx], cases[c].what);
			umt_trace *tr;
			assert_int_equal(fx_open(&t, &tr), 0);
			char buf[1024];
			long n = umt_module_name(tr, 0, UMT_MODULE_WIN_NAME, buf, sizeof buf);
			assert_true(n > 0 && (size_t)n == strlen(buf));
			const char *want = cases[c].utf8;
			size_t wl = strlen(want);
			const char *where = cases[c].at < 0 ? buf + n - (long)wl : buf;
			assert_memory_equal(where, want, wl);
			umt_trace_close(tr);
			fx_free(&t);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_missing_and_empty),
		cmocka_unit_test(test_file_system),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_links),
		cmocka_unit_test(test_surrogates),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
