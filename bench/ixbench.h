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

#endif
