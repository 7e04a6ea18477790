/*
 * umtdump verify: the library's full consistency check (umt_verify()),
 * then a scan that reads every record with its operands, slots, memory
 * phrases and context, every thread chain and every table row through the
 * library's accessors and reports what they refuse.
 *
 * The scan finds what the accessors check (extents, FPs, slot indexes, LC
 * lengths...); umt_verify() adds the cross-checks. A problem the scan finds
 * on a record or row that umt_verify() already reported is not repeated,
 * nor is a message the scan already printed (a bad instruction row is
 * reported once, not once per record that executes it).
 */
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

/* A set of 64-bit keys (hashes), open addressing; 0 marks an empty slot. */
struct keyset {
	uint64_t *k;
	size_t cap, n;
};

static bool keyset_add(struct keyset *s, uint64_t key)
{
	key |= !key; /* 0 is the empty slot */
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		uint64_t *k = calloc(cap, sizeof *k);
		if (k == NULL)
			return true; /* cannot remember: report it */
		for (size_t i = 0; i < s->cap; i++)
			for (size_t j = s->k[i] & (cap - 1); s->k[i]; j = (j + 1) & (cap - 1))
				if (k[j] == 0) {
					k[j] = s->k[i];
					break;
				}
		free(s->k);
		s->k = k;
		s->cap = cap;
	}
	for (size_t j = key & (s->cap - 1);; j = (j + 1) & (s->cap - 1)) {
		if (s->k[j] == key)
			return false;
		if (s->k[j] == 0) {
			s->k[j] = key;
			s->n++;
			return true;
		}
	}
}

static bool keyset_has(const struct keyset *s, uint64_t key)
{
	key |= !key;
	for (size_t j = s->cap ? key & (s->cap - 1) : 0; s->cap && s->k[j]; j = (j + 1) & (s->cap - 1))
		if (s->k[j] == key)
			return true;
	return false;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Where a library message points: "FILE: record|row N at offset 0xH: ...". */
struct where {
	int file;   /* umt_file_id, -1 when none */
	int64_t id; /* -1 when none */
	uint64_t offset;
};

static struct where parse_where(const char *msg)
{
	struct where w = {-1, -1, 0};
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		size_t n = strlen(umt_file_name(f));
		if (strncmp(msg, umt_file_name(f), n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') {
			w.file = f;
			msg += n + 2;
			break;
		}
	}
	if (w.file < 0)
		return w;
	unsigned long long id, off;
	if (sscanf(msg, "record %llu at offset 0x%llx", &id, &off) == 2 ||
	    sscanf(msg, "row %llu at offset 0x%llx", &id, &off) == 2)
		w.id = (int64_t)id, w.offset = off;
	else if (sscanf(msg, "at offset 0x%llx", &off) == 1)
		w.offset = off;
	return w;
}

static const char *check_name(unsigned check)
{
	static const char *const names[] = {"exec", "links", "ins", "mem0", "syscalls", "modules",
	                                    "threads", "address-space", "xml"};
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (check == 1u << i)
			return names[i];
	return "other";
}

struct verify {
	umt_trace *t;
	const struct opts *o;
	uint64_t errors, warnings, records;
	bool stopped;
	struct keyset by_place;   /* (file, id) of umt_verify() problems */
	struct keyset by_message; /* messages printed by the scan */
	struct progress bar;
};

static uint64_t place_key(int file, int64_t id)
{
	return mix(mix(0x5eed, (uint64_t)file), (uint64_t)id);
}

static bool capped(const struct verify *v)
{
	return v->o->max_problems && v->errors + v->warnings >= v->o->max_problems;
}

/* Prints one problem; counts it. */
static void print_problem(struct verify *v, const umt_problem *p, const char *source)
{
	if (p->severity == UMT_SEVERITY_WARNING)
		v->warnings++;
	else
		v->errors++;
	if (!v->o->json) {
		if (p->severity == UMT_SEVERITY_WARNING)
			report("warning: %s", p->message);
		else
			report("%s", p->message);
		return;
	}
	struct jw j;
	jw_begin(&j);
	jw_str(&j, "kind", "problem");
	jw_str(&j, "source", source);
	jw_str(&j, "severity", p->severity == UMT_SEVERITY_WARNING ? "warning" : "error");
	jw_str(&j, "check", check_name(p->check));
	jw_i64(&j, "status", p->status);
	jw_str(&j, "status_text", umt_strerror(p->status));
	jw_str(&j, "file", p->file >= 0 && p->file < UMT_FILE_COUNT ? umt_file_name(p->file) : NULL);
	jw_i64(&j, "id", p->id);
	jw_hex(&j, "offset", p->offset);
	jw_str(&j, "message", p->message);
	jw_end(&j);
}

static int on_problem(const umt_problem *p, void *ctx)
{
	struct verify *v = ctx;
	if (p->id >= 0 && p->file >= 0)
		keyset_add(&v->by_place, place_key(p->file, p->id));
	keyset_add(&v->by_message, hash_str(p->message));
	print_problem(v, p, "verify");
	return out_closed();
}

static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct verify *v = ctx;
	v->bar.total = total;
	progress_tick(&v->bar, done);
}

/*
 * A problem found by the scan in the class @p check: the library's last
 * message, unless umt_verify() reported that record or row or the message
 * was printed already.
 */
static void scan_problem(struct verify *v, unsigned check, int rc)
{
	if (v->stopped)
		return;
	char msg[512];
	snprintf(msg, sizeof msg, "%s", *umt_errmsg() ? umt_errmsg() : umt_strerror(rc));
	struct where w = parse_where(msg);
	/* umt_verify() reported this record or row: do not add to the noise */
	if (w.id >= 0 && w.file >= 0 && keyset_has(&v->by_place, place_key(w.file, w.id)))
		return;
	if (!keyset_add(&v->by_message, hash_str(msg)))
		return;
	umt_problem p = {rc, UMT_SEVERITY_ERROR, check, w.file, w.id, w.offset, msg};
	print_problem(v, &p, "scan");
	if (capped(v))
		v->stopped = true;
}

/* ---- the scan ------------------------------------------------------------------------ */

/*
 * Whether the instruction has memory phrase @p which (0: MEM0/AGEN, 1:
 * MEM1): a phrase slot, or an operand or slot of that name. Asking the
 * library only then keeps its error path (a formatted message) off the
 * per-record loop.
 */
static bool has_phrase(const umt_decoded *d, int which)
{
	const umt_decoded_ins *di = d->ins;
	uint16_t a = which ? UMT_REG_MEM1 : UMT_REG_MEM0, b = which ? UMT_REG_MEM1 : UMT_REG_AGEN;
	if (which ? di->Mem1BaseSlot != UMT_SLOT_NA
	          : di->Mem0SegSlot != UMT_SLOT_NA || di->Mem0BaseSlot != UMT_SLOT_NA ||
	                di->Mem0IndexSlot != UMT_SLOT_NA)
		return true;
	for (unsigned i = 0; i < di->ExpCount; i++)
		if ((uint16_t)di->ExpOper[i].RegName == a || (uint16_t)di->ExpOper[i].RegName == b)
			return true;
	for (unsigned s = 0; s < di->LCCount; s++)
		if ((uint16_t)d->slots[s].RegName == a || (uint16_t)d->slots[s].RegName == b)
			return true;
	return false;
}

static int scan_instruction(const umt_trace *t, const umt_rec *r)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(t, r, &x);
	if (rc < 0)
		return rc;
	umt_value val;
	uint64_t addr;
	for (unsigned i = 0; i < x.dec.ins->ExpCount; i++) {
		int kind = umt_operand_kind(&x, i);
		if (kind < 0)
			return kind;
		/* read-only operands have no after value (AfterSlot 0xff) */
		bool after = umt_decoded_operand(&x.dec, i)->AfterSlot != UMT_SLOT_NA;
		for (int when = UMT_BEFORE; when <= (after ? UMT_AFTER : UMT_BEFORE); when++)
			if ((rc = umt_operand_value(&x, i, when, &val)) < 0)
				return rc;
		if ((kind == UMT_KIND_MEMORY || kind == UMT_KIND_AGEN) &&
		    (rc = umt_operand_address(&x, i, &addr)) < 0)
			return rc;
	}
	for (unsigned s = 0; s < x.dec.ins->LCCount; s++)
		if ((rc = umt_lc_slot_value(&x, s, &val, &addr)) < 0)
			return rc;
	umt_mem_phrase ph;
	for (int which = 0; which <= 1; which++)
		if (has_phrase(&x.dec, which) && (rc = umt_ins_exec_phrase(&x, which, &ph)) < 0)
			return rc;
	return 0;
}

/* The registers of the 32-bit and the 64-bit dump, listed once. */
struct present {
	int n[2];
	uint16_t reg[2][UMT_CONTEXT_MAP_REGS];
};

static void list_present(const umt_trace *t, struct present *p)
{
	const umt_context_map *map = umt_context_map_get(t);
	p->n[0] = p->n[1] = 0;
	for (int reg = 0; reg < map->ElemCount && reg < UMT_CONTEXT_MAP_REGS; reg++) {
		umt_reg_desc d;
		if (umt_context_map_reg(t, reg, &d) < 0)
			continue;
		if (d.in32)
			p->reg[0][p->n[0]++] = (uint16_t)reg;
		if (d.in64)
			p->reg[1][p->n[1]++] = (uint16_t)reg;
	}
}

static int scan_context(const umt_trace *t, const umt_rec *r, const struct present *p)
{
	umt_context c;
	int rc = umt_rec_context(t, r, &c);
	if (rc < 0)
		return rc;
	int mode = c.is_64bit ? 1 : 0;
	for (int i = 0; i < p->n[mode]; i++) {
		umt_value v;
		if ((rc = umt_context_reg(t, &c, p->reg[mode][i], &v)) < 0)
			return rc;
	}
	for (uint32_t i = 0; i < c.mem_count; i++) {
		umt_mem_ref m;
		if ((rc = umt_context_mem_get(&c, i, &m)) < 0)
			return rc;
	}
	return 0;
}

/* Reads one record in full; @return 0 or the first error. */
static int scan_record(const umt_trace *t, const umt_rec *r, const struct present *p)
{
	int rc = 0;
	if (r->type == UMT_REC_INSTRUCTION)
		rc = scan_instruction(t, r);
	else if (umt_rec_type_has_context(r->type))
		rc = scan_context(t, r, p);
	if (rc == 0 && (r->type == UMT_REC_SYSCALL_ENTRY || r->type == UMT_REC_SYSCALL_EXIT ||
	                r->type == UMT_REC_SYSCALL_SKIPPED)) {
		umt_syscall s;
		if ((rc = umt_rec_syscall(t, r, &s)) == UMT_E_NO_VALUE)
			rc = 0;
	}
	return rc;
}

static void scan_records(struct verify *v)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t n = umt_exec_count(v->t), done = 0;
	int rc = umt_exec_iter_init(&it, v->t, 0, n);
	struct present *p = malloc(sizeof *p);
	if (p == NULL) {
		report("out of memory");
		v->errors++;
		return;
	}
	list_present(v->t, p);
	progress_start(&v->bar, v->o, "scan records", n, true);
	while (rc >= 0 && !v->stopped && !out_closed()) {
		progress_tick(&v->bar, done++);
		if ((rc = umt_exec_iter_next(&it, &r)) == 0)
			break;
		if (rc < 0 || (rc = scan_record(v->t, &r, p)) < 0)
			scan_problem(v, UMT_CHECK_EXEC, rc);
		rc = 0;
		v->records++;
	}
	progress_end(&v->bar);
	free(p);
}

static void scan_chains(struct verify *v)
{
	uint64_t n = umt_thread_count(v->t);
	for (uint64_t th = 0; th < n && !v->stopped; th++) {
		umt_thread_iter it;
		umt_rec r;
		int rc = umt_thread_iter_init_thread(&it, v->t, th);
		while (rc >= 0 && (rc = umt_thread_iter_next(&it, &r)) > 0)
			;
		if (rc < 0)
			scan_problem(v, UMT_CHECK_LINKS, rc);
	}
}

static int scan_ins_row(const umt_trace *t, uint64_t id)
{
	const umt_ins_rec *row;
	const uint8_t *code;
	unsigned size;
	const char *text;
	size_t len;
	umt_decoded d;
	uint64_t module;
	int rc;
	if ((rc = umt_ins_get(t, id, &row)) < 0 || (rc = umt_ins_code(t, id, &code, &size)) < 0 ||
	    (rc = umt_ins_disasm(t, id, &text, &len)) < 0 || (rc = umt_ins_decoded(t, id, &d)) < 0)
		return rc;
	if ((rc = umt_ins_module(t, id, &module)) == UMT_E_NOT_FOUND)
		rc = 0;
	return rc;
}

static void scan_tables(struct verify *v)
{
	int rc;
	for (uint64_t id = 0; id < umt_ins_count(v->t) && !v->stopped; id++)
		if ((rc = scan_ins_row(v->t, id)) < 0)
			scan_problem(v, UMT_CHECK_INS, rc);
	for (uint64_t id = 0; id < umt_syscall_count(v->t) && !v->stopped; id++) {
		umt_syscall s;
		if ((rc = umt_syscall_get(v->t, id, &s)) < 0)
			scan_problem(v, UMT_CHECK_SYSCALLS, rc);
	}
	for (uint64_t id = 0; id < umt_module_count(v->t) && !v->stopped; id++) {
		const umt_module_rec *m;
		long n = 0;
		if ((rc = umt_module_get(v->t, id, &m)) < 0 ||
		    (n = umt_module_name(v->t, id, UMT_MODULE_WIN_NAME, NULL, 0)) < 0 ||
		    (n = umt_module_name(v->t, id, UMT_MODULE_DEVICE_NAME, NULL, 0)) < 0)
			scan_problem(v, UMT_CHECK_MODULES, rc < 0 ? rc : (int)n);
	}
	for (uint64_t id = 0; id < umt_thread_count(v->t) && !v->stopped; id++) {
		const umt_thread_rec *th;
		if ((rc = umt_thread_get(v->t, id, &th)) < 0)
			scan_problem(v, UMT_CHECK_THREADS, rc);
	}
	for (uint64_t id = 0; id < umt_address_range_count(v->t) && !v->stopped; id++) {
		const umt_address_range *ar;
		if ((rc = umt_address_range_get(v->t, id, &ar)) < 0)
			scan_problem(v, UMT_CHECK_ADDRESS_SPACE, rc);
	}
	const umt_meta *m;
	if (!v->stopped && ((rc = umt_trace_meta(v->t, &m)) < 0 || (rc = umt_trace_meta_check(v->t)) < 0))
		scan_problem(v, UMT_CHECK_XML, rc);
}

/* ---- the command ------------------------------------------------------------------------ */

static void summary(const struct verify *v)
{
	bool ok = v->errors == 0;
	if (v->o->json) {
		struct jw j;
		jw_begin(&j);
		jw_str(&j, "kind", "summary");
		jw_str(&j, "trace", v->o->trace_dir);
		jw_bool(&j, "consistent", ok);
		jw_u64(&j, "errors", v->errors);
		jw_u64(&j, "warnings", v->warnings);
		jw_u64(&j, "records", v->records);
		jw_bool(&j, "stopped", v->stopped);
		jw_end(&j);
		return;
	}
	out_textz(v->o->trace_dir);
	out_printf(": %s: %llu error%s, %llu warning%s (%llu records checked)",
	           ok ? "consistent" : "inconsistent", (unsigned long long)v->errors,
	           v->errors == 1 ? "" : "s", (unsigned long long)v->warnings,
	           v->warnings == 1 ? "" : "s", (unsigned long long)v->records);
	if (v->stopped)
		out_printf("; stopped after %llu problem%s", (unsigned long long)v->o->max_problems,
		           v->o->max_problems == 1 ? "" : "s");
	out_char('\n');
}

int cmd_verify(umt_trace *t, const struct opts *o)
{
	struct verify v = {.t = t, .o = o};
	umt_verify_options vo;
	umt_verify_result res;
	memset(&res, 0, sizeof res);
	umt_verify_options_init(&vo);
	vo.max_problems = o->max_problems;
	vo.on_problem = on_problem;
	vo.on_progress = on_progress;
	vo.ctx = &v;
	progress_start(&v.bar, o, "verify", 0, true);
	int rc = umt_verify(t, &vo, &res);
	progress_end(&v.bar);
	int status = EXIT_OK;
	if (rc < 0 && rc != UMT_E_CORRUPT) {
		report_error(rc); /* the check itself could not run */
		status = EXIT_BAD_TRACE;
	} else {
		/* what umt_verify() counted, if it found more than it reported */
		if (res.errors > v.errors)
			v.errors = res.errors;
		if (res.warnings > v.warnings)
			v.warnings = res.warnings;
		if (rc == UMT_E_CORRUPT && v.errors == 0)
			v.errors = 1;
		v.stopped = res.stopped || capped(&v);
	}
	if (!v.stopped && !out_closed()) {
		scan_records(&v);
		scan_chains(&v);
		scan_tables(&v);
	}
	if (res.records > v.records)
		v.records = res.records;
	summary(&v);
	free(v.by_place.k);
	free(v.by_message.k);
	return status != EXIT_OK || v.errors ? EXIT_BAD_TRACE : EXIT_OK;
}
