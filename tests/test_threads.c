/*
 * lazy.c: one trace handle shared by 8 threads through every part built on
 * first use: the exec.prev_next.column mapping (umt_exec_links, thread
 * iterators, umt_exec_advise, umt_trace_advise), the bitmap of checked
 * record chunks (block scans), the bitmap of checked instruction rows
 * (umt_ins_decoded), the rows decoded by Zydis (umt_sem_get), the module
 * index (umt_module_find), trace.xml
 * (umt_trace_meta, umt_reg_name through the XED version), and umt_verify(),
 * which uses several of them.
 *
 * The threads wait at a barrier and then race to be first: each starts its
 * round of steps at a different step, so that every part is built by one
 * thread while others wait for it or already read it. A fresh handle per
 * round. Every thread checks exact values against the standard trace's
 * definition (std_trace.h), not against another call of the library.
 *
 * Built in the normal suites, and by tools/quickstart.sh test with
 * -DUMT_TSAN=ON, where ThreadSanitizer (TSAN_OPTIONS=halt_on_error=1) fails
 * it on any data race, such as reading the lazily published mapping without
 * an acquire load.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "std_trace.h"

#define THREADS 8
#define ROUNDS 12

/* One worker's view: the shared handle, and what went wrong (cmocka is not thread-safe). */
struct worker {
	const umt_trace *t;
	pthread_barrier_t *start;
	int first_step;
	int failures;
	char first[256];
};

static void failed(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void failed(struct worker *w, const char *fmt, ...)
{
	if (w->failures++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->first, sizeof w->first, fmt, ap);
		va_end(ap);
	}
}

#define CHECK(w, cond) \
	((cond) ? (void)0 : failed(w, "%s:%d: %s (%s)", __FILE__, __LINE__, #cond, umt_errmsg()))

/* The Prev and Next of record @p id by the definition: neighbours of the same thread. */
static void links_of(uint64_t id, int64_t *prev, int64_t *next)
{
	*prev = *next = -1;
	for (int64_t j = (int64_t)id - 1; j >= 0 && *prev < 0; j--)
		if (std_threads[j] == std_threads[id])
			*prev = j;
	for (uint64_t j = id + 1; j < STD_RECORDS && *next < 0; j++)
		if (std_threads[j] == std_threads[id])
			*next = (int64_t)j;
}

static void step_links(struct worker *w)
{
	CHECK(w, umt_trace_advise(w->t, UMT_FILE_EXEC_PREV_NEXT, UMT_ADVISE_WILLNEED) == 0);
	for (uint64_t id = 0; id < STD_RECORDS; id++) {
		int64_t p, n, ep, en;
		links_of(id, &ep, &en);
		CHECK(w, umt_exec_links(w->t, id, &p, &n) == 0 && p == ep && n == en);
	}
	CHECK(w, umt_exec_advise(w->t, 0, STD_RECORDS, UMT_ADVISE_NORMAL) == 0);
}

static void step_thread_iters(struct worker *w)
{
	for (uint64_t th = 0; th < STD_THREADS; th++) {
		umt_thread_iter it;
		umt_rec r;
		uint64_t expect = 0, seen = 0;
		CHECK(w, umt_thread_iter_init_thread(&it, w->t, th) == 0);
		while (umt_thread_iter_next(&it, &r) == 1) {
			while (expect < STD_RECORDS && (uint64_t)std_threads[expect] != th)
				expect++;
			CHECK(w, r.id == expect);
			expect++;
			seen++;
		}
		uint64_t want = 0;
		for (uint64_t id = 0; id < STD_RECORDS; id++)
			want += (uint64_t)std_threads[id] == th;
		CHECK(w, seen == want);
	}
	CHECK(w, umt_trace_advise(w->t, UMT_FILE_EXEC_PREV_NEXT, UMT_ADVISE_NORMAL) == 0);
}

static void step_blocks(struct worker *w)
{
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t n = 0;
	int got;
	CHECK(w, umt_exec_iter_init(&it, w->t, 0, UINT64_MAX) == 0);
	while ((got = umt_exec_iter_next_block(&it, &b, 7)) > 0)
		for (int i = 0; i < got; i++, n++)
			CHECK(w, umt_block_data(&b, (uint32_t)i)[4] == std_types[b.first + (uint64_t)i]);
	CHECK(w, got == 0 && n == STD_RECORDS);
}

static void step_decoded(struct worker *w)
{
	for (uint64_t i = 0; i < STD_INS; i++) {
		umt_decoded d;
		CHECK(w, umt_ins_decoded(w->t, i, &d) == 0 && d.ins->LCSize == std_ins_lc_size[i]);
	}
}

/* The rows' code bytes through Zydis (objdump: mov rax, [rbx+rcx*4+0x10]; push rbp; lea; nop). */
static void step_semantics(struct worker *w)
{
	static const char *const mnemonic[STD_INS] = {"mov", "push", "lea", "nop", "nop"};
	static const uint8_t length[STD_INS] = {5, 1, 4, 1, 1};
	for (uint64_t i = 0; i < STD_INS; i++) {
		umt_sem s;
		CHECK(w, umt_sem_get(w->t, i, &s) == 0 && s.length == length[i] &&
		         strcmp(umt_sem_mnemonic_name(s.mnemonic), mnemonic[i]) == 0);
	}
}

static void step_modules(struct worker *w)
{
	uint64_t id = 99;
	CHECK(w, umt_module_find(w->t, (uint64_t)std_ins_addr[0], 5, &id) == 0 && id == 0);
	CHECK(w, umt_module_find(w->t, 0x10000010, 25, &id) == 0 && id == 1);
	CHECK(w, umt_module_find(w->t, 0x10000010, 35, &id) == UMT_E_NOT_FOUND);
}

static void step_meta(struct worker *w)
{
	const umt_meta *m;
	char name[UMT_REG_NAME_MAX];
	CHECK(w, umt_reg_name(w->t, 74, name, sizeof name) != NULL && strcmp(name, "rax") == 0);
	CHECK(w, umt_trace_meta(w->t, &m) == 0);
	CHECK(w, m != NULL && strcmp(umt_meta_get(m, "Xed/Version"), "20150121") == 0);
}

static void step_verify(struct worker *w)
{
	umt_verify_result res;
	CHECK(w, umt_verify(w->t, NULL, &res) == 0 && res.errors == 0 &&
	         res.records == STD_RECORDS);
}

static void (*const steps[])(struct worker *) = {
	step_links, step_thread_iters, step_blocks, step_decoded,
	step_semantics, step_modules, step_meta, step_verify,
};
#define STEPS (int)(sizeof steps / sizeof steps[0])

static void *run(void *arg)
{
	struct worker *w = arg;
	pthread_barrier_wait(w->start);
	for (int k = 0; k < STEPS; k++)
		steps[(w->first_step + k) % STEPS](w);
	return NULL;
}

static void test_one_handle_many_threads(void **state)
{
	(void)state;
	char *dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(dir, UMT_FLAVOUR_2015), 0);
	for (int round = 0; round < ROUNDS; round++) {
		umt_trace *t;
		/* from a directory: exec.prev_next.column is mapped on first use */
		assert_int_equal(umt_trace_open(dir, round % 2 ? UMT_OPEN_RANDOM : 0, &t), 0);
		pthread_barrier_t start;
		pthread_barrier_init(&start, NULL, THREADS);
		pthread_t tid[THREADS];
		struct worker w[THREADS];
		for (int i = 0; i < THREADS; i++) {
			w[i] = (struct worker){t, &start, (i + round) % STEPS, 0, ""};
			assert_int_equal(pthread_create(&tid[i], NULL, run, &w[i]), 0);
		}
		for (int i = 0; i < THREADS; i++) {
			pthread_join(tid[i], NULL);
			if (w[i].failures)
				print_error("round %d, thread %d: %d failures, first: %s\n", round, i,
				            w[i].failures, w[i].first);
			assert_int_equal(w[i].failures, 0);
		}
		pthread_barrier_destroy(&start);
		umt_trace_close(t);
	}
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_handle_many_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
