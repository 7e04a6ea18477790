/*
 * names.c: built-in register names for both XED numberings, register names
 * of a trace (context map, fallbacks, special values), the enum header
 * loader (real XED shapes, every value form, comments and directives,
 * garbage of every kind), lookups both ways, documentation directories and
 * their XED version, and the check of tables against a trace.
 *
 * Headers are written here as text, in the syntax of XED's generated
 * headers; the expected values are literal numbers (ERRATA 17), not taken
 * from the code under test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fixture.h"
#include "internal.h" /* umt__trace_xed_date, to tell what trace.xml said */

/* ---- helpers ---------------------------------------------------------------- */

static void write_text(const char *dir, const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static char *make_subdir(const char *dir, const char *name)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
	return path;
}

static umt_enum *parse_ok(const char *text, const char *type_name)
{
	umt_enum *e = NULL;
	int rc = umt_enum_parse(text, strlen(text), "hdr.h", type_name, &e);
	if (rc != 0)
		print_error("parse: %d: %s\n", rc, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_non_null(e);
	return e;
}

static void expect_enum_name(const umt_enum *e, int64_t value, const char *name)
{
	const char *s = umt_enum_name(e, value);
	if (name == NULL) {
		assert_null(s);
		return;
	}
	assert_non_null(s);
	assert_string_equal(s, name);
}

static void expect_enum_value(const umt_enum *e, const char *name, int64_t value)
{
	int64_t v = 0x5a5a;
	int rc = umt_enum_value(e, name, &v);
	if (rc != 0)
		print_error("%s: %s\n", name, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_true(v == value);
}

/* A parse that must fail with @p code and a message containing @p where and @p what. */
static void expect_parse_error(const char *text, size_t size, int code, const char *where,
                               const char *what)
{
	umt_enum *e = (umt_enum *)(uintptr_t)1;
	int rc = umt_enum_parse(text, size, "hdr.h", NULL, &e);
	if (rc != code || strstr(umt_errmsg(), where) == NULL ||
	    (what && strstr(umt_errmsg(), what) == NULL))
		print_error("[%.60s]: expected %d with '%s' '%s', got %d: %s\n", text, code, where,
		            what ? what : "", rc, umt_errmsg());
	assert_int_equal(rc, code);
	assert_null(e);
	assert_non_null(strstr(umt_errmsg(), where));
	if (what)
		assert_non_null(strstr(umt_errmsg(), what));
}

static void expect_text_error(const char *text, const char *where, const char *what)
{
	expect_parse_error(text, strlen(text), UMT_E_CORRUPT, where, what);
}

static void expect_reg(const umt_trace *tr, int reg, const char *name)
{
	char buf[UMT_REG_NAME_MAX];
	memset(buf, 'x', sizeof buf);
	const char *s = umt_reg_name(tr, reg, buf, sizeof buf);
	assert_ptr_equal(s, buf);
	if (strcmp(s, name) != 0)
		print_error("reg %d: expected %s, got %s\n", reg, name, s);
	assert_string_equal(s, name);
}

/* ---- built-in registers --------------------------------------------------- */

static void test_special_reg_values(void **state)
{
	(void)state;
	/* ERRATA 17: 131, 132, 140, 141 in 20150121; 6 lower in 20140106 (GSBASE 0x87) */
	static const int64_t new_dates[] = {20150121, -1, 0, 20160101};
	static const int64_t old_dates[] = {20140106, 20131119, 56759, 1};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(umt_xed_special_reg(new_dates[i], UMT_SPECIAL_STACKPUSH), 131);
		assert_int_equal(umt_xed_special_reg(new_dates[i], UMT_SPECIAL_STACKPOP), 132);
		assert_int_equal(umt_xed_special_reg(new_dates[i], UMT_SPECIAL_FSBASE), 140);
		assert_int_equal(umt_xed_special_reg(new_dates[i], UMT_SPECIAL_GSBASE), 141);
		assert_int_equal(umt_xed_special_reg(old_dates[i], UMT_SPECIAL_STACKPUSH), 125);
		assert_int_equal(umt_xed_special_reg(old_dates[i], UMT_SPECIAL_STACKPOP), 126);
		assert_int_equal(umt_xed_special_reg(old_dates[i], UMT_SPECIAL_FSBASE), 134);
		assert_int_equal(umt_xed_special_reg(old_dates[i], UMT_SPECIAL_GSBASE), 0x87);
	}
	assert_int_equal(umt_xed_special_reg(20150121, 4), UMT_E_INVAL);
	assert_int_equal(umt_xed_special_reg(20150121, -1), UMT_E_INVAL);
}

/* ERRATA 17's XED 20150121 anchors: first value and names of each run. */
static const struct {
	int first;
	const char *names[8];
} anchors[] = {
	{0, {"invalid"}},
	{39, {"flags", "eflags", "rflags"}},
	{42, {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"}},
	{58, {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi"}},
	{74, {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"}},
	{82, {"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"}},
	{90, {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil"}},
	{106, {"ah", "ch", "dh", "bh"}},
	{111, {"rip", "eip"}},
	{122, {"mmx0", "mmx1", "mmx2", "mmx3", "mmx4", "mmx5", "mmx6", "mmx7"}},
	{131, {"stackpush", "stackpop"}},
	{140, {"fsbase", "gsbase"}},
	{153, {"cs", "ds", "es", "ss", "fs", "gs"}},
	{175, {"st0", "st1", "st2", "st3", "st4", "st5", "st6", "st7"}},
};

static void test_builtin_2015(void **state)
{
	(void)state;
	static const int64_t dates[] = {20150121, -1, 20160101};
	for (size_t d = 0; d < 3; d++) {
		for (size_t a = 0; a < sizeof anchors / sizeof anchors[0]; a++)
			for (int i = 0; i < 8 && anchors[a].names[i]; i++)
				assert_string_equal(umt_xed_reg_name(dates[d], anchors[a].first + i),
				                    anchors[a].names[i]);
		char want[16];
		for (int i = 0; i < 32; i++) {
			snprintf(want, sizeof want, "xmm%d", i);
			assert_string_equal(umt_xed_reg_name(dates[d], 184 + i), want);
			snprintf(want, sizeof want, "ymm%d", i);
			assert_string_equal(umt_xed_reg_name(dates[d], 216 + i), want);
			snprintf(want, sizeof want, "zmm%d", i);
			assert_string_equal(umt_xed_reg_name(dates[d], 248 + i), want);
		}
		assert_string_equal(umt_xed_reg_name(dates[d], 279), "zmm31");
		assert_null(umt_xed_reg_name(dates[d], 280)); /* LAST */
		assert_null(umt_xed_reg_name(dates[d], 511));
		assert_null(umt_xed_reg_name(dates[d], -4));
		/* operand names, stored (int16 read as unsigned) or sign-extended */
		assert_string_equal(umt_xed_reg_name(dates[d], 0xffff), "mem0");
		assert_string_equal(umt_xed_reg_name(dates[d], -1), "mem0");
		assert_string_equal(umt_xed_reg_name(dates[d], 0xfffe), "mem1");
		assert_string_equal(umt_xed_reg_name(dates[d], -2), "mem1");
		assert_string_equal(umt_xed_reg_name(dates[d], 0xfffd), "agen");
		assert_string_equal(umt_xed_reg_name(dates[d], -3), "agen");
		assert_null(umt_xed_reg_name(dates[d], 0xfffc));
	}
}

static void test_builtin_older(void **state)
{
	(void)state;
	static const int64_t dates[] = {20140106, 20131119, 56759};
	for (size_t d = 0; d < 3; d++) {
		/* every register up to GSBASE, 6 lower */
		for (size_t a = 1; a < sizeof anchors / sizeof anchors[0]; a++)
			for (int i = 0; i < 8 && anchors[a].names[i]; i++) {
				int r = anchors[a].first + i;
				if (r > 141)
					continue;
				assert_string_equal(umt_xed_reg_name(dates[d], r - 6),
				                    anchors[a].names[i]);
			}
		assert_string_equal(umt_xed_reg_name(dates[d], 0), "invalid");
		assert_string_equal(umt_xed_reg_name(dates[d], 68), "rax");
		assert_string_equal(umt_xed_reg_name(dates[d], 125), "stackpush");
		assert_string_equal(umt_xed_reg_name(dates[d], 126), "stackpop");
		assert_string_equal(umt_xed_reg_name(dates[d], 134), "fsbase");
		assert_string_equal(umt_xed_reg_name(dates[d], 135), "gsbase");
		assert_string_equal(umt_xed_reg_name(dates[d], 1), "cr0");
		/* the errata vouch for nothing above GSBASE */
		assert_null(umt_xed_reg_name(dates[d], 136));
		assert_null(umt_xed_reg_name(dates[d], 147)); /* cs in 2015 numbering - 6 */
		assert_null(umt_xed_reg_name(dates[d], 279));
		assert_null(umt_xed_reg_name(dates[d], -4));
		assert_string_equal(umt_xed_reg_name(dates[d], 0xffff), "mem0");
		assert_string_equal(umt_xed_reg_name(dates[d], -3), "agen");
	}
}

/* ---- register names of a trace ---------------------------------------------- */

static void test_reg_name_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	/* no trace.xml: unknown XED version, 20150121 numbering */
	expect_reg(tr, 74, "rax"); /* context map */
	expect_reg(tr, 111, "rip");
	expect_reg(tr, 75, "rcx"); /* empty StrName: built-in table */
	expect_reg(tr, 0, "invalid");
	expect_reg(tr, 82, "r8");
	expect_reg(tr, 279, "zmm31");
	expect_reg(tr, 131, "stackpush");
	expect_reg(tr, 132, "stackpop");
	expect_reg(tr, 140, "fsbase");
	expect_reg(tr, 141, "gsbase");
	expect_reg(tr, 0xffff, "mem0");
	expect_reg(tr, -1, "mem0");
	expect_reg(tr, 0xfffe, "mem1");
	expect_reg(tr, -2, "mem1");
	expect_reg(tr, 0xfffd, "agen");
	expect_reg(tr, -3, "agen");
	expect_reg(tr, 280, "reg280");
	expect_reg(tr, 511, "reg511");
	expect_reg(tr, 512, "reg512");
	expect_reg(tr, -4, "reg-4");
	expect_reg(tr, 0xfffc, "reg65532");
	expect_reg(tr, -2147483647 - 1, "reg-2147483648");

	/* truncation and misuse */
	char small[3];
	assert_string_equal(umt_reg_name(tr, 74, small, sizeof small), "ra");
	assert_string_equal(umt_reg_name(tr, 75, small, sizeof small), "rc");
	assert_string_equal(umt_reg_name(tr, 900, small, sizeof small), "re");
	char one[1] = {'x'};
	assert_string_equal(umt_reg_name(tr, 74, one, 1), "");
	char buf[UMT_REG_NAME_MAX];
	assert_null(umt_reg_name(NULL, 74, buf, sizeof buf));
	assert_null(umt_reg_name(tr, 74, NULL, sizeof buf));
	assert_null(umt_reg_name(tr, 74, buf, 0));
	umt_trace_close(tr);
	fx_free(&t);
}

/* StrName of register @p reg in the hand-made context map (spec 11.2 offset 1040). */
static uint8_t *strname(struct fx_trace *t, int reg)
{
	return t->data[UMT_FILE_CONTEXT_MAP] + 1040 + 16 * reg;
}

static void test_reg_name_context_map(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	memcpy(strname(&t, 75), "ABCDEFGHIJKLMNOP", 16);    /* 16 bytes, no NUL */
	memcpy(strname(&t, 76), "QRSTUVWXYZabcdef", 16);    /* and its neighbour full too */
	memcpy(strname(&t, 77), "a\x01\x1b[m\xff", 7);       /* control bytes */
	memcpy(strname(&t, 78), "\0junk", 6);               /* empty: NUL first */
	memcpy(strname(&t, 131), "mapname", 8);             /* special names win */
	memcpy(strname(&t, 141), "gs_base", 8);
	memcpy(strname(&t, 300), "custom300", 10);          /* beyond the built-in table */
	memcpy(strname(&t, 511), "last", 5);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	expect_reg(tr, 75, "ABCDEFGHIJKLMNOP");
	expect_reg(tr, 76, "QRSTUVWXYZabcdef");
	expect_reg(tr, 77, "a??[m?");
	expect_reg(tr, 78, "rsp");
	expect_reg(tr, 131, "stackpush");
	expect_reg(tr, 141, "gsbase");
	expect_reg(tr, 300, "custom300");
	expect_reg(tr, 511, "last");
	expect_reg(tr, 74, "rax");
	char buf[8];
	assert_string_equal(umt_reg_name(tr, 75, buf, sizeof buf), "ABCDEFG");
	umt_trace_close(tr);
	fx_free(&t);
}

/*
 * A writer trace with trace.xml Xed/Version @p xed (NULL: no trace.xml) and
 * a context map without names, so that only the XED version decides.
 */
static umt_trace *version_trace(int flavour, const char *xed, bool blank_names, char **dir)
{
	*dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, flavour);
	if (xed != NULL)
		o.xml.xed_version = xed;
	else
		o.write_trace_xml = 0;
	umt_writer *w;
	assert_int_equal(umt_writer_open(*dir, &o, &w), 0);
	if (blank_names) {
		static umt_context_map m;
		umt_context_map_default(&m, o.ins_record_version, xed);
		memset(m.StrName, 0, sizeof m.StrName);
		assert_int_equal(umt_writer_set_context_map(w, &m), 0);
	}
	assert_int_equal(umt_writer_finish(w), 0);
	umt_trace *tr;
	int rc = umt_trace_open(*dir, 0, &tr);
	if (rc != 0)
		print_error("open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	return tr;
}

static void close_version_trace(umt_trace *tr, char *dir)
{
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

/* Needs meta.c's umt__trace_xed_date() reading trace.xml Xed/Version. */
static void test_reg_name_by_trace_version(void **state)
{
	(void)state;
	char *dir;
	umt_trace *tr = version_trace(UMT_FLAVOUR_2014, "20140106", true, &dir);
	assert_true(umt__trace_xed_date(tr) == 20140106);
	expect_reg(tr, 68, "rax");
	expect_reg(tr, 0, "invalid");
	expect_reg(tr, 125, "stackpush");
	expect_reg(tr, 126, "stackpop");
	expect_reg(tr, 134, "fsbase");
	expect_reg(tr, 135, "gsbase");
	expect_reg(tr, 136, "reg136");
	expect_reg(tr, 74, "rsi"); /* 2015 rax (74) is rsi (80) renumbered */
	expect_reg(tr, 0xffff, "mem0");
	close_version_trace(tr, dir);

	tr = version_trace(UMT_FLAVOUR_2015, "20150121", true, &dir);
	assert_true(umt__trace_xed_date(tr) == 20150121);
	expect_reg(tr, 74, "rax");
	expect_reg(tr, 68, "r10d");
	expect_reg(tr, 131, "stackpush");
	expect_reg(tr, 141, "gsbase");
	expect_reg(tr, 135, "idtr");
	expect_reg(tr, 279, "zmm31");
	expect_reg(tr, 280, "reg280");
	close_version_trace(tr, dir);

	/* a Pin build number: the older numbering */
	tr = version_trace(UMT_FLAVOUR_2014, "56759", true, &dir);
	assert_true(umt__trace_xed_date(tr) == 56759);
	expect_reg(tr, 125, "stackpush");
	expect_reg(tr, 68, "rax");
	close_version_trace(tr, dir);

	/* the writer's own context map names every register in its numbering */
	tr = version_trace(UMT_FLAVOUR_2014, "20140106", false, &dir);
	expect_reg(tr, 68, "rax");
	expect_reg(tr, 125, "stackpush");
	close_version_trace(tr, dir);
}

/* ---- the enum loader: real shapes ------------------------------------------ */

static const char xed_license[] =
	"/*BEGIN_LEGAL \n"
	"Intel Open Source License \n"
	"\n"
	"Copyright (c) 2002-2015 Intel Corporation. All rights reserved.\n"
	" \n"
	"Redistribution and use in source and binary forms, with or without\n"
	"modification, are permitted provided that the following conditions are\n"
	"met: enum { NOT_THIS }; typedef enum { NOR_THIS } xed_iclass_enum_t;\n"
	"END_LEGAL */\n"
	"/// @file xed-iclass-enum.h\n"
	"\n"
	"// This file was automatically generated.\n"
	"// Do not edit this file.\n"
	"\n";

/* An xed-iclass-enum.h as XED generates it: 12 lines of license first. */
static char *iclass_header(void)
{
	static const char body[] =
		"#if !defined(_XED_ICLASS_ENUM_H_)\n"                 /* line 15 */
		"# define _XED_ICLASS_ENUM_H_\n"
		"#include \"xed-common-hdrs.h\"\n"
		"typedef enum {\n"                                    /* line 18 */
		"  XED_ICLASS_INVALID,\n"
		"  XED_ICLASS_AAA,\n"
		"  XED_ICLASS_AAD,\n"
		"  XED_ICLASS_ADD,\n"
		"  XED_ICLASS_MOV,\n"
		"  XED_ICLASS_LAST\n"
		"} xed_iclass_enum_t;\n"
		"\n"
		"/// This converts strings to #xed_iclass_enum_t types.\n"
		"/// @param s A C-string.\n"
		"/// @return #xed_iclass_enum_t\n"
		"/// @ingroup ENUM\n"
		"XED_DLL_EXPORT xed_iclass_enum_t str2xed_iclass_enum_t(const char* s);\n"
		"XED_DLL_EXPORT const char* xed_iclass_enum_t2str(const xed_iclass_enum_t p);\n"
		"XED_DLL_EXPORT xed_iclass_enum_t xed_iclass_enum_t_last(void);\n"
		"#endif\n";
	char *s = malloc(sizeof xed_license + sizeof body);
	snprintf(s, sizeof xed_license + sizeof body, "%s%s", xed_license, body);
	return s;
}

static void test_parse_xed_iclass(void **state)
{
	(void)state;
	char *text = iclass_header();
	umt_enum *e = parse_ok(text, "xed_iclass_enum_t");
	assert_int_equal(umt_enum_count(e), 6);
	assert_string_equal(umt_enum_prefix(e), "XED_ICLASS_");
	expect_enum_name(e, 0, "INVALID");
	expect_enum_name(e, 1, "AAA");
	expect_enum_name(e, 2, "AAD");
	expect_enum_name(e, 3, "ADD");
	expect_enum_name(e, 4, "MOV");
	expect_enum_name(e, 5, "LAST");
	expect_enum_name(e, 6, NULL);
	expect_enum_name(e, -1, NULL);
	expect_enum_name(e, INT64_MIN, NULL);
	expect_enum_name(e, INT64_MAX, NULL);
	expect_enum_value(e, "XED_ICLASS_MOV", 4);
	expect_enum_value(e, "MOV", 4);
	expect_enum_value(e, "INVALID", 0);
	expect_enum_value(e, "XED_ICLASS_LAST", 5);
	int64_t v;
	assert_int_equal(umt_enum_value(e, "mov", &v), UMT_E_NOT_FOUND); /* case-sensitive */
	assert_int_equal(umt_enum_value(e, "XED_ICLASS_", &v), UMT_E_NOT_FOUND);
	assert_int_equal(umt_enum_value(e, "", &v), UMT_E_NOT_FOUND);
	assert_int_equal(umt_enum_value(e, "NOT_THIS", &v), UMT_E_NOT_FOUND);
	assert_int_equal(umt_enum_value(NULL, "MOV", &v), UMT_E_INVAL);
	assert_int_equal(umt_enum_value(e, NULL, &v), UMT_E_INVAL);
	assert_int_equal(umt_enum_value(e, "MOV", NULL), UMT_E_INVAL);
	/* definition order */
	const char *name;
	assert_int_equal(umt_enum_entry(e, 3, &name, &v), 0);
	assert_string_equal(name, "ADD");
	assert_true(v == 3);
	assert_int_equal(umt_enum_entry(e, 5, NULL, NULL), 0);
	assert_int_equal(umt_enum_entry(e, 6, &name, &v), UMT_E_RANGE);
	assert_int_equal(umt_enum_entry(NULL, 0, &name, &v), UMT_E_INVAL);
	umt_enum_free(e);

	/* without a type name: the first enum, the same one (the license's is a comment) */
	e = parse_ok(text, NULL);
	assert_int_equal(umt_enum_count(e), 6);
	umt_enum_free(e);
	/* another type name: none */
	e = (umt_enum *)(uintptr_t)1;
	assert_int_equal(umt_enum_parse(text, strlen(text), "hdr.h", "xed_iform_enum_t", &e),
	                 UMT_E_NOT_FOUND);
	assert_null(e);
	assert_non_null(strstr(umt_errmsg(), "hdr.h: no enum xed_iform_enum_t"));
	free(text);

	/* NULL handles */
	assert_int_equal(umt_enum_count(NULL), 0);
	assert_null(umt_enum_name(NULL, 0));
	assert_null(umt_enum_prefix(NULL));
	umt_enum_free(NULL);
}

/* The reg enum's tail: aliases after LAST, with //< comments, must not rename. */
static void test_parse_aliases(void **state)
{
	(void)state;
	umt_enum *e = parse_ok("typedef enum {\n"
	                       "  XED_REG_INVALID,\n"
	                       "  XED_REG_EAX,\n"
	                       "  XED_REG_RAX,\n"
	                       "  XED_REG_RCX,\n"
	                       "  XED_REG_LAST,\n"
	                       "  XED_REG_GPR64_FIRST=XED_REG_RAX, //< PSEUDO\n"
	                       "  XED_REG_GPR64_LAST=XED_REG_RCX, //<PSEUDO\n"
	                       "  XED_REG_INVALID_FIRST=XED_REG_INVALID, //< PSEUDO\n"
	                       "  XED_REG_AFTER_ALIAS,\n"
	                       "  XED_REG_ZMM_LAST=XED_REG_RCX //<PSEUDO\n"
	                       "} xed_reg_enum_t;\n",
	                       "xed_reg_enum_t");
	assert_int_equal(umt_enum_count(e), 10);
	expect_enum_name(e, 0, "INVALID");
	expect_enum_name(e, 1, "EAX");
	expect_enum_name(e, 2, "RAX");
	expect_enum_name(e, 3, "RCX");
	expect_enum_name(e, 4, "LAST");
	expect_enum_value(e, "GPR64_FIRST", 2);
	expect_enum_value(e, "XED_REG_GPR64_LAST", 3);
	expect_enum_value(e, "INVALID_FIRST", 0);
	expect_enum_value(e, "AFTER_ALIAS", 1); /* implicit values continue from the alias */
	expect_enum_value(e, "ZMM_LAST", 3);
	umt_enum_free(e);

	/* a _LAST sentinel gives way to a later real constant, not to an alias */
	e = parse_ok("enum { K_A, K_LAST, K_B = 1, K_C = K_LAST, K_D = 5, K_E = K_D, K_F = 5 };",
	             NULL);
	expect_enum_name(e, 1, "B");
	expect_enum_name(e, 5, "D");
	umt_enum_free(e);
	e = parse_ok("enum { K_A, K_LAST, K_C = K_LAST, K_Z_LAST = 1 };", NULL);
	expect_enum_name(e, 1, "LAST");
	umt_enum_free(e);
	/* the same rules in the sorted index (values too sparse for a dense array) */
	e = parse_ok("enum { K_A, K_LAST = 100000, K_C = K_LAST, K_B = 100000, K_D = -100000 };",
	             NULL);
	expect_enum_name(e, 100000, "B");
	expect_enum_name(e, -100000, "D");
	expect_enum_name(e, 0, "A");
	expect_enum_name(e, 1, NULL);
	umt_enum_free(e);
}

static void test_parse_values(void **state)
{
	(void)state;
	umt_enum *e = parse_ok("enum values {\n"
	                       "  V_ZERO,\n"
	                       "  V_TEN = 10,\n"
	                       "  V_ELEVEN,\n"
	                       "  V_HEX = 0x7b,\n"
	                       "  V_HEX2,\n"
	                       "  V_HEXUP = 0XFF,\n"
	                       "  V_OCT = 017,\n"
	                       "  V_NEG = -5,\n"
	                       "  V_NEG2,\n"
	                       "  V_PLUS = V_TEN + 1,\n"
	                       "  V_MINUS = V_HEX - 3,\n"
	                       "  V_EXPR = -(V_TEN - 2) + +4 - -1,\n"
	                       "  V_NOT = ~0,\n"
	                       "  V_SUFFIX = 42UL,\n"
	                       "  V_SUFFIX2 = 0x10ull,\n"
	                       "  V_MAX = 0x7fffffffffffffff,\n"
	                       "  V_MIN = -9223372036854775807 - 1,\n"
	                       "  V_AFTER_MIN,\n"
	                       "  V_PAREN = ((((7)))),\n"
	                       "  V_ZERO_HEX = 0x0,\n"
	                       "};\n",
	                       "values");
	static const struct {
		const char *name;
		int64_t value;
	} want[] = {
		{"ZERO", 0}, {"TEN", 10}, {"ELEVEN", 11}, {"HEX", 123}, {"HEX2", 124},
		{"HEXUP", 255}, {"OCT", 15}, {"NEG", -5}, {"NEG2", -4}, {"PLUS", 11},
		{"MINUS", 120}, {"EXPR", -3}, {"NOT", -1}, {"SUFFIX", 42}, {"SUFFIX2", 16},
		{"MAX", INT64_MAX}, {"MIN", INT64_MIN}, {"AFTER_MIN", INT64_MIN + 1}, {"PAREN", 7},
		{"ZERO_HEX", 0},
	};
	assert_int_equal(umt_enum_count(e), sizeof want / sizeof want[0]);
	assert_string_equal(umt_enum_prefix(e), "V_");
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		const char *name;
		int64_t v;
		assert_int_equal(umt_enum_entry(e, i, &name, &v), 0);
		assert_string_equal(name, want[i].name);
		assert_true(v == want[i].value);
		expect_enum_value(e, want[i].name, want[i].value);
	}
	expect_enum_name(e, 0, "ZERO"); /* not ZERO_HEX, defined later */
	expect_enum_name(e, 11, "ELEVEN");
	expect_enum_name(e, 124, "HEX2");
	expect_enum_name(e, INT64_MAX, "MAX");
	expect_enum_name(e, INT64_MIN, "MIN");
	expect_enum_name(e, INT64_MIN + 1, "AFTER_MIN");
	expect_enum_name(e, -1, "NOT");
	expect_enum_name(e, 12, NULL);
	umt_enum_free(e);
}

static void test_parse_forms(void **state)
{
	(void)state;
	static const char text[] =
		"enum color;\n"                                   /* a declaration */
		"extern enum color paint(enum color c);\n"       /* uses */
		"enum color { RED, GREEN = 5 };\n"
		"typedef enum shape_tag { SQUARE = 3, CIRCLE } shape_t;\n"
		"enum class Mode : unsigned short { MODE_A = 1, MODE_B };\n"
		"struct s { enum { INNER_X, INNER_Y } field, *ptr; };\n"
		"typedef enum { ANON_A } anon_t, *anon_ptr_t;\n";
	umt_enum *e = parse_ok(text, NULL);
	expect_enum_name(e, 5, "GREEN");
	umt_enum_free(e);
	e = parse_ok(text, "color");
	expect_enum_value(e, "RED", 0);
	umt_enum_free(e);
	e = parse_ok(text, "shape_t");
	expect_enum_value(e, "CIRCLE", 4);
	umt_enum_free(e);
	e = parse_ok(text, "shape_tag");
	expect_enum_value(e, "SQUARE", 3);
	umt_enum_free(e);
	e = parse_ok(text, "Mode");
	expect_enum_name(e, 2, "B");
	umt_enum_free(e);
	e = parse_ok(text, "field");
	expect_enum_value(e, "INNER_Y", 1);
	umt_enum_free(e);
	e = parse_ok(text, "anon_ptr_t");
	expect_enum_value(e, "ANON_A", 0);
	umt_enum_free(e);
	umt_enum *none = (umt_enum *)(uintptr_t)1;
	assert_int_equal(umt_enum_parse(text, strlen(text), "hdr.h", "paint", &none),
	                 UMT_E_NOT_FOUND);
	assert_null(none);
	const char *no_enum = "int x; /* enum { A } */ // enum { B };\n";
	assert_int_equal(umt_enum_parse(no_enum, strlen(no_enum), "hdr.h", NULL, &none),
	                 UMT_E_NOT_FOUND);
	assert_non_null(strstr(umt_errmsg(), "hdr.h: no enum"));
	assert_int_equal(umt_enum_parse("", 0, NULL, NULL, &none), UMT_E_NOT_FOUND);
	assert_non_null(strstr(umt_errmsg(), "<memory>: no enum"));
	assert_int_equal(umt_enum_parse(NULL, 0, "hdr.h", NULL, &none), UMT_E_NOT_FOUND);
	assert_int_equal(umt_enum_parse(NULL, 3, "hdr.h", NULL, &none), UMT_E_INVAL);
	assert_int_equal(umt_enum_parse("enum{A};", 8, "hdr.h", NULL, NULL), UMT_E_INVAL);
}

/* Comments, strings and directives that hide braces, semicolons and enums. */
static void test_parse_comments(void **state)
{
	(void)state;
	static const char text[] =
		"// enum { LINE_COMMENT };\n"
		"/* enum { BLOCK }; */\n"
		"#define FAKE enum { DIRECTIVE };\n"
		"#define SPLICED 1 \\\n"
		"  enum { CONTINUED };\n"
		"#if 0 /* a comment in a directive\n"
		"   that spans lines: enum { IN_DIRECTIVE_COMMENT }; */\n"
		"#endif\n"
		"  # define INDENTED enum { X };\n"
		"const char *s = \"/* not a comment enum { STR }; \";\n"
		"char c = '\"'; char d = '{';\n"
		"// a spliced line comment \\\n"
		"enum { SPLICED_COMMENT };\n"
		"typedef enum /* } ; = */ {\n"
		"  C_A, /* } ; = */\n"
		"  C_B /* multi\n"
		"         line } */ = 4, // } ;\n"
		"#ifdef SOMETHING\n"
		"  C_C, /* both branches are read */\n"
		"#else\n"
		"  C_D,\n"
		"#endif\n"
		"  C_E = C_B + 1 /**/, /***/ C_F /*/ } */\n"
		"} c_t /* ; */;\n";
	umt_enum *e = parse_ok(text, NULL);
	assert_int_equal(umt_enum_count(e), 6);
	expect_enum_value(e, "C_A", 0);
	expect_enum_value(e, "C_B", 4);
	expect_enum_value(e, "C_C", 5);
	expect_enum_value(e, "C_D", 6);
	expect_enum_value(e, "C_E", 5);
	expect_enum_value(e, "C_F", 6);
	expect_enum_name(e, 5, "C");
	expect_enum_name(e, 6, "D");
	umt_enum_free(e);

	/* a byte order mark does not hide a directive on line 1 */
	e = parse_ok("\xef\xbb\xbf#define X enum { BAD };\nenum { OK_A, OK_B };", NULL);
	expect_enum_value(e, "OK_B", 1);
	umt_enum_free(e);

	/* line numbers count the lines of comments, splices and directives */
	static const char late_error[] =
		"/* one\n two\n three */\n"     /* lines 1-3 */
		"#define A \\\n  B \\\n  C\n"  /* lines 4-6 */
		"// x \\\n  y\n"                /* lines 7-8 */
		"\r\n\r\n"                      /* lines 9-10 */
		"enum e {\n"                    /* line 11 */
		"  E_A = \"s\"\n"               /* line 12 */
		"};\n";
	expect_text_error(late_error, "hdr.h: line 12: ", "expected a value, found '\"s\"'");
}

/* XED's iform enum has ~6000 constants: check every one both ways. */
static void test_large_enum(void **state)
{
	(void)state;
	enum { N = 6000 };
	size_t cap = (size_t)N * 64 + 256, len = 0;
	char *text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "typedef enum {\n");
	for (int i = 0; i < N; i++) {
		/* explicit values now and then; implicit ones continue from them */
		if (i % 1000 == 500)
			len += (size_t)snprintf(text + len, cap - len, "  XED_IFORM_F%d_GPRv = %d,\n",
			                        i, i);
		else if (i % 1000 == 700)
			len += (size_t)snprintf(text + len, cap - len, "  XED_IFORM_F%d_MEMv = 0x%x,\n",
			                        i, i);
		else
			len += (size_t)snprintf(text + len, cap - len, "  XED_IFORM_F%d_IMMb,\n", i);
	}
	len += (size_t)snprintf(text + len, cap - len, "  XED_IFORM_LAST\n} xed_iform_enum_t;\n");
	umt_enum *e = parse_ok(text, "xed_iform_enum_t");
	assert_int_equal(umt_enum_count(e), N + 1);
	assert_string_equal(umt_enum_prefix(e), "XED_IFORM_");
	char name[64], whole[80];
	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof name, "F%d_%s", i,
		         i % 1000 == 500 ? "GPRv" : i % 1000 == 700 ? "MEMv" : "IMMb");
		snprintf(whole, sizeof whole, "XED_IFORM_%s", name);
		expect_enum_name(e, i, name);
		expect_enum_value(e, name, i);
		expect_enum_value(e, whole, i);
	}
	expect_enum_name(e, N, "LAST");
	expect_enum_name(e, N + 1, NULL);
	umt_enum_free(e);
	free(text);

	/* sparse values: the sorted index */
	len = 0;
	text = malloc(cap);
	len += (size_t)snprintf(text + len, cap - len, "enum sparse {\n");
	for (int i = 0; i < N; i++)
		len += (size_t)snprintf(text + len, cap - len, "  S_%d = %lld,\n", i,
		                        (long long)i * 100003 - 300000000);
	snprintf(text + len, cap - len, "};\n");
	e = parse_ok(text, NULL);
	assert_int_equal(umt_enum_count(e), N);
	for (int i = 0; i < N; i++) {
		int64_t v = (int64_t)i * 100003 - 300000000;
		snprintf(name, sizeof name, "%d", i);
		expect_enum_name(e, v, name);
		expect_enum_name(e, v + 1, NULL);
		expect_enum_name(e, v - 1, NULL);
		expect_enum_value(e, name, v);
	}
	expect_enum_name(e, INT64_MIN, NULL);
	expect_enum_name(e, INT64_MAX, NULL);
	umt_enum_free(e);
	free(text);

	/* the full int64 range in one enum */
	e = parse_ok("enum { W_MIN = -0x7fffffffffffffff - 1, W_MAX = 0x7fffffffffffffff, W_0 = 0 };",
	             NULL);
	expect_enum_name(e, INT64_MIN, "MIN");
	expect_enum_name(e, INT64_MAX, "MAX");
	expect_enum_name(e, 0, "0");
	expect_enum_name(e, 1, NULL);
	umt_enum_free(e);
}

static void test_prefix(void **state)
{
	(void)state;
	umt_enum *e = parse_ok("enum { XED_CATEGORY_INVALID, XED_CATEGORY_3DNOW, "
	                       "XED_CATEGORY_DATAXFER };", NULL);
	assert_string_equal(umt_enum_prefix(e), "XED_CATEGORY_");
	expect_enum_name(e, 1, "3DNOW");
	umt_enum_free(e);
	/* common characters past the last '_' stay */
	e = parse_ok("enum { PFX_ABC, PFX_ABD };", NULL);
	assert_string_equal(umt_enum_prefix(e), "PFX_");
	expect_enum_name(e, 0, "ABC");
	umt_enum_free(e);
	/* no common prefix */
	e = parse_ok("enum { ALPHA_1, BETA_2 };", NULL);
	assert_string_equal(umt_enum_prefix(e), "");
	expect_enum_name(e, 1, "BETA_2");
	expect_enum_value(e, "ALPHA_1", 0);
	umt_enum_free(e);
	/* no name may become empty: back off to the previous '_' */
	e = parse_ok("enum { A_B_, A_B_C };", NULL);
	assert_string_equal(umt_enum_prefix(e), "A_");
	expect_enum_name(e, 0, "B_");
	expect_enum_value(e, "B_C", 1);
	umt_enum_free(e);
	e = parse_ok("enum { ONE_, ONE_TWO };", NULL);
	assert_string_equal(umt_enum_prefix(e), "");
	umt_enum_free(e);
	/* a single constant */
	e = parse_ok("enum { XED_ICLASS_INVALID };", NULL);
	assert_string_equal(umt_enum_prefix(e), "XED_ICLASS_");
	expect_enum_name(e, 0, "INVALID");
	umt_enum_free(e);
	/* syscall unified IDs keep their whole names */
	e = parse_ok("enum { SYSCALL_NtClose_0500_1 = 7, SYSCALL_NtCreateFile_0500_11 };", NULL);
	assert_string_equal(umt_enum_prefix(e), "");
	expect_enum_name(e, 7, "SYSCALL_NtClose_0500_1");
	expect_enum_name(e, 8, "SYSCALL_NtCreateFile_0500_11");
	expect_enum_value(e, "SYSCALL_NtClose_0500_1", 7);
	int64_t v;
	assert_int_equal(umt_enum_value(e, "NtClose_0500_1", &v), UMT_E_NOT_FOUND);
	umt_enum_free(e);
	e = parse_ok("enum { SYSCALL_NtClose_0500_1 };", NULL);
	assert_string_equal(umt_enum_prefix(e), "");
	umt_enum_free(e);
}

/* ---- the enum loader: garbage ------------------------------------------------ */

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		const char *where;
		const char *what;
	} cases[] = {
		{"typedef enum {\n A,\n /* never closed\n B\n} x;\n", "line 3:",
		 "unterminated /* comment"},
		{"enum e { A, /* B };", "line 1:", "unterminated"},
		{"/*/ enum { A };", "line 1:", "unterminated"},
		{"\n\nenum e {\n A,\n B,\n", "line 3:", "enum never closes"},
		{"enum e { A, B,", "line 1:", "never closes"},
		{"enum e {\n A\n}\n", "line 4:", "expected ';' after the enum, found end of file"},
		{"enum e { A } x {", "line 1:", "expected ';' after the enum, found '{'"},
		{"enum e {\n};", "line 2:", "empty enum"},
		{"enum e { A = 99999999999999999999 };", "line 1:",
		 "number '99999999999999999999' overflows"},
		{"enum e { A = 0x8000000000000000 };", "line 1:", "overflows"},
		{"enum e { A = 9223372036854775808 };", "line 1:", "overflows"},
		{"enum e {\n A = 0x7fffffffffffffff,\n B\n};", "line 3:", "value overflows"},
		{"enum e { A = 0x7fffffffffffffff + 1 };", "line 1:", "value overflows"},
		{"enum e { A = -0x7fffffffffffffff - 2 };", "line 1:", "value overflows"},
		{"enum e { A = -(-0x7fffffffffffffff - 1) };", "line 1:", "value overflows"},
		{"enum e {\n A = B };", "line 2:", "unknown constant B"},
		{"enum e { A = B, B };", "line 1:", "unknown constant B"},
		{"enum e { A = sizeof(int) };", "line 1:", "unknown constant sizeof"},
		{"enum e {\n A,\n A\n};", "line 3:", "A is defined twice (first at line 2)"},
		{"enum e { A = 12ab };", "line 1:", "bad number '12ab'"},
		{"enum e { A = 0x };", "line 1:", "bad number '0x'"},
		{"enum e { A = 09 };", "line 1:", "bad number '09'"},
		{"enum e { A = 1.5 };", "line 1:", "bad number '1.5'"},
		{"enum e { A = 1 << 2 };", "line 1:", "expected ',' or '}' after A, found '<'"},
		{"enum e { A = 2 * 3 };", "line 1:", "found '*'"},
		{"enum e { A B };", "line 1:", "expected ',' or '}' after A, found 'B'"},
		{"enum e { = 1 };", "line 1:", "expected a constant name, found '='"},
		{"enum e { A, B,, };", "line 1:", "expected a constant name, found ','"},
		{"enum e { A = };", "line 1:", "expected a value, found '}'"},
		{"enum e { A = \"x\" };", "line 1:", "expected a value, found '\"x\"'"},
		{"enum e { A = (1 };", "line 1:", "expected ')', found '}'"},
		{"enum e { A =", "line 1:", "enum never closes"},
		{"enum e { 5 };", "line 1:", "expected a constant name, found '5'"},
		{"enum e { A = \x80 };", "line 1:", "found '\\x80'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char where[64];
		snprintf(where, sizeof where, "hdr.h: %s", cases[i].where);
		expect_text_error(cases[i].text, where, cases[i].what);
	}

	/* a NUL byte anywhere, even in a comment, with its line */
	static const char nul[] = "enum e {\n A,\n B /* \0 */,\n};";
	expect_parse_error(nul, sizeof nul - 1, UMT_E_CORRUPT, "hdr.h: line 3: ", "NUL byte");
	static const char nul0[] = "\0";
	expect_parse_error(nul0, 1, UMT_E_CORRUPT, "hdr.h: line 1: ", "NUL byte");

	/* 63 levels of parentheses are fine, 64 are too many */
	char nest[256];
	for (int k = 63; k <= 64; k++) {
		int o = snprintf(nest, sizeof nest, "enum e { A = ");
		for (int i = 0; i < k; i++)
			nest[o++] = '(';
		nest[o++] = '1';
		for (int i = 0; i < k; i++)
			nest[o++] = ')';
		snprintf(nest + o, sizeof nest - (size_t)o, " };");
		if (k == 63) {
			umt_enum *e = parse_ok(nest, NULL);
			expect_enum_name(e, 1, "A");
			umt_enum_free(e);
		} else {
			expect_text_error(nest, "hdr.h: line 1: ", "nested too deeply");
		}
	}

	/* deep unary chains and parentheses cannot exhaust the stack */
	size_t n = 200000;
	char *deep = malloc(n + 64);
	memcpy(deep, "enum e { A = ", 13);
	memset(deep + 13, '-', n);
	strcpy(deep + 13 + n, "1 };");
	expect_text_error(deep, "hdr.h: line 1: ", "nested too deeply");
	memset(deep + 13, '(', n);
	expect_text_error(deep, "hdr.h: line 1: ", "nested too deeply");
	free(deep);

	/* the longest token is cut in messages */
	char longname[400] = "enum e { A = ";
	memset(longname + 13, '7', 300);
	strcpy(longname + 313, " };");
	char shown[64] = "'";
	memset(shown + 1, '7', 32);
	strcpy(shown + 33, "...'");
	expect_text_error(longname, "hdr.h: line 1: ", shown);
}

/* Mutated headers: never a crash (ASan), only success or a located error. */
static void test_parse_garbage(void **state)
{
	(void)state;
	char *base = iclass_header();
	size_t blen = strlen(base);
	static const char alphabet[] = "{}();,=/*#\\\n\"'-+~(0xX9_A\0\x80 ";
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	char *buf = malloc(blen + 64);
	for (int iter = 0; iter < 3000; iter++) {
		memcpy(buf, base, blen);
		size_t len = blen;
		int edits = 1 + iter % 4;
		for (int k = 0; k < edits; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			size_t pos = (size_t)(seed >> 33) % len;
			char c = alphabet[(seed >> 13) % (sizeof alphabet - 1)];
			switch ((seed >> 7) % 3) {
			case 0: buf[pos] = c; break;
			case 1: /* insert */
				memmove(buf + pos + 1, buf + pos, len - pos);
				buf[pos] = c;
				len++;
				break;
			default: /* cut the rest */
				len = pos + 1;
				break;
			}
		}
		umt_enum *e = NULL;
		int rc = umt_enum_parse(buf, len, "fuzz.h", NULL, &e);
		assert_true(rc == 0 || rc == UMT_E_CORRUPT || rc == UMT_E_NOT_FOUND);
		if (rc == 0) {
			assert_true(umt_enum_count(e) > 0);
			const char *name;
			int64_t v, back;
			for (size_t i = 0; i < umt_enum_count(e); i++) {
				assert_int_equal(umt_enum_entry(e, i, &name, &v), 0);
				assert_non_null(umt_enum_name(e, v));
				assert_int_equal(umt_enum_value(e, name, &back), 0);
			}
			umt_enum_free(e);
		} else {
			assert_null(e);
			assert_true(strncmp(umt_errmsg(), "fuzz.h: ", 8) == 0);
		}
	}
	free(buf);
	free(base);
}

/* 10 MB of text is fine; line numbers stay exact at that size. */
static void test_parse_large_text(void **state)
{
	(void)state;
	enum { LINES = 200000 };
	static const char line[] = "/* padding padding padding padding padding padding */ //\n";
	size_t cap = LINES * (sizeof line - 1) + 256, len = 0;
	char *text = malloc(cap);
	for (int i = 0; i < LINES; i++) {
		memcpy(text + len, line, sizeof line - 1);
		len += sizeof line - 1;
	}
	assert_true(len > 10 * 1000 * 1000);
	size_t body = len;
	len += (size_t)snprintf(text + len, cap - len, "enum big { B_A, B_B = 0x10 };\n");
	umt_enum *e = NULL;
	assert_int_equal(umt_enum_parse(text, len, "big.h", NULL, &e), 0);
	expect_enum_name(e, 16, "B");
	umt_enum_free(e);
	snprintf(text + body, cap - body, "enum big {\n B_A = ?\n};\n");
	expect_parse_error(text, strlen(text), UMT_E_CORRUPT, "hdr.h: line 200002: ",
	                   "expected a value, found '?'");
	/* an enum that never closes after megabytes of constants */
	len = (size_t)snprintf(text, cap, "enum open {\n");
	for (int i = 0; len + 32 < cap && i < LINES; i++)
		len += (size_t)snprintf(text + len, cap - len, "  OPEN_%d,\n", i);
	expect_parse_error(text, len, UMT_E_CORRUPT, "hdr.h: line 1: ", "never closes");
	free(text);

	/* more than 64 MiB is refused before any byte is read */
	char *huge = calloc(((size_t)64 << 20) + 1, 1);
	assert_non_null(huge);
	expect_parse_error(huge, ((size_t)64 << 20) + 1, UMT_E_CORRUPT, "hdr.h: ",
	                   "more than the 64 MiB limit");
	free(huge);
}

/* ---- files and directories --------------------------------------------------- */

static void test_enum_load(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	char *text = iclass_header();
	write_text(dir, "xed-iclass-enum.h", text);
	free(text);
	char path[4096];
	snprintf(path, sizeof path, "%s/xed-iclass-enum.h", dir);
	umt_enum *e = NULL;
	assert_int_equal(umt_enum_load(path, "xed_iclass_enum_t", &e), 0);
	expect_enum_name(e, 4, "MOV");
	umt_enum_free(e);

	/* errors name the file and the line */
	write_text(dir, "bad.h", "// header\ntypedef enum {\n  XED_X_A,\n  XED_X_B = ,\n} x_t;\n");
	snprintf(path, sizeof path, "%s/bad.h", dir);
	e = (umt_enum *)(uintptr_t)1;
	assert_int_equal(umt_enum_load(path, NULL, &e), UMT_E_CORRUPT);
	assert_null(e);
	assert_non_null(strstr(umt_errmsg(), "bad.h: line 4: "));

	snprintf(path, sizeof path, "%s/missing.h", dir);
	assert_int_equal(umt_enum_load(path, NULL, &e), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "missing.h"));
	assert_int_equal(umt_enum_load(dir, NULL, &e), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "not a regular file"));
	char fifo[4096];
	snprintf(fifo, sizeof fifo, "%s/fifo.h", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0); /* no writer: opening must not block */
	assert_int_equal(umt_enum_load(fifo, NULL, &e), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "fifo.h: not a regular file"));
	assert_int_equal(umt_enum_load(NULL, NULL, &e), UMT_E_INVAL);
	assert_int_equal(umt_enum_load(path, NULL, NULL), UMT_E_INVAL);

	/* over 64 MiB: refused from its size (a sparse file, nothing is read) */
	snprintf(path, sizeof path, "%s/huge.h", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), ((off_t)64 << 20) + 1), 0);
	fclose(f);
	assert_int_equal(umt_enum_load(path, NULL, &e), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), "huge.h: 67108865 bytes, more than the 64 MiB limit"));
	fx_rmtree(dir);
	free(dir);
}

/* An xed-reg-enum.h in XED's shape whose GSBASE sits at @p gsbase. */
static void write_reg_header(const char *dir, int gsbase)
{
	char text[2048];
	snprintf(text, sizeof text,
	         "%s"
	         "#if !defined(_XED_REG_ENUM_H_)\n"
	         "# define _XED_REG_ENUM_H_\n"
	         "#include \"xed-common-hdrs.h\"\n"
	         "typedef enum {\n"
	         "  XED_REG_INVALID,\n"
	         "  XED_REG_RAX = %d,\n"
	         "  XED_REG_STACKPUSH = %d,\n"
	         "  XED_REG_FSBASE = %d,\n"
	         "  XED_REG_GSBASE,\n"
	         "  XED_REG_LAST,\n"
	         "  XED_REG_GPR64_FIRST=XED_REG_RAX, //< PSEUDO\n"
	         "  XED_REG_PSEUDO_LAST=XED_REG_GSBASE //<PSEUDO\n"
	         "} xed_reg_enum_t;\n"
	         "XED_DLL_EXPORT xed_reg_enum_t str2xed_reg_enum_t(const char* s);\n"
	         "#endif\n",
	         xed_license, gsbase - 67, gsbase - 10, gsbase - 1);
	write_text(dir, "xed-reg-enum.h", text);
}

static void write_xed_headers(const char *dir, int gsbase, const char *category_file)
{
	write_reg_header(dir, gsbase);
	char *text = iclass_header();
	write_text(dir, "xed-iclass-enum.h", text);
	free(text);
	write_text(dir, "xed-iform-enum.h",
	           "/* generated */\n#ifndef XED_IFORM_ENUM_H\n#define XED_IFORM_ENUM_H\n"
	           "typedef enum {\n  XED_IFORM_INVALID=0,\n  XED_IFORM_AAA=1,\n"
	           "  XED_IFORM_MOV_GPRv_MEMv=2,\n  XED_IFORM_LAST\n} xed_iform_enum_t;\n#endif\n");
	write_text(dir, category_file,
	           "typedef enum {\n  XED_CATEGORY_INVALID,\n  XED_CATEGORY_3DNOW,\n"
	           "  XED_CATEGORY_DATAXFER,\n  XED_CATEGORY_LAST\n} xed_category_enum_t;\n");
}

static const char syscall_v1[] =
	"// syscall_unified_id_v1.h\n"
	"#pragma once\n"
	"enum SyscallUnifiedIdV1 {\n"
	"\tSYSCALL_NtAcceptConnectPort_0500_6 = 0,\n"
	"\tSYSCALL_NtClose_0500_1 = 1,\n"
	"\tSYSCALL_NtUserCallNoParam_0600_x64 = 0x2,\n"
	"\tSYSCALL_NtCreateFile_0500_11, // implicit\n"
	"};\n";

static const char syscall_v0[] =
	"typedef enum _SYSCALL_UNIFIED_ID_V0 {\n"
	"  SYSCALL_NtClose_0500_1,\n"
	"  SYSCALL_NtOpenFile_0500_6,\n"
	"} SYSCALL_UNIFIED_ID_V0;\n";

static void test_names_dir(void **state)
{
	(void)state;
	char *root = fx_tmpdir();
	char *dir = make_subdir(root, "XED v20150121");
	write_xed_headers(dir, 141, "xed-category-enum.h");
	write_text(dir, "syscall_unified_id_v1.h", syscall_v1);
	umt_names *n = NULL;
	int rc = umt_names_load_dir(dir, &n);
	if (rc != 0)
		print_error("%s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	assert_true(umt_names_xed_date(n) == 20150121);
	for (int w = 0; w < UMT_NAMES_COUNT; w++)
		if (w == UMT_NAMES_SYSCALL0)
			assert_null(umt_names_table(n, w));
		else
			assert_non_null(umt_names_table(n, w));
	assert_null(umt_names_table(n, UMT_NAMES_COUNT));
	assert_null(umt_names_table(n, -1));
	assert_string_equal(umt_names_mnemonic(n, 4), "MOV");
	assert_null(umt_names_mnemonic(n, 99));
	assert_string_equal(umt_names_form(n, 2), "MOV_GPRv_MEMv");
	assert_string_equal(umt_names_category(n, 1), "3DNOW");
	assert_string_equal(umt_names_category(n, 2), "DATAXFER");
	assert_string_equal(umt_names_syscall(n, 1, 1), "SYSCALL_NtClose_0500_1");
	assert_string_equal(umt_names_syscall(n, 1, 2), "SYSCALL_NtUserCallNoParam_0600_x64");
	assert_string_equal(umt_names_syscall(n, 1, 3), "SYSCALL_NtCreateFile_0500_11");
	assert_null(umt_names_syscall(n, 1, 4));
	assert_null(umt_names_syscall(n, 0, 1)); /* no v0 table */
	assert_null(umt_names_syscall(n, 2, 1));
	assert_null(umt_names_syscall(n, -1, 1));
	const umt_enum *regs = umt_names_table(n, UMT_NAMES_REG);
	assert_string_equal(umt_enum_name(regs, 74), "RAX"); /* not GPR64_FIRST */
	assert_string_equal(umt_enum_name(regs, 141), "GSBASE");
	expect_enum_value(regs, "STACKPUSH", 131);
	umt_names_free(n);

	/* the trailing slash is no part of the name */
	char slash[4096];
	snprintf(slash, sizeof slash, "%s/", dir);
	assert_int_equal(umt_names_load_dir(slash, &n), 0);
	assert_true(umt_names_xed_date(n) == 20150121);
	umt_names_free(n);

	/* NULL handles */
	assert_null(umt_names_mnemonic(NULL, 0));
	assert_null(umt_names_form(NULL, 0));
	assert_null(umt_names_category(NULL, 0));
	assert_null(umt_names_syscall(NULL, 1, 0));
	assert_true(umt_names_xed_date(NULL) == -1);
	assert_null(umt_names_table(NULL, 0));
	umt_names_free(NULL);
	fx_rmtree(root);
	free(dir);
	free(root);
}

/* The documentation's layout: syscall headers beside "XED v<date>" folders. */
static void test_names_doc_root(void **state)
{
	(void)state;
	char *root = fx_tmpdir();
	write_text(root, "syscall_unified_id_v0.h", syscall_v0);
	write_text(root, "syscall_unified_id_v1.h", syscall_v1);
	write_text(root, "XED v20990101", "a file, not a folder");
	char *old = make_subdir(root, "XED v20140106");
	char *cur = make_subdir(root, "XED v20150121");
	char *other = make_subdir(root, "Other 20160101");
	write_xed_headers(old, 135, "xed-category-enum.h");
	/* the latest folder, with the spec's name for the category header */
	write_xed_headers(cur, 141, "xed-icategory-enum.h");
	umt_names *n;
	assert_int_equal(umt_names_load_dir(root, &n), 0);
	assert_true(umt_names_xed_date(n) == 20150121);
	assert_string_equal(umt_names_category(n, 2), "DATAXFER");
	assert_string_equal(umt_names_syscall(n, 0, 1), "SYSCALL_NtOpenFile_0500_6");
	assert_string_equal(umt_names_syscall(n, 1, 0), "SYSCALL_NtAcceptConnectPort_0500_6");
	int64_t v;
	assert_int_equal(umt_enum_value(umt_names_table(n, UMT_NAMES_REG), "GSBASE", &v), 0);
	assert_true(v == 141);
	umt_names_free(n);

	/* XED headers in the root itself win over the folders */
	write_reg_header(root, 135);
	assert_int_equal(umt_names_load_dir(root, &n), 0);
	assert_null(umt_names_table(n, UMT_NAMES_ICLASS));
	assert_true(umt_names_xed_date(n) == 20140106); /* no date in the root's name */
	umt_names_free(n);
	fx_rmtree(root);
	free(old);
	free(cur);
	free(other);
	free(root);
}

static void test_names_version_deduced(void **state)
{
	(void)state;
	char *root = fx_tmpdir();
	static const struct {
		int gsbase;
		int64_t date;
	} cases[] = {{141, 20150121}, {135, 20140106}, {150, -1}};
	for (size_t i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "tables%zu", i);
		char *dir = make_subdir(root, name);
		write_reg_header(dir, cases[i].gsbase);
		umt_names *n;
		assert_int_equal(umt_names_load_dir(dir, &n), 0);
		assert_true(umt_names_xed_date(n) == cases[i].date);
		umt_names_free(n);
		free(dir);
	}
	/* a date in the name wins; 7 or 9 digits are not a date */
	static const struct {
		const char *name;
		int gsbase;
		int64_t date;
	} names[] = {{"xed-20140106", 141, 20140106}, {"v2015012", 135, 20140106},
	             {"v201501210", 135, 20140106}, {"a1b20131119c", 141, 20131119}};
	for (size_t i = 0; i < 4; i++) {
		char *dir = make_subdir(root, names[i].name);
		write_reg_header(dir, names[i].gsbase);
		umt_names *n;
		assert_int_equal(umt_names_load_dir(dir, &n), 0);
		assert_true(umt_names_xed_date(n) == names[i].date);
		umt_names_free(n);
		free(dir);
	}
	/* no XED table: unknown, even with a date in the name */
	char *dir = make_subdir(root, "XED v20150121");
	write_text(dir, "syscall_unified_id_v1.h", syscall_v1);
	umt_names *n;
	assert_int_equal(umt_names_load_dir(dir, &n), 0);
	assert_true(umt_names_xed_date(n) == -1);
	assert_null(umt_names_table(n, UMT_NAMES_REG));
	umt_names_free(n);
	free(dir);
	/* a reg header without xed_reg_enum_t: its first enum */
	dir = make_subdir(root, "renamed");
	write_text(dir, "xed-reg-enum.h", "enum regs { XED_REG_INVALID, XED_REG_GSBASE = 135 };");
	assert_int_equal(umt_names_load_dir(dir, &n), 0);
	assert_true(umt_names_xed_date(n) == 20140106);
	umt_names_free(n);
	free(dir);
	fx_rmtree(root);
	free(root);
}

static void test_names_dir_errors(void **state)
{
	(void)state;
	char *root = fx_tmpdir();
	umt_names *n = (umt_names *)(uintptr_t)1;
	assert_int_equal(umt_names_load_dir(root, &n), UMT_E_NOT_FOUND);
	assert_null(n);
	assert_non_null(strstr(umt_errmsg(), "no name table"));
	char path[4096];
	snprintf(path, sizeof path, "%s/nowhere", root);
	assert_int_equal(umt_names_load_dir(path, &n), UMT_E_NOT_FOUND);
	assert_non_null(strstr(umt_errmsg(), "nowhere"));
	write_text(root, "plain", "x");
	snprintf(path, sizeof path, "%s/plain", root);
	assert_int_equal(umt_names_load_dir(path, &n), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "not a directory"));
	snprintf(path, sizeof path, "%s/plain/sub", root);
	assert_int_equal(umt_names_load_dir(path, &n), UMT_E_IO); /* ENOTDIR */
	assert_non_null(strstr(umt_errmsg(), "plain/sub: "));
	assert_int_equal(umt_names_load_dir(NULL, &n), UMT_E_INVAL);
	assert_int_equal(umt_names_load_dir(root, NULL), UMT_E_INVAL);

	/* a corrupt header fails the whole load, naming the file and line */
	char *dir = make_subdir(root, "XED v20150121");
	write_xed_headers(dir, 141, "xed-category-enum.h");
	write_text(dir, "xed-iform-enum.h",
	           "typedef enum {\n  XED_IFORM_INVALID,\n  XED_IFORM_A = 0x1g,\n} xed_iform_enum_t;\n");
	assert_int_equal(umt_names_load_dir(dir, &n), UMT_E_CORRUPT);
	assert_null(n);
	assert_non_null(strstr(umt_errmsg(), "xed-iform-enum.h: line 3: bad number '0x1g'"));
	/* the same for a syscall header */
	write_xed_headers(dir, 141, "xed-category-enum.h");
	write_text(dir, "syscall_unified_id_v0.h", "enum {\n SYSCALL_A,\n /* cut");
	assert_int_equal(umt_names_load_dir(dir, &n), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), "syscall_unified_id_v0.h: line 3: unterminated"));
	/* a header holding no enum */
	write_text(dir, "syscall_unified_id_v0.h", "#define SYSCALL_A 1\n");
	assert_int_equal(umt_names_load_dir(dir, &n), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), "syscall_unified_id_v0.h: no enum"));
	/* a header that is a directory */
	assert_int_equal(unlink(strcat(strcpy(path, dir), "/syscall_unified_id_v0.h")), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(umt_names_load_dir(dir, &n), UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "syscall_unified_id_v0.h: not a regular file"));
	fx_rmtree(root);
	free(dir);
	free(root);
}

/* Tables in "XED v<date>" beside both syscall tables (or only @p ids). */
static umt_names *tables(const char *root, const char *name, int gsbase, int ids)
{
	char *dir = make_subdir(root, name);
	write_reg_header(dir, gsbase);
	if (ids != 1)
		write_text(dir, "syscall_unified_id_v0.h", syscall_v0);
	if (ids != 0)
		write_text(dir, "syscall_unified_id_v1.h", syscall_v1);
	umt_names *n;
	assert_int_equal(umt_names_load_dir(dir, &n), 0);
	free(dir);
	return n;
}

static void expect_names_check(const umt_names *n, const umt_trace *tr, int code, const char *msg1,
                         const char *msg2)
{
	int rc = umt_names_check(n, tr);
	if (rc != code)
		print_error("check: expected %d, got %d: %s\n", code, rc, umt_errmsg());
	assert_int_equal(rc, code);
	if (msg1)
		assert_non_null(strstr(umt_errmsg(), msg1));
	if (msg2)
		assert_non_null(strstr(umt_errmsg(), msg2));
}

/* The version assertions need meta.c reading trace.xml Xed/Version. */
static void test_names_check(void **state)
{
	(void)state;
	char *root = fx_tmpdir();
	umt_names *t2014 = tables(root, "XED v20140106", 135, -1);
	umt_names *t2015 = tables(root, "XED v20150121", 141, -1);
	umt_names *undated = tables(root, "undated", 150, -1);
	umt_names *v0only = tables(root, "v0 20150121", 141, 0);
	umt_names *v1only = tables(root, "v1 20150121", 141, 1);
	assert_true(umt_names_xed_date(undated) == -1);

	char *dir;
	umt_trace *tr = version_trace(UMT_FLAVOUR_2015, "20150121", false, &dir);
	expect_names_check(t2014, tr, UMT_E_VERSION, "trace.xml: ", "XED 20150121");
	assert_non_null(strstr(umt_errmsg(), "XED 20140106"));
	expect_names_check(t2015, tr, 0, NULL, NULL);
	expect_names_check(undated, tr, 0, NULL, NULL);
	expect_names_check(v1only, tr, 0, NULL, NULL);
	/* a 2015 trace has UnifiedIDsVer 1 */
	expect_names_check(v0only, tr, UMT_E_NOT_FOUND, "syscall.vtable: ",
	             "syscall_unified_id_v1.h is not loaded");
	assert_int_equal(umt_names_check(NULL, tr), UMT_E_INVAL);
	assert_int_equal(umt_names_check(t2015, NULL), UMT_E_INVAL);
	close_version_trace(tr, dir);

	/* an older trace with newer tables is fine */
	tr = version_trace(UMT_FLAVOUR_2014, "20140106", false, &dir);
	expect_names_check(t2015, tr, 0, NULL, NULL);
	expect_names_check(t2014, tr, 0, NULL, NULL);
	expect_names_check(v1only, tr, UMT_E_NOT_FOUND, "syscall_unified_id_v0.h", NULL);
	close_version_trace(tr, dir);

	/* a Pin build number is older than any XED date */
	tr = version_trace(UMT_FLAVOUR_2014, "56759", false, &dir);
	expect_names_check(t2014, tr, 0, NULL, NULL);
	close_version_trace(tr, dir);

	/* a future XED */
	tr = version_trace(UMT_FLAVOUR_2015, "20990101", false, &dir);
	expect_names_check(t2015, tr, UMT_E_VERSION, "XED 20990101", "XED 20150121");
	expect_names_check(undated, tr, 0, NULL, NULL);
	close_version_trace(tr, dir);

	/* no trace.xml: the version is unknown, only the syscall table is checked */
	tr = version_trace(UMT_FLAVOUR_2015, NULL, false, &dir);
	expect_names_check(t2014, tr, 0, NULL, NULL);
	close_version_trace(tr, dir);
	struct fx_trace t;
	fx_handmade(&t); /* UnifiedIDsVer 1 */
	assert_int_equal(fx_open(&t, &tr), 0);
	expect_names_check(t2014, tr, 0, NULL, NULL);
	expect_names_check(v0only, tr, UMT_E_NOT_FOUND, "syscall_unified_id_v1.h", NULL);
	umt_trace_close(tr);
	fx_free(&t);

	umt_names_free(t2014);
	umt_names_free(t2015);
	umt_names_free(undated);
	umt_names_free(v0only);
	umt_names_free(v1only);
	fx_rmtree(root);
	free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_reg_values),
		cmocka_unit_test(test_builtin_2015),
		cmocka_unit_test(test_builtin_older),
		cmocka_unit_test(test_reg_name_handmade),
		cmocka_unit_test(test_reg_name_context_map),
		cmocka_unit_test(test_reg_name_by_trace_version),
		cmocka_unit_test(test_parse_xed_iclass),
		cmocka_unit_test(test_parse_aliases),
		cmocka_unit_test(test_parse_values),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_comments),
		cmocka_unit_test(test_large_enum),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_garbage),
		cmocka_unit_test(test_parse_large_text),
		cmocka_unit_test(test_enum_load),
		cmocka_unit_test(test_names_dir),
		cmocka_unit_test(test_names_doc_root),
		cmocka_unit_test(test_names_version_deduced),
		cmocka_unit_test(test_names_dir_errors),
		cmocka_unit_test(test_names_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
