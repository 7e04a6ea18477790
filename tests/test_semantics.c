/*
 * test_semantics: instruction semantics of rows (umtrace.h section 7b).
 *
 * The rows are assembled by hand: each byte string below was checked with
 * GNU objdump (objdump -b binary -m i386:x86-64 -M intel -D, or -m i386 for
 * 32-bit code), whose text is in the comment beside it; lengths, categories
 * and branch targets are worked out from those texts (objdump disassembles
 * at address 0: targets here are at the row's address). The sample trace's
 * rows and every row of generated traces must decode to their CodeSize and
 * agree with their disassembly text (umtgen's machine writes real encodings
 * with XED-style text, checked against objdump by tests/gen).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "semtext.h"

#define A64 0x140001000ull
#define A32 0x10ull

struct row {
	int is64;
	uint64_t address;
	const char *bytes; /* hex, as objdump shows them */
	const char *text;  /* XED-style text stored in the row */
	const char *mnemonic;
	int category;
	unsigned flags; /* UMT_SEM_F_* besides 64BIT */
	uint64_t target;
	unsigned operands;
};

enum { C = UMT_SEM_CALL, R = UMT_SEM_RET, J = UMT_SEM_JMP, B = UMT_SEM_COND_BRANCH,
       S = UMT_SEM_SYSCALL, N = UMT_SEM_NOP, O = UMT_SEM_OTHER };
#define T UMT_SEM_F_TARGET
#define I UMT_SEM_F_INDIRECT
#define F UMT_SEM_F_FAR

static const struct row rows[] = {
	/* objdump: call 0x15 */
	{1, A64, "e8 10 00 00 00", "call 0x140001015", "call", C, T, A64 + 0x15, 1},
	/* objdump: jmp 0x0 */
	{1, A64, "eb fe", "jmp 0x140001000", "jmp", J, T, A64, 1},
	{1, A64, "c3", "ret", "ret", R, 0, 0, 0},
	{1, A64, "0f 05", "syscall", "syscall", S, 0, 0, 0},
	{1, A64, "cd 2e", "int 0x2e", "int", S, 0, 0, 1},
	/* objdump: mov eax,DWORD PTR [rbx+rcx*4+0x10] */
	{1, A64, "8b 44 8b 10", "mov eax, dword ptr [rbx+rcx*4+0x10]", "mov", O, 0, 0, 2},
	/* objdump: rep movs BYTE PTR es:[rdi],BYTE PTR ds:[rsi] */
	{1, A64, "f3 a4", "rep movsb byte ptr [rdi], byte ptr [rsi]", "movsb", O, UMT_SEM_F_REP, 0, 0},
	/* objdump: nop DWORD PTR [rax+0x0] */
	{1, A64, "0f 1f 40 00", "nop dword ptr [rax], eax", "nop", N, 0, 0, 2},
	{1, A64, "ff d0", "call rax", "call", C, I, 0, 1},
	/* objdump: call QWORD PTR [rip+0x0] # 0x6 */
	{1, A64, "ff 15 00 00 00 00", "call qword ptr [rip]", "call", C, I, 0, 1},
	/* objdump: je 0x7 */
	{1, A64, "74 05", "jz 0x140001007", "jz", B, T, A64 + 7, 1},
	/* objdump: jne 0x106 */
	{1, A64, "0f 85 00 01 00 00", "jnz 0x140001106", "jnz", B, T, A64 + 0x106, 1},
	{1, A64, "e3 fe", "jrcxz 0x140001000", "jrcxz", B, T, A64, 1},
	{1, A64, "e2 fe", "loop 0x140001000", "loop", B, T, A64, 1},
	/* objdump: retf */
	{1, A64, "cb", "ret far", "ret", R, F, 0, 0},
	{1, A64, "cc", "int3", "int3", S, 0, 0, 0},
	/* objdump: lock cmpxchg DWORD PTR [rdx],ecx */
	{1, A64, "f0 0f b1 0a", "lock cmpxchg dword ptr [rdx], ecx", "cmpxchg", O, UMT_SEM_F_LOCK, 0, 2},
	/* objdump: lea rax,[rip+0x1] # 0x8 */
	{1, A64, "48 8d 05 01 00 00 00", "lea rax, ptr [rip+0x1]", "lea", O, 0, 0, 2},
	/* objdump: vmovdqu ymm0,YMMWORD PTR [rax] */
	{1, A64, "c5 fe 6f 00", "vmovdqu ymm0, ymmword ptr [rax]", "vmovdqu", O, 0, 0, 2},
	{1, A64, "90", "nop", "nop", N, 0, 0, 0},
	/* objdump: xchg ax,ax (the two-byte nop) */
	{1, A64, "66 90", "data16 nop", "nop", N, 0, 0, 0},
	/* objdump: movabs rax,0x1122334455667788 */
	{1, A64, "48 b8 88 77 66 55 44 33 22 11", "mov rax, 0x1122334455667788", "mov", O, 0, 0, 2},
	/* objdump: jmp QWORD PTR [rip+0x0] # 0x6 */
	{1, A64, "ff 25 00 00 00 00", "jmp qword ptr [rip]", "jmp", J, I, 0, 1},
	/* objdump: jmp 0xffffffff80000005: 0x140001005 - 0x80000000 here */
	{1, A64, "e9 00 00 00 80", "jmp 0xc0001005", "jmp", J, T, 0xc0001005ull, 1},
	/* objdump: mov rax,QWORD PTR gs:0x30 */
	{1, A64, "65 48 8b 04 25 30 00 00 00", "mov rax, qword ptr gs:[0x30]", "mov", O, 0, 0, 2},
	{1, A64, "48 cf", "iretq", "iretq", R, 0, 0, 0},
	/* objdump: sysretd */
	{1, A64, "0f 07", "sysret", "sysret", S, 0, 0, 0},
	/* objdump: repnz scas al,BYTE PTR es:[rdi] */
	{1, A64, "f2 ae", "repne scasb byte ptr [rdi]", "scasb", O, UMT_SEM_F_REP, 0, 0},
	/* 32-bit, objdump -m i386: call 0xffffffe5 at 0; here 0x15 - 0x20 wraps to 2^32 - 0xb */
	{0, A32, "e8 e0 ff ff ff", "call 0xfffffff5", "call", C, T, 0xfffffff5ull, 1},
	/* jmpw 0x1004 at 0: a 16-bit operand size wraps IP to 16 bits: 0x14 + 0x1000 */
	{0, A32, "66 e9 00 10", "jmp 0x1014", "jmp", J, T, 0x1014, 1},
	{0, A32, "cd 2e", "int 0x2e", "int", S, 0, 0, 1},
	{0, A32, "0f 34", "sysenter", "sysenter", S, 0, 0, 0},
	/* objdump: jmp DWORD PTR [eax*4+0x401000] */
	{0, A32, "ff 24 85 00 10 40 00", "jmp dword ptr [eax*4+0x401000]", "jmp", J, I, 0, 1},
	/* objdump: mov eax,DWORD PTR [esp] */
	{0, A32, "8b 04 24", "mov eax, dword ptr [esp]", "mov", O, 0, 0, 2},
	/* objdump: ret 0x8 */
	{0, A32, "c2 08 00", "ret 0x8", "ret", R, 0, 0, 1},
	{0, A32, "e3 fe", "jecxz 0x10", "jecxz", B, T, A32, 1},
	/* objdump: mov eax,fs:0x30 */
	{0, A32, "64 a1 30 00 00 00", "mov eax, dword ptr fs:[0x30]", "mov", O, 0, 0, 2},
	/* objdump: call 0x33:0x12345678 */
	{0, A32, "9a 78 56 34 12 33 00", "call far 0x33:0x12345678", "call", C, F, 0, 1},
	{0, A32, "0f 35", "sysexit", "sysexit", S, 0, 0, 0},
	/* objdump: iret */
	{0, A32, "cf", "iretd", "iretd", R, 0, 0, 0},
	/* objdump: jmp 0x0 at 0: a jump to itself */
	{0, A32, "e9 fb ff ff ff", "jmp 0x10", "jmp", J, T, A32, 1},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Rows whose bytes are not one instruction of their CodeSize. */
static const struct {
	int is64;
	const char *bytes;
	int code_size; /* -1: the byte count */
	int status;
	const char *what;
} bad[] = {
	{1, "06", -1, UMT_E_CORRUPT, "no such instruction"},                 /* push es: not in 64-bit */
	{1, "e8 10 00", -1, UMT_E_CORRUPT, "the bytes end inside"},          /* a cut call */
	{1, "90 90", -1, UMT_E_CORRUPT, "they start with a 1-byte nop"},     /* two instructions */
	{1, "", -1, UMT_E_CORRUPT, "CodeBytes (none)"},                      /* CodeSize 0 */
	{0, "f0 90", -1, UMT_E_CORRUPT, "lock prefix"},                      /* lock nop */
	{1, "90", 16, UMT_E_BOUNDS, "exceeds the 15 bytes"},                 /* CodeSize 16 */
};
#define NBAD (sizeof bad / sizeof bad[0])

static unsigned parse_hex(const char *s, uint8_t *out)
{
	unsigned n = 0;
	while (*s) {
		if (*s == ' ') {
			s++;
			continue;
		}
		unsigned v;
		assert_int_equal(sscanf(s, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

static void add_row(umt_writer *w, int is64, uint64_t address, const char *bytes, int size,
                    const char *text)
{
	umt_decoded_ins dec;
	memset(&dec, 0, sizeof dec);
	dec.Mem0SegSlot = dec.Mem0BaseSlot = dec.Mem0IndexSlot = dec.Mem1BaseSlot = 0xff;
	int64_t dfp, tfp;
	assert_int_equal(umt_writer_add_decoded(w, &dec, NULL, &dfp), 0);
	assert_int_equal(umt_writer_add_disasm(w, text, &tfp), 0);
	umt_ins_rec r;
	memset(&r, 0, sizeof r);
	unsigned n = parse_hex(bytes, r.CodeBytes);
	r.CodeSize = (uint8_t)(size >= 0 ? (unsigned)size : n);
	r.CSis64Bits = (uint8_t)is64;
	r.ModuleID = -1;
	r.Address = (int64_t)address;
	r.DisasmFP = tfp;
	r.DecodedFP = dfp;
	assert_int_equal(umt_writer_add_ins(w, &r, NULL), 0);
}

/* The catalogue's rows, then the bad ones, in a fresh trace directory. */
static char *write_catalogue(void)
{
	char *dir = fx_tmpdir();
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	for (size_t i = 0; i < NROWS; i++)
		add_row(w, rows[i].is64, rows[i].address, rows[i].bytes, -1, rows[i].text);
	for (size_t i = 0; i < NBAD; i++)
		add_row(w, bad[i].is64, A64, bad[i].bytes, bad[i].code_size, "bad");
	assert_int_equal(umt_writer_finish(w), 0);
	return dir;
}

static void test_catalogue(void **state)
{
	(void)state;
	char *dir = write_catalogue();
	umt_trace *t = fx_must_open_dir(dir);
	for (int pass = 0; pass < 2; pass++) { /* decoded, then remembered */
		for (size_t i = 0; i < NROWS; i++) {
			const struct row *e = &rows[i];
			umt_sem s;
			memset(&s, 0xa5, sizeof s);
			int rc = umt_sem_get(t, i, &s);
			if (rc)
				print_error("row %zu: %s\n", i, umt_errmsg());
			assert_int_equal(rc, 0);
			assert_string_equal(umt_sem_mnemonic_name(s.mnemonic), e->mnemonic);
			assert_int_equal(s.category, e->category);
			assert_int_equal(s.length, parse_hex(e->bytes, (uint8_t[16]){0}));
			assert_int_equal(s.flags, e->flags | (e->is64 ? UMT_SEM_F_64BIT : 0u));
			assert_int_equal(s.target, e->target);
			assert_int_equal(s.operand_count, e->operands);
			assert_int_equal(s.reserved, 0);
			assert_int_equal(umt_sem_is_branch(&s), e->category >= C && e->category <= B);
			const char *text;
			size_t len;
			assert_int_equal(umt_ins_disasm(t, i, &text, &len), 0);
			assert_true(fx_sem_text_agrees(umt_sem_mnemonic_name(s.mnemonic), text, len));
		}
	}
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir);
}

static void test_bad_rows(void **state)
{
	(void)state;
	char *dir = write_catalogue();
	umt_trace *t = fx_must_open_dir(dir);
	for (size_t i = 0; i < NBAD; i++) {
		uint64_t id = NROWS + i;
		const umt_ins_rec *r;
		assert_int_equal(umt_ins_get(t, id, &r), 0);
		for (int pass = 0; pass < 2; pass++) { /* reported again, the same way */
			umt_sem s;
			umt_sem_detail d;
			int rc = umt_sem_get(t, id, &s);
			fx_expect_error(rc, bad[i].status, "ins.itable", bad[i].what);
			char where[64];
			snprintf(where, sizeof where, "row %llu at offset 0x", (unsigned long long)id);
			assert_non_null(strstr(umt_errmsg(), where));
			fx_expect_error(umt_sem_decode(t, id, &d), bad[i].status, "ins.itable", bad[i].what);
		}
	}
	/* the CodeBytes of the first bad row: TableFP (header offset 24) + 64 * row + 24 */
	struct fx_trace raw;
	fx_load_dir(dir, &raw);
	uint64_t table_fp = fx_get64(raw.data[UMT_FILE_INS] + 24);
	fx_free(&raw);
	umt_sem s;
	char at[64];
	snprintf(at, sizeof at, "offset 0x%llx:", (unsigned long long)(table_fp + 64 * NROWS + 24));
	assert_int_equal(umt_sem_get(t, NROWS, &s), UMT_E_CORRUPT);
	assert_non_null(strstr(umt_errmsg(), at));
	assert_non_null(strstr(umt_errmsg(), "CodeBytes 06 (CodeSize 1) are not one 64-bit"));
	assert_int_equal(umt_sem_get(t, NROWS + NBAD, &s), UMT_E_RANGE);
	assert_int_equal(umt_sem_get(NULL, 0, &s), UMT_E_INVAL);
	assert_int_equal(umt_sem_get(t, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_sem_decode(t, 0, NULL), UMT_E_INVAL);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir);
}

static const umt_sem_operand *decode_op(const umt_trace *t, size_t row, unsigned k,
                                        umt_sem_detail *d)
{
	assert_int_equal(umt_sem_decode(t, row, d), 0);
	assert_true(k < d->operand_count);
	return &d->operands[k];
}

static size_t row_of(const char *bytes, int is64)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].is64 == is64 && !strcmp(rows[i].bytes, bytes))
			return i;
	fail_msg("no row %s", bytes);
	return 0;
}

static void test_operands(void **state)
{
	(void)state;
	char *dir = write_catalogue();
	umt_trace *t = fx_must_open_dir(dir);
	umt_sem_detail d;
	/* mov eax, dword ptr [rbx+rcx*4+0x10] */
	size_t mov = row_of("8b 44 8b 10", 1);
	const umt_sem_operand *o = decode_op(t, mov, 0, &d);
	assert_int_equal(d.operand_count, 2);
	assert_int_equal(o->kind, UMT_SEM_OP_REGISTER);
	assert_string_equal(o->reg, "eax");
	assert_int_equal(o->bits, 32);
	assert_int_equal(o->access, UMT_SEM_WRITE);
	o = &d.operands[1];
	assert_int_equal(o->kind, UMT_SEM_OP_MEMORY);
	assert_int_equal(o->access, UMT_SEM_READ);
	assert_int_equal(o->bits, 32);
	assert_string_equal(o->segment, "ds");
	assert_string_equal(o->base, "rbx");
	assert_string_equal(o->index, "rcx");
	assert_int_equal(o->scale, 4);
	assert_int_equal(o->disp, 0x10);
	assert_int_equal(o->has_absolute, 0);
	assert_string_equal(d.text, "mov eax, dword ptr [rbx+rcx*4+0x10]");
	/* call qword ptr [rip]: the pointer is read at the next instruction, A64 + 6 */
	o = decode_op(t, row_of("ff 15 00 00 00 00", 1), 0, &d);
	assert_int_equal(o->kind, UMT_SEM_OP_MEMORY);
	assert_string_equal(o->base, "rip");
	assert_null(o->index);
	assert_int_equal(o->scale, 0);
	assert_int_equal(o->has_absolute, 1);
	assert_int_equal(o->absolute, A64 + 6);
	/* lea rax, [rip+1]: an address, no access */
	o = decode_op(t, row_of("48 8d 05 01 00 00 00", 1), 1, &d);
	assert_int_equal(o->kind, UMT_SEM_OP_AGEN);
	assert_int_equal(o->access, 0);
	assert_int_equal(o->absolute, A64 + 8);
	/* mov rax, imm64 */
	o = decode_op(t, row_of("48 b8 88 77 66 55 44 33 22 11", 1), 1, &d);
	assert_int_equal(o->kind, UMT_SEM_OP_IMMEDIATE);
	assert_int_equal(o->value, 0x1122334455667788ull);
	assert_int_equal(o->bits, 64);
	/* call rel32 in 32-bit code: the offset, and where it goes */
	o = decode_op(t, row_of("e8 e0 ff ff ff", 0), 0, &d);
	assert_int_equal(o->kind, UMT_SEM_OP_IMMEDIATE);
	assert_int_equal(o->value, (uint64_t)-0x20);
	assert_int_equal(o->has_absolute, 1);
	assert_int_equal(o->absolute, 0xfffffff5ull);
	/* call far 0x33:0x12345678 */
	o = decode_op(t, row_of("9a 78 56 34 12 33 00", 0), 0, &d);
	assert_int_equal(o->kind, UMT_SEM_OP_POINTER);
	assert_int_equal(o->selector, 0x33);
	assert_int_equal(o->value, 0x12345678);
	/* mov eax, fs:[0x30]: the segment, no base */
	o = decode_op(t, row_of("64 a1 30 00 00 00", 0), 1, &d);
	assert_string_equal(o->segment, "fs");
	assert_null(o->base);
	assert_int_equal(o->disp, 0x30);
	/* the text of a branch names its target */
	assert_int_equal(umt_sem_decode(t, row_of("74 05", 1), &d), 0);
	assert_string_equal(d.text, "jz 0x140001007");
	assert_int_equal(d.sem.target, A64 + 7);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(umt_sem_category_name(UMT_SEM_OTHER), "other");
	assert_string_equal(umt_sem_category_name(UMT_SEM_COND_BRANCH), "cond_branch");
	assert_string_equal(umt_sem_category_name(UMT_SEM_NOP), "nop");
	assert_null(umt_sem_category_name(UMT_SEM_CATEGORY_COUNT));
	assert_null(umt_sem_category_name(-1));
	assert_null(umt_sem_mnemonic_name(0));
	assert_null(umt_sem_mnemonic_name(65535));
	assert_null(umt_sem_zydis_category_name(0));
	assert_null(umt_sem_zydis_category_name(255));
	/* the text's word after its prefixes */
	char w[32];
	const char *s = "rep movsb byte ptr [rdi], byte ptr [rsi]";
	fx_text_mnemonic(s, strlen(s), w, sizeof w);
	assert_string_equal(w, "movsb");
	assert_true(fx_sem_text_agrees("jnb", "jae 0x10", 8));
	assert_false(fx_sem_text_agrees("jnb", "jb 0x10", 7));
	assert_false(fx_sem_text_agrees("mov", "add eax, ebx", 12));
}

/* Every row of the sample decodes to its CodeSize and agrees with its text. */
static void test_sample(void **state)
{
	(void)state;
	umt_trace *t = fx_must_open_dir(UMT_SAMPLE_DIR);
	assert_true(umt_ins_count(t) > 0);
	for (uint64_t i = 0; i < umt_ins_count(t); i++) {
		umt_sem s;
		const umt_ins_rec *r;
		const char *text;
		size_t len;
		int rc = umt_sem_get(t, i, &s);
		if (rc)
			print_error("sample row %llu: %s\n", (unsigned long long)i, umt_errmsg());
		assert_int_equal(rc, 0);
		assert_int_equal(umt_ins_get(t, i, &r), 0);
		assert_int_equal(s.length, r->CodeSize);
		assert_int_equal(umt_ins_disasm(t, i, &text, &len), 0);
		if (!fx_sem_text_agrees(umt_sem_mnemonic_name(s.mnemonic), text, len))
			fail_msg("sample row %llu: %s is not %.*s", (unsigned long long)i,
			         umt_sem_mnemonic_name(s.mnemonic), (int)len, text);
	}
	umt_trace_close(t);
}

/* Every row of generated traces (umtgen encodes real instructions): both flavours and widths. */
static void test_generated(void **state)
{
	(void)state;
	static const char *const args[] = {"--seed 1", "--seed 2 --code32", "--seed 3 --flavour 2014",
	                                   "--seed 4 --flavour 2014 --code32 --threads 2"};
	for (size_t k = 0; k < sizeof args / sizeof args[0]; k++) {
		char *dir = fx_tmpdir(), cmd[9000], tr[4200];
		snprintf(tr, sizeof tr, "%s/t", dir);
		snprintf(cmd, sizeof cmd, "'%s' --quiet --records 20K %s '%s'", getenv("UMTGEN"),
		         args[k], tr);
		assert_int_equal(system(cmd), 0);
		umt_trace *t = fx_must_open_dir(tr);
		uint64_t branches = 0;
		for (uint64_t i = 0; i < umt_ins_count(t); i++) {
			umt_sem s;
			const umt_ins_rec *r;
			const char *text;
			size_t len;
			if (umt_sem_get(t, i, &s) != 0)
				fail_msg("umtgen %s, row %llu: %s", args[k], (unsigned long long)i, umt_errmsg());
			assert_int_equal(umt_ins_get(t, i, &r), 0);
			assert_int_equal(s.length, r->CodeSize);
			assert_int_equal((s.flags & UMT_SEM_F_64BIT) != 0, r->CSis64Bits != 0);
			assert_int_equal(umt_ins_disasm(t, i, &text, &len), 0);
			if (!fx_sem_text_agrees(umt_sem_mnemonic_name(s.mnemonic), text, len))
				fail_msg("umtgen %s, row %llu: %s is not %.*s", args[k],
				         (unsigned long long)i, umt_sem_mnemonic_name(s.mnemonic), (int)len,
				         text);
			branches += umt_sem_is_branch(&s);
		}
		assert_true(branches > 0); /* the programs call, jump and return */
		umt_trace_close(t);
		fx_rmtree(dir);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalogue), cmocka_unit_test(test_bad_rows),
		cmocka_unit_test(test_operands), cmocka_unit_test(test_names),
		cmocka_unit_test(test_sample), cmocka_unit_test(test_generated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
