/*
 * writer.c: the files it produces, byte for byte where the layout matters,
 * its streaming (prev/next patching across windows, large blocks), and its
 * argument checks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

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
	assert_null(read_text(dir, ".ins.itable.rows.tmp"));
	assert_null(read_text(dir, ".ins.itable.extra.tmp"));
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

/* A memory block larger than the write buffer goes straight to the file. */
static void test_large_block(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.buffer_size = 64 << 10;
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
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
	umt_writer_abort(w);
	assert_null(read_text(dir, ".ins.itable.rows.tmp"));
	fx_rmtree(dir);
	free(dir);
}

/*
 * A write that fails in the background I/O thread is reported by a later
 * call of the writer, with the file's name. A file-size limit makes the
 * writes fail (EFBIG; SIGXFSZ ignored), in a child so the limit stays there.
 */
static void test_write_error_reported(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
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
		if (rc == 0)
			rc = umt_writer_finish(w);
		else
			umt_writer_abort(w);
		if (rc != UMT_E_IO)
			_exit(11);
		if (strstr(umt_errmsg(), "exec.vtable: cannot write: File too large") == NULL)
			_exit(12);
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	fx_rmtree(dir);
	free(dir);
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
		cmocka_unit_test(test_write_error_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
