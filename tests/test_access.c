/*
 * access.c: the memory accesses of a record, and what incomplete records'
 * flags mean for them.
 *
 * The trace is written here through the public writer with decoded bodies
 * and local contexts laid out by hand, so every expected address, size,
 * kind and value below comes from the bytes this file put there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"

enum { RAX = 74, RCX, RDX, RBX, RSP, RBP, RSI, RDI, STACKPUSH = 131,
       MEM0 = 0xffff, MEM1 = 0xfffe, AGEN = 0xfffd, NA = 0xff };

struct sdef { uint16_t reg, size, off; uint8_t aw; };
struct idef {
	const char *text;
	uint8_t first_out, first_after, count;
	uint16_t lc_size;
	struct sdef s[6];
};

/* Rows of the test's instruction table. */
enum { STORE, LOAD32, PUSH, LEA, MOVSB, FOUR, N_ROWS };
static const struct idef rows[N_ROWS] = {
	/* mov qword ptr [rax+8], rbx: before rax, rbx; write-only MEM0; after MEM0 */
	[STORE] = {"mov qword ptr [rax+0x8], rbx", 2, 3, 4, 48,
	           {{RAX, 8, 0, 0}, {RBX, 8, 8, 0}, {MEM0, 8, 16, 8}, {MEM0, 8, 32, 8}}},
	/* mov ecx, dword ptr [eax]: a 4-byte address (32-bit code) */
	[LOAD32] = {"mov ecx, dword ptr [eax]", 2, 2, 4, 36,
	            {{RAX, 8, 0, 0}, {MEM0, 4, 8, 4}, {RCX, 8, 20, 0}, {RCX, 8, 28, 0}}},
	[PUSH] = {"push rbx", 2, 3, 5, 56,
	          {{RBX, 8, 0, 0}, {RSP, 8, 8, 0}, {STACKPUSH, 8, 16, 8}, {STACKPUSH, 8, 32, 8},
	           {RSP, 8, 48, 0}}},
	[LEA] = {"lea rdx, ptr [rax+0x10]", 2, 2, 3, 24,
	         {{RAX, 8, 0, 0}, {AGEN, 8, 8, 0}, {RDX, 8, 16, 0}}},
	/* movsb: read MEM0 [rsi], write-only MEM1 [rdi] and its after value */
	[MOVSB] = {"movsb byte ptr [rdi], byte ptr [rsi]", 1, 2, 3, 27,
	           {{MEM0, 1, 0, 8}, {MEM1, 1, 9, 8}, {MEM1, 1, 18, 8}}},
	/* four memory slots: more than a row's remembered plan holds */
	[FOUR] = {"four", 2, 3, 5, 58,
	          {{MEM0, 2, 0, 8}, {MEM1, 2, 10, 8}, {RAX, 8, 20, 0}, {MEM0, 2, 28, 8},
	           {MEM1, 2, 38, 8}}},
};

/* An LC memory slot's bytes: an 8-byte address then the value. */
static void put_mem(uint8_t *lc, uint16_t off, uint64_t address, uint8_t first, unsigned n)
{
	memcpy(lc + off, &address, 8);
	for (unsigned i = 0; i < n; i++)
		lc[off + 8 + i] = (uint8_t)(first + i);
}

static int64_t add_row(umt_writer *w, const struct idef *d)
{
	umt_decoded_ins dec;
	umt_lc_slot s[6];
	memset(&dec, 0, sizeof dec);
	memset(s, 0, sizeof s);
	dec.LCSize = d->lc_size;
	dec.FirstOutSlot = d->first_out;
	dec.FirstAfterSlot = d->first_after;
	dec.LCCount = d->count;
	dec.Mem0SegSlot = dec.Mem0BaseSlot = dec.Mem0IndexSlot = dec.Mem1BaseSlot = NA;
	for (unsigned i = 0; i < d->count; i++) {
		s[i].RegName = (int16_t)d->s[i].reg;
		s[i].CommonRegName = (int16_t)d->s[i].reg;
		s[i].ValueSize = (int16_t)d->s[i].size;
		s[i].Offset = d->s[i].off;
		s[i].AddrWidth = d->s[i].aw;
	}
	return fx_must_add_row(w, &dec, s, d->text, 1, 0x401000);
}

static void add_ins(umt_writer *w, int64_t row, uint8_t flags, const uint8_t *lc, uint16_t n)
{
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_INSTRUCTION;
	e.flags = flags;
	e.ins_id = row;
	e.lc = lc;
	e.lc_size = n;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
}

/* Records of the test trace: which row and flags, in record order. */
static const struct { int row; uint8_t flags; } recs[] = {
	{STORE, 0x01}, {LOAD32, 0x00}, {PUSH, 0x01}, {LEA, 0x01}, {MOVSB, 0x01},
	{FOUR, 0x01}, {FOUR, 0x01},                                 /* 5, 6: one row twice */
	{STORE, 0x21}, {STORE, 0x11}, {STORE, 0x41}, {STORE, 0x81}, /* 7-10: flagged */
	{STORE, 0x05},                                              /* 11: condition false */
};
/* then a syscall exit with two context blocks, then a thread end */
#define N_INS_RECS (sizeof recs / sizeof recs[0])

/* The LC of record @p i: memory slots hold address 0x1000 * (i + 1) + slot offset. */
static void make_lc(unsigned i, uint8_t *lc)
{
	const struct idef *d = &rows[recs[i].row];
	memset(lc, 0xee, 64);
	for (unsigned k = 0; k < d->count; k++)
		if (d->s[k].aw)
			put_mem(lc, d->s[k].off, 0x1000u * (i + 1) + d->s[k].off +
			                         (d->s[k].aw == 4 ? 0xabcd000000000000ull : 0),
			        (uint8_t)(0x10 * k + i), d->s[k].size);
}

static const uint8_t block_a[3] = {1, 2, 3};
static uint8_t block_b[5000];

/* Writes the test trace (flavour @p flavour) into @p dir. */
static void write_trace(const char *dir, int flavour)
{
	umt_writer_options o;
	umt_writer_options_init(&o, flavour);
	umt_writer *w;
	assert_int_equal(umt_writer_open(dir, &o, &w), 0);
	int32_t tid;
	assert_int_equal(umt_writer_add_thread(w, 0x40, 0x7ffde000, &tid), 0);
	int64_t row_id[N_ROWS];
	for (int r = 0; r < N_ROWS; r++)
		row_id[r] = add_row(w, &rows[r]);
	for (unsigned i = 0; i < N_INS_RECS; i++) {
		uint8_t lc[64];
		make_lc(i, lc);
		add_ins(w, row_id[recs[i].row], recs[i].flags, lc, rows[recs[i].row].lc_size);
	}
	for (size_t i = 0; i < sizeof block_b; i++)
		block_b[i] = (uint8_t)(i * 7);
	umt_mem_ref mem[2] = {{0x7ffde000, sizeof block_a, block_a},
	                      {0x20000, sizeof block_b, block_b}};
	umt_context_desc c = {NULL, 0, mem, 2};
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_SYSCALL_EXIT;
	e.flags = 0x01;
	e.syscall_id = -1;
	e.context = &c;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_THREAD_END;
	e.flags = 0x01;
	assert_int_equal(umt_writer_add_exec(w, &e, NULL), 0);
	assert_int_equal(umt_writer_finish(w), 0);
}

struct fx {
	char *dir;
	umt_trace *t;
	int flavour;
};

static int setup(void **state, int flavour)
{
	struct fx *f = calloc(1, sizeof *f);
	f->dir = fx_tmpdir();
	f->flavour = flavour;
	write_trace(f->dir, flavour);
	f->t = fx_must_open_dir(f->dir);
	*state = f;
	return 0;
}
static int setup_2015(void **state) { return setup(state, UMT_FLAVOUR_2015); }
static int setup_2014(void **state) { return setup(state, UMT_FLAVOUR_2014); }

static int teardown(void **state)
{
	struct fx *f = *state;
	umt_trace_close(f->t);
	fx_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* Every access of record @p id with kinds @p kinds, into out[] (at most 8). */
static int accesses(umt_trace *t, uint64_t id, unsigned kinds, umt_access *out)
{
	umt_rec r;
	umt_access_iter it;
	assert_int_equal(umt_exec_get(t, id, &r), 0);
	assert_int_equal(umt_access_iter_init(&it, t, &r, kinds), 0);
	int n = 0, rc;
	while ((rc = umt_access_iter_next(&it, &out[n])) == 1)
		assert_true(++n <= 8);
	assert_int_equal(rc, 0);
	return n;
}

/* Checks one access against the bytes make_lc() put in record @p rec's slot @p slot. */
static void expect_slot(const umt_access *a, unsigned rec, unsigned slot, unsigned kind,
                        unsigned trust)
{
	const struct sdef *s = &rows[recs[rec].row].s[slot];
	uint64_t address = 0x1000u * (rec + 1) + s->off;
	assert_int_equal(a->record_id, rec);
	assert_int_equal(a->thread_id, 0);
	assert_int_equal(a->locator, slot);
	assert_int_equal(a->address, address);
	assert_int_equal(a->size, s->size);
	assert_int_equal(a->kind, kind);
	assert_int_equal(a->trust, trust);
	assert_int_equal(a->phase, kind == UMT_ACCESS_WRITE ? 1 : (slot >= rows[recs[rec].row].first_after));
	assert_int_equal(a->reg_name, (int16_t)s->reg);
	for (unsigned i = 0; i < s->size; i++)
		assert_int_equal(a->data[i], (uint8_t)(0x10 * slot + rec + i));
}

#define BOTH (UMT_TRUST_ADDRESS | UMT_TRUST_VALUE)

static void test_store_push_movsb(void **state)
{
	struct fx *f = *state;
	umt_access a[8];
	assert_int_equal(accesses(f->t, 0, UMT_ACCESS_ALL, a), 2);
	expect_slot(&a[0], 0, 2, UMT_ACCESS_PEEK, BOTH);
	expect_slot(&a[1], 0, 3, UMT_ACCESS_WRITE, BOTH);
	assert_int_equal(accesses(f->t, 2, UMT_ACCESS_ALL, a), 2);
	expect_slot(&a[0], 2, 2, UMT_ACCESS_PEEK, BOTH);
	expect_slot(&a[1], 2, 3, UMT_ACCESS_WRITE, BOTH);
	assert_int_equal(accesses(f->t, 4, UMT_ACCESS_ALL, a), 3);
	expect_slot(&a[0], 4, 0, UMT_ACCESS_READ, BOTH);
	expect_slot(&a[1], 4, 1, UMT_ACCESS_PEEK, BOTH);
	expect_slot(&a[2], 4, 2, UMT_ACCESS_WRITE, BOTH);
	/* kinds filter */
	assert_int_equal(accesses(f->t, 4, UMT_ACCESS_WRITE, a), 1);
	expect_slot(&a[0], 4, 2, UMT_ACCESS_WRITE, BOTH);
	assert_int_equal(accesses(f->t, 4, UMT_ACCESS_READ | UMT_ACCESS_CONTEXT, a), 1);
	expect_slot(&a[0], 4, 0, UMT_ACCESS_READ, BOTH);
}

static void test_address_width_and_agen(void **state)
{
	struct fx *f = *state;
	umt_access a[8];
	/* AddrWidth 4: the high bytes stored (0xabcd...) are not part of the address */
	assert_int_equal(accesses(f->t, 1, UMT_ACCESS_ALL, a), 1);
	expect_slot(&a[0], 1, 1, UMT_ACCESS_READ, BOTH);
	assert_int_equal(a[0].addr_width, 4);
	/* lea: an AGEN slot is an address, not an access */
	assert_int_equal(accesses(f->t, 3, UMT_ACCESS_ALL, a), 0);
}

static void test_many_memory_slots(void **state)
{
	struct fx *f = *state;
	umt_access a[8];
	/* twice: the first call remembers the row, the second reads it back */
	for (unsigned rec = 5; rec <= 6; rec++) {
		assert_int_equal(accesses(f->t, rec, UMT_ACCESS_ALL, a), 4);
		expect_slot(&a[0], rec, 0, UMT_ACCESS_READ, BOTH);
		expect_slot(&a[1], rec, 1, UMT_ACCESS_READ, BOTH);
		expect_slot(&a[2], rec, 3, UMT_ACCESS_WRITE, BOTH);
		expect_slot(&a[3], rec, 4, UMT_ACCESS_WRITE, BOTH);
	}
}

/* Records 8-12 per flavour: exec v1 (2015) and v0 (2014) read flags differently. */
static void test_flagged(void **state)
{
	struct fx *f = *state;
	umt_access a[8];
	struct { unsigned rec, peek_trust, write_trust; } want[] = {
		/* the same answers for exec v1 and v0, by the decision in umtrace.h 8b */
		{7, BOTH, UMT_TRUST_ADDRESS}, /* 0x20: outputs bad (v1), fault executing (v0) */
		{8, 0, 0},                    /* 0x10: inputs bad (v1), all garbage (v0) */
		{9, BOTH, UMT_TRUST_ADDRESS}, /* 0x40: fault (v1), output read-back failed (v0) */
		{10, 0, 0},                   /* 0x80: aborted (v1), internal error (v0) */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		assert_int_equal(accesses(f->t, want[i].rec, UMT_ACCESS_ALL, a), 2);
		expect_slot(&a[0], want[i].rec, 2, UMT_ACCESS_PEEK, want[i].peek_trust);
		expect_slot(&a[1], want[i].rec, 3, UMT_ACCESS_WRITE, want[i].write_trust);
	}
	/* condition false: the after value is the unchanged content, a peek */
	assert_int_equal(accesses(f->t, 11, UMT_ACCESS_ALL, a), 2);
	expect_slot(&a[0], 11, 2, UMT_ACCESS_PEEK, BOTH);
	assert_int_equal(a[1].kind, UMT_ACCESS_PEEK);
	assert_int_equal(a[1].phase, 1);
	assert_int_equal(accesses(f->t, 11, UMT_ACCESS_WRITE, a), 0);
}

static void test_reliability_table(void **state)
{
	(void)state;
	/* spec 6.4, per version, as umtrace.h section 8b decides */
	const unsigned IN = UMT_RELIABLE_INPUTS, OUT = UMT_RELIABLE_OUTPUTS;
	assert_int_equal(umt_exec_reliability(1, 0x01), IN | OUT);
	assert_int_equal(umt_exec_reliability(1, 0x0f), IN | OUT);
	assert_int_equal(umt_exec_reliability(1, 0x10), OUT);
	assert_int_equal(umt_exec_reliability(1, 0x20), IN);
	assert_int_equal(umt_exec_reliability(1, 0x40), IN);
	assert_int_equal(umt_exec_reliability(1, 0x80), 0);
	assert_int_equal(umt_exec_reliability(0, 0x10), 0);
	assert_int_equal(umt_exec_reliability(0, 0x20), IN);
	assert_int_equal(umt_exec_reliability(0, 0x40), IN);
	assert_int_equal(umt_exec_reliability(0, 0x80), 0);
	assert_int_equal(umt_exec_reliability(0, 0x07), IN | OUT);
}

static void test_context_blocks(void **state)
{
	struct fx *f = *state;
	umt_access a[8];
	uint64_t id = N_INS_RECS;
	assert_int_equal(accesses(f->t, id, UMT_ACCESS_ALL, a), 2);
	assert_int_equal(a[0].kind, UMT_ACCESS_CONTEXT);
	assert_int_equal(a[0].address, 0x7ffde000);
	assert_int_equal(a[0].size, 3);
	assert_memory_equal(a[0].data, block_a, 3);
	assert_int_equal(a[0].locator, 0);
	assert_int_equal(a[0].trust, BOTH);
	assert_int_equal(a[1].address, 0x20000);
	assert_int_equal(a[1].size, sizeof block_b);
	assert_memory_equal(a[1].data, block_b, sizeof block_b);
	assert_int_equal(a[1].locator, 1);
	assert_int_equal(accesses(f->t, id, UMT_ACCESS_READ | UMT_ACCESS_WRITE, a), 0);
	/* thread-end: nothing */
	assert_int_equal(accesses(f->t, id + 1, UMT_ACCESS_ALL, a), 0);
}

static void test_bad_arguments(void **state)
{
	struct fx *f = *state;
	umt_rec r;
	umt_access_iter it;
	umt_access a;
	assert_int_equal(umt_exec_get(f->t, 0, &r), 0);
	fx_expect_error(umt_access_iter_init(NULL, f->t, &r, UMT_ACCESS_ALL), UMT_E_INVAL, "", NULL);
	fx_expect_error(umt_access_iter_init(&it, f->t, &r, 0), UMT_E_INVAL, "", NULL);
	fx_expect_error(umt_access_iter_init(&it, f->t, &r, 16), UMT_E_INVAL, "", NULL);
	fx_expect_error(umt_access_iter_next(NULL, &a), UMT_E_INVAL, "", NULL);
	assert_string_equal(umt_access_kind_name(UMT_ACCESS_PEEK), "peek");
	assert_null(umt_access_kind_name(3));
}

/* A context block whose DataFP points past its record: an error naming it. */
static void test_corrupt_block(void **state)
{
	struct fx *f = *state;
	struct fx_trace m;
	fx_load_dir(f->dir, &m);
	uint64_t id = N_INS_RECS;
	uint64_t off = fx_get64(m.data[UMT_FILE_EXEC_OFFSETS] + id * 8);
	/* syscall exit: header 6 + SyscallID 8, rmContext 16, block 1's DataFP at +24+16 */
	uint8_t *datafp = m.data[UMT_FILE_EXEC_VTABLE] + off + 14 + 16 + 24 + 16;
	fx_put64(datafp, 0x7fffffff);
	fx_sync(&m);
	umt_trace *t = fx_must_open(&m);
	umt_rec r;
	umt_access_iter it;
	umt_access a;
	assert_int_equal(umt_exec_get(t, id, &r), 0);
	assert_int_equal(umt_access_iter_init(&it, t, &r, UMT_ACCESS_ALL), 0);
	assert_int_equal(umt_access_iter_next(&it, &a), 1);
	fx_expect_error(umt_access_iter_next(&it, &a), UMT_E_BOUNDS, "exec.vtable", "contextMem 1");
	assert_int_equal(umt_access_iter_next(&it, &a), 0);
	umt_trace_close(t);
	fx_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_store_push_movsb, setup_2015, teardown),
		cmocka_unit_test_setup_teardown(test_address_width_and_agen, setup_2015, teardown),
		cmocka_unit_test_setup_teardown(test_many_memory_slots, setup_2015, teardown),
		cmocka_unit_test_setup_teardown(test_flagged, setup_2015, teardown),
		cmocka_unit_test_setup_teardown(test_flagged, setup_2014, teardown),
		cmocka_unit_test_setup_teardown(test_context_blocks, setup_2014, teardown),
		cmocka_unit_test_setup_teardown(test_bad_arguments, setup_2015, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_block, setup_2015, teardown),
		cmocka_unit_test(test_reliability_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
