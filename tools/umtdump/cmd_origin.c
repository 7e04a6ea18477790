/*
 * umtdump origin: where a register's or a memory range's value at a record
 * came from, from the index (umt_origin_*): the tree of defining records in
 * depth-first order, with the JSON contract of umtdump(1) (an address-only
 * input has "address_only": true besides the contract's keys); in text an
 * indented tree.
 */
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

/* What a node is: "rax" or "0x1000:8". */
static void node_what(const umt_trace *t, const umt_origin_node *n, char *buf, size_t cap)
{
	if (n->reg >= 0)
		snprintf(buf, cap, "%s", reg_lower_name(t, n->reg));
	else
		snprintf(buf, cap, "0x%llx:%llu", (unsigned long long)n->address,
		         (unsigned long long)n->length);
}

static const char *kind_name(int kind)
{
	return kind == UMT_ORIGIN_INSTRUCTION ? "instruction"
	       : kind == UMT_ORIGIN_CONTEXT   ? "context"
	                                      : "unknown";
}

static void print_node(const umt_trace *t, const struct opts *o, const umt_origin_node *n)
{
	char what[64], *value = malloc(2 * (size_t)n->size + 4);
	if (value == NULL) {
		report("origin: out of memory");
		return;
	}
	node_what(t, n, what, sizeof what);
	bool any = reg_value_text(n->value, n->known, n->size, value) > 0;
	if (o->json) {
		struct jw j;
		jw_begin(&j);
		jw_u64(&j, "depth", n->depth);
		if (n->id == UMT_NO_RECORD)
			jw_null(&j, "id");
		else
			jw_u64(&j, "id", n->id);
		jw_str(&j, "what", what);
		if (any)
			jw_str(&j, "value", value);
		else
			jw_null(&j, "value");
		jw_str(&j, "kind", kind_name(n->kind));
		if (n->role == UMT_ORIGIN_ADDRESS)
			jw_bool(&j, "address_only", true);
		jw_end(&j);
		free(value);
		return;
	}
	out_spaces(2 * (int)n->depth);
	if (n->role == UMT_ORIGIN_ADDRESS)
		out_str("(address) ");
	out_printf("%s = %s at %llu <- ", what, any ? value : "??", (unsigned long long)n->at);
	if (n->id == UMT_NO_RECORD)
		out_str(kind_name(n->kind));
	else
		out_printf("%s %llu", kind_name(n->kind), (unsigned long long)n->id);
	out_char('\n');
	free(value);
}

/* REG or ADDR[:LEN] into the query. */
static bool parse_target(const umt_trace *t, const char *arg, umt_origin_query *q)
{
	uint64_t address, length;
	if (parse_range(arg, &address, &length)) {
		q->reg = -1;
		q->address = address;
		q->length = length;
		return length <= UMT_ORIGIN_MAX_LENGTH;
	}
	/* not an address range: a register, whose name has no colon */
	q->reg = strchr(arg, ':') ? -1 : umt_reg_by_name(t, arg);
	return q->reg >= 0;
}

int cmd_origin(umt_trace *t, const struct opts *o)
{
	umt_origin_query q;
	umt_origin_query_init(&q, o->at, -1);
	if (!at_given(o, "origin"))
		return EXIT_USAGE;
	if (!parse_target(t, o->args[0], &q)) {
		report("origin: not a register of the context map nor ADDR[:LEN] with 1 <= LEN <= %u: %s",
		       UMT_ORIGIN_MAX_LENGTH, o->args[0]);
		return EXIT_USAGE;
	}
	if (!at_exists(t, o))
		return EXIT_USAGE;
	if (o->has_depth)
		q.depth = o->depth;
	umt_index *ix;
	int rc = open_index(t, o, &ix);
	if (rc)
		return rc;
	umt_origin *tree;
	if ((rc = umt_origin_open(ix, &q, &tree)) < 0)
		return query_failed(ix, rc);
	umt_origin_node n;
	while (!out_closed() && (rc = umt_origin_next(tree, &n)) > 0)
		print_node(t, o, &n);
	if (rc < 0)
		report_error(rc);
	umt_origin_close(tree);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
