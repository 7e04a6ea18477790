/*
 * Writes the seed corpus of the fuzz targets:
 *
 *   fuzz_mkcorpus OUT_DIR [NAME=TRACE_DIR]...
 *
 * OUT_DIR/trace/  the hand-made trace, the standard writer trace in both
 *                 flavours, an empty trace and every TRACE_DIR given (the
 *                 sample trace, small umtgen traces: see regen-corpus.sh),
 *                 each in the split format of fuzz.h with the context map
 *                 stored as its difference from the closest base map;
 * OUT_DIR/meta/   the trace.xml of each of those traces and hand-written
 *                 files of both layouts, encodings, entities, odd nesting;
 * OUT_DIR/enum/   XED-like and syscall headers, aliases, expressions,
 *                 comments, preprocessor lines, enum class, sparse values.
 * Deterministic: the same library gives the same bytes.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "fuzz.h"
#include "umtrace/umtrace.h"

static const char *out_dir;
static unsigned trace_seeds;

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "fuzz_mkcorpus: %s: %s\n", what, detail);
	exit(1);
}

static void make_dir(const char *path)
{
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		die(path, strerror(errno));
}

static void write_seed(const char *target, const char *name, const void *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s/%s", out_dir, target, name);
	FILE *fp = fopen(path, "wb");
	if (fp == NULL || fwrite(data, 1, size, fp) != size || fclose(fp) != 0)
		die(path, "cannot write");
}

/* ---- traces -------------------------------------------------------------- */

/* Bytes of @p map that differ from @p base, counted up to the last difference. */
static size_t diff_len(const uint8_t *map, const uint8_t *base)
{
	size_t n = UMT_CONTEXT_MAP_SIZE;
	while (n > 0 && map[n - 1] == base[n - 1])
		n--;
	return n;
}

/* The context-map option giving the shortest stored map, and that length. */
static unsigned cmap_mode(const uint8_t *map, size_t size, size_t *len)
{
	*len = size;
	if (map == NULL || size != UMT_CONTEXT_MAP_SIZE)
		return FUZZ_CMAP_RAW;
	umt_context_map bases[3];
	memset(bases, 0, sizeof bases);
	umt_context_map_default(&bases[1], 1, "20150121");
	umt_context_map_default(&bases[2], 0, "20140106");
	unsigned best = FUZZ_CMAP_RAW;
	for (unsigned i = 0; i < 3; i++) {
		size_t n = diff_len(map, (const uint8_t *)&bases[i]);
		if (n < *len) {
			*len = n;
			best = FUZZ_CMAP_ZERO + i;
		}
	}
	return best;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Writes @p t as one input of the trace target. */
static void pack_trace(const char *name, const struct fx_trace *t)
{
	size_t cmap_len;
	int cm = UMT_FILE_CONTEXT_MAP;
	unsigned mode = cmap_mode(t->data[cm], t->size[cm], &cmap_len);
	size_t total = FUZZ_TRACE_HEADER;
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		total += f == cm ? cmap_len : t->size[f];
	uint8_t *buf = malloc(total), *p = buf + FUZZ_TRACE_HEADER;
	if (buf == NULL)
		die(name, "out of memory");
	/* vary the misalignment between seeds */
	buf[0] = (uint8_t)(trace_seeds++ % 8 | mode << 3);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		size_t n = f == cm ? cmap_len : t->size[f];
		put32(buf + 1 + 4 * f, t->data[f] ? (uint32_t)n : FUZZ_MISSING);
		if (n)
			memcpy(p, t->data[f], n);
		p += n;
	}
	write_seed("trace", name, buf, total);
	free(buf);
	int x = UMT_FILE_TRACE_XML;
	if (t->data[x] != NULL)
		write_seed("meta", name, t->data[x], t->size[x]);
}

static void pack_dir(const char *name, const char *dir)
{
	struct fx_trace t;
	fx_load_dir(dir, &t);
	if (t.data[UMT_FILE_EXEC_VTABLE] == NULL)
		die(dir, "not a trace");
	pack_trace(name, &t);
	fx_free(&t);
}

/* Traces written by the writer into a temporary directory. */
static void writer_traces(void)
{
	static const struct { const char *name; int flavour; } std[] = {
		{"std-2015", UMT_FLAVOUR_2015}, {"std-2014", UMT_FLAVOUR_2014}};
	for (size_t i = 0; i < sizeof std / sizeof std[0]; i++) {
		char *dir = fx_tmpdir();
		if (fx_write_standard(dir, std[i].flavour) < 0)
			die(std[i].name, umt_errmsg());
		pack_dir(std[i].name, dir);
		fx_rmtree(dir);
		free(dir);
	}
	/* no record, no row */
	char *dir = fx_tmpdir();
	umt_writer *w;
	if (umt_writer_open(dir, NULL, &w) < 0 || umt_writer_finish(w) < 0)
		die("empty", umt_errmsg());
	pack_dir("empty", dir);
	fx_rmtree(dir);
	free(dir);
}

/* ---- trace.xml ------------------------------------------------------------ */

#define DECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"

static const struct { const char *name; const char *text; } xml_seeds[] = {
	{"rootless-one-line",
	 DECL "<UMTracer><Version>3.2</Version><Ins><Format><Version>0</Version></Format></Ins>"
	 "<Exec><Format><Version>0</Version></Format><SyscallTable><Version>1</Version>"
	 "</SyscallTable></Exec></UMTracer><Xed><Version>56759</Version></Xed>"
	 "<App><Bitness>32</Bitness><ProcessID> 4242 </ProcessID></App>"},
	{"odd-case",
	 DECL "<tracemetadata><cpu><hasxmm>true</hasxmm><HASYMM>false</HASYMM><HasZMM>2</HasZMM>"
	 "</cpu><XED><VERSION>20140106</VERSION></XED><app><bitness>64</bitness>"
	 "<processid>-1</processid></app></tracemetadata>\n"},
	{"markup",
	 DECL "<!-- a comment --><?pi data?>\n<TraceMetaData a=\"1\">\n"
	 "  <App><CommandLine>&quot;x.exe&quot; &amp; &#x41;&#66; <![CDATA[<raw>]]></CommandLine>"
	 "</App>\n  <n:Ns xmlns:n=\"urn:x\"><n:Leaf>v</n:Leaf></n:Ns>\n"
	 "  <Empty/><Mixed>text<Child>c</Child>tail</Mixed>\n</TraceMetaData>\n"},
	{"doctype",
	 "<?xml version=\"1.0\"?>\n<!DOCTYPE TraceMetaData [\n<!ENTITY a \"aaaa\">\n"
	 "<!ENTITY b \"&a;&a;&a;\">\n<!ENTITY ext SYSTEM \"file:///etc/passwd\">\n]>\n"
	 "<TraceMetaData><X>&b;</X><Y>&ext;</Y><Xed><Version>2015x</Version></Xed>"
	 "</TraceMetaData>\n"},
	{"rootless-text-between", DECL "<A>1</A>\n stray text \n<B>2</B>\n"},
	{"rootless-unclosed", DECL "<A>1</A>\n<B><C>2</C>\n"},
	{"deep", "<a><b><c><d><e><f><g><h><i><j>x</j></i></h></g></f></e></d></c></b></a>"},
	{"versions-2015",
	 DECL "<TraceMetaData><RawTrace><UMTracer><Version>4.0</Version><Exec><Format>"
	 "<Version>7</Version></Format><SyscallTable><Version>x</Version></SyscallTable>"
	 "</Exec><Ins><Format><Version>1</Version></Format></Ins></UMTracer></RawTrace>"
	 "<Pin><WorkingDirectory>C:\\</WorkingDirectory></Pin></TraceMetaData>"},
	{"empty-file", ""},
	{"latin1",
	 "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<TraceMetaData><OS><Name>caf\xe9</Name>"
	 "</OS><CPU><HasXMM> 1 </HasXMM></CPU></TraceMetaData>\n"},
	{"bad-encoding",
	 "<?xml version=\"1.0\" encoding=\"UTF-7\"?><a>\\Win\xce\x35\x33<b/></a>"},
	{"rootless-decl-line",
	 "<?xml version=\"1.0\"?><Xed><Version>20131119</Version></Xed><Pin><Version>2.12.56759"
	 "</Version></Pin>\n<App><Bitness>x</Bitness></App>"},
};

/* A 2015 file in UTF-16LE with a byte order mark. */
static void utf16_seed(void)
{
	static const char text[] =
		"<?xml version=\"1.0\" encoding=\"UTF-16\"?><TraceMetaData><Xed><Version>"
		"20150121</Version></Xed><OS><Name>\xc3\xa9</Name></OS></TraceMetaData>";
	uint8_t buf[2 * sizeof text + 2];
	size_t n = 0;
	buf[n++] = 0xff;
	buf[n++] = 0xfe;
	for (const char *p = text; *p; p++) {
		buf[n++] = (uint8_t)*p; /* the two bytes of U+00E9 become two Latin-1 units */
		buf[n++] = 0;
	}
	write_seed("meta", "utf16", buf, n);
}

/* ---- enum headers ------------------------------------------------------------ */

static const struct { const char *name; unsigned type; const char *text; } enum_seeds[] = {
	{"xed-iclass", 2,
	 "/*BEGIN_LEGAL\nCopyright (c) 2015 Intel Corporation\nEND_LEGAL */\n"
	 "#if !defined(XED_ICLASS_ENUM_H)\n# define XED_ICLASS_ENUM_H\n#include \"xed-common-hdrs.h\"\n"
	 "typedef enum {\n  XED_ICLASS_INVALID,\n  XED_ICLASS_AAA,\n  XED_ICLASS_ADD,\n"
	 "  XED_ICLASS_MOV,\n  XED_ICLASS_PUSH,\n  XED_ICLASS_LAST\n} xed_iclass_enum_t;\n\n"
	 "XED_DLL_EXPORT xed_iclass_enum_t str2xed_iclass_enum_t(const char* s);\n#endif\n"},
	{"xed-reg-aliases", 1,
	 "typedef enum {\n  XED_REG_INVALID,\n  XED_REG_RAX = 74,\n  XED_REG_RCX,\n  XED_REG_R15 = 89,\n"
	 "  XED_REG_LAST,\n  XED_REG_GPR64_FIRST=XED_REG_RAX, //first\n"
	 "  XED_REG_GPR64_LAST=XED_REG_R15,\n  XED_REG_STACKPUSH = 131\n} xed_reg_enum_t;\n"},
	{"syscall-v0", 5,
	 "// unified IDs\ntypedef enum _SYSCALL_UNIFIED_ID_V0 {\n  SYSCALL_NtClose_0500_1 = 0x0,\n"
	 "  SYSCALL_NtCreateFile_0500_1 = 0x1,\n  SYSCALL_NtOpenFile_0600_2 = 0x2a,\n"
	 "  SYSCALL_MAX\n} SYSCALL_UNIFIED_ID_V0;\n"},
	{"enum-class", 6,
	 "namespace x {\nenum class Mode : unsigned short { MODE_A = 1, MODE_B, MODE_C = 010 };\n}\n"},
	{"expressions", 7,
	 "enum other { O };\nenum shape_tag {\n  S_A = -(0x10 + 010),\n  S_B = ~S_A,\n"
	 "  S_C = +S_B - 1u,\n  S_D = (S_C + (2 - (3))) - 0x7fffffffffffffffll,\n"
	 "  S_E = 18446744073709551615ul,\n};\n"},
	{"preprocessor", 0,
	 "#if 0\ntypedef enum { P_X, P_Y } p_t;\n#else\n#define FOO \\\n  (1)\n#endif\n"
	 "/* enum { NOT_ME }; */ // enum { NOR_ME };\n"},
	{"sparse", 0,
	 "typedef enum { SP_A = 1, SP_B = 1000000, SP_C = -5000000, SP_D = 0x7fffffffffffffff,\n"
	 "  SP_E = -0x7fffffffffffffff - 1, SP_F } sparse_t;\n"},
	{"category", 4,
	 "typedef enum {\n  XED_CATEGORY_INVALID,\n  XED_CATEGORY_3DNOW,\n  XED_CATEGORY_BINARY,\n"
	 "  XED_CATEGORY_LAST\n} xed_category_enum_t;\n"},
	{"iform", 3,
	 "typedef enum {\n  XED_IFORM_INVALID=0,\n  XED_IFORM_AAA=1,\n  XED_IFORM_MOV_GPRv_MEMv=2,\n"
	 "  XED_IFORM_LAST\n} xed_iform_enum_t;\n"},
	{"errors", 0, "typedef enum {\n  E_A,\n  E_A,\n  E_B = E_UNKNOWN * 2,\n} e_t;\n/* open"},
	{"lexer", 0,
	 "\xef\xbb\xbf// a comment \\\r\n continued\r\nconst char *s = \"enum { NOT }\\\"\";\r\n"
	 "char c = '}';\r\n#define X \\\r\n enum\r\ntypedef enum /* x */ lex_tag {\r\n"
	 "  L_A = 0x7fffffffffffffff,\r\n  L_B,\r\n} lex_t;\r\n"},
	{"overflow", 0, "enum o { O_A = -0x7fffffffffffffff - 2 };\n"},
	{"unexpected", 0, "enum u { U_A = , U_B };\n"},
	{"deep-parens", 0,
	 "enum d { D = ((((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))))) };\n"},
};

static void enum_corpus(void)
{
	for (size_t i = 0; i < sizeof enum_seeds / sizeof enum_seeds[0]; i++) {
		size_t n = strlen(enum_seeds[i].text);
		char *buf = malloc(n + 1);
		if (buf == NULL)
			die("enum", "out of memory");
		buf[0] = (char)enum_seeds[i].type;
		memcpy(buf + 1, enum_seeds[i].text, n);
		write_seed("enum", enum_seeds[i].name, buf, n + 1);
		free(buf);
	}
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fuzz_mkcorpus OUT_DIR [NAME=TRACE_DIR]...\n");
		return 2;
	}
	out_dir = argv[1];
	char sub[4096];
	make_dir(out_dir);
	static const char *const targets[] = {"trace", "meta", "enum"};
	for (int i = 0; i < 3; i++) {
		snprintf(sub, sizeof sub, "%s/%s", out_dir, targets[i]);
		make_dir(sub);
	}
	struct fx_trace hm;
	fx_handmade(&hm);
	pack_trace("handmade", &hm);
	fx_free(&hm);
	writer_traces();
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (eq == NULL || eq == argv[i])
			die(argv[i], "expected NAME=TRACE_DIR");
		*eq = '\0';
		pack_dir(argv[i], eq + 1);
	}
	for (size_t i = 0; i < sizeof xml_seeds / sizeof xml_seeds[0]; i++)
		write_seed("meta", xml_seeds[i].name, xml_seeds[i].text, strlen(xml_seeds[i].text));
	utf16_seed();
	enum_corpus();
	return 0;
}
