/*
 * address_space.c: page ranges and the lookup by address: empty, one-range
 * and many-range tables, range edges, and corrupt (unsorted, overlapping)
 * tables, which may answer wrong but never crash or loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

/* The range found for @p address, or -1. */
static int64_t find(umt_trace *tr, uint64_t address)
{
	uint64_t id = 12345;
	int rc = umt_address_space_find(tr, address, &id);
	assert_true(rc == 0 || rc == 1);
	if (rc == 0) {
		assert_int_equal(id, 12345);
		assert_int_equal(umt_address_space_find(tr, address, NULL), 0);
		return -1;
	}
	assert_int_equal(umt_address_space_find(tr, address, NULL), 1);
	return (int64_t)id;
}

/* Writes a trace holding only the given ranges, in array order. */
static char *write_ranges(int64_t (*r)[2], size_t n)
{
	char *dir = fx_tmpdir();
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, NULL, &w), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(umt_writer_add_address_range(w, r[i][0], r[i][1]), 0);
	assert_int_equal(umt_writer_finish(w), 0);
	return dir;
}

static void remove_dir(char *dir)
{
	fx_rmtree(dir);
	free(dir);
}

/* One range [0x400000, 0x40ffff]. */
static void test_handmade(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	umt_trace *tr = NULL;
	assert_int_equal(fx_open(&t, &tr), 0);
	umt_trace_info info;
	assert_int_equal(umt_trace_get_info(tr, &info), 0);
	assert_int_equal(info.address_range_count, 1);
	assert_int_equal(umt_address_range_count(tr), 1);
	assert_int_equal(umt_address_range_count(NULL), 0);
	const umt_address_range *r;
	assert_int_equal(umt_address_range_get(tr, 0, &r), 0);
	assert_ptr_equal(r, t.data[UMT_FILE_ADDRESS_SPACE] + 32);
	assert_int_equal(r->First, 0x400000);
	assert_int_equal(r->Last, 0x40ffff);

	assert_int_equal(find(tr, 0x400000), 0);
	assert_int_equal(find(tr, 0x40ffff), 0);
	assert_int_equal(find(tr, 0x408000), 0);
	assert_int_equal(find(tr, 0x3fffff), -1);
	assert_int_equal(find(tr, 0x410000), -1);
	assert_int_equal(find(tr, 0), -1);
	assert_int_equal(find(tr, UINT64_MAX), -1);

	assert_int_equal(umt_address_range_get(tr, 1, &r), UMT_E_RANGE);
	assert_non_null(strstr(umt_errmsg(), "address_space.itable"));
	assert_int_equal(umt_address_range_get(tr, UINT64_MAX, &r), UMT_E_RANGE);
	assert_int_equal(umt_address_range_get(NULL, 0, &r), UMT_E_INVAL);
	assert_int_equal(umt_address_range_get(tr, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_address_space_find(NULL, 0x400000, NULL), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_std(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_address_range_count(tr), STD_RANGES);
	const umt_address_range *r;
	assert_int_equal(umt_address_range_get(tr, 1, &r), 0);
	assert_int_equal(r->First, 0x7ffdc000);
	assert_int_equal(r->Last, 0x7ffdefff);
	assert_int_equal(find(tr, 0x3fffff), -1);
	assert_int_equal(find(tr, 0x400000), 0);
	assert_int_equal(find(tr, 0x40ffff), 0);
	assert_int_equal(find(tr, 0x410000), -1);
	assert_int_equal(find(tr, 0x7ffdbfff), -1);
	assert_int_equal(find(tr, 0x7ffdc000), 1);
	assert_int_equal(find(tr, 0x7ffdefff), 1);
	assert_int_equal(find(tr, 0x7ffdf000), -1);
	umt_trace_close(tr);
	remove_dir(dir);
}

static void test_empty(void **state)
{
	(void)state;
	char *dir = write_ranges(NULL, 0);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_address_range_count(tr), 0);
	assert_int_equal(find(tr, 0), -1);
	assert_int_equal(find(tr, 0x400000), -1);
	assert_int_equal(find(tr, UINT64_MAX), -1);
	const umt_address_range *r;
	assert_int_equal(umt_address_range_get(tr, 0, &r), UMT_E_RANGE);
	assert_non_null(strstr(umt_errmsg(), "address_space.itable"));
	umt_trace_close(tr);
	remove_dir(dir);
}

/* Ranges at both ends of the (unsigned) address space. */
static void test_extremes(void **state)
{
	(void)state;
	static int64_t r[3][2] = {{0, 0xfff}, {0x7ffffffff000, 0x7fffffffffff},
	                                {(int64_t)0xfffffffffffff000ull, -1}};
	char *dir = write_ranges(r, 3);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(find(tr, 0), 0);
	assert_int_equal(find(tr, 0xfff), 0);
	assert_int_equal(find(tr, 0x1000), -1);
	assert_int_equal(find(tr, 0x7ffffffff000), 1);
	assert_int_equal(find(tr, 0x800000000000), -1);
	assert_int_equal(find(tr, 0xffffffffffffefffull), -1);
	assert_int_equal(find(tr, 0xfffffffffffff000ull), 2);
	assert_int_equal(find(tr, UINT64_MAX), 2);
	umt_trace_close(tr);
	remove_dir(dir);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state % n;
}

/* 1000 sorted disjoint ranges against a brute-force scan. */
static void test_many(void **state)
{
	(void)state;
	enum { N = 1000 };
	static int64_t r[N][2];
	uint64_t page = 1;
	for (size_t i = 0; i < N; i++) {
		page += rnd(4); /* adjacent ranges too */
		r[i][0] = (int64_t)(page * 0x1000);
		page += 1 + rnd(8);
		r[i][1] = (int64_t)(page * 0x1000 - 1);
	}
	char *dir = write_ranges(r, N);
	umt_trace *tr = fx_must_open_dir(dir);
	assert_int_equal(umt_address_range_count(tr), N);
	unsigned long hits = 0;
	for (int k = 0; k < 30000; k++) {
		uint64_t a;
		if (k < 4 * N) { /* every edge and its neighbours */
			size_t i = (size_t)k / 4;
			a = (uint64_t)r[i][k % 2] + (k % 4 < 2 ? 0 : (k % 2 ? 1 : (uint64_t)-1));
		} else {
			a = rnd((page + 2) * 0x1000);
		}
		int64_t want = -1;
		for (size_t i = 0; i < N; i++)
			if ((uint64_t)r[i][0] <= a && a <= (uint64_t)r[i][1])
				want = (int64_t)i;
		assert_int_equal(find(tr, a), want);
		hits += want >= 0;
	}
	assert_true(hits > 10000 && hits < 29000);
	umt_trace_close(tr);
	remove_dir(dir);
}

/* Unsorted, overlapping and inverted ranges: any answer, but a found range contains the address. */
static void test_corrupt(void **state)
{
	(void)state;
	enum { N = 300 };
	static int64_t r[N][2];
	for (size_t i = 0; i < N; i++) {
		uint64_t a = rnd(0x1000000), b = rnd(4) == 0 ? a - rnd(0x10000) : a + rnd(0x100000);
		r[i][0] = (int64_t)a;
		r[i][1] = (int64_t)b;
	}
	r[7][0] = -1; /* First at the top of the address space */
	r[8][1] = -1;
	char *dir = write_ranges(r, N);
	umt_trace *tr = fx_must_open_dir(dir);
	for (int k = 0; k < 20000; k++) {
		uint64_t a = k < 2 * N ? (uint64_t)r[k / 2][k % 2] : rnd(0x1200000);
		int64_t got = find(tr, a);
		if (got >= 0)
			assert_true((uint64_t)r[got][0] <= a && a <= (uint64_t)r[got][1]);
	}
	umt_trace_close(tr);
	remove_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handmade),
		cmocka_unit_test(test_std),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_corrupt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
