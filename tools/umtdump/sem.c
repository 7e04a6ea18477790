/*
 * umtdump - instruction semantics from the code bytes (umtrace.h section
 * 7b) as the commands show them: names for XED numbers when no XED headers
 * are loaded, the Zydis line of ins, and the keys ins, exec and stats add
 * to their JSON.
 */
#include "umtdump.h"

/* XED's name of @p xed (mnemonic or category) from --xed-dir, else Zydis's for row @p ins_id. */
static const char *row_name(const struct opts *o, const umt_trace *t, int64_t ins_id, int xed,
                            int category)
{
	const char *name = o->names ? (category ? category_name(o, xed) : mnemonic_name(o, xed))
	                            : NULL;
	umt_sem s;
	if (name == NULL && ins_id >= 0 && umt_sem_get(t, (uint64_t)ins_id, &s) == 0)
		name = category ? umt_sem_zydis_category_name(s.zydis_category)
		                : umt_sem_mnemonic_name(s.mnemonic);
	return name;
}

const char *row_mnemonic(const struct opts *o, const umt_trace *t, int64_t ins_id, int xed)
{
	return row_name(o, t, ins_id, xed, 0);
}

const char *row_category(const struct opts *o, const umt_trace *t, int64_t ins_id, int xed)
{
	return row_name(o, t, ins_id, xed, 1);
}

/* The flags worth a word, in the order of enum umt_sem_flag. */
static const struct {
	unsigned bit;
	const char *name;
} flag_names[] = {{UMT_SEM_F_INDIRECT, "indirect"}, {UMT_SEM_F_FAR, "far"},
                  {UMT_SEM_F_REP, "rep"}, {UMT_SEM_F_LOCK, "lock"}};

void text_semantics(const umt_trace *t, uint64_t ins_id, struct errlist *e)
{
	umt_sem_detail d;
	int rc = umt_sem_decode(t, ins_id, &d);
	out_str("       zydis    ");
	if (rc < 0) {
		errlist_add(e, rc);
		out_str("?\n");
		return;
	}
	out_textz(d.text);
	out_str("  category ");
	out_str(umt_sem_category_name(d.sem.category));
	if (d.sem.flags & UMT_SEM_F_TARGET) {
		out_str("  target ");
		out_hex(d.sem.target);
	}
	for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
		if (d.sem.flags & flag_names[i].bit) {
			out_str("  ");
			out_str(flag_names[i].name);
		}
	out_char('\n');
}

static const char *sem_kind_name(int kind)
{
	switch (kind) {
	case UMT_SEM_OP_REGISTER: return "register";
	case UMT_SEM_OP_MEMORY: return "memory";
	case UMT_SEM_OP_AGEN: return "agen";
	case UMT_SEM_OP_POINTER: return "pointer";
	default: return "immediate";
	}
}

static void json_sem_operand(struct jw *j, const umt_sem_operand *op)
{
	jw_open(j, NULL, '{');
	jw_str(j, "kind", sem_kind_name(op->kind));
	jw_u64(j, "bits", op->bits);
	jw_str(j, "access", oper_flags_text(op->access));
	if (op->kind == UMT_SEM_OP_REGISTER) {
		jw_str(j, "reg", op->reg);
	} else if (op->kind == UMT_SEM_OP_MEMORY || op->kind == UMT_SEM_OP_AGEN) {
		jw_str(j, "segment", op->segment);
		jw_str(j, "base", op->base);
		jw_str(j, "index", op->index);
		jw_u64(j, "scale", op->scale);
		jw_i64(j, "disp", op->disp);
	} else {
		jw_hex(j, "value", op->value);
		if (op->kind == UMT_SEM_OP_POINTER)
			jw_u64(j, "selector", op->selector);
	}
	if (op->has_absolute)
		jw_hex(j, "absolute", op->absolute);
	jw_close(j, '}');
}

void json_semantics(struct jw *j, const umt_trace *t, uint64_t ins_id, struct errlist *e)
{
	umt_sem_detail d;
	int rc = umt_sem_decode(t, ins_id, &d);
	if (rc < 0) {
		errlist_add(e, rc);
		jw_null(j, "semantics");
		return;
	}
	jw_open(j, "semantics", '{');
	jw_str(j, "zydis_mnemonic", umt_sem_mnemonic_name(d.sem.mnemonic));
	jw_str(j, "category", umt_sem_category_name(d.sem.category));
	jw_str(j, "zydis_category", umt_sem_zydis_category_name(d.sem.zydis_category));
	jw_u64(j, "length", d.sem.length);
	jw_u64(j, "mode", (d.sem.flags & UMT_SEM_F_64BIT) ? 64 : 32);
	if (d.sem.flags & UMT_SEM_F_TARGET)
		jw_hex(j, "target", d.sem.target);
	else
		jw_null(j, "target");
	jw_open(j, "flags", '[');
	for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
		if (d.sem.flags & flag_names[i].bit)
			jw_str(j, NULL, flag_names[i].name);
	jw_close(j, ']');
	jw_str(j, "text", d.text);
	jw_open(j, "operands", '[');
	for (unsigned i = 0; i < d.operand_count; i++)
		json_sem_operand(j, &d.operands[i]);
	jw_close(j, ']');
	jw_close(j, '}');
}

void jw_sem_names(struct jw *j, const umt_trace *t, int64_t ins_id)
{
	umt_sem s;
	if (ins_id >= 0 && umt_sem_get(t, (uint64_t)ins_id, &s) == 0) {
		jw_str(j, "zydis_mnemonic", umt_sem_mnemonic_name(s.mnemonic));
		jw_str(j, "semantic_category", umt_sem_category_name(s.category));
	} else {
		jw_null(j, "zydis_mnemonic");
		jw_null(j, "semantic_category");
	}
}
