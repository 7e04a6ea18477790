/*
 * umtbench: libumtrace's speed, each figure a ratio against a limit
 * measured in the same run on the same bytes.
 *
 *   umtbench [--trace DIR] [--runs N] [--only NAME[,NAME]] [--smoke]
 *            [--cold-trace DIR] [--sqlite-records N] [--tmp DIR]
 *            [--thread-records N] [--thread-quantum Q]
 *   umtbench --callgrind WHAT --trace DIR   (bench/callgrind.sh runs them all)
 *
 * Benchmarks (docs/performance.md has the figures and the commands):
 *   open      open time, 1 K-record vs 100 M-record trace (goal: ratio < 2)
 *   scan      iterator scan reading thread, type, flags, InsID vs a raw walk
 *             of the same mapped bytes (goal >= 0.8)
 *   operands  the scan also resolving decoded instructions and every
 *             explicit operand's before value (ratio to scan)
 *   thread    per-thread iteration along prev/next vs a raw chain walk
 *   thread-vs-filter
 *             on generated traces of 1, 2, 4 and 8 threads (--thread-records
 *             each, default 10M, in --tmp; a thread runs up to
 *             --thread-quantum records at a time, default 32 as in umtgen),
 *             every thread's records along its chain vs scans of every
 *             record filtered by thread (goal >= 1),
 *             and raw walks of the chains (no check) vs the same scans: the
 *             most any chain walk could reach (report)
 *   random    lookups by ID vs a raw random walk: umt_exec_get (goal >= 0.6),
 *             umt_exec_view_get (goal >= 0.8), and batched lookups vs
 *             single ones (goal >= 1.3)
 *   parallel  two threads on umt_exec_split() ranges vs one (goal >= 1.7)
 *   heap      the library's allocations after opening 1 K- and 1 G-record
 *             traces (goal: equal, under 1 MiB)
 *   gen       the writer (umtgen's generator) vs plain 4 MiB writes of as
 *             many bytes (goal >= 0.8)
 *   cold      scan of a trace larger than RAM with its pages evicted vs a
 *             raw read of the same files (goal >= 0.9); cold random lookups
 *             with and without UMT_ADVISE_RANDOM (needs --cold-trace)
 *   sqlite    the same records in SQLite: full scan and point lookups vs the
 *             library (goals: library >= 40x and >= 100x faster; only when
 *             built with SQLite)
 *
 * Without --trace, a trace is generated in --tmp (default: $TMPDIR or /tmp).
 * --smoke runs everything on tiny inputs once, to check that it runs: its
 * figures mean nothing. Benchmarks are not tests: nothing here asserts a
 * time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

#ifdef UMT_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "gen.h"
#include "benchlist.h"
#include "umtrace/umtrace.h"

/* ---- settings and reporting ------------------------------------------------- */

static struct {
	const char *trace;
	const char *cold_trace;
	const char *tmp;
	const char *only;
	int runs;
	int smoke;
	uint64_t sqlite_records;
	uint64_t thread_records;
	uint32_t thread_quantum;
} cfg = {.runs = 5, .sqlite_records = 10000000, .thread_records = 10000000, .thread_quantum = 32};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median, min and max of n samples (sorted in place). */
struct stats {
	double median, min, max;
};

static struct stats summarize(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return (struct stats){n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
}

static int wanted(const char *name)
{
	return bench_listed(cfg.only, name);
}

/* One result line: what was measured, the limit, the ratio and the goal. */
static void report(const char *name, const char *what, struct stats lib, const char *unit,
                   const char *limit_name, struct stats lim, double ratio, const char *goal,
                   int met)
{
	printf("%-9s %-30s %10.2f %-6s [%.2f..%.2f]  %-24s %10.2f [%.2f..%.2f]  ratio %6.2f  "
	       "goal %-8s %s\n",
	       name, what, lib.median, unit, lib.min, lib.max, limit_name, lim.median, lim.min,
	       lim.max, ratio, goal, cfg.smoke ? "(smoke)" : met ? "met" : "NOT MET");
	fflush(stdout);
}

static void die(const char *what)
{
	fprintf(stderr, "umtbench: %s: %s\n", what, umt_errmsg());
	exit(1);
}

static umt_trace *open_trace(const char *dir, unsigned flags)
{
	umt_trace *t;
	if (umt_trace_open(dir, flags, &t) < 0)
		die(dir);
	return t;
}

/* DIR/NAME into buf (size bytes), or exit when it does not fit. */
static char *join(char *buf, size_t size, const char *dir, const char *name)
{
	int n = snprintf(buf, size, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "umtbench: path too long: %s/%s\n", dir, name);
		exit(1);
	}
	return buf;
}

/* A sink the compiler cannot remove. */
static volatile uint64_t sink;

static void remove_trace(const char *dir);

/* ---- scan -------------------------------------------------------------------- */

/* The raw walk: offsets then 4 + 1 + 1 + 8 bytes of every record, no checks. */
__attribute__((noinline)) static uint64_t scan_raw(const uint8_t *offsets,
                                                   const uint8_t *records, uint64_t begin,
                                                   uint64_t end)
{
	uint64_t acc = 0;
	for (uint64_t i = begin; i < end; i++) {
		uint64_t b;
		memcpy(&b, offsets + 8 * i, 8);
		const uint8_t *p = records + b;
		int32_t thread;
		int64_t ins;
		memcpy(&thread, p, 4);
		memcpy(&ins, p + 6, 8);
		acc += (uint64_t)thread + p[4] + p[5] + (uint64_t)ins;
	}
	return acc;
}

/* The same through the library's iterator and accessor. */
__attribute__((noinline)) static uint64_t scan_lib(const umt_trace *t, uint64_t begin,
                                                   uint64_t end)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t acc = 0;
	umt_exec_iter_init(&it, t, begin, end);
	int rc;
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		if (rc < 0)
			continue;
		acc += (uint64_t)r.thread_id + r.type + r.flags;
		int64_t ins = 0;
		if (r.type == UMT_REC_INSTRUCTION && umt_rec_ins(&r, &ins, NULL, NULL) == 0)
			acc += (uint64_t)ins;
	}
	return acc;
}

/* The same through the block iterator and the overlay structs. */
__attribute__((noinline)) static uint64_t scan_block(const umt_trace *t, uint64_t begin,
                                                     uint64_t end)
{
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t acc = 0;
	umt_exec_iter_init(&it, t, begin, end);
	int n;
	while ((n = umt_exec_iter_next_block(&it, &b, 4096)) != 0) {
		for (int i = 0; i < n; i++) {
			const umt_exec_rec_hdr *h = (const umt_exec_rec_hdr *)umt_block_data(&b, (uint32_t)i);
			acc += (uint64_t)h->ThreadID + h->Type + h->Flags;
			if (h->Type == UMT_REC_INSTRUCTION)
				acc += (uint64_t)((const umt_exec_ins *)h)->InsID;
		}
	}
	return acc;
}

static void raw_views(const umt_trace *t, const uint8_t **offsets, const uint8_t **records)
{
	umt_exec_iter it;
	umt_exec_iter_init(&it, t, 0, 0);
	*offsets = it.offsets;
	*records = it.records;
}

/*
 * Records per second of the library scans and the raw walk, alternated
 * slice by slice (slices larger than the caches, whole chunks of 4096
 * records), so that a change in the machine's load hits them all alike.
 */
static void bench_scan(const char *dir, struct stats *lib_out)
{
	umt_trace *t = open_trace(dir, 0);
	uint64_t n = umt_exec_count(t), slice = (uint64_t)512 * 4096;
	const uint8_t *off, *rec;
	raw_views(t, &off, &rec);
	double lib[64], raw[64], blk[64];
	sink = scan_lib(t, 0, n) + scan_raw(off, rec, 0, n); /* warm the page cache */
	for (int i = 0; i < cfg.runs; i++) {
		double s_raw = 0, s_lib = 0, s_blk = 0;
		for (uint64_t from = 0; from < n; from += slice) {
			uint64_t to = n - from < slice ? n : from + slice;
			double t0 = now();
			sink = scan_raw(off, rec, from, to);
			double t1 = now();
			sink = scan_lib(t, from, to);
			double t2 = now();
			sink = scan_block(t, from, to);
			double t3 = now();
			s_raw += t1 - t0;
			s_lib += t2 - t1;
			s_blk += t3 - t2;
		}
		raw[i] = (double)n / s_raw / 1e6;
		lib[i] = (double)n / s_lib / 1e6;
		blk[i] = (double)n / s_blk / 1e6;
	}
	struct stats l = summarize(lib, cfg.runs), r = summarize(raw, cfg.runs);
	struct stats k = summarize(blk, cfg.runs);
	report("scan", "iterator: thread,type,flags,InsID", l, "M/s", "raw walk M/s", r,
	       l.median / r.median, ">= 0.80", l.median / r.median >= 0.8);
	report("scan", "block iterator, same fields", k, "M/s", "raw walk M/s", r,
	       k.median / r.median, ">= 0.80", k.median / r.median >= 0.8);
	if (lib_out)
		*lib_out = l;
	umt_trace_close(t);
}

/* ---- operands ------------------------------------------------------------------ */

__attribute__((noinline)) static uint64_t scan_operands(const umt_trace *t)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t acc = 0;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	int rc;
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		if (rc < 0)
			continue;
		acc += (uint64_t)r.thread_id + r.type + r.flags;
		umt_ins_exec x;
		if (r.type != UMT_REC_INSTRUCTION || umt_rec_ins_exec(t, &r, &x) < 0)
			continue;
		acc += (uint64_t)x.ins_id + (uint64_t)x.dec.ins->Mnemonic;
		for (unsigned i = 0; i < x.dec.ins->ExpCount; i++) {
			umt_value v;
			if (umt_operand_value(&x, i, UMT_BEFORE, &v) == 0 && v.size)
				acc += v.data[0];
		}
	}
	return acc;
}

static void bench_operands(const char *dir, struct stats scan)
{
	umt_trace *t = open_trace(dir, 0);
	uint64_t n = umt_exec_count(t);
	double v[64];
	sink = scan_operands(t);
	for (int i = 0; i < cfg.runs; i++) {
		double t0 = now();
		sink = scan_operands(t);
		v[i] = (double)n / (now() - t0) / 1e6;
	}
	struct stats s = summarize(v, cfg.runs);
	report("operands", "scan + decoded + before values", s, "M/s", "scan M/s", scan,
	       s.median / scan.median, "(report)", 1);
	umt_trace_close(t);
}

/* ---- thread ---------------------------------------------------------------------- */

__attribute__((noinline)) static uint64_t walk_threads_lib(const umt_trace *t)
{
	uint64_t acc = 0;
	for (uint64_t th = 0; th < umt_thread_count(t); th++) {
		umt_thread_iter it;
		umt_rec r;
		if (umt_thread_iter_init_thread(&it, t, th) < 0)
			continue;
		while (umt_thread_iter_next(&it, &r) == 1)
			acc += r.id + r.type;
	}
	return acc;
}

/* What a raw chain walk reads: offsets, records, links. */
struct raw_links {
	const uint8_t *off, *rec, *pn;
};

/* The records of a chain from @p start up to @p to, by a raw walk (no check): the least a
 * chain walk costs. */
__attribute__((noinline)) static uint64_t raw_chain_walk(const struct raw_links *l, uint64_t start,
                                                         uint64_t to)
{
	uint64_t acc = 0;
	for (int64_t id = (int64_t)start; id >= 0 && (uint64_t)id < to;) {
		uint64_t b;
		memcpy(&b, l->off + 8 * (uint64_t)id, 8);
		acc += (uint64_t)id + l->rec[b + 4];
		memcpy(&id, l->pn + 16 * (uint64_t)id + 8, 8);
	}
	return acc;
}

__attribute__((noinline)) static uint64_t walk_threads_raw(const umt_trace *t,
                                                           const struct raw_links *l)
{
	uint64_t acc = 0;
	for (uint64_t th = 0; th < umt_thread_count(t); th++) {
		const umt_thread_rec *row;
		umt_thread_get(t, th, &row);
		if (row->FirstEID >= 0)
			acc += raw_chain_walk(l, (uint64_t)row->FirstEID, UINT64_MAX);
	}
	return acc;
}

/* The trace's exec.prev_next.column, mapped for the raw walks (NULL when empty). */
static const uint8_t *map_links(const char *dir, size_t *size)
{
	char path[8192];
	join(path, sizeof path, dir, "exec.prev_next.column");
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		die(path);
	*size = (size_t)st.st_size;
	const uint8_t *pn = st.st_size ? mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	if (pn == MAP_FAILED)
		die(path);
	close(fd);
	return pn;
}

static void bench_thread(const char *dir)
{
	umt_trace *t = open_trace(dir, 0);
	uint64_t n = umt_exec_count(t);
	size_t pn_size;
	struct raw_links links = {NULL, NULL, map_links(dir, &pn_size)};
	raw_views(t, &links.off, &links.rec);
	double lib[64], raw[64];
	sink = walk_threads_lib(t) + walk_threads_raw(t, &links);
	for (int i = 0; i < cfg.runs; i++) {
		double t0 = now();
		sink = walk_threads_raw(t, &links);
		double t1 = now();
		sink = walk_threads_lib(t);
		double t2 = now();
		raw[i] = (double)n / (t1 - t0) / 1e6;
		lib[i] = (double)n / (t2 - t1) / 1e6;
	}
	struct stats l = summarize(lib, cfg.runs), r = summarize(raw, cfg.runs);
	report("thread", "prev/next chains, every thread", l, "M/s", "raw chain walk M/s", r,
	       l.median / r.median, "(report)", 1);
	if (links.pn)
		munmap((void *)(uintptr_t)links.pn, pn_size);
	umt_trace_close(t);
}

/* ---- thread-vs-filter: one thread's records, along its chain or by a filtered scan ---- */

/* Thread @p thread's records in [from, to) by a scan filtered by thread. */
__attribute__((noinline)) static uint64_t filter_scan(const umt_trace *t, uint64_t thread,
                                                      uint64_t from, uint64_t to)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t acc = 0;
	int rc;
	umt_exec_iter_init(&it, t, from, to);
	while ((rc = umt_exec_iter_next(&it, &r)) != 0)
		if (rc > 0 && r.thread_id == (int32_t)thread)
			acc += r.id + r.type;
	return acc;
}

/* The same records along the thread's prev/next chain, from record @p start up to @p to. */
__attribute__((noinline)) static uint64_t chain_walk(const umt_trace *t, uint64_t start,
                                                     uint64_t to)
{
	umt_thread_iter it;
	umt_rec r;
	uint64_t acc = 0;
	if (umt_thread_iter_init(&it, t, start, UMT_FORWARD) < 0)
		die("umt_thread_iter_init");
	while (umt_thread_iter_next(&it, &r) == 1 && r.id < to)
		acc += r.id + r.type;
	return acc;
}

/* A whole chain, as most callers walk it (for callgrind). */
__attribute__((noinline)) static uint64_t chain_walk_all(const umt_trace *t, uint64_t thread)
{
	umt_thread_iter it;
	umt_rec r;
	uint64_t acc = 0;
	if (umt_thread_iter_init_thread(&it, t, thread) < 0)
		die("umt_thread_iter_init_thread");
	while (umt_thread_iter_next(&it, &r) == 1)
		acc += r.id + r.type;
	return acc;
}

/* Records per slice of the thread-vs-filter comparison: more than the caches hold. */
#define THREAD_SLICE ((uint64_t)512 * 4096)

/*
 * The first record of each thread in each slice of THREAD_SLICE records
 * (UINT64_MAX: none), where the chain walks of the slices start:
 * first[thread * slices + slice].
 */
static uint64_t *slice_starts(const umt_trace *t, uint64_t slices)
{
	uint64_t threads = umt_thread_count(t);
	uint64_t *first = malloc(threads * slices * sizeof *first);
	if (first == NULL)
		die("out of memory");
	for (uint64_t k = 0; k < threads * slices; k++)
		first[k] = UINT64_MAX;
	umt_exec_iter it;
	umt_rec r;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while (umt_exec_iter_next(&it, &r) == 1) {
		if (r.thread_id < 0 || (uint64_t)r.thread_id >= threads)
			continue;
		uint64_t *f = &first[(uint64_t)r.thread_id * slices + r.id / THREAD_SLICE];
		if (*f == UINT64_MAX)
			*f = r.id;
	}
	return first;
}

/*
 * Seconds to read every thread's records, along the chains, by raw walks
 * of the chains and by filtered scans, alternated slice by slice (so that
 * a change in the machine's load hits them all alike); all must see the
 * same records.
 */
static void thread_vs_filter_once(const umt_trace *t, const struct raw_links *l,
                                  const uint64_t *first, double secs[3])
{
	uint64_t n = umt_exec_count(t), slices = (n + THREAD_SLICE - 1) / THREAD_SLICE;
	secs[0] = secs[1] = secs[2] = 0;
	for (uint64_t th = 0; th < umt_thread_count(t); th++)
		for (uint64_t s = 0; s < slices; s++) {
			uint64_t from = s * THREAD_SLICE, to = n - from < THREAD_SLICE ? n : from + THREAD_SLICE;
			uint64_t start = first[th * slices + s], a = 0, c = 0;
			double t0 = now();
			if (start != UINT64_MAX)
				a = chain_walk(t, start, to);
			double t1 = now();
			uint64_t b = filter_scan(t, th, from, to);
			double t2 = now();
			if (start != UINT64_MAX)
				c = raw_chain_walk(l, start, to);
			double t3 = now();
			if (a != b || c != b) {
				fprintf(stderr, "umtbench: thread %llu: the chain, the scan and the raw"
				        " walk disagree\n", (unsigned long long)th);
				exit(1);
			}
			secs[0] += t1 - t0;
			secs[1] += t2 - t1;
			secs[2] += t3 - t2;
		}
}

/* Thread 0 on freshly opened handles: no chunk is known good yet. */
static void thread_vs_filter_first(const char *dir, double *chain, double *filter)
{
	umt_trace *t = open_trace(dir, 0);
	double t0 = now();
	sink = chain_walk_all(t, 0);
	*chain = now() - t0;
	umt_trace_close(t);
	t = open_trace(dir, 0);
	t0 = now();
	sink = filter_scan(t, 0, 0, UINT64_MAX);
	*filter = now() - t0;
	umt_trace_close(t);
}

/*
 * For traces of 1, 2, 4 and 8 threads (generated in --tmp), the records of
 * each thread along its chain vs a scan of every record filtered by thread
 * (goal: the chain at least as fast); and thread 0 alone on a freshly
 * opened trace (report).
 */
static void bench_thread_vs_filter(void)
{
	static const uint32_t threads[] = {1, 2, 4, 8};
	for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
		char dir[8192], name[64];
		snprintf(name, sizeof name, "umtbench-threads-%u", threads[k]);
		join(dir, sizeof dir, cfg.tmp, name);
		struct umtgen_params p;
		umtgen_params_init(&p);
		p.quiet = 1;
		p.records = cfg.smoke ? 20000 : cfg.thread_records;
		p.quantum = cfg.thread_quantum;
		p.threads = threads[k];
		remove_trace(dir);
		if (umtgen_write(dir, &p) < 0)
			die("umtgen");
		umt_trace *t = open_trace(dir, 0);
		uint64_t n = umt_exec_count(t);
		double chain[64], filter[64], raw[64], first_chain[64], first_filter[64];
		sink = scan_lib(t, 0, n); /* warm the page cache; checks every chunk of t */
		uint64_t *first = slice_starts(t, (n + THREAD_SLICE - 1) / THREAD_SLICE);
		size_t pn_size;
		struct raw_links l = {NULL, NULL, map_links(dir, &pn_size)};
		raw_views(t, &l.off, &l.rec);
		for (int i = 0; i < cfg.runs; i++) {
			double secs[3], c, f;
			thread_vs_filter_once(t, &l, first, secs);
			chain[i] = (double)n / secs[0] / 1e6;
			filter[i] = (double)n / secs[1] / 1e6;
			raw[i] = (double)n / secs[2] / 1e6;
			thread_vs_filter_first(dir, &c, &f);
			first_chain[i] = c * 1e3;
			first_filter[i] = f * 1e3;
		}
		struct stats c = summarize(chain, cfg.runs), f = summarize(filter, cfg.runs);
		struct stats r = summarize(raw, cfg.runs);
		struct stats fc = summarize(first_chain, cfg.runs);
		struct stats ff = summarize(first_filter, cfg.runs);
		char what[64];
		const char *s = threads[k] > 1 ? "s" : "";
		snprintf(what, sizeof what, "%u thread%s: chains", threads[k], s);
		report("thr-filt", what, c, "M/s", "filtered scans M/s", f, c.median / f.median,
		       ">= 1.00", c.median / f.median >= 1.0);
		/* what any walk of the chains could reach: the raw walk has no check at all */
		snprintf(what, sizeof what, "%u thread%s: raw chain walks", threads[k], s);
		report("thr-filt", what, r, "M/s", "filtered scans M/s", f, r.median / f.median,
		       "(report)", 1);
		snprintf(what, sizeof what, "%u thread%s: thread 0, first", threads[k], s);
		report("thr-filt", what, fc, "ms", "filtered scan ms", ff, ff.median / fc.median,
		       "(report)", 1);
		if (l.pn)
			munmap((void *)(uintptr_t)l.pn, pn_size);
		free(first);
		umt_trace_close(t);
		remove_trace(dir);
	}
}

/* ---- random ------------------------------------------------------------------------ */

static uint64_t *random_ids(uint64_t n, uint64_t count)
{
	uint64_t *ids = malloc(n * sizeof *ids), x = 0x9e3779b97f4a7c15ull;
	if (ids == NULL)
		die("out of memory");
	for (uint64_t i = 0; i < n; i++) {
		x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
		ids[i] = (x * 0x2545f4914f6cdd1dull) % count;
	}
	return ids;
}

__attribute__((noinline)) static uint64_t random_raw(const uint8_t *off, const uint8_t *rec,
                                                     const uint64_t *ids, uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b;
		memcpy(&b, off + 8 * ids[i], 8);
		int32_t thread;
		memcpy(&thread, rec + b, 4);
		acc += (uint64_t)thread + rec[b + 4];
	}
	return acc;
}

__attribute__((noinline)) static uint64_t random_lib(const umt_trace *t, const uint64_t *ids,
                                                     uint64_t n)
{
	uint64_t acc = 0;
	umt_rec r;
	for (uint64_t i = 0; i < n; i++)
		if (umt_exec_get(t, ids[i], &r) == 0)
			acc += (uint64_t)r.thread_id + r.type;
	return acc;
}

/*
 * Lookups through a view kept in a local variable, as the header advises:
 * the compiler keeps its fields in registers.
 */
__attribute__((noinline)) static uint64_t random_view(const umt_trace *t, const uint64_t *ids,
                                                      uint64_t n)
{
	umt_exec_view v;
	if (umt_exec_view_init(&v, t) < 0)
		die("umt_exec_view_init");
	uint64_t acc = 0;
	umt_rec r;
	for (uint64_t i = 0; i < n; i++)
		if (umt_exec_view_get(&v, ids[i], &r) == 0)
			acc += (uint64_t)r.thread_id + r.type;
	return acc;
}

/* The same through a pointer to a view: its fields are read again after every lookup. */
__attribute__((noinline)) static uint64_t random_view_ptr(const umt_exec_view *v,
                                                          const uint64_t *ids, uint64_t n)
{
	uint64_t acc = 0;
	umt_rec r;
	for (uint64_t i = 0; i < n; i++)
		if (umt_exec_view_get(v, ids[i], &r) == 0)
			acc += (uint64_t)r.thread_id + r.type;
	return acc;
}

__attribute__((noinline)) static uint64_t random_batch(const umt_trace *t, const uint64_t *ids,
                                                       uint64_t n)
{
	enum { B = 256 };
	umt_rec r[B];
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i += B) {
		size_t k = n - i < B ? (size_t)(n - i) : B;
		umt_exec_get_batch(t, ids + i, k, r);
		for (size_t j = 0; j < k; j++)
			if (r[j].data)
				acc += (uint64_t)r[j].thread_id + r[j].type;
	}
	return acc;
}

/* The ways of looking records up that bench_random() compares. */
enum { L_RAW, L_GET, L_VIEW, L_VIEW_PTR, L_BATCH, L_GET_FRESH, L_VIEW_FRESH, L_COUNT };

/*
 * Lookups per second (M/s) of each way, over the same IDs: the IDs are cut
 * into slices and the ways alternate slice by slice, so that a change in
 * the machine's load (other processes, frequency) hits them all alike.
 * @p fresh is a second handle of the trace on which no scan has run: none
 * of its chunks is checked yet.
 */
static void lookup_rates(const umt_trace *t, const umt_trace *fresh, const uint64_t *ids,
                         uint64_t n, double rate[L_COUNT])
{
	const uint8_t *off, *rec;
	raw_views(t, &off, &rec);
	umt_exec_view v;
	umt_exec_view_init(&v, t);
	double secs[L_COUNT] = {0};
	uint64_t slice = n < 500000 ? n : 500000;
	for (uint64_t k = 0; k + slice <= n; k += slice) {
		const uint64_t *q = ids + k;
		for (int w = 0; w < L_COUNT; w++) {
			double t0 = now();
			switch (w) {
			case L_RAW: sink = random_raw(off, rec, q, slice); break;
			case L_GET: sink = random_lib(t, q, slice); break;
			case L_VIEW: sink = random_view(t, q, slice); break;
			case L_VIEW_PTR: sink = random_view_ptr(&v, q, slice); break;
			case L_BATCH: sink = random_batch(t, q, slice); break;
			case L_GET_FRESH: sink = random_lib(fresh, q, slice); break;
			default: sink = random_view(fresh, q, slice); break;
			}
			secs[w] += now() - t0;
		}
	}
	for (int w = 0; w < L_COUNT; w++)
		rate[w] = (double)(n / slice * slice) / secs[w] / 1e6;
}

static void bench_random(const char *dir)
{
	umt_trace *t = open_trace(dir, 0), *fresh = open_trace(dir, 0);
	uint64_t count = umt_exec_count(t), n = cfg.smoke ? 1000 : 10000000;
	uint64_t *ids = random_ids(n, count);
	double v[L_COUNT][64];
	sink = scan_lib(t, 0, count); /* warm the page cache; checks every chunk of t */
	for (int i = 0; i < cfg.runs; i++) {
		double rate[L_COUNT];
		lookup_rates(t, fresh, ids, n, rate);
		for (int w = 0; w < L_COUNT; w++)
			v[w][i] = rate[w];
	}
	struct stats s[L_COUNT];
	for (int w = 0; w < L_COUNT; w++)
		s[w] = summarize(v[w], cfg.runs);
	double raw = s[L_RAW].median;
	report("random", "umt_exec_get by random ID", s[L_GET], "M/s", "raw random walk M/s",
	       s[L_RAW], s[L_GET].median / raw, ">= 0.60", s[L_GET].median / raw >= 0.6);
	report("random", "umt_exec_view_get, local view", s[L_VIEW], "M/s", "raw random walk M/s",
	       s[L_RAW], s[L_VIEW].median / raw, ">= 0.80", s[L_VIEW].median / raw >= 0.8);
	report("random", "umt_exec_view_get, view pointer", s[L_VIEW_PTR], "M/s",
	       "raw random walk M/s", s[L_RAW], s[L_VIEW_PTR].median / raw, "(report)", 1);
	report("random", "umt_exec_get_batch", s[L_BATCH], "M/s", "umt_exec_get M/s", s[L_GET],
	       s[L_BATCH].median / s[L_GET].median, ">= 1.30",
	       s[L_BATCH].median / s[L_GET].median >= 1.3);
	report("random", "umt_exec_get, no chunk checked", s[L_GET_FRESH], "M/s",
	       "raw random walk M/s", s[L_RAW], s[L_GET_FRESH].median / raw, "(report)", 1);
	report("random", "view_get, no chunk checked", s[L_VIEW_FRESH], "M/s",
	       "raw random walk M/s", s[L_RAW], s[L_VIEW_FRESH].median / raw, "(report)", 1);
	free(ids);
	umt_trace_close(fresh);
	umt_trace_close(t);
}

/* ---- parallel -------------------------------------------------------------------- */

struct part {
	const umt_trace *t;
	uint64_t begin, end, acc;
};

static void *scan_part(void *arg)
{
	struct part *p = arg;
	p->acc = scan_lib(p->t, p->begin, p->end);
	return NULL;
}

static void bench_parallel(const char *dir)
{
	umt_trace *t = open_trace(dir, 0);
	uint64_t n = umt_exec_count(t), bounds[3];
	umt_exec_split(t, 2, bounds);
	double one[64], two[64];
	sink = scan_lib(t, 0, n);
	for (int i = 0; i < cfg.runs; i++) {
		double t0 = now();
		sink = scan_lib(t, 0, n);
		double t1 = now();
		struct part parts[2] = {{t, bounds[0], bounds[1], 0}, {t, bounds[1], bounds[2], 0}};
		pthread_t th;
		pthread_create(&th, NULL, scan_part, &parts[1]);
		scan_part(&parts[0]);
		pthread_join(th, NULL);
		double t2 = now();
		sink = parts[0].acc + parts[1].acc;
		one[i] = (double)n / (t1 - t0) / 1e6;
		two[i] = (double)n / (t2 - t1) / 1e6;
	}
	struct stats o = summarize(one, cfg.runs), w = summarize(two, cfg.runs);
	report("parallel", "2 threads on umt_exec_split()", w, "M/s", "1 thread M/s", o,
	       w.median / o.median, ">= 1.70", w.median / o.median >= 1.7);
	umt_trace_close(t);
}

/* ---- open and heap: traces of 1 K, 100 M and 1 G records ------------------------- */

/* Bytes allocated by malloc in this process (small and mmap'ed blocks). */
static size_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
}

static void copy_file(const char *from_dir, const char *to_dir, const char *name)
{
	char a[8192], b[8192], buf[1 << 16];
	join(a, sizeof a, from_dir, name);
	join(b, sizeof b, to_dir, name);
	FILE *in = fopen(a, "rb"), *out = fopen(b, "wb");
	if (!in || !out)
		die(a);
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, in)) > 0)
		fwrite(buf, 1, k, out);
	fclose(in);
	fclose(out);
}

/*
 * A trace that opens like one of @p records records without the disk: the
 * execution files are sparse, with valid headers, first and last offsets
 * (open reads nothing else of them; it is O(1)); the small tables come
 * from @p small.
 */
static void make_sparse_trace(const char *dir, const char *small, uint64_t records)
{
	mkdir(dir, 0755);
	static const char *const copies[] = {"ins.itable", "syscall.vtable", "syscall.offsets",
		"module.itable", "thread.itable", "context_map.itable", "address_space.itable",
		"trace.xml"};
	for (size_t i = 0; i < sizeof copies / sizeof copies[0]; i++)
		copy_file(small, dir, copies[i]);
	uint64_t vsize = 16 + records * 64;
	char path[8192];
	join(path, sizeof path, dir, "exec.vtable");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	umt_exec_vtable_header h = {.Version = 1, .RecordCount = (int64_t)records};
	if (fd < 0 || pwrite(fd, &h, sizeof h, 0) != sizeof h || ftruncate(fd, (off_t)vsize))
		die(path);
	close(fd);
	join(path, sizeof path, dir, "exec.offsets");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	uint64_t first = 16;
	if (fd < 0 || pwrite(fd, &first, 8, 0) != 8 ||
	    pwrite(fd, &vsize, 8, (off_t)(records * 8)) != 8)
		die(path);
	close(fd);
	join(path, sizeof path, dir, "exec.prev_next.column");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)(records * 16)))
		die(path);
	close(fd);
}

static void remove_trace(const char *dir)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		char path[8192];
		join(path, sizeof path, dir, umt_file_name(f));
		unlink(path);
	}
	rmdir(dir);
}

/* Median time of opening and closing @p dir. */
static struct stats time_open(const char *dir)
{
	enum { N = 200 };
	double v[N];
	int n = cfg.smoke ? 5 : N;
	for (int i = 0; i < n; i++) {
		double t0 = now();
		umt_trace *t = open_trace(dir, 0);
		umt_trace_close(t);
		v[i] = (now() - t0) * 1e6;
	}
	return summarize(v, n);
}

static void bench_open_heap(const char *small_dir)
{
	char big[8192], huge[8192];
	join(big, sizeof big, cfg.tmp, "umtbench-100M");
	join(huge, sizeof huge, cfg.tmp, "umtbench-1G");
	make_sparse_trace(big, small_dir, 100000000);
	make_sparse_trace(huge, small_dir, 1000000000);
	if (wanted("open")) {
		struct stats s = time_open(small_dir), b = time_open(big);
		report("open", "open+close, 100M records", b, "us", "1K records us", s,
		       b.median / s.median, "< 2", b.median / s.median < 2);
	}
	if (wanted("heap")) {
		size_t before = heap_in_use();
		umt_trace *t = open_trace(small_dir, 0);
		size_t small = heap_in_use() - before;
		umt_trace_close(t);
		before = heap_in_use();
		t = open_trace(huge, 0);
		size_t large = heap_in_use() - before;
		umt_trace_close(t);
		struct stats l = {(double)large, (double)large, (double)large};
		struct stats s = {(double)small, (double)small, (double)small};
		report("heap", "bytes allocated by open, 1G rec", l, "B", "1K records B", s,
		       s.median ? l.median / s.median : 0, "= 1, <1MiB",
		       large == small && large < (1u << 20));
	}
	remove_trace(big);
	remove_trace(huge);
}

/* ---- gen: the writer against plain writes ----------------------------------------- */

static uint64_t dir_bytes(const char *dir)
{
	uint64_t total = 0;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		char path[8192];
		struct stat st;
		join(path, sizeof path, dir, umt_file_name(f));
		if (stat(path, &st) == 0)
			total += (uint64_t)st.st_size;
	}
	return total;
}

/* Writes @p bytes of zeros in 4 MiB writes, like dd bs=4M; returns seconds. */
static double plain_write(const char *path, uint64_t bytes)
{
	size_t chunk = 4u << 20;
	uint8_t *buf = calloc(1, chunk);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || buf == NULL)
		die(path);
	double t0 = now();
	for (uint64_t done = 0; done < bytes;) {
		size_t k = bytes - done < chunk ? (size_t)(bytes - done) : chunk;
		ssize_t w = write(fd, buf, k);
		if (w <= 0)
			die(path);
		done += (uint64_t)w;
	}
	close(fd);
	double dt = now() - t0;
	unlink(path);
	free(buf);
	return dt;
}

static void bench_gen(void)
{
	char dir[8192], file[8192];
	join(dir, sizeof dir, cfg.tmp, "umtbench-gen");
	join(file, sizeof file, cfg.tmp, "umtbench-dd");
	struct umtgen_params p;
	umtgen_params_init(&p);
	p.records = cfg.smoke ? 20000 : 20000000;
	p.threads = 8;
	p.quiet = 1;
	double lib[64], raw[64];
	for (int i = 0; i < cfg.runs; i++) {
		remove_trace(dir);
		sync();
		double t0 = now();
		if (umtgen_write(dir, &p) < 0)
			die("umtgen");
		double dt = now() - t0;
		uint64_t bytes = dir_bytes(dir);
		remove_trace(dir);
		sync();
		lib[i] = (double)bytes / dt / 1e9;
		raw[i] = (double)bytes / plain_write(file, bytes) / 1e9;
	}
	struct stats l = summarize(lib, cfg.runs), r = summarize(raw, cfg.runs);
	report("gen", "umtgen writing a trace", l, "GB/s", "4 MiB writes GB/s", r,
	       l.median / r.median, ">= 0.80", l.median / r.median >= 0.8);
}

/* ---- cold: larger than RAM ------------------------------------------------------------ */

static void evict(const char *dir)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		char path[8192];
		join(path, sizeof path, dir, umt_file_name(f));
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		fdatasync(fd);
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Reads the execution files sequentially with 8 MiB reads; returns bytes/s. */
static double raw_read(const char *dir, uint64_t *bytes)
{
	static const char *const names[] = {"exec.offsets", "exec.vtable"};
	size_t chunk = 8u << 20;
	uint8_t *buf = malloc(chunk);
	double t0 = now();
	*bytes = 0;
	for (int i = 0; i < 2; i++) {
		char path[8192];
		join(path, sizeof path, dir, names[i]);
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			die(path);
		ssize_t k;
		while ((k = read(fd, buf, chunk)) > 0)
			*bytes += (uint64_t)k;
		close(fd);
	}
	free(buf);
	return (double)*bytes / (now() - t0);
}

static void bench_cold(void)
{
	const char *dir = cfg.cold_trace;
	uint64_t bytes;
	double disk[16], lib[16];
	int runs = cfg.runs < 3 ? cfg.runs : 3; /* each run reads the whole trace from disk */
	for (int i = 0; i < runs; i++) {
		evict(dir);
		disk[i] = raw_read(dir, &bytes) / 1e9;
		evict(dir);
		umt_trace *t = open_trace(dir, UMT_OPEN_SEQUENTIAL);
		double t0 = now();
		sink = scan_lib(t, 0, UINT64_MAX);
		lib[i] = (double)bytes / (now() - t0) / 1e9;
		umt_trace_close(t);
	}
	struct stats l = summarize(lib, runs), d = summarize(disk, runs);
	report("cold", "scan, pages evicted (exec files)", l, "GB/s", "raw read GB/s", d,
	       l.median / d.median, ">= 0.90", l.median / d.median >= 0.9);
	/* random lookups on cold data, with and without the hint */
	uint64_t n = cfg.smoke ? 100 : 20000;
	double with[16], without[16];
	for (int i = 0; i < runs; i++) {
		for (int hint = 0; hint < 2; hint++) {
			evict(dir);
			umt_trace *t = open_trace(dir, hint ? UMT_OPEN_RANDOM : 0);
			uint64_t *ids = random_ids(n, umt_exec_count(t));
			double t0 = now();
			sink = random_lib(t, ids, n);
			(hint ? with : without)[i] = (double)n / (now() - t0) / 1e3;
			free(ids);
			umt_trace_close(t);
		}
	}
	struct stats w = summarize(with, runs), o = summarize(without, runs);
	report("cold", "random lookups, UMT_OPEN_RANDOM", w, "k/s", "no hint k/s", o,
	       w.median / o.median, "(report)", 1);
}

/* ---- sqlite: the "typical DB" of spec section 2 ------------------------------------ */

#ifdef UMT_HAVE_SQLITE
static void sqlite_check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "umtbench: sqlite: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static void bench_sqlite(const char *dir)
{
	umt_trace *t = open_trace(dir, 0);
	uint64_t n = umt_exec_count(t);
	if (n > cfg.sqlite_records)
		n = cfg.sqlite_records;
	char path[8192];
	join(path, sizeof path, cfg.tmp, "umtbench.sqlite");
	unlink(path);
	sqlite3 *db;
	sqlite_check(sqlite3_open(path, &db), db, "open");
	sqlite_check(sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	                              "CREATE TABLE exec (id INTEGER PRIMARY KEY, thread INTEGER,"
	                              " type INTEGER, flags INTEGER, insid INTEGER, payload BLOB);"
	                              "BEGIN;", NULL, NULL, NULL), db, "create");
	sqlite3_stmt *ins;
	sqlite_check(sqlite3_prepare_v2(db, "INSERT INTO exec VALUES (?,?,?,?,?,?)", -1, &ins, NULL),
	             db, "prepare");
	umt_exec_iter it;
	umt_rec r;
	umt_exec_iter_init(&it, t, 0, n);
	while (umt_exec_iter_next(&it, &r) == 1) {
		int64_t insid = -1;
		umt_rec_ins(&r, &insid, NULL, NULL);
		sqlite3_bind_int64(ins, 1, (int64_t)r.id);
		sqlite3_bind_int(ins, 2, r.thread_id);
		sqlite3_bind_int(ins, 3, r.type);
		sqlite3_bind_int(ins, 4, r.flags);
		sqlite3_bind_int64(ins, 5, insid);
		sqlite3_bind_blob(ins, 6, r.data + 6, (int)(r.size - 6), SQLITE_STATIC);
		sqlite_check(sqlite3_step(ins), db, "insert");
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	sqlite_check(sqlite3_exec(db, "COMMIT;", NULL, NULL, NULL), db, "commit");
	sqlite3_stmt *scan, *get;
	sqlite_check(sqlite3_prepare_v2(db, "SELECT thread, type, flags, insid FROM exec", -1, &scan,
	                                NULL), db, "prepare");
	sqlite_check(sqlite3_prepare_v2(db, "SELECT thread, type FROM exec WHERE id = ?", -1, &get,
	                                NULL), db, "prepare");
	uint64_t lookups = cfg.smoke ? 1000 : 1000000;
	uint64_t *ids = random_ids(lookups, n);
	double sq[16], lib[16], blk[16], sqg[16], libg[16], viewg[16];
	int runs = cfg.runs < 3 ? cfg.runs : 3;
	for (int i = 0; i < runs; i++) {
		double t0 = now();
		uint64_t acc = 0;
		while (sqlite3_step(scan) == SQLITE_ROW)
			acc += (uint64_t)sqlite3_column_int(scan, 0) + (uint64_t)sqlite3_column_int(scan, 1) +
			       (uint64_t)sqlite3_column_int(scan, 2) +
			       (uint64_t)sqlite3_column_int64(scan, 3);
		sqlite3_reset(scan);
		double t1 = now();
		sink = acc + scan_lib(t, 0, n);
		double t2 = now();
		sink = scan_block(t, 0, n);
		double t3 = now();
		for (uint64_t k = 0; k < lookups; k++) {
			sqlite3_bind_int64(get, 1, (int64_t)ids[k]);
			if (sqlite3_step(get) == SQLITE_ROW)
				acc += (uint64_t)sqlite3_column_int(get, 0);
			sqlite3_reset(get);
		}
		double t4 = now();
		sink = acc + random_lib(t, ids, lookups);
		double t5 = now();
		sink = random_view(t, ids, lookups);
		double t6 = now();
		sq[i] = (double)n / (t1 - t0) / 1e6;
		lib[i] = (double)n / (t2 - t1) / 1e6;
		blk[i] = (double)n / (t3 - t2) / 1e6;
		sqg[i] = (double)lookups / (t4 - t3) / 1e6;
		libg[i] = (double)lookups / (t5 - t4) / 1e6;
		viewg[i] = (double)lookups / (t6 - t5) / 1e6;
	}
	struct stats a = summarize(lib, runs), k = summarize(blk, runs), b = summarize(sq, runs);
	struct stats c = summarize(libg, runs), w = summarize(viewg, runs), d = summarize(sqg, runs);
	report("sqlite", "record iterator scan", a, "M/s", "SQLite scan M/s", b, a.median / b.median,
	       ">= 40", a.median / b.median >= 40);
	report("sqlite", "block iterator scan", k, "M/s", "SQLite scan M/s", b, k.median / b.median,
	       ">= 40", k.median / b.median >= 40);
	report("sqlite", "umt_exec_get lookups", c, "M/s", "SQLite lookups M/s", d,
	       c.median / d.median, ">= 100", c.median / d.median >= 100);
	report("sqlite", "umt_exec_view_get lookups", w, "M/s", "SQLite lookups M/s", d,
	       w.median / d.median, ">= 100", w.median / d.median >= 100);
	free(ids);
	sqlite3_finalize(scan);
	sqlite3_finalize(get);
	sqlite3_close(db);
	unlink(path);
	umt_trace_close(t);
}
#endif

/* ---- callgrind: one loop, instrumented alone ------------------------------------------ */

/*
 * What --callgrind measures: one loop, instrumented alone. "-again" and the
 * random lookups (but for "-first") run after an uninstrumented scan, so
 * they show what work on a trace already scanned costs (the chunks of
 * checked records are known); the others run on a freshly opened trace.
 */
static const char *const callgrind_names[] = {
	"scan-raw", "scan-lib", "scan-lib-again", "scan-block-first", "scan-block",
	"random-raw", "random-lib", "random-view", "random-view-ptr", "random-batch",
	"random-lib-first", "random-view-first", "thread-chain", "thread-filter",
	"thread-chain-first", "thread-filter-first",
};

static int run_callgrind(const char *which)
{
	size_t k = 0, names = sizeof callgrind_names / sizeof callgrind_names[0];
	while (k < names && strcmp(which, callgrind_names[k]) != 0)
		k++;
	if (k == names) {
		fprintf(stderr, "umtbench: --callgrind takes one of:");
		for (k = 0; k < names; k++)
			fprintf(stderr, " %s", callgrind_names[k]);
		fprintf(stderr, "\n");
		return 2;
	}
	umt_trace *t = open_trace(cfg.trace, 0);
	uint64_t n = umt_exec_count(t), lookups = 1000000;
	const uint8_t *off, *rec;
	raw_views(t, &off, &rec);
	uint64_t *ids = random_ids(lookups, n ? n : 1);
	int random = !strncmp(which, "random-", 7);
	int thread = !strncmp(which, "thread-", 7);
	if (strstr(which, "-again") || !strcmp(which, "scan-block") ||
	    ((random || thread) && !strstr(which, "-first")))
		sink = scan_lib(t, 0, n);
	const umt_thread_rec *row;
	uint64_t thread0 = 0; /* records of thread 0 */
	if (thread && umt_thread_get(t, 0, &row) == 0)
		for (int64_t id = row->FirstEID; id >= 0 && umt_exec_links(t, (uint64_t)id, NULL, &id) == 0;)
			thread0++;
	umt_exec_view v;
	umt_exec_view_init(&v, t);
	CALLGRIND_START_INSTRUMENTATION;
	if (!strcmp(which, "scan-raw"))
		sink = scan_raw(off, rec, 0, n);
	else if (!strncmp(which, "scan-lib", 8))
		sink = scan_lib(t, 0, n);
	else if (!strncmp(which, "scan-block", 10))
		sink = scan_block(t, 0, n);
	else if (!strcmp(which, "random-raw"))
		sink = random_raw(off, rec, ids, lookups);
	else if (!strncmp(which, "random-lib", 10))
		sink = random_lib(t, ids, lookups);
	else if (!strcmp(which, "random-view-ptr"))
		sink = random_view_ptr(&v, ids, lookups);
	else if (!strncmp(which, "random-view", 11))
		sink = random_view(t, ids, lookups);
	else if (random)
		sink = random_batch(t, ids, lookups);
	else if (!strncmp(which, "thread-chain", 12))
		sink = chain_walk_all(t, 0);
	else
		sink = filter_scan(t, 0, 0, UINT64_MAX);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("%s: %llu %s\n", which,
	       (unsigned long long)(random ? lookups : thread ? thread0 : n),
	       random ? "lookups" : thread ? "records of thread 0" : "records");
	free(ids);
	umt_trace_close(t);
	return 0;
}

/* ---- main ------------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: umtbench [--trace DIR] [--runs N] [--only NAME[,NAME]] [--smoke]\n"
	                "                [--cold-trace DIR] [--sqlite-records N] [--tmp DIR]\n"
	                "                [--thread-records N] [--thread-quantum Q]\n"
	                "       umtbench --callgrind WHAT --trace DIR  (see bench/callgrind.sh)\n");
}

int main(int argc, char **argv)
{
	const char *callgrind = NULL;
	cfg.tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke"))
			cfg.smoke = 1, cfg.runs = 1;
		else if (!strcmp(a, "--trace") && v)
			cfg.trace = v, i++;
		else if (!strcmp(a, "--cold-trace") && v)
			cfg.cold_trace = v, i++;
		else if (!strcmp(a, "--tmp") && v)
			cfg.tmp = v, i++;
		else if (!strcmp(a, "--only") && v)
			cfg.only = v, i++;
		else if (!strcmp(a, "--runs") && v && atoi(v) > 0 && atoi(v) <= 64)
			cfg.runs = atoi(v), i++;
		else if (!strcmp(a, "--sqlite-records") && v)
			cfg.sqlite_records = strtoull(v, NULL, 10), i++;
		else if (!strcmp(a, "--thread-records") && v && strtoull(v, NULL, 10) >= 16)
			cfg.thread_records = strtoull(v, NULL, 10), i++;
		else if (!strcmp(a, "--thread-quantum") && v && strtoull(v, NULL, 10) >= 1 &&
		         strtoull(v, NULL, 10) <= 10000000)
			cfg.thread_quantum = (uint32_t)strtoull(v, NULL, 10), i++;
		else if (!strcmp(a, "--callgrind") && v)
			callgrind = v, i++;
		else
			return usage(), 2;
	}
	if (callgrind)
		return cfg.trace ? run_callgrind(callgrind) : (usage(), 2);
	/* the small trace: for open and heap, and for everything in smoke mode */
	char small[8192], generated[8192];
	join(small, sizeof small, cfg.tmp, "umtbench-1K");
	join(generated, sizeof generated, cfg.tmp, "umtbench-trace");
	struct umtgen_params p;
	umtgen_params_init(&p);
	p.quiet = 1;
	p.records = 1000;
	if (umtgen_write(small, &p) < 0)
		return 1;
	const char *trace = cfg.trace;
	static const char *const on_trace[] = {"scan", "operands", "thread", "random", "parallel",
	                                       "cold", "sqlite"};
	int needed = 0;
	for (size_t k = 0; k < sizeof on_trace / sizeof on_trace[0]; k++)
		needed |= wanted(on_trace[k]);
	if (trace == NULL && needed) {
		p.records = cfg.smoke ? 50000 : 20000000;
		p.threads = 8;
		fprintf(stderr, "umtbench: generating %llu records in %s\n",
		        (unsigned long long)p.records, generated);
		if (umtgen_write(generated, &p) < 0)
			return 1;
		trace = generated;
	}
	printf("umtbench %s: trace %s, %d runs each; figures are medians [min..max]\n",
	       umt_version(), trace ? trace : "(none needed)", cfg.runs);
	struct stats scan = {1, 1, 1};
	if (wanted("scan") || wanted("operands"))
		bench_scan(trace, &scan);
	if (wanted("operands"))
		bench_operands(trace, scan);
	if (wanted("thread"))
		bench_thread(trace);
	if (wanted("thread-vs-filter"))
		bench_thread_vs_filter();
	if (wanted("random"))
		bench_random(trace);
	if (wanted("parallel"))
		bench_parallel(trace);
	if (wanted("open") || wanted("heap"))
		bench_open_heap(small);
	if (wanted("gen"))
		bench_gen();
	if (wanted("cold") && (cfg.cold_trace || cfg.smoke)) {
		if (cfg.cold_trace == NULL)
			cfg.cold_trace = trace; /* smoke: only checks that it runs */
		bench_cold();
	}
	else if (wanted("cold") && !cfg.only)
		printf("cold      skipped: give --cold-trace DIR (a trace larger than RAM)\n");
#ifdef UMT_HAVE_SQLITE
	if (wanted("sqlite"))
		bench_sqlite(trace);
#else
	if (wanted("sqlite"))
		printf("sqlite    skipped: built without SQLite (libsqlite3-dev)\n");
#endif
	remove_trace(small);
	if (cfg.trace == NULL && needed)
		remove_trace(generated);
	return 0;
}
