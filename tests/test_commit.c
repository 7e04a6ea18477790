/*
 * commit.c and its use by the writer: temporaries and their names, the
 * directory lock, the order of the commit steps, leftovers of killed
 * writers, UMT_E_INCOMPLETE at open, a reader that keeps its old trace while
 * a new one is committed, and a writer killed at every step of writing and
 * committing (fork, then _exit from the commit hook).
 */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "commit.h"
#include "fixture.h"

/* ---- helpers --------------------------------------------------------------- */

static void put_text(const char *dir, const char *name, const char *text)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static bool exists(const char *dir, const char *name)
{
	char path[4200];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* The names in @p dir other than "." and "..", sorted, joined with '|'. */
static void list_dir(const char *dir, char *out, size_t cap)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);
	assert_true(n >= 0);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *s = names[i]->d_name;
		if (strcmp(s, ".") != 0 && strcmp(s, "..") != 0) {
			if (out[0])
				strncat(out, "|", cap - strlen(out) - 1);
			strncat(out, s, cap - strlen(out) - 1);
		}
		free(names[i]);
	}
	free(names);
}

/* Whether a writer's temporary is in @p dir. */
static bool has_temp(const char *dir)
{
	char names[4096];
	list_dir(dir, names, sizeof names);
	return strstr(names, ".tmp-") != NULL;
}

static int open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

/* Writes @p n bytes of @p text into a new temporary of @p name of @p c. */
static void create_with(struct umt_commit *c, const char *name, const char *text)
{
	int fd;
	assert_int_equal(umt__commit_create(c, name, &fd), 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
}

static char *read_all(const char *dir, const char *name)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return NULL;
	char *buf = calloc(1, 4096);
	assert_non_null(buf);
	fread(buf, 1, 4095, fp);
	fclose(fp);
	return buf;
}

/* ---- the commit helper on its own ----------------------------------------------- */

static void test_temp_names(void **state)
{
	(void)state;
	assert_true(umt__commit_is_temp(".exec.vtable.tmp-aB3xYz"));
	assert_true(umt__commit_is_temp(".x.tmp-000000"));
	assert_false(umt__commit_is_temp("exec.vtable.tmp-aB3xYz")); /* no leading dot */
	assert_false(umt__commit_is_temp(".tmp-aB3xYz"));            /* no final name */
	assert_false(umt__commit_is_temp(".x.tmp-aB3xY"));           /* 5 random characters */
	assert_false(umt__commit_is_temp(".x.tmp-aB3xYz7"));         /* 7 */
	assert_false(umt__commit_is_temp(".x.tmp-aB3-Yz"));          /* not a letter or digit */
	assert_false(umt__commit_is_temp(".x.tmpXaB3xYz"));
	assert_false(umt__commit_is_temp(".ins.itable.rows.tmp"));   /* the old writer's names */
	assert_false(umt__commit_is_temp(""));
}

/* begin removes the temporaries of a killed writer, and nothing else. */
static void test_begin_removes_leftovers(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	const char *const keep[] = {"notes.txt", ".hidden", ".x.tmp-abc", "exec.vtable.tmp-abc123",
	                            ".x.tmp-abc1234", "exec.vtable"};
	const char *const gone[] = {".exec.vtable.tmp-abc123", ".trace.xml.tmp-ZZZZZZ",
	                            ".index.mem.tmp-0a1B2c"};
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
		put_text(dir, keep[i], "keep");
	for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++)
		put_text(dir, gone[i], "gone");
	int fd = open_dir(dir);
	struct umt_commit *c;
	assert_int_equal(umt__commit_begin(fd, dir, "exec.vtable", &c), 0);
	char names[4096];
	list_dir(dir, names, sizeof names);
	assert_string_equal(names, ".hidden|.x.tmp-abc|.x.tmp-abc1234|exec.vtable|"
	                           "exec.vtable.tmp-abc123|notes.txt");
	umt__commit_abort(c);
	close(fd);
	fx_rmtree(dir);
	free(dir);
}

/* One writer per directory: a second one is refused until the first is done. */
static void test_directory_lock(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	int fd1 = open_dir(dir), fd2 = open_dir(dir);
	struct umt_commit *c1, *c2;
	assert_int_equal(umt__commit_begin(fd1, dir, "exec.vtable", &c1), 0);
	create_with(c1, "a", "1");
	fx_expect_error(umt__commit_begin(fd2, dir, "exec.vtable", &c2), UMT_E_IO, dir,
	                "another writer is writing into this directory");
	/* the same through the public writer */
	umt_writer *w;
	fx_expect_error(umt_writer_open(dir, NULL, &w), UMT_E_IO, dir, "another writer");
	assert_null(w);
	umt__commit_abort(c1);
	assert_int_equal(umt__commit_begin(fd2, dir, "exec.vtable", &c2), 0);
	umt__commit_abort(c2);
	close(fd1);
	close(fd2);
	fx_rmtree(dir);
	free(dir);
}

static void test_misuse(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	int fd = open_dir(dir), out;
	struct umt_commit *c;
	assert_int_equal(umt__commit_begin(fd, dir, "rec", &c), 0);
	create_with(c, "a", "1");
	fx_expect_error(umt__commit_create(c, "a", &out), UMT_E_INVAL, dir, "a: written twice");
	/* without its commit record a set cannot be committed; nothing changes */
	put_text(dir, "a", "old");
	fx_expect_error(umt__commit_finish(c), UMT_E_INVAL, dir, "rec was not written");
	char names[4096];
	list_dir(dir, names, sizeof names);
	assert_string_equal(names, "a");
	close(fd);
	fx_rmtree(dir);
	free(dir);
}

/* Every step of the protocol, in order, as the hook sees them. */
static char events[2048];

static void record_event(enum umt_commit_step step, const char *name)
{
	static const char *const what[] = {"create", "wrote", "sync", "unlink", "dirsync",
	                                   "rename", "remove", "commit"};
	char one[128];
	snprintf(one, sizeof one, "%s%s %s", events[0] ? "," : "", what[step],
	         step == UMT_COMMIT_DIR_SYNCED ? "." : name);
	strncat(events, one, sizeof events - strlen(events) - 1);
}

static void test_protocol_order(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	put_text(dir, "rec", "old rec");
	put_text(dir, "b", "old b");
	put_text(dir, "gone", "old gone");
	put_text(dir, "other", "not ours");
	int fd = open_dir(dir), scratch;
	struct umt_commit *c;
	assert_int_equal(umt__commit_begin(fd, dir, "rec", &c), 0);
	events[0] = '\0';
	umt__commit_hook = record_event;
	create_with(c, "rec", "new rec");
	create_with(c, "b", "new b");
	assert_int_equal(umt__commit_scratch(c, "b", &scratch), 0);
	assert_int_equal(write(scratch, "s", 1), 1);
	create_with(c, "c", "new c");
	assert_int_equal(umt__commit_remove(c, "gone"), 0);
	assert_int_equal(umt__commit_remove(c, "never-there"), 0);
	/* until finish, the directory shows the old files (and the temporaries) */
	char *text = read_all(dir, "rec");
	assert_string_equal(text, "old rec");
	free(text);
	assert_int_equal(umt__commit_finish(c), 0);
	umt__commit_hook = NULL;
	assert_string_equal(events,
		"create rec,create b,create c,"
		"sync rec,sync b,sync c,"
		"unlink rec,dirsync .,"
		"rename b,rename c,remove gone,remove never-there,dirsync .,"
		"commit rec,dirsync .");
	char names[4096];
	list_dir(dir, names, sizeof names);
	assert_string_equal(names, "b|c|other|rec");
	const char *const want[][2] = {{"rec", "new rec"}, {"b", "new b"}, {"c", "new c"},
	                               {"other", "not ours"}};
	for (size_t i = 0; i < 4; i++) {
		text = read_all(dir, want[i][0]);
		assert_string_equal(text, want[i][1]);
		free(text);
	}
	close(fd);
	fx_rmtree(dir);
	free(dir);
}

/* abort removes the temporaries and leaves every final name as it was. */
static void test_abort_keeps_old_files(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	put_text(dir, "rec", "old rec");
	int fd = open_dir(dir), scratch;
	struct umt_commit *c;
	assert_int_equal(umt__commit_begin(fd, dir, "rec", &c), 0);
	create_with(c, "rec", "new rec");
	create_with(c, "b", "new b");
	assert_int_equal(umt__commit_scratch(c, "b", &scratch), 0);
	assert_int_equal(umt__commit_remove(c, "rec"), 0);
	umt__commit_abort(c);
	char names[4096];
	list_dir(dir, names, sizeof names);
	assert_string_equal(names, "rec");
	char *text = read_all(dir, "rec");
	assert_string_equal(text, "old rec");
	free(text);
	close(fd);
	fx_rmtree(dir);
	free(dir);
}

/* ---- traces A and B ----------------------------------------------------------- */

/* Trace A: the standard writer trace (2015 flavour, with trace.xml). */
static int write_a(const char *dir)
{
	return fx_write_standard(dir, UMT_FLAVOUR_2015);
}

enum { B_INS_RECORDS = 4000, B_LC = 64, B_BLOCK = 100000 };

static int b_tables(umt_writer *w)
{
	umt_decoded_ins d;
	memset(&d, 0, sizeof d);
	d.Category = 1;
	d.Mnemonic = 0x1f0;
	d.EffOperSize = d.EffAddrSize = 8;
	d.LCSize = B_LC; /* no slots: the LC is opaque bytes */
	d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	int64_t dec, str;
	int rc = umt_writer_add_decoded(w, &d, NULL, &dec);
	if (rc == 0)
		rc = umt_writer_add_disasm(w, "nop", &str);
	for (int i = 0; rc == 0 && i < 3; i++) {
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.Type = UMT_INS_NOP;
		r.CodeSize = 1;
		r.CodeBytes[0] = 0x90;
		r.ModuleID = -1;
		r.Address = 0x1000 + i;
		r.DisasmFP = str;
		r.DecodedFP = dec;
		rc = umt_writer_add_ins(w, &r, NULL);
	}
	for (int i = 0; rc == 0 && i < 2; i++)
		rc = umt_writer_add_thread(w, 500 + i, 0x7ff00000 + 0x1000 * i, NULL);
	umt_module_desc m = {.unload_eid = -1, .start_addr = 0x1000, .end_addr = 0x1fff,
	                     .win_name = "b.exe", .device_name = "\\Device\\b.exe"};
	if (rc == 0)
		rc = umt_writer_add_module(w, &m, NULL);
	if (rc == 0)
		rc = umt_writer_add_address_range(w, 0x1000, 0x1fff);
	return rc;
}

static int b_add(umt_writer *w, uint8_t type, int32_t thread, int64_t arg,
                 const umt_context_desc *ctx)
{
	uint8_t lc[B_LC];
	for (int j = 0; j < B_LC; j++)
		lc[j] = (uint8_t)(arg * 7 + j);
	umt_exec_desc d = {.type = type, .thread_id = thread, .context = ctx};
	if (type == UMT_REC_INSTRUCTION) {
		d.ins_id = arg % 3;
		d.lc = lc;
		d.lc_size = B_LC;
	}
	d.syscall_id = arg;
	d.exit_code = (int32_t)arg;
	return umt_writer_add_exec(w, &d, NULL);
}

/* The records of B: thread-begins (one with a block larger than the buffer),
 * instructions of both threads, a syscall, the ends. */
static int b_records(umt_writer *w, uint8_t *block)
{
	for (int j = 0; j < B_BLOCK; j++)
		block[j] = (uint8_t)(j * 13 + 5);
	umt_mem_ref mem = {0x7ff00000, B_BLOCK, block};
	umt_context_desc big = {NULL, 0, &mem, 1};
	int rc = b_add(w, UMT_REC_THREAD_BEGIN, 0, 0, &big);
	if (rc == 0)
		rc = b_add(w, UMT_REC_THREAD_BEGIN, 1, 0, NULL);
	for (int i = 0; rc == 0 && i < B_INS_RECORDS; i++)
		rc = b_add(w, UMT_REC_INSTRUCTION, i % 5 == 4, i, NULL);
	uint64_t entry = umt_writer_exec_count(w);
	if (rc == 0)
		rc = b_add(w, UMT_REC_SYSCALL_ENTRY, 1, 0, NULL);
	if (rc == 0)
		rc = b_add(w, UMT_REC_SYSCALL_EXIT, 1, 0, NULL);
	if (rc == 0)
		rc = b_add(w, UMT_REC_THREAD_END, 1, 3, NULL);
	if (rc == 0)
		rc = b_add(w, UMT_REC_APP_END, 0, 0, NULL);
	umt_syscall_desc s = {.completed = 1, .begin_eid = (int64_t)entry,
	                      .end_eid = (int64_t)entry + 1, .result = 0x77};
	if (rc == 0)
		rc = umt_writer_add_syscall(w, 0, &s);
	return rc;
}

/*
 * Trace B: differs from A in every file (2014 flavour, 48-byte thread rows,
 * no trace.xml, so A's is removed at commit); its exec.vtable spans many
 * 64 KiB buffers and holds a block written past the buffer.
 */
static int write_b(const char *dir)
{
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2014);
	o.thread_row_size = 48;
	o.write_trace_xml = 0;
	o.buffer_size = 64 << 10;
	umt_writer *w;
	int rc = umt_writer_open(dir, &o, &w);
	if (rc < 0)
		return rc;
	uint8_t *block = malloc(B_BLOCK);
	rc = block ? b_tables(w) : UMT_E_NOMEM;
	if (rc == 0)
		rc = b_records(w, block);
	free(block);
	if (rc < 0) {
		umt_writer_abort(w);
		return rc;
	}
	return umt_writer_finish(w);
}

/* Reference copies of A and B, written once into directories of their own. */
static struct fx_trace ref_a, ref_b;

static int setup_refs(void **state)
{
	(void)state;
	char *da = fx_tmpdir(), *db = fx_tmpdir();
	if (write_a(da) != 0 || write_b(db) != 0)
		return -1;
	fx_load_dir(da, &ref_a);
	fx_load_dir(db, &ref_b);
	fx_rmtree(da);
	fx_rmtree(db);
	free(da);
	free(db);
	return 0;
}

static int teardown_refs(void **state)
{
	(void)state;
	fx_free(&ref_a);
	fx_free(&ref_b);
	return 0;
}

/* Asserts that every file of @p dir is byte for byte the file of @p ref. */
static void assert_files(const char *dir, const struct fx_trace *ref)
{
	struct fx_trace t;
	fx_load_dir(dir, &t);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (ref->data[f] == NULL) {
			assert_null(t.data[f]);
			continue;
		}
		if (t.data[f] == NULL || t.size[f] != ref->size[f] ||
		    memcmp(t.data[f], ref->data[f], ref->size[f]) != 0)
			print_error("%s: %s differs from the reference\n", dir, umt_file_name(f));
		assert_non_null(t.data[f]);
		assert_int_equal(t.size[f], ref->size[f]);
		assert_memory_equal(t.data[f], ref->data[f], ref->size[f]);
	}
	fx_free(&t);
}

/* Every record of @p tr, read through the API, is the record of @p ref. */
static void assert_records(umt_trace *tr, const struct fx_trace *ref)
{
	const uint8_t *vt = ref->data[UMT_FILE_EXEC_VTABLE], *off = ref->data[UMT_FILE_EXEC_OFFSETS];
	const uint8_t *pn = ref->data[UMT_FILE_EXEC_PREV_NEXT];
	uint64_t n = fx_get64(vt + 8);
	assert_int_equal(umt_exec_count(tr), n);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t begin = fx_get64(off + 8 * i), end = fx_get64(off + 8 * i + 8);
		umt_rec r;
		int64_t prev, next;
		assert_int_equal(umt_exec_get(tr, i, &r), 0);
		assert_int_equal(r.size, end - begin);
		assert_memory_equal(r.data, vt + begin, end - begin);
		assert_int_equal(umt_exec_links(tr, i, &prev, &next), 0);
		assert_int_equal(prev, (int64_t)fx_get64(pn + 16 * i));
		assert_int_equal(next, (int64_t)fx_get64(pn + 16 * i + 8));
	}
}

/*
 * @p dir opens as exactly @p ref: its files, its records, and umt_verify()
 * finds no error (A has MEM0 warnings by design: its LC bytes are a pattern).
 */
static void assert_trace(const char *dir, const struct fx_trace *ref)
{
	assert_files(dir, ref);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_records(tr, ref);
	umt_verify_result res;
	int rc = umt_verify(tr, NULL, &res);
	if (rc != 0)
		print_error("verify %s: %s\n", dir, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(res.errors, 0);
	assert_int_equal(res.warnings, ref == &ref_a ? 5 : 0);
	umt_trace_close(tr);
}

/* ---- the writer ------------------------------------------------------------------- */

static void test_references_verify(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(write_b(dir), 0);
	assert_trace(dir, &ref_b);
	assert_int_equal(write_a(dir), 0); /* replaces B, trace.xml included */
	assert_trace(dir, &ref_a);
	char names[4096];
	list_dir(dir, names, sizeof names);
	assert_string_equal(names, "address_space.itable|context_map.itable|exec.offsets|"
	                           "exec.prev_next.column|exec.vtable|ins.itable|module.itable|"
	                           "syscall.offsets|syscall.vtable|thread.itable|trace.xml");
	assert_int_equal(write_b(dir), 0); /* B has no trace.xml: A's goes */
	assert_false(exists(dir, "trace.xml"));
	assert_trace(dir, &ref_b);
	fx_rmtree(dir);
	free(dir);
}

/* umt_writer_abort() at any point leaves the previous trace as it was. */
static void test_writer_abort_keeps_trace(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(write_a(dir), 0);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	uint8_t *block = malloc(B_BLOCK);
	assert_int_equal(b_tables(w), 0);
	assert_int_equal(b_records(w, block), 0);
	free(block);
	umt_writer_abort(w);
	assert_trace(dir, &ref_a);
	assert_false(has_temp(dir));
	fx_rmtree(dir);
	free(dir);
}

/*
 * A reader that has A open keeps reading A while B replaces it: the writer
 * renames new files over the names and never rewrites A's inodes (before,
 * it truncated them: SIGBUS or B's bytes under A's checks).
 */
static void test_reader_keeps_old_trace(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(write_a(dir), 0);
	umt_trace *tr = fx_must_open_dir(dir), *lazy = fx_must_open_dir(dir);
	int64_t prev, next;
	assert_int_equal(umt_exec_links(tr, 0, &prev, &next), 0); /* maps the prev/next column */
	assert_int_equal(umt_trace_changed(tr), 0);
	assert_int_equal(write_b(dir), 0);
	assert_int_equal(umt_trace_changed(tr), 1);
	assert_records(tr, &ref_a);
	/* the column is mapped on first use: after the replacement that is B's (header, 18.) */
	umt_rec r;
	assert_int_equal(umt_exec_get(lazy, 1, &r), 0);
	assert_memory_equal(r.data, ref_a.data[UMT_FILE_EXEC_VTABLE] + r.offset, r.size);
	fx_expect_error(umt_exec_links(lazy, 0, &prev, &next), UMT_E_IO, "exec.prev_next.column",
	                "file changed since the trace was opened");
	umt_trace_close(lazy);
	umt_verify_result res;
	assert_int_equal(umt_verify(tr, NULL, &res), 0);
	assert_int_equal(res.errors, 0);
	const umt_meta *meta;
	assert_int_equal(umt_trace_meta(tr, &meta), 0);
	assert_string_equal(umt_meta_get(meta, "Xed/Version"), "20150121");
	umt_trace_close(tr);
	assert_trace(dir, &ref_b);
	fx_rmtree(dir);
	free(dir);
}

/* ---- incomplete traces ------------------------------------------------------------ */

static void test_incomplete_open(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_trace *tr;
	/* an empty directory, or one with unrelated files, is not a trace at all */
	fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_MISSING, "exec.vtable", NULL);
	put_text(dir, "notes.txt", "x");
	fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_MISSING, "exec.vtable", NULL);
	/* a temporary of a writer that died: incomplete */
	put_text(dir, ".exec.offsets.tmp-abcdef", "x");
	fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_INCOMPLETE, dir,
	                "incomplete trace: the writer did not finish");
	assert_string_equal(umt_strerror(UMT_E_INCOMPLETE), "incomplete: a writer did not finish");
	/* files of the trace without exec.vtable: incomplete while any is left */
	assert_int_equal(write_a(dir), 0);
	assert_false(exists(dir, ".exec.offsets.tmp-abcdef")); /* the writer removed it */
	char path[4200];
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		snprintf(path, sizeof path, "%s/%s", dir, umt_file_name(f));
		if (f != UMT_FILE_EXEC_VTABLE)
			fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_INCOMPLETE, dir,
			                "(exec.vtable, written last, is missing)");
		assert_int_equal(unlink(path), 0);
	}
	fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_MISSING, "exec.vtable", NULL);
	fx_rmtree(dir);
	free(dir);
}

/* ---- killed writers ------------------------------------------------------------------ */

enum { EXPECT_A = 1, EXPECT_INCOMPLETE, EXPECT_B };
enum { CHILD_DONE = 0, CHILD_KILLED = 42, CHILD_FAILED = 43 };

/* What the child tells the parent about where it died (a shared page). */
struct kill_report {
	int expect;
	int step;
	char name[64];
};

static struct kill_report *report;
static _Atomic int hook_count;
static int hook_target;
static bool in_window, committed; /* main thread only: the I/O thread is idle by then */

static void kill_hook(enum umt_commit_step step, const char *name)
{
	if (step == UMT_COMMIT_UNLINKED)
		in_window = true;
	if (step == UMT_COMMIT_COMMITTED)
		committed = true;
	if (atomic_fetch_add(&hook_count, 1) + 1 != hook_target)
		return;
	report->expect = committed ? EXPECT_B : in_window ? EXPECT_INCOMPLETE : EXPECT_A;
	report->step = (int)step;
	snprintf(report->name, sizeof report->name, "%s", name);
	_exit(CHILD_KILLED);
}

/* Writes B over A in a child killed at hook point @p target. @return its status. */
static int run_killed_writer(const char *dir, int target)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		hook_target = target;
		umt__commit_hook = kill_hook;
		_exit(write_b(dir) == 0 ? CHILD_DONE : CHILD_FAILED);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/*
 * B is written over A and the writer killed at every point the hook sees:
 * each temporary created, each block written (mid-file), each fsync,
 * unlink, rename and directory fsync of the commit. After each kill the
 * directory opens as exactly A (files, records, verify) before the commit
 * window, fails with UMT_E_INCOMPLETE inside it, and is exactly B after it.
 * The next writer (A again) removes the leftovers.
 */
static void test_killed_writer(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	report = mmap(NULL, sizeof *report, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
	              -1, 0);
	assert_true(report != MAP_FAILED);
	int seen[EXPECT_B + 1] = {0}, mid_file = 0;
	int target;
	for (target = 1; target < 1000; target++) {
		assert_int_equal(write_a(dir), 0);
		memset(report, 0, sizeof *report);
		int status = run_killed_writer(dir, target);
		if (status == CHILD_DONE)
			break;
		assert_int_equal(status, CHILD_KILLED);
		seen[report->expect]++;
		mid_file += report->step == UMT_COMMIT_WROTE && strcmp(report->name, "exec.vtable") == 0;
		if (report->expect == EXPECT_A) {
			assert_trace(dir, &ref_a);
		} else if (report->expect == EXPECT_B) {
			assert_trace(dir, &ref_b);
		} else {
			umt_trace *tr;
			fx_expect_error(umt_trace_open(dir, 0, &tr), UMT_E_INCOMPLETE, dir,
			                "incomplete trace: the writer did not finish");
		}
	}
	print_message("killed at %d points: %d A, %d incomplete, %d B, %d in exec.vtable\n", target - 1, seen[EXPECT_A], seen[EXPECT_INCOMPLETE], seen[EXPECT_B], mid_file);
	assert_true(target < 1000);
	assert_trace(dir, &ref_b); /* the writer that was not killed */
	/* every kind of outcome was met, with kills in the middle of exec.vtable */
	assert_true(seen[EXPECT_A] > 20);
	/* the window: unlink, dirsync, 9 renames, trace.xml removed, dirsync */
	assert_int_equal(seen[EXPECT_INCOMPLETE], 13);
	assert_int_equal(seen[EXPECT_B], 2); /* the commit rename, the last dirsync */
	assert_true(mid_file >= 8);
	/* a writer after the last kill leaves no temporary */
	assert_int_equal(write_a(dir), 0);
	assert_false(has_temp(dir));
	munmap(report, sizeof *report);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temp_names),
		cmocka_unit_test(test_begin_removes_leftovers),
		cmocka_unit_test(test_directory_lock),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_protocol_order),
		cmocka_unit_test(test_abort_keeps_old_files),
		cmocka_unit_test(test_references_verify),
		cmocka_unit_test(test_writer_abort_keeps_trace),
		cmocka_unit_test(test_reader_keeps_old_trace),
		cmocka_unit_test(test_incomplete_open),
		cmocka_unit_test(test_killed_writer),
	};
	return cmocka_run_group_tests(tests, setup_refs, teardown_refs);
}
