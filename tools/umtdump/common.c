/*
 * umtdump - pieces shared by the commands: names of codes, values, and the
 * operand and context listings of execution records (exec --operands,
 * exec --context).
 */
#include <string.h>

#include "umtdump.h"

/*
 * Register names by 16-bit value, computed once: the name of a register
 * depends only on the trace (its context map and XED version), and one
 * process opens one trace.
 */
static char reg_names[65536][UMT_REG_NAME_MAX];

const char *reg_name(const umt_trace *t, int reg)
{
	char *name = reg_names[(uint16_t)reg];
	if (name[0] == '\0' && umt_reg_name(t, (uint16_t)reg, name, UMT_REG_NAME_MAX) == NULL)
		snprintf(name, UMT_REG_NAME_MAX, "reg%u", (unsigned)(uint16_t)reg);
	return name;
}

const char *ins_type_name(int type)
{
	static const char *const names[] = {
		[UMT_INS_NORMAL] = "normal",
		[UMT_INS_SOFT_INT] = "soft-int",
		[UMT_INS_FAST_SYSCALL32] = "fast-syscall32",
		[UMT_INS_FAST_SYSCALL64] = "fast-syscall64",
		[UMT_INS_ALT_SYSCALL] = "alt-syscall",
		[UMT_INS_WOW64_SYSCALL] = "wow64-syscall",
		[UMT_INS_OTHER_SYSCALL] = "other-syscall",
		[UMT_INS_NOP] = "nop",
		[UMT_INS_PREFETCH] = "prefetch",
	};
	if (type < 0 || type >= (int)(sizeof names / sizeof names[0]))
		return NULL;
	return names[type];
}

const char *convention_name(int convention)
{
	static const char *const names[] = {
		[UMT_SYSCALL_CONV_UNKNOWN] = "unknown",
		[UMT_SYSCALL_CONV_FAST32] = "fast32",
		[UMT_SYSCALL_CONV_FAST64] = "fast64",
		[UMT_SYSCALL_CONV_ALT] = "alt",
		[UMT_SYSCALL_CONV_WOW64] = "wow64",
		[UMT_SYSCALL_CONV_SOFT_INT] = "soft-int",
	};
	if (convention < 0 || convention >= (int)(sizeof names / sizeof names[0]))
		return NULL;
	return names[convention];
}

const char *operand_kind_name(int kind)
{
	switch (kind) {
	case UMT_KIND_REGISTER: return "reg";
	case UMT_KIND_MEMORY: return "mem";
	case UMT_KIND_AGEN: return "agen";
	case UMT_KIND_IMMEDIATE: return "imm";
	default: return NULL;
	}
}

const char *slot_group_name(int group)
{
	switch (group) {
	case UMT_SLOT_GROUP_BEFORE: return "before";
	case UMT_SLOT_GROUP_BEFORE_WRITE_ONLY: return "before-write-only";
	case UMT_SLOT_GROUP_AFTER: return "after";
	default: return NULL;
	}
}

const char *meta_layout_name(int layout)
{
	switch (layout) {
	case UMT_META_NONE: return "none";
	case UMT_META_ROOTLESS: return "rootless";
	case UMT_META_2015: return "2015";
	default: return NULL;
	}
}

const char *oper_flags_text(unsigned flags)
{
	static const char *const text[4] = {"-", "r", "w", "rw"};
	return text[flags & 3];
}

const char *mnemonic_name(const struct opts *o, int v)
{
	return umt_names_mnemonic(o->names, v);
}

const char *category_name(const struct opts *o, int v)
{
	return umt_names_category(o->names, v);
}

const char *form_name(const struct opts *o, int v)
{
	return umt_names_form(o->names, v);
}

const char *syscall_name(const struct opts *o, const umt_trace *t, int v)
{
	if (o->names == NULL)
		return NULL;
	umt_trace_info i;
	if (umt_trace_get_info(t, &i) < 0)
		return NULL;
	return umt_names_syscall(o->names, i.unified_ids_version, v);
}

/* ---- opening: strict, --salvage, or --keep-going falling back to salvage ---- */

/* Reports each file a salvage open reduced or lost, and what is left of the records. */
static void report_salvage(const umt_trace *t, int *status)
{
	umt_trace_info i;
	if (umt_trace_get_info(t, &i) < 0 || !i.salvaged)
		return;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (i.file_status[f] == UMT_FILE_INTACT)
			continue;
		report("salvage: %s %s: %s", umt_file_name(f),
		       i.file_status[f] == UMT_FILE_REDUCED ? "reduced" : "lost",
		       i.file_problem[f] ? i.file_problem[f] : "damaged");
	}
	report("salvage: %llu of %llu execution records readable",
	       (unsigned long long)i.exec_count, (unsigned long long)i.exec_declared);
	*status = EXIT_BAD_TRACE;
}

/*
 * Reports a trace that does not open, always naming its directory: the
 * library names the directory only when the directory itself cannot be
 * opened, and otherwise only the file ("exec.vtable: cannot open: ..."),
 * which says nothing to a user who gave the wrong directory. A missing file
 * means that the directory is not a trace (or not a whole one).
 */
static void report_open_failure(const char *dir, int rc)
{
	const char *msg = *umt_errmsg() ? umt_errmsg() : umt_strerror(rc);
	size_t n = strlen(dir);
	if (strncmp(msg, dir, n) == 0 && msg[n] == ':')
		report("%s", msg);
	else
		report("%s: %s%s", dir, rc == UMT_E_MISSING ? "not a trace: " : "", msg);
}

int open_trace(const struct opts *o, umt_trace **t, int *status)
{
	int rc = umt_trace_open(o->trace_dir, o->salvage ? UMT_OPEN_SALVAGE : 0, t);
	if (rc < 0 && o->keep_going && !o->salvage) {
		report_open_failure(o->trace_dir, rc); /* why a strict open fails; then read what is left */
		*status = EXIT_BAD_TRACE;
		if ((rc = umt_trace_open(o->trace_dir, UMT_OPEN_SALVAGE, t)) < 0)
			return rc; /* the same damage: reported once */
	} else if (rc < 0) {
		report_open_failure(o->trace_dir, rc);
		return rc;
	}
	report_salvage(*t, status);
	return 0;
}

/* ---- values -------------------------------------------------------------------- */

static uint64_t le_value(const uint8_t *p, uint64_t n)
{
	uint64_t v = 0;
	for (uint64_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

void out_value(const uint8_t *p, uint64_t n)
{
	if (n >= 1 && n <= 8)
		out_hex(le_value(p, n));
	else
		out_hexbytes(p, (size_t)n);
}

/* Characters out_value() writes. */
static int value_width(const uint8_t *p, uint64_t n)
{
	if (n < 1 || n > 8)
		return 2 * (int)n;
	uint64_t v = le_value(p, n);
	int digits = 1;
	while (v >>= 4)
		digits++;
	return 2 + digits;
}

void jw_value(struct jw *j, const char *key, const uint8_t *p, uint64_t n)
{
	if (n >= 1 && n <= 8)
		jw_hex(j, key, le_value(p, n));
	else
		jw_bytes(j, key, p, n);
}

void jw_named(struct jw *j, const char *key, int64_t v, const char *name)
{
	jw_i64(j, key, v);
	if (name) {
		char k[64];
		snprintf(k, sizeof k, "%s_name", key);
		jw_str(j, k, name);
	}
}

void out_named(int64_t v, const char *name)
{
	out_i64(v);
	if (name) {
		out_str(" (");
		out_textz(name);
		out_char(')');
	}
}

/* ---- exec --operands ------------------------------------------------------------ */

/* The name of explicit operand @p op in both outputs: an immediate has no
 * register (its RegName is INVALID), so it is named by its constant slot. */
static const char *operand_name(const umt_trace *t, const umt_exp_oper *op, int kind)
{
	if (kind == UMT_KIND_IMMEDIATE)
		return op->BeforeSlot == UMT_SLOT_IMM1 ? "imm1" : "imm0";
	return reg_name(t, (uint16_t)op->RegName);
}

static void text_operand(const umt_trace *t, const umt_ins_exec *x, unsigned i, int kind,
                         const umt_value *before, const umt_value *after, uint64_t address)
{
	const umt_exp_oper *op = umt_decoded_operand(&x->dec, i);
	out_spaces(INDENT);
	out_str("op");
	out_u64(i);
	out_char(' ');
	out_str_pad(operand_name(t, op, kind), 10);
	out_str_pad(operand_kind_name(kind), 5);
	out_str("size ");
	out_i64(op->Size);
	out_spaces(2);
	out_str_pad(oper_flags_text(op->Flags), 3);
	const char *sep = " "; /* fields are two spaces apart */
	if (kind == UMT_KIND_MEMORY) {
		out_str(" address ");
		out_hex(address);
		sep = "  ";
	}
	if (before) {
		out_str(sep);
		out_str("before ");
		out_value(before->data, before->size);
		sep = "  ";
	}
	if (after) {
		out_str(sep);
		out_str("after ");
		out_value(after->data, after->size);
	}
	out_char('\n');
}

static void json_operand(struct jw *j, const umt_trace *t, const umt_ins_exec *x, unsigned i,
                         int kind, const umt_value *before, const umt_value *after,
                         uint64_t address)
{
	const umt_exp_oper *op = umt_decoded_operand(&x->dec, i);
	jw_open(j, NULL, '{');
	jw_u64(j, "reg", (uint16_t)op->RegName);
	jw_str(j, "name", operand_name(t, op, kind));
	jw_str(j, "kind", operand_kind_name(kind));
	jw_i64(j, "size", op->Size);
	jw_u64(j, "flags", op->Flags);
	if (before)
		jw_value(j, "before", before->data, before->size);
	else
		jw_null(j, "before");
	if (after)
		jw_value(j, "after", after->data, after->size);
	else
		jw_null(j, "after");
	if (kind == UMT_KIND_MEMORY)
		jw_hex(j, "address", address);
	jw_close(j, '}');
}

void show_operands(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                   struct errlist *e)
{
	if (r->type != UMT_REC_INSTRUCTION)
		return;
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(t, r, &x);
	if (rc < 0) {
		errlist_add(e, rc);
		if (o->json)
			jw_null(j, "operands");
		return;
	}
	if (o->json)
		jw_open(j, "operands", '[');
	for (unsigned i = 0; i < x.dec.ins->ExpCount; i++) {
		umt_value bv, av;
		uint64_t address = 0;
		int kind = umt_operand_kind(&x, i);
		if (kind < 0) {
			errlist_add(e, kind);
			break;
		}
		/* no after value for read-only operands: skip the library's error path */
		const umt_exp_oper *op = umt_decoded_operand(&x.dec, i);
		int brc = umt_operand_value(&x, i, UMT_BEFORE, &bv);
		if (brc < 0 && brc != UMT_E_NO_VALUE) {
			errlist_add(e, brc);
			break;
		}
		int arc = op->AfterSlot == UMT_SLOT_NA ? UMT_E_NO_VALUE
		                                       : umt_operand_value(&x, i, UMT_AFTER, &av);
		if (arc < 0 && arc != UMT_E_NO_VALUE) {
			errlist_add(e, arc);
			break;
		}
		if (kind == UMT_KIND_MEMORY && (rc = umt_operand_address(&x, i, &address)) < 0) {
			errlist_add(e, rc);
			break;
		}
		if (o->json)
			json_operand(j, t, &x, i, kind, brc == 0 ? &bv : NULL, arc == 0 ? &av : NULL,
			             address);
		else
			text_operand(t, &x, i, kind, brc == 0 ? &bv : NULL, arc == 0 ? &av : NULL,
			             address);
	}
	if (o->json)
		jw_close(j, ']');
}

/* ---- exec --context ---------------------------------------------------------------- */

/*
 * Whether register @p reg is listed in a dump: present in the record's map
 * and its own effective largest enclosing register (rax, not eax or al), or
 * an enclosing register that is absent from the map. Sub-registers are
 * parts of the listed ones.
 */
static bool listed_reg(const umt_trace *t, int reg, int is_64bit)
{
	umt_reg_desc d, e;
	if (umt_context_map_reg(t, reg, &d) < 0 || !(is_64bit ? d.in64 : d.in32))
		return false;
	int largest = is_64bit ? d.map64.EffLargest : d.map32.EffLargest;
	if (largest == reg)
		return true;
	if (umt_context_map_reg(t, largest, &e) < 0)
		return true;
	return !(is_64bit ? e.in64 : e.in32);
}

/* The listed registers of the 32-bit ([0]) and 64-bit ([1]) dumps, found once. */
static struct {
	bool done;
	int n;
	uint16_t reg[UMT_CONTEXT_MAP_REGS];
} listed[2];

static void list_regs(const umt_trace *t, int is_64bit)
{
	const umt_context_map *map = umt_context_map_get(t);
	listed[is_64bit].done = true;
	for (int reg = 0; map && reg < map->ElemCount && reg < UMT_CONTEXT_MAP_REGS; reg++)
		if (listed_reg(t, reg, is_64bit))
			listed[is_64bit].reg[listed[is_64bit].n++] = (uint16_t)reg;
}

/* Registers of the dump: text lines of name=value pairs, or a JSON object. */
static int show_regs(const umt_trace *t, const umt_context *c, const struct opts *o,
                     struct jw *j)
{
	int mode = c->is_64bit ? 1 : 0, column = 0, rc = 0;
	if (!listed[mode].done)
		list_regs(t, mode);
	if (o->json)
		jw_open(j, "regs", '{');
	for (int i = 0; i < listed[mode].n; i++) {
		int reg = listed[mode].reg[i];
		umt_value v;
		if ((rc = umt_context_reg(t, c, reg, &v)) < 0)
			break;
		const char *name = reg_name(t, reg);
		if (o->json) {
			jw_tkey(j, name); /* StrName of the trace */
			jw_value(j, NULL, v.data, v.size);
			continue;
		}
		/* name=value pairs, wrapped before column 100 */
		int width = (int)strlen(name) + 2 + value_width(v.data, v.size);
		if (column == 0 || column + width > 100) {
			if (column)
				out_char('\n');
			out_spaces(INDENT);
			out_str("regs");
			column = INDENT + 4;
		}
		out_char(' ');
		out_textz(name);
		out_char('=');
		out_value(v.data, v.size);
		column += width;
	}
	if (o->json)
		jw_close(j, '}');
	else if (column)
		out_char('\n');
	return rc;
}

/* Bytes of memory data shown in text; JSON shows all of them. */
#define TEXT_MEM_BYTES 32

void show_context(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                  struct errlist *e)
{
	if (!umt_rec_type_has_context(r->type))
		return;
	umt_context c;
	int rc = umt_rec_context(t, r, &c);
	if (rc < 0) {
		errlist_add(e, rc);
		if (o->json)
			jw_null(j, "context");
		return;
	}
	if (o->json) {
		jw_open(j, "context", '{');
		jw_u64(j, "mem_count", c.mem_count);
	}
	rc = show_regs(t, &c, o, j);
	if (o->json)
		jw_open(j, "mem", '[');
	for (uint32_t i = 0; rc == 0 && i < c.mem_count; i++) {
		umt_mem_ref m;
		if ((rc = umt_context_mem_get(&c, i, &m)) < 0)
			break;
		if (o->json) {
			jw_open(j, NULL, '{');
			jw_hex(j, "address", m.address);
			jw_u64(j, "size", m.size);
			jw_bytes(j, "data", m.data, m.size);
			jw_close(j, '}');
			continue;
		}
		out_spaces(INDENT);
		out_str("mem  ");
		out_hex(m.address);
		out_char(' ');
		out_u64(m.size);
		out_str(" bytes ");
		out_hexbytes(m.data, m.size < TEXT_MEM_BYTES ? (size_t)m.size : TEXT_MEM_BYTES);
		if (m.size > TEXT_MEM_BYTES)
			out_str("...");
		out_char('\n');
	}
	if (rc < 0)
		errlist_add(e, rc);
	if (o->json) {
		jw_close(j, ']');
		jw_close(j, '}');
	}
}
