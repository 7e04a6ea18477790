/*
 * umtgen: runs a synthetic program on a simulated x86-64 (or x86) machine
 * and writes its trace, deterministically for a seed (docs/umtgen.md).
 *
 *   umtgen [--records N] [--threads T] [--instructions K] [--seed S]
 *          [--flavour 2015|2014] [--code32] [--abort] [--call-depth D]
 *          [--footprint BYTES] [--syscall-rate R] [--mem-share P] [--quantum Q]
 *          [--truth FILE] [--truth-every K] [--xed-headers DIR] [--quiet] OUT_DIR
 *
 * N, K and S may end in K, M or G (powers of 1000), BYTES in K, M or G
 * (powers of 1024).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static int parse_scaled(const char *s, uint64_t base, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = 1;
	if (*end == 'K' || *end == 'k')
		mul = base, end++;
	else if (*end == 'M' || *end == 'm')
		mul = base * base, end++;
	else if (*end == 'G' || *end == 'g')
		mul = base * base * base, end++;
	if (errno || *end || s[0] == '-' || end == s || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
	        "usage: umtgen [--records N] [--threads T] [--instructions K] [--seed S]\n"
	        "              [--flavour 2015|2014] [--code32] [--abort] [--call-depth D]\n"
	        "              [--footprint BYTES] [--syscall-rate R] [--mem-share P] [--quantum Q]\n"
	        "              [--truth FILE] [--truth-every K] [--xed-headers DIR] [--quiet] OUT_DIR\n"
	        "N, K, S may end in K, M or G (powers of 1000), BYTES in K, M or G (of 1024).\n"
	        "Defaults: 1M records, 4 threads, 4096 instructions, seed 1, flavour 2015,\n"
	        "call depth 6, footprint 256K per thread, syscall rate 6 per mille,\n"
	        "memory share 50%%, quantum 32 records, truth every 64 records. docs/umtgen.md\n"
	        "has the details.\n");
}

/* One "--name VALUE" option into @p p; @return 0, or -1 for a bad value. */
static int option(struct umtgen_params *p, const char *name, const char *value)
{
	uint64_t v;
	int bytes = !strcmp(name, "--footprint");
	if (!strcmp(name, "--truth"))
		return p->truth = value, 0;
	if (!strcmp(name, "--xed-headers"))
		return p->xed_headers = value, 0;
	if (!strcmp(name, "--flavour")) {
		if (strcmp(value, "2015") && strcmp(value, "2014"))
			return -1;
		p->flavour = strcmp(value, "2014") ? UMT_FLAVOUR_2015 : UMT_FLAVOUR_2014;
		return 0;
	}
	if (parse_scaled(value, bytes ? 1024 : 1000, &v) < 0)
		return -1;
	if (!strcmp(name, "--records"))
		p->records = v;
	else if (!strcmp(name, "--seed"))
		p->seed = v;
	else if (!strcmp(name, "--truth-every"))
		p->truth_every = v;
	else if (bytes)
		p->footprint = v;
	else if (v > 10000000)
		return -1;
	else if (!strcmp(name, "--threads"))
		p->threads = (uint32_t)v;
	else if (!strcmp(name, "--instructions"))
		p->instructions = (uint32_t)v;
	else if (!strcmp(name, "--call-depth"))
		p->call_depth = (uint32_t)v;
	else if (!strcmp(name, "--syscall-rate"))
		p->syscall_rate = (uint32_t)v;
	else if (!strcmp(name, "--mem-share"))
		p->mem_share = (uint32_t)v;
	else if (!strcmp(name, "--quantum"))
		p->quantum = (uint32_t)v;
	else
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct umtgen_params p;
	umtgen_params_init(&p);
	const char *dir = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--quiet")) {
			p.quiet = 1;
		} else if (!strcmp(a, "--code32")) {
			p.code32 = 1;
		} else if (!strcmp(a, "--abort")) {
			p.abort_run = 1;
		} else if (!strcmp(a, "--help")) {
			return usage(), 0;
		} else if (a[0] == '-' && a[1] == '-' && i + 1 < argc) {
			if (option(&p, a, argv[++i]) < 0)
				return usage(), 2;
		} else if (a[0] != '-' && dir == NULL) {
			dir = a;
		} else {
			return usage(), 2;
		}
	}
	if (dir == NULL || p.records < 2 * (uint64_t)p.threads || p.threads < 1 || p.threads > 4096)
		return usage(), 2;
	return umtgen_write(dir, &p) < 0 ? 1 : 0;
}
