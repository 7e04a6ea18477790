/*
 * umtgen: the instructions of the simulated machine. One struct insn
 * describes an instruction the way an assembler sees it (operation,
 * operands, prefixes); the encoder (encode.c) turns it into real x86 bytes,
 * the disassembler (disasm.c) into XED-style Intel text, decoded.c into the
 * format's decodedIns, and exec.c executes it.
 */
#ifndef UMTGEN_X86_H
#define UMTGEN_X86_H

#include <stddef.h>
#include <stdint.h>

/* Register operands: general registers 0-15 (rax, rcx, rdx, rbx, rsp, rbp,
 * rsi, rdi, r8-r15, the encoding order), vector registers 16-31 (xmm/ymm by
 * the operand size). */
enum gpr {
	G_AX, G_CX, G_DX, G_BX, G_SP, G_BP, G_SI, G_DI,
	G_8, G_9, G_10, G_11, G_12, G_13, G_14, G_15
};
#define V_0 16           /* xmm0 / ymm0 */
#define REG_NONE 0xff    /* no base or index */
#define REG_RIP 0xfe     /* base of a RIP-relative phrase (64-bit code) */

enum opkind { O_NONE, O_REG, O_MEM, O_IMM, O_REL };
enum seg { SEG_NONE, SEG_FS, SEG_GS };

/* One operand. */
struct opnd {
	uint8_t kind;  /* enum opkind */
	uint8_t size;  /* bytes of the value: 1, 2, 4, 8, 16, 32 */
	uint8_t reg;   /* O_REG: register index */
	uint8_t hi;    /* O_REG: 1 for ah, ch, dh, bh */
	uint8_t base;  /* O_MEM: register index, REG_NONE or REG_RIP */
	uint8_t index; /* O_MEM: register index or REG_NONE */
	uint8_t scale; /* O_MEM: 1, 2, 4, 8 (ignored without index) */
	uint8_t seg;   /* O_MEM: enum seg override */
	int64_t val;   /* O_MEM: displacement (absolute address for REG_RIP);
	                  O_IMM: value as the CPU sees it (sign-extended);
	                  O_REL: absolute branch target */
};

/* Operations. The ALU group keeps x86's /digit order. */
enum op {
	OP_ADD, OP_OR, OP_ADC, OP_SBB, OP_AND, OP_SUB, OP_XOR, OP_CMP,
	OP_MOV, OP_MOVZX, OP_MOVSX, OP_LEA, OP_TEST, OP_INC, OP_DEC,
	OP_SHL, OP_SHR, OP_IMUL, OP_PUSH, OP_POP, OP_CALL, OP_RET, OP_JMP, OP_JCC,
	OP_XCHG, OP_CMPXCHG, OP_MOVSB, OP_STOSB, OP_MOVDQU, OP_MOVAPS, OP_VMOVDQU,
	OP_SYSCALL, OP_INT, OP_NOP,
	OP_COUNT
};

/* Condition codes, in encoding order (jo = 0x70 ... jnle = 0x7f). */
enum cc {
	CC_O, CC_NO, CC_B, CC_NB, CC_Z, CC_NZ, CC_BE, CC_NBE,
	CC_S, CC_NS, CC_P, CC_NP, CC_L, CC_NL, CC_LE, CC_NLE
};

/* Prefixes and encoding choices. */
#define P_LOCK 0x01  /* lock prefix */
#define P_REP 0x02   /* rep prefix (movsb, stosb) */
#define P_ALT 0x04   /* register-register forms: the "reg, r/m" opcode (8b, 03...) */
#define P_SHORT 0x08 /* rel8 branch */

/* In a program being written (asm.c): this operand's val is a label number. */
#define SYMBOLIC 0x80 /* in struct opnd.hi of O_MEM, O_IMM and O_REL operands */

/*
 * OP_MOVSB and OP_STOSB have no operands here (rdi, rsi, al are implied);
 * with P_REP, o[0].val holds the count the program always loads into rcx
 * before the instruction: one record then covers the whole copy, its memory
 * operands that many bytes wide (the LC layout is per instruction row).
 */
struct insn {
	uint8_t op;   /* enum op */
	uint8_t nops; /* explicit operands (0-3) */
	uint8_t cc;   /* OP_JCC: enum cc */
	uint8_t pfx;  /* P_* */
	struct opnd o[3];
};

/* What the encoder chose, for the decoded instruction and the XED form. */
struct enc_info {
	uint8_t len;      /* bytes */
	uint8_t opcode;   /* main opcode byte (after 0f) */
	uint8_t two_byte; /* 1 when the opcode follows 0x0f */
	uint8_t rex_w;    /* REX.W present */
	uint8_t opsize16; /* 0x66 prefix present */
	uint8_t imm_size; /* bytes of the immediate (0, 1, 2, 4, 8) */
	uint8_t rel_size; /* bytes of a branch displacement (0, 1, 4) */
};

/* Register names. */
const char *x86_reg_name(uint8_t reg, uint8_t size, uint8_t hi);

/*
 * Encodes @p in at address @p addr in 64-bit (@p mode64) or 32-bit code into
 * @p out. @return the length (1-15), or -1 when the instruction has no
 * encoding (a generator bug: the caller reports it).
 */
int x86_encode(const struct insn *in, uint64_t addr, int mode64, uint8_t out[15],
               struct enc_info *info);

/*
 * The XED-style Intel disassembly ("mov eax, dword ptr [rbx+0x10]") of an
 * instruction ending at @p next (RIP-relative operands show rip+disp).
 */
void x86_disasm(const struct insn *in, int mode64, uint64_t next, char *buf, size_t size);

/* The XED iform name of an encoded instruction ("ADD_GPRv_IMMb"). */
void x86_form(const struct insn *in, const struct enc_info *e, char *buf, size_t size);

/*
 * Calls @p fn for every instruction form the encoder supports (catalog.c),
 * each at its own address, in 64-bit then 32-bit code.
 */
void x86_catalog(void (*fn)(const struct insn *in, int mode64, uint64_t address, void *arg),
                 void *arg);

/* Short constructors, used by the program builders. */
struct opnd r_(uint8_t reg, uint8_t size);
struct opnd rh_(uint8_t reg); /* ah, ch, dh, bh: reg 0-3 */
struct opnd m_(uint8_t size, uint8_t base, uint8_t index, uint8_t scale, int64_t disp);
struct opnd mseg_(uint8_t size, uint8_t seg, int64_t disp);
struct opnd mrip_(uint8_t size, uint64_t target);
struct opnd i_(uint8_t size, int64_t value);
struct opnd rel_(uint64_t target);

#endif
