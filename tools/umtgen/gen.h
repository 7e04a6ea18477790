/*
 * umtgen's generator of synthetic traces, shared by tools/umtgen,
 * tools/mksample and bench/umtbench. docs/umtgen.md describes the machine,
 * the program it runs, the options and the ground truth.
 */
#ifndef UMTGEN_GEN_H
#define UMTGEN_GEN_H

#include <stdint.h>

#include "umtrace/umtrace.h"

struct umtgen_params {
	uint64_t records;       /* execution records, exactly (at least 2 * threads) */
	uint32_t threads;       /* 1 to 4096 */
	uint32_t instructions;  /* size of the program: static instructions, about */
	uint64_t seed;
	int flavour;            /* enum umt_flavour */
	int quiet;              /* no progress line on a terminal */
	int code32;             /* 32-bit code segments (exec flag 0x01 clear) */
	int abort_run;          /* the process is killed at the end: no thread or app end */
	uint32_t call_depth;    /* levels of the program's call graph, 1 to 12 */
	uint64_t footprint;     /* bytes of each thread's data slice, a power of 2 >= 64 KiB */
	uint32_t syscall_rate;  /* per mille of statements that make a system call */
	uint32_t mem_share;     /* percent of statements that access memory */
	uint32_t quantum;       /* a thread runs 1 to this many records before the scheduler
	                           picks a thread again (default 32) */
	const char *truth;      /* ground truth (JSON Lines) to this file, or NULL */
	uint64_t truth_every;   /* sample the registers every this many records */
	const char *xed_headers; /* write the enum headers naming the trace's values here */
	int sample;             /* run the bundled sample's program (tools/mksample) */
};

/** Defaults: 1M records, 4 threads, 4096 instructions, seed 1, 2015 flavour. */
void umtgen_params_init(struct umtgen_params *p);

/** Writes the trace into @p dir. @return 0, or -1 after printing why. */
int umtgen_write(const char *dir, const struct umtgen_params *p);

#endif
