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

#include "calltrace.h"
#include "check.h"
#include "commit.h"
#include "gen/jsonl.h"
#include "index/calls.h"
#include "umtrace/index.h"

#define NONE UMT_NO_RECORD

/* ---- helpers ------------------------------------------------------------------------------ */

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

/* ---- the shadow stack: index.h's matching rule, written again from the reader's API ----------- */

struct sframe {
	uint64_t slot, id;
};

struct sthread {
	struct sframe *f;
	size_t n, cap;
};

/* An end of a call, as the shadow stack sees it. */
struct send {
	uint64_t id, end_id;
	unsigned end;
};

struct shadow {
	umt_trace *t;
	int exec_version, rsp, esp;
	struct sthread *th;
	uint64_t nthreads;
	struct send *ends;
	size_t nends, cap;
	uint64_t unmatched, ignored;
};

static void shadow_init(struct shadow *s, umt_trace *t)
{
	umt_trace_info info;
	memset(s, 0, sizeof *s);
	assert_int_equal(umt_trace_get_info(t, &info), 0);
	s->t = t;
	s->exec_version = info.exec_version;
	s->rsp = umt_reg_by_name(t, "rsp");
	s->esp = umt_reg_by_name(t, "esp");
	s->nthreads = umt_thread_count(t);
	s->th = calloc(s->nthreads + 1, sizeof *s->th);
}

static void shadow_end(struct shadow *s, struct sthread *th, uint64_t end_id, unsigned end)
{
	if (s->nends == s->cap)
		s->ends = realloc(s->ends, (s->cap = s->cap ? 2 * s->cap : 256) * sizeof *s->ends);
	s->ends[s->nends++] = (struct send){th->f[--th->n].id, end_id, end};
}

/* The lowest trusted address of the record's accesses of @p kind; false when none. */
static bool lowest(umt_trace *t, const umt_rec *r, unsigned kind, uint64_t *slot)
{
	umt_access_iter it;
	umt_access a;
	bool any = false;
	if (umt_access_iter_init(&it, t, r, kind) < 0)
		return false;
	while (umt_access_iter_next(&it, &a) > 0)
		if ((a.trust & UMT_TRUST_ADDRESS) && (!any || a.address < *slot))
			*slot = a.address, any = true;
	return any;
}

/* The frames below @p sp (or at it) of a thread go, abandoned at record @p id. */
static void shadow_unwind(struct shadow *s, struct sthread *th, uint64_t sp, bool at_too, uint64_t id)
{
	while (th->n && (th->f[th->n - 1].slot < sp || (at_too && th->f[th->n - 1].slot == sp)))
		shadow_end(s, th, id, UMT_CALL_ABANDONED);
}

static void shadow_branch(struct shadow *s, const umt_rec *r, struct sthread *th)
{
	int64_t ins;
	umt_sem sem;
	uint64_t slot = 0;
	if (umt_rec_ins(r, &ins, NULL, NULL) < 0 || umt_sem_get(s->t, (uint64_t)ins, &sem) < 0 ||
	    (sem.category != UMT_SEM_CALL && sem.category != UMT_SEM_RET))
		return;
	bool call = sem.category == UMT_SEM_CALL;
	if (th == NULL || umt_exec_reliability(s->exec_version, r->flags) != 3 ||
	    !lowest(s->t, r, call ? UMT_ACCESS_WRITE : UMT_ACCESS_READ, &slot)) {
		s->ignored++;
		return;
	}
	if (call) {
		shadow_unwind(s, th, slot, true, r->id);
		if (th->n == th->cap)
			th->f = realloc(th->f, (th->cap = th->cap ? 2 * th->cap : 64) * sizeof *th->f);
		th->f[th->n++] = (struct sframe){slot, r->id};
		return;
	}
	shadow_unwind(s, th, slot, false, r->id);
	if (th->n && th->f[th->n - 1].slot == slot)
		shadow_end(s, th, r->id, UMT_CALL_RETURNED);
	else
		s->unmatched++;
}

/* Record @p r changes the stacks. */
static void shadow_apply(struct shadow *s, const umt_rec *r)
{
	struct sthread *th = r->thread_id >= 0 && (uint64_t)r->thread_id < s->nthreads
	                             ? &s->th[r->thread_id] : NULL;
	umt_context c;
	umt_value v;
	if (r->type == UMT_REC_INSTRUCTION) {
		shadow_branch(s, r, th);
	} else if (th && (r->type == UMT_REC_SYSCALL_EXIT || r->type >= UMT_REC_CTX_APC) &&
	           umt_rec_context(s->t, r, &c) == 0) {
		int reg = c.is_64bit ? s->rsp : s->esp;
		if (reg >= 0 && umt_context_reg(s->t, &c, reg, &v) == 0)
			shadow_unwind(s, th, umt_value_u64(&v), false, r->id);
	}
}

/* umt_stack_at() of thread @p thread at record @p at against the shadow stack. */
static void expect_stack(umt_index *ix, const struct shadow *s, uint64_t at, int64_t thread)
{
	umt_frame f[64];
	size_t depth;
	const struct sthread *th = &s->th[thread];
	assert_int_equal(umt_stack_at(ix, at, thread, f, 64, &depth), 0);
	if (depth != th->n)
		print_error("stack of thread %lld at %llu: %zu frames, the shadow has %zu\n",
		            (long long)thread, (unsigned long long)at, depth, th->n);
	assert_int_equal(depth, th->n);
	for (size_t i = 0; i < depth && i < 64; i++) {
		assert_int_equal(f[i].call.id, th->f[th->n - 1 - i].id);
		assert_int_equal(f[i].call.return_address, f[i].call.caller + f[i].call.length);
		assert_true(f[i].call.id < at && at <= f[i].call.end_id);
	}
}

static int cmp_send(const void *a, const void *b)
{
	const struct send *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Every call's end against the shadow's; the counts of the section. */
static void expect_ends(umt_index *ix, struct shadow *s)
{
	size_t n;
	umt_call *c = all_calls(ix, NULL, &n);
	for (uint64_t i = 0; i < s->nthreads; i++)
		while (s->th[i].n)
			shadow_end(s, &s->th[i], NONE, UMT_CALL_OPEN);
	qsort(s->ends, s->nends, sizeof *s->ends, cmp_send);
	assert_int_equal(n, s->nends);
	umt_calls_info info;
	assert_int_equal(umt_calls_info_get(ix, &info), 0);
	uint64_t count[3] = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c[i].id, s->ends[i].id);
		assert_int_equal(c[i].end, s->ends[i].end);
		assert_int_equal(c[i].end_id, s->ends[i].end_id);
		count[c[i].end]++;
	}
	assert_int_equal(info.returned, count[UMT_CALL_RETURNED]);
	assert_int_equal(info.abandoned, count[UMT_CALL_ABANDONED]);
	assert_int_equal(info.open, count[UMT_CALL_OPEN]);
	assert_int_equal(info.unmatched, s->unmatched);
	assert_int_equal(info.ignored, s->ignored);
	free(c);
}

/*
 * The stacks at records every @p every (and at records of a context, where
 * frames are abandoned), for the record's thread and another one.
 */
static void check_stacks(umt_trace *t, umt_index *ix, uint64_t every)
{
	struct shadow s;
	shadow_init(&s, t);
	umt_exec_iter it;
	umt_rec r;
	uint64_t checked = 0;
	assert_int_equal(umt_exec_iter_init(&it, t, 0, UINT64_MAX), 0);
	while (umt_exec_iter_next(&it, &r) > 0) {
		if (s.nthreads && (r.id % every == 0 || r.type >= UMT_REC_CTX_APC)) {
			int64_t other = (int64_t)((r.id / every) % s.nthreads);
			if (r.thread_id >= 0 && (uint64_t)r.thread_id < s.nthreads)
				expect_stack(ix, &s, r.id, r.thread_id);
			expect_stack(ix, &s, r.id, other);
			checked++;
		}
		shadow_apply(&s, &r);
	}
	assert_true(checked > 0);
	expect_ends(ix, &s);
	for (uint64_t i = 0; i < s.nthreads; i++)
		free(s.th[i].f);
	free(s.th);
	free(s.ends);
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
	struct fx_gen g;
	fx_gen_truth(&g, args, 0);
	unsigned abandoned = 0;
	expect_truth(g.t, g.ix, g.truth, &abandoned);
	if (want_abandoned)
		assert_true(abandoned > 0);
	check_stacks(g.t, g.ix, 37);
	assert_int_equal(umt_index_verify(g.ix), 0);
	fx_gen_free(&g);
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

/* ---- the hand-built trace (tests/fixtures/calltrace.c) ---------------------------------------- */

#define A 3
#define B 5
#define C 6
#define D 10
#define E 11
#define F 12
#define H 15
#define I 16
#define J 18
#define K 21

static const struct hcall {
	uint64_t id;
	int32_t thread;
	uint32_t depth;
	uint64_t parent, target;
	uint8_t source, end;
	uint64_t end_id;
} hand[] = {
	{A, 0, 0, NONE, FX_NOP_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_ABANDONED, 19},
	{B, 0, 1, A, FX_NOP_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_RETURNED, 9},
	{C, 1, 0, NONE, FX_RET_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_RETURNED, 17},
	{D, 0, 1, A, FX_CALL_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_ABANDONED, 16},
	{E, 0, 2, D, FX_CALL_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_ABANDONED, 13},
	{F, 0, 3, E, FX_NOP_AT, UMT_CALL_TARGET_DECODED, UMT_CALL_ABANDONED, 13},
	{H, 0, 2, D, FX_CALL_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_ABANDONED, 16},
	{I, 0, 1, A, FX_RET_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_ABANDONED, 19},
	{J, 1, 0, NONE, FX_CALL_AT, UMT_CALL_TARGET_NEXT, UMT_CALL_OPEN, NONE},
	{K, 0, 0, NONE, FX_NOP_AT, UMT_CALL_TARGET_DECODED, UMT_CALL_OPEN, NONE},
};
#define HAND (sizeof hand / sizeof hand[0])

static void expect_hand_call(const umt_call *g, const struct hcall *w)
{
	assert_int_equal(g->id, w->id);
	assert_int_equal(g->thread_id, w->thread);
	assert_int_equal(g->depth, w->depth);
	assert_int_equal(g->parent, w->parent);
	assert_int_equal(g->caller, FX_CALL_AT);
	assert_int_equal(g->length, 5);
	assert_int_equal(g->return_address, FX_CALL_AT + 5);
	assert_int_equal(g->target, w->target);
	assert_int_equal(g->target_source, w->source);
	assert_int_equal(g->end, w->end);
	assert_int_equal(g->end_id, w->end_id);
	assert_int_equal(g->return_id, w->end == UMT_CALL_RETURNED ? w->end_id : NONE);
	assert_int_equal(g->module, 0);
	assert_int_equal(g->module_offset, w->target - FX_MODULE_BASE);
}

/* The calls a query gives: their records, in order. */
static void expect_query(umt_index *ix, const umt_calls_query *q, const uint64_t *ids, size_t n)
{
	size_t got;
	umt_call *c = all_calls(ix, q, &got);
	assert_int_equal(got, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c[i].id, ids[i]);
	free(c);
}

static void expect_hand_stack(umt_index *ix, uint64_t at, int64_t thread, const uint64_t *ids,
                              size_t n)
{
	umt_frame f[8];
	size_t depth;
	assert_int_equal(umt_stack_at(ix, at, thread, f, 8, &depth), 0);
	if (depth != n)
		print_error("stack of thread %lld at %llu: %zu frames, not %zu\n", (long long)thread,
		            (unsigned long long)at, depth, n);
	assert_int_equal(depth, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(f[i].call.id, ids[i]);
		assert_int_equal(f[i].module, 0);
		assert_int_equal(f[i].module_offset, FX_CALL_AT + 5 - FX_MODULE_BASE);
	}
}

static void hand_queries(umt_index *ix)
{
	umt_calls_query q;
	umt_calls_query_init(&q);
	q.thread = 1;
	expect_query(ix, &q, (const uint64_t[]){C, J}, 2);
	umt_calls_query_init(&q);
	q.target_first = q.target_last = FX_CALL_AT;
	expect_query(ix, &q, (const uint64_t[]){D, E, H, J}, 4);
	umt_calls_query_init(&q);
	q.target_first = FX_NOP_AT;
	q.target_last = FX_RET_AT;
	expect_query(ix, &q, (const uint64_t[]){A, B, C, F, I, K}, 6);
	umt_calls_query_init(&q);
	q.module = 0;
	q.offset_first = FX_NOP_AT - FX_MODULE_BASE;
	q.offset_last = FX_RET_AT - 1 - FX_MODULE_BASE;
	expect_query(ix, &q, (const uint64_t[]){A, B, F, K}, 4);
	umt_calls_query_init(&q);
	q.from = D;
	q.to = I;
	expect_query(ix, &q, (const uint64_t[]){D, E, F, H}, 4);
	umt_calls_query_init(&q);
	q.limit = 3;
	expect_query(ix, &q, (const uint64_t[]){A, B, C}, 3);
	umt_calls_query_init(&q);
	q.thread = 0;
	q.target_first = q.target_last = FX_RET_AT;
	q.from = 1;
	expect_query(ix, &q, (const uint64_t[]){I}, 1);
	q.target_first = q.target_last = FX_RET_AT + 1; /* no such target */
	expect_query(ix, &q, NULL, 0);
	umt_calls_query_init(&q);
	q.module = 1;
	umt_calls *c;
	fx_expect_error(umt_calls_open(ix, &q, &c), UMT_E_RANGE, "module", NULL);
	q.module = -1;
	q.target_first = 2;
	q.target_last = 1;
	fx_expect_error(umt_calls_open(ix, &q, &c), UMT_E_INVAL, "umt_calls_open", NULL);
}

static void hand_stacks(umt_index *ix)
{
	expect_hand_stack(ix, 2, 0, NULL, 0);
	expect_hand_stack(ix, 6, 0, (const uint64_t[]){B, A}, 2);
	expect_hand_stack(ix, 7, -1, (const uint64_t[]){B, A}, 2);
	expect_hand_stack(ix, 6, -1, NULL, 0); /* record 6 is thread 1's first call */
	expect_hand_stack(ix, 12, 0, (const uint64_t[]){E, D, A}, 3);
	expect_hand_stack(ix, 13, 0, (const uint64_t[]){F, E, D, A}, 4);
	expect_hand_stack(ix, 14, 0, (const uint64_t[]){D, A}, 2);
	expect_hand_stack(ix, 16, 0, (const uint64_t[]){H, D, A}, 3);
	expect_hand_stack(ix, 17, 0, (const uint64_t[]){I, A}, 2);
	expect_hand_stack(ix, 17, 1, (const uint64_t[]){C}, 1);
	expect_hand_stack(ix, 18, 1, NULL, 0);
	expect_hand_stack(ix, 19, -1, (const uint64_t[]){I, A}, 2);
	expect_hand_stack(ix, 23, 1, (const uint64_t[]){J}, 1);
	expect_hand_stack(ix, 20, 0, NULL, 0);
	expect_hand_stack(ix, 20, -1, NULL, 0); /* thread 5: no calls */
	expect_hand_stack(ix, 23, 0, (const uint64_t[]){K}, 1);
	size_t depth;
	umt_frame f[1];
	assert_int_equal(umt_stack_at(ix, 13, 0, NULL, 0, &depth), 0); /* only the depth */
	assert_int_equal(depth, 4);
	assert_int_equal(umt_stack_at(ix, 13, 0, f, 1, &depth), 0);
	assert_int_equal(depth, 4);
	assert_int_equal(f[0].call.id, F);
	fx_expect_error(umt_stack_at(ix, 24, 0, f, 1, &depth), UMT_E_RANGE, "umt_stack_at", NULL);
	fx_expect_error(umt_stack_at(ix, 1, 0, NULL, 1, &depth), UMT_E_INVAL, "umt_stack_at", NULL);
}

static void test_hand_built(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	assert_int_equal(fx_write_call_trace(trace), 0);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx, 1, 0);
	size_t n;
	umt_call *c = all_calls(ix, NULL, &n), one;
	assert_int_equal(n, HAND);
	for (size_t i = 0; i < n; i++) {
		expect_hand_call(&c[i], &hand[i]);
		assert_int_equal(umt_call_find(ix, hand[i].id, &one), 0);
		expect_hand_call(&one, &hand[i]);
	}
	free(c);
	fx_expect_error(umt_call_find(ix, 14, &one), UMT_E_NOT_FOUND, "record 14", NULL);
	fx_expect_error(umt_call_find(ix, 4, &one), UMT_E_NOT_FOUND, "record 4", NULL);
	fx_expect_error(umt_call_find(ix, 24, &one), UMT_E_RANGE, "24", NULL);
	umt_calls_info info;
	assert_int_equal(umt_calls_info_get(ix, &info), 0);
	assert_int_equal(info.calls, 10);
	assert_int_equal(info.threads, 2);
	assert_int_equal(info.targets, 3);
	assert_int_equal(info.returned, 2);
	assert_int_equal(info.abandoned, 6);
	assert_int_equal(info.open, 2);
	assert_int_equal(info.unmatched, 2);
	assert_int_equal(info.ignored, 3);
	hand_queries(ix);
	hand_stacks(ix);
	check_stacks(t, ix, 1);
	assert_int_equal(umt_index_verify(ix), 0);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

/* ---- the same bytes whatever the threads, the budget and the buffers ------------------------------ */

static const char *const section_files[] = {"calls.tab", "calls.thr", "calls.tgt", "calls.byt"};
#define NFILES (sizeof section_files / sizeof section_files[0])

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

static void put_file(const char *dir, const char *name, const unsigned char *b, size_t n)
{
	char *p = fx_path(dir, name);
	FILE *f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, n, f), n);
	fclose(f);
	free(p);
}

static void expect_same(const char *a, const char *b, const char *name)
{
	size_t na, nb;
	unsigned char *x = slurp(a, name, &na), *y = slurp(b, name, &nb);
	if (na != nb || memcmp(x, y, na) != 0)
		print_error("%s differs between %s and %s\n", name, a, b);
	assert_int_equal(na, nb);
	assert_memory_equal(x, y, na);
	free(x), free(y);
}

/* Buffers small enough that every spill of the section happens. */
static const struct calls_limits tiny = {
	.chunk = 3, .tail_cap = CALL_EVENT_MAX, .tail_keep = 8, .stack_block = 2,
	.window_min = 2, .window_max = 3, .window_bytes = 64, .patch_max = 5,
	.sort_entries = 7, .merge_bytes = 64, .merge_min = 2, .sort_depth = 2,
};

static void test_same_bytes(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t");
	fx_umtgen(trace, "--records 60000 --threads 5 --seed 92 --call-depth 12");
	umt_trace *t = fx_must_open_dir(trace);
	const struct calls_limits normal = umt__ix_calls_limits;
	/* heap: the sorter's buffer sorted by its fallback alone (callsort.c) */
	static const struct { unsigned threads; uint64_t memory; bool tiny, heap; const char *name; }
	b[] = {
		{1, 0, false, false, "i1"}, {2, 0, false, false, "i2"},
		{2, 1u << 20, false, false, "i2budget"}, {3, 1u << 20, true, false, "i3tiny"},
		{1, 0, true, false, "i1tiny"}, {1, 0, false, true, "i1heap"},
	};
	char *first = fx_path(dir, b[0].name);
	for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
		char *idx = fx_path(dir, b[i].name);
		umt__ix_calls_limits = b[i].tiny ? tiny : normal;
		if (b[i].heap)
			umt__ix_calls_limits.sort_depth = 0;
		umt_index *ix = build_open(t, idx, b[i].threads, b[i].memory);
		if (b[i].tiny) /* its replay spills the same way */
			assert_int_equal(umt_index_verify(ix), 0);
		umt_index_close(ix);
		for (size_t f = 0; f < NFILES; f++)
			expect_same(first, idx, section_files[f]);
		expect_same(first, idx, "index.umti");
		free(idx);
	}
	umt__ix_calls_limits = normal;
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(first);
}

/* ---- damaged section files ---------------------------------------------------------------------- */

/* What the damage tests compare: every call, and the stacks at a few records. */
struct answers {
	umt_call *calls;
	size_t n;
	size_t depth[8];
	uint64_t top[8];
};

static int get_answers(umt_index *ix, umt_trace *t, struct answers *a)
{
	umt_calls_query q;
	umt_calls *c;
	umt_calls_query_init(&q);
	int rc = umt_calls_open(ix, &q, &c);
	size_t cap = 64;
	a->calls = malloc(cap * sizeof *a->calls);
	a->n = 0;
	while (rc == 0 && a->n < 100000) { /* a damaged index ends, but may give more */
		if ((rc = umt_calls_next(c, &a->calls[a->n])) <= 0)
			break;
		rc = 0;
		if (++a->n == cap)
			a->calls = realloc(a->calls, (cap *= 2) * sizeof *a->calls);
	}
	umt_calls_close(c);
	for (unsigned i = 0; rc == 0 && i < 8; i++) {
		umt_frame f;
		uint64_t at = umt_exec_count(t) * i / 8;
		rc = umt_stack_at(ix, at, -1, &f, 1, &a->depth[i]);
		a->top[i] = rc == 0 && a->depth[i] ? f.call.id : NONE;
	}
	return rc;
}

static bool same_answers(const struct answers *x, const struct answers *y)
{
	if (x->n != y->n || memcmp(x->depth, y->depth, sizeof x->depth) ||
	    memcmp(x->top, y->top, sizeof x->top))
		return false;
	for (size_t i = 0; i < x->n; i++) {
		const umt_call *a = &x->calls[i], *b = &y->calls[i];
		if (a->id != b->id || a->thread_id != b->thread_id || a->depth != b->depth ||
		    a->caller != b->caller || a->target != b->target || a->end_id != b->end_id ||
		    a->parent != b->parent || a->end != b->end || a->target_source != b->target_source ||
		    a->length != b->length)
			return false;
	}
	return true;
}

/* Every @p stride-th byte of each section file flipped: open or verify fails, or nothing changed. */
static void damage(umt_trace *t, const char *idx, size_t stride)
{
	umt_index *ix = NULL;
	struct answers good, now;
	assert_int_equal(umt_index_open(t, idx, &ix), 0);
	assert_int_equal(get_answers(ix, t, &good), 0);
	umt_index_close(ix);
	unsigned detected = 0, harmless = 0;
	for (size_t f = 0; f < NFILES; f++) {
		size_t n;
		unsigned char *orig = slurp(idx, section_files[f], &n), *copy = malloc(n + 1);
		for (size_t i = 0; i < n; i += i < 64 ? 1 : stride) {
			memcpy(copy, orig, n);
			copy[i] ^= (unsigned char)(1u << (i % 8));
			put_file(idx, section_files[f], copy, n);
			if (umt_index_open(t, idx, &ix) < 0) {
				assert_true(*umt_errmsg() != '\0');
				detected++;
				continue;
			}
			bool same = get_answers(ix, t, &now) == 0 && same_answers(&good, &now);
			free(now.calls);
			int rc = umt_index_verify(ix);
			if (rc == 0 && !same)
				print_error("%s byte %zu: verify passes, answers differ\n", section_files[f], i);
			assert_true(rc < 0 || same);
			if (rc < 0)
				assert_non_null(strstr(umt_errmsg(), "calls."));
			rc < 0 ? detected++ : harmless++;
			umt_index_close(ix);
		}
		size_t cuts[] = {0, 1, 63, 64, n / 2, n - 1};
		for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
			put_file(idx, section_files[f], orig, cuts[c] < n ? cuts[c] : 0);
			int rc = umt_index_open(t, idx, &ix);
			assert_true(rc == UMT_E_INCOMPLETE || rc == UMT_E_TRUNCATED || rc == UMT_E_CORRUPT);
		}
		put_file(idx, section_files[f], orig, n);
		free(orig), free(copy);
	}
	print_message("damaged section bytes: %u detected, %u harmless\n", detected, harmless);
	assert_true(detected > harmless);
	free(good.calls);
}

static void test_damaged(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	assert_int_equal(fx_write_call_trace(trace), 0);
	umt_trace *t = fx_must_open_dir(trace);
	build(t, idx, 1, 0);
	damage(t, idx, 1);
	umt_trace_close(t);
	fx_umtgen(trace, "--records 6000 --threads 3 --seed 68");
	t = fx_must_open_dir(trace);
	build(t, idx, 2, 0);
	damage(t, idx, 97);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

/* ---- a build killed at every point of its commit ------------------------------------------------- */

/*
 * The hand-built trace's index is built again over an index of another
 * trace and killed at the k-th point of the commit, for every k: the
 * directory then holds the old index (stale), an incomplete one, or the new
 * one complete with its calls section (verify passes): never half of it.
 */
static void test_killed_build(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *other = fx_path(dir, "o");
	char *idx = fx_path(dir, "i");
	unsigned outcomes[3] = {0, 0, 0}, k = 1;
	fx_umtgen(other, "--records 3000 --threads 2 --seed 68");
	assert_int_equal(fx_write_call_trace(trace), 0);
	umt_trace *t = fx_must_open_dir(trace), *o = fx_must_open_dir(other);
	for (;; k++) {
		build(o, idx, 1, 0);
		int code = fx_build_killed_at(t, idx, NULL, k);
		umt_index *ix;
		int rc = umt_index_open(t, idx, &ix);
		if (rc == 0) {
			umt_calls_info info;
			assert_int_equal(umt_index_verify(ix), 0);
			assert_int_equal(umt_calls_info_get(ix, &info), 0);
			assert_int_equal(info.calls, HAND);
			umt_index_close(ix);
			outcomes[2]++;
		} else {
			assert_true(rc == UMT_E_STALE || rc == UMT_E_INCOMPLETE);
			outcomes[rc == UMT_E_STALE ? 0 : 1]++;
		}
		if (code == 0)
			break;
	}
	print_message("build killed at %u points: %u old, %u incomplete, %u new\n", k - 1,
	              outcomes[0], outcomes[1], outcomes[2]);
	assert_true(outcomes[0] > 0 && outcomes[1] > 0 && outcomes[2] > 0);
	umt_trace_close(t);
	umt_trace_close(o);
	fx_rmtree(dir);
	free(dir), free(trace), free(other), free(idx);
}

/* ---- arguments and return values against the truth's samples ------------------------------ */

/* What the truth says about a record: its thread's registers just before it (regs line) and
 * the memory it sampled (mem lines: the 64 bytes at the stack pointer among them). */
enum { R_A0, R_A1, R_A2, R_A3, R_AX, R_SP, R_COUNT };

struct tsample {
	uint64_t id;
	bool has_regs;
	uint64_t reg[R_COUNT];
	uint8_t have[R_COUNT];
	size_t nmem;
	struct tmem {
		uint64_t address;
		uint8_t data[64];
		size_t n;
	} mem[4];
};

struct truth_samples {
	struct tsample *v;
	size_t n, cap;
};

static struct tsample *sample_of(struct truth_samples *ts, uint64_t id, bool add)
{
	size_t lo = 0, hi = ts->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ts->n && ts->v[lo].id == id)
		return &ts->v[lo];
	if (!add)
		return NULL;
	assert_true(lo == ts->n); /* the truth is in record order */
	if (ts->n == ts->cap)
		ts->v = realloc(ts->v, (ts->cap = ts->cap * 2 + 64) * sizeof *ts->v);
	memset(&ts->v[ts->n], 0, sizeof ts->v[0]);
	ts->v[ts->n].id = id;
	return &ts->v[ts->n++];
}

static void sample_line(struct truth_samples *ts, const char *line, bool code32)
{
	static const char *const names64[R_COUNT] = {"rcx", "rdx", "r8", "r9", "rax", "rsp"};
	static const char *const names32[R_COUNT] = {"", "", "", "", "eax", "esp"};
	struct jv j;
	uint64_t id;
	assert_int_equal(json_parse(line, &j), 0);
	assert_int_equal(json_u64(&j, "id", &id), 0);
	struct tsample *s = sample_of(ts, id, true);
	const struct jv *regs = json_get(&j, "regs"), *data = json_get(&j, "data");
	for (int r = 0; regs && r < R_COUNT; r++)
		s->have[r] = json_u64(regs, (code32 ? names32 : names64)[r], &s->reg[r]) == 0;
	s->has_regs |= regs != NULL;
	if (data && s->nmem < 4) {
		struct tmem *m = &s->mem[s->nmem++];
		assert_int_equal(json_u64(&j, "address", &m->address), 0);
		long n = json_hex(data->text, m->data, sizeof m->data);
		m->n = n > 0 ? (size_t)n : 0; /* the first 64 bytes of a longer line: -1 */
		if (n < 0)
			s->nmem--;
	}
	json_free(&j);
}

static struct truth_samples truth_samples(const char *path, bool code32)
{
	struct truth_samples ts = {0};
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0)
		if (strstr(line, "\"kind\":\"regs\"") || strstr(line, "\"kind\":\"mem\""))
			sample_line(&ts, line, code32);
	free(line);
	fclose(f);
	return ts;
}

/* The truth's bytes [address, address + width) at record @p id, when a mem line holds them. */
static bool truth_word(struct truth_samples *ts, uint64_t id, uint64_t address, unsigned width,
                       uint64_t *v)
{
	const struct tsample *s = sample_of(ts, id, false);
	for (size_t k = 0; s && k < s->nmem; k++) {
		const struct tmem *m = &s->mem[k];
		if (address < m->address || address - m->address + width > m->n)
			continue;
		*v = 0;
		for (unsigned i = width; i-- > 0;)
			*v = *v << 8 | m->data[address - m->address + i];
		return true;
	}
	return false;
}

/* The thread's record after the call: the callee's first, found along the prev/next chain. */
static uint64_t next_in_thread(umt_trace *t, uint64_t id)
{
	umt_thread_iter it;
	umt_rec r;
	assert_int_equal(umt_thread_iter_init(&it, t, id, UMT_FORWARD), 0);
	assert_int_equal(umt_thread_iter_next(&it, &r), 1);
	return umt_thread_iter_next(&it, &r) > 0 ? r.id : NONE;
}

#define NARGS 8
struct arg_counts {
	unsigned regs, regs_unknown, stack, ret, ret_unknown;
};

/* One call: every known value the truth has is the truth's; what the truth knows and the
 * index does not is counted (never a wrong value). */
static void expect_call_values(umt_trace *t, umt_index *ix, umt_state *st,
                               struct truth_samples *ts, const umt_call *c, struct arg_counts *n)
{
	uint64_t v[NARGS], rv, w;
	uint8_t known[NARGS];
	assert_int_equal(umt_call_args(ix, c, st, NARGS, v, known), 0);
	unsigned nregs = st->is_64bit ? 4 : 0, width = st->is_64bit ? 8 : 4;
	const struct tsample *at_call = sample_of(ts, c->id, false);
	for (unsigned i = 0; at_call && at_call->has_regs && i < nregs; i++) {
		assert_true(at_call->have[i]);
		if (known[i])
			assert_int_equal(v[i], at_call->reg[i]), n->regs++;
		else
			n->regs_unknown++;
	}
	uint64_t callee = next_in_thread(t, c->id);
	const struct tsample *at_callee = callee == NONE ? NULL : sample_of(ts, callee, false);
	for (unsigned i = nregs; at_callee && at_callee->have[R_SP] && i < NARGS; i++)
		if (known[i] && truth_word(ts, callee, at_callee->reg[R_SP] + width * (i + 1), width, &w))
			assert_int_equal(v[i], w), n->stack++;
	int rc = umt_call_return_value(ix, c, st, &rv);
	assert_true(rc == 0 || rc == 1);
	if (c->end != UMT_CALL_RETURNED)
		assert_int_equal(rc, 0);
	const struct tsample *at_ret = c->end == UMT_CALL_RETURNED ?
	                               sample_of(ts, c->return_id, false) : NULL;
	if (at_ret && at_ret->has_regs && rc == 1)
		assert_int_equal(rv, at_ret->reg[R_AX]), n->ret++;
	else if (at_ret && at_ret->has_regs)
		n->ret_unknown++;
}

static void check_values(const char *args, bool code32)
{
	struct fx_gen g;
	fx_gen_truth(&g, args, 1);
	struct truth_samples ts = truth_samples(g.truth, code32);
	umt_state st;
	assert_int_equal(umt_state_init(g.ix, &st), 0);
	size_t ncalls;
	umt_call *calls = all_calls(g.ix, NULL, &ncalls);
	struct arg_counts n = {0};
	for (size_t i = 0; i < ncalls; i++)
		expect_call_values(g.t, g.ix, &st, &ts, &calls[i], &n);
	print_message("args: %zu calls, %u register arguments checked (%u unknown), %u stack "
	              "arguments, %u return values (%u unknown)\n", ncalls, n.regs, n.regs_unknown,
	              n.stack, n.ret, n.ret_unknown);
	/* the checks bite: most values are known, and each kind is checked many times */
	assert_true(n.stack >= 20 && n.ret >= 20 && n.ret > 4 * n.ret_unknown);
	assert_true(code32 || (n.regs >= 40 && n.regs > 4 * n.regs_unknown));
	umt_state_release(&st);
	free(calls);
	free(ts.v);
	fx_gen_free(&g);
}

static void test_args(void **state)
{
	(void)state;
	check_values("--records 10000 --threads 2 --seed 68", false);
	check_values("--records 8000 --threads 3 --seed 93 --flavour 2014", false);
	check_values("--records 8000 --threads 2 --seed 87 --code32", true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_built),
		cmocka_unit_test(test_truth),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_same_bytes),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_killed_build),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
