/*
 * umtdump reg-history: the records that wrote a register (any part of it)
 * in a thread or in every thread, from the index (umt_reg_history_*),
 * with the JSON contract of umtdump(1).
 */
#include "umtdump.h"

static void print_write(const umt_trace *t, const struct opts *o, const umt_reg_write *w)
{
	char buf[2 * UMT_REG_MAX_SIZE + 4];
	bool any = reg_value_text(w->value, w->known, w->size, buf) > 0;
	if (o->json) {
		struct jw j;
		jw_begin(&j);
		jw_u64(&j, "id", w->id);
		jw_u64(&j, "thread_id", w->thread);
		jw_str(&j, "register", reg_lower_name(t, w->reg));
		if (any)
			jw_str(&j, "value", buf);
		else
			jw_null(&j, "value");
		jw_bool(&j, "changed", w->changed != 0);
		jw_end(&j);
		return;
	}
	out_u64_pad(w->id, 10);
	out_char(' ');
	out_u64_pad(w->thread, 6);
	out_spaces(2);
	out_str_pad(reg_lower_name(t, w->reg), 9);
	out_str_pad(any ? buf : "??", 20);
	out_str(w->changed ? "changed\n" : "same\n");
}

int cmd_reg_history(umt_trace *t, const struct opts *o)
{
	int reg = umt_reg_by_name(t, o->args[0]);
	if (reg < 0) {
		report("reg-history: no register %s in the context map", o->args[0]);
		return EXIT_USAGE;
	}
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	umt_reg_history_query q;
	umt_reg_history_query_init(&q, reg);
	SET_QUERY_WINDOW(q, o);
	q.reverse = o->reverse;
	q.changes = o->changes;
	umt_index *ix;
	int rc = open_list_index(t, o, &ix);
	if (rc || ix == NULL)
		return rc;
	umt_reg_history *h;
	if ((rc = umt_reg_history_open(ix, &q, &h)) < 0)
		return query_failed(ix, rc);
	if (!o->json)
		out_str("        ID THREAD  REGISTER VALUE               CHANGE\n");
	umt_reg_write w;
	while (!out_closed() && (rc = umt_reg_history_next(h, &w)) > 0)
		print_write(t, o, &w);
	if (rc < 0)
		report_error(rc);
	umt_reg_history_close(h);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
