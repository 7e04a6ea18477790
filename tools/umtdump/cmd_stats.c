/*
 * umtdump stats: records per type and per thread, the instruction mix by
 * mnemonic and by category (XED's numbers named by --xed-dir; without it,
 * Zydis's names from the code bytes, decoded once per row), syscall counts
 * by unified ID, and the memory read and written by instruction records,
 * in one pass over the records.
 *
 * Memory is counted from the LC slots of each instruction record: a memory
 * slot (AddrWidth > 0) of the before group of read operands is a read of
 * ValueSize bytes, one of the after group a write; the before values of
 * write-only operands are neither.
 */
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

#define CODES 65536 /* i16 codes: mnemonics, categories, unified IDs */

struct stats {
	uint64_t records, bad_records;
	uint64_t by_type[UMT_REC_TYPE_LIMIT];
	uint64_t *by_thread;   /* thread_count entries */
	uint64_t other_thread; /* records whose ThreadID is outside the table */
	uint64_t instructions, undecoded;
	uint64_t *mnemonic, *category, *syscall; /* CODES entries, indexed by (uint16_t) code */
	/* from the code bytes (Zydis): by mnemonic and category numbers, and by the library's
	 * category; records whose row's bytes do not decode (or whose InsID is bad) */
	uint64_t *zydis_mnemonic, zydis_category[256], semantic[UMT_SEM_CATEGORY_COUNT];
	uint64_t undecodable_code;
	uint64_t reads, read_bytes, writes, written_bytes;
};

/* A non-zero count of a code, for sorting. */
struct entry {
	int code;
	uint64_t count;
};

static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->code - y->code;
}

/* The non-zero counts, most frequent first; *n entries (malloc'd, NULL when none). */
static struct entry *sorted(const uint64_t *counts, size_t *n)
{
	size_t k = 0;
	for (size_t c = 0; c < CODES; c++)
		k += counts[c] != 0;
	*n = 0;
	struct entry *e = k ? malloc(k * sizeof *e) : NULL;
	if (e == NULL)
		return NULL;
	for (size_t c = 0; c < CODES; c++)
		if (counts[c])
			e[(*n)++] = (struct entry){(int)(int16_t)(uint16_t)c, counts[c]};
	qsort(e, *n, sizeof *e, by_count);
	return e;
}

/* The record's row through Zydis: counted by name, never reported here (ins does). */
static void count_semantics(const umt_trace *t, const umt_rec *r, struct stats *s)
{
	int64_t ins_id = -1;
	umt_sem sem;
	if (umt_rec_ins(r, &ins_id, NULL, NULL) < 0 || ins_id < 0 ||
	    umt_sem_get(t, (uint64_t)ins_id, &sem) < 0) {
		s->undecodable_code++;
		return;
	}
	s->zydis_mnemonic[sem.mnemonic]++;
	s->zydis_category[sem.zydis_category]++;
	s->semantic[sem.category]++;
}

static int count_instruction(const umt_trace *t, const umt_rec *r, struct stats *s)
{
	count_semantics(t, r, s);
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(t, r, &x);
	if (rc < 0)
		return rc;
	const umt_decoded_ins *d = x.dec.ins;
	s->mnemonic[(uint16_t)d->Mnemonic]++;
	s->category[(uint16_t)d->Category]++;
	for (unsigned i = 0; i < d->LCCount; i++) {
		const umt_lc_slot *sl = &x.dec.slots[i];
		if (sl->AddrWidth == 0)
			continue;
		if (i < d->FirstOutSlot)
			s->reads++, s->read_bytes += (uint64_t)sl->ValueSize;
		else if (i >= d->FirstAfterSlot)
			s->writes++, s->written_bytes += (uint64_t)sl->ValueSize;
	}
	return 0;
}

static int count_records(umt_trace *t, const struct opts *o, struct stats *s)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t n = umt_exec_count(t), threads = umt_thread_count(t);
	int rc = umt_exec_iter_init(&it, t, 0, n), status = EXIT_OK;
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	struct progress bar;
	progress_start(&bar, o, "stats", n, true);
	for (uint64_t done = 0;; done++) {
		progress_tick(&bar, done);
		if ((rc = umt_exec_iter_next(&it, &r)) == 0)
			break;
		if (rc < 0) {
			s->bad_records++;
		} else {
			s->records++;
			s->by_type[r.type]++;
			if (r.thread_id >= 0 && (uint64_t)r.thread_id < threads)
				s->by_thread[r.thread_id]++;
			else
				s->other_thread++;
			if (r.type == UMT_REC_INSTRUCTION) {
				s->instructions++;
				if ((rc = count_instruction(t, &r, s)) < 0)
					s->undecoded++;
			}
		}
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
		}
	}
	progress_end(&bar);
	return status;
}

static int count_syscalls(umt_trace *t, const struct opts *o, struct stats *s)
{
	int status = EXIT_OK;
	for (uint64_t id = 0; id < umt_syscall_count(t); id++) {
		umt_syscall sc;
		int rc = umt_syscall_get(t, id, &sc);
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
			continue;
		}
		s->syscall[(uint16_t)sc.rec->UniformID]++;
	}
	return status;
}

/* ---- output ---------------------------------------------------------------------------- */

/* A table of counted codes: text lines or a JSON array of {key, key_name, count}. */
/* The name of a code, NULL when unknown. */
typedef const char *namer(const struct opts *o, int v, const umt_trace *t);

static void code_table(const struct opts *o, struct jw *j, const char *title, const char *key,
                       const uint64_t *counts, namer *name, const umt_trace *t)
{
	size_t n;
	struct entry *e = sorted(counts, &n);
	if (o->json)
		jw_open(j, title, '[');
	else
		out_printf("%s\n", title);
	for (size_t i = 0; i < n; i++) {
		const char *nm = name(o, e[i].code, t);
		if (o->json) {
			jw_open(j, NULL, '{');
			jw_named(j, key, e[i].code, nm);
			jw_u64(j, "count", e[i].count);
			jw_close(j, '}');
			continue;
		}
		out_spaces(2);
		out_u64_pad(e[i].count, 12);
		out_spaces(2);
		out_named(e[i].code, nm);
		out_char('\n');
	}
	if (o->json)
		jw_close(j, ']');
	free(e);
}

/*
 * A table of counts by name (Zydis mnemonics and categories, the library's
 * categories): text lines "count name", or a JSON array of {key, count},
 * most frequent first.
 */
static void name_table(const struct opts *o, struct jw *j, const char *title, const char *key,
                       const uint64_t *counts, size_t n, const char *(*name)(unsigned))
{
	struct entry *e = malloc((n ? n : 1) * sizeof *e);
	size_t k = 0;
	for (size_t c = 0; e && c < n; c++)
		if (counts[c] && name((unsigned)c))
			e[k++] = (struct entry){(int)c, counts[c]};
	if (e)
		qsort(e, k, sizeof *e, by_count);
	if (o->json)
		jw_open(j, title, '[');
	else
		out_printf("%s\n", title);
	for (size_t i = 0; i < k; i++) {
		if (o->json) {
			jw_open(j, NULL, '{');
			jw_str(j, key, name((unsigned)e[i].code));
			jw_u64(j, "count", e[i].count);
			jw_close(j, '}');
		} else {
			out_spaces(2);
			out_u64_pad(e[i].count, 12);
			out_spaces(2);
			out_str(name((unsigned)e[i].code));
			out_char('\n');
		}
	}
	if (o->json)
		jw_close(j, ']');
	free(e);
}

static const char *semantic_name(unsigned category)
{
	return umt_sem_category_name((int)category);
}

static const char *mn(const struct opts *o, int v, const umt_trace *t)
{
	(void)t;
	return mnemonic_name(o, v);
}

static const char *cat(const struct opts *o, int v, const umt_trace *t)
{
	(void)t;
	return category_name(o, v);
}

static const char *sys(const struct opts *o, int v, const umt_trace *t)
{
	return syscall_name(o, t, v);
}

static void line(const char *label, uint64_t v)
{
	out_str_pad(label, 26);
	out_u64_pad(v, 12);
	out_char('\n');
}

/* An entry of a section: indented by two. */
static void line2(const char *label, uint64_t v)
{
	char l[64];
	snprintf(l, sizeof l, "  %s", label);
	line(l, v);
}

static void print_stats(umt_trace *t, const struct opts *o, const struct stats *s)
{
	struct jw j;
	uint64_t threads = umt_thread_count(t);
	if (o->json) {
		jw_begin(&j);
		jw_u64(&j, "records", s->records);
		jw_u64(&j, "bad_records", s->bad_records);
		jw_open(&j, "by_type", '{');
		for (int ty = 0; ty < UMT_REC_TYPE_LIMIT; ty++)
			if (umt_rec_type_name(ty))
				jw_u64(&j, umt_rec_type_name(ty), s->by_type[ty]);
		jw_close(&j, '}');
		jw_open(&j, "by_thread", '[');
	} else {
		line("records", s->records);
		if (s->bad_records)
			line("  unreadable", s->bad_records);
		out_str("by type\n");
		for (int ty = 0; ty < UMT_REC_TYPE_LIMIT; ty++)
			if (umt_rec_type_name(ty))
				line2(umt_rec_type_name(ty), s->by_type[ty]);
		out_str("by thread\n");
	}
	for (uint64_t th = 0; th < threads; th++) {
		const umt_thread_rec *row;
		int32_t tid = umt_thread_get(t, th, &row) == 0 ? row->WinTID : 0;
		if (o->json) {
			jw_open(&j, NULL, '{');
			jw_u64(&j, "thread_id", th);
			jw_i64(&j, "win_tid", tid);
			jw_u64(&j, "records", s->by_thread[th]);
			jw_close(&j, '}');
		} else {
			char label[64];
			snprintf(label, sizeof label, "  %llu (win_tid %d)", (unsigned long long)th, tid);
			line(label, s->by_thread[th]);
		}
	}
	if (o->json) {
		jw_close(&j, ']');
		jw_u64(&j, "other_thread_records", s->other_thread);
		jw_u64(&j, "instructions", s->instructions);
		jw_u64(&j, "undecoded_instructions", s->undecoded);
	} else {
		if (s->other_thread)
			line("  (ThreadID outside the table)", s->other_thread);
		line("instructions", s->instructions);
		if (s->undecoded)
			line("  undecoded", s->undecoded);
	}
	if (o->json || o->names) { /* XED's numbers, named by --xed-dir */
		code_table(o, &j, o->json ? "mnemonics" : "by mnemonic", "mnemonic", s->mnemonic, mn,
		           t);
		code_table(o, &j, o->json ? "categories" : "by category", "category", s->category,
		           cat, t);
	}
	if (o->json || !o->names) { /* without XED's headers: the code bytes' names */
		name_table(o, &j, o->json ? "zydis_mnemonics" : "by mnemonic (Zydis)",
		           "zydis_mnemonic", s->zydis_mnemonic, CODES, umt_sem_mnemonic_name);
		name_table(o, &j, o->json ? "zydis_categories" : "by category (Zydis)",
		           "zydis_category", s->zydis_category, 256, umt_sem_zydis_category_name);
	}
	name_table(o, &j, o->json ? "semantic_categories" : "by control flow", "category",
	           s->semantic, UMT_SEM_CATEGORY_COUNT, semantic_name);
	if (o->json)
		jw_u64(&j, "undecodable_code", s->undecodable_code);
	else if (s->undecodable_code)
		line("code bytes not decoded", s->undecodable_code);
	code_table(o, &j, o->json ? "syscalls" : "syscalls by unified ID", "uniform_id", s->syscall,
	           sys, t);
	if (o->json) {
		jw_open(&j, "memory", '{');
		jw_u64(&j, "reads", s->reads);
		jw_u64(&j, "read_bytes", s->read_bytes);
		jw_u64(&j, "writes", s->writes);
		jw_u64(&j, "written_bytes", s->written_bytes);
		jw_close(&j, '}');
		jw_end(&j);
	} else {
		out_str("memory\n");
		line("  reads", s->reads);
		line("  bytes read", s->read_bytes);
		line("  writes", s->writes);
		line("  bytes written", s->written_bytes);
	}
}

int cmd_stats(umt_trace *t, const struct opts *o)
{
	struct stats s;
	memset(&s, 0, sizeof s);
	uint64_t threads = umt_thread_count(t);
	s.by_thread = calloc(threads ? threads : 1, sizeof *s.by_thread);
	s.mnemonic = calloc(CODES, sizeof *s.mnemonic);
	s.category = calloc(CODES, sizeof *s.category);
	s.syscall = calloc(CODES, sizeof *s.syscall);
	s.zydis_mnemonic = calloc(CODES, sizeof *s.zydis_mnemonic);
	int status = EXIT_OK;
	if (!s.by_thread || !s.mnemonic || !s.category || !s.syscall || !s.zydis_mnemonic) {
		report("out of memory");
		status = EXIT_BAD_TRACE;
	} else {
		status = count_records(t, o, &s);
		if (status == EXIT_OK || o->keep_going) {
			int st = count_syscalls(t, o, &s);
			status = status ? status : st;
		}
		if (status == EXIT_OK || o->keep_going)
			print_stats(t, o, &s);
	}
	free(s.by_thread);
	free(s.mnemonic);
	free(s.category);
	free(s.syscall);
	free(s.zydis_mnemonic);
	return status;
}
