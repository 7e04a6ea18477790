/*
 * umtdump history: every access to an address range, from the index
 * (umt_history_*), with the JSON contract of umtdump(1).
 */
#include <string.h>

#include "umtdump.h"

/* Bytes of a value shown in text; JSON shows all of them. */
#define TEXT_VALUE_BYTES 32

static void print_access(const struct opts *o, const umt_access *a)
{
	if (o->json) {
		struct jw j;
		jw_begin(&j);
		jw_u64(&j, "id", a->record_id);
		jw_i64(&j, "thread_id", a->thread_id);
		jw_str(&j, "kind", umt_access_kind_name(a->kind));
		jw_hex(&j, "address", a->address);
		jw_u64(&j, "size", a->size);
		jw_bytes(&j, "value", a->data, a->size);
		jw_bool(&j, "trusted", (a->trust & UMT_TRUST_VALUE) != 0);
		jw_end(&j);
		return;
	}
	out_u64_pad(a->record_id, 10);
	out_char(' ');
	out_i64_pad(a->thread_id, 6);
	out_spaces(2);
	out_str_pad(umt_access_kind_name(a->kind), 8);
	out_hex_left(a->address, 18);
	out_u64_pad(a->size, 6);
	out_spaces(2);
	size_t n = a->size < TEXT_VALUE_BYTES ? (size_t)a->size : TEXT_VALUE_BYTES;
	out_hexbytes(a->data, n);
	if (a->size > TEXT_VALUE_BYTES)
		out_str("...");
	if (!(a->trust & UMT_TRUST_VALUE))
		out_str("  [untrusted value]");
	out_char('\n');
}

int cmd_history(umt_trace *t, const struct opts *o)
{
	umt_history_query q;
	uint64_t address, length;
	if (!parse_range(o->args[0], &address, &length)) {
		report("history: not an address range ADDR[:LEN]: %s", o->args[0]);
		return EXIT_USAGE;
	}
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	umt_history_query_init(&q, address, length);
	SET_QUERY_WINDOW(q, o);
	if (o->kinds)
		q.kinds = o->kinds;
	q.reverse = o->reverse;
	umt_index *ix;
	int rc = open_list_index(t, o, &ix);
	if (rc || ix == NULL)
		return rc;
	umt_history *h;
	if ((rc = umt_history_open(ix, &q, &h)) < 0)
		return query_failed(ix, rc); /* never UMT_E_NOT_FOUND: a bad trace or index */
	if (!o->json)
		out_str("        ID THREAD  KIND    ADDRESS             SIZE  VALUE\n");
	umt_access a;
	while (!out_closed() && (rc = umt_history_next(h, &a)) > 0)
		print_access(o, &a);
	if (rc < 0)
		report_error(rc);
	umt_history_close(h);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
