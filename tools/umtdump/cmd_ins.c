/*
 * umtdump ins: instruction table rows with their decoded instruction: every
 * field of insRec and decodedIns, the explicit operands and the LC slots,
 * and what Zydis makes of the code bytes.
 */
#include <string.h>

#include "umtdump.h"

/* What could be read of one row; NULL pointers for the parts that failed. */
struct row {
	uint64_t id;
	const umt_ins_rec *rec;
	const uint8_t *code;
	unsigned code_size;
	const char *disasm;
	size_t disasm_len;
	bool has_decoded;
	umt_decoded dec;
};

static void read_row(const umt_trace *t, uint64_t id, struct row *w, struct errlist *e)
{
	int rc;
	memset(w, 0, sizeof *w);
	w->id = id;
	if ((rc = umt_ins_get(t, id, &w->rec)) < 0) {
		errlist_add(e, rc);
		return;
	}
	if ((rc = umt_ins_code(t, id, &w->code, &w->code_size)) < 0) {
		w->code = NULL;
		errlist_add(e, rc);
	}
	if ((rc = umt_ins_disasm(t, id, &w->disasm, &w->disasm_len)) < 0) {
		w->disasm = NULL;
		errlist_add(e, rc);
	}
	if ((rc = umt_ins_decoded(t, id, &w->dec)) < 0)
		errlist_add(e, rc);
	w->has_decoded = rc == 0;
}

/* ---- text ------------------------------------------------------------------------ */

/* A slot index: its number, or na / imm0 / imm1. */
static void out_slot(unsigned s)
{
	if (s == UMT_SLOT_NA)
		out_str("na");
	else if (s == UMT_SLOT_IMM0)
		out_str("imm0");
	else if (s == UMT_SLOT_IMM1)
		out_str("imm1");
	else
		out_u64(s);
}

static void kv(const char *key, int64_t v, const char *name)
{
	out_str("  ");
	out_str(key);
	out_char(' ');
	out_named(v, name);
}

static void kv_slot(const char *key, unsigned s)
{
	out_str("  ");
	out_str(key);
	out_char(' ');
	out_slot(s);
}

static void text_decoded(const umt_trace *t, const struct opts *o, const umt_decoded *d)
{
	const umt_decoded_ins *di = d->ins;
	out_str("       decoded");
	int64_t id = (int64_t)d->ins_id;
	kv("category", di->Category, row_category(o, t, id, di->Category));
	kv("mnemonic", di->Mnemonic, row_mnemonic(o, t, id, di->Mnemonic));
	kv("form", di->Form, form_name(o, di->Form));
	out_printf("  flags 0x%02x", di->Flags);
	kv("exp_count", di->ExpCount, NULL);
	out_str("\n              ");
	kv("eff_oper_size", di->EffOperSize, NULL);
	kv("eff_addr_size", di->EffAddrSize, NULL);
	kv("lc_size", di->LCSize, NULL);
	kv("lc_count", di->LCCount, NULL);
	kv("first_out_slot", di->FirstOutSlot, NULL);
	kv("first_after_slot", di->FirstAfterSlot, NULL);
	out_str("\n              ");
	kv_slot("mem0_seg_slot", di->Mem0SegSlot);
	kv_slot("mem0_base_slot", di->Mem0BaseSlot);
	kv("mem0_scale", di->Mem0Scale, NULL);
	kv_slot("mem0_index_slot", di->Mem0IndexSlot);
	kv_slot("mem1_base_slot", di->Mem1BaseSlot);
	out_str("\n              ");
	out_str("  const_slot ");
	out_hex((uint64_t)di->ConstSlot[0]);
	out_char(' ');
	out_hex((uint64_t)di->ConstSlot[1]);
	out_char('\n');
	for (unsigned i = 0; i < di->ExpCount; i++) {
		const umt_exp_oper *op = umt_decoded_operand(d, i);
		out_str("       operand ");
		out_u64(i);
		out_spaces(2);
		out_str_pad(reg_name(t, (uint16_t)op->RegName), 10);
		out_str("size ");
		out_i64(op->Size);
		out_str("  flags ");
		out_str_pad(oper_flags_text(op->Flags), 3);
		kv_slot("before_slot", op->BeforeSlot);
		kv("before_offset", op->BeforeOffset, NULL);
		kv_slot("after_slot", op->AfterSlot);
		kv("after_offset", op->AfterOffset, NULL);
		out_char('\n');
	}
	bool v0 = umt_ins_slot_name_kind(t) == UMT_SLOT_LARGEST_ENCLOSING;
	for (unsigned s = 0; s < di->LCCount; s++) {
		const umt_lc_slot *sl = umt_decoded_slot(d, s);
		out_str("       slot ");
		out_u64_pad(s, 3);
		out_spaces(2);
		out_str_pad(reg_name(t, (uint16_t)sl->RegName), 10);
		out_str(v0 ? "largest_enclosing " : "common_reg_name ");
		out_str_pad(reg_name(t, (uint16_t)sl->CommonRegName), 8);
		out_str("value_size ");
		out_i64(sl->ValueSize);
		kv("offset", sl->Offset, NULL);
		kv("addr_width", sl->AddrWidth, NULL);
		out_spaces(2);
		out_str(slot_group_name(umt_decoded_slot_group(d, s)));
		out_char('\n');
	}
}

static void text_row(const umt_trace *t, const struct opts *o, const struct row *w,
                     struct errlist *e)
{
	out_u64_pad(w->id, 6);
	out_char(' ');
	char a[24];
	snprintf(a, sizeof a, "0x%llx", (unsigned long long)w->rec->Address);
	out_str_pad(a, 15);
	out_i64_pad(w->rec->ModuleID, 6);
	out_u64_pad(w->rec->CSis64Bits, 5);
	out_char(' ');
	const char *type = ins_type_name(w->rec->Type);
	if (type)
		out_str_pad(type, 15);
	else
		out_printf("%-15u", w->rec->Type);
	int col = 0;
	if (w->code) {
		for (unsigned i = 0; i < w->code_size; i++) {
			out_printf(i ? " %02x" : "%02x", w->code[i]);
			col += i ? 3 : 2;
		}
	} else {
		out_char('?');
		col = 1;
	}
	out_spaces(col < 24 ? 25 - col : 1);
	if (w->disasm)
		out_text(w->disasm, w->disasm_len);
	else
		out_char('?');
	out_char('\n');
	text_semantics(t, w->id, e);
	if (w->has_decoded)
		text_decoded(t, o, &w->dec);
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void json_decoded(struct jw *j, const umt_trace *t, const struct opts *o,
                         const umt_decoded *d)
{
	const umt_decoded_ins *di = d->ins;
	jw_open(j, "decoded", '{');
	jw_named(j, "category", di->Category, category_name(o, di->Category));
	jw_named(j, "mnemonic", di->Mnemonic, mnemonic_name(o, di->Mnemonic));
	jw_named(j, "form", di->Form, form_name(o, di->Form));
	jw_u64(j, "flags", di->Flags);
	jw_u64(j, "exp_count", di->ExpCount);
	jw_u64(j, "eff_oper_size", di->EffOperSize);
	jw_u64(j, "eff_addr_size", di->EffAddrSize);
	jw_u64(j, "lc_size", di->LCSize);
	jw_u64(j, "first_out_slot", di->FirstOutSlot);
	jw_u64(j, "first_after_slot", di->FirstAfterSlot);
	jw_u64(j, "lc_count", di->LCCount);
	jw_u64(j, "mem0_seg_slot", di->Mem0SegSlot);
	jw_u64(j, "mem0_base_slot", di->Mem0BaseSlot);
	jw_u64(j, "mem0_scale", di->Mem0Scale);
	jw_u64(j, "mem0_index_slot", di->Mem0IndexSlot);
	jw_u64(j, "mem1_base_slot", di->Mem1BaseSlot);
	jw_open(j, "const_slot", '[');
	jw_hex(j, NULL, (uint64_t)di->ConstSlot[0]);
	jw_hex(j, NULL, (uint64_t)di->ConstSlot[1]);
	jw_close(j, ']');
	jw_open(j, "operands", '[');
	for (unsigned i = 0; i < di->ExpCount; i++) {
		const umt_exp_oper *op = umt_decoded_operand(d, i);
		jw_open(j, NULL, '{');
		jw_u64(j, "reg", (uint16_t)op->RegName);
		jw_str(j, "name", reg_name(t, (uint16_t)op->RegName));
		jw_i64(j, "size", op->Size);
		jw_u64(j, "flags", op->Flags);
		jw_u64(j, "before_slot", op->BeforeSlot);
		jw_u64(j, "after_slot", op->AfterSlot);
		jw_u64(j, "before_offset", op->BeforeOffset);
		jw_u64(j, "after_offset", op->AfterOffset);
		jw_close(j, '}');
	}
	jw_close(j, ']');
	const char *common = umt_ins_slot_name_kind(t) == UMT_SLOT_LARGEST_ENCLOSING
	                     ? "largest_enclosing" : "common_reg_name";
	jw_open(j, "lc_slots", '[');
	for (unsigned s = 0; s < di->LCCount; s++) {
		const umt_lc_slot *sl = umt_decoded_slot(d, s);
		jw_open(j, NULL, '{');
		jw_u64(j, "reg", (uint16_t)sl->RegName);
		jw_str(j, "name", reg_name(t, (uint16_t)sl->RegName));
		jw_named(j, common, (uint16_t)sl->CommonRegName,
		         reg_name(t, (uint16_t)sl->CommonRegName));
		jw_i64(j, "value_size", sl->ValueSize);
		jw_u64(j, "offset", sl->Offset);
		jw_u64(j, "addr_width", sl->AddrWidth);
		jw_str(j, "group", slot_group_name(umt_decoded_slot_group(d, s)));
		jw_close(j, '}');
	}
	jw_close(j, ']');
	jw_close(j, '}');
}

static void json_row(const umt_trace *t, const struct opts *o, const struct row *w,
                     struct errlist *e)
{
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "id", w->id);
	jw_named(&j, "type", w->rec->Type, ins_type_name(w->rec->Type));
	jw_u64(&j, "cs_is_64_bits", w->rec->CSis64Bits);
	jw_u64(&j, "code_size", w->rec->CodeSize);
	if (w->code)
		jw_bytes(&j, "code", w->code, w->code_size);
	else
		jw_null(&j, "code");
	jw_i64(&j, "module_id", w->rec->ModuleID);
	jw_hex(&j, "address", (uint64_t)w->rec->Address);
	if (w->disasm)
		jw_strn(&j, "disasm", w->disasm, w->disasm_len);
	else
		jw_null(&j, "disasm");
	if (w->has_decoded)
		json_decoded(&j, t, o, &w->dec);
	else
		jw_null(&j, "decoded");
	json_semantics(&j, t, w->id, e);
	jw_end(&j);
}

int cmd_ins(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_ins_count(t), first = 0, end = n;
	if (o->ins_id >= 0) {
		if ((uint64_t)o->ins_id >= n) {
			report("--id %lld: no such instruction (%llu instructions)", (long long)o->ins_id,
			       (unsigned long long)n);
			return EXIT_USAGE;
		}
		first = (uint64_t)o->ins_id;
		end = first + 1;
	}
	if (!o->json)
		out_str("    ID ADDRESS        MODULE CS64 TYPE           CODE                     "
		        "DISASM\n");
	int status = EXIT_OK;
	for (uint64_t id = first; id < end && !out_closed(); id++) {
		struct row w;
		struct errlist e;
		e.n = 0;
		read_row(t, id, &w, &e);
		if (w.rec) {
			if (o->json)
				json_row(t, o, &w, &e);
			else
				text_row(t, o, &w, &e);
		}
		if (errlist_report(&e) < 0) {
			if (failed_row(o, &status))
				break;
		}
	}
	return status;
}
