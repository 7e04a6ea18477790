/*
 * sembench: instruction semantics (umtrace.h section 7b), each figure a
 * ratio against a peer measured in the same run.
 *
 *   sembench [--rows N] [--records N] [--runs N] [--tmp DIR] [--smoke]
 *
 * A trace is written into --tmp: N instruction rows (default 1M) cycling
 * through a catalogue of real x86 encodings, 64- and 32-bit, at distinct
 * addresses, and --records instruction records (default 20M) that run
 * through the rows as code does: straight runs of 16 rows, 9 in 10 of them
 * starting in a hot set of 4096 rows (loops), the others anywhere. Then:
 *
 *   decode    umt_sem_get() on every row of a freshly opened trace (Zydis
 *             decodes each row, once): rows per second, against reading
 *             every row's code bytes (umt_ins_code()) (report)
 *   lookup    umt_sem_get() on every row again, remembered: rows per
 *             second, against the code-byte reads (report)
 *   per-record  a scan asking every record's semantics (is it a call, where
 *             to) against the same scan reading every record's instruction row
 *             (umt_ins_get(): its address), which any analysis of instructions
 *             does: a lookup, not a decode (goal >= 0.5)
 *
 * Not a test: nothing here asserts a time. docs/performance.md has figures.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "umtrace/umtrace.h"

static struct {
	uint64_t rows, records;
	int runs;
	const char *tmp;
	int smoke;
} cfg = {.rows = 1000000, .records = 20000000, .runs = 5};

static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return v[n / 2];
}

static void die(const char *what)
{
	fprintf(stderr, "sembench: %s: %s\n", what, umt_errmsg());
	exit(1);
}

static void line(const char *what, double value, const char *unit, const char *peer,
                 double peer_value, double ratio, const char *goal, int met)
{
	printf("%-34s %10.2f %-7s %-30s %10.2f  ratio %6.2f  goal %-8s %s\n", what, value, unit,
	       peer, peer_value, ratio, goal,
	       cfg.smoke ? "(smoke)" : *goal == '(' ? "" : met ? "met" : "NOT MET");
}

/* ---- the trace --------------------------------------------------------------------------- */

/* Encodings checked with objdump (tests/test_semantics.c has their texts). */
static const struct { int is64; uint8_t n, b[10]; } catalogue[] = {
	{1, 5, {0xe8, 0x10, 0, 0, 0}}, {1, 2, {0xeb, 0xfe}}, {1, 1, {0xc3}},
	{1, 4, {0x8b, 0x44, 0x8b, 0x10}}, {1, 2, {0xf3, 0xa4}}, {1, 4, {0x0f, 0x1f, 0x40, 0}},
	{1, 2, {0xff, 0xd0}}, {1, 2, {0x74, 0x05}}, {1, 4, {0xf0, 0x0f, 0xb1, 0x0a}},
	{1, 7, {0x48, 0x8d, 0x05, 1, 0, 0, 0}}, {1, 4, {0xc5, 0xfe, 0x6f, 0x00}},
	{1, 10, {0x48, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}}, {1, 4, {0x48, 0x83, 0xec, 0x28}},
	{0, 5, {0xe8, 0xe0, 0xff, 0xff, 0xff}}, {0, 3, {0x8b, 0x04, 0x24}}, {0, 1, {0x55}},
};
#define CATALOGUE (sizeof catalogue / sizeof catalogue[0])

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void write_trace(const char *dir)
{
	umt_writer *w;
	umt_decoded_ins dec;
	int64_t dfp, tfp;
	int32_t tid;
	memset(&dec, 0, sizeof dec);
	dec.Mem0SegSlot = dec.Mem0BaseSlot = dec.Mem0IndexSlot = dec.Mem1BaseSlot = 0xff;
	if (umt_writer_open(dir, NULL, &w) < 0 || umt_writer_add_thread(w, 1, 0x1000, &tid) < 0 ||
	    umt_writer_add_decoded(w, &dec, NULL, &dfp) < 0 ||
	    umt_writer_add_disasm(w, "x", &tfp) < 0)
		die("writer");
	for (uint64_t i = 0; i < cfg.rows; i++) {
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		size_t k = i % CATALOGUE;
		r.CSis64Bits = (uint8_t)catalogue[k].is64;
		r.CodeSize = catalogue[k].n;
		memcpy(r.CodeBytes, catalogue[k].b, catalogue[k].n);
		r.ModuleID = -1;
		r.Address = (int64_t)(0x10000000 + 16 * i);
		r.DisasmFP = tfp;
		r.DecodedFP = dfp;
		if (umt_writer_add_ins(w, &r, NULL) < 0)
			die("writer");
	}
	uint64_t s = 88172645463325252ull, row = 0, hot = cfg.rows < 4096 ? cfg.rows : 4096;
	for (uint64_t i = 0; i < cfg.records; i++) {
		umt_exec_desc e;
		memset(&e, 0, sizeof e);
		e.type = UMT_REC_INSTRUCTION;
		if (i % 16 == 0) /* a new straight run: in the hot rows, or anywhere */
			row = rnd(&s) % 10 ? rnd(&s) % hot : rnd(&s) % cfg.rows;
		e.ins_id = (int64_t)(row++ % cfg.rows);
		e.flags = catalogue[(uint64_t)e.ins_id % CATALOGUE].is64 ? UMT_EXEC_F_64BIT : 0;
		if (umt_writer_add_exec(w, &e, NULL) < 0)
			die("writer");
	}
	if (umt_writer_finish(w) < 0)
		die("writer");
}

/* ---- the measures ---------------------------------------------------------------------- */

__attribute__((noinline)) static uint64_t read_codes(const umt_trace *t)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < umt_ins_count(t); i++) {
		const uint8_t *b;
		unsigned n;
		if (umt_ins_code(t, i, &b, &n) == 0)
			acc += b[0] + n;
	}
	return acc;
}

__attribute__((noinline)) static uint64_t sem_rows(const umt_trace *t)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < umt_ins_count(t); i++) {
		umt_sem s;
		if (umt_sem_get(t, i, &s) < 0)
			die("umt_sem_get");
		acc += s.mnemonic + s.target;
	}
	return acc;
}

/* A scan of the records: each one's instruction row (@p sem 0), or its semantics. */
__attribute__((noinline)) static uint64_t scan(const umt_trace *t, int sem)
{
	umt_exec_iter it;
	umt_rec r;
	uint64_t acc = 0;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while (umt_exec_iter_next(&it, &r) == 1) {
		int64_t ins = 0;
		umt_sem s;
		const umt_ins_rec *row;
		umt_rec_ins(&r, &ins, NULL, NULL);
		if (sem && umt_sem_get(t, (uint64_t)ins, &s) == 0)
			acc += umt_sem_is_branch(&s) ? s.target : s.category;
		else if (!sem && umt_ins_get(t, (uint64_t)ins, &row) == 0)
			acc += (uint64_t)row->Address;
	}
	return acc;
}

static void bench(const char *dir)
{
	double dec[64], look[64], raw[64], plain[64], with[64];
	for (int i = 0; i < cfg.runs; i++) {
		umt_trace *t;
		if (umt_trace_open(dir, 0, &t) < 0)
			die(dir);
		sink = read_codes(t); /* warm the pages */
		double t0 = now();
		sink = read_codes(t);
		raw[i] = (double)cfg.rows / (now() - t0) / 1e6;
		t0 = now();
		sink = sem_rows(t); /* decodes */
		dec[i] = (double)cfg.rows / (now() - t0) / 1e6;
		t0 = now();
		sink = sem_rows(t); /* remembered */
		look[i] = (double)cfg.rows / (now() - t0) / 1e6;
		t0 = now();
		sink = scan(t, 0);
		plain[i] = (double)cfg.records / (now() - t0) / 1e6;
		t0 = now();
		sink = scan(t, 1);
		with[i] = (double)cfg.records / (now() - t0) / 1e6;
		umt_trace_close(t);
	}
	double r = median(raw, cfg.runs), d = median(dec, cfg.runs), l = median(look, cfg.runs);
	double p = median(plain, cfg.runs), w = median(with, cfg.runs);
	printf("sembench %s: %llu rows, %llu records, %d runs; figures are medians\n",
	       umt_version(), (unsigned long long)cfg.rows, (unsigned long long)cfg.records,
	       cfg.runs);
	line("decode every row (Zydis)", d, "M rows/s", "code bytes read, M rows/s", r, d / r,
	     "(report)", 1);
	line("every row again, remembered", l, "M rows/s", "code bytes read, M rows/s", r, l / r,
	     "(report)", 1);
	line("scan + semantics per record", w, "M rec/s", "scan + row per record, M rec/s", p,
	     w / p, ">= 0.5", w / p >= 0.5);
}

int main(int argc, char **argv)
{
	cfg.tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--smoke"))
			cfg.smoke = 1, cfg.runs = 1, cfg.rows = 2000, cfg.records = 20000;
		else if (!strcmp(a, "--rows") && v && strtoull(v, NULL, 10) > 0)
			cfg.rows = strtoull(v, NULL, 10), i++;
		else if (!strcmp(a, "--records") && v)
			cfg.records = strtoull(v, NULL, 10), i++;
		else if (!strcmp(a, "--runs") && v && atoi(v) > 0 && atoi(v) <= 64)
			cfg.runs = atoi(v), i++;
		else if (!strcmp(a, "--tmp") && v)
			cfg.tmp = v, i++;
		else {
			fprintf(stderr, "usage: sembench [--rows N] [--records N] [--runs N] [--tmp DIR] "
			                "[--smoke]\n");
			return 2;
		}
	}
	char dir[4096], cmd[4200];
	snprintf(dir, sizeof dir, "%s/sembench-%d", cfg.tmp, (int)getpid());
	write_trace(dir);
	bench(dir);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : 1;
}
