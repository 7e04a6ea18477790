/*
 * umtgen: the synthetic program the simulated machine runs. A program is a
 * set of module images (code and initialised data at their load address)
 * whose instructions are "sites": a struct insn at an address, encoded,
 * linked to the site that follows it and to its branch target. Programs are
 * written with the small assembler of asm.c (labels resolved at the end);
 * randprog.c writes a random program, sampleprog.c the bundled sample's.
 */
#ifndef UMTGEN_PROGRAM_H
#define UMTGEN_PROGRAM_H

#include <stdint.h>

#include "x86.h"

struct page;

#define NO_SITE UINT32_MAX
#define MAX_MODULES 8

/* One instruction of the program. */
struct site {
	struct insn in;
	uint64_t addr;
	uint32_t fall;   /* site at addr + len, or NO_SITE */
	uint32_t target; /* site of an O_REL target, or NO_SITE */
	uint8_t len;
	uint8_t code[15];
	int8_t module;   /* module index, -1 for code built at run time (JIT) */
	uint8_t sym;     /* bit i: operand i's val is a label (resolved by pb_finish) */
	uint32_t guard;  /* a call inside a guarded region: index + 1 into guards, else 0 */
	/* run time: the instruction row of this code, valid while the generation
	 * of its page (the page of its first byte) is row_gen */
	int64_t row;
	uint32_t row_gen;
	uint32_t dec;    /* index of its decoded instruction (decoded.c) */
	int32_t covered; /* module row + 2 whose coverage holds this site, else 0 */
	const struct page *page;
};

/* A module image: code from base + 0x1000, then data, page-aligned. */
struct module_img {
	char name[96];   /* Windows path */
	char device[128];
	uint64_t base;
	uint64_t code_end;   /* end of the code bytes */
	uint64_t data_start; /* page-aligned start of the data */
	uint64_t end;        /* one past the image (page-aligned) */
	uint8_t *image;      /* end - base bytes as loaded */
	int dynamic;         /* 1: mapped at run time by NtMapViewOfSection */
	uint64_t filetime;   /* LastFileWriteTime (FILETIME) */
	uint16_t version[4];
	/* building */
	uint64_t code_at, data_at;
	uint8_t *code_buf, *data_buf;
	uint64_t code_cap, data_cap;
};

/* A guarded region: calls from [start, end) are covered by @handler. */
struct guard {
	uint64_t start, end;
	uint32_t handler_label;
};

/* Values the kernel and the run loop need to know about the program. */
struct prog_abi {
	uint32_t main_label, worker_label;  /* thread entry points (labels) */
	uint64_t entry_main, entry_worker;  /* their addresses, set by pb_finish */
	int plugin_module;                   /* module mapped by NtMapViewOfSection, -1 none */
	uint64_t section_handle;             /* the handle that names it */
	uint64_t heap_base, heap_size;       /* shared heap; per-thread slices inside */
	uint64_t slice_size;                 /* bytes of each thread's slice */
	uint64_t valloc_base;                /* NtAllocateVirtualMemory hands out from here */
};

struct label {
	uint64_t addr;
	int bound;
};

struct program {
	int mode64;
	struct site *sites;
	uint32_t nsites;
	size_t site_cap;
	struct module_img mods[MAX_MODULES];
	int nmods, cur; /* modules, the one being written */
	struct label *labels;
	uint32_t nlabels;
	size_t label_cap;
	struct guard *guards;
	uint32_t nguards;
	size_t guard_cap;
	/* data words that hold a label's address, patched by pb_finish */
	struct reloc { uint32_t data_label, label; uint64_t offset; uint8_t size; } *relocs;
	uint32_t nrelocs;
	size_t reloc_cap;
	/* address -> site, for indirect branches */
	uint32_t *hash;
	uint64_t hash_cap;
	struct prog_abi abi;
	int failed; /* an allocation or encoding failed: pb_finish reports it */
	char error[160];
};

/* ---- building (asm.c) ------------------------------------------------------ */

void pb_init(struct program *p, int mode64);
void pb_free(struct program *p);

/* Starts module @p name at @p base; code and data go to it until the next. */
int pb_module(struct program *p, const char *name, uint64_t base, int dynamic,
              uint64_t filetime, const uint16_t version[4]);
void pb_select(struct program *p, int module);

/* A new label; bind it to the next instruction, or to data. */
uint32_t pb_label(struct program *p);
void pb_bind(struct program *p, uint32_t label);
uint64_t pb_addr(const struct program *p, uint32_t label);
/* The module whose code a bound code label is in, or -1. */
int pb_label_module(const struct program *p, uint32_t label);

/* Appends an instruction; operands whose bit is set in @p sym, or marked
 * SYMBOLIC, hold a label number in the low 32 bits of val and an addend in
 * the high 32 (a branch target, a RIP-relative or absolute address, or an
 * immediate address). @return its site index. */
uint32_t pb_emit(struct program *p, struct insn in, uint8_t sym);

/* Reserves @p size bytes of data (zeroed or copied from @p init) aligned to
 * @p align in the current module; @return a label bound to it. */
uint32_t pb_data(struct program *p, uint64_t size, uint64_t align, const void *init);
/* A data word of @p size bytes holding the address of @p label. */
void pb_data_addr(struct program *p, uint32_t data_label, uint64_t offset, uint32_t label,
                  uint8_t size);

/* Guarded region [start, end) of calls, handled at @p handler. */
void pb_guard(struct program *p, uint32_t start, uint32_t end, uint32_t handler);

/* Resolves labels, encodes, links sites, builds the images and the address
 * index. @return 0, or -1 with p->error set. */
int pb_finish(struct program *p);

/* The site at @p addr, or NO_SITE. */
uint32_t prog_site_at(const struct program *p, uint64_t addr);

/* The module whose image holds @p addr, or -1. */
int prog_module_at(const struct program *p, uint64_t addr);

/* ---- instruction shorthands ------------------------------------------------- */

struct insn ins0(uint8_t op);
struct insn ins1(uint8_t op, struct opnd a);
struct insn ins2(uint8_t op, struct opnd a, struct opnd b);
struct insn ins3(uint8_t op, struct opnd a, struct opnd b, struct opnd c);

#endif
