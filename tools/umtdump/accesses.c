/*
 * umtdump exec --accesses: every memory access of a record, from the
 * library's access iterator (umtrace.h section 8b): the memory slots of an
 * instruction, explicit and implicit, and the blocks of a context.
 */
#include "umtdump.h"

/* Bytes of a value shown in text; JSON shows all of them. */
#define TEXT_VALUE_BYTES 32

static void text_access(const umt_trace *t, const umt_access *a)
{
	out_spaces(INDENT);
	out_str_pad(umt_access_kind_name(a->kind), 8);
	if (a->kind == UMT_ACCESS_CONTEXT) {
		char block[24];
		snprintf(block, sizeof block, "block %u", a->locator);
		out_str_pad(block, 11);
	} else {
		out_str_pad(reg_name(t, (uint16_t)a->reg_name), 11);
	}
	out_hex(a->address);
	out_str("  size ");
	out_u64(a->size);
	out_str("  value ");
	size_t n = a->size < TEXT_VALUE_BYTES ? (size_t)a->size : TEXT_VALUE_BYTES;
	out_hexbytes(a->data, n);
	if (a->size > TEXT_VALUE_BYTES)
		out_str("...");
	if (!(a->trust & UMT_TRUST_ADDRESS))
		out_str("  [untrusted]");
	else if (!(a->trust & UMT_TRUST_VALUE))
		out_str("  [untrusted value]");
	out_char('\n');
}

static void json_access(struct jw *j, const umt_trace *t, const umt_access *a)
{
	jw_open(j, NULL, '{');
	jw_str(j, "kind", umt_access_kind_name(a->kind));
	jw_hex(j, "address", a->address);
	jw_u64(j, "size", a->size);
	jw_bytes(j, "value", a->data, a->size);
	if (a->kind == UMT_ACCESS_CONTEXT) {
		jw_u64(j, "block", a->locator);
	} else {
		jw_u64(j, "slot", a->locator);
		jw_str(j, "operand", reg_name(t, (uint16_t)a->reg_name));
	}
	jw_bool(j, "trusted_address", (a->trust & UMT_TRUST_ADDRESS) != 0);
	jw_bool(j, "trusted_value", (a->trust & UMT_TRUST_VALUE) != 0);
	jw_close(j, '}');
}

void show_accesses(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                   struct errlist *e)
{
	if (r->type != UMT_REC_INSTRUCTION && !umt_rec_type_has_context(r->type))
		return; /* no accesses by type: no key, as --context */
	umt_access_iter it;
	int rc = umt_access_iter_init(&it, t, r, UMT_ACCESS_ALL);
	if (rc < 0) {
		errlist_add(e, rc);
		if (o->json)
			jw_null(j, "accesses");
		return;
	}
	if (o->json)
		jw_open(j, "accesses", '[');
	umt_access a;
	while ((rc = umt_access_iter_next(&it, &a)) > 0) {
		if (o->json)
			json_access(j, t, &a);
		else
			text_access(t, &a);
	}
	if (rc < 0)
		errlist_add(e, rc);
	if (o->json)
		jw_close(j, ']');
}
