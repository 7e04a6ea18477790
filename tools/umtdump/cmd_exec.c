/*
 * umtdump exec: execution records, one per line, in record order or along
 * one thread's prev/next chain.
 */
#include <string.h>

#include "umtdump.h"

/* The type-specific detail of a record: InsID, SyscallID or exit code. */
struct detail {
	const char *key; /* JSON key, or NULL */
	int64_t value;
};

static struct detail record_detail(const umt_rec *r)
{
	struct detail d = {NULL, 0};
	int32_t code;
	if (umt_rec_ins(r, &d.value, NULL, NULL) == 0)
		d.key = "ins_id";
	else if (umt_rec_syscall_id(r, &d.value) == 0)
		d.key = "syscall_id";
	else if (umt_rec_exit_code(r, &code) == 0)
		d.key = "exit_code", d.value = code;
	return d;
}

static void print_json(const umt_rec *r, int64_t prev, int64_t next)
{
	struct jw j;
	struct detail d = record_detail(r);
	jw_begin(&j);
	jw_u64(&j, "id", r->id);
	jw_i64(&j, "thread_id", r->thread_id);
	jw_str(&j, "type", umt_rec_type_name(r->type));
	jw_u64(&j, "type_code", r->type);
	jw_u64(&j, "flags", r->flags);
	jw_i64(&j, "prev", prev);
	jw_i64(&j, "next", next);
	if (d.key)
		jw_i64(&j, d.key, d.value);
	jw_end(&j);
}

static void print_text(const umt_rec *r, int64_t prev, int64_t next)
{
	struct detail d = record_detail(r);
	printf("%10llu %6d  %-15s 0x%02x %10lld %10lld", (unsigned long long)r->id, r->thread_id,
	       umt_rec_type_name(r->type), r->flags, (long long)prev, (long long)next);
	if (d.key && !strcmp(d.key, "exit_code"))
		printf("  exit_code=%lld", (long long)d.value);
	else if (d.key)
		printf("  %s=%lld", d.key, (long long)d.value);
	putchar('\n');
}

/* A record source: record order over a range, or one thread's chain. */
struct source {
	bool by_thread;
	umt_exec_iter it;
	umt_thread_iter tit;
};

static int source_next(struct source *s, umt_rec *r)
{
	return s->by_thread ? umt_thread_iter_next(&s->tit, r) : umt_exec_iter_next(&s->it, r);
}

static int open_source(umt_trace *t, const struct opts *o, struct source *s)
{
	memset(s, 0, sizeof *s);
	if (o->thread >= 0) {
		s->by_thread = true;
		return umt_thread_iter_init_thread(&s->tit, t, (uint64_t)o->thread);
	}
	uint64_t end = o->has_to && o->to < UINT64_MAX ? o->to + 1 : UINT64_MAX;
	return umt_exec_iter_init(&s->it, t, o->from, end);
}

int cmd_exec(umt_trace *t, const struct opts *o)
{
	struct source s;
	int rc = open_source(t, o, &s);
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	if (!o->json)
		printf("%10s %6s  %-15s %-4s %10s %10s  %s\n", "ID", "THREAD", "TYPE", "FLAGS", "PREV",
		       "NEXT", "DETAIL");
	int status = EXIT_OK;
	uint64_t shown = 0;
	umt_rec r;
	while (!o->has_count || shown < o->count) {
		rc = source_next(&s, &r);
		if (rc == 0)
			break;
		if (rc < 0) {
			report_error(rc);
			status = EXIT_BAD_TRACE;
			if (!o->keep_going || s.by_thread)
				break;
			continue;
		}
		if (s.by_thread && (o->from > r.id || (o->has_to && r.id > o->to)))
			continue;
		if (o->types && !(o->types & (1u << r.type)))
			continue;
		int64_t prev = -1, next = -1;
		rc = umt_exec_links(t, r.id, &prev, &next);
		if (rc < 0) {
			report_error(rc);
			return EXIT_BAD_TRACE;
		}
		if (o->json)
			print_json(&r, prev, next);
		else
			print_text(&r, prev, next);
		shown++;
		if (out_closed())
			break;
	}
	return status;
}
