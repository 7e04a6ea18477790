/*
 * sqlbench - SQL over a trace (sql/, docs/sql.md) against the C API it is
 * built on, and against the same tables loaded into native SQLite tables
 * first (the "load it into a database" way). Each figure is the median of
 * --runs runs with [min..max]; the ratios of docs/performance.md's goals:
 *
 *   scan     SELECT count(*) FROM records WHERE type = 0 vs the C block
 *            iterator counting the same records            goal >= 0.3x
 *   lookup   SELECT * FROM records WHERE id = ? (prepared, reused) vs
 *            umt_exec_get() of the same random IDs           goal >= 0.2x
 *   (both beside SQLite's own floors on this machine: the same queries on
 *   a table that does no work, sqlfloor.c; the connection is in SQLite's
 *   multi-thread mode, one thread using it, as a program after speed opens it)
 *   range    SELECT * FROM accesses WHERE address BETWEEN ? AND ? over
 *            64-byte ranges, warm, from the index: <= 1 ms plus the rows'
 *            cost, and >= 1000x faster than the same query with the
 *            constraint hidden from the table (+address)
 *   native   the records and accesses tables copied into a database file
 *            (load time, file size), then the same three queries on it
 *   calls    the calls table with its pushdowns (target =, thread_id =)
 *            against the same queries with the constraint hidden (+target),
 *            and stack(at) at random records (needs an index with calls)
 *
 * sqlbench --trace DIR [--index DIR] [--runs N] [--lookups N] [--ranges N]
 *          [--tmp DIR] [--no-native] [--smoke] [--only PART,...]
 * The index must exist (umtdump index TRACE, or --index DIR).
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchlist.h"
#include "sqlfloor.h"
#include "umtrace/sqlite.h"
#include "umtrace/umtrace.h"

static struct {
	const char *trace, *index, *tmp, *only;
	int runs, lookups, ranges, native, smoke;
} cfg = {.tmp = "/tmp", .runs = 5, .lookups = 200000, .ranges = 200, .native = 1};

struct stats {
	double median, min, max;
};

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

static struct stats summarize(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return (struct stats){n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1]};
}

static void line(const char *what, struct stats s, const char *unit)
{
	printf("  %-58s %12.3f %-7s [%.3f..%.3f]\n", what, s.median, unit, s.min, s.max);
	fflush(stdout);
}

static void verdict(const char *what, double ratio, const char *goal, int met)
{
	printf("  => %-55s ratio %10.2f  goal %-9s %s\n", what, ratio, goal,
	       cfg.smoke ? "(smoke)" : met ? "met" : "NOT MET");
	fflush(stdout);
}

static void check(int rc, sqlite3 *db, const char *what)
{
	if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
		fprintf(stderr, "sqlbench: %s: %s\n", what, sqlite3_errmsg(db));
		exit(1);
	}
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	check(sqlite3_prepare_v2(db, sql, -1, &st, NULL), db, sql);
	return st;
}

/* Runs @p st (bound already) to its end; @return its rows. Every column is read. */
static uint64_t drain(sqlite3 *db, sqlite3_stmt *st, uint64_t *acc)
{
	uint64_t rows = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rows++;
		for (int i = 0, n = sqlite3_column_count(st); i < n; i++) {
			int type = sqlite3_column_type(st, i); /* read as it is: no conversion */
			if (type == SQLITE_INTEGER)
				*acc += (uint64_t)sqlite3_column_int64(st, i);
			else if (type == SQLITE_TEXT || type == SQLITE_BLOB)
				*acc += (uint64_t)sqlite3_column_bytes(st, i);
		}
	}
	check(rc, db, sqlite3_sql(st));
	sqlite3_reset(st);
	return rows;
}

static int64_t single(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = prepare(db, sql);
	check(sqlite3_step(st), db, sql);
	int64_t v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A deterministic generator (xorshift64*): the same IDs for every contender. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static volatile uint64_t sink;

/* ---- scan --------------------------------------------------------------------------- */

static uint64_t c_count_instructions(const umt_trace *t)
{
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t n = 0;
	int k;
	umt_exec_iter_init(&it, t, 0, umt_exec_count(t));
	while ((k = umt_exec_iter_next_block(&it, &b, 4096)) != 0)
		for (int i = 0; i < k; i++)
			n += ((const umt_exec_rec_hdr *)umt_block_data(&b, (uint32_t)i))->Type ==
			     UMT_REC_INSTRUCTION;
	return n;
}

static struct stats time_sql_count(sqlite3 *db, const char *sql, int64_t want, double rows)
{
	double v[64] = {0};
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		int64_t got = single(db, sql);
		v[r] = rows / (now() - t0) / 1e6;
		if (got != want) {
			fprintf(stderr, "sqlbench: %s: %lld, the C scan %lld\n", sql, (long long)got,
			        (long long)want);
			exit(1);
		}
	}
	return summarize(v, cfg.runs);
}

static void bench_scan(const umt_trace *t, sqlite3 *db, struct stats *sql_out)
{
	double v[64] = {0}, n = (double)umt_exec_count(t);
	uint64_t want = 0;
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		want = c_count_instructions(t);
		v[r] = n / (now() - t0) / 1e6;
	}
	struct stats c = summarize(v, cfg.runs);
	struct stats s = time_sql_count(db, "SELECT count(*) FROM records WHERE type = 0",
	                                (int64_t)want, n);
	struct stats f = time_sql_count(db, "SELECT count(*) FROM noop WHERE type = 0", (int64_t)n, n);
	printf("scan: count the instruction records (%llu of %.0f)\n", (unsigned long long)want, n);
	line("C block iterator", c, "M rec/s");
	line("SQL SELECT count(*) FROM records WHERE type = 0", s, "M rec/s");
	line("SQLite's own floor: the same over a table that does nothing", f, "M rec/s");
	printf("  the floor / C: %.2f (no table can do better than SQLite's floor)\n",
	       f.median / c.median);
	verdict("SQL / C", s.median / c.median, ">= 0.3", s.median / c.median >= 0.3);
	*sql_out = s;
}

/* ---- lookup ------------------------------------------------------------------------- */

static uint64_t *random_ids(uint64_t n, int count)
{
	uint64_t *ids = malloc((size_t)count * sizeof *ids), s = 0x9e3779b97f4a7c15ULL;
	if (ids == NULL)
		exit(1);
	for (int i = 0; i < count; i++)
		ids[i] = rnd(&s) % n;
	return ids;
}

/* Lookups per second (millions) of @p sql with each ID bound to its first parameter. */
static struct stats time_sql_lookups(sqlite3 *db, const char *sql, const uint64_t *ids)
{
	sqlite3_stmt *st = prepare(db, sql);
	double v[64] = {0};
	uint64_t acc = 0;
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		for (int i = 0; i < cfg.lookups; i++) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)ids[i]);
			if (drain(db, st, &acc) != 1)
				exit(1);
		}
		v[r] = cfg.lookups / (now() - t0) / 1e6;
	}
	sqlite3_finalize(st);
	sink = acc;
	return summarize(v, cfg.runs);
}

static struct stats time_c_lookups(const umt_trace *t, const uint64_t *ids)
{
	double v[64] = {0};
	uint64_t acc = 0;
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		for (int i = 0; i < cfg.lookups; i++) {
			umt_rec rec;
			if (umt_exec_get(t, ids[i], &rec) < 0)
				exit(1);
			acc += (uint64_t)rec.thread_id + rec.type + rec.flags;
		}
		v[r] = cfg.lookups / (now() - t0) / 1e6;
	}
	sink = acc;
	return summarize(v, cfg.runs);
}

#define FEW_COLUMNS "SELECT id, thread_id, type, flags, ins_id, address FROM "

static void bench_lookup(const umt_trace *t, sqlite3 *db, const uint64_t *ids)
{
	struct stats c = time_c_lookups(t, ids);
	struct stats all = time_sql_lookups(db, "SELECT * FROM records WHERE id = ?", ids);
	struct stats few = time_sql_lookups(db, FEW_COLUMNS "records WHERE id = ?", ids);
	printf("lookup: %d random records by ID, a prepared statement reused\n", cfg.lookups);
	struct stats floor = time_sql_lookups(db, "SELECT ?", ids);
	struct stats vfloor = time_sql_lookups(db, "SELECT * FROM noop WHERE n = ?", ids);
	line("C umt_exec_get", c, "M/s");
	line("SQL SELECT * FROM records WHERE id = ? (16 columns)", all, "M/s");
	line("SQL SELECT id, thread_id, type, flags, ins_id, address", few, "M/s");
	line("SQLite's own floor: SELECT ? prepared, per statement", floor, "M/s");
	line("SQLite's floor with a table: SELECT * FROM noop WHERE n = ?", vfloor, "M/s");
	printf("  the floors / C: %.2f and %.2f (no table can do better than the second)\n",
	       floor.median / c.median, vfloor.median / c.median);
	verdict("SELECT * / umt_exec_get", all.median / c.median, ">= 0.2",
	        all.median / c.median >= 0.2);
}

/* ---- range -------------------------------------------------------------------------- */

/* Ranges of 64 bytes around the address of an access of random records. */
static int64_t *pick_ranges(const umt_trace *t, sqlite3 *db)
{
	int64_t *lo = calloc((size_t)cfg.ranges, sizeof *lo);
	sqlite3_stmt *st = prepare(db, "SELECT address FROM accesses WHERE id >= ? LIMIT 1");
	uint64_t s = 0x2545f4914f6cdd1dULL;
	if (lo == NULL)
		exit(1);
	for (int i = 0, tries = 0; i < cfg.ranges; tries++) {
		if (tries > 100 * cfg.ranges) {
			fprintf(stderr, "sqlbench: %s: too few memory accesses for ranges\n", cfg.trace);
			exit(1);
		}
		sqlite3_bind_int64(st, 1, (sqlite3_int64)(rnd(&s) % umt_exec_count(t)));
		if (sqlite3_step(st) == SQLITE_ROW)
			lo[i++] = sqlite3_column_int64(st, 0) & ~(int64_t)63;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return lo;
}

/* Milliseconds per query of @p sql over each range (warm: one pass first), and its rows. */
static struct stats time_ranges(sqlite3 *db, const char *sql, const int64_t *lo, int nranges,
                                int runs, uint64_t *rows)
{
	sqlite3_stmt *st = prepare(db, sql);
	double *v = malloc((size_t)(nranges * runs) * sizeof *v);
	uint64_t acc = 0;
	if (v == NULL)
		exit(1);
	*rows = 0;
	for (int pass = -1; pass < runs; pass++)
		for (int i = 0; i < nranges; i++) {
			sqlite3_bind_int64(st, 1, lo[i]);
			sqlite3_bind_int64(st, 2, lo[i] + 63);
			double t0 = now();
			uint64_t n = drain(db, st, &acc);
			if (pass >= 0)
				v[pass * nranges + i] = (now() - t0) * 1e3;
			if (pass == 0)
				*rows += n;
		}
	sqlite3_finalize(st);
	sink = acc;
	struct stats s = summarize(v, nranges * runs);
	free(v);
	return s;
}

/* Microseconds per row that the accesses table hands out, reading records by ID. */
static double row_cost_us(sqlite3 *db, const umt_trace *t)
{
	uint64_t acc = 0, n = umt_exec_count(t) < 200000 ? umt_exec_count(t) : 200000;
	sqlite3_stmt *st = prepare(db, "SELECT * FROM accesses WHERE id < ?");
	sqlite3_bind_int64(st, 1, (sqlite3_int64)n);
	double t0 = now();
	uint64_t rows = drain(db, st, &acc);
	double us = (now() - t0) * 1e6 / (double)(rows ? rows : 1);
	sqlite3_finalize(st);
	sink = acc;
	return us;
}

/* Moves the range with the fewest accesses first: the no-pushdown comparison reads it. */
static void quietest_first(sqlite3 *db, int64_t *lo)
{
	sqlite3_stmt *st = prepare(db, "SELECT count(*) FROM accesses WHERE address BETWEEN ? AND ?");
	int64_t best = INT64_MAX;
	for (int i = 0; i < cfg.ranges; i++) {
		sqlite3_bind_int64(st, 1, lo[i]);
		sqlite3_bind_int64(st, 2, lo[i] + 63);
		check(sqlite3_step(st), db, sqlite3_sql(st));
		int64_t n = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
		if (n < best) {
			int64_t x = lo[0];
			best = n, lo[0] = lo[i], lo[i] = x;
		}
	}
	sqlite3_finalize(st);
}

static void bench_range(const umt_trace *t, sqlite3 *db, int64_t *lo)
{
	quietest_first(db, lo);
	uint64_t rows, rows1, rows_full;
	struct stats s = time_ranges(db, "SELECT * FROM accesses WHERE address BETWEEN ? AND ?", lo,
	                             cfg.ranges, cfg.runs, &rows);
	double per_row = row_cost_us(db, t), mean_rows = (double)rows / cfg.ranges;
	struct stats one = time_ranges(db, "SELECT * FROM accesses WHERE address BETWEEN ? AND ?",
	                               lo, 1, cfg.runs, &rows1);
	int full_runs = cfg.runs < 3 ? cfg.runs : 3;
	struct stats full = time_ranges(db, "SELECT * FROM accesses WHERE +address BETWEEN ? AND ?",
	                                lo, 1, full_runs, &rows_full);
	struct stats floor = time_ranges(db, "SELECT ?, ?", lo, cfg.ranges, cfg.runs, &rows);
	if (rows_full != rows1) {
		fprintf(stderr, "sqlbench: range: %llu rows without the pushdown, %llu with it\n",
		        (unsigned long long)rows_full, (unsigned long long)rows1);
		exit(1);
	}
	printf("range: accesses to %d 64-byte ranges, %.1f rows each on average (warm)\n",
	       cfg.ranges, mean_rows);
	line("SQL ... WHERE address BETWEEN ? AND ? (index), per query", s, "ms");
	printf("  %-58s %12.3f us\n", "cost of one accesses row (SELECT * ... WHERE id < N)", per_row);
	double bound = 1.0 + mean_rows * per_row / 1e3;
	verdict("median ms per query vs 1 ms + rows x row cost", s.median / bound, "<= 1",
	        s.median <= bound);
	printf("  the quietest range: 0x%llx, %llu rows\n", (unsigned long long)lo[0],
	       (unsigned long long)rows1);
	line("  with the pushdown", one, "ms");
	line("  WHERE +address BETWEEN (no pushdown: every access read)", full, "ms");
	line("SQLite's own floor: SELECT ?, ? prepared, per statement", floor, "ms");
	verdict("no pushdown / pushdown", full.median / one.median, ">= 1000",
	        full.median / one.median >= 1000);
}

/* ---- native: the tables loaded into a database file first --------------------------- */

/* The trace's tables are named main.records, main.accesses here: SQLite finds a
 * real table (n.records) before an eponymous virtual table of the same name. */

static double exec_timed(sqlite3 *db, const char *sql)
{
	double t0 = now();
	check(sqlite3_exec(db, sql, NULL, NULL, NULL), db, sql);
	return now() - t0;
}

static void load_native(sqlite3 *db, const char *path)
{
	char sql[600];
	snprintf(sql, sizeof sql, "ATTACH '%s' AS n", path);
	exec_timed(db, sql);
	exec_timed(db, "PRAGMA n.journal_mode=OFF; PRAGMA n.synchronous=OFF;"
	               "CREATE TABLE n.records(id INTEGER PRIMARY KEY, thread_id INTEGER, "
	               "type INTEGER, flags INTEGER, ins_id INTEGER, address INTEGER);"
	               "CREATE TABLE n.accesses(id INTEGER, thread_id INTEGER, kind TEXT, "
	               "address INTEGER, size INTEGER, value BLOB)");
	double rec = exec_timed(db, "INSERT INTO n.records " FEW_COLUMNS "main.records");
	double acc = exec_timed(db, "INSERT INTO n.accesses SELECT id, thread_id, kind, address, "
	                            "size, value FROM main.accesses");
	double ix = exec_timed(db, "CREATE INDEX n.accesses_address ON accesses(address)");
	struct stat st;
	if (stat(path, &st) != 0)
		exit(1);
	printf("native: the records (6 columns) and accesses tables copied into %s\n", path);
	printf("  %-58s %12.1f s (records %.1f, accesses %.1f, address index %.1f)\n",
	       "load time", rec + acc + ix, rec, acc, ix);
	printf("  %-58s %12.1f MB (%lld accesses)\n", "file size", (double)st.st_size / 1e6,
	       (long long)single(db, "SELECT count(*) FROM n.accesses"));
}

static void bench_native(const umt_trace *t, sqlite3 *db, const uint64_t *ids, const int64_t *lo,
                         struct stats vt_scan)
{
	char path[512];
	snprintf(path, sizeof path, "%s/sqlbench-%ld.db", cfg.tmp, (long)getpid());
	remove(path);
	load_native(db, path);
	double n = (double)umt_exec_count(t);
	struct stats scan = time_sql_count(db, "SELECT count(*) FROM n.records WHERE type = 0",
	                                   single(db, "SELECT count(*) FROM n.records WHERE type = 0"),
	                                   n);
	struct stats vt_few = time_sql_lookups(db, FEW_COLUMNS "main.records WHERE id = ?", ids);
	struct stats few = time_sql_lookups(db, FEW_COLUMNS "n.records WHERE id = ?", ids);
	uint64_t rows_vt, rows_n;
	const char *cols = "SELECT id, thread_id, kind, address, size, value FROM ";
	char q1[200], q2[200];
	snprintf(q1, sizeof q1, "%smain.accesses WHERE address BETWEEN ? AND ?", cols);
	snprintf(q2, sizeof q2, "%sn.accesses WHERE address BETWEEN ? AND ?", cols);
	struct stats vt_range = time_ranges(db, q1, lo, cfg.ranges, cfg.runs, &rows_vt);
	struct stats range = time_ranges(db, q2, lo, cfg.ranges, cfg.runs, &rows_n);
	if (rows_vt != rows_n) {
		fprintf(stderr, "sqlbench: native: %llu rows, the trace's table %llu\n",
		        (unsigned long long)rows_n, (unsigned long long)rows_vt);
		exit(1);
	}
	line("native count(*) WHERE type = 0", scan, "M rec/s");
	line("trace  count(*) WHERE type = 0", vt_scan, "M rec/s");
	line("native lookup, 6 columns", few, "M/s");
	line("trace  lookup, 6 columns", vt_few, "M/s");
	line("native accesses WHERE address BETWEEN (its index), per query", range, "ms");
	line("trace  accesses WHERE address BETWEEN (the trace's index)", vt_range, "ms");
	check(sqlite3_exec(db, "DETACH n", NULL, NULL, NULL), db, "DETACH n");
	remove(path);
}

/* ---- main --------------------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr, "usage: sqlbench --trace DIR [--index DIR] [--runs N] [--lookups N] "
	                "[--ranges N] [--tmp DIR] [--no-native] [--smoke]\n"
	                "                [--only scan,lookup,range,calls,native]\n");
	exit(2);
}

/* A count option's value: a decimal number from 1 on. */
static int number(const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || n < 1 || n > 1000000000)
		usage();
	return (int)n;
}

static void parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke")) {
			cfg.smoke = 1, cfg.runs = 1, cfg.lookups = 1000, cfg.ranges = 5;
			continue;
		}
		if (!strcmp(a, "--no-native")) {
			cfg.native = 0;
			continue;
		}
		if (v == NULL)
			usage();
		if (!strcmp(a, "--trace"))
			cfg.trace = v, i++;
		else if (!strcmp(a, "--index"))
			cfg.index = v, i++;
		else if (!strcmp(a, "--tmp"))
			cfg.tmp = v, i++;
		else if (!strcmp(a, "--runs"))
			cfg.runs = number(v), i++;
		else if (!strcmp(a, "--lookups"))
			cfg.lookups = number(v), i++;
		else if (!strcmp(a, "--ranges"))
			cfg.ranges = number(v), i++;
		else if (!strcmp(a, "--only"))
			cfg.only = v, i++;
		else
			usage();
	}
	if (cfg.trace == NULL || cfg.runs < 1 || cfg.runs > 64 || cfg.lookups < 1 || cfg.ranges < 1)
		usage();
}

/* ---- calls ------------------------------------------------------------------------- */

/* Milliseconds of @p sql (one integer, which must be @p want unless want < 0). */
static struct stats time_ms(sqlite3 *db, const char *sql, int64_t *want)
{
	double v[64] = {0};
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		int64_t got = single(db, sql);
		v[r] = (now() - t0) * 1e3;
		if (*want >= 0 && got != *want) {
			fprintf(stderr, "sqlbench: %s: %lld, expected %lld\n", sql, (long long)got,
			        (long long)*want);
			exit(1);
		}
		*want = got;
	}
	return summarize(v, cfg.runs);
}

/* @p pushed and the same query with the constraint hidden: the same count, the times. */
static void pushed_vs_hidden(sqlite3 *db, const char *what, const char *pushed, const char *hidden)
{
	int64_t n = -1;
	struct stats p = time_ms(db, pushed, &n), h = time_ms(db, hidden, &n);
	printf("  %s: %lld calls\n", what, (long long)n);
	line(pushed, p, "ms");
	line(hidden, h, "ms");
	verdict("hidden / pushed", h.median / p.median, "> 1", h.median > p.median);
}

static void bench_calls(const umt_trace *t, sqlite3 *db)
{
	char pushed[160], hidden[160];
	int64_t all = -1, target = single(db, "SELECT target FROM calls GROUP BY target "
	                                      "ORDER BY count(*), target LIMIT 1");
	struct stats s = time_ms(db, "SELECT count(*) FROM calls", &all);
	printf("calls: %lld calls\n", (long long)all);
	line("SELECT count(*) FROM calls", s, "ms");
	snprintf(pushed, sizeof pushed, "SELECT count(*) FROM calls WHERE target = %lld", (long long)target);
	snprintf(hidden, sizeof hidden, "SELECT count(*) FROM calls WHERE +target = %lld", (long long)target);
	pushed_vs_hidden(db, "the rarest target", pushed, hidden);
	pushed_vs_hidden(db, "thread 1", "SELECT count(*) FROM calls WHERE thread_id = 1",
	                 "SELECT count(*) FROM calls WHERE +thread_id = 1");
	sqlite3_stmt *st = prepare(db, "SELECT count(*) FROM stack(?)");
	uint64_t seed = 11, frames = 0;
	double v[64] = {0};
	for (int r = 0; r < cfg.runs; r++) {
		double t0 = now();
		for (int i = 0; i < 1000; i++) {
			sqlite3_bind_int64(st, 1, (sqlite3_int64)(rnd(&seed) % umt_exec_count(t)));
			check(sqlite3_step(st) == SQLITE_ROW ? SQLITE_OK : SQLITE_ERROR, db, "stack");
			frames += (uint64_t)sqlite3_column_int64(st, 0);
			sqlite3_reset(st);
		}
		v[r] = (now() - t0) * 1e3; /* ms per 1000 = us per stack */
	}
	sqlite3_finalize(st);
	printf("  stack(at) at 1000 random records: %.1f frames each on average\n",
	       (double)frames / (1000.0 * cfg.runs));
	line("SELECT count(*) FROM stack(?), per call", summarize(v, cfg.runs), "us");
}

/* Whether --only names @p part (every part without --only). */
static int wanted(const char *part)
{
	return bench_listed(cfg.only, part);
}

int main(int argc, char **argv)
{
	parse(argc, argv);
	umt_trace *t;
	sqlite3 *db;
	if (umt_trace_open(cfg.trace, 0, &t) < 0) {
		fprintf(stderr, "sqlbench: %s\n", umt_errmsg());
		return 1;
	}
	/* one thread uses the connection: SQLite's multi-thread mode, no mutex per call */
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
	check(sqlite3_open_v2(":memory:", &db, flags, NULL), db, "open");
	check(umt_sqlite_register(db), db, "umt_sqlite_register");
	check(sqlfloor_register(db, (sqlite3_int64)umt_exec_count(t)), db, "sqlfloor_register");
	umt_sqlite_source src = {.trace = t, .trace_dir = cfg.trace, .index_dir = cfg.index};
	check(umt_sqlite_attach(db, &src), db, "umt_sqlite_attach");
	printf("sqlbench: %s, %llu records, %d runs (medians [min..max])\n", cfg.trace,
	       (unsigned long long)umt_exec_count(t), cfg.runs);
	struct stats vt_scan = {0};
	if (wanted("scan") || wanted("native"))
		bench_scan(t, db, &vt_scan);
	uint64_t *ids = random_ids(umt_exec_count(t), cfg.lookups);
	if (wanted("lookup"))
		bench_lookup(t, db, ids);
	int64_t *lo = wanted("range") || wanted("native") ? pick_ranges(t, db) : NULL;
	if (wanted("range"))
		bench_range(t, db, lo);
	if (wanted("calls"))
		bench_calls(t, db);
	if (cfg.native && wanted("native"))
		bench_native(t, db, ids, lo, vt_scan);
	free(ids);
	free(lo);
	sqlite3_close(db);
	umt_trace_close(t);
	return 0;
}
