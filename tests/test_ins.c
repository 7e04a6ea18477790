/*
 * ins.c: instruction rows, code bytes, disassembly, decoded instructions,
 * LC slot groups, the once-per-row check and every bounds check.
 *
 * Two sources: the writer-built standard trace, and an instruction table
 * assembled here byte by byte at the spec's literal offsets (no format.h
 * struct, no writer), with a RowSize of 72 so that the stride is tested.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "fixture.h"
#include "std_trace.h"

/* ---- the hand-assembled instruction table ---------------------------------- */

enum { RAX = 74, RCX = 75, RBX = 77, RSI = 80, RDI = 81, EAX = 58,
       AX = 42, CX = 43, BX = 45, SI = 48, DI = 49,
       MEM0 = 0xffff, MEM1 = 0xfffe, NA = 0xff };

#define H_ROWS 4
#define H_ROW 72                         /* RowSize: not 64, to test the stride */
#define H_TABLE 48                       /* TableFP */
#define H_EXTRA (H_TABLE + H_ROWS * H_ROW) /* ExtraFP = 336 */

/* Offsets inside the extra area, filled by build_ins(). */
static size_t h_str_mov, h_str_nop, h_str_movsb, h_dec_mov, h_dec_nop, h_dec_movsb, h_extra_size;

static const char STR_MOV[] = "mov eax, dword ptr [rbx+rcx*4+0x10]";

static void put_oper(uint8_t *o, uint16_t reg, uint16_t size, uint8_t flags, uint8_t before,
                     uint8_t after, uint8_t boff, uint8_t aoff)
{
	fx_put16(o + 0, reg);   /* RegName */
	fx_put16(o + 2, size);  /* Size */
	o[4] = flags;           /* Flags */
	o[5] = before;          /* BeforeSlot */
	o[6] = after;           /* AfterSlot */
	o[7] = boff;            /* BeforeOffset */
	o[8] = aoff;            /* AfterOffset */
}

static void put_slot(uint8_t *s, uint16_t reg, uint16_t common, uint16_t vsize, uint16_t off,
                     uint8_t aw)
{
	fx_put16(s + 0, reg);    /* RegName */
	fx_put16(s + 2, common); /* CommonRegName */
	fx_put16(s + 4, vsize);  /* ValueSize */
	fx_put16(s + 6, off);    /* Offset */
	s[8] = aw;               /* AddrWidth */
}

static size_t put_cstr(uint8_t *p, const char *s)
{
	size_t n = strlen(s);
	fx_put16(p, (uint16_t)n);
	memcpy(p + 2, s, n + 1);
	return n + 3;
}

/* The fixed part of a decodedIns (88 bytes) at literal offsets. */
static void put_dec(uint8_t *d, uint16_t cat, uint16_t mnem, uint16_t form, uint8_t flags,
                    uint8_t exp_count, uint8_t eff_oper, uint8_t eff_addr, uint16_t lc_size,
                    uint8_t first_out, uint8_t first_after, uint8_t lc_count)
{
	fx_put16(d + 0, cat);
	fx_put16(d + 2, mnem);
	fx_put16(d + 4, form);
	d[6] = flags;
	d[7] = exp_count;
	d[56] = eff_oper;
	d[57] = eff_addr;
	fx_put16(d + 58, lc_size);
	d[60] = first_out;
	d[61] = first_after;
	d[62] = lc_count;
}

static void put_phrase(uint8_t *d, uint8_t seg, uint8_t base, uint8_t scale, uint8_t index,
                       uint8_t mem1, int64_t c0, int64_t c1)
{
	d[63] = seg;   /* Mem0SegSlot */
	d[64] = base;  /* Mem0BaseSlot */
	d[65] = scale; /* Mem0Scale */
	d[66] = index; /* Mem0IndexSlot */
	d[67] = mem1;  /* Mem1BaseSlot (ERRATA 1: 67, not 65) */
	fx_put64(d + 72, (uint64_t)c0);
	fx_put64(d + 80, (uint64_t)c1);
}

static void put_row(uint8_t *r, uint64_t id, uint8_t type, uint8_t cs64, uint8_t code_size,
                    int32_t module, uint64_t addr, const uint8_t *code, size_t disasm_fp,
                    size_t decoded_fp)
{
	fx_put64(r + 0, id);
	r[8] = type;
	r[9] = cs64;
	r[10] = code_size;
	fx_put32(r + 12, (uint32_t)module);
	fx_put64(r + 16, addr);
	memcpy(r + 24, code, code_size <= 15 ? code_size : 15);
	fx_put64(r + 40, disasm_fp);
	fx_put64(r + 48, decoded_fp);
}

/*
 * Rows: 0 mov eax, [rbx+rcx*4+0x10]; 1 the same instruction elsewhere,
 * sharing body and string; 2 nop (no operand, no slot); 3 rep movsb.
 */
static void build_ins(struct fx_trace *t, int32_t record_ver)
{
	uint8_t x[1024];
	memset(x, 0, sizeof x);
	size_t n = 0;
	h_str_mov = n, n += put_cstr(x + n, STR_MOV);
	h_str_nop = n, n += put_cstr(x + n, "nop");
	h_str_movsb = n, n += put_cstr(x + n, "rep movsb byte ptr [rdi], byte ptr [rsi]");

	/* mov eax, dword ptr [rbx+rcx*4+0x10] */
	uint8_t *d = x + (h_dec_mov = n);
	put_dec(d, 0x0b, 0x1b1, 0x2c0, 0x18, 2, 4, 8, 44, 3, 4, 5);
	put_oper(d + 8, EAX, 4, 0x02, 3, 4, 0, 0);
	put_oper(d + 20, MEM0, 4, 0x01, 2, NA, 8, 0);
	/* operands 2 and 3 are present but beyond ExpCount: garbage that must be ignored */
	put_oper(d + 32, 0x1234, 0x7fff, 3, 0xfc, 0xfc, 0xff, 0xff);
	put_oper(d + 44, 0x1234, 0x7fff, 3, 0xfc, 0xfc, 0xff, 0xff);
	put_phrase(d, NA, 0, 4, 1, NA, 0x10, 0);
	put_slot(d + 88, RBX, BX, 8, 0, 0);
	put_slot(d + 100, RCX, CX, 8, 8, 0);
	put_slot(d + 112, MEM0, MEM0, 4, 16, 8);
	put_slot(d + 124, RAX, AX, 8, 28, 0);
	put_slot(d + 136, RAX, AX, 8, 36, 0);
	n += 88 + 5 * 12;

	/* nop */
	d = x + (h_dec_nop = n);
	put_dec(d, 0x2a, 0x1f0, 0x7c0, 0, 0, 4, 8, 0, 0, 0, 0);
	put_phrase(d, NA, NA, 0, NA, NA, 0, 0);
	n += 88;

	/* rep movsb: MEM0 [rdi] written, MEM1 [rsi] read */
	d = x + (h_dec_movsb = n);
	put_dec(d, 0x35, 0x1c5, 0x4b0, 0x31, 2, 4, 8, 75, 4, 5, 9);
	put_oper(d + 8, MEM0, 1, 0x02, 4, 5, 8, 8);
	put_oper(d + 20, MEM1, 1, 0x01, 3, NA, 8, 0);
	put_phrase(d, NA, 1, 0, NA, 0, 0, 0);
	put_slot(d + 88, RSI, SI, 8, 0, 0);
	put_slot(d + 100, RDI, DI, 8, 8, 0);
	put_slot(d + 112, RCX, CX, 8, 16, 0);
	put_slot(d + 124, MEM1, MEM1, 1, 24, 8);
	put_slot(d + 136, MEM0, MEM0, 1, 33, 8);
	put_slot(d + 148, MEM0, MEM0, 1, 42, 8);
	put_slot(d + 160, RSI, SI, 8, 51, 0);
	put_slot(d + 172, RDI, DI, 8, 59, 0);
	put_slot(d + 184, RCX, CX, 8, 67, 0);
	n += 88 + 9 * 12;
	h_extra_size = n;

	size_t size = H_EXTRA + n;
	uint8_t *p = calloc(1, size);
	fx_put32(p + 0, 0);                  /* HeaderVer */
	fx_put32(p + 4, (uint32_t)record_ver); /* RecordVer */
	fx_put64(p + 8, H_ROWS);             /* RowCount */
	fx_put64(p + 16, H_ROW);             /* RowSize */
	fx_put64(p + 24, H_TABLE);           /* TableFP */
	fx_put64(p + 32, H_EXTRA);           /* ExtraFP */
	fx_put64(p + 40, n);                 /* ExtraSize */
	static const uint8_t mov[] = {0x8b, 0x44, 0x8b, 0x10};
	static const uint8_t nop[] = {0x90};
	static const uint8_t movsb[] = {0xf3, 0xa4};
	put_row(p + H_TABLE, 0, 0, 1, 4, 0, 0x401000, mov, h_str_mov, h_dec_mov);
	put_row(p + H_TABLE + H_ROW, 1, 0, 1, 4, -1, 0x7ff000, mov, h_str_mov, h_dec_mov);
	put_row(p + H_TABLE + 2 * H_ROW, 2, 8, 1, 1, 0, 0x401004, nop, h_str_nop, h_dec_nop);
	put_row(p + H_TABLE + 3 * H_ROW, 3, 0, 1, 2, 0, 0x401005, movsb, h_str_movsb, h_dec_movsb);
	/* bytes 64..71 of each row: RowSize padding, never read */
	for (int i = 0; i < H_ROWS; i++)
		memset(p + H_TABLE + i * H_ROW + 56, 0xee, 16);
	memcpy(p + H_EXTRA, x, n);
	free(t->data[UMT_FILE_INS]);
	t->data[UMT_FILE_INS] = p;
	t->size[UMT_FILE_INS] = size;
	fx_sync(t);
}

/* File offset of row @p id, and of the bytes of extra-area offset @p off. */
static uint8_t *row_bytes(struct fx_trace *t, int id)
{
	return t->data[UMT_FILE_INS] + H_TABLE + (size_t)id * H_ROW;
}
static uint8_t *extra_bytes(struct fx_trace *t, size_t off)
{
	return t->data[UMT_FILE_INS] + H_EXTRA + off;
}

/* ---- hand-assembled: rows, code, strings ------------------------------------ */

static void test_hand_rows(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 1);
	umt_trace *tr = fx_must_open(&t);
	assert_int_equal(umt_ins_count(tr), H_ROWS);
	assert_int_equal(umt_ins_count(NULL), 0);
	assert_int_equal(umt_ins_slot_name_kind(tr), UMT_SLOT_COMMON_REG_NAME);
	assert_int_equal(umt_ins_slot_name_kind(NULL), UMT_E_INVAL);

	static const struct {
		uint8_t type, size;
		int32_t module;
		int64_t addr;
		uint8_t code0;
	} want[H_ROWS] = {{0, 4, 0, 0x401000, 0x8b}, {0, 4, -1, 0x7ff000, 0x8b},
	                  {8, 1, 0, 0x401004, 0x90}, {0, 2, 0, 0x401005, 0xf3}};
	for (int i = 0; i < H_ROWS; i++) {
		const umt_ins_rec *r;
		assert_int_equal(umt_ins_get(tr, (uint64_t)i, &r), 0);
		assert_ptr_equal((const void *)r, row_bytes(&t, i));
		assert_int_equal(r->ID, i);
		assert_int_equal(r->Type, want[i].type);
		assert_int_equal(r->CSis64Bits, 1);
		assert_int_equal(r->CodeSize, want[i].size);
		assert_int_equal(r->ModuleID, want[i].module);
		assert_int_equal(r->Address, want[i].addr);
		const uint8_t *code;
		unsigned size = 99;
		assert_int_equal(umt_ins_code(tr, (uint64_t)i, &code, &size), 0);
		assert_int_equal(size, want[i].size);
		assert_ptr_equal(code, row_bytes(&t, i) + 24);
		assert_int_equal(code[0], want[i].code0);
	}
	const uint8_t *code;
	unsigned size;
	assert_int_equal(umt_ins_code(tr, 0, &code, &size), 0);
	assert_memory_equal(code, "\x8b\x44\x8b\x10", 4);
	assert_int_equal(umt_ins_code(tr, 3, &code, &size), 0);
	assert_memory_equal(code, "\xf3\xa4", 2);

	const umt_ins_rec *r;
	assert_int_equal(umt_ins_get(tr, H_ROWS, &r), UMT_E_RANGE);
	assert_int_equal(umt_ins_get(tr, UINT64_MAX, &r), UMT_E_RANGE);
	assert_int_equal(umt_ins_get(NULL, 0, &r), UMT_E_INVAL);
	assert_int_equal(umt_ins_get(tr, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_ins_code(tr, H_ROWS, &code, &size), UMT_E_RANGE);
	assert_int_equal(umt_ins_code(tr, 0, NULL, &size), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_hand_disasm(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 1);
	umt_trace *tr = fx_must_open(&t);
	const char *text, *text1;
	size_t len = 0;
	assert_int_equal(umt_ins_disasm(tr, 0, &text, &len), 0);
	assert_string_equal(text, STR_MOV);
	assert_int_equal(len, strlen(STR_MOV));
	assert_ptr_equal(text, (const char *)extra_bytes(&t, h_str_mov + 2));
	/* row 1 shares the string: the same bytes */
	assert_int_equal(umt_ins_disasm(tr, 1, &text1, &len), 0);
	assert_ptr_equal(text1, text);
	assert_int_equal(umt_ins_disasm(tr, 2, &text, &len), 0);
	assert_string_equal(text, "nop");
	assert_int_equal(len, 3);
	assert_int_equal(umt_ins_disasm(tr, 3, &text, &len), 0);
	assert_string_equal(text, "rep movsb byte ptr [rdi], byte ptr [rsi]");
	assert_int_equal(umt_ins_disasm(tr, 4, &text, &len), UMT_E_RANGE);
	assert_int_equal(umt_ins_disasm(tr, 0, NULL, &len), UMT_E_INVAL);
	assert_int_equal(umt_ins_disasm(NULL, 0, &text, &len), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- hand-assembled: decoded instructions ----------------------------------- */

static void test_hand_decoded_mov(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 1);
	umt_trace *tr = fx_must_open(&t);
	umt_decoded d;
	assert_int_equal(umt_ins_decoded(tr, 0, &d), 0);
	assert_ptr_equal((const void *)d.ins, extra_bytes(&t, h_dec_mov));
	assert_ptr_equal((const void *)d.slots, extra_bytes(&t, h_dec_mov + 88));
	assert_int_equal(d.ins_id, 0);
	assert_int_equal(d.offset, H_EXTRA + h_dec_mov);
	const umt_decoded_ins *i = d.ins;
	assert_int_equal(i->Category, 0x0b);
	assert_int_equal(i->Mnemonic, 0x1b1);
	assert_int_equal(i->Form, 0x2c0);
	assert_int_equal(i->Flags, 0x18);
	assert_int_equal(i->ExpCount, 2);
	assert_int_equal(i->EffOperSize, 4);
	assert_int_equal(i->EffAddrSize, 8);
	assert_int_equal(i->LCSize, 44);
	assert_int_equal(i->FirstOutSlot, 3);
	assert_int_equal(i->FirstAfterSlot, 4);
	assert_int_equal(i->LCCount, 5);
	assert_int_equal(i->Mem0SegSlot, NA);
	assert_int_equal(i->Mem0BaseSlot, 0);
	assert_int_equal(i->Mem0Scale, 4);
	assert_int_equal(i->Mem0IndexSlot, 1);
	assert_int_equal(i->Mem1BaseSlot, NA);
	assert_int_equal(i->ConstSlot[0], 0x10);
	assert_int_equal(i->ConstSlot[1], 0);
	assert_int_equal(umt_decoded_is_32in64(&d), 1);
	assert_int_equal(umt_decoded_reads_memory(&d), 1);
	assert_int_equal(umt_decoded_writes_memory(&d), 0);
	assert_int_equal(umt_decoded_is_rep(&d), 0);

	/* explicit operands: only the first ExpCount */
	const umt_exp_oper *o = umt_decoded_operand(&d, 0);
	assert_non_null(o);
	assert_int_equal(o->RegName, EAX);
	assert_int_equal(o->Size, 4);
	assert_int_equal(o->Flags, UMT_OPER_F_WRITE);
	assert_int_equal(o->BeforeSlot, 3);
	assert_int_equal(o->AfterSlot, 4);
	assert_int_equal(o->BeforeOffset, 0);
	o = umt_decoded_operand(&d, 1);
	assert_non_null(o);
	assert_int_equal((uint16_t)o->RegName, MEM0);
	assert_int_equal(o->Flags, UMT_OPER_F_READ);
	assert_int_equal(o->BeforeSlot, 2);
	assert_int_equal(o->AfterSlot, UMT_SLOT_NA);
	assert_int_equal(o->BeforeOffset, 8);
	assert_null(umt_decoded_operand(&d, 2));
	assert_null(umt_decoded_operand(&d, 3));
	assert_null(umt_decoded_operand(NULL, 0));

	/* slots and their groups from FirstOutSlot 3 and FirstAfterSlot 4 */
	static const struct { uint16_t reg, common, size, off; uint8_t aw; int group; } s[5] = {
		{RBX, BX, 8, 0, 0, UMT_SLOT_GROUP_BEFORE},
		{RCX, CX, 8, 8, 0, UMT_SLOT_GROUP_BEFORE},
		{MEM0, MEM0, 4, 16, 8, UMT_SLOT_GROUP_BEFORE},
		{RAX, AX, 8, 28, 0, UMT_SLOT_GROUP_BEFORE_WRITE_ONLY},
		{RAX, AX, 8, 36, 0, UMT_SLOT_GROUP_AFTER},
	};
	for (unsigned k = 0; k < 5; k++) {
		const umt_lc_slot *sl = umt_decoded_slot(&d, k);
		assert_ptr_equal(sl, &d.slots[k]);
		assert_int_equal((uint16_t)sl->RegName, s[k].reg);
		assert_int_equal((uint16_t)sl->CommonRegName, s[k].common);
		assert_int_equal(sl->ValueSize, s[k].size);
		assert_int_equal(sl->Offset, s[k].off);
		assert_int_equal(sl->AddrWidth, s[k].aw);
		assert_int_equal(umt_decoded_slot_group(&d, k), s[k].group);
	}
	assert_null(umt_decoded_slot(&d, 5));
	assert_int_equal(umt_decoded_slot_group(&d, 5), UMT_E_RANGE);
	assert_int_equal(umt_decoded_slot_group(NULL, 0), UMT_E_INVAL);

	/* row 1 shares the body: same pointers, its own ID */
	umt_decoded d1;
	assert_int_equal(umt_ins_decoded(tr, 1, &d1), 0);
	assert_ptr_equal(d1.ins, d.ins);
	assert_ptr_equal(d1.slots, d.slots);
	assert_int_equal(d1.ins_id, 1);

	assert_int_equal(umt_ins_decoded(tr, H_ROWS, &d), UMT_E_RANGE);
	assert_int_equal(umt_ins_decoded(tr, 0, NULL), UMT_E_INVAL);
	assert_int_equal(umt_ins_decoded(NULL, 0, &d), UMT_E_INVAL);
	umt_trace_close(tr);
	fx_free(&t);
}

static void test_hand_decoded_movsb_nop(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 0);
	umt_trace *tr = fx_must_open(&t);
	assert_int_equal(umt_ins_slot_name_kind(tr), UMT_SLOT_LARGEST_ENCLOSING);
	umt_decoded d;
	assert_int_equal(umt_ins_decoded(tr, 3, &d), 0);
	const umt_decoded_ins *i = d.ins;
	assert_int_equal(i->Category, 0x35);
	assert_int_equal(i->Mnemonic, 0x1c5);
	assert_int_equal(i->Form, 0x4b0);
	assert_int_equal(i->LCSize, 75);
	assert_int_equal(i->LCCount, 9);
	/* Mem1BaseSlot at 67 (0) is not Mem0Scale at 65 (0) nor Mem0IndexSlot at 66 */
	assert_int_equal(i->Mem0BaseSlot, 1);
	assert_int_equal(i->Mem0Scale, 0);
	assert_int_equal(i->Mem0IndexSlot, NA);
	assert_int_equal(i->Mem1BaseSlot, 0);
	assert_int_equal(umt_decoded_is_rep(&d), 1);
	assert_int_equal(umt_decoded_is_repne(&d), 0);
	assert_int_equal(umt_decoded_is_lock(&d), 0);
	assert_int_equal(umt_decoded_is_32in64(&d), 0);
	assert_int_equal(umt_decoded_reads_memory(&d), 1);
	assert_int_equal(umt_decoded_writes_memory(&d), 1);
	assert_int_equal((uint16_t)umt_decoded_operand(&d, 0)->RegName, MEM0);
	assert_int_equal((uint16_t)umt_decoded_operand(&d, 1)->RegName, MEM1);
	static const int groups[9] = {0, 0, 0, 0, 1, 2, 2, 2, 2};
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(umt_decoded_slot_group(&d, k), groups[k]);
	assert_int_equal(d.slots[4].Offset, 33); /* unaligned slots read fine */
	assert_int_equal(d.slots[8].Offset, 67);

	/* nop: no operand, no slot */
	assert_int_equal(umt_ins_decoded(tr, 2, &d), 0);
	assert_int_equal(d.ins->ExpCount, 0);
	assert_int_equal(d.ins->LCCount, 0);
	assert_int_equal(d.ins->LCSize, 0);
	assert_null(umt_decoded_operand(&d, 0));
	assert_null(umt_decoded_slot(&d, 0));
	assert_int_equal(umt_decoded_slot_group(&d, 0), UMT_E_RANGE);

	/* every Flags bit reaches exactly its helper (Flags is read live) */
	uint8_t *flags = extra_bytes(&t, h_dec_nop + 6);
	int (*const helper[6])(const umt_decoded *) = {
		umt_decoded_is_rep, umt_decoded_is_repne, umt_decoded_is_lock,
		umt_decoded_is_32in64, umt_decoded_reads_memory, umt_decoded_writes_memory};
	for (int bit = 0; bit < 6; bit++) {
		*flags = (uint8_t)(1u << bit);
		for (int h = 0; h < 6; h++)
			assert_int_equal(helper[h](&d), h == bit);
	}
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- error paths --------------------------------------------------------------- */

typedef void (*corrupt_fn)(struct fx_trace *t);

/* Builds the table, corrupts it, opens it and returns the trace. */
static umt_trace *open_corrupt(struct fx_trace *t, corrupt_fn f)
{
	fx_handmade(t);
	build_ins(t, 1);
	f(t);
	return fx_must_open(t);
}

/* Asserts @p rc is @p code with a message naming ins.itable, @p row and @p what. */
static void expect(int rc, int code, const char *row, const char *what)
{
	if (rc != code || strstr(umt_errmsg(), row) == NULL || strstr(umt_errmsg(), what) == NULL)
		print_error("expected %d (%s, %s), got %d: %s\n", code, row, what, rc,
		            umt_errmsg());
	assert_int_equal(rc, code);
	assert_non_null(strstr(umt_errmsg(), "ins.itable: "));
	assert_non_null(strstr(umt_errmsg(), row));
	assert_non_null(strstr(umt_errmsg(), what));
}

static void expect_decoded(corrupt_fn f, uint64_t id, int code, const char *row,
                           const char *what)
{
	struct fx_trace t;
	umt_trace *tr = open_corrupt(&t, f);
	umt_decoded d;
	expect(umt_ins_decoded(tr, id, &d), code, row, what);
	/* a failed row is not remembered as checked */
	expect(umt_ins_decoded(tr, id, &d), code, row, what);
	umt_trace_close(tr);
	fx_free(&t);
}

static void c_decoded_fp_past(struct fx_trace *t)
{
	fx_put64(row_bytes(t, 2) + 48, h_extra_size - 87); /* 88 bytes no longer fit */
}
static void c_decoded_fp_negative(struct fx_trace *t)
{
	fx_put64(row_bytes(t, 2) + 48, (uint64_t)-8);
}
static void c_lc_count(struct fx_trace *t)
{
	extra_bytes(t, h_dec_movsb)[62] = 10; /* one slot more than the area holds */
}
static void c_slot_fc(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[8 + 12 + 5] = 0xfc; /* operand 1 BeforeSlot */
}
static void c_after_slot(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[8 + 6] = 5; /* operand 0 AfterSlot == LCCount */
}
static void c_mem0_base_fc(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[64] = 0xfc;
}
static void c_mem1_base(struct fx_trace *t)
{
	extra_bytes(t, h_dec_movsb)[67] = 9;
}
static void c_exp_count(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[7] = 5;
}
static void c_slot_past_lcsize(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_dec_mov) + 88 + 4 * 12 + 6, 37); /* slot 4: 37 + 8 > 44 */
}
static void c_mem_slot_past_lcsize(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_dec_mov) + 88 + 2 * 12 + 4, 21); /* slot 2: 16 + 8 + 21 > 44 */
}
static void c_value_size_negative(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_dec_mov) + 88 + 4, 0xffff);
}
static void c_addr_width(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[88 + 2 * 12 + 8] = 9;
}
static void c_scale(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[65] = 3;
}
static void c_first_out(struct fx_trace *t)
{
	extra_bytes(t, h_dec_mov)[60] = 5; /* FirstOutSlot 5 > FirstAfterSlot 4 */
}
static void c_first_after(struct fx_trace *t)
{
	uint8_t *d = extra_bytes(t, h_dec_mov);
	d[60] = 6;
	d[61] = 6; /* > LCCount 5 */
}
static void c_operand_past(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_dec_mov) + 20 + 2, 21); /* MEM0 operand: 16 + 8 + 21 > 44 */
}
static void c_operand_size_negative(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_dec_mov) + 8 + 2, 0x8000);
}

static void test_decoded_errors(void **state)
{
	(void)state;
	char mov_at[64], movsb_at[64], nop_row[64];
	/* messages give the file offset of the bad field */
	snprintf(nop_row, sizeof nop_row, "row 2 at offset 0x%x:", H_TABLE + 2 * H_ROW + 48);
	expect_decoded(c_decoded_fp_past, 2, UMT_E_BOUNDS, nop_row, "DecodedFP");
	expect_decoded(c_decoded_fp_negative, 2, UMT_E_BOUNDS, nop_row, "DecodedFP");
	snprintf(movsb_at, sizeof movsb_at, "row 3 at offset 0x%zx:", H_EXTRA + h_dec_movsb + 62);
	expect_decoded(c_lc_count, 3, UMT_E_BOUNDS, movsb_at, "slots");
	snprintf(mov_at, sizeof mov_at, "row 0 at offset 0x%zx:", H_EXTRA + h_dec_mov + 25);
	expect_decoded(c_slot_fc, 0, UMT_E_BOUNDS, mov_at, "BeforeSlot 0xfc");
	/* the shared body fails for every row that uses it */
	snprintf(mov_at, sizeof mov_at, "row 1 at offset 0x%zx:", H_EXTRA + h_dec_mov + 25);
	expect_decoded(c_slot_fc, 1, UMT_E_BOUNDS, mov_at, "BeforeSlot 0xfc");
	expect_decoded(c_after_slot, 0, UMT_E_BOUNDS, "row 0 at", "AfterSlot 0x05");
	expect_decoded(c_mem0_base_fc, 0, UMT_E_BOUNDS, "row 0 at", "Mem0BaseSlot 0xfc");
	snprintf(movsb_at, sizeof movsb_at, "row 3 at offset 0x%zx:", H_EXTRA + h_dec_movsb + 67);
	expect_decoded(c_mem1_base, 3, UMT_E_BOUNDS, movsb_at, "Mem1BaseSlot 0x09");
	snprintf(mov_at, sizeof mov_at, "row 0 at offset 0x%zx:", H_EXTRA + h_dec_mov + 7);
	expect_decoded(c_exp_count, 0, UMT_E_BOUNDS, mov_at, "ExpCount 5");
	expect_decoded(c_slot_past_lcsize, 0, UMT_E_BOUNDS, "row 0 at", "slot 4: Offset 37");
	expect_decoded(c_mem_slot_past_lcsize, 0, UMT_E_BOUNDS, "row 0 at", "slot 2: Offset 16");
	expect_decoded(c_value_size_negative, 0, UMT_E_BOUNDS, "row 0 at", "slot 0");
	snprintf(mov_at, sizeof mov_at, "row 0 at offset 0x%zx:", H_EXTRA + h_dec_mov + 88 + 32);
	expect_decoded(c_addr_width, 0, UMT_E_CORRUPT, mov_at, "AddrWidth 9");
	expect_decoded(c_scale, 0, UMT_E_CORRUPT, "row 0 at", "Mem0Scale 3");
	expect_decoded(c_first_out, 0, UMT_E_CORRUPT, "row 0 at", "FirstOutSlot 5");
	expect_decoded(c_first_after, 0, UMT_E_BOUNDS, "row 0 at", "FirstAfterSlot 6");
	expect_decoded(c_operand_past, 0, UMT_E_BOUNDS, "row 0 at", "operand 1");
	expect_decoded(c_operand_size_negative, 0, UMT_E_BOUNDS, "row 0 at", "operand 0");
}

static void c_code_size(struct fx_trace *t)
{
	row_bytes(t, 3)[10] = 16;
}
static void c_disasm_negative(struct fx_trace *t)
{
	fx_put64(row_bytes(t, 2) + 40, (uint64_t)-1);
}
static void c_disasm_past(struct fx_trace *t)
{
	fx_put64(row_bytes(t, 2) + 40, h_extra_size - 1); /* not even the Length fits */
}
static void c_cstr_length(struct fx_trace *t)
{
	/* the last string before the bodies claims to run to the end and beyond */
	fx_put16(extra_bytes(t, h_str_movsb), (uint16_t)(h_extra_size - h_str_movsb - 2));
}
static void c_cstr_length_negative(struct fx_trace *t)
{
	fx_put16(extra_bytes(t, h_str_nop), 0xfffe);
}
static void c_cstr_no_nul(struct fx_trace *t)
{
	extra_bytes(t, h_str_nop)[2 + 3] = 'x'; /* "nopx", Length 3 */
}
static void c_cstr_inner_nul(struct fx_trace *t)
{
	extra_bytes(t, h_str_nop)[2 + 1] = '\0';
}

static void test_row_errors(void **state)
{
	(void)state;
	struct fx_trace t;
	const uint8_t *code;
	unsigned size;
	const char *text;
	size_t len;
	char at[64];

	umt_trace *tr = open_corrupt(&t, c_code_size);
	snprintf(at, sizeof at, "row 3 at offset 0x%x:", H_TABLE + 3 * H_ROW + 10);
	expect(umt_ins_code(tr, 3, &code, &size), UMT_E_BOUNDS, at, "CodeSize 16");
	assert_int_equal(umt_ins_code(tr, 2, &code, &size), 0);
	umt_trace_close(tr);
	fx_free(&t);

	snprintf(at, sizeof at, "row 2 at offset 0x%x:", H_TABLE + 2 * H_ROW + 40);
	tr = open_corrupt(&t, c_disasm_negative);
	expect(umt_ins_disasm(tr, 2, &text, &len), UMT_E_BOUNDS, at, "DisasmFP");
	assert_int_equal(umt_ins_disasm(tr, 0, &text, &len), 0);
	umt_trace_close(tr);
	fx_free(&t);

	tr = open_corrupt(&t, c_disasm_past);
	expect(umt_ins_disasm(tr, 2, &text, &len), UMT_E_BOUNDS, at, "DisasmFP");
	umt_trace_close(tr);
	fx_free(&t);

	tr = open_corrupt(&t, c_cstr_length);
	snprintf(at, sizeof at, "row 3 at offset 0x%zx:", H_EXTRA + h_str_movsb);
	expect(umt_ins_disasm(tr, 3, &text, &len), UMT_E_BOUNDS, at, "runs past the extra area");
	umt_trace_close(tr);
	fx_free(&t);

	snprintf(at, sizeof at, "row 2 at offset 0x%zx:", H_EXTRA + h_str_nop);
	tr = open_corrupt(&t, c_cstr_length_negative);
	expect(umt_ins_disasm(tr, 2, &text, &len), UMT_E_BOUNDS, at, "Length -2");
	umt_trace_close(tr);
	fx_free(&t);

	tr = open_corrupt(&t, c_cstr_no_nul);
	expect(umt_ins_disasm(tr, 2, &text, &len), UMT_E_CORRUPT, at, "NUL");
	umt_trace_close(tr);
	fx_free(&t);

	tr = open_corrupt(&t, c_cstr_inner_nul);
	expect(umt_ins_disasm(tr, 2, &text, &len), UMT_E_CORRUPT, at, "NUL");
	umt_trace_close(tr);
	fx_free(&t);
}

/* The full check runs once per row: later calls do not look at the body again. */
static void test_checked_once(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 1);
	umt_trace *tr = fx_must_open(&t);
	umt_decoded d;
	assert_int_equal(umt_ins_decoded(tr, 0, &d), 0);
	/* The buffers are not copied: break the shared body behind the reader's back. */
	extra_bytes(&t, h_dec_mov)[7] = 5;
	assert_int_equal(umt_ins_decoded(tr, 0, &d), 0); /* row 0: remembered */
	expect(umt_ins_decoded(tr, 1, &d), UMT_E_BOUNDS, "row 1 at", "ExpCount 5"); /* not yet */
	extra_bytes(&t, h_dec_mov)[7] = 2;
	assert_int_equal(umt_ins_decoded(tr, 1, &d), 0);
	umt_trace_close(tr);
	fx_free(&t);
}

struct race {
	umt_trace *tr;
	int failures;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	for (int round = 0; round < 200; round++)
		for (uint64_t id = 0; id < H_ROWS; id++) {
			umt_decoded d;
			if (umt_ins_decoded(r->tr, id, &d) != 0 || d.ins_id != id)
				r->failures++;
		}
	return NULL;
}

/* Several threads race to allocate the bitmap and set bits of the same words. */
static void test_threads(void **state)
{
	(void)state;
	struct fx_trace t;
	fx_handmade(&t);
	build_ins(&t, 1);
	umt_trace *tr = fx_must_open(&t);
	pthread_t th[4];
	struct race r[4];
	for (int i = 0; i < 4; i++) {
		r[i] = (struct race){tr, 0};
		assert_int_equal(pthread_create(&th[i], NULL, race_thread, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(r[i].failures, 0);
	}
	umt_trace_close(tr);
	fx_free(&t);
}

/* ---- the writer-built standard trace ---------------------------------------- */

static umt_trace *open_std(int flavour, char **dir)
{
	*dir = fx_tmpdir();
	assert_int_equal(fx_write_standard(*dir, flavour), 0);
	umt_trace *tr = NULL;
	assert_int_equal(umt_trace_open(*dir, 0, &tr), 0);
	return tr;
}

static void test_std(void **state)
{
	(void)state;
	char *dir;
	umt_trace *tr = open_std(UMT_FLAVOUR_2015, &dir);
	assert_int_equal(umt_ins_count(tr), STD_INS);
	assert_int_equal(umt_ins_slot_name_kind(tr), UMT_SLOT_COMMON_REG_NAME);
	static const uint8_t code_size[STD_INS] = {5, 1, 4, 1, 1};
	for (uint64_t i = 0; i < STD_INS; i++) {
		const umt_ins_rec *r;
		assert_int_equal(umt_ins_get(tr, i, &r), 0);
		assert_int_equal(r->ID, (int64_t)i);
		assert_int_equal(r->Type, i >= 3 ? UMT_INS_NOP : UMT_INS_NORMAL);
		assert_int_equal(r->CSis64Bits, 1);
		assert_int_equal(r->ModuleID, i < 4 ? 0 : -1);
		assert_int_equal(r->Address, std_ins_addr[i]);
		const uint8_t *code;
		unsigned size;
		assert_int_equal(umt_ins_code(tr, i, &code, &size), 0);
		assert_int_equal(size, code_size[i]);
		const char *text;
		size_t len;
		assert_int_equal(umt_ins_disasm(tr, i, &text, &len), 0);
		assert_string_equal(text, std_ins_disasm[i]);
		assert_int_equal(len, strlen(std_ins_disasm[i]));
		umt_decoded d;
		assert_int_equal(umt_ins_decoded(tr, i, &d), 0);
		assert_int_equal(d.ins->LCSize, std_ins_lc_size[i]);
	}
	const uint8_t *code;
	unsigned size;
	assert_int_equal(umt_ins_code(tr, 0, &code, &size), 0);
	assert_memory_equal(code, "\x48\x8b\x44\x8b\x10", 5);

	/* the two nops share one body and one string */
	umt_decoded d3, d4;
	const char *s3, *s4;
	size_t len;
	assert_int_equal(umt_ins_decoded(tr, 3, &d3), 0);
	assert_int_equal(umt_ins_decoded(tr, 4, &d4), 0);
	assert_ptr_equal(d3.ins, d4.ins);
	assert_int_equal(d3.offset, d4.offset);
	assert_int_equal(umt_ins_disasm(tr, 3, &s3, &len), 0);
	assert_int_equal(umt_ins_disasm(tr, 4, &s4, &len), 0);
	assert_ptr_equal(s3, s4);
	assert_int_equal(d3.ins->Mnemonic, 0x1f0);
	assert_int_equal(d3.ins->ExpCount, 0);
	assert_int_equal(d3.ins->LCCount, 0);

	/* mov rax, qword ptr [rbx+rcx*4+0x10]: every field */
	umt_decoded d;
	assert_int_equal(umt_ins_decoded(tr, 0, &d), 0);
	assert_int_equal(d.ins->Category, 1);
	assert_int_equal(d.ins->Mnemonic, 0x1b1);
	assert_int_equal(d.ins->Form, 0x1b1 * 4);
	assert_int_equal(d.ins->Flags, UMT_DEC_F_READS_MEM);
	assert_int_equal(d.ins->ExpCount, 2);
	assert_int_equal(d.ins->EffOperSize, 8);
	assert_int_equal(d.ins->EffAddrSize, 8);
	assert_int_equal(d.ins->FirstOutSlot, 3);
	assert_int_equal(d.ins->FirstAfterSlot, 4);
	assert_int_equal(d.ins->LCCount, 5);
	assert_int_equal(d.ins->Mem0SegSlot, NA);
	assert_int_equal(d.ins->Mem0BaseSlot, 0);
	assert_int_equal(d.ins->Mem0Scale, 4);
	assert_int_equal(d.ins->Mem0IndexSlot, 1);
	assert_int_equal(d.ins->Mem1BaseSlot, NA);
	assert_int_equal(d.ins->ConstSlot[0], 0x10);
	assert_int_equal(umt_decoded_operand(&d, 0)->RegName, RAX);
	assert_int_equal((uint16_t)umt_decoded_operand(&d, 1)->RegName, MEM0);
	assert_null(umt_decoded_operand(&d, 2));
	static const int mov_groups[5] = {0, 0, 0, 1, 2};
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(umt_decoded_slot_group(&d, k), mov_groups[k]);
	assert_int_equal(d.slots[2].AddrWidth, 8);
	assert_int_equal(d.slots[2].Offset, 16);

	/* push rbp: STACKPUSH slot in the after group (FirstOutSlot = FirstAfterSlot = 2) */
	assert_int_equal(umt_ins_decoded(tr, 1, &d), 0);
	static const int push_groups[4] = {0, 0, 2, 2};
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(umt_decoded_slot_group(&d, k), push_groups[k]);
	assert_int_equal(d.slots[2].RegName, 131);
	assert_int_equal(umt_decoded_writes_memory(&d), 1);

	/* lea rdx, [rax+8]: AGEN slot without address */
	assert_int_equal(umt_ins_decoded(tr, 2, &d), 0);
	assert_int_equal((uint16_t)d.slots[1].RegName, 0xfffd);
	assert_int_equal(d.slots[1].AddrWidth, 0);
	assert_int_equal(d.ins->ConstSlot[0], 8);
	static const int lea_groups[4] = {0, 0, 1, 2};
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(umt_decoded_slot_group(&d, k), lea_groups[k]);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);

	tr = open_std(UMT_FLAVOUR_2014, &dir);
	assert_int_equal(umt_ins_slot_name_kind(tr), UMT_SLOT_LARGEST_ENCLOSING);
	assert_int_equal(umt_ins_decoded(tr, 0, &d), 0);
	assert_int_equal(d.ins->LCCount, 5);
	umt_trace_close(tr);
	fx_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_rows),
		cmocka_unit_test(test_hand_disasm),
		cmocka_unit_test(test_hand_decoded_mov),
		cmocka_unit_test(test_hand_decoded_movsb_nop),
		cmocka_unit_test(test_decoded_errors),
		cmocka_unit_test(test_row_errors),
		cmocka_unit_test(test_checked_once),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_std),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
