/*
 * umtdump exec: execution records, one per line, in record order or along
 * one thread's prev/next chain; --operands and --context add indented
 * lines (text) or keys (JSON).
 */
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "umtdump.h"

/* Records from which exec shows a progress bar when writing to a file. */
#define LARGE_RANGE 100000

struct exec_ctx {
	umt_trace *t;
	const struct opts *o;
	int exec_version;
};

/* The instruction of a record: address and disassembly, or the error. */
struct ins_info {
	int64_t ins_id;
	uint64_t address;
	bool has_row;       /* address is known */
	const char *disasm; /* NULL when it could not be read */
	size_t disasm_len;
};

static void ins_info(const umt_trace *t, const umt_rec *r, struct ins_info *ii,
                     struct errlist *e)
{
	const umt_ins_rec *row;
	memset(ii, 0, sizeof *ii);
	umt_rec_ins(r, &ii->ins_id, NULL, NULL);
	if (ii->ins_id < 0 || (uint64_t)ii->ins_id >= umt_ins_count(t)) {
		/* the offset is InsID's, as the library's messages point at the field */
		uint64_t at = r->offset + offsetof(umt_exec_ins, InsID);
		errlist_addf(e, UMT_E_BOUNDS,
		             "exec.vtable: record %llu at offset 0x%llx: InsID %lld is outside the "
		             "instruction table (%llu instructions)", (unsigned long long)r->id,
		             (unsigned long long)at, (long long)ii->ins_id,
		             (unsigned long long)umt_ins_count(t));
		return;
	}
	int rc = umt_ins_get(t, (uint64_t)ii->ins_id, &row);
	if (rc < 0) {
		errlist_add(e, rc);
		return;
	}
	ii->address = (uint64_t)row->Address;
	ii->has_row = true;
	if ((rc = umt_ins_disasm(t, (uint64_t)ii->ins_id, &ii->disasm, &ii->disasm_len)) < 0) {
		ii->disasm = NULL;
		errlist_add(e, rc);
	}
}

/* The syscall record of an entry/exit/skipped record: 1, 0 (none: exit -1), or < 0. */
static int syscall_info(const umt_trace *t, const umt_rec *r, umt_syscall *s, struct errlist *e)
{
	int rc = umt_rec_syscall(t, r, s);
	if (rc == UMT_E_NO_VALUE)
		return 0;
	if (rc < 0) {
		errlist_add(e, rc);
		return rc;
	}
	return 1;
}

static void text_flags(uint8_t flags, int version)
{
	bool first = true;
	for (unsigned bit = 0x02; bit <= 0x80; bit <<= 1) {
		if (!(flags & bit))
			continue;
		const char *name = umt_exec_flag_name(version, bit);
		out_str(first ? "  [" : ",");
		if (name)
			out_str(name);
		else
			out_hex(bit);
		first = false;
	}
	if (!first)
		out_char(']');
}

/*
 * The line of a record. Fields from other tables that cannot be read are
 * shown as "?" (text) or null (JSON); their errors go to @p e.
 */
static void print_text(const struct exec_ctx *x, const umt_rec *r, int64_t prev, int64_t next,
                       struct errlist *e)
{
	out_u64_pad(r->id, 10);
	out_char(' ');
	out_i64_pad(r->thread_id, 6);
	out_spaces(2);
	out_str_pad(umt_rec_type_name(r->type), 16);
	out_str("0x");
	out_char("0123456789abcdef"[r->flags >> 4]);
	out_char("0123456789abcdef"[r->flags & 15]);
	out_char(' ');
	out_i64_pad(prev, 10);
	out_char(' ');
	out_i64_pad(next, 10);
	int64_t sid;
	int32_t code;
	if (r->type == UMT_REC_INSTRUCTION) {
		struct ins_info ii;
		ins_info(x->t, r, &ii, e);
		out_str("  ins_id=");
		out_i64_left(ii.ins_id, 6);
		if (ii.has_row)
			out_hex_left(ii.address, 16);
		if (ii.disasm)
			out_text(ii.disasm, ii.disasm_len);
		else
			out_char('?');
	} else if (umt_rec_syscall_id(r, &sid) == 0) {
		umt_syscall s;
		out_str("  syscall_id=");
		out_i64(sid);
		int has = syscall_info(x->t, r, &s, e);
		if (has > 0) {
			out_str("  uniform_id=");
			out_named(s.rec->UniformID, syscall_name(x->o, x->t, s.rec->UniformID));
		} else if (has < 0) {
			out_str("  uniform_id=?");
		}
	} else if (umt_rec_exit_code(r, &code) == 0) {
		out_str("  exit_code=");
		out_i64(code);
		if (code < 0)
			out_printf(" (0x%08x)", (unsigned)code);
	}
	text_flags(r->flags, x->exec_version);
	out_char('\n');
}

static void print_json(const struct exec_ctx *x, struct jw *j, const umt_rec *r, int64_t prev,
                       int64_t next, struct errlist *e)
{
	int64_t sid;
	int32_t code;
	jw_begin(j);
	jw_u64(j, "id", r->id);
	jw_i64(j, "thread_id", r->thread_id);
	jw_str(j, "type", umt_rec_type_name(r->type));
	jw_u64(j, "type_code", r->type);
	jw_u64(j, "flags", r->flags);
	jw_i64(j, "prev", prev);
	jw_i64(j, "next", next);
	if (r->type == UMT_REC_INSTRUCTION) {
		struct ins_info ii;
		ins_info(x->t, r, &ii, e);
		jw_i64(j, "ins_id", ii.ins_id);
		if (ii.has_row)
			jw_hex(j, "address", ii.address);
		else
			jw_null(j, "address");
		if (ii.disasm)
			jw_strn(j, "disasm", ii.disasm, ii.disasm_len);
		else
			jw_null(j, "disasm");
		jw_sem_names(j, x->t, ii.has_row ? ii.ins_id : -1);
	} else if (umt_rec_syscall_id(r, &sid) == 0) {
		umt_syscall s;
		jw_i64(j, "syscall_id", sid);
		if (syscall_info(x->t, r, &s, e) > 0)
			jw_named(j, "uniform_id", s.rec->UniformID,
			         syscall_name(x->o, x->t, s.rec->UniformID));
		else
			jw_null(j, "uniform_id");
	} else if (umt_rec_exit_code(r, &code) == 0) {
		jw_i64(j, "exit_code", code);
	}
}

/* Prints one record with its extras; @return 0 or the first error (reported after it). */
static int print_record(const struct exec_ctx *x, const umt_rec *r)
{
	int64_t prev = -1, next = -1;
	int rc = umt_exec_links(x->t, r->id, &prev, &next);
	if (rc < 0) {
		report_error(rc);
		return rc;
	}
	struct errlist e;
	e.n = 0;
	struct jw j;
	if (x->o->json)
		print_json(x, &j, r, prev, next, &e);
	else
		print_text(x, r, prev, next, &e);
	if (x->o->operands && e.n > 0 && r->type == UMT_REC_INSTRUCTION) {
		if (x->o->json)
			jw_null(&j, "operands"); /* its instruction is already reported bad */
	} else if (x->o->operands) {
		show_operands(x->t, r, x->o, &j, &e);
	}
	if (x->o->accesses)
		show_accesses(x->t, r, x->o, &j, &e);
	if (x->o->context)
		show_context(x->t, r, x->o, &j, &e);
	if (x->o->json)
		jw_end(&j);
	return errlist_report(&e);
}

/* A record source: record order over a range, or one thread's chain. */
struct source {
	bool by_thread;
	umt_exec_iter it;
	umt_thread_iter tit;
	uint64_t total; /* records the source may return, for the progress bar */
};

static int source_next(struct source *s, umt_rec *r)
{
	return s->by_thread ? umt_thread_iter_next(&s->tit, r) : umt_exec_iter_next(&s->it, r);
}

/* Checks the range options against the trace: usage errors. */
static int check_range(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_exec_count(t);
	if (o->from > n) { /* --from n is an empty range */
		report("--from %llu: no such record (%llu records)", (unsigned long long)o->from,
		       (unsigned long long)n);
		return EXIT_USAGE;
	}
	if (o->has_to && o->to < o->from) {
		report("--to %llu is before --from %llu", (unsigned long long)o->to,
		       (unsigned long long)o->from);
		return EXIT_USAGE;
	}
	return thread_status(t, o);
}

static int open_source(umt_trace *t, const struct opts *o, struct source *s)
{
	memset(s, 0, sizeof *s);
	if (o->thread >= 0) {
		const umt_thread_rec *row;
		s->by_thread = true;
		if (umt_thread_get(t, (uint64_t)o->thread, &row) == 0 && row->RecCount > 0)
			s->total = (uint64_t)row->RecCount;
		return umt_thread_iter_init_thread(&s->tit, t, (uint64_t)o->thread);
	}
	uint64_t end = o->has_to && o->to < UINT64_MAX ? o->to + 1 : UINT64_MAX;
	uint64_t n = umt_exec_count(t);
	s->total = (end < n ? end : n) - o->from;
	return umt_exec_iter_init(&s->it, t, o->from, end);
}

int cmd_exec(umt_trace *t, const struct opts *o)
{
	struct exec_ctx x = {t, o, 0};
	umt_trace_info info;
	if (umt_trace_get_info(t, &info) == 0)
		x.exec_version = info.exec_version;
	int rc = check_range(t, o);
	if (rc)
		return rc;
	struct source s;
	if ((rc = open_source(t, o, &s)) < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	if (!o->json)
		out_str("        ID THREAD  TYPE            FLAGS       PREV       NEXT  DETAIL\n");
	struct progress bar;
	bool large = s.total >= LARGE_RANGE && (!o->has_count || o->count >= LARGE_RANGE);
	progress_start(&bar, o, "exec", s.total, large && !isatty(STDOUT_FILENO));
	int status = EXIT_OK;
	uint64_t shown = 0, seen = 0;
	umt_rec r;
	while ((!o->has_count || shown < o->count) && !out_closed()) {
		progress_tick(&bar, seen++);
		rc = source_next(&s, &r);
		if (rc == 0)
			break;
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status) || s.by_thread)
				break;
			continue;
		}
		if (s.by_thread && (r.id < o->from || (o->has_to && r.id > o->to)))
			continue;
		if (o->types && !(o->types & (1u << r.type)))
			continue;
		shown++;
		if (print_record(&x, &r) < 0) {
			if (failed_row(o, &status))
				break;
		}
	}
	progress_end(&bar);
	return status;
}
