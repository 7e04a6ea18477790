/*
 * umtdump xml: trace.xml, its layout, the essentials and every leaf
 * element with its path. A path that occurs again is written "path[N]"
 * for its N-th occurrence (N >= 2), so that JSON keys stay unique.
 */
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

/* Occurrence counts of paths: open addressing over leaf indexes. */
struct seen {
	size_t cap;   /* power of two */
	size_t *slot; /* leaf index + 1, 0 when empty */
	unsigned *count;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool seen_init(struct seen *s, size_t n)
{
	s->cap = 16;
	while (s->cap < 2 * n)
		s->cap *= 2;
	s->slot = calloc(s->cap, sizeof *s->slot);
	s->count = calloc(s->cap, sizeof *s->count);
	return s->slot && s->count;
}

static void seen_free(struct seen *s)
{
	free(s->slot);
	free(s->count);
}

/* How many times @p path (leaf @p i) occurred so far, this one included. */
static unsigned seen_add(struct seen *s, const umt_meta *m, size_t i, const char *path)
{
	for (size_t k = hash(path) & (s->cap - 1);; k = (k + 1) & (s->cap - 1)) {
		if (s->slot[k] == 0) {
			s->slot[k] = i + 1;
			return s->count[k] = 1;
		}
		const char *other;
		umt_meta_leaf(m, s->slot[k] - 1, &other, NULL);
		if (!strcmp(other, path))
			return ++s->count[k];
	}
}

/* An essential: its text, or null/"-" when absent. */
static void essential(const struct opts *o, struct jw *j, const char *key, const char *label,
                      const char *text)
{
	if (o->json) {
		jw_str(j, key, text);
		return;
	}
	out_str_pad(label, 26);
	out_textz(text ? text : "-");
	out_char('\n');
}

/* A number of umt_meta_info, -1 meaning absent. */
static void essential_num(const struct opts *o, struct jw *j, const char *key,
                          const char *label, int64_t v)
{
	if (o->json) {
		if (v >= 0)
			jw_i64(j, key, v);
		else
			jw_null(j, key);
		return;
	}
	out_str_pad(label, 26);
	if (v >= 0)
		out_i64(v);
	else
		out_char('-');
	out_char('\n');
}

static void essentials(const struct opts *o, struct jw *j, const umt_meta_info *i)
{
	if (o->json) {
		jw_str(j, "layout", meta_layout_name(i->layout));
	} else {
		out_str_pad("layout", 26);
		out_str(i->layout == UMT_META_2015       ? "2015 (TraceMetaData root)\n"
		        : i->layout == UMT_META_ROOTLESS ? "pre-2015 (no root element)\n"
		                                         : "none (no trace.xml)\n");
	}
	essential(o, j, "xed_version", "XED version", i->xed_version);
	essential_num(o, j, "process_id", "process ID", i->process_id ? i->pid : -1);
	essential_num(o, j, "bitness", "bitness", i->bitness);
	essential(o, j, "os_name", "OS name", i->os_name);
	essential(o, j, "os_id", "OS ID", i->os_id);
	essential(o, j, "app_command_line", "command line", i->app_command_line);
	essential(o, j, "pin_version", "Pin version", i->pin_version);
	essential(o, j, "pin_command_line", "Pin command line", i->pin_command_line);
	essential(o, j, "pin_working_directory", "Pin working directory",
	          i->pin_working_directory);
	essential_num(o, j, "has_xmm", "has XMM", i->has_xmm);
	essential_num(o, j, "has_ymm", "has YMM", i->has_ymm);
	essential_num(o, j, "has_zmm", "has ZMM", i->has_zmm);
	essential(o, j, "raw_trace_date", "raw trace date", i->raw_trace_date);
	essential(o, j, "umtracer_version", "UMTracer version", i->umtracer_version);
	essential_num(o, j, "ins_format_version", "ins format version", i->ins_format_version);
	essential_num(o, j, "ins_begin_record_version", "ins begin record version",
	              i->ins_begin_record_version);
	essential_num(o, j, "exec_format_version", "exec format version", i->exec_format_version);
	essential_num(o, j, "syscall_table_version", "syscall table version",
	              i->syscall_table_version);
}

static int elements(const struct opts *o, struct jw *j, const umt_meta *m)
{
	size_t n = umt_meta_leaf_count(m), width = 0;
	struct seen s;
	if (!seen_init(&s, n)) {
		seen_free(&s);
		report("out of memory");
		return EXIT_BAD_TRACE;
	}
	for (size_t i = 0; i < n; i++) {
		const char *path;
		umt_meta_leaf(m, i, &path, NULL);
		if (strlen(path) > width)
			width = strlen(path);
	}
	if (o->json)
		jw_open(j, "elements", '{');
	else
		out_str("elements\n");
	for (size_t i = 0; i < n; i++) {
		const char *path, *text;
		umt_meta_leaf(m, i, &path, &text);
		unsigned k = seen_add(&s, m, i, path);
		char key[32] = "";
		if (k > 1)
			snprintf(key, sizeof key, "[%u]", k);
		if (o->json) {
			char *dup = k > 1 ? malloc(strlen(path) + sizeof key) : NULL;
			if (dup)
				strcat(strcpy(dup, path), key);
			jw_tkey(j, dup ? dup : path);
			jw_str(j, NULL, text);
			free(dup);
			continue;
		}
		out_spaces(2);
		out_textz(path);
		out_str(key);
		out_spaces((int)(width + 2 - strlen(path) - strlen(key)) > 1
		           ? (int)(width + 2 - strlen(path) - strlen(key)) : 1);
		out_textz(text);
		out_char('\n');
	}
	if (o->json)
		jw_close(j, '}');
	seen_free(&s);
	return EXIT_OK;
}

int cmd_xml(umt_trace *t, const struct opts *o)
{
	const umt_meta *m;
	umt_meta_info info;
	int rc = umt_trace_meta(t, &m);
	if (rc == 0)
		rc = umt_meta_get_info(m, &info);
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	struct jw j;
	if (o->json)
		jw_begin(&j);
	essentials(o, &j, &info);
	int status = elements(o, &j, m);
	if (o->json)
		jw_end(&j);
	return status;
}
