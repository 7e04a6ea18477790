/*
 * src/index/call*.c: the calls section of the index, checked against things
 * its code does not produce:
 *   - umtgen's ground truth (docs/umtgen.md, "call" lines): every call of
 *     the simulated machine with its return record, depth and parent,
 *     exactly, over seeds, both flavours, 32-bit code, several threads,
 *     deep recursion, an aborted process; exceptions that abandon frames
 *     and tail jumps come with every generated program;
 *   - a shadow stack written here from index.h's matching rule through the
 *     reader's public API (umt_sem_get, umt_access_iter, umt_context_reg):
 *     the stack at sampled records of every thread, and every call's end;
 *   - a hand-built trace whose calls, rets and contexts make each case of
 *     the rule (unmatched rets, abandonment by a call, a ret and a context,
 *     tail jumps, faulting calls, a thread outside the thread table), with
 *     the answers worked out by hand;
 *   - the queries (by thread, target, module, record range, limit) against
 *     a filter of the full list; indexes built with 1 and 2 threads and a
 *     tiny budget byte for byte; every byte of the section's files damaged;
 *     a build killed at every point of its commit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "check.h"
#include "commit.h"
#include "gen/jsonl.h"
#include "umtrace/index.h"

#define NONE UMT_NO_RECORD

/* ---- helpers ------------------------------------------------------------------------------ */

static char *tmp_path(const char *dir, const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void umtgen(const char *out, const char *args)
{
	const char *gen = getenv("UMTGEN") ? getenv("UMTGEN") : "../tools/umtgen/umtgen";
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s --quiet %s %s", gen, args, out);
	if (system(cmd) != 0)
		fail_msg("%s failed", cmd);
}

static void build(umt_trace *t, const char *dir, unsigned threads, uint64_t memory)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = threads;
	if (memory)
		o.memory = memory;
	int rc = umt_index_build(t, dir, &o, NULL);
	if (rc)
		print_error("build: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
}

static umt_index *build_open(umt_trace *t, const char *dir, unsigned threads, uint64_t memory)
{
	build(t, dir, threads, memory);
	umt_index *ix;
	int rc = umt_index_open(t, dir, &ix);
	if (rc)
		print_error("open: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	return ix;
}

/* Every call of the index, in record order. */
static umt_call *all_calls(umt_index *ix, const umt_calls_query *q, size_t *n)
{
	umt_calls_query all;
	umt_calls_query_init(&all);
	umt_calls *c;
	size_t cap = 1024;
	umt_call *v = malloc(cap * sizeof *v);
	int rc = umt_calls_open(ix, q ? q : &all, &c);
	if (rc)
		print_error("calls: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	*n = 0;
	while ((rc = umt_calls_next(c, &v[*n])) > 0)
		if (++*n == cap)
			v = realloc(v, (cap *= 2) * sizeof *v);
	if (rc)
		print_error("calls: %s\n", umt_errmsg());
	assert_int_equal(rc, 0);
	umt_calls_close(c);
	return v;
}

/* ---- against umtgen's truth --------------------------------------------------------------- */

struct tcall {
	uint64_t id, thread, caller, target, ret, depth, parent;
};

static int cmp_tcall(const void *a, const void *b)
{
	const struct tcall *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The truth's call lines, by call record. */
static struct tcall *truth_calls(const char *path, size_t *n)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0, vcap = 256;
	struct tcall *v = malloc(vcap * sizeof *v);
	*n = 0;
	while (getline(&line, &cap, f) > 0) {
		if (strstr(line, "\"kind\":\"call\"") == NULL)
			continue;
		struct jv j;
		assert_int_equal(json_parse(line, &j), 0);
		struct tcall *c = &v[*n];
		assert_int_equal(json_u64(&j, "id", &c->id), 0);
		assert_int_equal(json_u64(&j, "thread_id", &c->thread), 0);
		assert_int_equal(json_u64(&j, "caller", &c->caller), 0);
		assert_int_equal(json_u64(&j, "target", &c->target), 0);
		assert_int_equal(json_u64(&j, "depth", &c->depth), 0);
		if (json_u64(&j, "return_id", &c->ret) < 0)
			c->ret = NONE;
		if (json_u64(&j, "parent", &c->parent) < 0)
			c->parent = NONE;
		json_free(&j);
		if (++*n == vcap)
			v = realloc(v, (vcap *= 2) * sizeof *v);
	}
	free(line);
	fclose(f);
	qsort(v, *n, sizeof *v, cmp_tcall);
	return v;
}

/* A truth call the index leaves out: made by an aborted record (index.h: untrusted). */
static bool truth_skips(umt_trace *t, const struct tcall *c)
{
	umt_rec r;
	assert_int_equal(umt_exec_get(t, c->id, &r), 0);
	return umt_rec_is_incomplete(&r);
}

static void expect_truth(umt_trace *t, umt_index *ix, const char *truth, unsigned *abandoned)
{
	size_t nt, ni, skipped = 0, j = 0;
	struct tcall *want = truth_calls(truth, &nt);
	umt_call *got = all_calls(ix, NULL, &ni);
	for (size_t i = 0; i < nt; i++) {
		const struct tcall *w = &want[i];
		if (truth_skips(t, w)) {
			skipped++;
			continue;
		}
		assert_true(j < ni);
		const umt_call *g = &got[j++];
		if (g->id != w->id || g->return_id != w->ret || g->depth != w->depth ||
		    g->parent != w->parent || g->caller != w->caller || g->target != w->target ||
		    g->thread_id != (int32_t)w->thread)
			print_error("call %llu: index ret %llu depth %u parent %llu target 0x%llx; truth "
			            "call %llu ret %llu depth %llu parent %llu target 0x%llx\n",
			            (unsigned long long)g->id, (unsigned long long)g->return_id, g->depth,
			            (unsigned long long)g->parent, (unsigned long long)g->target,
			            (unsigned long long)w->id, (unsigned long long)w->ret,
			            (unsigned long long)w->depth, (unsigned long long)w->parent,
			            (unsigned long long)w->target);
		assert_int_equal(g->id, w->id);
		assert_int_equal(g->thread_id, w->thread);
		assert_int_equal(g->caller, w->caller);
		assert_int_equal(g->target, w->target);
		assert_int_equal(g->return_id, w->ret);
		assert_int_equal(g->depth, w->depth);
		assert_int_equal(g->parent, w->parent);
		assert_int_equal(g->end == UMT_CALL_RETURNED, w->ret != NONE);
		*abandoned += g->end == UMT_CALL_ABANDONED;
	}
	assert_int_equal(j, ni);
	umt_calls_info info;
	assert_int_equal(umt_calls_info_get(ix, &info), 0);
	assert_int_equal(info.calls, ni);
	assert_true(info.ignored >= skipped);
	print_message("truth: %zu calls (%zu made by aborted records), %llu returned, %llu "
	              "abandoned, %llu open, %llu unmatched rets, %llu ignored\n", nt, skipped,
	              (unsigned long long)info.returned, (unsigned long long)info.abandoned,
	              (unsigned long long)info.open, (unsigned long long)info.unmatched,
	              (unsigned long long)info.ignored);
	free(want);
	free(got);
}

static void check_truth(const char *args, bool want_abandoned)
{
	char *dir = fx_tmpdir(), *trace = tmp_path(dir, "t"), *idx = tmp_path(dir, "i");
	char *truth = tmp_path(dir, "truth.jsonl"), gen_args[512];
	snprintf(gen_args, sizeof gen_args, "%s --truth %s --truth-every 0", args, truth);
	umtgen(trace, gen_args);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx, 2, 0);
	unsigned abandoned = 0;
	expect_truth(t, ix, truth, &abandoned);
	if (want_abandoned)
		assert_true(abandoned > 0);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx), free(truth);
}

static void test_truth(void **state)
{
	(void)state;
	/* seeds whose programs raise exceptions (guarded calls unwound by the kernel) */
	check_truth("--records 30000 --threads 3 --seed 68", true);
	check_truth("--records 20000 --threads 2 --seed 93 --flavour 2014", true);
	check_truth("--records 20000 --threads 4 --seed 87 --code32", true);
	check_truth("--records 20000 --threads 3 --seed 92 --call-depth 12", true);
	check_truth("--records 20000 --threads 5 --seed 93 --abort", true);
	check_truth("--records 20000 --threads 2 --seed 85 --abort --code32 --flavour 2014", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_truth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
