/*
 * umtgen: disassembly text in the style of XED's Intel syntax, which is what
 * UMTracer stores ("mov eax, dword ptr [rbx+rcx*4+0x10]", "lea rdx, ptr
 * [rax+0x8]", "call 0x140001020", "jnz 0x140001010", "rep movsb byte ptr
 * [rdi], byte ptr [rsi]"), and XED iform names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "x86.h"

static const char *const gpr64[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"};
static const char *const gpr32[16] = {"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi",
	"r8d", "r9d", "r10d", "r11d", "r12d", "r13d", "r14d", "r15d"};
static const char *const gpr16[16] = {"ax", "cx", "dx", "bx", "sp", "bp", "si", "di",
	"r8w", "r9w", "r10w", "r11w", "r12w", "r13w", "r14w", "r15w"};
static const char *const gpr8[16] = {"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil",
	"r8b", "r9b", "r10b", "r11b", "r12b", "r13b", "r14b", "r15b"};
static const char *const gpr8h[4] = {"ah", "ch", "dh", "bh"};
static const char *const vec[2][16] = {
	{"xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10",
	 "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"},
	{"ymm0", "ymm1", "ymm2", "ymm3", "ymm4", "ymm5", "ymm6", "ymm7", "ymm8", "ymm9", "ymm10",
	 "ymm11", "ymm12", "ymm13", "ymm14", "ymm15"}};

const char *x86_reg_name(uint8_t reg, uint8_t size, uint8_t hi)
{
	if (reg >= V_0)
		return vec[size == 32][(reg - V_0) & 15];
	reg &= 15;
	switch (size) {
	case 1: return hi ? gpr8h[reg & 3] : gpr8[reg];
	case 2: return gpr16[reg];
	case 4: return gpr32[reg];
	default: return gpr64[reg];
	}
}

/* The mnemonic: x86 names in lower case, XED's names for conditions. */
static const char *const mnemonics[OP_COUNT] = {
	"add", "or", "adc", "sbb", "and", "sub", "xor", "cmp", "mov", "movzx", "movsx", "lea",
	"test", "inc", "dec", "shl", "shr", "imul", "push", "pop", "call", "ret", "jmp", "j",
	"xchg", "cmpxchg", "movsb", "stosb", "movdqu", "movaps", "vmovdqu", "syscall", "int", "nop"};
static const char *const cc_names[16] = {"o", "no", "b", "nb", "z", "nz", "be", "nbe",
	"s", "ns", "p", "np", "l", "nl", "le", "nle"};

static const char *size_word(uint8_t size)
{
	switch (size) {
	case 1: return "byte";
	case 2: return "word";
	case 4: return "dword";
	case 8: return "qword";
	case 16: return "xmmword";
	default: return "ymmword";
	}
}

/* Appends to a bounded buffer. */
struct text {
	char *p;
	size_t size, n;
};

static void add(struct text *t, const char *s)
{
	size_t k = strlen(s);
	if (t->n + k < t->size) {
		memcpy(t->p + t->n, s, k + 1);
		t->n += k;
	}
}

static void add_hex(struct text *t, uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "0x%" PRIx64, v);
	add(t, b);
}

/* [base+index*scale+disp] with XED's signs: "[rbp-0x8]", "[rip+0x10]", "[0x30]". */
static void add_phrase(struct text *t, const struct opnd *o, int mode64, int64_t rip_disp)
{
	uint8_t asize = mode64 ? 8 : 4;
	if (o->seg != SEG_NONE)
		add(t, o->seg == SEG_FS ? "fs:" : "gs:");
	add(t, "[");
	int any = 0;
	int64_t disp = o->val;
	if (o->base == REG_RIP) {
		add(t, "rip");
		any = 1;
		disp = rip_disp;
	} else if (o->base != REG_NONE) {
		add(t, x86_reg_name(o->base, asize, 0));
		any = 1;
	}
	if (o->index != REG_NONE) {
		if (any)
			add(t, "+");
		add(t, x86_reg_name(o->index, asize, 0));
		char b[8];
		snprintf(b, sizeof b, "*%u", o->scale);
		add(t, b);
		any = 1;
	}
	if (!any) {
		add_hex(t, mode64 ? (uint64_t)disp : (uint32_t)disp);
	} else if (disp != 0) {
		add(t, disp < 0 ? "-" : "+");
		add_hex(t, disp < 0 ? (uint64_t)0 - (uint64_t)disp : (uint64_t)disp);
	}
	add(t, "]");
}

static uint64_t width_mask(uint8_t size)
{
	return size >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
}

static void add_operand(struct text *t, const struct insn *in, int i, int mode64,
                        int64_t rip_disp)
{
	const struct opnd *o = &in->o[i];
	switch (o->kind) {
	case O_REG:
		add(t, x86_reg_name(o->reg, o->size, o->hi));
		break;
	case O_MEM:
		if (in->op == OP_LEA) {
			add(t, "ptr ");
		} else {
			add(t, size_word(o->size));
			add(t, " ptr ");
		}
		add_phrase(t, o, mode64, rip_disp);
		break;
	case O_IMM: /* shown in the width of the operation's first operand */
		add_hex(t, (uint64_t)o->val & width_mask(i > 0 ? in->o[0].size : o->size));
		break;
	default: /* O_REL: the absolute target */
		add_hex(t, mode64 ? (uint64_t)o->val : (uint32_t)o->val);
		break;
	}
}

/* The displacement a RIP-relative operand encodes: its target minus the next address. */
static int64_t rip_disp_of(const struct insn *in, uint64_t next)
{
	for (int i = 0; i < in->nops; i++)
		if (in->o[i].kind == O_MEM && in->o[i].base == REG_RIP)
			return (int64_t)((uint64_t)in->o[i].val - next);
	return 0;
}

void x86_disasm(const struct insn *in, int mode64, uint64_t next, char *buf, size_t size)
{
	struct text t = {buf, size, 0};
	buf[0] = '\0';
	if (in->pfx & P_LOCK)
		add(&t, "lock ");
	if (in->pfx & P_REP)
		add(&t, "rep ");
	add(&t, mnemonics[in->op]);
	if (in->op == OP_JCC)
		add(&t, cc_names[in->cc & 15]);
	int64_t rd = rip_disp_of(in, next);
	if (in->op == OP_MOVSB) {
		add(&t, mode64 ? " byte ptr [rdi], byte ptr [rsi]" : " byte ptr [edi], byte ptr [esi]");
		return;
	}
	if (in->op == OP_STOSB) {
		add(&t, mode64 ? " byte ptr [rdi], al" : " byte ptr [edi], al");
		return;
	}
	for (int i = 0; i < in->nops; i++) {
		add(&t, i ? ", " : " ");
		add_operand(&t, in, i, mode64, rd);
	}
}
