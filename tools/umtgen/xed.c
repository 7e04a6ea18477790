/*
 * umtgen: XED names and numbers (see xed.h for what is real and what is
 * this generator's own numbering), and the enum headers of --xed-headers.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "umtrace/umtrace.h"
#include "util.h"
#include "xed.h"

int xed_reg(int old, int x15)
{
	if (!old)
		return x15;
	return x15 == 0 ? 0 : x15 >= 7 && x15 <= X_GSBASE ? x15 - 6 : -1;
}

int xed_reg_of(uint8_t reg, uint8_t size, uint8_t hi, int mode64)
{
	(void)mode64;
	if (reg >= V_0)
		return (size == 32 ? X_YMM0 : X_XMM0) + (reg - V_0);
	if (hi)
		return X_AH + reg;
	switch (size) {
	case 1: return X_AL + reg;  /* al..dil 90-97, r8b..r15b 98-105 */
	case 2: return X_AX + reg;  /* ax..di 42-49, r8w..r15w 50-57 */
	case 4: return X_EAX + reg; /* eax..edi 58-65, r8d..r15d 66-73 */
	default: return X_RAX + reg;
	}
}

/* ---- names ------------------------------------------------------------------ */

static const char *const cc_iclass[16] = {"JO", "JNO", "JB", "JNB", "JZ", "JNZ", "JBE", "JNBE",
	"JS", "JNS", "JP", "JNP", "JL", "JNL", "JLE", "JNLE"};

const char *xed_iclass_name(const struct insn *in)
{
	static const char *const names[OP_COUNT] = {
		"ADD", "OR", "ADC", "SBB", "AND", "SUB", "XOR", "CMP", "MOV", "MOVZX", "MOVSX", "LEA",
		"TEST", "INC", "DEC", "SHL", "SHR", "IMUL", "PUSH", "POP", "CALL_NEAR", "RET_NEAR",
		"JMP", "J", "XCHG", "CMPXCHG", "MOVSB", "STOSB", "MOVDQU", "MOVAPS", "VMOVDQU",
		"SYSCALL", "INT", "NOP"};
	if (in->op == OP_JCC)
		return cc_iclass[in->cc & 15];
	if (in->op == OP_MOVSB && (in->pfx & P_REP))
		return "REP_MOVSB";
	if (in->op == OP_STOSB && (in->pfx & P_REP))
		return "REP_STOSB";
	return names[in->op];
}

const char *xed_category_name(const struct insn *in)
{
	switch (in->op) {
	case OP_ADD: case OP_ADC: case OP_SBB: case OP_SUB: case OP_CMP: case OP_INC:
	case OP_DEC: case OP_IMUL:
		return "BINARY";
	case OP_OR: case OP_AND: case OP_XOR: case OP_TEST:
		return "LOGICAL";
	case OP_LEA: return "MISC";
	case OP_SHL: case OP_SHR: return "SHIFT";
	case OP_PUSH: return "PUSH";
	case OP_POP: return "POP";
	case OP_CALL: return "CALL";
	case OP_RET: return "RET";
	case OP_JMP: return "UNCOND_BR";
	case OP_JCC: return "COND_BR";
	case OP_CMPXCHG: return "SEMAPHORE";
	case OP_MOVSB: case OP_STOSB: return "STRINGOP";
	case OP_SYSCALL: return "SYSCALL";
	case OP_INT: return "INTERRUPT";
	case OP_NOP: return "NOP";
	default: return "DATAXFER"; /* mov, movzx, movsx, xchg, movdqu, movaps, vmovdqu */
	}
}

/* XED's name of an operand's class in an iform ("GPRv", "MEMb", "IMMz"...). */
static const char *operand_class(const struct insn *in, int i, const struct enc_info *e)
{
	const struct opnd *o = &in->o[i];
	int ext = (in->op == OP_MOVZX || in->op == OP_MOVSX) && i == 1;
	switch (o->kind) {
	case O_REG:
		if (o->reg >= V_0)
			return o->size == 32 ? "YMMqq" : in->op == OP_MOVAPS ? "XMMps" : "XMMdq";
		if ((in->op == OP_SHL || in->op == OP_SHR) && i == 1)
			return "CL";
		return o->size == 1 ? "GPR8" : ext && o->size == 2 ? "GPR16" : "GPRv";
	case O_MEM:
		if (in->op == OP_LEA)
			return "AGEN";
		switch (o->size) {
		case 1: return "MEMb";
		case 2: return ext ? "MEMw" : "MEMv";
		case 16: return in->op == OP_MOVAPS ? "MEMps" : "MEMdq";
		case 32: return "MEMqq";
		default: return "MEMv";
		}
	case O_IMM:
		if ((in->op == OP_SHL || in->op == OP_SHR) && e->imm_size == 0)
			return "ONE";
		return e->imm_size == 1 ? "IMMb" : e->imm_size == 8 ? "IMMv" : "IMMz";
	default:
		return e->rel_size == 1 ? "RELBRb" : "RELBRd";
	}
}

void x86_form(const struct insn *in, const struct enc_info *e, char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "%s", xed_iclass_name(in));
	switch (in->op) {
	case OP_NOP: snprintf(buf, size, "NOP_90"); return;
	case OP_INT: snprintf(buf, size, "INT_IMMb"); return;
	default: break;
	}
	int mem = 0, gpr = 0;
	for (int i = 0; i < in->nops && n < size; i++) {
		mem |= in->o[i].kind == O_MEM;
		gpr |= in->o[i].kind == O_REG && in->o[i].reg < V_0;
		n += (size_t)snprintf(buf + n, size - n, "_%s", operand_class(in, i, e));
	}
	/* register forms with several opcodes are told apart by the opcode (89, 8b) */
	if (!mem && gpr && n < size && in->op != OP_MOVZX && in->op != OP_MOVSX)
		snprintf(buf + n, size - n, "_%02X", e->opcode);
}

/* ---- numbering -------------------------------------------------------------- */

/*
 * The names of each kind, sorted: every form, mnemonic and category of the
 * encoder's catalogue (catalog.c), collected once.
 */
#define NAME_SIZE 32
struct names {
	char (*s)[NAME_SIZE];
	int n;
	size_t cap;
};

enum { K_ICLASS, K_CATEGORY, K_IFORM, K_COUNT };
static struct names tables[K_COUNT];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int tables_failed;

/* One past the highest value of each kind in each version: XED 20140106 knew
 * fewer instructions than 20150121, so its values are lower. */
static const int last_value[2][K_COUNT] = {{1030, 80, 4200}, {990, 76, 4000}};
static const char *const kind_prefix[K_COUNT] = {"XED_ICLASS_", "XED_CATEGORY_", "XED_IFORM_"};

static void add_name(struct names *t, const char *s)
{
	char (*p)[NAME_SIZE] = grow(t->s, &t->cap, (size_t)t->n, NAME_SIZE, 64);
	if (p == NULL) {
		tables_failed = 1;
		return;
	}
	t->s = p;
	size_t len = strlen(s);
	if (len >= NAME_SIZE) { /* no XED name is that long: a generator bug */
		tables_failed = 1;
		return;
	}
	memcpy(t->s[t->n++], s, len + 1);
}

static void collect(const struct insn *in, int mode64, uint64_t at, void *arg)
{
	(void)arg;
	uint8_t code[15];
	struct enc_info e;
	if (x86_encode(in, at, mode64, code, &e) < 0) {
		tables_failed = 1;
		return;
	}
	char form[96];
	x86_form(in, &e, form, sizeof form);
	add_name(&tables[K_IFORM], form);
	add_name(&tables[K_ICLASS], xed_iclass_name(in));
	add_name(&tables[K_CATEGORY], xed_category_name(in));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void build_tables(void)
{
	x86_catalog(collect, NULL);
	for (int k = 0; k < K_COUNT; k++) {
		struct names *t = &tables[k];
		if (t->n == 0)
			continue;
		qsort(t->s, (size_t)t->n, NAME_SIZE, cmp_name);
		int u = 1;
		for (int i = 1; i < t->n; i++)
			if (strcmp(t->s[i], t->s[u - 1]) != 0)
				memcpy(t->s[u++], t->s[i], NAME_SIZE);
		t->n = u;
	}
}

/* Rank of @p name in its sorted table, or -1. */
static int rank_of(int kind, const char *name)
{
	pthread_once(&tables_once, build_tables);
	const struct names *t = &tables[kind];
	if (tables_failed || t->n == 0)
		return -1;
	char key[NAME_SIZE];
	snprintf(key, sizeof key, "%s", name);
	const char *hit = bsearch(key, t->s, (size_t)t->n, NAME_SIZE, cmp_name);
	return hit ? (int)((hit - t->s[0]) / NAME_SIZE) : -1;
}

/* Values grow with the name, spread over [1, LAST) as in XED's enums. */
static int value_of(int kind, int old, int rank)
{
	int64_t last = last_value[old ? 1 : 0][kind];
	return (int)(1 + (int64_t)rank * (last - 1) / tables[kind].n);
}

static int lookup(int kind, int old, const char *name, uint8_t *used, int used_size)
{
	int r = rank_of(kind, name);
	if (r < 0 || r >= used_size)
		return -1;
	used[r] = 1;
	return value_of(kind, old, r);
}

int xed_iclass(int old, const char *name, struct xed_used *u)
{
	return lookup(K_ICLASS, old, name, u->iclass, (int)sizeof u->iclass);
}

int xed_category(int old, const char *name, struct xed_used *u)
{
	return lookup(K_CATEGORY, old, name, u->category, (int)sizeof u->category);
}

int xed_iform(int old, const char *name, struct xed_used *u)
{
	return lookup(K_IFORM, old, name, u->iform, (int)sizeof u->iform);
}

/* ---- headers -------------------------------------------------------------- */

int xed_write_enum(const char *dir, const char *file, const char *type, const char *guard,
                   const char *const *names, const int *values, int count)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, file);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		fprintf(stderr, "umtgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "/// @file %s\n\n// This file was automatically generated.\n"
	           "// Do not edit this file.\n// (umtgen: the values its traces use.)\n\n"
	           "#if !defined(%s)\n# define %s\n", file, guard, guard);
	if (strncmp(type, "xed_", 4) == 0)
		fprintf(f, "#include \"xed-common-hdrs.h\"\n");
	fprintf(f, "typedef enum {\n");
	for (int i = 0; i < count; i++)
		fprintf(f, "  %s=%d%s\n", names[i], values[i], i + 1 < count ? "," : "");
	fprintf(f, "} %s;\n\n", type);
	if (strncmp(type, "xed_", 4) == 0)
		fprintf(f, "/// This converts strings to #%s types.\n/// @param s A C-string.\n"
		           "/// @return #%s\n/// @ingroup ENUM\n"
		           "XED_DLL_EXPORT %s str2%s(const char* s);\n"
		           "/// This converts strings to #%s types.\n"
		           "/// @param p An enumeration element of type %s.\n/// @return string\n"
		           "/// @ingroup ENUM\nXED_DLL_EXPORT const char* %s2str(const %s p);\n\n",
		        type, type, type, type, type, type, type, type);
	fprintf(f, "#endif\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "umtgen: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* "PREFIX" + @p name into @p buf, the name in upper case when @p up (XED's
 * register names; its iform names keep their case: XED_IFORM_ADD_GPRv_IMMb). */
static void upper(char *buf, size_t size, const char *prefix, const char *name, int up)
{
	snprintf(buf, size, "%s%s", prefix, name);
	for (char *p = buf + strlen(prefix); up && *p; p++)
		if (*p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
}

/* The header of one kind: INVALID, the used names, LAST. */
static int write_kind(const char *dir, int kind, int old, const uint8_t *used, int used_size)
{
	static const char *const files[K_COUNT] = {"xed-iclass-enum.h", "xed-category-enum.h",
	                                           "xed-iform-enum.h"};
	static const char *const types[K_COUNT] = {"xed_iclass_enum_t", "xed_category_enum_t",
	                                           "xed_iform_enum_t"};
	static const char *const guards[K_COUNT] = {"XED_ICLASS_ENUM_H", "XED_CATEGORY_ENUM_H",
	                                            "XED_IFORM_ENUM_H"};
	pthread_once(&tables_once, build_tables);
	const struct names *t = &tables[kind];
	int n = 0, cap = t->n + 2;
	char (*buf)[64] = calloc((size_t)cap, sizeof *buf);
	const char **names = calloc((size_t)cap, sizeof *names);
	int *values = calloc((size_t)cap, sizeof *values);
	int rc = -1;
	if (buf && names && values) {
		upper(buf[n], sizeof buf[n], kind_prefix[kind], "INVALID", 0);
		values[n++] = 0;
		for (int r = 0; r < t->n && r < used_size; r++)
			if (used[r]) {
				upper(buf[n], sizeof buf[n], kind_prefix[kind], t->s[r], 0);
				values[n++] = value_of(kind, old, r);
			}
		upper(buf[n], sizeof buf[n], kind_prefix[kind], "LAST", 0);
		values[n++] = last_value[old ? 1 : 0][kind];
		for (int i = 0; i < n; i++)
			names[i] = buf[i];
		rc = xed_write_enum(dir, files[kind], types[kind], guards[kind], names, values, n);
	} else {
		fprintf(stderr, "umtgen: out of memory\n");
	}
	free(buf);
	free(names);
	free(values);
	return rc;
}

/* xed-reg-enum.h: INVALID, the registers used, GSBASE (its value tells the
 * loader the XED version), LAST. */
static int write_regs(const char *dir, int old, const struct xed_used *u)
{
	int64_t date = old ? 20140106 : 20150121;
	static char buf[514][32];
	const char *names[514];
	int values[514], n = 0, gs = xed_reg(old, X_GSBASE);
	for (int r = 0; r < 512; r++) {
		if (!(r == 0 || u->reg[r] || r == gs))
			continue;
		const char *s = umt_xed_reg_name(date, r);
		if (s == NULL)
			continue;
		upper(buf[n], sizeof buf[n], "XED_REG_", s, 1);
		values[n++] = r;
	}
	snprintf(buf[n], sizeof buf[n], "XED_REG_LAST");
	values[n++] = old ? X_GSBASE - 6 + 1 : 280;
	for (int i = 0; i < n; i++)
		names[i] = buf[i];
	return xed_write_enum(dir, "xed-reg-enum.h", "xed_reg_enum_t", "XED_REG_ENUM_H", names,
	                      values, n);
}

int xed_write_headers(const char *dir, int old, const struct xed_used *u)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "umtgen: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (write_regs(dir, old, u) < 0 ||
	    write_kind(dir, K_ICLASS, old, u->iclass, (int)sizeof u->iclass) < 0 ||
	    write_kind(dir, K_CATEGORY, old, u->category, (int)sizeof u->category) < 0 ||
	    write_kind(dir, K_IFORM, old, u->iform, (int)sizeof u->iform) < 0)
		return -1;
	return 0;
}
