/*
 * umtgen: the decoded instruction (decodedIns and its LC slots) of an
 * instruction, and the plan that fills an execution record's local context
 * from the machine: which register bytes or which memory operand each slot
 * holds.
 */
#ifndef UMTGEN_DECODED_H
#define UMTGEN_DECODED_H

#include <stdint.h>

#include "umtrace/umtrace.h"
#include "x86.h"
#include "xed.h"

#define MAX_SLOTS 16

/* Memory operands of one execution: the addresses exec.c computes. */
enum { MO_MEM0, MO_MEM1, MO_PUSH, MO_POP, MO_COUNT };

enum src_kind { SRC_REG, SRC_MEM, SRC_AGEN };

/* Where the value of one LC slot comes from. */
struct lc_src {
	uint8_t kind;  /* enum src_kind */
	uint8_t memop; /* SRC_MEM: MO_* */
	uint16_t off;  /* SRC_REG: offset in the register file */
	uint16_t size; /* value bytes (the address of a memory slot comes first: 8 more) */
	uint16_t lc;   /* offset of the slot in the LC (its lcSlot.Offset) */
};

/* A decoded instruction: the format's structures and the run-time plan. */
struct decoded {
	umt_decoded_ins d;
	umt_lc_slot slots[MAX_SLOTS];
	struct lc_src src[MAX_SLOTS];
	uint8_t first_after; /* = d.FirstAfterSlot */
	uint8_t count;       /* = d.LCCount */
	uint16_t lc_size;    /* = d.LCSize */
	uint16_t mem_size[MO_COUNT]; /* bytes of each memory operand, 0 when absent */
	uint8_t mem_read, mem_write; /* bit MO_*: the operand is read, written */
	uint8_t mem_any;   /* bit MO_*: the operand exists */
	int8_t mem_opnd;   /* the explicit memory operand (MEM0 or AGEN) of the insn, or -1 */
};

/* What the builder needs to know about the trace. */
struct dec_ctx {
	int mode64;
	int old;                      /* XED 20140106 numbering */
	const umt_context_map *cmap;  /* common register names (ERRATA 23) */
	struct xed_used *used;        /* names used, for --xed-headers */
};

/*
 * Fills @p out for instruction @p in at @p addr (encoded as @p e).
 * @return 0, or -1 when the instruction cannot be described (a register
 * the flavour's XED version does not number: a generator bug).
 */
int decoded_build(const struct dec_ctx *c, const struct insn *in, const struct enc_info *e,
                  uint64_t addr, struct decoded *out);

/* The repeat count of a rep movsb/stosb site (its memory operand size). */
static inline uint16_t rep_count(const struct insn *in)
{
	return (uint16_t)in->o[0].val;
}

#endif
