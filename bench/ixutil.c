/*
 * ixbench's small shared tools (ixbench.h): a clock, CPU time, medians, a
 * deterministic random sequence, a build of chosen sections (ixcalls.c,
 * and ixregs.c for its builds).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "ixbench.h"

double ixb_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ixb_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

double ixb_cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double ixb_median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n ? v[n / 2] : 0;
}

uint64_t ixb_rnd(uint64_t *state)
{
	uint64_t x = *state; /* xorshift64: the same records in every run */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

void ixb_fail(const char *what)
{
	fprintf(stderr, "ixbench: %s: %s\n", what, umt_errmsg());
	exit(1);
}

double ixb_build(umt_trace *t, const char *dir, unsigned threads, uint64_t sections,
                 uint64_t *bytes)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = threads;
	o.sections = sections;
	umt_index_build_stats s;
	double t0 = ixb_now();
	if (umt_index_build(t, dir, &o, &s) < 0)
		ixb_fail("build");
	*bytes = s.index_bytes;
	return ixb_now() - t0;
}
