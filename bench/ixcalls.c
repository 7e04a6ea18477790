/*
 * ixbench's call entries (issue 15), each a ratio against a limit or a peer
 * measured in the same run:
 *
 *   callsize  the index build's time and size with the calls section and
 *             without it, the other sections built in both (goal for calls
 *             and coverage together: <= 1.20x; this is calls' share)
 *   stack     the call stack at a random record, warm (goal: median <= 50
 *             us), against the goal
 *   callsto   every call to the trace's most called target, warm, per 1000
 *             calls (goal: <= 1 ms per 1000), against the goal
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ixbench.h"

static void bench_callsize(const struct ixb *b, umt_trace *t)
{
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/ixcalls-%d.index", b->tmp, (int)getpid());
	const uint64_t without_calls = UMT_INDEX_SECTIONS_ALL & ~(uint64_t)UMT_INDEX_SECTION_CALLS;
	for (unsigned threads = 1; threads <= 2; threads++) {
		double with[16], without[16], cwith[16], cwithout[16];
		uint64_t bw = 0, bo = 0;
		int runs = b->runs < 16 ? b->runs : 16;
		for (int r = 0; r < runs; r++) { /* alternated: both see the same load */
			double c0 = ixb_cpu_seconds();
			without[r] = ixb_build(t, dir, threads, without_calls, &bo);
			double c1 = ixb_cpu_seconds();
			with[r] = ixb_build(t, dir, threads, UMT_INDEX_SECTIONS_ALL, &bw);
			cwithout[r] = c1 - c0;
			cwith[r] = ixb_cpu_seconds() - c1;
		}
		size_t n = (size_t)runs;
		double mw = ixb_median(with, n), mo = ixb_median(without, n);
		double cw = ixb_median(cwith, n), co = ixb_median(cwithout, n);
		char what[80];
		snprintf(what, sizeof what, "build with calls, %u thread%s (s)", threads,
		         threads > 1 ? "s" : "");
		ixb_line(what, mw, "s", "without the section", mw / mo, "(elapsed)", true);
		snprintf(what, sizeof what, "  CPU s, %u thread%s", threads, threads > 1 ? "s" : "");
		/* CPU time: other jobs on a shared machine disturb it less than elapsed time */
		ixb_line(what, cw, "s", "without the section", cw / co, "<= 1.20 (with coverage)",
		         cw / co <= 1.20);
		if (threads == 1)
			ixb_line("index size with calls (MiB)", (double)bw / 1048576.0, "MiB",
			         "without the section", (double)bw / (double)bo, "(report)", true);
	}
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "ixbench: cannot remove %s\n", dir);
}

static void bench_stack(umt_trace *t, umt_index *ix, unsigned queries)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull, records = umt_exec_count(t);
	double *us = malloc(queries * sizeof *us);
	umt_frame frames[256];
	size_t depth, total = 0;
	for (unsigned i = 0; i < queries; i++) {
		uint64_t at = ixb_rnd(&rng) % records;
		double t0 = ixb_now();
		if (umt_stack_at(ix, at, -1, frames, 256, &depth) < 0)
			ixb_fail("stack");
		us[i] = (ixb_now() - t0) * 1e6;
		total += depth;
	}
	double m = ixb_median(us, queries);
	char what[80];
	snprintf(what, sizeof what, "stack at a random record (us; %.1f frames)",
	         (double)total / queries);
	ixb_line(what, m, "us", "the goal, 50 us", m / 50.0, "<= 1", m <= 50.0);
	free(us);
}

/* The most called target: the one with the most calls, from the section's own queries. */
static uint64_t most_called(umt_index *ix, uint64_t *count)
{
	umt_calls_query q;
	umt_calls_query_init(&q);
	umt_calls *c;
	umt_call call;
	if (umt_calls_open(ix, &q, &c) < 0)
		ixb_fail("calls");
	size_t n = 0, cap = 1 << 16;
	uint64_t *targets = malloc(cap * sizeof *targets);
	int rc;
	while ((rc = umt_calls_next(c, &call)) > 0) {
		if (n == cap)
			targets = realloc(targets, (cap *= 2) * sizeof *targets);
		targets[n++] = call.target;
	}
	umt_calls_close(c);
	if (rc < 0)
		ixb_fail("calls");
	uint64_t best = 0, run = 0;
	*count = 0;
	qsort(targets, n, sizeof *targets, ixb_cmp_u64);
	for (size_t i = 0; i < n; i++) {
		run = i > 0 && targets[i] == targets[i - 1] ? run + 1 : 1;
		if (run > *count)
			*count = run, best = targets[i];
	}
	free(targets);
	return best;
}

static void bench_callsto(umt_index *ix, int runs)
{
	uint64_t count, target = most_called(ix, &count), got = 0;
	if (count == 0)
		return;
	double ms[16];
	runs = runs < 16 ? runs : 16;
	umt_calls_query q;
	umt_calls_query_init(&q);
	q.target_first = q.target_last = target;
	for (int r = 0; r < runs; r++) {
		umt_calls *c;
		umt_call call;
		int rc;
		double t0 = ixb_now();
		if (umt_calls_open(ix, &q, &c) < 0)
			ixb_fail("calls to a target");
		for (got = 0; (rc = umt_calls_next(c, &call)) > 0; got++)
			;
		umt_calls_close(c);
		if (rc < 0 || got != count)
			ixb_fail("calls to a target");
		ms[r] = (ixb_now() - t0) * 1e3 * 1000.0 / (double)count;
	}
	double m = ixb_median(ms, (size_t)runs);
	char what[96];
	snprintf(what, sizeof what, "calls to one target (ms per 1000; %llu calls)",
	         (unsigned long long)count);
	ixb_line(what, m, "ms", "the goal, 1 ms", m, "<= 1", m <= 1.0);
}

void ixbench_calls(const struct ixb *b, umt_trace *t, umt_index *ix)
{
	if (ixb_wanted("callsize"))
		bench_callsize(b, t);
	if (ixb_wanted("stack") && b->queries > 0)
		bench_stack(t, ix, b->queries);
	if (ixb_wanted("callsto"))
		bench_callsto(ix, b->runs);
}
