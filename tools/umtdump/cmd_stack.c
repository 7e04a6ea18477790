/*
 * umtdump stack: the call stack of a thread just before a record, from the
 * index's calls section (umt_stack_at(), index.h section 12), innermost
 * frame first, with the JSON contract of umtdump(1).
 */
#include <stdlib.h>

#include "umtdump.h"

static void print_json(const umt_trace *t, uint64_t at, int64_t thread, const umt_frame *f,
                       size_t n)
{
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "at", at);
	jw_i64(&j, "thread_id", thread);
	jw_u64(&j, "depth", n);
	jw_open(&j, "frames", '[');
	for (size_t i = 0; i < n; i++) {
		const umt_call *c = &f[i].call;
		jw_open(&j, NULL, '{');
		jw_u64(&j, "call_id", c->id);
		jw_hex(&j, "caller", c->caller);
		jw_hex(&j, "target", c->target);
		jw_hex(&j, "return_address", c->return_address);
		jw_module(&j, t, "module", f[i].module, f[i].module_offset);
		jw_module(&j, t, "target_module", c->module, c->module_offset);
		jw_u64(&j, "depth", c->depth);
		jw_close(&j, '}');
	}
	jw_close(&j, ']');
	jw_end(&j);
}

static void print_text(const umt_trace *t, uint64_t at, int64_t thread, const umt_frame *f,
                       size_t n)
{
	out_printf("stack of thread %lld before record %llu: %zu frame%s\n", (long long)thread,
	           (unsigned long long)at, n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		const umt_call *c = &f[i].call;
		out_printf("  #%-3zu call %-10llu ", i, (unsigned long long)c->id);
		out_hex_left(c->caller, 19);
		out_str("-> ");
		out_hex_left(c->target, 19);
		out_str("returns to ");
		out_hex(c->return_address);
		out_char(' ');
		out_module_offset(t, f[i].module, f[i].module_offset);
		out_char('\n');
	}
}

/* The frames of the stack, allocated. */
static int stack_frames(const umt_index *ix, uint64_t at, int64_t thread, umt_frame **out,
                        size_t *n)
{
	int rc = umt_stack_at(ix, at, thread, NULL, 0, n);
	*out = NULL;
	if (rc < 0 || *n == 0)
		return rc;
	if ((*out = malloc(*n * sizeof **out)) == NULL)
		return report("stack: out of memory"), UMT_E_NOMEM;
	return umt_stack_at(ix, at, thread, *out, *n, n);
}

int cmd_stack(umt_trace *t, const struct opts *o)
{
	if (!at_given(o, "stack") || !at_exists(t, o))
		return EXIT_USAGE;
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	umt_rec r;
	int64_t thread = o->thread;
	int rc = thread < 0 ? umt_exec_get(t, o->at, &r) : 0;
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	if (thread < 0)
		thread = r.thread_id;
	umt_index *ix;
	if ((rc = open_index(t, o, &ix)) != 0)
		return rc;
	umt_frame *f;
	size_t n;
	if ((rc = stack_frames(ix, o->at, thread, &f, &n)) < 0)
		report_error(rc);
	else if (o->json)
		print_json(t, o->at, thread, f, n);
	else
		print_text(t, o->at, thread, f, n);
	free(f);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
