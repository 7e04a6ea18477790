/*
 * umtgen: executing one instruction on a thread's registers and the shared
 * memory, and filling its execution record's local context.
 */
#ifndef UMTGEN_EXEC_H
#define UMTGEN_EXEC_H

#include <stdint.h>

#include "decoded.h"
#include "machine.h"
#include "x86.h"

enum { EX_OK = 0, EX_FAULT_READ = 1, EX_FAULT_WRITE = 2, EX_BAD = 3 };

/* What one execution did, beyond the registers and memory it changed. */
struct exec_result {
	uint64_t ea[MO_COUNT]; /* memory operand addresses */
	uint64_t agen;         /* MEM0/AGEN effective address */
	uint64_t fault_addr;   /* first inaccessible byte, after a fault */
	int status;            /* EX_* */
	int not_taken;         /* a conditional branch whose condition was false */
	int call;              /* a call was made: ea[MO_PUSH] holds its return address */
	int ret;               /* a return: ea[MO_POP] was the return address's slot */
};

/*
 * Executes @p in (at @p addr, @p len bytes) with decoded instruction @p d:
 * fills the before slots of @p lc, performs the instruction on @p regs and
 * @p mem, fills the after slots. On a fault (an operand's page is not
 * readable or writable) nothing changes, memory operand values that could
 * not be read and every after value are @p garbage bytes, and the status
 * says which access faulted. rip is left at the next instruction or the
 * branch target.
 */
void exec_insn(struct mem *mem, uint8_t *regs, int mode64, const struct insn *in, uint64_t addr,
               uint8_t len, const struct decoded *d, uint8_t *lc, uint64_t garbage,
               struct exec_result *r);

/* Whether condition @p cc holds for @p rflags. */
int cc_holds(unsigned cc, uint64_t rflags);

#endif
