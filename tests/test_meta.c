/*
 * meta.c: trace.xml in both real layouts (ERRATA 18-20), lookups, leaf
 * iteration, malformed and hostile files, lazy parsing on a trace (twice,
 * from two threads, failure remembered), cross-checks with the binary
 * headers, the internal XED version hook.
 */
#include <fcntl.h>
#include <pthread.h>
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
#include "internal.h"

/*
 * libxml2 2.9's prototypes of the few calls a test makes as "the
 * application" (its headers are not on the tests' include path).
 */
struct _xmlError;
struct _xmlDoc;
struct _xmlParserInput;
struct _xmlParserCtxt;
typedef void (*app_serror_fn)(void *ctx, struct _xmlError *error);
void xmlSetStructuredErrorFunc(void *ctx, app_serror_fn handler);
typedef struct _xmlParserInput *(*app_loader_fn)(const char *url, const char *id,
                                                 struct _xmlParserCtxt *ctxt);
void xmlSetExternalEntityLoader(app_loader_fn f);
app_loader_fn xmlGetExternalEntityLoader(void);
int xmlSubstituteEntitiesDefault(int val);
int *__xmlLoadExtDtdDefaultValue(void);
int *__xmlDoValidityCheckingDefaultValue(void);
struct _xmlDoc *xmlReadMemory(const char *buffer, int size, const char *url,
                              const char *encoding, int options);
void xmlFreeDoc(struct _xmlDoc *doc);

/* ---- documents ---- */

#define DECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>"

/* A pre-2015 file (ERRATA 18-20), one piece per line; NL joins the pieces. */
#define ROOTLESS(NL)                                                                         \
	DECL NL                                                                              \
	"<CPU><HasXMM>1</HasXMM><hasYMM>1</hasYMM><hasZMM>0</hasZMM></CPU>" NL                \
	"<OS><Id>06010110</Id><Name>Windows 7 SP1 64-bits</Name></OS>" NL                    \
	"<Pin><Version>2.12.56759</Version><CommandLine>C:\\pin\\ia32\\bin\\pin.exe -t "       \
	"C:\\UMTracer\\UMTracer.dll -- &quot;C:\\Program Files\\App\\app.exe&quot;"            \
	"</CommandLine></Pin>" NL                                                            \
	"<Xed><Version>20131119</Version></Xed>" NL                                          \
	"<App><CommandLine>&quot;C:\\Windows\\System32\\notepad.exe&quot; "                    \
	"&quot;C:\\Users\\me\\My Documents\\a.txt&quot;</CommandLine><Bitness>64</Bitness>"    \
	"<ProcessID>7472</ProcessID></App>" NL                                               \
	"<!-- UMTracer settings -->" NL                                                      \
	"<UMTracer><Ins><Format><Version>1</Version></Format><BeginRecord><Version>2"          \
	"</Version></BeginRecord></Ins><Exec><Format><Version>1</Version></Format>"            \
	"<SyscallTable><Version>1</Version></SyscallTable></Exec></UMTracer>" NL

static const char rootless_nl[] = ROOTLESS("\n");
static const char rootless_flat[] = ROOTLESS("");

#define PIN_CMD "C:\\pin\\ia32\\bin\\pin.exe -t C:\\UMTracer\\UMTracer.dll -- " \
	"\"C:\\Program Files\\App\\app.exe\""
#define APP_CMD "\"C:\\Windows\\System32\\notepad.exe\" \"C:\\Users\\me\\My Documents\\a.txt\""

static const char *const rootless_leaves[][2] = {
	{"/CPU/HasXMM", "1"},
	{"/CPU/hasYMM", "1"},
	{"/CPU/hasZMM", "0"},
	{"/OS/Id", "06010110"},
	{"/OS/Name", "Windows 7 SP1 64-bits"},
	{"/Pin/Version", "2.12.56759"},
	{"/Pin/CommandLine", PIN_CMD},
	{"/Xed/Version", "20131119"},
	{"/App/CommandLine", APP_CMD},
	{"/App/Bitness", "64"},
	{"/App/ProcessID", "7472"},
	{"/UMTracer/Ins/Format/Version", "1"},
	{"/UMTracer/Ins/BeginRecord/Version", "2"},
	{"/UMTracer/Exec/Format/Version", "1"},
	{"/UMTracer/Exec/SyscallTable/Version", "1"},
};

/* A 2015 file; its format versions agree with the hand-made trace (exec 1, insRec 1). */
static const char file_2015[] =
	DECL "\n"
	"<TraceMetaData>\n"
	"  <CPU><HasXMM>1</HasXMM><HasYMM>0</HasYMM><HasZMM>0</HasZMM></CPU>\n"
	"  <OS><Id>06010110</Id><Name>Windows 7 SP1 64-bits</Name></OS>\n"
	"  <Pin><Version>2.14.71313</Version><CommandLine>pin.exe -- app.exe</CommandLine>"
	"<WorkingDirectory>C:\\traces</WorkingDirectory></Pin>\n"
	"  <Xed><Version>20150121</Version></Xed>\n"
	"  <App><CommandLine>app.exe</CommandLine><Bitness>32</Bitness>"
	"<ProcessID>1234</ProcessID></App>\n"
	"  <RawTrace><DateTime>2015-07-01T12:00:00</DateTime><UMTracer><Version>4.0</Version>"
	"<Ins><Format><Version>1</Version></Format></Ins>"
	"<Exec><Format><Version>1</Version></Format></Exec></UMTracer></RawTrace>\n"
	"</TraceMetaData>\n";

static const char *const leaves_2015[][2] = {
	{"/TraceMetaData/CPU/HasXMM", "1"},
	{"/TraceMetaData/CPU/HasYMM", "0"},
	{"/TraceMetaData/CPU/HasZMM", "0"},
	{"/TraceMetaData/OS/Id", "06010110"},
	{"/TraceMetaData/OS/Name", "Windows 7 SP1 64-bits"},
	{"/TraceMetaData/Pin/Version", "2.14.71313"},
	{"/TraceMetaData/Pin/CommandLine", "pin.exe -- app.exe"},
	{"/TraceMetaData/Pin/WorkingDirectory", "C:\\traces"},
	{"/TraceMetaData/Xed/Version", "20150121"},
	{"/TraceMetaData/App/CommandLine", "app.exe"},
	{"/TraceMetaData/App/Bitness", "32"},
	{"/TraceMetaData/App/ProcessID", "1234"},
	{"/TraceMetaData/RawTrace/DateTime", "2015-07-01T12:00:00"},
	{"/TraceMetaData/RawTrace/UMTracer/Version", "4.0"},
	{"/TraceMetaData/RawTrace/UMTracer/Ins/Format/Version", "1"},
	{"/TraceMetaData/RawTrace/UMTracer/Exec/Format/Version", "1"},
};

#define N_ROOTLESS (sizeof rootless_leaves / sizeof rootless_leaves[0])
#define N_2015 (sizeof leaves_2015 / sizeof leaves_2015[0])

/* ---- helpers ---- */

static umt_meta *parse_len(const char *xml, size_t len)
{
	umt_meta *m = NULL;
	int rc = umt_meta_parse(xml, len, NULL, &m);
	if (rc != 0)
		print_error("parse: %d %s\n", rc, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_non_null(m);
	return m;
}

static umt_meta *parse(const char *xml)
{
	return parse_len(xml, strlen(xml));
}

/* Parsing @p len bytes fails with UMT_E_XML and exactly @p msg. */
static void expect_xml_error_len(const char *xml, size_t len, const char *msg)
{
	umt_meta *m = (umt_meta *)(uintptr_t)1;
	int rc = umt_meta_parse(xml, len, NULL, &m);
	if (rc != UMT_E_XML || strcmp(umt_errmsg(), msg) != 0)
		print_error("expected UMT_E_XML [%s], got %d [%s]\n", msg, rc, umt_errmsg());
	assert_int_equal(rc, UMT_E_XML);
	assert_string_equal(umt_errmsg(), msg);
	assert_null(m);
}

static void expect_xml_error(const char *xml, const char *msg)
{
	expect_xml_error_len(xml, strlen(xml), msg);
}

static void expect_leaves(const umt_meta *m, const char *const (*want)[2], size_t n)
{
	assert_int_equal(umt_meta_leaf_count(m), n);
	for (size_t i = 0; i < n; i++) {
		const char *path = NULL, *text = NULL;
		assert_int_equal(umt_meta_leaf(m, i, &path, &text), 0);
		assert_string_equal(path, want[i][0]);
		assert_string_equal(text, want[i][1]);
	}
	assert_int_equal(umt_meta_leaf(m, n, NULL, NULL), UMT_E_RANGE);
}

/* The hand-made trace with @p len bytes of @p xml as its trace.xml. */
static umt_trace *open_with_xml(struct fx_trace *t, const char *xml, size_t len)
{
	fx_handmade(t);
	if (xml != NULL) {
		t->data[UMT_FILE_TRACE_XML] = malloc(len ? len : 1);
		memcpy(t->data[UMT_FILE_TRACE_XML], xml, len);
		t->size[UMT_FILE_TRACE_XML] = len;
	}
	umt_trace *tr = NULL;
	int rc = fx_open(t, &tr);
	if (rc != 0)
		print_error("open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	return tr;
}

static const umt_meta *trace_meta(const umt_trace *tr)
{
	const umt_meta *m = NULL;
	int rc = umt_trace_meta(tr, &m);
	if (rc != 0)
		print_error("umt_trace_meta: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	assert_non_null(m);
	return m;
}

/* Fails some unrelated call so that umt_errmsg() holds a known other message. */
static void other_failure(umt_trace *tr)
{
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, 1000, &r), UMT_E_RANGE);
	assert_null(strstr(umt_errmsg(), "trace.xml"));
}

/* ---- the two real layouts ---- */

static void check_rootless_info(const umt_meta *m)
{
	assert_int_equal(umt_meta_layout(m), UMT_META_ROOTLESS);
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(m, &in), 0);
	assert_int_equal(in.layout, UMT_META_ROOTLESS);
	assert_string_equal(in.xed_version, "20131119");
	assert_int_equal(in.xed_date, 20131119);
	assert_int_equal(in.xed_number, 20131119);
	assert_int_equal(in.xed_is_pin_build, 0);
	assert_string_equal(in.process_id, "7472");
	assert_int_equal(in.pid, 7472);
	assert_int_equal(in.bitness, 64);
	assert_string_equal(in.app_command_line, APP_CMD);
	assert_string_equal(in.pin_version, "2.12.56759");
	assert_string_equal(in.pin_command_line, PIN_CMD);
	assert_null(in.pin_working_directory);
	assert_string_equal(in.os_id, "06010110");
	assert_string_equal(in.os_name, "Windows 7 SP1 64-bits");
	assert_int_equal(in.has_xmm, 1);
	assert_int_equal(in.has_ymm, 1);
	assert_int_equal(in.has_zmm, 0);
	assert_null(in.raw_trace_date);
	assert_null(in.umtracer_version);
	assert_int_equal(in.ins_format_version, 1);
	assert_int_equal(in.ins_begin_record_version, 2);
	assert_int_equal(in.exec_format_version, 1);
	assert_int_equal(in.syscall_table_version, 1);
	/* lookups: with or without '/', any case; non-leaves and absent paths are NULL */
	assert_string_equal(umt_meta_get(m, "Xed/Version"), "20131119");
	assert_string_equal(umt_meta_get(m, "/Xed/Version"), "20131119");
	assert_string_equal(umt_meta_get(m, "os/name"), "Windows 7 SP1 64-bits");
	assert_null(umt_meta_get(m, "Xed"));
	assert_null(umt_meta_get(m, "Xed/Version/"));
	assert_null(umt_meta_get(m, "Xed/Versio"));
	assert_null(umt_meta_get(m, "TraceMetaData/Xed/Version"));
	assert_null(umt_meta_get(m, ""));
	expect_leaves(m, rootless_leaves, N_ROOTLESS);
}

static void test_rootless_layout(void **state)
{
	(void)state;
	umt_meta *m = parse(rootless_nl);
	check_rootless_info(m);
	umt_meta_free(m);
}

/* The same file without a single newline (ERRATA 18). */
static void test_rootless_one_line(void **state)
{
	(void)state;
	assert_null(strchr(rootless_flat, '\n'));
	umt_meta *m = parse(rootless_flat);
	check_rootless_info(m);
	umt_meta_free(m);
	/* no XML declaration at all, one line */
	m = parse("<A>1</A><B>2</B>");
	static const char *const want[][2] = {{"/A", "1"}, {"/B", "2"}};
	expect_leaves(m, want, 2);
	assert_int_equal(umt_meta_layout(m), UMT_META_ROOTLESS);
	umt_meta_free(m);
	/* a single top-level element that is not TraceMetaData: still the old layout */
	m = parse(DECL "<Xed><Version>20140106</Version></Xed>");
	assert_int_equal(umt_meta_layout(m), UMT_META_ROOTLESS);
	assert_string_equal(umt_meta_get(m, "Xed/Version"), "20140106");
	umt_meta_free(m);
}

static void test_2015_layout(void **state)
{
	(void)state;
	umt_meta *m = parse(file_2015);
	assert_int_equal(umt_meta_layout(m), UMT_META_2015);
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(m, &in), 0);
	assert_int_equal(in.layout, UMT_META_2015);
	assert_string_equal(in.xed_version, "20150121");
	assert_int_equal(in.xed_date, 20150121);
	assert_int_equal(in.xed_number, 20150121);
	assert_int_equal(in.xed_is_pin_build, 0);
	assert_int_equal(in.pid, 1234);
	assert_int_equal(in.bitness, 32);
	assert_string_equal(in.pin_version, "2.14.71313");
	assert_string_equal(in.pin_working_directory, "C:\\traces");
	assert_int_equal(in.has_xmm, 1);
	assert_int_equal(in.has_ymm, 0);
	assert_int_equal(in.has_zmm, 0);
	assert_string_equal(in.raw_trace_date, "2015-07-01T12:00:00");
	assert_string_equal(in.umtracer_version, "4.0");
	assert_int_equal(in.ins_format_version, 1);
	assert_int_equal(in.ins_begin_record_version, -1);
	assert_int_equal(in.exec_format_version, 1);
	assert_int_equal(in.syscall_table_version, -1);
	/* one lookup for both layouts, and the full path too */
	assert_string_equal(umt_meta_get(m, "Xed/Version"), "20150121");
	assert_string_equal(umt_meta_get(m, "/TraceMetaData/Xed/Version"), "20150121");
	assert_string_equal(umt_meta_get(m, "tracemetadata/XED/version"), "20150121");
	assert_string_equal(umt_meta_get(m, "RawTrace/UMTracer/Exec/Format/Version"), "1");
	assert_null(umt_meta_get(m, "UMTracer/Exec/Format/Version"));
	assert_null(umt_meta_get(m, "TraceMetaData"));
	expect_leaves(m, leaves_2015, N_2015);
	umt_meta_free(m);
	/* root name in another case */
	m = parse("<tracemetadata><Xed><Version>20150121</Version></Xed></tracemetadata>");
	assert_int_equal(umt_meta_layout(m), UMT_META_2015);
	assert_string_equal(umt_meta_get(m, "xed/version"), "20150121");
	umt_meta_free(m);
}

/* Unknown elements are kept and listed, names compared in any case. */
static void test_unknown_and_case(void **state)
{
	(void)state;
	umt_meta *m = parse(DECL "<TraceMetaData xmlns:x=\"urn:x\">"
	                    "<Future><Thing a=\"1\">x</Thing><Empty/></Future>"
	                    "<CPU><HASXMM>true</HASXMM><hasymm> FALSE </hasymm><HasZmm>2</HasZmm>"
	                    "</CPU><Mixed>text<Child>c</Child>more</Mixed>"
	                    "<x:Ext>ns</x:Ext><!-- c --><?pi x?>"
	                    "<Xed><Version>20150121</Version></Xed>"
	                    "<xed><version>19991231</version></xed>"
	                    "</TraceMetaData>");
	static const char *const want[][2] = {
		{"/TraceMetaData/Future/Thing", "x"},
		{"/TraceMetaData/Future/Empty", ""},
		{"/TraceMetaData/CPU/HASXMM", "true"},
		{"/TraceMetaData/CPU/hasymm", " FALSE "},
		{"/TraceMetaData/CPU/HasZmm", "2"},
		{"/TraceMetaData/Mixed/Child", "c"},
		{"/TraceMetaData/x:Ext", "ns"},
		{"/TraceMetaData/Xed/Version", "20150121"},
		{"/TraceMetaData/xed/version", "19991231"},
	};
	expect_leaves(m, want, sizeof want / sizeof want[0]);
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(m, &in), 0);
	assert_int_equal(in.has_xmm, 1);
	assert_int_equal(in.has_ymm, 0);
	assert_int_equal(in.has_zmm, -1); /* "2" is neither */
	assert_int_equal(in.xed_date, 20150121); /* the first match in document order */
	assert_string_equal(umt_meta_get(m, "cpu/HasYMM"), " FALSE ");
	assert_string_equal(umt_meta_get(m, "FUTURE/EMPTY"), "");
	assert_string_equal(umt_meta_get(m, "x:ext"), "ns");
	assert_null(umt_meta_get(m, "Mixed")); /* not a leaf: its text is ignored */
	assert_null(in.os_id);
	assert_int_equal(in.pid, -1);
	assert_int_equal(in.bitness, -1);
	assert_int_equal(in.exec_format_version, -1);
	umt_meta_free(m);
}

/* ---- XED versions ---- */

static void expect_xed(const char *version, int64_t date, int64_t number, int pin)
{
	char xml[256];
	snprintf(xml, sizeof xml, "<TraceMetaData><Xed><Version>%s</Version></Xed></TraceMetaData>",
	         version);
	umt_meta *m = parse(xml);
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(m, &in), 0);
	assert_string_equal(in.xed_version, version);
	assert_int_equal(in.xed_date, date);
	assert_int_equal(in.xed_number, number);
	assert_int_equal(in.xed_is_pin_build, pin);
	umt_meta_free(m);
}

static void test_xed_versions(void **state)
{
	(void)state;
	expect_xed("20150121", 20150121, 20150121, 0);
	expect_xed("20140106", 20140106, 20140106, 0);
	expect_xed("56759", -1, 56759, 1);      /* a Pin build number (ERRATA 17) */
	expect_xed("\n 20131119 \n", 20131119, 20131119, 0);
	expect_xed("18991231", -1, 18991231, 1); /* 8 digits, but below any XED date */
	expect_xed("201501210", -1, -1, 0);      /* 9 digits: neither */
	expect_xed("2.0", -1, -1, 0);
	expect_xed("-56759", -1, -1, 0);
	expect_xed("+56759", -1, -1, 0);
	expect_xed("", -1, -1, 0);
	expect_xed("99999999999999999999", -1, -1, 0); /* overflows */
}

/* The hook of names.c: the trace's XED version as a number, -1 when unknown. */
static void test_trace_xed_date(void **state)
{
	(void)state;
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, file_2015, strlen(file_2015));
	assert_int_equal(umt__trace_xed_date(tr), 20150121);
	assert_int_equal(umt__trace_xed_date(tr), 20150121);
	umt_trace_close(tr);
	fx_free(&t);

	static const char pin[] = DECL "<Xed><Version>56759</Version></Xed><App/>";
	tr = open_with_xml(&t, pin, strlen(pin));
	assert_int_equal(umt__trace_xed_date(tr), 56759);
	umt_trace_close(tr);
	fx_free(&t);

	static const char none[] = "<TraceMetaData><Xed><Version>v2</Version></Xed></TraceMetaData>";
	tr = open_with_xml(&t, none, strlen(none));
	assert_int_equal(umt__trace_xed_date(tr), -1);
	umt_trace_close(tr);
	fx_free(&t);

	tr = open_with_xml(&t, NULL, 0); /* no trace.xml */
	assert_int_equal(umt__trace_xed_date(tr), -1);
	umt_trace_close(tr);
	fx_free(&t);

	/* malformed: -1, and the caller's message is left alone, first call or not */
	static const char bad[] = "<TraceMetaData><Xed><Version>20150121</Xed>";
	tr = open_with_xml(&t, bad, strlen(bad));
	other_failure(tr);
	char before[512];
	snprintf(before, sizeof before, "%s", umt_errmsg());
	assert_int_equal(umt__trace_xed_date(tr), -1);
	assert_string_equal(umt_errmsg(), before);
	assert_int_equal(umt__trace_xed_date(tr), -1);
	assert_string_equal(umt_errmsg(), before);
	const umt_meta *m;
	assert_int_equal(umt_trace_meta(tr, &m), UMT_E_XML);
	assert_non_null(strstr(umt_errmsg(), "trace.xml: line 1, column "));
	umt_trace_close(tr);
	fx_free(&t);
	assert_int_equal(umt__trace_xed_date(NULL), -1);
}

/* ---- encodings, line ends ---- */

static void test_bom_and_crlf(void **state)
{
	(void)state;
	/* a UTF-8 BOM before either layout */
	char buf[2048];
	snprintf(buf, sizeof buf, "\xef\xbb\xbf%s", file_2015);
	umt_meta *m = parse(buf);
	expect_leaves(m, leaves_2015, N_2015);
	umt_meta_free(m);
	snprintf(buf, sizeof buf, "\xef\xbb\xbf%s", rootless_flat);
	m = parse(buf);
	check_rootless_info(m);
	umt_meta_free(m);
	/* CRLF line ends: texts normalised to LF by the parser */
	m = parse(DECL "\r\n<TraceMetaData>\r\n<OS><Name>Windows\r\n7</Name></OS>\r\n"
	          "<App><ProcessID>7472</ProcessID></App>\r\n</TraceMetaData>\r\n");
	assert_string_equal(umt_meta_get(m, "OS/Name"), "Windows\n7");
	assert_string_equal(umt_meta_get(m, "App/ProcessID"), "7472");
	umt_meta_free(m);
	m = parse(DECL "\r\n<OS><Id>06010110</Id></OS>\r\n<App><Bitness>64</Bitness></App>\r\n");
	assert_int_equal(umt_meta_layout(m), UMT_META_ROOTLESS);
	assert_string_equal(umt_meta_get(m, "App/Bitness"), "64");
	umt_meta_free(m);
	/* non-ASCII text is returned as UTF-8 */
	m = parse("<TraceMetaData><App><CommandLine>C:\\donn\xc3\xa9"
	          "es\\a.exe</CommandLine></App></TraceMetaData>");
	assert_string_equal(umt_meta_get(m, "App/CommandLine"), "C:\\donn\xc3\xa9" "es\\a.exe");
	umt_meta_free(m);
	/* character references and CDATA */
	m = parse("<TraceMetaData><A>&#65;&lt;<![CDATA[<b>&amp;]]></A></TraceMetaData>");
	assert_string_equal(umt_meta_get(m, "A"), "A<<b>&amp;");
	umt_meta_free(m);
}

/* ---- malformed files ---- */

static void test_malformed(void **state)
{
	(void)state;
	expect_xml_error(DECL "\n<TraceMetaData>\n<Xed x></Xed>\n</TraceMetaData>\n",
	                 "trace.xml: line 3, column 7: "
	                 "Specification mandates value for attribute x");
	/* recovery is off: a tag mismatch is an error, not repaired */
	expect_xml_error("<TraceMetaData>\n  <Xed><Version>1</Xed>\n</TraceMetaData>",
	                 "trace.xml: line 2, column 24: "
	                 "Opening and ending tag mismatch: Version line 2 and Xed");
	/* root-less, one line: the column is the file's, not the wrapped buffer's */
	static const char one_line[] = "<?xml version=\"1.0\"?><CPU><HasXMM>1</HasXMM></CPU>"
	                               "<OS><Id x>1</Id></OS>";
	expect_xml_error(one_line, "trace.xml: line 1, column 60: "
	                 "Specification mandates value for attribute x");
	assert_int_equal(strstr(one_line, "<Id x>") - one_line + 6, 60); /* the '>' */
	/* the same with a BOM: columns do not count it */
	expect_xml_error("\xef\xbb\xbf<?xml version=\"1.0\"?><CPU><HasXMM>1</HasXMM></CPU>"
	                 "<OS><Id x>1</Id></OS>",
	                 "trace.xml: line 1, column 60: "
	                 "Specification mandates value for attribute x");
	/* root-less over several lines: line numbers are the file's */
	expect_xml_error(DECL "\n<CPU><HasXMM>1</HasXMM></CPU>\n<OS>\n<Id x>1</Id></OS>\n",
	                 "trace.xml: line 4, column 6: "
	                 "Specification mandates value for attribute x");
	/* an element left open in a root-less file: reported at the end of the file */
	expect_xml_error("<?xml version=\"1.0\"?>\n<CPU><HasXMM>1</HasXMM></CPU>\n<OS><Id>1</Id>\n",
	                 "trace.xml: line 4, column 1: "
	                 "Opening and ending tag mismatch: OS line 3 and umtrace-root");
	expect_xml_error("<?xml version=\"1.0\"?><CPU><HasXMM>1</HasXMM></CPU><OS><Id>1</Id>",
	                 "trace.xml: line 1, column 65: "
	                 "Opening and ending tag mismatch: OS line 1 and umtrace-root");
	/* CRLF: lines still counted */
	expect_xml_error(DECL "\r\n<A>1</A>\r\n<B>x\r\ny</B>\r\n<C x></C>\r\n",
	                 "trace.xml: line 5, column 5: "
	                 "Specification mandates value for attribute x");
	/* text between the top-level elements of a root-less file */
	expect_xml_error(DECL "\n<CPU><HasXMM>1</HasXMM></CPU>\n junk <OS/>\n",
	                 "trace.xml: line 3: text outside the top-level elements");
	expect_xml_error("<A/><![CDATA[x]]><B/>",
	                 "trace.xml: line 1: text outside the top-level elements");
	/* empty, and not XML at all */
	expect_xml_error("", "trace.xml: line 1, column 1: Document is empty");
	expect_xml_error("Xed=20150121", "trace.xml: line 1, column 1: "
	                 "Start tag expected, '<' not found");
	expect_xml_error_len("<A>\0</A>", 8, "trace.xml: line 1, column 4: "
	                     "Premature end of data in tag A line 1");
	/* the name given names the input */
	umt_meta *m = NULL;
	assert_int_equal(umt_meta_parse("<A>", 3, "fuzz-input", &m), UMT_E_XML);
	assert_string_equal(umt_errmsg(),
	                    "fuzz-input: line 1, column 4: Premature end of data in tag A line 1");
	assert_null(m);
}

/* Every prefix of both layouts parses or fails cleanly (no crash, no leak, no hang). */
static void test_truncated_prefixes(void **state)
{
	(void)state;
	const char *docs[] = {rootless_nl, rootless_flat, file_2015};
	for (size_t d = 0; d < 3; d++) {
		size_t n = strlen(docs[d]);
		for (size_t len = 0; len <= n; len++) {
			umt_meta *m = NULL;
			int rc = umt_meta_parse(docs[d], len, NULL, &m);
			if (rc == 0)
				umt_meta_free(m);
			else
				assert_int_equal(rc, UMT_E_XML);
			assert_true(rc == 0 || strncmp(umt_errmsg(), "trace.xml: ", 11) == 0);
		}
	}
}

static void test_oversized(void **state)
{
	(void)state;
	/* exactly UMT_META_MAX_SIZE bytes: parsed */
	size_t max = UMT_META_MAX_SIZE;
	char *big = malloc(max + 1);
	static const char head[] = "<TraceMetaData><Xed><Version>20150121</Version></Xed>";
	static const char tail[] = "</TraceMetaData>";
	memset(big, ' ', max + 1);
	memcpy(big, head, strlen(head));
	memcpy(big + max - strlen(tail), tail, strlen(tail));
	umt_meta *m = parse_len(big, max);
	assert_string_equal(umt_meta_get(m, "Xed/Version"), "20150121");
	umt_meta_free(m);
	/* one more byte: an error, before any allocation */
	memcpy(big + max + 1 - strlen(tail), tail, strlen(tail));
	expect_xml_error_len(big, max + 1,
	                     "trace.xml: 4194305 bytes, more than the 4194304-byte limit "
	                     "(UMT_META_MAX_SIZE)");
	/* through a trace: the binary tables stay readable */
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, big, max + 1);
	const umt_meta *tm = (const umt_meta *)(uintptr_t)1;
	assert_int_equal(umt_trace_meta(tr, &tm), UMT_E_XML);
	assert_null(tm);
	assert_string_equal(umt_errmsg(), "trace.xml: 4194305 bytes, more than the 4194304-byte "
	                    "limit (UMT_META_MAX_SIZE)");
	umt_rec r;
	assert_int_equal(umt_exec_get(tr, 0, &r), 0);
	umt_trace_close(tr);
	fx_free(&t);
	free(big);
}

/* Deeply nested long names: the copied paths are bounded, not the parse's output. */
static void test_copy_limit(void **state)
{
	(void)state;
	enum { DEPTH = 200, NAME = 1000, LEAVES = 100 };
	size_t cap = 2 * DEPTH * (NAME + 3) + LEAVES * 8 + 64, len = 0;
	char *x = malloc(cap), name[NAME + 1];
	memset(name, 'n', NAME);
	name[NAME] = '\0';
	for (int i = 0; i < DEPTH; i++)
		len += (size_t)snprintf(x + len, cap - len, "<%s>", name);
	for (int i = 0; i < LEAVES; i++)
		len += (size_t)snprintf(x + len, cap - len, "<b/>");
	for (int i = 0; i < DEPTH; i++)
		len += (size_t)snprintf(x + len, cap - len, "</%s>", name);
	assert_true(len < UMT_META_MAX_SIZE);
	/* 100 paths of 200 * 1001 bytes: more than UMT_META_MAX_COPY */
	assert_true((size_t)LEAVES * DEPTH * (NAME + 1) > UMT_META_MAX_COPY);
	expect_xml_error_len(x, len, "trace.xml: element paths and texts need more than 16777216 "
	                     "bytes (UMT_META_MAX_COPY): too deeply nested");
	/* the same nesting with 50 leaves fits: 50 paths of 200201 bytes */
	len = 0;
	for (int i = 0; i < DEPTH; i++)
		len += (size_t)snprintf(x + len, cap - len, "<%s>", name);
	for (int i = 0; i < LEAVES / 2; i++)
		len += (size_t)snprintf(x + len, cap - len, "<b>%d</b>", i);
	for (int i = 0; i < DEPTH; i++)
		len += (size_t)snprintf(x + len, cap - len, "</%s>", name);
	umt_meta *m = parse_len(x, len);
	assert_int_equal(umt_meta_leaf_count(m), LEAVES / 2);
	const char *path, *text;
	assert_int_equal(umt_meta_leaf(m, 49, &path, &text), 0);
	assert_int_equal(strlen(path), DEPTH * (NAME + 1) + 2);
	assert_string_equal(path + DEPTH * (NAME + 1), "/b");
	assert_string_equal(text, "49");
	umt_meta_free(m);
	free(x);
}

/* ---- hostile files ---- */

static char *write_tmp(const char *dir, const char *name, const char *content)
{
	char *path = malloc(4096);
	snprintf(path, 4096, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	return path;
}

static void expect_no_secret(const umt_meta *m, const char *secret)
{
	for (size_t i = 0; i < umt_meta_leaf_count(m); i++) {
		const char *path, *text;
		assert_int_equal(umt_meta_leaf(m, i, &path, &text), 0);
		assert_null(strstr(text, secret));
		assert_null(strstr(path, secret));
	}
}

/* An entity loader of "the application": counts what libxml2 would read. */
static int app_loads;
static struct _xmlParserInput *app_loader(const char *url, const char *id,
                                          struct _xmlParserCtxt *ctxt)
{
	(void)url;
	(void)id;
	(void)ctxt;
	app_loads++;
	return NULL;
}

/*
 * External entities are never read: not the general entity, not a parameter
 * entity, not an external DTD subset; not even when the application turned
 * libxml2's global defaults to substitution, DTD loading and validation.
 */
static void test_external_entity(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	char *secret = write_tmp(dir, "secret.txt", "UMT-SECRET-FILE");
	char *dtd = write_tmp(dir, "leak.dtd", "<!ENTITY leak \"UMT-SECRET-DTD\">");
	char xml[8192];
	for (int hostile = 0; hostile < 2; hostile++) {
		int old_subst = 0, old_load = 0, old_valid = 0;
		app_loader_fn old_loader = NULL;
		if (hostile) {
			old_subst = xmlSubstituteEntitiesDefault(1);
			old_load = *__xmlLoadExtDtdDefaultValue();
			*__xmlLoadExtDtdDefaultValue() = 2 | 4; /* XML_DETECT_IDS | XML_COMPLETE_ATTRS */
			old_valid = *__xmlDoValidityCheckingDefaultValue();
			*__xmlDoValidityCheckingDefaultValue() = 1;
			old_loader = xmlGetExternalEntityLoader();
			xmlSetExternalEntityLoader(app_loader);
		}
		app_loads = 0;
		snprintf(xml, sizeof xml,
		         DECL "<!DOCTYPE TraceMetaData [<!ENTITY ext SYSTEM \"%s\">]>"
		         "<TraceMetaData><Xed><Version>a&ext;b</Version></Xed></TraceMetaData>",
		         secret);
		umt_meta *m = parse(xml);
		assert_int_equal(umt_meta_layout(m), UMT_META_2015);
		assert_string_equal(umt_meta_get(m, "Xed/Version"), "a&ext;b");
		expect_no_secret(m, "UMT-SECRET");
		umt_meta_free(m);
		/* also as a file: URL */
		snprintf(xml, sizeof xml,
		         DECL "<!DOCTYPE T [<!ENTITY ext SYSTEM \"file://%s\">]><T><V>&ext;</V></T>",
		         secret);
		m = parse(xml);
		assert_string_equal(umt_meta_get(m, "T/V"), "&ext;");
		umt_meta_free(m);
		/* an external DTD subset is not loaded: its entity stays a reference */
		snprintf(xml, sizeof xml, DECL "<!DOCTYPE T SYSTEM \"%s\"><T><V>&leak;</V></T>", dtd);
		m = parse(xml);
		assert_string_equal(umt_meta_get(m, "T/V"), "&leak;");
		expect_no_secret(m, "UMT-SECRET");
		umt_meta_free(m);
		/* nor an external parameter entity: its entity is undefined */
		snprintf(xml, sizeof xml,
		         DECL "<!DOCTYPE T [<!ENTITY %% pe SYSTEM \"%s\"> %%pe;]><T><V>&leak;</V></T>",
		         dtd);
		char msg[256]; /* reported just after the reference */
		snprintf(msg, sizeof msg, "trace.xml: line 1, column %d: Entity 'leak' not defined",
		         (int)(strstr(xml, "&leak;") - xml) + 7);
		expect_xml_error(xml, msg);
		if (hostile) {
			assert_int_equal(app_loads, 0); /* nothing was even opened */
			/* the application's settings are as it left them */
			assert_int_equal(xmlSubstituteEntitiesDefault(old_subst), 1);
			assert_int_equal(*__xmlLoadExtDtdDefaultValue(), 2 | 4);
			*__xmlLoadExtDtdDefaultValue() = old_load;
			assert_int_equal(*__xmlDoValidityCheckingDefaultValue(), 1);
			*__xmlDoValidityCheckingDefaultValue() = old_valid;
			assert_ptr_equal(xmlGetExternalEntityLoader(), app_loader);
			xmlSetExternalEntityLoader(old_loader);
		}
	}
	fx_rmtree(dir);
	free(secret);
	free(dtd);
	free(dir);
}

/* Billion laughs: never expanded (libxml2 reports the loop). */
static void test_entity_bomb(void **state)
{
	(void)state;
	char xml[4096];
	size_t len = (size_t)snprintf(xml, sizeof xml, "%s", DECL "<!DOCTYPE lolz [<!ENTITY lol \"lol\">");
	for (int i = 1; i <= 9; i++) {
		len += (size_t)snprintf(xml + len, sizeof xml - len, "<!ENTITY lol%d \"", i);
		for (int k = 0; k < 10; k++)
			len += (size_t)snprintf(xml + len, sizeof xml - len, i == 1 ? "&lol;" : "&lol%d;",
			                        i - 1);
		len += (size_t)snprintf(xml + len, sizeof xml - len, "\">");
	}
	len += (size_t)snprintf(xml + len, sizeof xml - len,
	                        "]><TraceMetaData><Xed><Version>&lol9;</Version></Xed>"
	                        "</TraceMetaData>");
	assert_true(len < sizeof xml);
	umt_meta *m = NULL;
	int rc = umt_meta_parse(xml, len, NULL, &m);
	/* either an error, or the reference left unexpanded */
	if (rc == 0) {
		assert_string_equal(umt_meta_get(m, "Xed/Version"), "&lol9;");
		umt_meta_free(m);
	} else {
		assert_int_equal(rc, UMT_E_XML);
		assert_string_equal(umt_errmsg(), "trace.xml: line 1, column 7: "
		                    "Detected an entity reference loop");
	}
	/* quadratic blowup: a 10 KB entity referenced 2000 times stays references */
	size_t cap = 64 << 10;
	char *q = malloc(cap);
	len = (size_t)snprintf(q, cap, "<!DOCTYPE T [<!ENTITY a \"");
	for (int i = 0; i < 10000; i++)
		q[len++] = 'a';
	len += (size_t)snprintf(q + len, cap - len, "\">]><T><V>");
	for (int i = 0; i < 2000; i++)
		len += (size_t)snprintf(q + len, cap - len, "&a;");
	len += (size_t)snprintf(q + len, cap - len, "</V></T>");
	m = parse_len(q, len);
	assert_int_equal(strlen(umt_meta_get(m, "T/V")), 2000 * 3);
	umt_meta_free(m);
	free(q);
}

/* Nothing printed; the application's global libxml2 error handler neither called nor replaced. */
static int app_errors;
static void app_handler(void *ctx, struct _xmlError *e)
{
	(void)ctx;
	(void)e;
	app_errors++;
}

static void test_libxml2_globals(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	char path[4096];
	snprintf(path, sizeof path, "%s/stderr.txt", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	dup2(fd, 2);
	xmlSetStructuredErrorFunc(NULL, app_handler);

	umt_meta *m = NULL;
	assert_int_equal(umt_meta_parse("<A><B></A>", 10, NULL, &m), UMT_E_XML);
	assert_int_equal(umt_meta_parse("<A x></A>", 9, NULL, &m), UMT_E_XML);
	assert_int_equal(umt_meta_parse("<A/><B></A>", 11, NULL, &m), UMT_E_XML);
	assert_int_equal(umt_meta_parse("<a:b>1</a:b>", 12, NULL, &m), 0); /* a namespace error */
	umt_meta_free(m);
	assert_int_equal(app_errors, 0);
	/* the application's own parse still reaches its handler */
	struct _xmlDoc *doc = xmlReadMemory("<A x></A>", 9, NULL, NULL, 0);
	assert_null(doc);
	assert_true(app_errors > 0);

	xmlSetStructuredErrorFunc(NULL, NULL);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 0); /* nothing printed by the library */
	close(fd);
	fx_rmtree(dir);
	free(dir);
}

/* ---- on a trace ---- */

static void test_missing_trace_xml(void **state)
{
	(void)state;
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, NULL, 0); /* the hand-made trace has no trace.xml */
	const umt_meta *m = trace_meta(tr);
	assert_int_equal(umt_meta_layout(m), UMT_META_NONE);
	assert_int_equal(umt_meta_leaf_count(m), 0);
	assert_int_equal(umt_meta_leaf(m, 0, NULL, NULL), UMT_E_RANGE);
	assert_null(umt_meta_get(m, "Xed/Version"));
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(m, &in), 0);
	assert_int_equal(in.layout, UMT_META_NONE);
	assert_null(in.xed_version);
	assert_int_equal(in.xed_date, -1);
	assert_int_equal(in.xed_number, -1);
	assert_int_equal(in.xed_is_pin_build, 0);
	assert_null(in.process_id);
	assert_int_equal(in.pid, -1);
	assert_int_equal(in.bitness, -1);
	assert_null(in.app_command_line);
	assert_null(in.os_name);
	assert_int_equal(in.has_xmm, -1);
	assert_int_equal(in.ins_format_version, -1);
	assert_int_equal(in.exec_format_version, -1);
	assert_int_equal(in.syscall_table_version, -1);
	assert_int_equal(umt_trace_meta_check(tr), 0);
	assert_ptr_equal(trace_meta(tr), m);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_trace_meta_twice(void **state)
{
	(void)state;
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, rootless_nl, strlen(rootless_nl));
	const umt_meta *m1 = trace_meta(tr);
	const umt_meta *m2 = trace_meta(tr);
	assert_ptr_equal(m1, m2);
	check_rootless_info(m1);
	/* the copy does not point into the trace's buffer */
	const char *path, *text;
	assert_int_equal(umt_meta_leaf(m1, 0, &path, &text), 0);
	const char *xml = (const char *)t.data[UMT_FILE_TRACE_XML];
	assert_true(text < xml || text >= xml + t.size[UMT_FILE_TRACE_XML]);
	umt_trace_close(tr);
	fx_free(&t);
}

struct race {
	umt_trace *tr;
	pthread_barrier_t *go;
	const umt_meta *m;
	int rc;
	int64_t xed;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	pthread_barrier_wait(r->go);
	r->rc = umt_trace_meta(r->tr, &r->m);
	r->xed = umt__trace_xed_date(r->tr);
	return NULL;
}

/* Two threads asking at once get the same parse (run under ASan; TSan-clean by design). */
static void test_trace_meta_threads(void **state)
{
	(void)state;
	for (int round = 0; round < 20; round++) {
		struct fx_trace t;
		umt_trace *tr = open_with_xml(&t, file_2015, strlen(file_2015));
		pthread_barrier_t go;
		pthread_barrier_init(&go, NULL, 2);
		struct race r[2] = {{tr, &go, NULL, -99, 0}, {tr, &go, NULL, -99, 0}};
		pthread_t th[2];
		for (int i = 0; i < 2; i++)
			assert_int_equal(pthread_create(&th[i], NULL, race_thread, &r[i]), 0);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&go);
		assert_int_equal(r[0].rc, 0);
		assert_int_equal(r[1].rc, 0);
		assert_non_null(r[0].m);
		assert_ptr_equal(r[0].m, r[1].m);
		assert_int_equal(r[0].xed, 20150121);
		assert_int_equal(r[1].xed, 20150121);
		assert_ptr_equal(trace_meta(tr), r[0].m);
		umt_trace_close(tr);
		fx_free(&t);
	}
}

static void test_error_remembered(void **state)
{
	(void)state;
	static const char bad[] = DECL "\n<TraceMetaData>\n<Xed x></Xed>\n</TraceMetaData>\n";
	static const char msg[] = "trace.xml: line 3, column 7: "
	                          "Specification mandates value for attribute x";
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, bad, strlen(bad));
	const struct umt_lazy_slot *slot = &tr->lazy->slot[UMT_LAZY_META];
	assert_int_equal(slot->status, 0); /* nothing parsed at open */
	for (int i = 0; i < 3; i++) {
		const umt_meta *m = (const umt_meta *)(uintptr_t)1;
		assert_int_equal(umt_trace_meta(tr, &m), UMT_E_XML);
		assert_null(m);
		assert_string_equal(umt_errmsg(), msg);
		assert_int_equal(umt_trace_meta_check(tr), UMT_E_XML);
		assert_string_equal(umt_errmsg(), msg);
		other_failure(tr); /* the binary tables still work */
		umt_rec r;
		assert_int_equal(umt_exec_get(tr, 13, &r), 0);
		/* remembered, not parsed again */
		assert_int_equal(slot->status, UMT_E_XML);
		assert_string_equal(slot->message, msg);
		assert_null(atomic_load(&slot->value));
	}
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- writer traces and cross-checks ---- */

static void test_writer_traces(void **state)
{
	(void)state;
	for (int flavour = 0; flavour < 2; flavour++) {
		char *dir = fx_tmpdir();
		assert_int_equal(fx_write_standard(dir, flavour), 0);
		umt_trace *tr;
		assert_int_equal(umt_trace_open(dir, 0, &tr), 0);
		const umt_meta *m = trace_meta(tr);
		umt_meta_info in;
		assert_int_equal(umt_meta_get_info(m, &in), 0);
		bool old = flavour == UMT_FLAVOUR_2014;
		assert_int_equal(in.layout, old ? UMT_META_ROOTLESS : UMT_META_2015);
		assert_string_equal(in.xed_version, old ? "20140106" : "20150121");
		assert_int_equal(in.xed_date, old ? 20140106 : 20150121);
		assert_int_equal(umt__trace_xed_date(tr), old ? 20140106 : 20150121);
		assert_int_equal(in.pid, 4242);
		assert_int_equal(in.bitness, 64);
		assert_string_equal(in.app_command_line, "\"C:\\Windows\\System32\\notepad.exe\"");
		assert_string_equal(in.os_id, "06010110");
		assert_string_equal(in.os_name, "Windows 7 SP1 64-bits");
		assert_string_equal(in.pin_version, old ? "2.13.62732" : "2.14.71313");
		assert_int_equal(in.has_xmm, 1);
		assert_int_equal(in.has_ymm, 1);
		assert_int_equal(in.has_zmm, 0);
		assert_int_equal(in.ins_format_version, old ? 0 : 1);
		assert_int_equal(in.exec_format_version, old ? 0 : 1);
		assert_int_equal(in.syscall_table_version, old ? 0 : -1);
		if (old) {
			assert_null(in.raw_trace_date);
			assert_null(in.umtracer_version);
		} else {
			assert_string_equal(in.raw_trace_date, "2015-07-01T12:00:00");
			assert_string_equal(in.umtracer_version, "4.0");
		}
		assert_int_equal(umt_trace_meta_check(tr), 0);
		umt_trace_close(tr);

		/* the writer's trace with trace.xml removed */
		struct fx_trace t;
		fx_load_dir(dir, &t);
		free(t.data[UMT_FILE_TRACE_XML]);
		t.data[UMT_FILE_TRACE_XML] = NULL;
		t.size[UMT_FILE_TRACE_XML] = 0;
		assert_int_equal(fx_open(&t, &tr), 0);
		assert_int_equal(umt_meta_layout(trace_meta(tr)), UMT_META_NONE);
		assert_int_equal(umt_trace_meta_check(tr), 0);
		umt_trace_close(tr);
		fx_free(&t);
		fx_rmtree(dir);
		free(dir);
	}
}

/* syscall.vtable's UnifiedIDsVer disagreeing with the pre-2015 trace.xml (ERRATA 21). */
static void test_check_syscall_table(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2014), 0);
	struct fx_trace t;
	fx_load_dir(dir, &t);
	umt_trace *tr;
	assert_int_equal(fx_open(&t, &tr), 0);
	assert_int_equal(umt_trace_meta_check(tr), 0);
	umt_trace_close(tr);
	fx_put32(t.data[UMT_FILE_SYSCALL_VTABLE] + 4, 1); /* UnifiedIDsVer */
	assert_int_equal(fx_open(&t, &tr), 0);
	assert_int_equal(umt_trace_meta_check(tr), UMT_E_CORRUPT);
	assert_string_equal(umt_errmsg(), "trace.xml: /UMTracer/Exec/SyscallTable/Version is 0 "
	                    "but syscall.vtable UnifiedIDsVer is 1");
	umt_trace_close(tr);
	fx_free(&t);
	fx_rmtree(dir);
	free(dir);
}

/* The hand-made trace (exec Version 1, insRec 1, UnifiedIDsVer 1) against various files. */
static void expect_meta_check(const char *xml, int code, const char *msg)
{
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, xml, strlen(xml));
	int rc = umt_trace_meta_check(tr);
	if (rc != code)
		print_error("check: %d %s\n", rc, umt_errmsg());
	assert_int_equal(rc, code);
	if (msg != NULL)
		assert_string_equal(umt_errmsg(), msg);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_check_versions(void **state)
{
	(void)state;
	expect_meta_check(file_2015, 0, NULL);
	expect_meta_check(rootless_flat, 0, NULL); /* its versions are 1, as the trace's */
	expect_meta_check("<TraceMetaData><RawTrace><UMTracer><Exec><Format><Version>0</Version>"
	             "</Format></Exec></UMTracer></RawTrace></TraceMetaData>",
	             UMT_E_CORRUPT,
	             "trace.xml: /TraceMetaData/RawTrace/UMTracer/Exec/Format/Version is 0 but "
	             "exec.vtable Version is 1");
	expect_meta_check(DECL "<UMTracer><Ins><Format><Version>0</Version></Format></Ins></UMTracer>"
	             "<Xed><Version>20131119</Version></Xed>",
	             UMT_E_CORRUPT,
	             "trace.xml: /UMTracer/Ins/Format/Version is 0 but ins.itable RecordVer is 1");
	expect_meta_check(DECL "<UMTracer><Exec><SyscallTable><Version>0</Version></SyscallTable>"
	             "</Exec></UMTracer><App/>",
	             UMT_E_CORRUPT,
	             "trace.xml: /UMTracer/Exec/SyscallTable/Version is 0 but syscall.vtable "
	             "UnifiedIDsVer is 1");
	expect_meta_check("<TraceMetaData><RawTrace><UMTracer><Ins><Format><Version>one</Version>"
	             "</Format></Ins></UMTracer></RawTrace></TraceMetaData>",
	             UMT_E_CORRUPT,
	             "trace.xml: /TraceMetaData/RawTrace/UMTracer/Ins/Format/Version \"one\" is "
	             "not a number (ins.itable RecordVer is 1)");
	/* the first disagreement is reported: syscall table before exec before ins */
	expect_meta_check(DECL "<UMTracer><Ins><Format><Version>7</Version></Format></Ins>"
	             "<Exec><Format><Version>7</Version></Format>"
	             "<SyscallTable><Version>7</Version></SyscallTable></Exec></UMTracer>",
	             UMT_E_CORRUPT,
	             "trace.xml: /UMTracer/Exec/SyscallTable/Version is 7 but syscall.vtable "
	             "UnifiedIDsVer is 1");
	expect_meta_check("<TraceMetaData><Xed></TraceMetaData>", UMT_E_XML,
	             "trace.xml: line 1, column 37: "
	             "Opening and ending tag mismatch: Xed line 1 and TraceMetaData");
}

static void test_invalid_args(void **state)
{
	(void)state;
	umt_meta *m = NULL;
	assert_int_equal(umt_meta_parse(NULL, 0, NULL, &m), UMT_E_INVAL);
	assert_int_equal(umt_meta_parse("<a/>", 4, NULL, NULL), UMT_E_INVAL);
	assert_int_equal(umt_trace_meta(NULL, (const umt_meta **)&m), UMT_E_INVAL);
	assert_int_equal(umt_trace_meta_check(NULL), UMT_E_INVAL);
	assert_int_equal(umt_meta_layout(NULL), UMT_E_INVAL);
	assert_int_equal(umt_meta_leaf_count(NULL), 0);
	assert_int_equal(umt_meta_leaf(NULL, 0, NULL, NULL), UMT_E_INVAL);
	umt_meta_info in;
	assert_int_equal(umt_meta_get_info(NULL, &in), UMT_E_INVAL);
	assert_null(umt_meta_get(NULL, "Xed/Version"));
	m = parse("<A/>");
	assert_null(umt_meta_get(m, NULL));
	assert_int_equal(umt_meta_get_info(m, NULL), UMT_E_INVAL);
	assert_int_equal(umt_meta_leaf(m, 1, NULL, NULL), UMT_E_RANGE);
	assert_string_equal(umt_meta_get(m, "A"), "");
	umt_meta_free(m);
	umt_meta_free(NULL);
	struct fx_trace t;
	umt_trace *tr = open_with_xml(&t, NULL, 0);
	assert_int_equal(umt_trace_meta(tr, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rootless_layout),
		cmocka_unit_test(test_rootless_one_line),
		cmocka_unit_test(test_2015_layout),
		cmocka_unit_test(test_unknown_and_case),
		cmocka_unit_test(test_xed_versions),
		cmocka_unit_test(test_trace_xed_date),
		cmocka_unit_test(test_bom_and_crlf),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_truncated_prefixes),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_copy_limit),
		cmocka_unit_test(test_external_entity),
		cmocka_unit_test(test_entity_bomb),
		cmocka_unit_test(test_libxml2_globals),
		cmocka_unit_test(test_missing_trace_xml),
		cmocka_unit_test(test_trace_meta_twice),
		cmocka_unit_test(test_trace_meta_threads),
		cmocka_unit_test(test_error_remembered),
		cmocka_unit_test(test_writer_traces),
		cmocka_unit_test(test_check_syscall_table),
		cmocka_unit_test(test_check_versions),
		cmocka_unit_test(test_invalid_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
