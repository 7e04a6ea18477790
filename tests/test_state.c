/*
 * src/index registers: umt_state_at() and umt_reg_history_*() against a
 * brute-force forward scan written here independently of the index code,
 * through the reader's public API (umt_decoded_slot_group, umt_lc_slot_value,
 * umt_context_map_reg, umt_rec_context), applying index.h section 1 record
 * by record:
 *   - phase 0 of a record: flag 0x02 makes every byte unknown (source,
 *     last write and last change: the record); a context record's dump is
 *     written; trusted before values (slots of the before groups) observe;
 *   - phase 1: trusted after values are written (observed under a false
 *     condition), a 4-byte output of a 64-bit record with flag 0x08 zeroes
 *     the upper half of its 8-byte largest register, untrusted outputs are
 *     clobbered (not under a false condition);
 *   - a write changes a byte when it was unknown, or differs, or the write
 *     is a clobber;
 *   - the state at N of thread T: T's records before N, then N's phase 0
 *     when N is T's.
 * Traces: umtgen traces (64-bit, several seeds and threads, both flavours)
 * and random traces written here with 32-bit, 64-bit and mixed threads,
 * partial registers (al, ah, ax, eax, r8d), zero-extending rows, every exec
 * flag and every context record type.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "gen/jsonl.h"
#include "umtrace/index.h"

/* ---- the brute force ------------------------------------------------------------------- */

#define DUMP_MAX 4096

struct bstate {
	uint8_t val[DUMP_MAX], known[DUMP_MAX];
	uint64_t src[DUMP_MAX], lw[DUMP_MAX], lc[DUMP_MAX];
	int mode64;
	int started; /* a record of the thread was applied */
};

/* A write of a register the history tests follow. */
struct bev {
	uint64_t id, thread;
	int reg;
	uint32_t size;
	uint8_t val[64], known[64];
	int changed;
};

#define NFOLLOW 10

struct model {
	umt_trace *t;
	uint32_t dump;
	int exec_version;
	struct bstate *th; /* per thread */
	uint64_t nthreads;
	int follow[NFOLLOW]; /* registers whose writes are kept, -1 when not in the map */
	struct bev *ev[NFOLLOW];
	size_t nev[NFOLLOW], cap[NFOLLOW];
};

static void bs_clear(struct bstate *s)
{
	memset(s, 0, sizeof *s);
	for (int b = 0; b < DUMP_MAX; b++)
		s->src[b] = s->lw[b] = s->lc[b] = UMT_NO_RECORD;
}

static void model_init(struct model *m, umt_trace *t)
{
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(t, &info), 0);
	m->t = t;
	m->dump = info.dump_size;
	assert_true(m->dump <= DUMP_MAX);
	m->exec_version = info.exec_version;
	m->nthreads = umt_thread_count(t);
	m->th = malloc((m->nthreads + 1) * sizeof *m->th);
	for (uint64_t i = 0; i < m->nthreads; i++)
		bs_clear(&m->th[i]);
	static const char *const names[NFOLLOW] = {"rax", "eax", "ah", "al", "esp", "rflags",
	                                           "xmm0", "r8d", "rcx", "bx"};
	for (int i = 0; i < NFOLLOW; i++) {
		m->follow[i] = umt_reg_by_name(t, names[i]);
		m->ev[i] = NULL;
		m->nev[i] = m->cap[i] = 0;
	}
}

static void model_free(struct model *m)
{
	free(m->th);
	for (int i = 0; i < NFOLLOW; i++)
		free(m->ev[i]);
}

static void bwrite(struct bstate *s, uint32_t b, const uint8_t *v, uint64_t id)
{
	if (v == NULL || !s->known[b] || s->val[b] != *v)
		s->lc[b] = id;
	s->lw[b] = id;
	s->val[b] = v ? *v : 0;
	s->known[b] = v != NULL;
	s->src[b] = id;
}

/* Where slot register @p reg goes in the record's map; false when it does not. */
static bool bplace(const struct model *m, int reg, int mode64, uint32_t *off, uint32_t *size,
                   int *largest)
{
	umt_reg_desc d;
	if (umt_context_map_reg(m->t, reg, &d) != 0 || !(mode64 ? d.in64 : d.in32))
		return false;
	umt_reg_info ri = mode64 ? d.map64 : d.map32;
	if (ri.Offset + ri.Size > m->dump)
		return false;
	*off = ri.Offset;
	*size = ri.Size;
	*largest = reg;
	umt_reg_desc l;
	if (umt_context_map_reg(m->t, ri.EffLargest, &l) == 0 && (mode64 ? l.in64 : l.in32)) {
		umt_reg_info li = mode64 ? l.map64 : l.map32;
		if (li.Offset <= ri.Offset && ri.Offset + ri.Size <= li.Offset + li.Size &&
		    li.Offset + li.Size <= m->dump)
			*largest = ri.EffLargest;
	}
	return true;
}

static void bphase0(const struct model *m, struct bstate *s, const umt_rec *r)
{
	s->mode64 = r->flags & 1;
	s->started = 1;
	if (r->flags & UMT_EXEC_F_INSTR_OFF)
		for (uint32_t b = 0; b < m->dump; b++)
			bwrite(s, b, NULL, r->id);
	if (umt_rec_type_has_context(r->type)) {
		umt_context c;
		assert_int_equal(umt_rec_context(m->t, r, &c), 0);
		for (uint32_t b = 0; b < m->dump; b++)
			bwrite(s, b, &c.regs[b], r->id);
	}
	umt_ins_exec x;
	if (r->type != UMT_REC_INSTRUCTION || umt_rec_ins_exec(m->t, r, &x) != 0 ||
	    !(umt_exec_reliability(m->exec_version, r->flags) & UMT_RELIABLE_INPUTS))
		return;
	for (unsigned k = 0; k < x.dec.ins->LCCount; k++) {
		const umt_lc_slot *sl = umt_decoded_slot(&x.dec, k);
		uint32_t off, size;
		int largest;
		umt_value v;
		if (umt_decoded_slot_group(&x.dec, k) == UMT_SLOT_GROUP_AFTER || sl->AddrWidth ||
		    sl->ValueSize <= 0 || !bplace(m, sl->RegName, s->mode64, &off, &size, &largest))
			continue;
		assert_int_equal(umt_lc_slot_value(&x, k, &v, NULL), 0);
		for (uint32_t i = 0; i < size && i < v.size; i++) {
			s->val[off + i] = v.data[i];
			s->known[off + i] = 1;
			s->src[off + i] = r->id;
		}
	}
}

static void bphase1(const struct model *m, struct bstate *s, const umt_rec *r)
{
	umt_ins_exec x;
	if (r->type != UMT_REC_INSTRUCTION || umt_rec_ins_exec(m->t, r, &x) != 0)
		return;
	bool out = umt_exec_reliability(m->exec_version, r->flags) & UMT_RELIABLE_OUTPUTS;
	bool executed = !(r->flags & UMT_EXEC_F_NOT_EXECUTED);
	static const uint8_t zero[8];
	for (unsigned k = 0; k < x.dec.ins->LCCount; k++) {
		const umt_lc_slot *sl = umt_decoded_slot(&x.dec, k);
		uint32_t off, size, loff, lsize;
		int largest, l2;
		umt_value v;
		if (umt_decoded_slot_group(&x.dec, k) != UMT_SLOT_GROUP_AFTER || sl->AddrWidth ||
		    sl->ValueSize <= 0 || !bplace(m, sl->RegName, s->mode64, &off, &size, &largest))
			continue;
		assert_int_equal(umt_lc_slot_value(&x, k, &v, NULL), 0);
		uint32_t n = size < v.size ? size : v.size;
		bool zext = executed && s->mode64 && n == 4 && umt_decoded_is_32in64(&x.dec) &&
		            bplace(m, largest, 1, &loff, &lsize, &l2) && lsize == 8 && loff == off;
		for (uint32_t i = 0; i < n; i++) {
			if (out && executed)
				bwrite(s, off + i, &v.data[i], r->id);
			else if (out)
				s->val[off + i] = v.data[i], s->known[off + i] = 1, s->src[off + i] = r->id;
			else if (executed)
				bwrite(s, off + i, NULL, r->id);
		}
		for (uint32_t i = 4; zext && (out || executed) && i < 8; i++)
			bwrite(s, off + i, out ? &zero[i - 4] : NULL, r->id);
	}
}

/* After record @p r of its thread: the writes of the followed registers (section 1). */
static void bevents(struct model *m, const umt_rec *r)
{
	const struct bstate *s = &m->th[r->thread_id];
	for (int i = 0; i < NFOLLOW; i++) {
		uint32_t off, size, loff, lsize;
		int largest, l2;
		if (m->follow[i] < 0 || !bplace(m, m->follow[i], s->mode64, &off, &size, &largest) ||
		    !bplace(m, largest, s->mode64, &loff, &lsize, &l2))
			continue;
		bool wrote = false, changed = false;
		for (uint32_t b = loff; b < loff + lsize; b++)
			wrote |= s->lw[b] == r->id, changed |= s->lc[b] == r->id;
		if (!wrote)
			continue;
		if (m->nev[i] == m->cap[i])
			m->ev[i] = realloc(m->ev[i], (m->cap[i] = 2 * m->cap[i] + 64) * sizeof *m->ev[i]);
		struct bev *e = &m->ev[i][m->nev[i]++];
		e->id = r->id;
		e->thread = (uint64_t)r->thread_id;
		e->reg = largest;
		e->size = lsize;
		memcpy(e->val, s->val + loff, lsize);
		memcpy(e->known, s->known + loff, lsize);
		e->changed = changed;
	}
}

/* ---- traces ----------------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* The register named @p name in the map the writer uses, -1 when it has none
 * (the older XED numbering names no register past GSBASE: no xmm). */
static int16_t reg_named(const umt_context_map *m, const char *name)
{
	for (int r = 0; r < m->ElemCount; r++)
		if (strncmp(m->StrName[r], name, UMT_REG_NAME_SIZE) == 0)
			return (int16_t)r;
	return -1;
}

/* A row shape: register slots by name (before group, then after group), flags. */
struct shape {
	const char *before[3], *wonly[2], *after[3];
	uint8_t flags;
	int mem; /* a MEM0 slot among the before ones */
};

static const struct shape shapes[] = {
	{{"rax"}, {NULL}, {"rax"}, 0, 0},
	{{"eax"}, {NULL}, {"eax"}, UMT_DEC_F_32IN64, 0},
	{{NULL}, {NULL}, {"al"}, 0, 0},
	{{"ah"}, {NULL}, {"ah"}, 0, 0},
	{{"ax", "rbx"}, {NULL}, {"ax", "rflags"}, 0, 0},
	{{"xmm1"}, {"xmm0"}, {"xmm0"}, 0, 0},
	{{"rcx"}, {NULL}, {"ecx", "edx"}, UMT_DEC_F_32IN64, 1},
	{{NULL}, {"r8d"}, {"r8d"}, UMT_DEC_F_32IN64, 0},
	{{"esp"}, {NULL}, {"esp"}, 0, 1},
	{{NULL}, {NULL}, {NULL}, 0, 0},
	{{"rax", "rdx"}, {"rdx"}, {"rdx", "rax"}, 0, 0},
	{{"ebx"}, {NULL}, {"bx"}, UMT_DEC_F_32IN64, 0},
};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static uint16_t add_slot(umt_decoded_ins *d, umt_lc_slot *s, const umt_context_map *m,
                         const char *name, uint16_t off)
{
	if (name && reg_named(m, name) < 0)
		return off;
	umt_lc_slot *x = &s[d->LCCount++];
	x->RegName = name ? reg_named(m, name) : (int16_t)UMT_REG_MEM0;
	x->CommonRegName = name ? m->CommonName[x->RegName] : x->RegName;
	int size = 8;
	if (name) {
		const umt_reg_info *ri = &m->RegMap64[x->RegName];
		size = ri->Size ? ri->Size : m->RegMap32[x->RegName].Size;
	}
	x->ValueSize = (int16_t)size;
	x->Offset = off;
	x->AddrWidth = name ? 0 : 8;
	return (uint16_t)(off + size + (name ? 0 : 8));
}

static int64_t add_shape(umt_writer *w, const umt_context_map *m, const struct shape *sh,
                         uint16_t *lc_size)
{
	umt_decoded_ins d;
	umt_lc_slot s[12];
	memset(&d, 0, sizeof d);
	memset(s, 0, sizeof s);
	d.Flags = sh->flags;
	d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	uint16_t off = 0;
	for (int i = 0; i < 3 && sh->before[i]; i++)
		off = add_slot(&d, s, m, sh->before[i], off);
	if (sh->mem)
		off = add_slot(&d, s, m, NULL, off);
	d.FirstOutSlot = d.LCCount;
	for (int i = 0; i < 2 && sh->wonly[i]; i++)
		off = add_slot(&d, s, m, sh->wonly[i], off);
	d.FirstAfterSlot = d.LCCount;
	for (int i = 0; i < 3 && sh->after[i]; i++)
		off = add_slot(&d, s, m, sh->after[i], off);
	d.LCSize = off;
	*lc_size = off;
	return fx_must_add_row(w, &d, s, "shape", 0, 0);
}

/* A context record of thread @p th with a random dump. */
static void add_context(umt_writer *w, uint8_t type, int32_t th, uint8_t flags, uint32_t dump)
{
	uint8_t regs[DUMP_MAX];
	for (uint32_t i = 0; i < dump; i++)
		regs[i] = (uint8_t)(rnd() % 4 == 0 ? 0 : rnd());
	umt_context_desc c = {regs, dump, NULL, 0};
	umt_exec_desc e = {.type = type, .flags = flags, .thread_id = th, .syscall_id = -1,
	                   .context = &c};
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

/* Exec flags of a record of thread @p th: thread 0 64-bit, 1 32-bit, others mixed. */
static uint8_t random_flags(int32_t th)
{
	uint8_t f = th == 0 ? 1 : th == 1 ? 0 : (uint8_t)(rnd() & 1);
	static const uint8_t rare[] = {0x02, 0x04, 0x10, 0x20, 0x40, 0x80};
	for (size_t i = 0; i < sizeof rare; i++)
		if (rnd() % 60 == 0)
			f |= rare[i];
	return f;
}

/*
 * A random trace of @p records records over @p threads threads: every shape,
 * random values, every exec flag, context records of every type.
 */
static void write_random(const char *dir, int flavour, unsigned threads, unsigned records,
                         uint64_t seed)
{
	rng = seed * 0x2545f4914f6cdd1dull + 1;
	umt_writer_options o;
	umt_writer_options_init(&o, flavour);
	umt_context_map m;
	umt_context_map_default(&m, o.ins_record_version, o.xml.xed_version);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	for (unsigned i = 0; i < threads; i++)
		assert_int_equal(umt_writer_add_thread(w, (int32_t)(100 + i), 0x7000 + i * 0x1000, NULL), 0);
	int64_t ids[NSHAPES];
	uint16_t lcs[NSHAPES];
	for (size_t i = 0; i < NSHAPES; i++)
		ids[i] = add_shape(w, &m, &shapes[i], &lcs[i]);
	for (unsigned i = 0; i < threads; i++)
		add_context(w, UMT_REC_THREAD_BEGIN, (int32_t)i, random_flags((int32_t)i) & 1, m.DumpSize);
	static const uint8_t ctx_types[] = {UMT_REC_SYSCALL_ENTRY, UMT_REC_SYSCALL_EXIT,
		UMT_REC_CTX_APC, UMT_REC_CTX_EXCEPTION, UMT_REC_CTX_CALLBACK, UMT_REC_CTX_UNKNOWN};
	uint8_t lc[256];
	while (umt_writer_exec_count(w) < records) {
		int32_t th = (int32_t)(rnd() % threads);
		uint8_t flags = random_flags(th);
		if (rnd() % 40 == 0) {
			add_context(w, ctx_types[rnd() % sizeof ctx_types], th, flags, m.DumpSize);
			continue;
		}
		size_t k = rnd() % NSHAPES;
		for (unsigned i = 0; i < lcs[k]; i++)
			lc[i] = (uint8_t)(rnd() % 3 == 0 ? 0 : rnd());
		umt_exec_desc e = {.type = UMT_REC_INSTRUCTION, .flags = flags, .thread_id = th,
		                   .ins_id = ids[k], .lc = lc, .lc_size = lcs[k]};
		assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	}
	assert_int_equal(umt_writer_finish(w), 0);
}

/* ---- states at sampled records ---------------------------------------------------------- */

/* A state query: record and thread. */
struct probe {
	uint64_t at, thread;
};

static int cmp_probe(const void *a, const void *b)
{
	const struct probe *x = a, *y = b;
	return (x->at > y->at) - (x->at < y->at);
}

static void expect_state(umt_index *ix, umt_state *st, const struct model *m,
                         const struct bstate *want, uint64_t at, uint64_t thread)
{
	int rc = umt_state_at(ix, at, (int64_t)thread, st);
	if (rc)
		print_error("state at %llu thread %llu: %s\n", (unsigned long long)at,
		            (unsigned long long)thread, umt_errmsg());
	assert_int_equal(rc, 0);
	assert_int_equal(st->size, m->dump);
	assert_int_equal(st->thread, thread);
	for (uint32_t b = 0; b < m->dump; b++) {
		if (st->known[b] != want->known[b] || st->data[b] != want->val[b] ||
		    st->sources[b] != want->src[b])
			print_error("state at %llu thread %llu: byte %u is %02x/%u from %lld, want "
			            "%02x/%u from %lld\n", (unsigned long long)at, (unsigned long long)thread,
			            b, st->data[b], st->known[b], (long long)st->sources[b], want->val[b],
			            want->known[b], (long long)want->src[b]);
		assert_int_equal(st->known[b], want->known[b]);
		assert_int_equal(st->data[b], want->val[b]);
		assert_int_equal(st->sources[b], want->src[b]);
	}
	assert_int_equal(st->is_64bit, want->mode64);
}

/*
 * The probes, sorted: random records with random threads, every thread at
 * every thread begin, right after every context record and at every flagged
 * record; checked during one forward scan of the brute force.
 */
static void check_states(umt_index *ix, struct model *m, struct probe *pr, size_t n)
{
	qsort(pr, n, sizeof *pr, cmp_probe);
	umt_state st;
	assert_int_equal(umt_state_init(ix, &st), 0);
	struct bstate *want = malloc(sizeof *want);
	umt_exec_iter it;
	umt_rec r;
	size_t i = 0;
	assert_int_equal(umt_exec_iter_init(&it, m->t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		for (; i < n && pr[i].at == r.id; i++) {
			*want = m->th[pr[i].thread];
			if ((uint64_t)r.thread_id == pr[i].thread)
				bphase0(m, want, &r);
			else if (!want->started) /* no record of the thread yet: the map of r's */
				want->mode64 = r.flags & 1;
			expect_state(ix, &st, m, want, r.id, pr[i].thread);
		}
		if (r.thread_id < 0 || (uint64_t)r.thread_id >= m->nthreads)
			continue;
		bphase0(m, &m->th[r.thread_id], &r);
		bphase1(m, &m->th[r.thread_id], &r);
		bevents(m, &r);
	}
	assert_int_equal(i, n);
	free(want);
	umt_state_release(&st);
}

static size_t make_probes(umt_trace *t, struct probe **out, size_t random)
{
	uint64_t count = umt_exec_count(t), threads = umt_thread_count(t);
	size_t n = 0, cap = random + 64;
	struct probe *pr = malloc(cap * sizeof *pr);
	for (size_t k = 0; k < random; k++)
		pr[n++] = (struct probe){rnd() % count, rnd() % threads};
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		bool ctx = umt_rec_type_has_context(r.type);
		if (!ctx && !(r.flags & 0xf6) && r.id + 1 != count)
			continue;
		for (uint64_t th = 0; th < threads; th++) {
			if (n + 2 > cap)
				pr = realloc(pr, (cap *= 2) * sizeof *pr);
			pr[n++] = (struct probe){r.id, th};
			if (ctx && r.id + 1 < count)
				pr[n++] = (struct probe){r.id + 1, th};
		}
	}
	*out = pr;
	return n;
}

/* ---- register histories ----------------------------------------------------------------- */

static void expect_history(umt_index *ix, const struct model *m, int f,
                           const umt_reg_history_query *q)
{
	const struct bev *ev = m->ev[f];
	size_t n = m->nev[f], got = 0;
	umt_reg_history *h;
	int rc = umt_reg_history_open(ix, q, &h);
	if (rc)
		print_error("history open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	umt_reg_write w;
	for (size_t k = 0; k < n; k++) {
		const struct bev *e = &ev[q->reverse ? n - 1 - k : k];
		if (e->id < q->from || e->id >= q->to || (q->thread >= 0 && e->thread != (uint64_t)q->thread) ||
		    (q->changes && !e->changed))
			continue;
		if (q->limit && got == q->limit)
			break;
		rc = umt_reg_history_next(h, &w);
		if (rc != 1 || w.id != e->id)
			print_error("history of %d thread %lld [%llu, %llu) rev %d changes %d lim %llu: #%zu "
			            "is %d/%llu, want %llu (%s)\n", q->reg, (long long)q->thread,
			            (unsigned long long)q->from, (unsigned long long)q->to, q->reverse,
			            q->changes, (unsigned long long)q->limit, got, rc,
			            (unsigned long long)w.id, (unsigned long long)e->id, umt_errmsg());
		assert_int_equal(rc, 1);
		assert_int_equal(w.id, e->id);
		assert_int_equal(w.thread, e->thread);
		assert_int_equal(w.reg, e->reg);
		assert_int_equal(w.size, e->size);
		assert_int_equal(w.changed, e->changed);
		assert_memory_equal(w.known, e->known, e->size);
		for (uint32_t b = 0; b < e->size; b++)
			assert_int_equal(w.known[b] ? w.value[b] : 0, e->known[b] ? e->val[b] : 0);
		got++;
	}
	rc = umt_reg_history_next(h, &w);
	if (rc != 0)
		print_error("history of %d: one too many: %llu\n", q->reg, (unsigned long long)w.id);
	assert_int_equal(rc, 0);
	umt_reg_history_close(h);
}

/* Random history queries of the followed registers, and every thread's whole history. */
static void check_histories(umt_index *ix, const struct model *m, unsigned rounds)
{
	uint64_t count = umt_exec_count(m->t);
	for (unsigned r = 0; r < rounds; r++) {
		int f = (int)(rnd() % NFOLLOW);
		if (m->follow[f] < 0)
			continue;
		umt_reg_history_query q;
		umt_reg_history_query_init(&q, m->follow[f]);
		q.reverse = (int)(rnd() & 1);
		q.changes = rnd() % 3 == 0;
		if (r % 4 != 0)
			q.thread = (int64_t)(rnd() % m->nthreads);
		if (rnd() % 2) {
			q.from = rnd() % count;
			q.to = q.from + rnd() % (count / 4 + 1);
		}
		if (rnd() % 3 == 0)
			q.limit = 1 + rnd() % 4;
		expect_history(ix, m, f, &q);
	}
}

/* Builds the index of the trace in @p trace on @p threads threads (1: every range of
 * the build follows absolute states; more: relative ones, composed) and checks states
 * at its probes. */
static void check_trace(const char *trace, size_t random, unsigned threads)
{
	char *idx = fx_path(trace, "idx");
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = fx_must_build_index(t, idx, threads, 0, UMT_INDEX_SECTIONS_ALL);
	struct model m;
	model_init(&m, t);
	struct probe *pr;
	size_t n = make_probes(t, &pr, random);
	check_states(ix, &m, pr, n);
	check_histories(ix, &m, 300);
	int rc = umt_index_verify(ix);
	if (rc)
		print_error("verify: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	free(pr);
	model_free(&m);
	umt_index_close(ix);
	umt_trace_close(t);
	free(idx);
}

static void test_states_random(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t");
	static const struct { int flavour; unsigned threads, records; } runs[] = {
		{UMT_FLAVOUR_2015, 3, 12000}, {UMT_FLAVOUR_2014, 4, 9000}, {UMT_FLAVOUR_2015, 1, 30000},
	};
	for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		write_random(trace, runs[i].flavour, runs[i].threads, runs[i].records, 7 + i);
		check_trace(trace, 400, 2);
		fx_rmtree(trace);
	}
	fx_rmtree(dir);
	free(dir), free(trace);
}

static void test_states_generated(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t");
	static const char *const args[] = {
		"--records 60000 --threads 3 --seed 41",
		"--records 40000 --threads 1 --seed 42",
		"--records 30000 --threads 5 --seed 43 --flavour 2014",
		"--records 30000 --threads 3 --seed 44 --code32",
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		fx_umtgen(trace, args[i]);
		check_trace(trace, 400, i % 2 ? 1 : 2);
		fx_rmtree(trace);
	}
	fx_rmtree(dir);
	free(dir), free(trace);
}


/* ---- against umtgen's ground truth (docs/umtgen.md) ------------------------------------ */

/*
 * One "regs" line of the truth: the true register file of the thread just
 * before the record. Every register the state knows whole must hold the true
 * value; the truth may know more (registers the trace has not observed yet).
 * rip/eip is not compared: instructions change it without recording it, so
 * its latest observation (a dump) is not its value (index.h section 1). Nor
 * are the records whose dump is the state after them (syscall exits, context
 * changes): section 1 counts a record's dump at the record, the truth is the
 * state before it.
 * @return the registers compared.
 */
static unsigned truth_regs(umt_index *ix, umt_trace *t, umt_state *st, const struct jv *v)
{
	uint64_t id, thread;
	const struct jv *regs = json_get(v, "regs");
	assert_int_equal(json_u64(v, "id", &id), 0);
	assert_int_equal(json_u64(v, "thread_id", &thread), 0);
	assert_non_null(regs);
	umt_rec rec;
	assert_int_equal(umt_exec_get(t, id, &rec), 0);
	if (rec.type == UMT_REC_SYSCALL_EXIT || rec.type >= UMT_REC_CTX_APC)
		return 0;
	assert_int_equal(umt_state_at(ix, id, (int64_t)thread, st), 0);
	unsigned compared = 0;
	for (int i = 0; i < regs->n; i++) {
		umt_reg_value r;
		uint8_t want[64];
		int reg = umt_reg_by_name(t, regs->keys[i]);
		if (reg < 0 || !strcmp(regs->keys[i], "rip") || !strcmp(regs->keys[i], "eip") ||
		    umt_state_reg(st, reg, &r) != 0 || r.known_bytes != r.size || r.size > sizeof want)
			continue;
		const char *text = regs->items[i].text;
		if (strncmp(text, "0x", 2) == 0) { /* a number of up to 8 bytes */
			uint64_t x = strtoull(text, NULL, 16);
			memcpy(want, &x, 8);
		} else {
			assert_int_equal(json_hex(text, want, sizeof want), (long)r.size);
		}
		if (memcmp(r.data, want, r.size) != 0)
			print_error("record %llu thread %llu: %s is not the truth's %s (from record %llu)\n",
			            (unsigned long long)id, (unsigned long long)thread, regs->keys[i], text,
			            (unsigned long long)r.source);
		assert_memory_equal(r.data, want, r.size);
		compared++;
	}
	return compared;
}

/* What check_truth() passes truth_regs() for each "regs" line of the truth, and its counts. */
struct truth_check {
	const struct fx_gen *g;
	umt_state st;
	unsigned lines, regs;
};

static void truth_check_line(const struct jv *v, void *arg)
{
	struct truth_check *c = arg;
	const struct jv *kind = json_get(v, "kind");
	if (kind && kind->text && !strcmp(kind->text, "regs"))
		c->regs += truth_regs(c->g->ix, c->g->t, &c->st, v), c->lines++;
}

static void check_truth(const char *args)
{
	struct fx_gen g;
	fx_gen_truth(&g, args, -1);
	struct truth_check c = {.g = &g};
	assert_int_equal(umt_state_init(g.ix, &c.st), 0);
	assert_true(json_each_line(g.truth, truth_check_line, &c) >= 0);
	print_message("truth %s: %u register files, %u registers compared\n", args, c.lines,
	              c.regs);
	assert_true(c.lines > 0 && c.regs > c.lines);
	umt_state_release(&c.st);
	fx_gen_free(&g);
}

static void test_truth(void **state)
{
	(void)state;
	check_truth("--records 20000 --threads 3 --seed 51");
	check_truth("--records 15000 --threads 2 --seed 52 --flavour 2014");
	check_truth("--records 15000 --threads 4 --seed 53 --code32");
	check_truth("--records 8000 --threads 3 --seed 54 --abort");
	check_truth("--records 8000 --threads 2 --seed 55 --syscall-rate 40");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_random),
		cmocka_unit_test(test_states_generated),
		cmocka_unit_test(test_truth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
