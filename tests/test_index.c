/*
 * src/index: building, opening and querying the memory index, checked
 * against a brute-force scan of the trace through the public access API
 * (umt_access_iter), with the definitions of index.h section 1 written out
 * here independently of the index code:
 *   - indexed: the address is trusted, and the value too unless it is a write;
 *   - history: every indexed access overlapping the range, ordered by
 *     (record, phase, address, locator), reversed with --reverse;
 *   - memory at N: per byte the last observation in (record, phase,
 *     locator) order before (N, phase 1); a write with an untrusted value
 *     makes the byte unknown, with that record as its source.
 *
 * Traces: a hand-built one with every edge (granule and page straddles,
 * blocks of several pages, clobbers, peeks of false conditions, the top of
 * the address space, two threads writing one address) and umtgen traces of
 * several seeds and both flavours. Indexes built with 1 and 2 threads and a
 * tiny budget are compared byte for byte; damaged indexes must fail cleanly.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "commit.h"
#include "index/runs.h"
#include "gen/jsonl.h"
#include "umtrace/index.h"

/* ---- brute force ---------------------------------------------------------------------- */

struct bf {
	umt_access *a; /* every indexed access, in (record, phase, locator) order */
	size_t n, cap;
};

static bool bf_indexed(const umt_access *a)
{
	return (a->trust & UMT_TRUST_ADDRESS) && a->size > 0 &&
	       ((a->trust & UMT_TRUST_VALUE) || a->kind == UMT_ACCESS_WRITE);
}

static void bf_load(umt_trace *t, struct bf *b)
{
	memset(b, 0, sizeof *b);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		if (umt_access_iter_init(&ai, t, &r, UMT_ACCESS_ALL) < 0)
			continue;
		while (umt_access_iter_next(&ai, &a) > 0) {
			if (!bf_indexed(&a))
				continue;
			if (b->n == b->cap) {
				b->cap = b->cap ? 2 * b->cap : 1024;
				b->a = realloc(b->a, b->cap * sizeof *b->a);
			}
			b->a[b->n++] = a;
		}
	}
}

static bool overlaps(const umt_access *a, uint64_t addr, uint64_t len)
{
	uint64_t last = a->size - 1 > UINT64_MAX - a->address ? UINT64_MAX : a->address + a->size - 1;
	return a->address <= addr + (len - 1) && last >= addr;
}

static int order(const umt_access *x, const umt_access *y)
{
	if (x->record_id != y->record_id)
		return x->record_id < y->record_id ? -1 : 1;
	if (x->phase != y->phase)
		return x->phase < y->phase ? -1 : 1;
	if (x->address != y->address)
		return x->address < y->address ? -1 : 1;
	return (x->locator > y->locator) - (x->locator < y->locator);
}
static int cmp_fwd(const void *x, const void *y) { return order(x, y); }
static int cmp_rev(const void *x, const void *y) { return order(y, x); }

/* The brute-force history of @p q into out[] (malloc'd); returns the count. */
static size_t bf_history(const struct bf *b, const umt_history_query *q, umt_access **out)
{
	umt_access *r = malloc((b->n + 1) * sizeof *r);
	size_t n = 0;
	for (size_t i = 0; i < b->n; i++) {
		const umt_access *a = &b->a[i];
		if (a->record_id < q->from || a->record_id >= q->to || !(q->kinds & a->kind) ||
		    (q->thread >= 0 && a->thread_id != q->thread) || !overlaps(a, q->address, q->length))
			continue;
		r[n++] = *a;
	}
	qsort(r, n, sizeof *r, q->reverse ? cmp_rev : cmp_fwd);
	if (q->limit && n > q->limit)
		n = q->limit;
	*out = r;
	return n;
}

static void bf_mem(const struct bf *b, uint64_t at, uint64_t addr, uint64_t len, uint8_t *data,
                   uint8_t *known, uint64_t *src)
{
	for (uint64_t i = 0; i < len; i++)
		data[i] = known[i] = 0, src[i] = UMT_NO_RECORD;
	for (size_t k = 0; k < b->n; k++) {
		const umt_access *a = &b->a[k];
		if (a->record_id > at || (a->record_id == at && a->phase == 1))
			break; /* in (record, phase) order */
		if (!overlaps(a, addr, len))
			continue;
		uint64_t from = a->address > addr ? a->address - addr : 0;
		for (uint64_t i = from; i < len; i++) {
			uint64_t x = addr + i;
			if (x - a->address >= a->size)
				break;
			src[i] = a->record_id;
			known[i] = (a->trust & UMT_TRUST_VALUE) != 0;
			data[i] = known[i] ? a->data[x - a->address] : 0;
		}
	}
}

/* ---- comparing the index with the brute force -------------------------------------------- */

static void expect_history(umt_index *ix, const struct bf *b, const umt_history_query *q)
{
	umt_access *want;
	size_t n = bf_history(b, q, &want), got = 0;
	umt_history *h;
	assert_int_equal(umt_history_open(ix, q, &h), 0);
	umt_access a;
	int rc;
	while ((rc = umt_history_next(h, &a)) > 0) {
		if (got >= n || order(&a, &want[got]) != 0 || a.size != want[got].size ||
		    a.kind != want[got].kind || a.thread_id != want[got].thread_id ||
		    memcmp(a.data, want[got].data, a.size) != 0)
			print_error("history 0x%llx:%llu [%llu, %llu) kinds %u thread %lld rev %d lim %llu: "
			            "#%zu is record %llu locator %u, want %s%llu\n",
			            (unsigned long long)q->address, (unsigned long long)q->length,
			            (unsigned long long)q->from, (unsigned long long)q->to, q->kinds,
			            (long long)q->thread, q->reverse, (unsigned long long)q->limit, got,
			            (unsigned long long)a.record_id, a.locator, got < n ? "" : "none ",
			            got < n ? (unsigned long long)want[got].record_id : 0ull);
		assert_true(got < n);
		assert_int_equal(order(&a, &want[got]), 0);
		assert_int_equal(a.kind, want[got].kind);
		assert_int_equal(a.thread_id, want[got].thread_id);
		assert_int_equal(a.size, want[got].size);
		assert_memory_equal(a.data, want[got].data, a.size);
		got++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(got, n);
	umt_history_close(h);
	free(want);
}

static void expect_mem(umt_index *ix, const struct bf *b, uint64_t at, uint64_t addr, uint64_t len)
{
	uint8_t *d = malloc(len), *k = malloc(len), *wd = malloc(len), *wk = malloc(len);
	uint64_t *s = malloc(len * 8), *ws = malloc(len * 8);
	bf_mem(b, at, addr, len, wd, wk, ws);
	assert_int_equal(umt_mem_at(ix, at, addr, len, d, k, s), 0);
	for (uint64_t i = 0; i < len; i++) {
		if (d[i] != wd[i] || k[i] != wk[i] || s[i] != ws[i])
			print_error("mem at %llu of 0x%llx: byte %llu is %02x/%u from %lld, want %02x/%u from %lld\n",
			            (unsigned long long)at, (unsigned long long)addr, (unsigned long long)i,
			            d[i], k[i], (long long)s[i], wd[i], wk[i], (long long)ws[i]);
		assert_int_equal(k[i], wk[i]);
		assert_int_equal(s[i], ws[i]);
		assert_int_equal(d[i], wd[i]);
	}
	free(d), free(k), free(s), free(wd), free(wk), free(ws);
}

/* Deterministic pseudo-random numbers for the queries. */
static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Queries around every access address the brute force knows (sampled when many). */
static void random_queries(umt_index *ix, umt_trace *t, const struct bf *b, unsigned rounds)
{
	uint64_t records = umt_exec_count(t), threads = umt_thread_count(t);
	for (unsigned r = 0; r < rounds && b->n > 0; r++) {
		const umt_access *a = &b->a[rnd() % b->n];
		uint64_t len = 1 + rnd() % (r % 4 == 0 ? 300 : 16);
		uint64_t addr = a->address - (a->address >= 40 ? rnd() % 40 : 0) + rnd() % 8;
		if (addr + (len - 1) < addr)
			addr = UINT64_MAX - (len - 1);
		umt_history_query q;
		umt_history_query_init(&q, addr, len);
		q.reverse = (int)(rnd() & 1);
		if (rnd() % 3 == 0) {
			q.from = rnd() % (records + 1);
			q.to = q.from + rnd() % (records + 1);
		}
		if (rnd() % 3 == 0)
			q.kinds = (unsigned)(1 + rnd() % UMT_ACCESS_ALL);
		if (rnd() % 4 == 0)
			q.thread = (int64_t)(rnd() % (threads + 1));
		if (rnd() % 3 == 0)
			q.limit = 1 + rnd() % 3;
		expect_history(ix, b, &q);
		uint64_t at = r % 5 == 0 ? a->record_id : rnd() % records;
		if (r % 7 == 0)
			at = r % 2 ? 0 : records - 1;
		expect_mem(ix, b, at, addr, len + (r % 6 == 0 ? 4000 : 0) > UINT64_MAX - addr ? len : len + (r % 6 == 0 ? 4000 : 0));
	}
}

/* ---- traces ---------------------------------------------------------------------------- */

static umt_index *build_open(umt_trace *t, const char *dir, unsigned threads, uint64_t memory)
{
	return fx_must_build_index(t, dir, threads, memory, UMT_INDEX_SECTIONS_ALL);
}


/* ---- the hand-built trace with every edge ------------------------------------------------ */

enum { RAX = 74, RBX = 77, MEM0 = 0xffff, MEM1 = 0xfffe, NA = 0xff };
enum { STORE8, LOAD8, BIG, STORE1, N_EROWS };
#define BIG_SIZE 3000

struct erow { uint8_t first_out, first_after, count; uint16_t lc; struct { uint16_t reg, size, off; uint8_t aw; } s[4]; };
static const struct erow erows[N_EROWS] = {
	[STORE8] = {1, 2, 3, 32, {{RAX, 8, 0, 0}, {MEM0, 8, 8, 8}, {MEM0, 8, 16, 8}}},
	[LOAD8] = {1, 1, 2, 24, {{MEM0, 8, 0, 8}, {RBX, 8, 16, 0}}},
	[BIG] = {1, 2, 3, 3 * (8 + BIG_SIZE),
	         {{MEM0, BIG_SIZE, 0, 8}, {MEM1, BIG_SIZE, 8 + BIG_SIZE, 8},
	          {MEM1, BIG_SIZE, 2 * (8 + BIG_SIZE), 8}}},
	[STORE1] = {0, 1, 2, 18, {{MEM0, 1, 0, 8}, {MEM0, 1, 9, 8}}},
};

static int64_t erow_add(umt_writer *w, const struct erow *d)
{
	umt_decoded_ins dec;
	umt_lc_slot sl[4];
	memset(&dec, 0, sizeof dec);
	memset(sl, 0, sizeof sl);
	dec.LCSize = d->lc;
	dec.FirstOutSlot = d->first_out;
	dec.FirstAfterSlot = d->first_after;
	dec.LCCount = d->count;
	dec.Mem0SegSlot = dec.Mem0BaseSlot = dec.Mem0IndexSlot = dec.Mem1BaseSlot = NA;
	for (unsigned i = 0; i < d->count; i++) {
		sl[i].RegName = (int16_t)d->s[i].reg;
		sl[i].CommonRegName = (int16_t)d->s[i].reg;
		sl[i].ValueSize = (int16_t)d->s[i].size;
		sl[i].Offset = d->s[i].off;
		sl[i].AddrWidth = d->s[i].aw;
	}
	return fx_must_add_row(w, &dec, sl, "edge", 1, 0);
}

/* An instruction record of row @p row: its memory slots at a[0], a[1]... in slot order. */
static void erec(umt_writer *w, const int64_t *ids, int row, int32_t thread, uint8_t flags,
                 const uint64_t *a, uint8_t seed)
{
	static uint8_t lc[3 * (8 + BIG_SIZE)];
	const struct erow *d = &erows[row];
	unsigned k = 0;
	for (unsigned i = 0; i < d->lc; i++)
		lc[i] = (uint8_t)(seed * 31 + i * 7);
	for (unsigned i = 0; i < d->count; i++)
		if (d->s[i].aw)
			memcpy(lc + d->s[i].off, &a[k++], 8);
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_INSTRUCTION;
	e.flags = flags;
	e.thread_id = thread;
	e.ins_id = ids[row];
	e.lc = lc;
	e.lc_size = d->lc;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

static void ectx(umt_writer *w, uint8_t type, int32_t thread, const umt_mem_ref *m, uint32_t n)
{
	umt_context_desc c = {NULL, 0, m, n};
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = type;
	e.flags = 1;
	e.thread_id = thread;
	e.syscall_id = -1;
	e.context = &c;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

static uint8_t big_block[10000], small_blocks[3][64];
#define TOP 0xfffffffffffffff8ull

static void write_edge(const char *dir, int flavour)
{
	umt_writer_options o;
	umt_writer_options_init(&o, flavour);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	int32_t tid;
	assert_int_equal(umt_writer_add_thread(w, 1, 0x7000, &tid), 0);
	assert_int_equal(umt_writer_add_thread(w, 2, 0x30000, &tid), 0);
	int64_t ids[N_EROWS];
	for (int r = 0; r < N_EROWS; r++)
		ids[r] = erow_add(w, &erows[r]);
	for (size_t i = 0; i < sizeof big_block; i++)
		big_block[i] = (uint8_t)(i * 13 + 1);
	for (int b = 0; b < 3; b++)
		for (int i = 0; i < 64; i++)
			small_blocks[b][i] = (uint8_t)(0x40 * b + i);
	umt_mem_ref m0[2] = {{0x10000, sizeof big_block, big_block}, {0x7000, 8, small_blocks[0]}};
	umt_mem_ref m1[1] = {{0x30000, 64, small_blocks[1]}};
	umt_mem_ref m12[2] = {{0x10000, 16, small_blocks[2]}, {0x10004, 4, small_blocks[0]}};
	ectx(w, UMT_REC_THREAD_BEGIN, 0, m0, 2);                                  /* 0 */
	ectx(w, UMT_REC_THREAD_BEGIN, 1, m1, 1);                                  /* 1 */
	erec(w, ids, STORE8, 0, 1, (uint64_t[]){0x10008, 0x10008}, 2);           /* 2 */
	erec(w, ids, STORE8, 1, 1, (uint64_t[]){0x1003c, 0x1003c}, 3);           /* 3: straddle */
	erec(w, ids, LOAD8, 0, 1, (uint64_t[]){0x10ffc}, 4);                     /* 4: page straddle */
	erec(w, ids, BIG, 1, 1, (uint64_t[]){0x10100, 0x20ff0, 0x20ff0}, 5);     /* 5: page lists */
	erec(w, ids, STORE8, 0, 0x21, (uint64_t[]){0x10008, 0x10008}, 6);        /* 6: clobber */
	erec(w, ids, STORE8, 1, 0x11, (uint64_t[]){0x10010, 0x10010}, 7);        /* 7: not indexed */
	erec(w, ids, STORE8, 0, 0x05, (uint64_t[]){0x10008, 0x10008}, 8);        /* 8: false condition */
	erec(w, ids, STORE8, 1, 1, (uint64_t[]){TOP, TOP}, 9);                   /* 9: the top */
	erec(w, ids, LOAD8, 0, 1, (uint64_t[]){TOP + 4}, 10);                    /* 10: cut at the top */
	erec(w, ids, STORE1, 1, 1, (uint64_t[]){0x10009, 0x10009}, 11);          /* 11 */
	ectx(w, UMT_REC_SYSCALL_EXIT, 0, m12, 2);                                 /* 12: overlapping */
	erec(w, ids, LOAD8, 1, 1, (uint64_t[]){0}, 13);                          /* 13: address 0 */
	erec(w, ids, STORE8, 0, 1, (uint64_t[]){0x10008, 0x10008}, 14);          /* 14 */
	erec(w, ids, BIG, 0, 1, (uint64_t[]){0x20ff0, 0x10100, 0x10100}, 15);    /* 15 */
	/* 16: in one record, a small block after a large one wins, and the reverse */
	umt_mem_ref m16[4] = {{0x40000, 5000, big_block}, {0x40010, 8, small_blocks[1]},
	                      {0x50010, 8, small_blocks[2]}, {0x50000, 5000, big_block + 7}};
	ectx(w, UMT_REC_SYSCALL_EXIT, 1, m16, 4);
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_THREAD_END;
	e.flags = 1;
	e.thread_id = 1;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);                   /* 17 */
	e.type = UMT_REC_APP_END;
	e.thread_id = 0;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);                   /* 18 */
	assert_int_equal(umt_writer_finish(w), 0);
}

/* Every query around every edge, at every record. */
static void check_edge(int flavour)
{
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_edge(trace, flavour);
	umt_trace *t = fx_must_open_dir(trace);
	struct bf b;
	bf_load(t, &b);
	umt_index *ix = build_open(t, idx, 1, 0);
	static const uint64_t addrs[] = {0, 1, 0x7000, 0x10000, 0x10004, 0x10008, 0x10009, 0x1000f,
	                                 0x10010, 0x1003c, 0x1003f, 0x10040, 0x10100, 0x10ffc,
	                                 0x10fff, 0x11000, 0x12000, 0x12710, 0x20ff0, 0x21000,
	                                 0x21ba7, 0x30000, 0x40010, 0x41380, 0x50000, 0x50014,
	                                 TOP - 8, TOP, TOP + 4, UINT64_MAX};
	static const uint64_t lens[] = {1, 2, 8, 64, 100, 4096, 10001};
	uint64_t records = umt_exec_count(t);
	for (size_t i = 0; i < sizeof addrs / sizeof addrs[0]; i++) {
		for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
			uint64_t a = addrs[i], l = lens[j];
			if (a + (l - 1) < a)
				continue;
			for (int rev = 0; rev < 2; rev++) {
				umt_history_query q;
				umt_history_query_init(&q, a, l);
				q.reverse = rev;
				q.kinds = UMT_ACCESS_ALL;
				expect_history(ix, &b, &q);
				q.kinds = UMT_ACCESS_WRITE;
				q.to = 9;
				q.limit = 1;
				expect_history(ix, &b, &q);
				q.kinds = UMT_ACCESS_READ | UMT_ACCESS_CONTEXT;
				q.thread = rev;
				q.from = 2;
				q.to = UINT64_MAX;
				q.limit = 0;
				expect_history(ix, &b, &q);
			}
			for (uint64_t at = 0; at < records; at++)
				expect_mem(ix, &b, at, a, l);
		}
	}
	int rc = umt_index_verify(ix);
	if (rc)
		print_error("verify: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	umt_index_close(ix);
	umt_trace_close(t);
	free(b.a);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

static void test_edges(void **state)
{
	(void)state;
	check_edge(UMT_FLAVOUR_2015);
	check_edge(UMT_FLAVOUR_2014);
}

/* A few answers written out, so that the brute force itself is checked. */
static void test_edge_answers(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_edge(trace, UMT_FLAVOUR_2015);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx, 1, 0);
	uint8_t d[16], k[16];
	uint64_t s[16];
	/* at record 5: 0x10008 was written by record 2 (thread 0) */
	assert_int_equal(umt_mem_at(ix, 5, 0x10008, 1, d, k, s), 0);
	assert_int_equal(k[0], 1);
	assert_int_equal(s[0], 2);
	/* at record 6: its own before value (the old content of its write-only operand) */
	assert_int_equal(umt_mem_at(ix, 6, 0x10008, 1, d, k, s), 0);
	assert_int_equal(k[0], 1);
	assert_int_equal(s[0], 6);
	/* record 6's write has an untrusted value: unknown from record 7 on, source 6 */
	assert_int_equal(umt_mem_at(ix, 7, 0x10008, 8, d, k, s), 0);
	assert_int_equal(k[0], 0);
	assert_int_equal(s[0], 6);
	/* record 8 (false condition) peeks it again: known at 9, source 8 */
	assert_int_equal(umt_mem_at(ix, 9, 0x10008, 1, d, k, s), 0);
	assert_int_equal(k[0], 1);
	assert_int_equal(s[0], 8);
	/* at record 12, its own context blocks count: 0x10004 from block 1 (written last) */
	assert_int_equal(umt_mem_at(ix, 12, 0x10004, 1, d, k, s), 0);
	assert_int_equal(s[0], 12);
	assert_int_equal(d[0], small_blocks[0][0]);
	/* at 17: the block written last in record 16 wins where two cover a byte */
	assert_int_equal(umt_mem_at(ix, 17, 0x40010, 1, d, k, s), 0);
	assert_int_equal(d[0], small_blocks[1][0]);
	assert_int_equal(umt_mem_at(ix, 17, 0x50010, 1, d, k, s), 0);
	assert_int_equal(d[0], big_block[7 + 0x10]);
	/* a byte no record saw */
	assert_int_equal(umt_mem_at(ix, 17, 0x60000, 1, d, k, s), 0);
	assert_int_equal(k[0], 0);
	assert_int_equal(s[0], UMT_NO_RECORD);
	/* the last write to 0x10008 before record 15, newest first: record 14 */
	umt_history_query q;
	umt_history_query_init(&q, 0x10008, 1);
	q.kinds = UMT_ACCESS_WRITE;
	q.to = 15;
	q.reverse = 1;
	q.limit = 1;
	umt_history *h;
	umt_access a;
	assert_int_equal(umt_history_open(ix, &q, &h), 0);
	assert_int_equal(umt_history_next(h, &a), 1);
	assert_int_equal(a.record_id, 14);
	assert_int_equal(umt_history_next(h, &a), 0);
	umt_history_close(h);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}


/* ---- the same bytes whatever the threads and the budget ----------------------------------- */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned char *slurp(const char *dir, const char *name, size_t *n)
{
	char *p = fx_path(dir, name);
	FILE *f = fopen(p, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(*n + 1);
	assert_int_equal(fread(b, 1, *n, f), *n);
	fclose(f);
	free(p);
	return b;
}

/* The files of index directory @p dir, sorted, NULL-terminated (at most 31). */
static void list_files(const char *dir, char *names[32])
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && n < 31)
			names[n++] = fx_path("", e->d_name) + 1; /* "/NAME": freed from its start below */
	closedir(d);
	names[n] = NULL;
	qsort(names, n, sizeof names[0], cmp_names);
}

/* Every file of the two index directories: the same names, the same bytes. */
static void expect_same_files(const char *a, const char *b)
{
	char *names[32], *other[32];
	list_files(a, names);
	list_files(b, other);
	for (size_t i = 0; names[i] || other[i]; i++) {
		assert_non_null(names[i]);
		assert_non_null(other[i]);
		assert_string_equal(names[i], other[i]);
		free(other[i] - 1);
	}
	assert_non_null(names[5]); /* the header, the memory's three files, the registers' two */
	for (size_t i = 0; names[i]; i++) {
		size_t na, nb;
		unsigned char *x = slurp(a, names[i], &na), *y = slurp(b, names[i], &nb);
		if (na != nb || memcmp(x, y, na) != 0)
			print_error("%s differs between %s and %s\n", names[i], a, b);
		assert_int_equal(na, nb);
		assert_memory_equal(x, y, na);
		free(x), free(y), free(names[i] - 1);
	}
}

/* ---- the build's sort, against a stable sort by brute force --------------------------- */

/* By list, then key: keys are the entries' original positions, so this is the stable order. */
static int by_list_then_key(const void *a, const void *b)
{
	const struct ix_entry *x = a, *y = b;
	if (x->list != y->list)
		return x->list < y->list ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

/* List ranges of 0 to 64 bits (1 to 5 passes, digits of 1 to 14 bits), lists drawn from
 * few or many values, keys ascending as the scan extracts them: the sort must give the
 * (list, key) order. */
static void test_sort_ranges(void **state)
{
	(void)state;
	static const unsigned bits[] = {0, 1, 5, 14, 15, 28, 29, 38, 42, 43, 56, 57, 63, 64};
	size_t n = 5000;
	struct ix_entry *a = calloc(n, sizeof *a), *tmp = calloc(n, sizeof *tmp);
	struct ix_entry *want = calloc(n, sizeof *want);
	uint32_t *counts = malloc(UMT_IX_SORT_COUNTS * sizeof *counts);
	assert_non_null(a), assert_non_null(tmp), assert_non_null(want), assert_non_null(counts);
	for (size_t k = 0; k < sizeof bits / sizeof bits[0]; k++) {
		for (int few = 0; few < 2; few++) {
			uint64_t base = rnd(), span = bits[k] == 64 ? UINT64_MAX
			                                 : ((uint64_t)1 << bits[k]) - 1;
			if (bits[k] == 64)
				base = 0;
			else if (base > UINT64_MAX - span)
				base -= span;
			for (size_t i = 0; i < n; i++) {
				uint64_t r = few ? rnd() % 7 * (span / 6) : rnd();
				a[i].list = base + (span == UINT64_MAX ? r : r % (span + 1));
				a[i].key = i; /* ascending, as extracted */
				a[i].locator = (uint32_t)(i * 31);
			}
			if (n > 1) /* the range's both ends present */
				a[0].list = base, a[1].list = base + span;
			memcpy(want, a, n * sizeof *a);
			qsort(want, n, sizeof *want, by_list_then_key);
			const struct ix_entry *got = umt__ix_sort(a, tmp, n, counts);
			for (size_t i = 0; i < n; i++) {
				assert_int_equal(got[i].list, want[i].list);
				assert_int_equal(got[i].key, want[i].key);
				assert_int_equal(got[i].locator, want[i].locator);
			}
		}
	}
	free(a), free(tmp), free(want), free(counts);
}

static void test_same_bytes(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t");
	fx_umtgen(trace, "--records 200000 --threads 5 --seed 21");
	umt_trace *t = fx_must_open_dir(trace);
	static const struct { unsigned threads; uint64_t memory; const char *name; } builds[] = {
		{1, 0, "i1"}, {2, 0, "i2"}, {2, 1u << 20, "i2tiny"}, {3, 1u << 20, "i3tiny"},
		{1, 1u << 20, "i1tiny"},
	};
	char *first = NULL;
	for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
		char *idx = fx_path(dir, builds[i].name);
		umt_index_build_options o;
		umt_index_build_options_init(&o);
		o.threads = builds[i].threads;
		if (builds[i].memory)
			o.memory = builds[i].memory;
		umt_index_build_stats s;
		assert_int_equal(umt_index_build(t, idx, &o, &s), 0);
		assert_int_equal(s.threads, builds[i].threads);
		if (builds[i].memory) { /* a tiny budget spills runs; with 2 or 3 threads more
		                         * than one merge pass takes (fan-in 4, then 2) */
			assert_true(s.runs >= 5);
			assert_true(builds[i].threads == 1 || s.merge_passes >= 1);
		} else {
			assert_int_equal(s.runs, 0);
			assert_int_equal(s.merge_passes, 0);
		}
		if (first)
			expect_same_files(first, idx);
		if (first == NULL)
			first = idx;
		else
			free(idx);
	}
	free(first);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace);
}


/* ---- damaged, stale and incomplete indexes ------------------------------------------------ */

static void put_file(const char *dir, const char *name, const unsigned char *b, size_t n)
{
	char *p = fx_path(dir, name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
	free(p);
}

/* Queries of the damage tests: addresses, and the record of the memory queries; the
 * register queries' answers of the intact index. */
#define REG_PROBES 6
struct probes {
	uint64_t addrs[24];
	size_t n;
	uint64_t at;
	umt_trace *t;
	uint64_t reg_at[REG_PROBES];
	uint8_t *reg_answer[REG_PROBES]; /* data, known, sources; then rax's last writes */
	size_t reg_size;
};

/* The register answers at record @p at: the state of its thread and of thread 0, and
 * the last 3 writes of rax before it in thread 0 (ids and values); NULL when a query fails. */
static uint8_t *reg_answers(umt_index *ix, umt_trace *t, uint64_t at, size_t *size)
{
	umt_state st;
	if (umt_state_init(ix, &st) != 0)
		return NULL;
	size_t one = st.size * 10, n = 2 * one + 3 * (8 + UMT_REG_MAX_SIZE * 2);
	uint8_t *a = calloc(1, n);
	int rc = 0;
	for (int k = 0; rc == 0 && k < 2; k++) {
		if ((rc = umt_state_at(ix, at, k ? 0 : -1, &st)) == 0) {
			memcpy(a + k * one, st.data, st.size);
			memcpy(a + k * one + st.size, st.known, st.size);
			memcpy(a + k * one + 2 * st.size, st.sources, 8 * st.size);
		}
	}
	umt_state_release(&st);
	umt_reg_history_query q;
	umt_reg_history_query_init(&q, umt_reg_by_name(t, "rax"));
	q.thread = 0;
	q.to = at;
	q.reverse = 1;
	q.limit = 3;
	umt_reg_history *h;
	umt_reg_write w;
	if (rc == 0 && (rc = umt_reg_history_open(ix, &q, &h)) == 0) {
		for (uint8_t *p = a + 2 * one; (rc = umt_reg_history_next(h, &w)) > 0; p += 8 + 2 * UMT_REG_MAX_SIZE)
			memcpy(p, &w.id, 8), memcpy(p + 8, w.value, w.size), memcpy(p + 8 + w.size, w.known, w.size);
		umt_reg_history_close(h);
	}
	if (rc < 0) {
		free(a);
		return NULL;
	}
	*size = n;
	return a;
}

static void reg_probes(umt_index *ix, umt_trace *t, struct probes *pr)
{
	for (int i = 0; i < REG_PROBES; i++) {
		pr->reg_at[i] = (umt_exec_count(t) - 1) * (uint64_t)i / (REG_PROBES - 1);
		pr->reg_answer[i] = reg_answers(ix, t, pr->reg_at[i], &pr->reg_size);
		assert_non_null(pr->reg_answer[i]);
	}
}

static void free_probes(struct probes *pr)
{
	for (int i = 0; i < REG_PROBES; i++)
		free(pr->reg_answer[i]);
}

/* The register answers are the intact index's. */
static bool regs_hold(umt_index *ix, const struct probes *pr)
{
	for (int i = 0; i < REG_PROBES; i++) {
		size_t n;
		uint8_t *a = reg_answers(ix, pr->t, pr->reg_at[i], &n);
		bool same = a && n == pr->reg_size && memcmp(a, pr->reg_answer[i], n) == 0;
		free(a);
		if (!same)
			return false;
	}
	return true;
}

/* The answers of the probes match the brute force; false at the first that does not. */
static bool answers_hold(umt_index *ix, const struct bf *b, const struct probes *pr)
{
	const uint64_t *addrs = pr->addrs;
	for (size_t i = 0; i < pr->n; i++) {
		umt_history_query q;
		umt_history_query_init(&q, addrs[i], 8);
		q.kinds = UMT_ACCESS_ALL;
		umt_access *want;
		size_t n = bf_history(b, &q, &want), got = 0;
		umt_history *h = NULL;
		umt_access a;
		int rc = umt_history_open(ix, &q, &h);
		while (rc == 0 && (rc = umt_history_next(h, &a)) > 0 && got < n &&
		       order(&a, &want[got]) == 0 && memcmp(a.data, want[got].data, a.size) == 0)
			got++, rc = 0;
		umt_history_close(h);
		free(want);
		if (rc != 0 || got != n)
			return false;
		uint8_t d[8], k[8], wd[8], wk[8];
		uint64_t s[8], ws[8];
		bf_mem(b, pr->at, addrs[i], 8, wd, wk, ws);
		if (umt_mem_at(ix, pr->at, addrs[i], 8, d, k, s) != 0 || memcmp(d, wd, 8) ||
		    memcmp(k, wk, 8) || memcmp(s, ws, 8))
			return false;
	}
	return regs_hold(ix, pr);
}

/*
 * Bytes of each file flipped in turn (every @p stride-th): verify says so, or
 * nothing changed; truncated files are refused.
 */
static void damage(umt_trace *t, const char *idx, const struct bf *b, const struct probes *pr,
                   size_t stride)
{
	umt_index *ix;
	static const char *const names[] = {"index.umti", "mem.dir", "mem.post", "mem.skip",
	                                    "regs.dir", "regs.ckpt"};
	unsigned detected = 0, harmless = 0;
	for (size_t f = 0; f < sizeof names / sizeof names[0]; f++) {
		unsigned d0 = detected, h0 = harmless;
		size_t n;
		unsigned char *orig = slurp(idx, names[f], &n), *copy = malloc(n + 1);
		/* the registers' files: every 7th byte at most (each flip runs verify's scan) */
		size_t step = f >= 4 && stride > 7 ? 7 : stride;
		for (size_t i = 0; i < n; i += i < 64 ? 1 : step) {
			memcpy(copy, orig, n);
			copy[i] ^= (unsigned char)(1u << (i % 8));
			put_file(idx, names[f], copy, n);
			if (umt_index_open(t, idx, &ix) < 0) {
				assert_true(*umt_errmsg() != '\0');
				detected++;
				continue;
			}
			bool ok = answers_hold(ix, b, pr);
			int rc = umt_index_verify(ix);
			if (rc == 0 && !ok)
				print_error("%s byte %zu: verify passes, answers differ\n", names[f], i);
			assert_true(rc < 0 || ok);
			rc < 0 ? detected++ : harmless++;
			umt_index_close(ix);
		}
		/* truncated and extended: the header's file table says otherwise */
		size_t cuts[] = {0, 1, 63, 64, n / 2, n - 1};
		for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
			put_file(idx, names[f], orig, cuts[c] < n ? cuts[c] : 0);
			int rc = umt_index_open(t, idx, &ix);
			assert_true(rc == UMT_E_INCOMPLETE || rc == UMT_E_TRUNCATED || rc == UMT_E_CORRUPT);
		}
		put_file(idx, names[f], orig, n);
		free(orig);
		free(copy);
		print_message("%s: %u damaged bytes detected, %u harmless\n", names[f], detected - d0,
		              harmless - h0);
	}
	assert_true(detected > harmless);
	umt_index *again = build_open(t, idx, 1, 0); /* intact again */
	umt_index_close(again);
}

static void test_damaged(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_edge(trace, UMT_FLAVOUR_2015);
	umt_trace *t = fx_must_open_dir(trace);
	struct bf b;
	bf_load(t, &b);
	umt_index *ix = build_open(t, idx, 1, 0);
	struct probes pr = {.addrs = {0x10000, 0x10008, 0x1003c, 0x10100, 0x10ffc, 0x20ff0, 0x30000,
	                              0x40010, 0x50000, TOP},
	                    .n = 10, .at = 17, .t = t};
	reg_probes(ix, t, &pr);
	umt_index_close(ix);
	damage(t, idx, &b, &pr, 1);
	umt_trace_close(t);
	free_probes(&pr);
	free(b.a);
	/* a generated trace: long lists, skip entries */
	fx_umtgen(trace, "--records 6000 --threads 2 --seed 31");
	t = fx_must_open_dir(trace);
	bf_load(t, &b);
	ix = build_open(t, idx, 1, 0);
	pr.n = 0;
	for (size_t i = 0; i < b.n && pr.n < 24; i += b.n / 24 + 1)
		pr.addrs[pr.n++] = b.a[i].address;
	pr.at = umt_exec_count(t) - 1;
	pr.t = t;
	reg_probes(ix, t, &pr);
	umt_index_close(ix);
	damage(t, idx, &b, &pr, 211);
	umt_trace_close(t);
	free_probes(&pr);
	free(b.a);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

static void test_stale_and_missing(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_edge(trace, UMT_FLAVOUR_2015);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx, 2, 0);
	umt_index_close(ix);
	umt_trace_close(t);
	/* the same trace written again: other mtimes */
	write_edge(trace, UMT_FLAVOUR_2014);
	t = fx_must_open_dir(trace);
	fx_expect_error(umt_index_open(t, idx, &ix), UMT_E_STALE, "stale index", NULL);
	/* an index directory without its header, with and without the other files */
	ix = build_open(t, idx, 2, 0);
	umt_index_close(ix);
	char *hdr = fx_path(idx, "index.umti"), *post = fx_path(idx, "mem.post");
	assert_int_equal(unlink(post), 0);
	fx_expect_error(umt_index_open(t, idx, &ix), UMT_E_INCOMPLETE, "mem.post", "incomplete");
	assert_int_equal(unlink(hdr), 0);
	fx_expect_error(umt_index_open(t, idx, &ix), UMT_E_INCOMPLETE, idx, "incomplete");
	fx_rmtree(idx);
	assert_int_equal(mkdir(idx, 0777), 0);
	fx_expect_error(umt_index_open(t, idx, &ix), UMT_E_MISSING, idx, "no index");
	fx_rmtree(idx);
	fx_expect_error(umt_index_open(t, idx, &ix), UMT_E_MISSING, idx, NULL);
	/* a build over a directory that holds a complete index replaces it */
	ix = build_open(t, idx, 2, 0);
	umt_index_close(ix);
	ix = build_open(t, idx, 1, 0);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx), free(hdr), free(post);
}


/* ---- an index built in parts ---------------------------------------------------------- */

static void build_part(umt_trace *t, const char *idx, unsigned k, unsigned n, unsigned threads,
                       uint64_t memory, umt_index_build_stats *s)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = threads;
	if (memory)
		o.memory = memory;
	int rc = umt_index_build_part(t, idx, k, n, &o, s);
	if (rc)
		print_error("part %u of %u: %s\n", k, n, umt_errmsg());
	assert_int_equal(rc, 0);
}

static int merge_parts(umt_trace *t, const char *idx, unsigned n, uint64_t sections,
                       umt_index_build_stats *s)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 2;
	if (sections)
		o.sections = sections;
	return umt_index_build_merge(t, idx, n, &o, s);
}

/* Parts in any order, rebuilt, with any threads and budgets: the bytes of a local build. */
static void test_parts_same_bytes(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *local = fx_path(dir, "local");
	fx_umtgen(trace, "--records 200000 --threads 5 --seed 21");
	umt_trace *t = fx_must_open_dir(trace);
	umt_index_build_stats ls, ps, ms;
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 2;
	assert_int_equal(umt_index_build(t, local, &o, &ls), 0);
	static const unsigned counts[] = {1, 3, 7};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		unsigned n = counts[c];
		char name[16];
		snprintf(name, sizeof name, "p%u", n);
		char *idx = fx_path(dir, name);
		uint64_t records = 0, accesses = 0;
		for (unsigned k = n; k-- > 0;) { /* last part first */
			build_part(t, idx, k, n, 1 + k % 2, k == 1 ? 1u << 20 : 0, &ps);
			records += ps.records;
			accesses += ps.accesses;
		}
		if (n > 1) /* a part built again replaces itself */
			build_part(t, idx, 0, n, 2, 0, &ps);
		assert_int_equal(records, umt_exec_count(t));
		assert_int_equal(accesses, ls.accesses);
		int rc = merge_parts(t, idx, n, 0, &ms);
		if (rc)
			print_error("merge: %s\n", umt_errmsg());
		assert_int_equal(rc, 0);
		assert_int_equal(ms.accesses, ls.accesses);
		assert_int_equal(ms.postings, ls.postings);
		char *parts = fx_path(idx, "parts");
		struct stat st;
		assert_int_equal(stat(parts, &st), -1); /* removed after the merge */
		expect_same_files(local, idx);
		free(parts), free(idx);
	}
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(local);
}

/* Missing, unfinished, stale and damaged parts: errors naming the part's file, never an index. */
static void test_parts_errors(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *other = fx_path(dir, "o");
	char *idx = fx_path(dir, "i");
	fx_umtgen(trace, "--records 3000 --threads 2 --seed 5");
	fx_umtgen(other, "--records 3000 --threads 2 --seed 6");
	umt_trace *t = fx_must_open_dir(trace), *u = fx_must_open_dir(other);
	fx_expect_error(umt_index_build_part(t, idx, 2, 2, NULL, NULL), UMT_E_INVAL, "invalid argument", NULL);
	fx_expect_error(umt_index_build_part(t, idx, 0, 0, NULL, NULL), UMT_E_INVAL, "invalid argument", NULL);
	fx_expect_error(umt_index_build_merge(t, idx, 0, NULL, NULL), UMT_E_INVAL, "invalid argument", NULL);
	build_part(t, idx, 0, 2, 1, 0, NULL);
	fx_expect_error(merge_parts(t, idx, 2, 0, NULL), UMT_E_MISSING, "parts/1-of-2/part", "missing");
	/* a part whose build stopped before its commit: a temporary in its directory */
	char *pdir = fx_path(idx, "parts/1-of-2"), *tmp = fx_path(pdir, ".part.tmp-abcdef");
	assert_int_equal(mkdir(pdir, 0777), 0);
	FILE *f = fopen(tmp, "wb");
	assert_non_null(f);
	fclose(f);
	fx_expect_error(merge_parts(t, idx, 2, 0, NULL), UMT_E_INCOMPLETE, "1-of-2/part", "incomplete");
	build_part(u, idx, 1, 2, 1, 0, NULL); /* from another trace; its build removed the temporary */
	fx_expect_error(merge_parts(t, idx, 2, 0, NULL), UMT_E_STALE, "1-of-2/part", "another trace");
	build_part(t, idx, 1, 2, 1, 0, NULL);
	/* every byte of the header and of the run's first 4 KiB, then every 61st, flipped */
	char *part = fx_path(pdir, "part");
	size_t size;
	unsigned char *good = slurp(pdir, "part", &size);
	assert_true(size > 1000);
	for (size_t i = 0; i < size; i += i < 128 + 4096 ? 1 : 61) {
		unsigned char *bad = malloc(size);
		memcpy(bad, good, size);
		bad[i] ^= (unsigned char)(1u << (i % 8));
		f = fopen(part, "wb");
		assert_int_equal(fwrite(bad, 1, size, f), size);
		fclose(f);
		int rc = merge_parts(t, idx, 2, UMT_INDEX_SECTION_MEMORY, NULL);
		if (rc != UMT_E_CORRUPT)
			print_error("byte %zu: %d %s\n", i, rc, rc ? umt_errmsg() : "");
		assert_int_equal(rc, UMT_E_CORRUPT);
		assert_non_null(strstr(umt_errmsg(), "1-of-2/part"));
		free(bad);
	}
	f = fopen(part, "wb");
	assert_int_equal(fwrite(good, 1, size, f), size);
	fclose(f);
	assert_int_equal(merge_parts(t, idx, 2, 0, NULL), 0);
	umt_index *ix;
	assert_int_equal(umt_index_open(t, idx, &ix), 0);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	umt_trace_close(t), umt_trace_close(u);
	fx_rmtree(dir);
	free(dir), free(trace), free(other), free(idx), free(pdir), free(tmp), free(part), free(good);
}


/* ---- a build killed at every point of its commit -------------------------------------- */

/*
 * Index A is built for trace T; T is rewritten as T', and the build of its
 * index B in the same directory is killed at the k-th point of the commit
 * protocol, for every k. Afterwards the directory is A (stale for T'), or
 * incomplete, or B complete (verify passes): never anything that opens half.
 */
static void test_killed_build(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	unsigned outcomes[3] = {0, 0, 0}, k = 1;
	for (;; k++) {
		write_edge(trace, UMT_FLAVOUR_2015); /* T */
		umt_trace *t = fx_must_open_dir(trace);
		umt_index_close(build_open(t, idx, 1, 0));
		umt_trace_close(t);
		write_edge(trace, UMT_FLAVOUR_2014); /* T': other content, other mtimes */
		t = fx_must_open_dir(trace);
		umt_index_build_options o;
		umt_index_build_options_init(&o);
		o.threads = 2;
		int code = fx_build_killed_at(t, idx, &o, k);
		umt_index *ix;
		int rc = umt_index_open(t, idx, &ix);
		if (rc == 0) {
			rc = umt_index_verify(ix);
			if (rc)
				print_error("killed at point %u: opens, does not verify: %s\n", k, umt_errmsg());
			assert_int_equal(rc, 0);
			umt_index_close(ix);
			outcomes[2]++;
		} else {
			if (rc != UMT_E_STALE && rc != UMT_E_INCOMPLETE)
				print_error("killed at point %u: %d %s\n", k, rc, umt_errmsg());
			assert_true(rc == UMT_E_STALE || rc == UMT_E_INCOMPLETE);
			outcomes[rc == UMT_E_STALE ? 0 : 1]++;
		}
		umt_trace_close(t);
		if (code == 0)
			break; /* k passed the last point: the build finished */
	}
	print_message("index build killed at %u points: %u old, %u incomplete, %u new\n", k - 1,
	              outcomes[0], outcomes[1], outcomes[2]);
	assert_true(outcomes[0] > 0 && outcomes[1] > 0 && outcomes[2] > 0);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

/* Points regs.ckpt's temporary at /dev/full once created: its writes then fail. */
static void full_hook(enum umt_commit_step step, const char *name)
{
	if (step != UMT_COMMIT_CREATED || strcmp(name, "regs.ckpt") != 0)
		return;
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int full = open("/dev/full", O_WRONLY | O_CLOEXEC), done = 0;
	for (struct dirent *e; full >= 0 && (e = readdir(d)) != NULL;) {
		char link[320], target[4096];
		snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof target - 1);
		target[n > 0 ? n : 0] = 0;
		if (n > 0 && strstr(target, "/.regs.ckpt") != NULL)
			done += dup2(full, (int)strtol(e->d_name, NULL, 10)) >= 0;
	}
	closedir(d);
	close(full);
	assert_int_equal(done, 1);
}

/* On two threads the sections are assembled in a thread of their own beside the memory
 * section's last phase (src/index/assemble.c): its failure fails the build with its own
 * message, and nothing is committed. */
static void test_section_thread_fails(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	fx_umtgen(trace, "--records 20000 --threads 3 --seed 5");
	umt_trace *t = fx_must_open_dir(trace);
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 2;
	umt__commit_hook = full_hook;
	int rc = umt_index_build(t, idx, &o, NULL);
	umt__commit_hook = NULL;
	assert_int_equal(rc, UMT_E_IO);
	assert_non_null(strstr(umt_errmsg(), "No space left on device"));
	assert_non_null(strstr(umt_errmsg(), "/dev/full")); /* the file it wrote, and where */
	print_message("%s\n", umt_errmsg());
	assert_non_null(strstr(umt_errmsg(), "at offset 0:"));
	umt_index *ix = NULL;
	assert_true(umt_index_open(t, idx, &ix) < 0); /* no index: nothing committed */
	assert_int_equal(umt_index_build(t, idx, &o, NULL), 0); /* the next build is whole */
	assert_int_equal(umt_index_open(t, idx, &ix), 0);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}


/* ---- against umtgen's ground truth (docs/umtgen.md) ------------------------------------ */

/* The access of record @p id in the index's history that is the write @p w, or NULL. */
static bool history_has(umt_index *ix, uint64_t id, unsigned kind, uint64_t address,
                        uint64_t size, const uint8_t *data, bool *trusted)
{
	umt_history_query q;
	umt_history_query_init(&q, address, size);
	q.from = id;
	q.to = id + 1;
	q.kinds = kind;
	umt_history *h;
	umt_access a;
	bool found = false;
	assert_int_equal(umt_history_open(ix, &q, &h), 0);
	while (!found && umt_history_next(h, &a) > 0)
		if (kind == UMT_ACCESS_CONTEXT ? a.address <= address && address - a.address + size <= a.size &&
		                                         memcmp(a.data + (address - a.address), data, size) == 0
		                               : a.address == address && a.size == size) {
			found = true;
			*trusted = (a.trust & UMT_TRUST_VALUE) != 0;
			if (*trusted && kind == UMT_ACCESS_WRITE)
				assert_memory_equal(a.data, data, size);
		}
	umt_history_close(h);
	return found;
}

/* One truth line: a write must be in the index; a memory sample agrees where known. */
static void truth_line(umt_index *ix, umt_trace *t, const struct jv *v, unsigned *counts)
{
	const struct jv *kind = json_get(v, "kind");
	uint64_t id, address, size;
	static uint8_t data[1 << 16], d[4096], k[4096];
	if (kind == NULL || json_u64(v, "id", &id) < 0 || json_u64(v, "address", &address) < 0)
		return;
	long n = json_hex(json_get(v, "data")->text, data, sizeof data);
	assert_true(n >= 0);
	if (!strcmp(kind->text, "write")) {
		const char *by = json_get(v, "by")->text;
		assert_int_equal(json_u64(v, "size", &size), 0);
		assert_int_equal(size, (uint64_t)n);
		umt_rec r;
		assert_int_equal(umt_exec_get(t, id, &r), 0);
		bool trusted = false;
		bool found = history_has(ix, id, strcmp(by, "instruction") ? UMT_ACCESS_CONTEXT
		                                                           : UMT_ACCESS_WRITE,
		                         address, size, data, &trusted);
		/* flagged records: umtrace.h 8b may leave the address or the value untrusted */
		if ((r.flags & UMT_EXEC_F_INCOMPLETE_MASK) == 0) {
			if (!found)
				print_error("truth write of record %llu at 0x%llx (%llu bytes, %s) not in the index\n",
				            (unsigned long long)id, (unsigned long long)address,
				            (unsigned long long)size, by);
			assert_true(found && trusted);
		}
		counts[0]++;
	} else if (!strcmp(kind->text, "mem")) {
		uint64_t len = (uint64_t)n < sizeof d ? (uint64_t)n : sizeof d;
		assert_int_equal(umt_mem_at(ix, id, address, len, d, k, NULL), 0);
		for (uint64_t i = 0; i < len; i++) {
			if (k[i] && d[i] != data[i])
				print_error("memory at record %llu, 0x%llx: index %02x, truth %02x\n",
				            (unsigned long long)id, (unsigned long long)(address + i), d[i], data[i]);
			assert_true(!k[i] || d[i] == data[i]);
			counts[1] += k[i];
		}
	}
}

/* Every trusted write of an instruction record in the index is one of the truth's writes. */
static void writes_are_true(umt_trace *t, umt_index *ix, const char *truth)
{
	FILE *f = fopen(truth, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	uint64_t writes = 0, matched = 0;
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	/* the truth's instruction writes, in record order, against the records' write slots */
	struct { uint64_t id, address, size; } want = {UINT64_MAX, 0, 0};
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		if (r.type != UMT_REC_INSTRUCTION || umt_access_iter_init(&ai, t, &r, UMT_ACCESS_WRITE) < 0)
			continue;
		while (umt_access_iter_next(&ai, &a) > 0) {
			if (!(a.trust & UMT_TRUST_VALUE))
				continue;
			writes++;
			while (want.id == UINT64_MAX || want.id < r.id ||
			       (want.id == r.id && (want.address != a.address || want.size != a.size))) {
				struct jv v;
				if (getline(&line, &cap, f) < 0) {
					want.id = UINT64_MAX - 1;
					break;
				}
				if (json_parse(line, &v) < 0)
					continue;
				const struct jv *kind = json_get(&v, "kind"), *by = json_get(&v, "by");
				if (kind && by && !strcmp(kind->text, "write") && !strcmp(by->text, "instruction")) {
					json_u64(&v, "id", &want.id);
					json_u64(&v, "address", &want.address);
					json_u64(&v, "size", &want.size);
				}
				json_free(&v);
			}
			if (want.id == r.id && want.address == a.address && want.size == a.size) {
				matched++;
				want.id = UINT64_MAX; /* consumed */
			}
		}
	}
	if (matched != writes)
		print_error("%llu of %llu trusted writes of the trace are in the truth\n",
		            (unsigned long long)matched, (unsigned long long)writes);
	assert_int_equal(matched, writes);
	free(line);
	fclose(f);
	(void)ix;
}

/* What check_truth() passes truth_line() for each line of the truth. */
struct truth_check {
	const struct fx_gen *g;
	unsigned counts[2];
};

static void truth_check_line(const struct jv *v, void *arg)
{
	struct truth_check *c = arg;
	truth_line(c->g->ix, c->g->t, v, c->counts);
}

static void check_truth(const char *args)
{
	struct fx_gen g;
	fx_gen_truth(&g, args, -1);
	struct truth_check c = {&g, {0, 0}};
	assert_true(json_each_line(g.truth, truth_check_line, &c) >= 0);
	print_message("truth %s: %u writes, %u known memory bytes checked\n", args, c.counts[0],
	              c.counts[1]);
	assert_true(c.counts[0] > 0 && c.counts[1] > 0);
	writes_are_true(g.t, g.ix, g.truth);
	fx_gen_free(&g);
}

static void test_truth(void **state)
{
	(void)state;
	check_truth("--records 20000 --threads 3 --seed 41");
	check_truth("--records 15000 --threads 2 --seed 42 --flavour 2014");
	check_truth("--records 15000 --threads 4 --seed 43 --code32");
	check_truth("--records 8000 --threads 3 --seed 44 --abort");
	check_truth("--records 8000 --threads 2 --seed 45 --syscall-rate 40 --mem-share 70");
}

/* Index of umtgen traces: queries, verify. */
static void check_generated(const char *args, unsigned rounds)
{
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	fx_umtgen(trace, args);
	umt_trace *t = fx_must_open_dir(trace);
	struct bf b;
	bf_load(t, &b);
	umt_index *ix = build_open(t, idx, 2, 0);
	umt_index_info info;
	assert_int_equal(umt_index_get_info(ix, &info), 0);
	assert_int_equal(info.accesses, b.n);
	random_queries(ix, t, &b, rounds);
	int rc = umt_index_verify(ix);
	if (rc)
		print_error("verify: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	umt_index_close(ix);
	umt_trace_close(t);
	free(b.a);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

static void test_generated_2015(void **state)
{
	(void)state;
	check_generated("--records 30000 --threads 3 --seed 11", 1500);
	check_generated("--records 5000 --threads 1 --seed 12", 500);
}

static void test_generated_2014(void **state)
{
	(void)state;
	check_generated("--records 20000 --threads 4 --seed 13 --flavour 2014", 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edge_answers),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_generated_2015),
		cmocka_unit_test(test_generated_2014),
		cmocka_unit_test(test_sort_ranges),
		cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_stale_and_missing),
		cmocka_unit_test(test_parts_same_bytes),
		cmocka_unit_test(test_parts_errors),
		cmocka_unit_test(test_killed_build),
		cmocka_unit_test(test_section_thread_fails),
		cmocka_unit_test(test_truth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
