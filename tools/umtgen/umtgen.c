/*
 * umtgen: writes a realistic synthetic trace of any size, deterministically
 * for a seed (the generator is gen.c).
 *
 *   umtgen [--records N] [--threads T] [--instructions K] [--seed S]
 *          [--flavour 2015|2014] [--quiet] OUT_DIR
 *
 * N and K may end in K, M or G (powers of 1000).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static int parse_count(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end == 'K' || *end == 'k')
		mul = 1000, end++;
	else if (*end == 'M' || *end == 'm')
		mul = 1000000, end++;
	else if (*end == 'G' || *end == 'g')
		mul = 1000000000, end++;
	if (errno || *end || s[0] == '-' || end == s || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: umtgen [--records N] [--threads T] [--instructions K] [--seed S]\n"
	                "              [--flavour 2015|2014] [--quiet] OUT_DIR\n"
	                "N, K may end in K, M or G (powers of 1000). Defaults: 1M records,\n"
	                "4 threads, 4096 instructions, seed 1, flavour 2015.\n");
}

int main(int argc, char **argv)
{
	struct umtgen_params p;
	umtgen_params_init(&p);
	uint64_t v;
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int has_value = i + 1 < argc;
		if (!strcmp(a, "--quiet")) {
			p.quiet = 1;
		} else if (!strcmp(a, "--records") && has_value && parse_count(argv[++i], &v) == 0) {
			p.records = v;
		} else if (!strcmp(a, "--threads") && has_value && parse_count(argv[++i], &v) == 0 &&
		           v >= 1 && v <= 4096) {
			p.threads = (uint32_t)v;
		} else if (!strcmp(a, "--instructions") && has_value &&
		           parse_count(argv[++i], &v) == 0 && v >= 16 && v <= 10000000) {
			p.instructions = (uint32_t)v;
		} else if (!strcmp(a, "--seed") && has_value && parse_count(argv[++i], &v) == 0) {
			p.seed = v;
		} else if (!strcmp(a, "--flavour") && has_value) {
			const char *f = argv[++i];
			if (strcmp(f, "2015") && strcmp(f, "2014"))
				return usage(), 2;
			p.flavour = strcmp(f, "2014") ? UMT_FLAVOUR_2015 : UMT_FLAVOUR_2014;
		} else if (!strcmp(a, "--help")) {
			return usage(), 0;
		} else if (a[0] != '-' && dir == NULL) {
			dir = a;
		} else {
			return usage(), 2;
		}
	}
	if (dir == NULL || p.records < 2 * (uint64_t)p.threads)
		return usage(), 2;
	return umtgen_write(dir, &p) < 0 ? 1 : 0;
}
