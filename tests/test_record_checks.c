/*
 * The record check on every path that hands out records (the record
 * iterator, blocks, umt_exec_get, views, batches), against umt_exec_get()
 * on a handle on which nothing ever scans, so that no chunk of 4096
 * records is known good there: the same records, field for field, and the
 * same errors, message for message; on the first pass over a trace (which
 * checks and marks chunks) and on later passes (which trust the marks).
 * Corrupt records sit at chunk edges and inside chunks; a chunk holding one
 * is never marked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "internal.h"

#define CHUNK 4096
#define RECORDS (5 * CHUNK + 100) /* chunks 0-4 whole, chunk 5 partial */
#define EXTRA 3                   /* IDs past the end, for the range errors */

/* What umt_exec_get() says about one record on a handle that never scans. */
struct want {
	int rc;
	umt_rec r;
	char msg[512];
};

static struct want *reference(struct fx_trace *t)
{
	struct want *w = calloc(RECORDS + EXTRA, sizeof *w);
	assert_non_null(w);
	umt_trace *tr = fx_must_open(t);
	for (uint64_t id = 0; id < RECORDS + EXTRA; id++) {
		w[id].rc = umt_exec_get(tr, id, &w[id].r);
		if (w[id].rc < 0)
			snprintf(w[id].msg, sizeof w[id].msg, "%s", umt_errmsg());
	}
	umt_trace_close(tr);
	return w;
}

/* A record or an error as @p w has it; @p got is read only on success. */
static void expect(const struct want *w, uint64_t id, int rc, const umt_rec *got)
{
	if (rc != w[id].rc)
		fail_msg("record %llu: status %d, want %d (%s)", (unsigned long long)id, rc, w[id].rc,
		         w[id].msg);
	if (rc < 0) {
		assert_string_equal(umt_errmsg(), w[id].msg);
		return;
	}
	const umt_rec *r = &w[id].r;
	assert_ptr_equal(got->data, r->data);
	assert_int_equal(got->size, r->size);
	assert_int_equal(got->id, r->id);
	assert_int_equal(got->offset, r->offset);
	assert_int_equal(got->thread_id, r->thread_id);
	assert_int_equal(got->type, r->type);
	assert_int_equal(got->flags, r->flags);
}

/* The record iterator over [begin, end): every record, then 0 for good. */
static void walk_iter(umt_trace *tr, const struct want *w, uint64_t begin, uint64_t end)
{
	umt_exec_iter it;
	assert_int_equal(umt_exec_iter_init(&it, tr, begin, end), 0);
	for (uint64_t id = begin; id < end; id++) {
		umt_rec r;
		int rc = umt_exec_iter_next(&it, &r);
		expect(w, id, rc == 1 ? 0 : rc, &r);
	}
	umt_rec r;
	assert_int_equal(umt_exec_iter_next(&it, &r), 0);
}

/* The block iterator over every record, in blocks of at most @p max. */
static void walk_blocks(umt_trace *tr, const struct want *w, uint32_t max)
{
	umt_exec_iter it;
	umt_exec_block b;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	uint64_t id = 0;
	int n;
	while ((n = umt_exec_iter_next_block(&it, &b, max)) != 0) {
		if (n < 0) {
			expect(w, id++, n, NULL);
			continue;
		}
		assert_int_equal(b.first, id);
		for (uint32_t i = 0; i < (uint32_t)n; i++, id++) {
			umt_rec r;
			umt_block_rec(&b, i, &r);
			expect(w, id, 0, &r);
		}
	}
	assert_int_equal(id, RECORDS);
}

/* Lookups one by one, through a view and umt_exec_get(), and in batches. */
static void lookups(umt_trace *tr, const struct want *w)
{
	umt_exec_view v;
	assert_int_equal(umt_exec_view_init(&v, tr), 0);
	for (uint64_t id = 0; id < RECORDS + EXTRA; id++) {
		umt_rec r;
		expect(w, id, umt_exec_view_get(&v, id, &r), &r);
		expect(w, id, umt_exec_get(tr, id, &r), &r);
	}
	/* batches in a scrambled order, out-of-range IDs among them; the
	 * status is the first failure's, each failed lookup leaves data NULL */
	enum { N = RECORDS + EXTRA };
	uint64_t *ids = malloc(N * sizeof *ids);
	umt_rec *out = malloc(N * sizeof *out);
	assert_true(ids && out);
	for (uint64_t k = 0; k < N; k++)
		ids[k] = (k * 7919) % N;
	for (size_t from = 0, len = 1; from < N; from += len, len = len * 3 % 97 + 1) {
		size_t n = from + len <= N ? len : N - from;
		int rc = umt_exec_get_batch(tr, ids + from, n, out);
		int first = 0;
		for (size_t k = 0; k < n; k++) {
			const struct want *x = &w[ids[from + k]];
			if (x->rc < 0 && first == 0)
				first = x->rc;
			if (x->rc < 0)
				assert_null(out[k].data);
			else
				expect(w, ids[from + k], 0, &out[k]);
		}
		assert_int_equal(rc, first);
	}
	free(ids);
	free(out);
}

/* Every path, on a first pass (chunks get checked) and a later one. */
static void every_path(struct fx_trace *t, const struct want *w)
{
	for (int order = 0; order < 3; order++) {
		umt_trace *tr = fx_must_open(t);
		for (int pass = 0; pass < 2; pass++) {
			/* three orders, so that each path meets unchecked chunks first once */
			if (order == 0) {
				walk_iter(tr, w, 0, RECORDS);
				walk_iter(tr, w, CHUNK - 100, 3 * CHUNK + 5);
			} else if (order == 1) {
				walk_blocks(tr, w, pass ? 1000 : 8192);
			}
			lookups(tr, w);
			walk_iter(tr, w, 0, RECORDS);
			walk_blocks(tr, w, 4096);
		}
		umt_trace_close(tr);
	}
}

/*
 * Asserts that a scan marks exactly the chunks that are whole and whose
 * records are all good for the reference, and that these are @p want.
 */
static void expect_marks(struct fx_trace *t, const struct want *w, const int *want)
{
	for (int k = 0; k <= RECORDS / CHUNK; k++) {
		int good = (uint64_t)(k + 1) * CHUNK <= RECORDS;
		for (uint64_t id = (uint64_t)k * CHUNK; good && id < (uint64_t)(k + 1) * CHUNK; id++)
			good = w[id].rc == 0;
		assert_int_equal(good, want[k]);
	}
	umt_trace *tr = fx_must_open(t);
	umt_exec_iter it;
	umt_rec r;
	assert_int_equal(umt_exec_iter_init(&it, tr, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) != 0)
		;
	const uint8_t *map = umt__exec_chunk_map(tr);
	assert_non_null(map);
	for (int k = 0; k <= RECORDS / CHUNK; k++)
		if ((map[k] != 0) != want[k])
			fail_msg("chunk %d: marked %d, want %d", k, map[k], want[k]);
	umt_trace_close(tr);
}

static void test_clean(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_chain_trace(&t, RECORDS, 3);
	struct want *w = reference(&t);
	for (uint64_t id = 0; id < RECORDS; id++)
		assert_int_equal(w[id].rc, 0);
	every_path(&t, w);
	static const int marks[] = {1, 1, 1, 1, 1, 0}; /* chunk 5 is not whole */
	expect_marks(&t, w, marks);
	free(w);
	fx_free(&t);
}

static void test_corrupt(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_chain_trace(&t, RECORDS, 3);
	uint8_t *off = t.data[UMT_FILE_EXEC_OFFSETS], *vt = t.data[UMT_FILE_EXEC_VTABLE];
	/* chunk 0: record 100 begins in the file header (and 99 ends before it begins) */
	fx_put64(off + 100 * 8, 4);
	/* chunk 1: an undefined type in its first record, offsets that go
	 * backwards at its last */
	vt[fx_get64(off + CHUNK * 8) + 4] = 7;
	fx_put64(off + (2 * CHUNK) * 8, fx_get64(off + (2 * CHUNK - 1) * 8) - 1);
	/* chunk 3: a record that ends past the end of the file, in the middle */
	fx_put64(off + (3 * CHUNK + 2000) * 8, t.size[UMT_FILE_EXEC_VTABLE] + 100);
	/* chunk 5 (partial): a short record at the very end */
	fx_put64(off + (RECORDS - 1) * 8, fx_get64(off + RECORDS * 8) - 3);
	struct want *w = reference(&t);
	static const uint64_t bad[] = {99, 100, CHUNK, 2 * CHUNK - 1, 3 * CHUNK + 1999,
	                               3 * CHUNK + 2000, RECORDS - 1};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
		assert_true(w[bad[k]].rc < 0);
	every_path(&t, w);
	static const int marks[] = {0, 0, 1, 0, 1, 0};
	expect_marks(&t, w, marks);
	free(w);
	fx_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
