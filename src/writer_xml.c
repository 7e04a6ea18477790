/*
 * libumtrace - trace.xml of the writer (see writer.h).
 *
 * Caller strings are checked at umt_writer_open() and refused rather than
 * altered: XML 1.0 cannot hold most C0 control characters at all (not even
 * as character references, which only XML 1.1 allows), and a writer that
 * silently dropped bytes would not write what the caller gave. What XML 1.0
 * allows is written so that the reader returns it unchanged: '&', '<', '>'
 * and '"' as entity references, CR as "&#13;" (a parser turns a literal CR
 * into LF), TAB, LF, DEL and everything else as they are.
 */
#include <stdio.h>

#include "writer.h"

/* Checks one string; @p field names it in the message. */
static int check_text(const char *field, const char *s)
{
	const unsigned char *b = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		if (b[i] < 0x20 && b[i] != '\t' && b[i] != '\n' && b[i] != '\r')
			return umt__failf(UMT_E_INVAL,
			                  "umt_writer_open: %s: control character 0x%02x at byte %zu: "
			                  "XML 1.0 cannot hold it", field, b[i], i);
		/* U+FFFE and U+FFFF are not XML characters either */
		if (b[i] == 0xef && i + 2 < n && b[i + 1] == 0xbf && (b[i + 2] & 0xfe) == 0xbe)
			return umt__failf(UMT_E_INVAL,
			                  "umt_writer_open: %s: U+%04X at byte %zu: not an XML character",
			                  field, 0xfffe + (b[i + 2] & 1), i);
	}
	uint16_t *units = malloc((n + 1) * sizeof *units);
	if (units == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_writer_open: out of memory");
	long k = umt__utf8_to_utf16(s, units, n + 1);
	free(units);
	if (k < 0)
		return umt__failf(UMT_E_INVAL, "umt_writer_open: %s: not valid UTF-8", field);
	return 0;
}

int umt__xml_check(const umt_writer_options *o)
{
	const umt_writer_xml *x = &o->xml;
	const struct { const char *field, *value; } texts[] = {
		{"xml.xed_version", x->xed_version}, {"xml.process_id", x->process_id},
		{"xml.bitness", x->bitness}, {"xml.app_command_line", x->app_command_line},
		{"xml.os_id", x->os_id}, {"xml.os_name", x->os_name},
		{"xml.pin_version", x->pin_version}, {"xml.pin_command_line", x->pin_command_line},
		{"xml.has_xmm", x->has_xmm}, {"xml.has_ymm", x->has_ymm}, {"xml.has_zmm", x->has_zmm},
		{"xml.raw_trace_date", x->raw_trace_date},
		{"xml.umtracer_version", x->umtracer_version}, {"xml_text", o->xml_text},
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		int rc = texts[i].value ? check_text(texts[i].field, texts[i].value) : 0;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Writes leaves given as slash-separated paths, nesting them: consecutive
 * leaves that share parents share the parent elements, as in real files.
 */
struct xml_out {
	struct umt_mbuf *b;
	char open[8][32]; /* element names currently open */
	int depth;
	bool failed;
};

static void xml_put(struct xml_out *x, const char *s, size_t n)
{
	if (!x->failed && umt__mb_put(x->b, s, n) < 0)
		x->failed = true;
}

static void xml_puts(struct xml_out *x, const char *s)
{
	xml_put(x, s, strlen(s));
}

static void xml_indent(struct xml_out *x, int depth)
{
	for (int i = 0; i < depth; i++)
		xml_puts(x, "  ");
}

static void xml_close_to(struct xml_out *x, int depth)
{
	while (x->depth > depth) {
		x->depth--;
		xml_indent(x, x->depth);
		xml_puts(x, "</");
		xml_puts(x, x->open[x->depth]);
		xml_puts(x, ">\n");
	}
}

/* Character data of a checked caller string (see the top of this file). */
static void xml_escaped(struct xml_out *x, const char *value)
{
	for (const char *s = value; *s; s++) {
		switch (*s) {
		case '&': xml_puts(x, "&amp;"); break;
		case '<': xml_puts(x, "&lt;"); break;
		case '>': xml_puts(x, "&gt;"); break;
		case '"': xml_puts(x, "&quot;"); break;
		case '\r': xml_puts(x, "&#13;"); break;
		default: xml_put(x, s, 1); break;
		}
	}
}

static void xml_leaf(struct xml_out *x, const char *path, const char *value)
{
	if (value == NULL)
		return;
	char names[8][32];
	int n = 0;
	for (const char *p = path; *p && n < 8; n++) {
		size_t k = strcspn(p, "/");
		snprintf(names[n], sizeof names[n], "%.*s", (int)k, p);
		p += k + (p[k] == '/');
	}
	int keep = 0;
	while (keep < x->depth && keep < n - 1 && !strcmp(x->open[keep], names[keep]))
		keep++;
	xml_close_to(x, keep);
	for (; x->depth < n - 1; x->depth++) {
		xml_indent(x, x->depth);
		xml_puts(x, "<");
		xml_puts(x, names[x->depth]);
		xml_puts(x, ">\n");
		memcpy(x->open[x->depth], names[x->depth], sizeof names[0]);
	}
	xml_indent(x, x->depth);
	xml_puts(x, "<");
	xml_puts(x, names[n - 1]);
	xml_puts(x, ">");
	xml_escaped(x, value);
	xml_puts(x, "</");
	xml_puts(x, names[n - 1]);
	xml_puts(x, ">\n");
}

int umt__xml_build(const umt_writer_options *o, struct umt_mbuf *b)
{
	const umt_writer_xml *m = &o->xml;
	bool root = o->xml_root;
	char exec_ver[16], ins_ver[16], ids_ver[16];
	snprintf(exec_ver, sizeof exec_ver, "%d", o->exec_version);
	snprintf(ins_ver, sizeof ins_ver, "%d", o->ins_record_version);
	snprintf(ids_ver, sizeof ids_ver, "%d", o->unified_ids_version);
	struct xml_out x = {.b = b};
	xml_puts(&x, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
	/* In the 2015 layout everything sits under TraceMetaData (ERRATA 19). */
	const char *top = root ? "TraceMetaData/" : "";
	struct { const char *path, *value; } leaves[] = {
		{"CPU/HasXMM", m->has_xmm}, {"CPU/hasYMM", m->has_ymm}, {"CPU/hasZMM", m->has_zmm},
		{"OS/Id", m->os_id}, {"OS/Name", m->os_name},
		{"Pin/Version", m->pin_version}, {"Pin/CommandLine", m->pin_command_line},
		{"Xed/Version", m->xed_version},
		{"App/CommandLine", m->app_command_line}, {"App/Bitness", m->bitness},
		{"App/ProcessID", m->process_id},
		{"RawTrace/DateTime", root ? m->raw_trace_date : NULL},
		{"RawTrace/UMTracer/Version", root ? m->umtracer_version : NULL},
		{"RawTrace/UMTracer/Ins/Format/Version", root ? ins_ver : NULL},
		{"RawTrace/UMTracer/Exec/Format/Version", root ? exec_ver : NULL},
	};
	char path[128];
	for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
		snprintf(path, sizeof path, "%s%s", top, leaves[i].path);
		xml_leaf(&x, path, leaves[i].value);
	}
	if (!root) { /* pre-2015: a comment, then the tracer's own settings */
		xml_close_to(&x, 0);
		xml_puts(&x, "<!-- UMTracer settings -->\n");
		xml_leaf(&x, "UMTracer/Ins/Format/Version", ins_ver);
		xml_leaf(&x, "UMTracer/Exec/Format/Version", exec_ver);
		xml_leaf(&x, "UMTracer/Exec/SyscallTable/Version", ids_ver);
	}
	xml_close_to(&x, 0);
	return x.failed ? umt__failf(UMT_E_NOMEM, "writer: out of memory") : 0;
}
