/*
 * umtdump calls: the calls of the trace from the index's calls section
 * (umt_calls_*, index.h section 11), in record order, with the JSON
 * contract of umtdump(1); and what the stack command shares with it.
 */
#include <stdio.h>

#include "umtdump.h"

const char *call_end_name(unsigned end)
{
	static const char *const names[] = {"returned", "abandoned", "open"};
	return end < 3 ? names[end] : "?";
}

static const char *target_source_name(unsigned source)
{
	static const char *const names[] = {"next", "decoded", "operand", "unknown"};
	return source < 4 ? names[source] : "?";
}

const char *call_module_name(const umt_trace *t, int64_t module, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (module < 0 || umt_module_name(t, (uint64_t)module, UMT_MODULE_WIN_NAME, buf, cap) < 0)
		return NULL;
	return buf;
}

void out_module_offset(const umt_trace *t, int64_t module, uint64_t offset)
{
	char name[512];
	if (call_module_name(t, module, name, sizeof name) == NULL) {
		out_char('-');
		return;
	}
	const char *base = strrchr(name, '\\'); /* the file name is enough in text */
	out_textz(base ? base + 1 : name);
	out_str("+");
	out_hex(offset);
}

void jw_module(struct jw *j, const umt_trace *t, const char *key, int64_t module, uint64_t offset)
{
	char name[512], off_key[64];
	snprintf(off_key, sizeof off_key, "%s_offset", key);
	const char *s = call_module_name(t, module, name, sizeof name);
	jw_str(j, key, s);
	if (s)
		jw_hex(j, off_key, offset);
	else
		jw_null(j, off_key);
}

static void jw_record(struct jw *j, const char *key, uint64_t id)
{
	if (id == UMT_NO_RECORD)
		jw_null(j, key);
	else
		jw_u64(j, key, id);
}

/* The arguments and return value of a call (--args N), read through the index. */
struct call_values {
	unsigned n;
	uint64_t args[UMT_CALL_MAX_ARGS];
	uint8_t known[UMT_CALL_MAX_ARGS];
	uint64_t ret;
	int ret_known;
};

static int read_values(const umt_index *ix, umt_state *s, const umt_call *c, struct call_values *v)
{
	int rc = umt_call_args(ix, c, s, v->n, v->args, v->known);
	if (rc >= 0)
		rc = v->ret_known = umt_call_return_value(ix, c, s, &v->ret);
	return rc < 0 ? rc : 0;
}

static void jw_values(struct jw *j, const struct call_values *v)
{
	jw_open(j, "args", '[');
	for (unsigned i = 0; i < v->n; i++)
		v->known[i] ? jw_hex(j, NULL, v->args[i]) : jw_null(j, NULL);
	jw_close(j, ']');
	if (v->ret_known)
		jw_hex(j, "return_value", v->ret);
	else
		jw_null(j, "return_value");
}

/* Text: "args 0x1 ?? -> 0x0" after the line's columns. */
static void out_values(const struct call_values *v)
{
	out_str("  args");
	for (unsigned i = 0; i < v->n; i++) {
		out_char(' ');
		v->known[i] ? out_hex(v->args[i]) : out_str("??");
	}
	out_str(" -> ");
	v->ret_known ? out_hex(v->ret) : out_str("??");
}

static void print_json(const umt_trace *t, const umt_call *c, const struct call_values *v)
{
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "id", c->id);
	jw_i64(&j, "thread_id", c->thread_id);
	jw_u64(&j, "depth", c->depth);
	jw_hex(&j, "caller", c->caller);
	jw_hex(&j, "target", c->target);
	jw_record(&j, "return_id", c->return_id);
	jw_record(&j, "parent", c->parent);
	jw_module(&j, t, "module", c->module, c->module_offset);
	jw_str(&j, "end", call_end_name(c->end));
	jw_record(&j, "end_id", c->end_id);
	jw_bool(&j, "abandoned", c->end == UMT_CALL_ABANDONED);
	jw_hex(&j, "return_address", c->return_address);
	jw_str(&j, "target_source", target_source_name(c->target_source));
	if (v)
		jw_values(&j, v);
	jw_end(&j);
}

/* One line: the call indented by its depth, where it went and how it ended. */
static void print_text(const umt_trace *t, const umt_call *c, const struct call_values *v)
{
	out_u64_pad(c->id, 10);
	out_i64_pad(c->thread_id, 7);
	out_u64_pad(c->depth, 6);
	out_spaces(2);
	out_hex_left(c->caller, 19);
	out_hex_left(c->target, 19);
	char end[40];
	if (c->end == UMT_CALL_RETURNED)
		snprintf(end, sizeof end, "%llu", (unsigned long long)c->return_id);
	else if (c->end == UMT_CALL_ABANDONED)
		snprintf(end, sizeof end, "abandoned@%llu", (unsigned long long)c->end_id);
	else
		snprintf(end, sizeof end, "open");
	out_str_pad(end, 16);
	out_module_offset(t, c->module, c->module_offset);
	if (v)
		out_values(v);
	out_char('\n');
}

int cmd_calls(umt_trace *t, const struct opts *o)
{
	umt_calls_query q;
	umt_calls_query_init(&q);
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	SET_QUERY_WINDOW(q, o);
	if (o->has_target)
		q.target_first = q.target_last = o->target;
	umt_index *ix;
	umt_calls *c = NULL;
	int rc = open_list_index(t, o, &ix);
	if (rc || ix == NULL)
		return rc;
	umt_state s = {0};
	struct call_values v = {.n = o->call_args};
	if ((rc = umt_calls_open(ix, &q, &c)) < 0 ||
	    (o->has_call_args && (rc = umt_state_init(ix, &s)) < 0)) {
		report_error(rc);
		umt_calls_close(c);
		umt_index_close(ix);
		return EXIT_BAD_TRACE;
	}
	if (!o->json)
		out_str("        ID THREAD DEPTH  CALLER             TARGET             RETURN          "
		        "MODULE\n");
	umt_call call;
	const struct call_values *vp = o->has_call_args ? &v : NULL;
	while (!out_closed() && (rc = umt_calls_next(c, &call)) > 0 &&
	       (!vp || (rc = read_values(ix, &s, &call, &v)) == 0))
		o->json ? print_json(t, &call, vp) : print_text(t, &call, vp);
	if (rc < 0)
		report_error(rc);
	umt_state_release(&s);
	umt_calls_close(c);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}

/* ---- the index command's summary of the section ------------------------------------------ */

void index_calls_summary(const umt_trace *t, const char *dir, struct jw *j)
{
	umt_index *ix;
	umt_calls_info c;
	if (umt_index_open(t, dir, &ix) < 0)
		return;
	int rc = umt_calls_info_get(ix, &c);
	umt_index_close(ix);
	if (rc < 0)
		return;
	if (j) {
		jw_open(j, "calls", '{');
		jw_u64(j, "calls", c.calls);
		jw_u64(j, "threads", c.threads);
		jw_u64(j, "targets", c.targets);
		jw_u64(j, "returned", c.returned);
		jw_u64(j, "abandoned", c.abandoned);
		jw_u64(j, "open", c.open);
		jw_u64(j, "unmatched_rets", c.unmatched);
		jw_u64(j, "ignored", c.ignored);
		jw_close(j, '}');
		return;
	}
	out_printf("  calls     %llu in %llu threads to %llu targets: %llu returned, %llu abandoned, "
	           "%llu open;\n            %llu rets matched no call, %llu call and ret records "
	           "ignored\n", (unsigned long long)c.calls, (unsigned long long)c.threads,
	           (unsigned long long)c.targets, (unsigned long long)c.returned,
	           (unsigned long long)c.abandoned, (unsigned long long)c.open,
	           (unsigned long long)c.unmatched, (unsigned long long)c.ignored);
}
