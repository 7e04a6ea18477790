/*
 * umtgen: the random program (randprog.c) and the sample's program
 * (sampleprog.c).
 */
#ifndef UMTGEN_RANDPROG_H
#define UMTGEN_RANDPROG_H

#include <stdint.h>

#include "program.h"

/* The shape of a random program. */
struct prog_params {
	int mode64;             /* 64-bit code (else 32-bit) */
	int vectors;            /* xmm/ymm instructions (the 2015 flavour's map has them) */
	uint64_t seed;
	uint32_t size;          /* static instructions, about */
	uint32_t depth;         /* levels of calls (1 to 12) */
	uint32_t mem_share;     /* percent of statements that access memory */
	uint32_t syscall_rate;  /* per mille of statements that make a system call */
	uint64_t slice_size;    /* bytes of each thread's data slice (a power of 2, >= 64 KiB) */
	int plugin, jit, faults; /* a plugin loaded and unloaded, JIT code, faults */
};

/* Writes and finishes a random program. @return 0, or -1 with p->error set. */
int randprog_build(struct program *p, const struct prog_params *pp);

/* Writes and finishes the sample trace's program (tools/mksample). */
int sampleprog_build(struct program *p, const struct prog_params *pp);

#endif
