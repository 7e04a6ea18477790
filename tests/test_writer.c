/*
 * writer.c: the files it produces, byte for byte where the layout matters,
 * its streaming (prev/next patching across windows, large blocks), and its
 * argument checks.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

static char *read_text(const char *dir, const char *name)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	fread(buf, 1, (1 << 16) - 1, fp);
	fclose(fp);
	return buf;
}

/* Whether @p dir holds an entry (other than "." and "..") whose name contains @p part. */
static bool has_name(const char *dir, const char *part)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	bool found = false;
	const struct dirent *e;
	while (!found && (e = readdir(d)) != NULL)
		found = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		        strstr(e->d_name, part) != NULL;
	closedir(d);
	return found;
}

static void test_std_files(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	struct fx_trace t;
	fx_load_dir(dir, &t);
	/* exec.vtable header: Version 1, RecordCount */
	const uint8_t *v = t.data[UMT_FILE_EXEC_VTABLE];
	assert_int_equal(v[0], 1);
	assert_int_equal(fx_get64(v + 8), STD_RECORDS);
	assert_int_equal(t.size[UMT_FILE_EXEC_OFFSETS], (STD_RECORDS + 1) * 8);
	assert_int_equal(fx_get64(t.data[UMT_FILE_EXEC_OFFSETS]), 16);
	assert_int_equal(fx_get64(t.data[UMT_FILE_EXEC_OFFSETS] + STD_RECORDS * 8),
	                 t.size[UMT_FILE_EXEC_VTABLE]);
	assert_int_equal(t.size[UMT_FILE_EXEC_PREV_NEXT], STD_RECORDS * 16);
	/* the first record is thread-begin of thread 0, laid out per spec 6.4 */
	const uint8_t *r0 = v + 16;
	assert_int_equal(r0[4], UMT_REC_THREAD_BEGIN);
	assert_int_equal(r0[5], 1);
	assert_int_equal(fx_get64(r0 + 6) & 0xffffffff, 1);   /* MemCount */
	assert_int_equal(fx_get64(r0 + 14), 16 + 24);         /* RegsFP */
	assert_int_equal(fx_get64(r0 + 22), std_tib[0]);      /* contextMem.Address */
	assert_int_equal(fx_get64(r0 + 30), STD_TIB_SIZE);    /* Size */
	assert_int_equal(fx_get64(r0 + 38), 16 + 24 + 512);   /* DataFP */
	/* ins.itable: 48-byte header, 64-byte rows, extra after the rows */
	const uint8_t *ins = t.data[UMT_FILE_INS];
	assert_int_equal(ins[4], 1);                          /* RecordVer */
	assert_int_equal(fx_get64(ins + 8), STD_INS);
	assert_int_equal(fx_get64(ins + 16), 64);
	assert_int_equal(fx_get64(ins + 24), 48);
	assert_int_equal(fx_get64(ins + 32), 48 + 64 * STD_INS);
	assert_int_equal(fx_get64(ins + 32) + fx_get64(ins + 40), t.size[UMT_FILE_INS]);
	/* row 4 shares the decoded body and string of row 3 */
	const uint8_t *row3 = ins + 48 + 64 * 3, *row4 = ins + 48 + 64 * 4;
	assert_int_equal(fx_get64(row4 + 0), 4);              /* ID set by the writer */
	assert_memory_equal(row3 + 40, row4 + 40, 16);
	assert_int_equal((int32_t)fx_get64(row4 + 12), -1);   /* ModuleID */
	const uint8_t *extra = ins + fx_get64(ins + 32);
	const uint8_t *s0 = extra + fx_get64(ins + 48 + 40);
	assert_int_equal(s0[0] | s0[1] << 8, strlen(std_ins_disasm[0]));
	assert_string_equal((const char *)s0 + 2, std_ins_disasm[0]);
	/* module.itable: 64-byte 2015 rows with absolute name FPs */
	const uint8_t *mod = t.data[UMT_FILE_MODULE];
	assert_int_equal(fx_get64(mod + 16), 64);
	const uint8_t *m0 = mod + 48;
	assert_int_equal(fx_get64(m0 + 48), 130000000000000000ull);
	assert_int_equal(m0[56], 6);
	assert_int_equal(m0[60] | m0[61] << 8, 7601);
	const uint8_t *name = mod + fx_get64(m0 + 32);
	assert_int_equal(name[0], strlen("C:\\Windows\\System32\\ntdll.dll"));
	assert_int_equal(name[2], 'C');
	assert_int_equal(name[3], 0);
	const uint8_t *m1name = mod + fx_get64(mod + 48 + 64 + 32);
	assert_int_equal(m1name[0], 18);                      /* "C:\Prog\ümlaut.dll" */
	assert_int_equal(m1name[2 + 2 * 8], 0xfc);            /* ü as UTF-16LE */
	assert_int_equal(m1name[2 + 2 * 8 + 1], 0);
	assert_int_equal(m1name[2 + 2 * 18], 0);              /* the terminating unit */
	/* syscalls written in the order 2, 0, 1: offsets say where each landed */
	const uint8_t *so = t.data[UMT_FILE_SYSCALL_OFFSETS];
	assert_int_equal(t.size[UMT_FILE_SYSCALL_OFFSETS], STD_SYSCALLS * 16);
	assert_int_equal(fx_get64(so + 2 * 16), 16);          /* ID 2 first */
	assert_true(fx_get64(so + 0) < fx_get64(so + 16));
	const uint8_t *sv = t.data[UMT_FILE_SYSCALL_VTABLE];
	assert_int_equal(sv[4], 1);                           /* UnifiedIDsVer */
	assert_int_equal(fx_get64(sv + 8), STD_SYSCALLS);
	const uint8_t *s2 = sv + 16;
	assert_int_equal(s2[0] | s2[1] << 8, 0x52);
	assert_int_equal(s2[6], 4);                           /* ArgCount */
	assert_int_equal(fx_get64(s2 + 40), 56);              /* ArgsFP, relative */
	assert_int_equal(fx_get64(s2 + 56 + 8 * 3), 0x203);
	assert_int_equal(fx_get64(s2 + 48), 56 + 32);         /* ExtrasFP */
	assert_memory_equal(s2 + 88, "XY", 2);
	assert_int_equal(fx_get64(so + 2 * 16 + 8), 56 + 32 + 2);
	/* thread.itable rows of 40 bytes; address space */
	const uint8_t *th = t.data[UMT_FILE_THREAD];
	assert_int_equal(fx_get64(th + 16), 40);
	assert_int_equal(t.size[UMT_FILE_THREAD], 32 + 40 * STD_THREADS);
	const uint8_t *as = t.data[UMT_FILE_ADDRESS_SPACE];
	assert_int_equal(fx_get64(as + 8), STD_RANGES);
	assert_int_equal(fx_get64(as + 32 + 16), 0x7ffdc000);
	assert_int_equal(t.size[UMT_FILE_CONTEXT_MAP], 17424);
	fx_free(&t);
	/* trace.xml of 2015: TraceMetaData root */
	char *xml = read_text(dir, "trace.xml");
	assert_non_null(strstr(xml, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<TraceMetaData>\n"));
	assert_non_null(strstr(xml, "  <Xed>\n    <Version>20150121</Version>\n  </Xed>\n"));
	assert_non_null(strstr(xml, "<CommandLine>&quot;C:\\Windows\\System32\\notepad.exe&quot;</CommandLine>"));
	assert_non_null(strstr(xml, "    <UMTracer>\n      <Version>4.0</Version>\n      <Ins>\n"
	                            "        <Format>\n          <Version>1</Version>\n"));
	assert_non_null(strstr(xml, "</RawTrace>\n</TraceMetaData>\n"));
	free(xml);
	/* no temporary file is left behind */
	assert_false(has_name(dir, ".tmp-"));
	fx_rmtree(dir);
	free(dir);
}

static void test_2014_flavour(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2014), 0);
	struct fx_trace t;
	fx_load_dir(dir, &t);
	assert_int_equal(t.data[UMT_FILE_EXEC_VTABLE][0], 0);
	assert_int_equal(t.data[UMT_FILE_INS][4], 0);
	assert_int_equal(t.data[UMT_FILE_SYSCALL_VTABLE][4], 0);
	assert_int_equal(fx_get64(t.data[UMT_FILE_MODULE] + 16), 48);
	fx_free(&t);
	/* the pre-2015 layout: several top-level elements and no root (ERRATA 18) */
	char *xml = read_text(dir, "trace.xml");
	assert_string_equal(xml,
		"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
		"<CPU>\n  <HasXMM>1</HasXMM>\n  <hasYMM>1</hasYMM>\n  <hasZMM>0</hasZMM>\n</CPU>\n"
		"<OS>\n  <Id>06010110</Id>\n  <Name>Windows 7 SP1 64-bits</Name>\n</OS>\n"
		"<Pin>\n  <Version>2.13.62732</Version>\n"
		"  <CommandLine>pin.exe -t UMTracer.dll -- notepad.exe</CommandLine>\n</Pin>\n"
		"<Xed>\n  <Version>20140106</Version>\n</Xed>\n"
		"<App>\n  <CommandLine>&quot;C:\\Windows\\System32\\notepad.exe&quot;</CommandLine>\n"
		"  <Bitness>64</Bitness>\n  <ProcessID>4242</ProcessID>\n</App>\n"
		"<!-- UMTracer settings -->\n"
		"<UMTracer>\n  <Ins>\n    <Format>\n      <Version>0</Version>\n    </Format>\n  </Ins>\n"
		"  <Exec>\n    <Format>\n      <Version>0</Version>\n    </Format>\n"
		"    <SyscallTable>\n      <Version>0</Version>\n    </SyscallTable>\n  </Exec>\n"
		"</UMTracer>\n");
	free(xml);
	fx_rmtree(dir);
	free(dir);
}

/*
 * Many records over three threads with a small window: links whose entry
 * already left the window are patched in the file. One thread stays idle
 * across many windows.
 */
static void test_prev_next_across_windows(void **state)
{
	(void)state;
	enum { N = 30000 };
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.buffer_size = 1; /* raised to the 64 KiB minimum: 4096 entries a window */
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(umt_writer_add_thread(w, 100 + i, 0, NULL), 0);
	int32_t *owner = malloc(N * sizeof *owner);
	for (int i = 0; i < N; i++) {
		/* thread 2 appears at 5, 20000 and 29999 only */
		owner[i] = (i == 5 || i == 20000 || i == N - 1) ? 2 : (i % 7 < 4 ? 0 : 1);
		umt_exec_desc d = {.type = UMT_REC_THREAD_END, .thread_id = owner[i], .exit_code = i};
		assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	}
	assert_int_equal(umt_writer_exec_count(w), N);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	int64_t last[3] = {-1, -1, -1};
	for (int i = 0; i < N; i++) {
		int64_t prev, next;
		assert_int_equal(umt_exec_links(tr, (uint64_t)i, &prev, &next), 0);
		assert_int_equal(prev, last[owner[i]]);
		if (last[owner[i]] >= 0) {
			int64_t p2, n2;
			umt_exec_links(tr, (uint64_t)last[owner[i]], &p2, &n2);
			assert_int_equal(n2, i);
		}
		last[owner[i]] = i;
	}
	for (int th = 0; th < 3; th++) {
		int64_t prev, next;
		umt_exec_links(tr, (uint64_t)last[th], &prev, &next);
		assert_int_equal(next, -1);
	}
	const umt_thread_rec *row;
	assert_int_equal(umt_thread_get(tr, 2, &row), 0);
	assert_int_equal(row->FirstEID, 5);
	assert_int_equal(row->LastEID, N - 1);
	assert_int_equal(row->RecCount, 3);
	umt_trace_close(tr);
	free(owner);
	fx_rmtree(dir);
	free(dir);
}

/* A writer of @p dir with the smallest buffers (64 KiB): small data still flushes. */
static umt_writer *open_small(const char *dir)
{
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.buffer_size = 64 << 10;
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	return w;
}

/* A memory block larger than the write buffer goes straight to the file. */
static void test_large_block(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w = open_small(dir);
	assert_int_equal(umt_writer_add_thread(w, 1, 0x1000, NULL), 0);
	size_t big = 3u << 20;
	uint8_t *block = malloc(big);
	for (size_t i = 0; i < big; i++)
		block[i] = (uint8_t)(i * 31 + 7);
	umt_mem_ref m[2] = {{0x10000, big, block}, {0x20000, 3, (const uint8_t *)"abc"}};
	umt_context_desc c = {NULL, 0, m, 2};
	umt_exec_desc d = {.type = UMT_REC_CTX_EXCEPTION, .thread_id = 0, .context = &c};
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	d.type = UMT_REC_APP_END;
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	umt_rec r;
	umt_context ctx;
	umt_mem_ref got;
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	assert_int_equal(r.size, 6 + 16 + 48 + 512 + big + 3);
	assert_int_equal(umt_rec_context(tr, &r, &ctx), 0);
	for (uint32_t j = 0; j < ctx.regs_size; j++)
		assert_int_equal(ctx.regs[j], 0); /* no dump given: zeros */
	assert_int_equal(umt_context_mem_get(&ctx, 0, &got), 0);
	assert_int_equal(got.size, big);
	assert_memory_equal(got.data, block, big);
	assert_int_equal(umt_context_mem_get(&ctx, 1, &got), 0);
	assert_memory_equal(got.data, "abc", 3);
	assert_int_equal(umt_exec_get(tr, 1, &r), 0);
	assert_int_equal(r.type, UMT_REC_APP_END);
	umt_trace_close(tr);
	free(block);
	fx_rmtree(dir);
	free(dir);
}

static void test_raw_records_and_options(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.thread_row_size = 48;
	o.module_row_size = 48;
	o.write_trace_xml = 0;
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	assert_int_equal(umt_writer_add_thread(w, 9, 0, NULL), 0);
	/* raw bytes, even of an unknown type, are written verbatim and linked */
	uint8_t raw[10] = {0, 0, 0, 0, 7, 0x01, 1, 2, 3, 4};
	uint64_t id;
	assert_int_equal(umt_writer_add_exec_raw(w, raw, sizeof raw, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(umt_writer_add_exec_raw(w, raw, 3, &id), 0); /* too short for a header */
	assert_int_equal(umt_writer_add_exec_raw(w, raw, sizeof raw, &id), 0);
	assert_int_equal(id, 2);
	umt_syscall_desc s = {.args_fp_absolute = 1, .arg_count = 1, .args = (const int64_t[]){5}};
	assert_int_equal(umt_writer_add_syscall(w, 0, &s), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	struct fx_trace t;
	fx_load_dir(dir, &t);
	assert_null(t.data[UMT_FILE_TRACE_XML]);
	assert_int_equal(fx_get64(t.data[UMT_FILE_THREAD] + 16), 48);
	assert_int_equal(t.size[UMT_FILE_THREAD], 32 + 48);
	assert_int_equal(fx_get64(t.data[UMT_FILE_MODULE] + 16), 48);
	assert_memory_equal(t.data[UMT_FILE_EXEC_VTABLE] + 16, raw, sizeof raw);
	assert_int_equal(fx_get64(t.data[UMT_FILE_EXEC_PREV_NEXT] + 8), 2);      /* 0 -> 2 */
	assert_int_equal(fx_get64(t.data[UMT_FILE_EXEC_PREV_NEXT] + 16), (uint64_t)-1);
	assert_int_equal(fx_get64(t.data[UMT_FILE_EXEC_PREV_NEXT] + 32), 0);     /* 2 <- 0 */
	/* ArgsFP stored absolute on request (older readers, ERRATA 7) */
	assert_int_equal(fx_get64(t.data[UMT_FILE_SYSCALL_VTABLE] + 16 + 40), 16 + 56);
	fx_free(&t);
	umt_trace *tr;
	assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, 0, &r), UMT_E_TYPE);
	assert_int_equal(umt_exec_get(tr, 1, &r), UMT_E_TRUNCATED);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

static void test_invalid_use(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w;
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.module_row_size = 50;
	assert_int_equal(umt_writer_open(dir, &o, &w), UMT_E_INVAL);
	assert_int_equal(umt_writer_open(NULL, NULL, &w), UMT_E_INVAL);
	assert_int_equal(umt_writer_open(dir, NULL, NULL), UMT_E_INVAL);
	assert_int_equal(umt_writer_open("/proc/umt-no-such/dir", NULL, &w), UMT_E_IO);
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	umt_exec_desc d = {.type = 7, .thread_id = 0};
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), UMT_E_INVAL);   /* type 7 */
	d.type = UMT_REC_THREAD_END;
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), UMT_E_INVAL);   /* no thread 0 yet */
	assert_int_equal(umt_writer_add_thread(w, 1, 0, NULL), 0);
	uint8_t regs[4] = {0};
	umt_context_desc c = {regs, sizeof regs, NULL, 0};
	umt_exec_desc d2 = {.type = UMT_REC_THREAD_BEGIN, .context = &c};
	assert_int_equal(umt_writer_add_exec(w, &d2, NULL), UMT_E_INVAL); /* dump size */
	umt_exec_desc d3 = {.type = UMT_REC_INSTRUCTION, .lc_size = 4};
	assert_int_equal(umt_writer_add_exec(w, &d3, NULL), UMT_E_INVAL); /* lc missing */
	int64_t fp;
	assert_int_equal(umt_writer_add_disasm(w, NULL, &fp), UMT_E_INVAL);
	char *huge = malloc(40000);
	memset(huge, 'a', 39999);
	huge[39999] = 0;
	assert_int_equal(umt_writer_add_disasm(w, huge, &fp), UMT_E_INVAL);
	free(huge);
	umt_syscall_desc s = {0};
	assert_int_equal(umt_writer_add_syscall(w, -1, &s), UMT_E_INVAL);
	assert_int_equal(umt_writer_add_syscall(w, 1, &s), 0);
	assert_int_equal(umt_writer_add_syscall(w, 1, &s), UMT_E_INVAL);  /* twice */
	umt_module_desc m = {.win_name = "bad \xff utf8"};
	assert_int_equal(umt_writer_add_module(w, &m, NULL), UMT_E_INVAL);
	umt_context_map map;
	umt_context_map_default(&map, 1, NULL);
	map.DumpSize = 8;
	assert_int_equal(umt_writer_set_context_map(w, &map), 0); /* no context record yet */
	/* syscall 0 is missing: finish fails and says which */
	assert_int_equal(umt_writer_finish(w), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), "syscall 0"));
	umt_writer_abort(NULL);
	fx_rmtree(dir);
	free(dir);
}

static void test_abort_leaves_no_temp(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	int64_t fp;
	assert_int_equal(umt_writer_add_disasm(w, "nop", &fp), 0);
	assert_int_equal(fp, 0);
	assert_int_equal(umt_writer_add_disasm(w, "int3", &fp), 0);
	assert_int_equal(fp, 6);
	assert_true(has_name(dir, ".exec.vtable.tmp-")); /* written under a temporary name */
	assert_false(has_name(dir, "ins.itable"));       /* spill files: never visible */
	umt_writer_abort(w);
	assert_false(has_name(dir, "."));                /* nothing at all is left */
	fx_rmtree(dir);
	free(dir);
}

/*
 * Every other call after a failed append: the same UMT_E_IO, with the
 * first failure's message. @return 0, or the number of the call that
 * did not (the child's exit status).
 */
static int check_sticky(umt_writer *w)
{
	umt_exec_desc d = {.type = UMT_REC_THREAD_END};
	umt_ins_rec row = {0};
	umt_syscall_desc s = {0};
	umt_module_desc m = {.win_name = "a"};
	umt_context_map map;
	umt_context_map_default(&map, 1, NULL);
	int64_t fp;
	int rc[] = {umt_writer_add_exec(w, &d, NULL), umt_writer_add_exec_raw(w, "", 0, NULL),
	            umt_writer_add_thread(w, 1, 0, NULL), umt_writer_add_ins(w, &row, NULL),
	            umt_writer_add_disasm(w, "nop", &fp), umt_writer_add_decoded(w, &(umt_decoded_ins){0}, NULL, &fp),
	            umt_writer_add_syscall(w, 0, &s), umt_writer_add_module(w, &m, NULL),
	            umt_writer_add_address_range(w, 0, 4095), umt_writer_set_context_map(w, &map)};
	for (int i = 0; i < (int)(sizeof rc / sizeof rc[0]); i++)
		if (rc[i] != UMT_E_IO)
			return 20 + i;
	if (strstr(umt_errmsg(), "umt_writer_set_context_map: an earlier call failed, the writer must "
	                         "be aborted: exec.vtable: cannot write: File too large") == NULL)
		return 19;
	return 0;
}

/*
 * A write that fails in the background I/O thread (a file-size limit:
 * EFBIG, SIGXFSZ ignored; in a child so the limit stays there) is reported
 * by a later call with the file's name, and sticks: every later call and
 * finish return it, and finish commits nothing: the trace that was in the
 * directory before stays, and no temporary is left.
 */
static void test_write_error_sticks(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	struct fx_trace before, after;
	fx_load_dir(dir, &before);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGXFSZ, SIG_IGN);
		struct rlimit lim = {1 << 20, 1 << 20};
		setrlimit(RLIMIT_FSIZE, &lim);
		umt_writer *w;
		if (umt_writer_open(dir, NULL, &w) < 0)
			_exit(10);
		umt_writer_add_thread(w, 1, 0, NULL);
		uint8_t lc[200] = {0};
		umt_exec_desc d = {.type = UMT_REC_INSTRUCTION, .lc = lc, .lc_size = sizeof lc};
		int rc = 0;
		for (int i = 0; i < 200000 && rc == 0; i++) /* 42 MB: far past the limit */
			rc = umt_writer_add_exec(w, &d, NULL);
		if (rc != UMT_E_IO)
			_exit(11);
		if (strstr(umt_errmsg(), "exec.vtable: cannot write: File too large") == NULL)
			_exit(12);
		int bad = check_sticky(w);
		if (bad)
			_exit(bad);
		if (umt_writer_finish(w) != UMT_E_IO)
			_exit(13);
		if (strstr(umt_errmsg(), "umt_writer_finish: an earlier call failed") == NULL)
			_exit(14);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	fx_load_dir(dir, &after);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		assert_int_equal(after.size[f], before.size[f]);
		assert_memory_equal(after.data[f], before.data[f], before.size[f]);
	}
	assert_false(has_name(dir, ".tmp-"));
	fx_free(&before);
	fx_free(&after);
	fx_rmtree(dir);
	free(dir);
}

/* ---- a failed call changes nothing ---------------------------------------------- */

/* With @p bad, the call must fail with @p code (and is then not made otherwise). */
#define BAD(bad, call, code)                          \
	do {                                          \
		if (bad)                              \
			assert_int_equal((call), (code)); \
	} while (0)

static void bad_records(umt_writer *w, bool bad, const uint8_t *regs, uint8_t *big)
{
	umt_mem_ref mem[2] = {{0x1000, 100, big}, {0x2000, 5, big}};
	umt_context_desc c = {regs, 512, mem, 2};
	umt_exec_desc d = {.type = UMT_REC_THREAD_BEGIN, .thread_id = 0, .context = &c};
	/* the first byte the old writer appended (offsets, prev/next) came before these checks */
	umt_context_desc wrong = {regs, 4, mem, 1};
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 1, .context = &wrong}, NULL), UMT_E_INVAL);
	umt_context_desc no_mem = {regs, 512, NULL, 2};
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 1, .context = &no_mem}, NULL), UMT_E_INVAL);
	umt_mem_ref holes[2] = {{0x1000, 100, big}, {0x2000, 5, NULL}};
	umt_context_desc hole = {regs, 512, holes, 2};
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 9, .context = &hole}, NULL), UMT_E_INVAL);
	umt_mem_ref huge[2] = {{0, (uint64_t)INT64_MAX, big}, {0, (uint64_t)INT64_MAX, big}};
	umt_context_desc sum = {regs, 512, huge, 2}, one = {regs, 512, huge, 1};
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 4, .context = &sum}, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 8, .context = &one}, NULL), UMT_E_INVAL);
	umt_context_desc many = {regs, 512, mem, (uint32_t)INT32_MAX + 1};
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 1, .context = &many}, NULL), UMT_E_INVAL);
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	/* local contexts: 14 + lc_size wrapped, and LCSize is 16-bit */
	umt_exec_desc ins = {.type = UMT_REC_INSTRUCTION, .thread_id = 1, .ins_id = 0, .lc = big};
	ins.lc_size = UINT64_MAX - 5;
	BAD(bad, umt_writer_add_exec(w, &ins, NULL), UMT_E_INVAL);
	ins.lc_size = UMT_WRITER_MAX_LC + 1;
	BAD(bad, umt_writer_add_exec(w, &ins, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 0, .lc_size = 4}, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 7}, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 2, .thread_id = 2}, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, &(umt_exec_desc){.type = 2, .thread_id = -1}, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec(w, NULL, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec_raw(w, big, (uint64_t)1 << 63, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_exec_raw(w, NULL, 5, NULL), UMT_E_INVAL);
	ins.lc_size = 16;
	assert_int_equal(umt_writer_add_exec(w, &ins, NULL), 0);
	d.context = NULL;
	assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
}

static void bad_tables(umt_writer *w, bool bad, const uint8_t *big)
{
	umt_syscall_desc s = {.begin_eid = 1, .end_eid = -1, .extras = big, .extras_size = 3};
	assert_int_equal(umt_writer_add_syscall(w, 1, &s), 0);
	/* (id + 1) * 16 overflowed: a heap overflow under AddressSanitizer */
	BAD(bad, umt_writer_add_syscall(w, ((int64_t)1 << 60) - 1, &s), UMT_E_INVAL);
	BAD(bad, umt_writer_add_syscall(w, UMT_WRITER_SYSCALL_ID_LIMIT, &s), UMT_E_INVAL);
	BAD(bad, umt_writer_add_syscall(w, -1, &s), UMT_E_INVAL);
	BAD(bad, umt_writer_add_syscall(w, 1, &s), UMT_E_INVAL); /* twice */
	BAD(bad, umt_writer_add_syscall(w, 5, NULL), UMT_E_INVAL);
	umt_syscall_desc huge = {.extras = big, .extras_size = (uint64_t)1 << 63};
	BAD(bad, umt_writer_add_syscall(w, 0, &huge), UMT_E_INVAL);
	umt_syscall_desc no_args = {.arg_count = 2};
	BAD(bad, umt_writer_add_syscall(w, 0, &no_args), UMT_E_INVAL);
	assert_int_equal(umt_writer_add_syscall(w, 0, &s), 0);
	/* the old writer kept the first name of a module whose second name failed */
	umt_module_desc m = {.unload_eid = -1, .win_name = "good.dll", .device_name = "bad\xc0\x80"};
	BAD(bad, umt_writer_add_module(w, &m, NULL), UMT_E_INVAL);
	umt_module_desc long_name = {.win_name_utf16 = (const uint16_t *)big, .win_name_utf16_len = 40000};
	BAD(bad, umt_writer_add_module(w, &long_name, NULL), UMT_E_INVAL);
	BAD(bad, umt_writer_add_module(w, NULL, NULL), UMT_E_INVAL);
	m.device_name = "good";
	assert_int_equal(umt_writer_add_module(w, &m, NULL), 0);
	int64_t fp;
	char *text = malloc(40000);
	memset(text, 'a', 39999);
	text[39999] = 0;
	BAD(bad, umt_writer_add_disasm(w, text, &fp), UMT_E_INVAL);
	BAD(bad, umt_writer_add_disasm(w, "nop", NULL), UMT_E_INVAL);
	free(text);
	umt_decoded_ins dec = {.LCCount = 3, .LCSize = 16};
	BAD(bad, umt_writer_add_decoded(w, &dec, NULL, &fp), UMT_E_INVAL);
	dec.LCCount = 0;
	assert_int_equal(umt_writer_add_decoded(w, &dec, NULL, &fp), 0);
	BAD(bad, umt_writer_add_ins(w, NULL, NULL), UMT_E_INVAL);
	assert_int_equal(umt_writer_add_ins(w, &(umt_ins_rec){.CodeSize = 1, .DecodedFP = fp}, NULL), 0);
	umt_context_map map;
	umt_context_map_default(&map, 1, NULL);
	map.ElemCount = UMT_CONTEXT_MAP_REGS + 1; /* open would refuse the trace */
	BAD(bad, umt_writer_set_context_map(w, &map), UMT_E_INVAL);
	map.ElemCount = 10;
	map.DumpSize = 8; /* records with a 512-byte dump exist */
	BAD(bad, umt_writer_set_context_map(w, &map), UMT_E_INVAL);
	BAD(bad, umt_writer_add_thread(NULL, 1, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_writer_add_address_range(w, 0x1000, 0x1fff), 0);
}

/* The trace of the calls above, with (@p bad) or without the failing ones in between. */
static void write_with_failures(const char *dir, bool bad)
{
	umt_writer *w = open_small(dir);
	assert_int_equal(umt_writer_add_thread(w, 7, 0x1000, NULL), 0);
	assert_int_equal(umt_writer_add_thread(w, 8, 0x2000, NULL), 0);
	uint8_t regs[512], *big = calloc(1, 1 << 17);
	for (int i = 0; i < 512; i++)
		regs[i] = (uint8_t)i;
	bad_records(w, bad, regs, big);
	bad_tables(w, bad, big);
	free(big);
	assert_int_equal(umt_writer_exec_count(w), 3);
	assert_int_equal(umt_writer_finish(w), 0);
}

/*
 * Each call that fails leaves the writer exactly as it was: a trace written
 * with failing calls in between is byte for byte the trace without them.
 */
static void test_failed_calls_change_nothing(void **state)
{
	(void)state;
	char *with = fx_tmpdir(), *without = fx_tmpdir();
	write_with_failures(with, true);
	write_with_failures(without, false);
	struct fx_trace a, b;
	fx_load_dir(with, &a);
	fx_load_dir(without, &b);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (a.size[f] != b.size[f] || memcmp(a.data[f], b.data[f], a.size[f]) != 0)
			print_error("%s differs\n", umt_file_name(f));
		assert_int_equal(a.size[f], b.size[f]);
		assert_memory_equal(a.data[f], b.data[f], a.size[f]);
	}
	fx_free(&a);
	fx_free(&b);
	umt_trace *tr = fx_must_open_dir(with);
	assert_int_equal(umt_exec_count(tr), 3);
	umt_trace_close(tr);
	fx_rmtree(with);
	fx_rmtree(without);
	free(with);
	free(without);
}

/*
 * The largest local context (LCSize is 16-bit) is written whole, also when
 * the record is larger than the 64 KiB write buffer.
 */
static void test_largest_local_context(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer *w = open_small(dir);
	assert_int_equal(umt_writer_add_thread(w, 1, 0, NULL), 0);
	uint8_t *lc = malloc(UMT_WRITER_MAX_LC);
	for (uint32_t i = 0; i < UMT_WRITER_MAX_LC; i++)
		lc[i] = (uint8_t)(i * 7 + i / 256);
	umt_exec_desc d = {.type = UMT_REC_INSTRUCTION, .ins_id = 3, .lc = lc,
	                   .lc_size = UMT_WRITER_MAX_LC};
	for (int i = 0; i < 3; i++)
		assert_int_equal(umt_writer_add_exec(w, &d, NULL), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	for (uint64_t i = 0; i < 3; i++) {
		umt_rec r;
		int64_t ins_id;
		const uint8_t *got;
		uint64_t n;
		assert_int_equal(umt_exec_get(tr, i, &r), 0);
		assert_int_equal(r.offset, 16 + i * (14 + UMT_WRITER_MAX_LC));
		assert_int_equal(umt_rec_ins(&r, &ins_id, &got, &n), 0);
		assert_int_equal(ins_id, 3);
		assert_int_equal(n, UMT_WRITER_MAX_LC);
		assert_memory_equal(got, lc, UMT_WRITER_MAX_LC);
	}
	umt_trace_close(tr);
	free(lc);
	fx_rmtree(dir);
	free(dir);
}

/*
 * An instruction row of a table with RowSize 56 (the least open accepts)
 * at the very end of ins.itable, copied into a writer: umt_ins_rec covers
 * the 56 bytes, no more (it was a 64-byte overlay: 8 bytes were read past
 * the mapping).
 */
static void test_copy_row_of_56_byte_table(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	struct fx_trace t;
	fx_load_dir(dir, &t);
	/* rebuild ins.itable: header, extra area, then rows of 56 bytes up to the end */
	const uint8_t *old = t.data[UMT_FILE_INS];
	uint64_t rows = fx_get64(old + 8), extra_fp = fx_get64(old + 32), extra = fx_get64(old + 40);
	size_t size = 48 + extra + rows * 56;
	uint8_t *ins = malloc(size); /* exactly: AddressSanitizer sees a read past the end */
	memcpy(ins, old, 48);
	fx_put64(ins + 16, 56);          /* RowSize */
	fx_put64(ins + 24, 48 + extra);  /* TableFP */
	fx_put64(ins + 32, 48);          /* ExtraFP: FPs in rows are relative to it */
	memcpy(ins + 48, old + extra_fp, extra);
	for (uint64_t i = 0; i < rows; i++)
		memcpy(ins + 48 + extra + i * 56, old + 48 + i * 64, 56);
	free(t.data[UMT_FILE_INS]);
	t.data[UMT_FILE_INS] = ins;
	t.size[UMT_FILE_INS] = size;
	fx_sync(&t);
	umt_trace *tr = fx_must_open(&t);
	const umt_ins_rec *last;
	assert_int_equal(umt_ins_get(tr, rows - 1, &last), 0);
	assert_ptr_equal((const uint8_t *)last + sizeof *last, ins + size);
	char *copy = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(copy, NULL, &w), 0);
	int64_t id;
	assert_int_equal(umt_writer_add_ins(w, last, &id), 0);
	assert_int_equal(id, 0);
	assert_int_equal(umt_writer_finish(w), 0);
	struct fx_trace c;
	fx_load_dir(copy, &c);
	const uint8_t *row = c.data[UMT_FILE_INS] + 48;
	assert_int_equal(fx_get64(c.data[UMT_FILE_INS] + 16), 64); /* rows written 64 bytes long */
	assert_int_equal(fx_get64(row), 0);                         /* ID: its new row number */
	assert_memory_equal(row + 8, ins + size - 48, 48);          /* the other fields as read */
	static const uint8_t pad[8];
	assert_memory_equal(row + 56, pad, 8);
	fx_free(&c);
	umt_trace_close(tr);
	fx_free(&t);
	fx_rmtree(copy);
	fx_rmtree(dir);
	free(copy);
	free(dir);
}

/* ---- trace.xml strings ------------------------------------------------------------- */

/* A caller string field of umt_writer_xml and where the reader finds it. */
struct xml_field {
	size_t offset;    /* in umt_writer_xml */
	const char *name; /* as messages name it */
	const char *path; /* umt_meta_get() path */
};

#define XML_FIELD(f, path) {offsetof(umt_writer_xml, f), "xml." #f, path}
static const struct xml_field xml_fields[] = {
	XML_FIELD(xed_version, "Xed/Version"),
	XML_FIELD(process_id, "App/ProcessID"),
	XML_FIELD(bitness, "App/Bitness"),
	XML_FIELD(app_command_line, "App/CommandLine"),
	XML_FIELD(os_id, "OS/Id"),
	XML_FIELD(os_name, "OS/Name"),
	XML_FIELD(pin_version, "Pin/Version"),
	XML_FIELD(pin_command_line, "Pin/CommandLine"),
	XML_FIELD(has_xmm, "CPU/HasXMM"),
	XML_FIELD(has_ymm, "CPU/hasYMM"),
	XML_FIELD(has_zmm, "CPU/hasZMM"),
	XML_FIELD(raw_trace_date, "RawTrace/DateTime"),
	XML_FIELD(umtracer_version, "RawTrace/UMTracer/Version"),
};
#define XML_FIELDS (sizeof xml_fields / sizeof xml_fields[0])

static void set_field(umt_writer_options *o, const struct xml_field *f, const char *value)
{
	memcpy((char *)&o->xml + f->offset, &value, sizeof value);
}

/*
 * umt_writer_open() refuses @p value in every field and inside xml_text,
 * saying "FIELD: WHAT" (" at byte N" with @p at >= 0, N counted in the
 * field); nothing is created on disk.
 */
static void expect_refused(const char *dir, const char *value, const char *what, int at)
{
	static const char prefix[] = "<?xml version=\"1.0\"?><T><N>";
	for (size_t i = 0; i <= XML_FIELDS; i++) {
		umt_writer_options o;
		umt_writer_options_init(&o, UMT_FLAVOUR_2015);
		char text[256], want[256];
		if (i < XML_FIELDS) {
			set_field(&o, &xml_fields[i], value);
			snprintf(want, sizeof want, "%s: %s", xml_fields[i].name, what);
		} else {
			snprintf(text, sizeof text, "%s%s</N></T>", prefix, value);
			o.xml_text = text;
			snprintf(want, sizeof want, "xml_text: %s", what);
			at += at >= 0 ? (int)sizeof prefix - 1 : 0;
		}
		if (at >= 0)
			snprintf(want + strlen(want), sizeof want - strlen(want), " at byte %d", at);
		umt_writer *w;
		int rc = umt_writer_open(dir, &o, &w);
		if (rc != UMT_E_INVAL || strstr(umt_errmsg(), want) == NULL)
			print_error("want \"%s\", got %d %s\n", want, rc, umt_errmsg());
		assert_int_equal(rc, UMT_E_INVAL);
		assert_non_null(strstr(umt_errmsg(), want));
		assert_null(w);
		struct stat st;
		assert_int_equal(stat(dir, &st), -1); /* checked before the directory is created */
	}
}

/* @p value, in every field at once, reads back unchanged through umt_trace_meta(). */
static void expect_round_trip(const char *dir, const char *value)
{
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	for (size_t i = 0; i < XML_FIELDS; i++)
		set_field(&o, &xml_fields[i], value);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	const umt_meta *m;
	int rc = umt_trace_meta(tr, &m);
	if (rc != 0)
		print_error("\"%s\": %s\n", value, umt_errmsg());
	assert_int_equal(rc, 0);
	for (size_t i = 0; i < XML_FIELDS; i++) {
		const char *got = umt_meta_get(m, xml_fields[i].path);
		assert_non_null(got);
		assert_string_equal(got, value);
	}
	umt_trace_close(tr);
}

/*
 * Every caller string that goes into trace.xml: what XML 1.0 cannot hold is
 * refused at open (control characters, invalid UTF-8); everything else
 * reads back as written.
 */
static void test_xml_strings(void **state)
{
	(void)state;
	char *base = fx_tmpdir(), dir[4200];
	snprintf(dir, sizeof dir, "%s/trace", base);
	char value[8], what[64];
	for (int c = 1; c < 0x20; c++) {
		snprintf(value, sizeof value, "a%cb", c);
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		snprintf(what, sizeof what, "control character 0x%02x", c);
		expect_refused(dir, value, what, 1);
	}
	static const char *const invalid[] = {
		"\x80",             /* a lone continuation byte */
		"a\x80z", "\xc3",   /* a sequence cut short */
		"\xc0\xaf",         /* overlong '/' */
		"\xc1\xbf",         /* overlong U+007F */
		"\xe0\x80\xaf",     /* overlong, 3 bytes */
		"\xf0\x80\x80\xaf", /* overlong, 4 bytes */
		"\xed\xa0\x80",     /* a UTF-16 surrogate */
		"\xf4\x90\x80\x80", /* above U+10FFFF */
		"\xff",
	};
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
		expect_refused(dir, invalid[i], "not valid UTF-8", -1);
	expect_refused(dir, "x\xef\xbf\xbe", "U+FFFE", 1);
	expect_refused(dir, "\xef\xbf\xbf", "U+FFFF", 0);
	/* what XML 1.0 allows comes back unchanged: edges and middles */
	static const char *const fine[] = {
		"a\tb", "\tab\t", "a\nb", "\nab\n", "a\rb", "\r\n", "a\177b", "\177",
		"&amp; <b> \"q\" 'a' ]]>", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\x85",
		" spaces  ", "",
	};
	for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
		expect_round_trip(dir, fine[i]);
	fx_rmtree(base);
	free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_std_files),
		cmocka_unit_test(test_2014_flavour),
		cmocka_unit_test(test_prev_next_across_windows),
		cmocka_unit_test(test_large_block),
		cmocka_unit_test(test_raw_records_and_options),
		cmocka_unit_test(test_invalid_use),
		cmocka_unit_test(test_abort_leaves_no_temp),
		cmocka_unit_test(test_write_error_sticks),
		cmocka_unit_test(test_failed_calls_change_nothing),
		cmocka_unit_test(test_largest_local_context),
		cmocka_unit_test(test_copy_row_of_56_byte_table),
		cmocka_unit_test(test_xml_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
