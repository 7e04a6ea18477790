/*
 * ixbench's shared pieces: the report line, the --only filter, and the
 * register entries (ixregs.c).
 */
#ifndef IXBENCH_H
#define IXBENCH_H

#include <stdbool.h>
#include <unistd.h>

#include "umtrace/index.h"

/** What the register entries need of the command line. */
struct ixb {
	const char *trace, *tmp;
	int runs;         /* builds and scans per figure */
	unsigned queries; /* random records per query figure */
};

/** One figure: value, the peer or limit it is compared with, the ratio and the goal. */
void ixb_line(const char *what, double value, const char *unit, const char *peer, double ratio,
              const char *goal, bool met);

/** Whether --only names @p name (or there is no --only). */
bool ixb_wanted(const char *name);

/** The entries regsize, state, regchange, origin on the open index @p ix. */
void ixbench_regs(const struct ixb *b, umt_trace *t, umt_index *ix);

/** The entries callsize, stack, callsto on the open index @p ix (ixcalls.c). */
void ixbench_calls(const struct ixb *b, umt_trace *t, umt_index *ix);

/* ixutil.c */
/** Seconds of CLOCK_MONOTONIC. */
double ixb_now(void);
/** CPU seconds (user and system, every thread) of this process so far. */
double ixb_cpu_seconds(void);
/** The median of @p v (sorts it); 0 when @p n is 0. */
double ixb_median(double *v, size_t n);
/** The next of a xorshift64 sequence kept in *state (not 0). */
uint64_t ixb_rnd(uint64_t *state);
/** qsort's comparison of uint64_t. */
int ixb_cmp_u64(const void *a, const void *b);
/** Reports what failed with umt_errmsg() and exits 1. */
void ixb_fail(const char *what);
/** Builds the index of @p t into @p dir with @p sections; its bytes in *bytes. @return seconds. */
double ixb_build(umt_trace *t, const char *dir, unsigned threads, uint64_t sections,
                 uint64_t *bytes);

#endif
