/*
 * ixbench's register entries (issue 14), each a ratio against a limit or
 * a peer measured in the same run:
 *
 *   regsize   the index and its build time with the register section and
 *             without it (goals: size <= 1.15x, build time <= 1.25x)
 *   state     every register at a random record, warm (goal: median <=
 *             50 us), against a forward scan from the trace's start (goal:
 *             >= 1000x faster) and a hand-written backward walk (report)
 *   regchange the previous change of rax before a random record, warm (goal:
 *             median <= 20 us)
 *   origin    the origin of a random general register at a random record to
 *             depth 10, warm (goal: median <= 10 ms)
 *
 * The scans and walks use the reader's public API only, as a user would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ixbench.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n ? v[n / 2] : 0;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void fail(const char *what)
{
	fprintf(stderr, "ixbench: %s: %s\n", what, umt_errmsg());
	exit(1);
}

/* ---- size and build time -------------------------------------------------------------- */

/* The elapsed (wall) and CPU seconds of a build into @p dir; *bytes its size. */
static void timed_build(umt_trace *t, const char *dir, unsigned threads, uint64_t sections,
                        double *wall, double *cpu, uint64_t *bytes)
{
	double c0 = ixb_cpu_seconds();
	*wall = ixb_build(t, dir, threads, sections, bytes);
	*cpu = ixb_cpu_seconds() - c0;
}

static void bench_regsize(const struct ixb *b, umt_trace *t)
{
	char dir[4200];
	snprintf(dir, sizeof dir, "%s/ixregs-%d.index", b->tmp, (int)getpid());
	for (unsigned threads = 1; threads <= 2; threads++) {
		double with[16], without[16], cwith[16], cwithout[16];
		uint64_t bw = 0, bo = 0;
		for (int r = 0; r < b->runs; r++) { /* alternated: both see the same load */
			timed_build(t, dir, threads, UMT_INDEX_SECTION_MEMORY, &without[r], &cwithout[r],
			            &bo);
			timed_build(t, dir, threads, UMT_INDEX_SECTION_MEMORY | UMT_INDEX_SECTION_REGISTERS,
			            &with[r], &cwith[r], &bw); /* the registers alone: other sections
			                                        * have their own entries */
		}
		size_t n = (size_t)b->runs;
		double mw = median(with, n), mo = median(without, n);
		double cw = median(cwith, n), co = median(cwithout, n);
		char what[80];
		snprintf(what, sizeof what, "build with registers, %u thread%s (s)", threads,
		         threads > 1 ? "s" : "");
		ixb_line(what, mw, "s", "without the section", mw / mo, "<= 1.25", mw / mo <= 1.25);
		snprintf(what, sizeof what, "  its CPU time, %u thread%s (s)", threads,
		         threads > 1 ? "s" : "");
		ixb_line(what, cw, "s", "without the section", cw / co, "<= 1.25", cw / co <= 1.25);
		if (threads == 1)
			ixb_line("index size with registers (MiB)", (double)bw / 1048576.0, "MiB",
			         "without the section", (double)bw / (double)bo, "<= 1.15",
			         (double)bw <= 1.15 * (double)bo);
	}
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "ixbench: cannot remove %s\n", dir);
}

/* ---- what a user writes without the index ------------------------------------------------ */

/* Where each register of the map sits in the record's mode, looked up once. */
struct places {
	const umt_trace *t;
	int16_t off[2][UMT_CONTEXT_MAP_REGS], size[2][UMT_CONTEXT_MAP_REGS];
};

static void places_init(struct places *p, const umt_trace *t)
{
	p->t = t;
	for (int r = 0; r < UMT_CONTEXT_MAP_REGS; r++) {
		umt_reg_desc d;
		bool ok = umt_context_map_reg(t, r, &d) == 0;
		p->size[0][r] = ok && d.in32 ? d.map32.Size : 0;
		p->size[1][r] = ok && d.in64 ? d.map64.Size : 0;
		p->off[0][r] = ok ? (int16_t)d.map32.Offset : 0;
		p->off[1][r] = ok ? (int16_t)d.map64.Offset : 0;
	}
}

/* The register slots of @p r in group @p after (0: before values) into @p regs; @p known
 * marks the bytes given (only the unknown ones when @p only_unknown). @return the bytes
 * that were unknown before. */
static uint32_t take_slots(const struct places *p, const umt_rec *r, int after, uint8_t *regs,
                           uint8_t *known, int only_unknown)
{
	umt_ins_exec x;
	uint32_t fresh = 0;
	if (umt_rec_ins_exec(p->t, r, &x) < 0)
		return 0;
	int m = r->flags & 1;
	for (unsigned k = 0; k < x.dec.ins->LCCount; k++) {
		const umt_lc_slot *s = umt_decoded_slot(&x.dec, k);
		int g = umt_decoded_slot_group(&x.dec, k);
		if (s->AddrWidth || s->RegName < 0 || s->RegName >= UMT_CONTEXT_MAP_REGS ||
		    !p->size[m][s->RegName] || (g == UMT_SLOT_GROUP_AFTER) != after)
			continue;
		umt_value v;
		umt_lc_slot_value(&x, k, &v, NULL);
		for (int i = 0; i < p->size[m][s->RegName] && i < (int)v.size; i++) {
			int b = p->off[m][s->RegName] + i;
			fresh += !known[b];
			if (!only_unknown || !known[b])
				regs[b] = v.data[i], known[b] = 1;
		}
	}
	return fresh;
}

/* The forward scan: every record from the first to @p at, its thread's registers (before
 * values too: they are what the thread held). */
static void forward_scan(const struct places *p, uint64_t at, uint64_t thread, uint8_t *regs,
                         uint8_t *known, uint32_t size)
{
	umt_exec_iter it;
	umt_rec r;
	memset(known, 0, size);
	umt_exec_iter_init(&it, p->t, 0, at);
	while (umt_exec_iter_next(&it, &r) > 0) {
		if ((uint64_t)r.thread_id != thread)
			continue;
		umt_context c;
		if (umt_rec_type_has_context(r.type) && umt_rec_context(p->t, &r, &c) == 0)
			memcpy(regs, c.regs, size), memset(known, 1, size);
		else if (r.type == UMT_REC_INSTRUCTION)
			take_slots(p, &r, 0, regs, known, 0), take_slots(p, &r, 1, regs, known, 0);
	}
}

/* The backward walk: the thread's records from @p at back until every byte is settled
 * (the count of bytes left kept as it goes, as a user's walk would). */
static uint64_t backward_walk(const struct places *p, uint64_t at, uint8_t *regs, uint8_t *known,
                              uint32_t size)
{
	umt_thread_iter it;
	umt_rec r;
	uint64_t steps = 0, left = size;
	memset(known, 0, size);
	umt_thread_iter_init(&it, p->t, at, UMT_BACKWARD);
	umt_thread_iter_next(&it, &r); /* the record itself: its own state is before it */
	while (left > 0 && umt_thread_iter_next(&it, &r) > 0) {
		steps++;
		umt_context c;
		if (umt_rec_type_has_context(r.type) && umt_rec_context(p->t, &r, &c) == 0) {
			for (uint32_t b = 0; b < size && b < c.regs_size; b++)
				if (!known[b])
					regs[b] = c.regs[b], known[b] = 1, left--;
		} else if (r.type == UMT_REC_INSTRUCTION) {
			left -= take_slots(p, &r, 1, regs, known, 1);
			left -= take_slots(p, &r, 0, regs, known, 1);
		}
	}
	return steps;
}

/* ---- queries ------------------------------------------------------------------------------ */

/* Random records (and their threads) that have a thread of the table. */
static size_t pick(umt_trace *t, uint64_t *at, size_t n)
{
	uint64_t count = umt_exec_count(t), threads = umt_thread_count(t);
	size_t k = 0;
	for (size_t tries = 0; k < n && tries < 10 * n; tries++) {
		umt_rec r;
		uint64_t id = rnd() % count;
		if (umt_exec_get(t, id, &r) == 0 && r.thread_id >= 0 && (uint64_t)r.thread_id < threads)
			at[k++] = id;
	}
	return k;
}

#define WALKS 200
#define WALK_SECONDS 30.0

static void bench_state(const struct ixb *b, umt_trace *t, umt_index *ix, const uint64_t *at,
                        size_t n)
{
	umt_state st;
	if (umt_state_init(ix, &st) < 0)
		fail("state");
	double *lat = malloc(n * sizeof *lat);
	for (int pass = 0; pass < 2; pass++) /* the first pass warms the caches */
		for (size_t i = 0; i < n; i++) {
			double t0 = now();
			if (umt_state_at(ix, at[i], -1, &st) < 0)
				fail("state at");
			lat[i] = now() - t0;
		}
	double ms = median(lat, n);
	/* another thread's registers: its records forwards from its checkpoint */
	double *other = malloc(n * sizeof *other);
	uint64_t threads = umt_thread_count(t);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			umt_rec r;
			umt_exec_get(t, at[i], &r);
			double t0 = now();
			if (umt_state_at(ix, at[i], (int64_t)(((uint64_t)r.thread_id + 1) % threads), &st) < 0)
				fail("state at");
			other[i] = now() - t0;
		}
	double mo = median(other, n);
	free(other);
	struct places *p = malloc(sizeof *p);
	places_init(p, t);
	uint8_t *regs = malloc(st.size), *known = malloc(st.size);
	size_t m = n < (size_t)b->runs ? n : (size_t)b->runs;
	double *scan = malloc(m * sizeof *scan), *walk = malloc(n * sizeof *walk);
	double *steps = malloc(n * sizeof *steps);
	for (size_t i = 0; i < m; i++) { /* the scan agrees with the index on its known bytes */
		umt_state_at(ix, at[i], -1, &st);
		double t0 = now();
		forward_scan(p, at[i], st.thread, regs, known, st.size);
		scan[i] = now() - t0;
		for (uint32_t k = 0; k < st.size; k++)
			if (known[k] && st.known[k] && regs[k] != st.data[k] && st.sources[k] < at[i])
				fprintf(stderr, "ixbench: the scan and the index differ at %llu byte %u\n",
				        (unsigned long long)at[i], k);
	}
	/* walks are unbounded (back to the thread's first record at worst, ~0.3 s on 30 M
	 * records): at most WALKS of them, and no more once WALK_SECONDS went by */
	size_t nw = 0;
	for (double spent = 0; nw < n && nw < WALKS && (nw < 5 || spent < WALK_SECONDS); nw++) {
		double t0 = now();
		steps[nw] = (double)backward_walk(p, at[nw], regs, known, st.size);
		walk[nw] = now() - t0;
		spent += walk[nw];
	}
	double msc = median(scan, m), mw = median(walk, nw), mst = median(steps, nw);
	qsort(walk, nw, sizeof *walk, cmp_double);
	ixb_line("registers at a record, warm (us)", ms * 1e6, "us", "limit 50 us", ms * 1e6 / 50,
	         "<= 1", ms <= 50e-6);
	ixb_line("registers of another thread, warm (us)", mo * 1e6, "us", "limit 50 us",
	         mo * 1e6 / 50, "(report)", true);
	ixb_line("registers: forward scan from the start (s)", msc, "s", "the index's median",
	         msc / ms, ">= 1000", msc / ms >= 1000);
	ixb_line("registers: backward walk, median (us)", mw * 1e6, "us", "the index's median",
	         mw / ms, "(report)", true);
	char what[96];
	snprintf(what, sizeof what, "registers: backward walk, slowest of %zu (ms)", nw);
	ixb_line(what, walk[nw - 1] * 1e3, "ms",
	         "records walked, median", mst, "(report)", true);
	umt_state_release(&st);
	free(lat), free(p), free(regs), free(known), free(scan), free(walk), free(steps);
}

static void bench_regchange(umt_trace *t, umt_index *ix, const uint64_t *at, size_t n)
{
	int rax = umt_reg_by_name(t, "rax");
	if (rax < 0)
		return;
	double *lat = malloc(n * sizeof *lat);
	size_t found = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			umt_reg_history_query q;
			umt_reg_history_query_init(&q, rax);
			umt_rec r;
			umt_exec_get(t, at[i], &r);
			q.thread = r.thread_id;
			q.to = at[i];
			q.reverse = q.changes = 1;
			q.limit = 1;
			umt_reg_history *h;
			umt_reg_write w;
			double t0 = now();
			if (umt_reg_history_open(ix, &q, &h) < 0)
				fail("register history");
			int rc = umt_reg_history_next(h, &w);
			umt_reg_history_close(h);
			lat[i] = now() - t0;
			if (rc < 0)
				fail("register history");
			found += pass && rc == 1;
		}
	double m = median(lat, n);
	ixb_line("previous change of rax, warm (us)", m * 1e6, "us", "limit 20 us", m * 1e6 / 20,
	         "<= 1", m <= 20e-6);
	ixb_line("previous change of rax: found (%)", 100.0 * (double)found / (double)n, "%",
	         "(the others: none before)", 1, "(report)", true);
	free(lat);
}

static void bench_origin(umt_trace *t, umt_index *ix, const uint64_t *at, size_t n)
{
	static const char *const names[] = {"rax", "rbx", "rdx", "rsi", "rdi", "rsp", "r8", "r9"};
	double *lat = malloc(n * sizeof *lat), *nodes = malloc(n * sizeof *nodes);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			umt_origin_query q;
			umt_origin_query_init(&q, at[i], umt_reg_by_name(t, names[i % 8]));
			q.depth = 10;
			umt_origin *o;
			umt_origin_node node;
			double t0 = now(), k = 0;
			if (q.reg < 0 || umt_origin_open(ix, &q, &o) < 0)
				continue; /* not in this record's map */
			int rc;
			while ((rc = umt_origin_next(o, &node)) > 0)
				k++;
			umt_origin_close(o);
			if (rc < 0)
				fail("origin");
			lat[i] = now() - t0;
			nodes[i] = k;
		}
	double m = median(lat, n), mn = median(nodes, n);
	ixb_line("origin to depth 10, warm (ms)", m * 1e3, "ms", "limit 10 ms", m * 1e3 / 10, "<= 1",
	         m <= 10e-3);
	ixb_line("origin: nodes per tree, median", mn, "nodes", "(report)", 1, "(report)", true);
	free(lat), free(nodes);
}

void ixbench_regs(const struct ixb *b, umt_trace *t, umt_index *ix)
{
	if (ixb_wanted("regsize"))
		bench_regsize(b, t);
	size_t n = b->queries;
	uint64_t *at = malloc(n * sizeof *at);
	n = pick(t, at, n);
	if (n && ixb_wanted("state"))
		bench_state(b, t, ix, at, n);
	if (n && ixb_wanted("regchange"))
		bench_regchange(t, ix, at, n);
	if (n && ixb_wanted("origin"))
		bench_origin(t, ix, at, n < 500 ? n : 500);
	free(at);
}
