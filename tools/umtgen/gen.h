/*
 * umtgen's generator of synthetic traces, shared by tools/umtgen and
 * bench/umtbench.
 */
#ifndef UMTGEN_GEN_H
#define UMTGEN_GEN_H

#include <stdint.h>

#include "umtrace/umtrace.h"

struct umtgen_params {
	uint64_t records;      /* execution records (at least 2 * threads) */
	uint32_t threads;      /* 1 to 4096 */
	uint32_t instructions; /* distinct instructions, at least 16 */
	uint64_t seed;
	int flavour;           /* enum umt_flavour */
	int quiet;             /* no progress line on a terminal */
};

/** Defaults: 1M records, 4 threads, 4096 instructions, seed 1, 2015 flavour. */
void umtgen_params_init(struct umtgen_params *p);

/** Writes the trace into @p dir. @return 0, or -1 after printing why. */
int umtgen_write(const char *dir, const struct umtgen_params *p);

#endif
