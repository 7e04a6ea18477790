/*
 * ixbench: the memory index's speed and size (issue 13), each figure a
 * ratio against a limit or a peer measured in the same run.
 *
 *   ixbench --trace DIR [--tmp DIR] [--runs N] [--queries N] [--memory MiB]
 *           [--sections all|memory|registers]
 *           [--only build,sections,rss,parts,size,query,cold,sqlite,regsize,state,regchange,
 *            origin,callsize,stack,callsto]
 *           [--index DIR] [--smoke]
 *
 *   build  the index on 1 and 2 threads against a scan that only extracts
 *          the same postings (no sort, no write) on as many threads
 *          (goals: build >= 0.5x the extraction; 2 threads >= 1.6x one)
 *   sections  the build with every section against the build without
 *          calls and coverage, on 1 and 2 threads, runs alternating, CPU
 *          time (goal: <= 1.2, what issue 15 allows calls and coverage)
 *   rss    peak resident memory of a build in a child process, against the
 *          budget plus 64 MiB (goal: within)
 *   parts  the build in 4 parts (each on 1 thread, as 4 machines would) and
 *          their merge on 2 threads, against the local build on 1 thread:
 *          the time of 4 machines (slowest part + merge), the merge with and
 *          without the sections other than memory (report)
 *   size   index bytes against the trace's exec files (goal <= 0.5), and
 *          bytes per access
 *   query  last write before N of an 8-byte address (goal: median <= 10 us)
 *          and the 4 KiB memory at N (goal: median <= 2 ms), warm; against
 *          the brute-force scan (speed-up)
 *   cold   the same last-write query with the index's and the trace's pages
 *          evicted: major page faults per query (goal <= 10)
 *   sqlite the same accesses in an SQLite table indexed on (address, record):
 *          load time, size, and the last-write query (needs SQLite)
 *   regsize, state, regchange, origin: the registers (ixregs.c)
 *   callsize, stack, callsto: the calls (ixcalls.c)
 *
 * --sections says what the other builds make (default all). The index is
 * built into --tmp (default $TMPDIR or /tmp), or with --index DIR an index
 * built before is queried (build, sections and rss still build). Not a test:
 * nothing here asserts a time. docs/performance.md has the figures.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef UMT_HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "../src/index/ixint.h"
#include "benchlist.h"
#include "ixbench.h"

static struct {
	const char *trace, *tmp, *only, *build_only, *index;
	unsigned build_threads;
	int runs;
	unsigned queries;
	uint64_t memory;
	uint64_t sections; /* umt_index_build_options.sections of the builds */
	int smoke;
} cfg = {.runs = 3, .queries = 2000, .memory = 256ull << 20,
         .sections = UMT_INDEX_SECTIONS_ALL};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool ixb_wanted(const char *name)
{
	return bench_listed(cfg.only, name);
}

static void die(const char *what)
{
	fprintf(stderr, "ixbench: %s: %s\n", what, *umt_errmsg() ? umt_errmsg() : strerror(errno));
	exit(1);
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

void ixb_line(const char *what, double value, const char *unit, const char *peer, double ratio,
              const char *goal, bool met)
{
	printf("%-44s %12.3f %-6s %-34s ratio %8.3f  goal %-8s %s\n", what, value, unit, peer,
	       ratio, goal, *goal == '(' ? "" : met ? "met" : "NOT MET");
}

/* ---- build ----------------------------------------------------------------------------- */

struct extract {
	umt_trace *t;
	const uint64_t *bounds;
	unsigned k;
	uint64_t postings, accesses;
};

static int count(void *ctx, const struct ix_entry *e)
{
	(void)e;
	(*(uint64_t *)ctx)++;
	return 0;
}

static void *extract_range(void *arg)
{
	struct extract *x = arg;
	umt_exec_iter it;
	umt_exec_block b;
	umt_rec r;
	int n;
	umt_exec_iter_init(&it, x->t, x->bounds[x->k], x->bounds[x->k + 1]);
	while ((n = umt_exec_iter_next_block(&it, &b, 4096)) > 0)
		for (int i = 0; i < n; i++) {
			umt_block_rec(&b, (uint32_t)i, &r);
			umt__ix_record_postings(x->t, &r, count, &x->postings, &x->accesses);
		}
	return NULL;
}

/* The extraction alone on @p threads threads: seconds. */
static double extract(umt_trace *t, unsigned threads, uint64_t *postings)
{
	uint64_t bounds[65];
	struct extract x[64];
	pthread_t tid[64];
	umt_exec_split(t, threads, bounds);
	double t0 = now();
	for (unsigned k = 0; k < threads; k++) {
		x[k] = (struct extract){t, bounds, k, 0, 0};
		pthread_create(&tid[k], NULL, extract_range, &x[k]);
	}
	*postings = 0;
	for (unsigned k = 0; k < threads; k++) {
		pthread_join(tid[k], NULL);
		*postings += x[k].postings;
	}
	return now() - t0;
}

static double build_of(umt_trace *t, const char *dir, unsigned threads, uint64_t sections,
                       umt_index_build_stats *s)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = threads;
	o.memory = cfg.memory;
	o.sections = sections;
	double t0 = now();
	if (umt_index_build(t, dir, &o, s) < 0)
		die("build");
	return now() - t0;
}

static double build(umt_trace *t, const char *dir, unsigned threads, umt_index_build_stats *s)
{
	return build_of(t, dir, threads, cfg.sections, s);
}

/*
 * What coverage adds to a build: memory and coverage against memory alone
 * (the registers, measured by --only regsize, left out of both), runs
 * alternating. The goal is on CPU time, which other processes
 * on a shared machine disturb less than the elapsed time (both shown).
 */
static void bench_sections(umt_trace *t, const char *dir)
{
	double m[2][16], a[2][16], mc[2][16], ac[2][16];
	umt_index_build_stats s;
	for (int r = 0; r < cfg.runs; r++)
		for (unsigned th = 1; th <= 2; th++) {
			double c0 = ixb_cpu_seconds();
			/* issue 15: what calls and coverage add to the rest of the build */
			m[th - 1][r] = build_of(t, dir, th, UMT_INDEX_SECTIONS_ALL & ~(uint64_t)(
			                                        UMT_INDEX_SECTION_CALLS | UMT_INDEX_SECTION_COVERAGE), &s);
			double c1 = ixb_cpu_seconds();
			a[th - 1][r] = build_of(t, dir, th, UMT_INDEX_SECTIONS_ALL, &s);
			mc[th - 1][r] = c1 - c0;
			ac[th - 1][r] = ixb_cpu_seconds() - c1;
		}
	double rec = (double)umt_exec_count(t) / 1e6;
	for (unsigned th = 1; th <= 2; th++) {
		size_t n = (size_t)cfg.runs;
		double mm = median(m[th - 1], n), ma = median(a[th - 1], n);
		double cm = median(mc[th - 1], n), ca = median(ac[th - 1], n);
		char what[64], peer[64];
		snprintf(what, sizeof what, "build + calls + coverage, %u thread%s (M rec/s)", th,
		         th > 1 ? "s" : "");
		snprintf(peer, sizeof peer, "memory + registers, %u thread%s", th, th > 1 ? "s" : "");
		ixb_line(what, rec / ma, "M/s", peer, ma / mm, "(elapsed)", true);
		snprintf(what, sizeof what, "  CPU s per M records, %u thread%s", th, th > 1 ? "s" : "");
		ixb_line(what, ca / rec, "s", peer, ca / cm, "<= 1.2", ca / cm <= 1.2);
	}
}

static void bench_build(umt_trace *t, const char *dir)
{
	double e1[16], e2[16], b1[16], b2[16];
	uint64_t postings = 0;
	umt_index_build_stats s;
	for (int r = 0; r < cfg.runs; r++) {
		e1[r] = extract(t, 1, &postings);
		b1[r] = build(t, dir, 1, &s);
		e2[r] = extract(t, 2, &postings);
		b2[r] = build(t, dir, 2, &s);
	}
	double me1 = median(e1, (size_t)cfg.runs), me2 = median(e2, (size_t)cfg.runs);
	double mb1 = median(b1, (size_t)cfg.runs), mb2 = median(b2, (size_t)cfg.runs);
	double rec = (double)umt_exec_count(t) / 1e6;
	printf("build: %llu records, %llu postings, %llu runs spilled, budget %llu MiB\n",
	       (unsigned long long)umt_exec_count(t), (unsigned long long)postings,
	       (unsigned long long)s.runs, (unsigned long long)(cfg.memory >> 20));
	ixb_line("build, 1 thread (M records/s)", rec / mb1, "M/s", "extraction only, 1 thread", me1 / mb1,
	     ">= 0.5", me1 / mb1 >= 0.5);
	ixb_line("build, 2 threads (M records/s)", rec / mb2, "M/s", "extraction only, 2 threads",
	     me2 / mb2, ">= 0.5", me2 / mb2 >= 0.5);
	ixb_line("build, 2 threads vs 1", rec / mb2, "M/s", "build, 1 thread", mb1 / mb2, ">= 1.6",
	     mb1 / mb2 >= 1.6);
	ixb_line("extraction, 2 threads vs 1", rec / me2, "M/s", "extraction, 1 thread", me1 / me2,
	     "(report)", true);
}

static void build_parts(umt_trace *t, const char *dir, unsigned parts, double *slowest)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 1;
	o.memory = cfg.memory;
	*slowest = 0;
	for (unsigned k = 0; k < parts; k++) {
		double t0 = now();
		if (umt_index_build_part(t, dir, k, parts, &o, NULL) < 0)
			die("build a part");
		double d = now() - t0;
		*slowest = d > *slowest ? d : *slowest;
	}
}

static double merge_parts(umt_trace *t, const char *dir, unsigned parts, uint64_t sections)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 2;
	o.memory = cfg.memory;
	o.sections = sections;
	double t0 = now();
	if (umt_index_build_merge(t, dir, parts, &o, NULL) < 0)
		die("merge the parts");
	return now() - t0;
}

static void bench_parts(umt_trace *t, const char *dir)
{
	enum { PARTS = 4 };
	double local[16], slow[16], all[16], mem[16], slowm[16];
	umt_index_build_stats s;
	for (int r = 0; r < cfg.runs; r++) {
		local[r] = build(t, dir, 1, &s);
		build_parts(t, dir, PARTS, &slow[r]);
		all[r] = merge_parts(t, dir, PARTS, UMT_INDEX_SECTIONS_ALL);
		build_parts(t, dir, PARTS, &slowm[r]);
		mem[r] = merge_parts(t, dir, PARTS, UMT_INDEX_SECTION_MEMORY);
	}
	double ml = median(local, (size_t)cfg.runs), ms = median(slow, (size_t)cfg.runs);
	double ma = median(all, (size_t)cfg.runs), mm = median(mem, (size_t)cfg.runs);
	printf("parts: %d parts on 1 thread each, merge on 2 threads; local build %.2f s on 1 thread\n",
	       PARTS, ml);
	ixb_line("slowest part (s)", ms, "s", "local build / 4", ml / PARTS / ms, "(report)", true);
	ixb_line("merge, every section (s)", ma, "s", "local build", ml / ma, "(report)", true);
	ixb_line("merge, memory only (s)", mm, "s", "local build", ml / mm, "(report)", true);
	ixb_line("4 machines: slowest part + merge (s)", ms + ma, "s", "local build, 1 thread",
	         ml / (ms + ma), "(report)", true);
}

/*
 * Peak RSS of a build in a fresh process (this program again, --build-only):
 * a forked child would count the trace pages this process has touched.
 */
static void bench_rss(const char *dir)
{
	for (unsigned threads = 1; threads <= 2; threads++) {
		char th[16], mem[32];
		snprintf(th, sizeof th, "%u", threads);
		snprintf(mem, sizeof mem, "%llu", (unsigned long long)(cfg.memory >> 20));
		const char *sections = cfg.sections == UMT_INDEX_SECTION_MEMORY ? "memory"
		                       : cfg.sections == UMT_INDEX_SECTIONS_ALL  ? "all"
		                                                                 : "registers";
		char *argv[] = {"ixbench", "--trace", (char *)cfg.trace, "--memory", mem,
		                "--build-only", (char *)dir, "--threads", th,
		                "--sections", (char *)sections, NULL};
		fflush(NULL);
		pid_t pid = fork();
		if (pid == 0) {
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		int status;
		struct rusage ru;
		if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			die("build in a child");
		double mib = (double)ru.ru_maxrss / 1024.0, limit = (double)(cfg.memory >> 20) + 64;
		char what[64];
		snprintf(what, sizeof what, "peak RSS of a build, %u thread%s", threads,
		         threads > 1 ? "s" : "");
		ixb_line(what, mib, "MiB", "budget + 64 MiB", mib / limit, "<= 1", mib <= limit);
	}
}

/* ---- size ------------------------------------------------------------------------------ */

static void bench_size(umt_trace *t, umt_index *ix)
{
	umt_index_info info;
	umt_index_get_info(ix, &info);
	uint64_t exec = umt_trace_file_size(t, UMT_FILE_EXEC_VTABLE) +
	                umt_trace_file_size(t, UMT_FILE_EXEC_OFFSETS) +
	                umt_trace_file_size(t, UMT_FILE_EXEC_PREV_NEXT);
	ixb_line("index size (MiB)", (double)info.bytes / 1048576.0, "MiB", "the trace's exec files",
	     (double)info.bytes / (double)exec, "<= 0.5", info.bytes <= exec / 2);
	ixb_line("bytes per access", (double)info.bytes / (double)info.accesses, "B",
	     "bytes per record of the trace", (double)info.bytes / (double)info.accesses /
	     ((double)exec / (double)umt_exec_count(t)), "(report)", true);
}

/* ---- queries --------------------------------------------------------------------------- */

struct probe {
	uint64_t address, at;
};

/* Addresses the trace writes, at random records after them (deterministic). */
static size_t pick_probes(umt_trace *t, struct probe *p, size_t n)
{
	uint64_t records = umt_exec_count(t), x = 0x9e3779b97f4a7c15ull;
	size_t k = 0;
	for (size_t tries = 0; k < n && tries < 50 * n; tries++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		umt_rec r;
		umt_access_iter it;
		umt_access a;
		if (umt_exec_get(t, x % records, &r) < 0 ||
		    umt_access_iter_init(&it, t, &r, UMT_ACCESS_WRITE) < 0 ||
		    umt_access_iter_next(&it, &a) <= 0)
			continue;
		p[k].address = a.address;
		p[k].at = a.record_id + 1 + (x >> 32) % (records - a.record_id);
		if (p[k].at >= records)
			p[k].at = records - 1;
		k++;
	}
	return k;
}

static int last_write(const umt_index *ix, const struct probe *p, umt_access *out)
{
	umt_history_query q;
	umt_history_query_init(&q, p->address, 8);
	q.kinds = UMT_ACCESS_WRITE;
	q.to = p->at;
	q.reverse = 1;
	q.limit = 1;
	umt_history *h;
	if (umt_history_open(ix, &q, &h) < 0)
		die("history");
	int rc = umt_history_next(h, out);
	umt_history_close(h);
	return rc;
}

/* The brute force: every write to the 8 bytes before the record, by a forward scan. */
static int scan_last_write(umt_trace *t, const struct probe *p, uint64_t *record)
{
	umt_exec_iter it;
	umt_rec r;
	int found = 0;
	umt_exec_iter_init(&it, t, 0, p->at);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		if (r.type != UMT_REC_INSTRUCTION ||
		    umt_access_iter_init(&ai, t, &r, UMT_ACCESS_WRITE) < 0)
			continue;
		while (umt_access_iter_next(&ai, &a) > 0)
			if ((a.trust & UMT_TRUST_ADDRESS) && a.address < p->address + 8 &&
			    a.address + a.size > p->address)
				*record = a.record_id, found = 1;
	}
	return found;
}

static void bench_query(umt_trace *t, umt_index *ix, struct probe *p, size_t n)
{
	double *lat = malloc(n * sizeof *lat), *mem = malloc(n * sizeof *mem);
	uint8_t *buf = malloc(4096 * 10);
	umt_access a;
	for (int pass = 0; pass < 2; pass++) /* the first pass warms the caches */
		for (size_t i = 0; i < n; i++) {
			double t0 = now();
			last_write(ix, &p[i], &a);
			lat[i] = now() - t0;
		}
	for (size_t i = 0; i < n; i++) {
		double t0 = now();
		if (umt_mem_at(ix, p[i].at, p[i].address & ~4095ull, 4096, buf, buf + 4096, NULL) < 0)
			die("mem");
		mem[i] = now() - t0;
	}
	double ml = median(lat, n), mm = median(mem, n);
	/* the brute force on a few probes, and the index's answer must agree */
	size_t m = n < 3 ? n : 3;
	double t0 = now();
	for (size_t i = 0; i < m; i++) {
		uint64_t rec = UINT64_MAX;
		int want = scan_last_write(t, &p[i], &rec);
		int got = last_write(ix, &p[i], &a);
		if (want != got || (got && a.record_id != rec))
			fprintf(stderr, "ixbench: the index and the scan disagree at probe %zu\n", i);
	}
	double scan = (now() - t0) / (double)m;
	ixb_line("last write before N, 8 bytes, warm (us)", ml * 1e6, "us", "limit 10 us", ml * 1e6 / 10,
	     "<= 1", ml <= 10e-6);
	ixb_line("last write: brute-force scan (s)", scan, "s", "the index's median", scan / ml,
	     "(report)", true);
	ixb_line("memory at N, 4 KiB, warm (ms)", mm * 1e3, "ms", "limit 2 ms", mm * 1e3 / 2, "<= 1",
	     mm <= 2e-3);
	free(lat), free(mem), free(buf);
}

/* Evicts the pages of the index's and the trace's files from this process and the cache. */
static void evict(const char *trace, const char *index, umt_trace *t, umt_index *ix)
{
	for (int f = 0; f < IX_F_COUNT; f++)
		umt__map_advise(&ix->files[f], UMT_FILE_COUNT, 0, ix->files[f].size, UMT_ADVISE_DONTNEED);
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		umt_trace_advise(t, f, UMT_ADVISE_DONTNEED);
	const char *dirs[2] = {trace, index};
	static const char *const names[] = {
		"exec.vtable", "exec.offsets", "exec.prev_next.column", "ins.itable", "index.umti",
		"mem.dir", "mem.post", "mem.skip"};
	for (int d = 0; d < 2; d++)
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]);
			int fd = open(path, O_RDONLY);
			if (fd >= 0) {
				posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
				close(fd);
			}
		}
}

static void bench_cold(umt_trace *t, umt_index *ix, const char *index, struct probe *p, size_t n)
{
	size_t m = n < 50 ? n : 50;
	double *faults = malloc(m * sizeof *faults), *lat = malloc(m * sizeof *lat);
	for (int f = 0; f < IX_F_COUNT; f++) /* no read-around: a fault reads one page */
		umt__map_advise(&ix->files[f], UMT_FILE_COUNT, 0, ix->files[f].size, UMT_ADVISE_RANDOM);
	umt_exec_advise(t, 0, umt_exec_count(t), UMT_ADVISE_RANDOM);
	for (size_t i = 0; i < m; i++) {
		evict(cfg.trace, index, t, ix);
		struct rusage a, b;
		umt_access acc;
		getrusage(RUSAGE_THREAD, &a);
		double t0 = now();
		last_write(ix, &p[i], &acc);
		lat[i] = now() - t0;
		getrusage(RUSAGE_THREAD, &b);
		faults[i] = (double)(b.ru_majflt - a.ru_majflt);
	}
	double mf = median(faults, m), ml = median(lat, m);
	ixb_line("last write, cold: page reads (major faults)", mf, "pages", "limit 10 pages", mf / 10,
	     "<= 1", mf <= 10);
	ixb_line("last write, cold: time (ms)", ml * 1e3, "ms", "(index and trace evicted)", 1,
	     "(report)", true);
	umt_exec_advise(t, 0, umt_exec_count(t), UMT_ADVISE_NORMAL);
	free(faults), free(lat);
}

/* ---- SQLite ---------------------------------------------------------------------------- */

#ifdef UMT_HAVE_SQLITE
static void sql_ok(sqlite3 *db, int rc, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "ixbench: sqlite %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

/* Loads every indexed access: (address, end, record, kind, thread), indexed on (address, record). */
static uint64_t sqlite_load(umt_trace *t, sqlite3 *db, uint64_t *max_size)
{
	sql_ok(db, sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
	                        "CREATE TABLE acc(addr INTEGER, end INTEGER, rec INTEGER, kind INTEGER,"
	                        " thread INTEGER); BEGIN", NULL, NULL, NULL), "create");
	sqlite3_stmt *ins;
	sql_ok(db, sqlite3_prepare_v2(db, "INSERT INTO acc VALUES (?, ?, ?, ?, ?)", -1, &ins, NULL),
	       "prepare");
	umt_exec_iter it;
	umt_rec r;
	uint64_t rows = 0;
	*max_size = 1;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while (umt_exec_iter_next(&it, &r) > 0) {
		umt_access_iter ai;
		umt_access a;
		if (umt_access_iter_init(&ai, t, &r, UMT_ACCESS_ALL) < 0)
			continue;
		while (umt_access_iter_next(&ai, &a) > 0) {
			if (!umt__ix_indexed(&a))
				continue;
			sqlite3_bind_int64(ins, 1, (sqlite3_int64)a.address);
			sqlite3_bind_int64(ins, 2, (sqlite3_int64)(a.address + a.size));
			sqlite3_bind_int64(ins, 3, (sqlite3_int64)a.record_id);
			sqlite3_bind_int(ins, 4, (int)a.kind);
			sqlite3_bind_int(ins, 5, a.thread_id);
			sql_ok(db, sqlite3_step(ins), "insert");
			sqlite3_reset(ins);
			if (a.size > *max_size)
				*max_size = a.size;
			rows++;
		}
	}
	sqlite3_finalize(ins);
	sql_ok(db, sqlite3_exec(db, "COMMIT; CREATE INDEX acc_addr ON acc(addr, rec)", NULL, NULL,
	                        NULL), "index");
	return rows;
}

static void bench_sqlite(umt_trace *t, umt_index *ix, struct probe *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/ixbench-%d.sqlite", cfg.tmp, (int)getpid());
	unlink(path);
	sqlite3 *db = NULL;
	sql_ok(db, sqlite3_open(path, &db), "open");
	uint64_t max_size;
	double t0 = now();
	uint64_t rows = sqlite_load(t, db, &max_size);
	double load = now() - t0;
	sqlite3_close(db);
	struct stat st;
	stat(path, &st);
	umt_index_info info;
	umt_index_get_info(ix, &info);
	umt_index_build_stats s;
	char idx2[4096];
	snprintf(idx2, sizeof idx2, "%s/ixbench-%d.idx", cfg.tmp, (int)getpid());
	double ib = build(t, idx2, 2, &s);
	sql_ok(db, sqlite3_open(path, &db), "open");
	sqlite3_stmt *q;
	sql_ok(db, sqlite3_prepare_v2(db, "SELECT rec FROM acc WHERE addr BETWEEN ?1 - ?2 + 1 AND ?1 + 7 "
	                              "AND end > ?1 AND kind = 2 AND rec < ?3 ORDER BY rec DESC LIMIT 1",
	                              -1, &q, NULL), "prepare");
	double *lat = malloc(n * sizeof *lat);
	umt_access a;
	size_t disagree = 0;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(q, 1, (sqlite3_int64)p[i].address);
		sqlite3_bind_int64(q, 2, (sqlite3_int64)max_size);
		sqlite3_bind_int64(q, 3, (sqlite3_int64)p[i].at);
		double t1 = now();
		int rc = sqlite3_step(q);
		lat[i] = now() - t1;
		int64_t rec = rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : -1;
		sqlite3_reset(q);
		int got = last_write(ix, &p[i], &a);
		if ((rc == SQLITE_ROW) != (got == 1) || (got == 1 && (uint64_t)rec != a.record_id))
			disagree++;
	}
	sqlite3_finalize(q);
	sqlite3_close(db);
	double ml = median(lat, n);
	printf("sqlite: %llu rows, largest access %llu bytes, %zu answers differ from the index\n",
	       (unsigned long long)rows, (unsigned long long)max_size, disagree);
	ixb_line("SQLite load + index (s)", load, "s", "umt_index_build, 2 threads", load / ib,
	     "(report)", true);
	ixb_line("SQLite file size (MiB)", (double)st.st_size / 1048576.0, "MiB", "the index",
	     (double)st.st_size / (double)info.bytes, "(report)", true);
	ixb_line("SQLite last write before N (us)", ml * 1e6, "us", "the index", 1, "(report)", true);
	unlink(path);
	free(lat);
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", idx2);
	if (system(cmd) != 0)
		fprintf(stderr, "ixbench: cannot remove %s\n", idx2);
}
#endif

/* ---- main ------------------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr, "usage: ixbench --trace DIR [--tmp DIR] [--runs N] [--queries N] "
	                "[--memory MiB] [--sections all|memory|registers]\n"
	                "  [--only build,sections,rss,parts,size,query,cold,sqlite,regsize,state,regchange,\n"
	                "   origin,callsize,stack,callsto]\n"
	                "  [--index DIR] [--smoke]\n");
	exit(2);
}

static void parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			cfg.smoke = 1, cfg.runs = 1, cfg.queries = 20;
			continue;
		}
		if (v == NULL)
			usage();
		if (!strcmp(a, "--trace"))
			cfg.trace = v;
		else if (!strcmp(a, "--tmp"))
			cfg.tmp = v;
		else if (!strcmp(a, "--only"))
			cfg.only = v;
		else if (!strcmp(a, "--runs"))
			cfg.runs = atoi(v) > 0 && atoi(v) <= 16 ? atoi(v) : 3;
		else if (!strcmp(a, "--queries"))
			cfg.queries = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--memory"))
			cfg.memory = strtoull(v, NULL, 10) << 20;
		else if (!strcmp(a, "--index"))
			cfg.index = v;
		else if (!strcmp(a, "--build-only"))
			cfg.build_only = v;
		else if (!strcmp(a, "--threads"))
			cfg.build_threads = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(a, "--sections") && v && !strcmp(v, "all"))
			cfg.sections = UMT_INDEX_SECTIONS_ALL;
		else if (!strcmp(a, "--sections") && v && !strcmp(v, "memory"))
			cfg.sections = UMT_INDEX_SECTION_MEMORY;
		else if (!strcmp(a, "--sections") && v && !strcmp(v, "registers"))
			cfg.sections = UMT_INDEX_SECTION_MEMORY | UMT_INDEX_SECTION_REGISTERS;
		else
			usage();
		i++;
	}
	if (cfg.trace == NULL || cfg.queries == 0)
		usage();
	if (cfg.tmp == NULL)
		cfg.tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
}

int main(int argc, char **argv)
{
	parse(argc, argv);
	umt_trace *t;
	if (umt_trace_open(cfg.trace, 0, &t) < 0)
		die(cfg.trace);
	if (cfg.build_only) { /* bench_rss's child */
		umt_index_build_stats s;
		build(t, cfg.build_only, cfg.build_threads, &s);
		umt_trace_close(t);
		return 0;
	}
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/ixbench-%d.index", cfg.tmp, (int)getpid());
	if (ixb_wanted("build"))
		bench_build(t, dir);
	if (ixb_wanted("sections"))
		bench_sections(t, dir);
	if (ixb_wanted("rss"))
		bench_rss(dir);
	if (ixb_wanted("parts"))
		bench_parts(t, dir);
	umt_index_build_stats s;
	if (cfg.index) /* a prebuilt index: only the queries */
		snprintf(dir, sizeof dir, "%s", cfg.index);
	else
		build(t, dir, 2, &s);
	umt_index *ix;
	if (umt_index_open(t, dir, &ix) < 0)
		die("open the index");
	struct probe *p = malloc(cfg.queries * sizeof *p);
	size_t n = pick_probes(t, p, cfg.queries);
	if (ixb_wanted("size"))
		bench_size(t, ix);
	if (ixb_wanted("query") && n)
		bench_query(t, ix, p, n);
	if (ixb_wanted("cold") && n)
		bench_cold(t, ix, dir, p, n);
#ifdef UMT_HAVE_SQLITE
	if (ixb_wanted("sqlite") && n)
		bench_sqlite(t, ix, p, n);
#endif
	struct ixb regs = {cfg.trace, cfg.tmp, cfg.runs, cfg.queries};
	ixbench_regs(&regs, t, ix);
	ixbench_calls(&regs, t, ix);
	umt_index_close(ix);
	umt_trace_close(t);
	free(p);
	if (cfg.index)
		return 0;
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
