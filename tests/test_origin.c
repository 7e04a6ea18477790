/*
 * src/index registers on hand-built traces whose answers are written out
 * here: partial registers (ah, al, eax zero-extension, a 32-bit thread),
 * gaps, clobbers and false conditions in umt_state_at() and the register
 * history; origin trees of mov chains through memory, a value read from a
 * syscall's buffer, a pointer computed by lea, a value another thread
 * stored, a thread's first record, a gap and an untrusted input.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "umtrace/index.h"

static umt_context_map cmap;

static int reg(const char *name)
{
	for (int r = 0; r < cmap.ElemCount; r++)
		if (strncmp(cmap.StrName[r], name, UMT_REG_NAME_SIZE) == 0)
			return r;
	fail_msg("no register %s", name);
	return -1;
}

/* ---- rows: slots by name ("rax", "[m0]" a MEM0 slot, "[m1]" MEM1, "[s]" a stack slot, "agen") */

struct row {
	const char *slots[8];
	uint8_t first_out, first_after;
	int base, index; /* Mem0BaseSlot, Mem0IndexSlot (-1: none) */
	uint8_t flags;
};

/* Where the slots of a row are in its LC. */
struct layout {
	int n;
	uint16_t off[8], size[8], lc;
	bool mem[8];
};

static int64_t add_row(umt_writer *w, const struct row *d, struct layout *l)
{
	umt_decoded_ins dec;
	umt_lc_slot s[8];
	memset(&dec, 0, sizeof dec);
	memset(s, 0, sizeof s);
	dec.Flags = d->flags;
	dec.FirstOutSlot = d->first_out;
	dec.FirstAfterSlot = d->first_after;
	dec.Mem0SegSlot = dec.Mem1BaseSlot = UMT_SLOT_NA;
	dec.Mem0BaseSlot = d->base < 0 ? UMT_SLOT_NA : (uint8_t)d->base;
	dec.Mem0IndexSlot = d->index < 0 ? UMT_SLOT_NA : (uint8_t)d->index;
	uint16_t off = 0;
	for (int i = 0; i < 8 && d->slots[i]; i++) {
		bool mem = d->slots[i][0] == '[';
		int16_t name = !mem ? (strcmp(d->slots[i], "agen") == 0 ? (int16_t)UMT_REG_AGEN
		                                                         : (int16_t)reg(d->slots[i]))
		               : d->slots[i][1] == 's' ? (int16_t)reg("stackpush")
		               : (int16_t)(d->slots[i][2] == '0' ? UMT_REG_MEM0 : UMT_REG_MEM1);
		int size = mem || name == (int16_t)UMT_REG_AGEN ? 8 : cmap.RegMap64[name].Size;
		s[i] = (umt_lc_slot){.RegName = name, .CommonRegName = name, .ValueSize = (int16_t)size,
		                     .Offset = off, .AddrWidth = mem ? 8 : 0};
		l->off[i] = off;
		l->size[i] = (uint16_t)size;
		l->mem[i] = mem;
		off = (uint16_t)(off + size + (mem ? 8 : 0));
		dec.LCCount++;
	}
	l->n = dec.LCCount;
	dec.LCSize = off;
	l->lc = off;
	return fx_must_add_row(w, &dec, s, "row", 0, 0);
}

/* A trace being written: rows, records. */
struct tw {
	umt_writer *w;
	int64_t ids[16];
	struct layout l[16];
	int nrows;
};

static int row_of(struct tw *t, const struct row *d)
{
	t->ids[t->nrows] = add_row(t->w, d, &t->l[t->nrows]);
	return t->nrows++;
}

/* An instruction record of row @p row: slot i gets values[i] (a memory slot: the address
 * values[i] and the value values[i + 1], then the next slot's). */
static void ins(struct tw *t, int row, int32_t thread, uint8_t flags, const uint64_t *values)
{
	const struct layout *l = &t->l[row];
	uint8_t lc[256];
	memset(lc, 0, sizeof lc);
	for (int i = 0, v = 0; i < l->n; i++) {
		if (l->mem[i])
			memcpy(lc + l->off[i], &values[v++], 8);
		memcpy(lc + l->off[i] + (l->mem[i] ? 8 : 0), &values[v++], l->size[i] < 8 ? l->size[i] : 8);
	}
	umt_exec_desc e = {.type = UMT_REC_INSTRUCTION, .flags = flags, .thread_id = thread,
	                   .ins_id = t->ids[row], .lc = lc, .lc_size = l->lc};
	assert_int_equal(umt_writer_add_exec(t->w, &e, NULL), 0);
}

/* A context record: registers named in @p names set (the rest zero), memory blocks. */
static void ctx(struct tw *t, uint8_t type, int32_t thread, uint8_t flags, const char *const *names,
                const uint64_t *values, const umt_mem_ref *mem, uint32_t nmem)
{
	uint8_t dump[512];
	memset(dump, 0, sizeof dump);
	for (int i = 0; names && names[i]; i++) {
		const umt_reg_info *ri = flags & 1 ? &cmap.RegMap64[reg(names[i])]
		                                   : &cmap.RegMap32[reg(names[i])];
		memcpy(dump + ri->Offset, &values[i], ri->Size < 8 ? ri->Size : 8);
	}
	umt_context_desc c = {dump, sizeof dump, mem, nmem};
	umt_exec_desc e = {.type = type, .flags = flags, .thread_id = thread, .syscall_id = -1,
	                   .context = &c};
	assert_int_equal(umt_writer_add_exec(t->w, &e, NULL), 0);
}

static void tw_open(struct tw *t, const char *dir, unsigned threads)
{
	memset(t, 0, sizeof *t);
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	umt_context_map_default(&cmap, o.ins_record_version, o.xml.xed_version);
	assert_int_equal(umt_writer_open(dir, &o, &t->w), 0);
	for (unsigned i = 0; i < threads; i++)
		assert_int_equal(umt_writer_add_thread(t->w, (int32_t)(10 + i), 0x7000, NULL), 0);
}

static umt_index *build_open(umt_trace *t, const char *dir)
{
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 1;
	assert_int_equal(umt_index_build(t, dir, &o, NULL), 0);
	umt_index *ix;
	assert_int_equal(umt_index_open(t, dir, &ix), 0);
	assert_int_equal(umt_index_verify(ix), 0);
	return ix;
}

/* ---- partial registers, gaps, clobbers: states and histories ------------------------------ */

static const char *const BEGIN64[] = {"rax", "rbx", "rsp", "rflags", NULL};

static void write_partial(const char *dir)
{
	struct tw t;
	tw_open(&t, dir, 2);
	int ah = row_of(&t, &(struct row){{"ah"}, 0, 0, -1, -1, 0});
	int al = row_of(&t, &(struct row){{"al"}, 0, 0, -1, -1, 0});
	int eax = row_of(&t, &(struct row){{"eax", "eax"}, 1, 1, -1, -1, UMT_DEC_F_32IN64});
	int rax = row_of(&t, &(struct row){{"rax"}, 0, 0, -1, -1, 0});
	int mov = row_of(&t, &(struct row){{"rbx", "rax"}, 1, 1, -1, -1, 0});
	int nop = row_of(&t, &(struct row){{NULL}, 0, 0, -1, -1, 0});
	ctx(&t, UMT_REC_THREAD_BEGIN, 0, 1, BEGIN64,
	    (uint64_t[]){0x1122334455667788ull, 0x10, 0x8000, 0x202}, NULL, 0);  /* 0 */
	ins(&t, ah, 0, 1, (uint64_t[]){0x99});                                  /* 1: ah */
	ins(&t, al, 0, 1, (uint64_t[]){0x77});                                  /* 2: al */
	ins(&t, eax, 0, 1, (uint64_t[]){0x55669977, 0xdeadbeef});               /* 3: zero-extends */
	ins(&t, eax, 0, 0x05, (uint64_t[]){0xdeadbeef, 0xdeadbeef});            /* 4: false */
	ins(&t, rax, 0, 0x21, (uint64_t[]){0x1234});                            /* 5: clobber */
	ins(&t, mov, 0, 1, (uint64_t[]){0x10, 0x10});                           /* 6 */
	ins(&t, rax, 0, 0x03, (uint64_t[]){0x33});                              /* 7: gap */
	ins(&t, rax, 0, 1, (uint64_t[]){0x33});                                 /* 8: same value */
	ins(&t, nop, 0, 1, NULL);                                               /* 9 */
	ctx(&t, UMT_REC_THREAD_BEGIN, 1, 0, (const char *const[]){"eax", NULL},
	    (uint64_t[]){0xaabbccdd}, NULL, 0);                                  /* 10: 32-bit */
	ins(&t, ah, 1, 0, (uint64_t[]){0x11});                                  /* 11 */
	ins(&t, eax, 1, 0, (uint64_t[]){0xaabb11dd, 0x12345678});               /* 12: no extension */
	ins(&t, nop, 1, 0, NULL);                                               /* 13 */
	assert_int_equal(umt_writer_finish(t.w), 0);
}

/* Register @p name of thread @p thread at @p at: value, known bytes, source. */
static void expect_reg(umt_index *ix, umt_state *st, uint64_t at, int64_t thread,
                       const char *name, uint64_t value, uint32_t known, uint64_t source)
{
	assert_int_equal(umt_state_at(ix, at, thread, st), 0);
	umt_reg_value v;
	assert_int_equal(umt_state_reg(st, reg(name), &v), 0);
	uint64_t got = 0;
	memcpy(&got, v.data, v.size < 8 ? v.size : 8);
	if (got != value || v.known_bytes != known || v.source != source)
		print_error("%s at %llu: 0x%llx (%u known) from %lld, want 0x%llx (%u) from %lld\n", name,
		            (unsigned long long)at, (unsigned long long)got, v.known_bytes,
		            (long long)v.source, (unsigned long long)value, known, (long long)source);
	assert_int_equal(got, value);
	assert_int_equal(v.known_bytes, known);
	assert_int_equal(v.source, source);
}

static void test_partial_states(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_partial(trace);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx);
	umt_state st;
	assert_int_equal(umt_state_init(ix, &st), 0);
	expect_reg(ix, &st, 1, 0, "rax", 0x1122334455667788ull, 8, 0);
	expect_reg(ix, &st, 2, 0, "rax", 0x1122334455669988ull, 8, 1);
	expect_reg(ix, &st, 2, 0, "ah", 0x99, 1, 1);
	expect_reg(ix, &st, 2, 0, "al", 0x88, 1, 0);
	expect_reg(ix, &st, 3, 0, "rax", 0x1122334455669977ull, 8, 3); /* its own before value */
	expect_reg(ix, &st, 4, 0, "rax", 0xdeadbeefull, 8, 4);         /* upper half zeroed; 4 reads eax */
	expect_reg(ix, &st, 4, 0, "ah", 0xbe, 1, 4);
	expect_reg(ix, &st, 5, 0, "rax", 0xdeadbeefull, 8, 4);         /* observed, not written */
	expect_reg(ix, &st, 6, 0, "rax", 0, 0, 5);                     /* clobbered */
	expect_reg(ix, &st, 7, 0, "rax", 0, 0, 7);                     /* 7's own gap */
	expect_reg(ix, &st, 7, 1, "eax", 0, 0, UMT_NO_RECORD);          /* before its first */
	expect_reg(ix, &st, 11, 1, "eax", 0xaabbccdd, 4, 10);
	expect_reg(ix, &st, 8, 0, "rax", 0x33, 8, 7);
	expect_reg(ix, &st, 8, 0, "rbx", 0, 0, 7);                     /* the gap */
	expect_reg(ix, &st, 8, 0, "rsp", 0, 0, 7);
	expect_reg(ix, &st, 6, 0, "rsp", 0x8000, 8, 0);
	expect_reg(ix, &st, 6, 0, "rbx", 0x10, 8, 6);                  /* 6 reads rbx */
	expect_reg(ix, &st, 6, 0, "rax", 0, 0, 5);
	expect_reg(ix, &st, 12, 1, "eax", 0xaabb11dd, 4, 12);
	expect_reg(ix, &st, 13, 1, "eax", 0x12345678, 4, 12);
	assert_int_equal(st.is_64bit, 0);
	assert_int_equal(umt_state_reg(&st, reg("rax"), &(umt_reg_value){0}), UMT_E_NOT_FOUND);
	expect_reg(ix, &st, 13, 0, "rax", 0x33, 8, 8);                 /* thread 0 after its last */
	expect_reg(ix, &st, 0, 1, "eax", 0, 0, UMT_NO_RECORD);         /* before its first record */
	assert_int_equal(umt_state_at(ix, 14, 0, &st), UMT_E_RANGE);
	assert_int_equal(umt_state_at(ix, 0, 2, &st), UMT_E_RANGE);
	umt_state_release(&st);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

/* The history of @p name in thread 0 over [from, to): ids and changed flags. */
static void expect_history(umt_index *ix, const char *name, uint64_t to, int reverse, int changes,
                           uint64_t limit, const uint64_t *ids, const int *changed, size_t n)
{
	umt_reg_history_query q;
	umt_reg_history_query_init(&q, reg(name));
	q.thread = 0;
	q.to = to;
	q.reverse = reverse;
	q.changes = changes;
	q.limit = limit;
	umt_reg_history *h;
	assert_int_equal(umt_reg_history_open(ix, &q, &h), 0);
	umt_reg_write w;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(umt_reg_history_next(h, &w), 1);
		assert_int_equal(w.id, ids[i]);
		assert_int_equal(w.changed, changed[i]);
		assert_int_equal(w.reg, reg("rax"));
		assert_int_equal(w.size, 8);
	}
	assert_int_equal(umt_reg_history_next(h, &w), 0);
	umt_reg_history_close(h);
}

static void test_partial_history(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_partial(trace);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx);
	/* every write of rax (of any part of it); the false condition (4) writes nothing */
	expect_history(ix, "eax", UINT64_MAX, 0, 0, 0, (uint64_t[]){0, 1, 2, 3, 5, 6, 7, 8},
	               (int[]){1, 1, 1, 1, 1, 1, 1, 0}, 8);
	expect_history(ix, "ah", UINT64_MAX, 1, 1, 0, (uint64_t[]){7, 6, 5, 3, 2, 1, 0},
	               (int[]){1, 1, 1, 1, 1, 1, 1}, 7);
	/* the previous change of rax before 9, and the previous write */
	expect_history(ix, "rax", 9, 1, 1, 1, (uint64_t[]){7}, (int[]){1}, 1);
	expect_history(ix, "rax", 9, 1, 0, 1, (uint64_t[]){8}, (int[]){0}, 1);
	umt_reg_history_query q;
	umt_reg_history_query_init(&q, reg("rax"));
	q.thread = 0;
	q.from = 3;
	q.to = 4;
	umt_reg_history *h;
	umt_reg_write w;
	assert_int_equal(umt_reg_history_open(ix, &q, &h), 0);
	assert_int_equal(umt_reg_history_next(h, &w), 1);
	uint64_t v;
	memcpy(&v, w.value, 8);
	assert_int_equal(v, 0xdeadbeefull); /* the value after, zero-extended */
	assert_int_equal(umt_reg_history_next(h, &w), 0);
	umt_reg_history_close(h);
	/* the 32-bit thread: eax is the whole register there */
	q.reg = reg("ah");
	q.thread = 1;
	q.from = 0;
	q.to = UINT64_MAX;
	assert_int_equal(umt_reg_history_open(ix, &q, &h), 0);
	assert_int_equal(umt_reg_history_next(h, &w), 1);
	assert_int_equal(w.id, 10);
	assert_int_equal(w.reg, reg("eax"));
	assert_int_equal(w.size, 4);
	umt_reg_history_close(h);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

/* ---- origin trees ----------------------------------------------------------------------- */

static void write_flows(const char *dir)
{
	struct tw t;
	tw_open(&t, dir, 3);
	int movi = row_of(&t, &(struct row){{"rax"}, 0, 0, -1, -1, 0});
	int store = row_of(&t, &(struct row){{"rbx", "rax", "[m0]", "[m0]"}, 2, 3, 0, -1, 0});
	int load = row_of(&t, &(struct row){{"rbx", "[m0]", "rdx", "rdx"}, 2, 3, 0, -1, 0});
	int store2 = row_of(&t, &(struct row){{"rcx", "rdx", "[m0]", "[m0]"}, 2, 3, 0, -1, 0});
	int loadabs = row_of(&t, &(struct row){{"[m0]", "rsi", "rsi"}, 1, 2, -1, -1, 0});
	int lea = row_of(&t, &(struct row){{"rsi", "agen", "rdi", "rdi"}, 2, 3, 0, -1, 0});
	int load8 = row_of(&t, &(struct row){{"rcx", "[m0]", "r8", "r8"}, 2, 3, 0, -1, 0});
	int add = row_of(&t, &(struct row){{"r8", "rdi", "r8", "rflags"}, 2, 2, -1, -1, 0});
	int mov = row_of(&t, &(struct row){{"rbx", "rax"}, 1, 1, -1, -1, 0});
	int nop = row_of(&t, &(struct row){{NULL}, 0, 0, -1, -1, 0});
	int push = row_of(&t, &(struct row){{"rax", "rsp", "[s]", "rsp"}, 2, 2, -1, -1, 0});
	int pop = row_of(&t, &(struct row){{"rsp", "[s]", "rdx", "rdx", "rsp"}, 2, 3, -1, -1, 0});
	uint64_t hello = 0x6f6c6c6568ull, x = hello + 4;
	umt_mem_ref buf = {0x5000, 8, (const uint8_t *)&hello};
	ctx(&t, UMT_REC_THREAD_BEGIN, 0, 1, (const char *const[]){"rbx", "rcx", "rsp", NULL},
	    (uint64_t[]){0x2000, 0x3000, 0x8000}, NULL, 0);                          /* 0 */
	ins(&t, movi, 0, 1, (uint64_t[]){0x42});                                    /* 1 */
	ins(&t, store, 0, 1, (uint64_t[]){0x2000, 0x42, 0x2000, 0, 0x2000, 0x42});  /* 2 */
	ins(&t, load, 0, 1, (uint64_t[]){0x2000, 0x2000, 0x42, 0, 0x42});           /* 3 */
	ins(&t, store2, 0, 1, (uint64_t[]){0x3000, 0x42, 0x3008, 0, 0x3008, 0x42}); /* 4 */
	ctx(&t, UMT_REC_SYSCALL_EXIT, 0, 1, (const char *const[]){"rbx", "rcx", "rdx", NULL},
	    (uint64_t[]){0x2000, 0x3000, 0x42}, &buf, 1);                           /* 5: read() */
	ins(&t, loadabs, 0, 1, (uint64_t[]){0x5000, hello, 0, hello});              /* 6 */
	ins(&t, lea, 0, 1, (uint64_t[]){hello, x, 0, x});                           /* 7 */
	ins(&t, load8, 0, 1, (uint64_t[]){0x3000, 0x3008, 0x42, 0, 0x42});          /* 8 */
	ins(&t, add, 0, 1, (uint64_t[]){0x42, x, 0x42 + x, 0x202});                 /* 9 */
	ins(&t, nop, 0, 1, NULL);                                                   /* 10 */
	ctx(&t, UMT_REC_THREAD_BEGIN, 1, 1, (const char *const[]){"rbx", NULL},
	    (uint64_t[]){0x9000}, NULL, 0);                                          /* 11 */
	ins(&t, movi, 1, 1, (uint64_t[]){0x77});                                    /* 12 */
	ins(&t, store, 1, 1, (uint64_t[]){0x9000, 0x77, 0x9000, 0, 0x9000, 0x77});  /* 13 */
	ins(&t, loadabs, 0, 1, (uint64_t[]){0x9000, 0x77, hello, 0x77});            /* 14: thread 1's */
	ins(&t, nop, 0, 1, NULL);                                                   /* 15 */
	ins(&t, mov, 2, 1, (uint64_t[]){0x5, 0x5});                                 /* 16: first of 2 */
	ins(&t, store, 2, 1, (uint64_t[]){0xa000, 0x5, 0xa000, 0, 0xa000, 0x5});    /* 17 */
	ins(&t, movi, 2, 0x03, (uint64_t[]){0x9});                                  /* 18: gap */
	ins(&t, add, 2, 0x11, (uint64_t[]){0x1, 0x2, 0x100, 0x202});                /* 19: bad inputs */
	ins(&t, nop, 2, 1, NULL);                                                   /* 20 */
	ins(&t, push, 0, 1, (uint64_t[]){0, 0x8000, 0x7ff8, 0, 0x7ff8});            /* 21 */
	ins(&t, pop, 0, 1, (uint64_t[]){0x7ff8, 0x7ff8, 0, 0, 0, 0x8000});          /* 22 */
	ins(&t, nop, 0, 1, NULL);                                                   /* 23 */
	assert_int_equal(umt_writer_finish(t.w), 0);
}

/* An expected node: depth, role, what (a register name or an address), at, id, kind. */
struct want {
	unsigned depth;
	int role;
	const char *reg;
	uint64_t address;
	uint64_t at, id;
	int kind;
	int known; /* the value is known */
};

enum { R = UMT_ORIGIN_ROOT, V = UMT_ORIGIN_VALUE, A = UMT_ORIGIN_ADDRESS };
enum { I = UMT_ORIGIN_INSTRUCTION, C = UMT_ORIGIN_CONTEXT, U = UMT_ORIGIN_UNKNOWN };
#define NONE UMT_NO_RECORD

static void expect_tree(umt_index *ix, const umt_origin_query *q, const struct want *w, size_t n)
{
	umt_origin *o;
	assert_int_equal(umt_origin_open(ix, q, &o), 0);
	umt_origin_node node;
	for (size_t i = 0; i < n; i++) {
		int rc = umt_origin_next(o, &node);
		if (rc != 1 || node.depth != w[i].depth || node.role != w[i].role ||
		    node.at != w[i].at || node.id != w[i].id || node.kind != w[i].kind)
			print_error("node %zu: rc %d depth %u role %d reg %d 0x%llx at %llu id %lld kind %d; "
			            "want %u %d %s 0x%llx %llu %lld %d (%s)\n", i, rc, node.depth, node.role,
			            node.reg, (unsigned long long)node.address, (unsigned long long)node.at,
			            (long long)node.id, node.kind, w[i].depth, w[i].role,
			            w[i].reg ? w[i].reg : "-", (unsigned long long)w[i].address,
			            (unsigned long long)w[i].at, (long long)w[i].id, w[i].kind, umt_errmsg());
		assert_int_equal(rc, 1);
		assert_int_equal(node.depth, w[i].depth);
		assert_int_equal(node.role, w[i].role);
		assert_int_equal(node.at, w[i].at);
		assert_int_equal(node.id, w[i].id);
		assert_int_equal(node.kind, w[i].kind);
		assert_int_equal(node.reg, w[i].reg ? reg(w[i].reg) : -1);
		if (!w[i].reg)
			assert_int_equal(node.address, w[i].address);
		assert_int_equal(node.known[0], w[i].known);
	}
	assert_int_equal(umt_origin_next(o, &node), 0);
	umt_origin_close(o);
}

static void test_origin_trees(void **state)
{
	(void)state;
	char *dir = fx_tmpdir(), *trace = fx_path(dir, "t"), *idx = fx_path(dir, "i");
	write_flows(trace);
	umt_trace *t = fx_must_open_dir(trace);
	umt_index *ix = build_open(t, idx);
	/* r8 at 10: 0x42 stored, loaded and stored again through memory, plus a pointer
	 * into a buffer the kernel filled (record 5) moved by lea */
	static const struct want chain[] = {
		{0, R, "r8", 0, 10, 9, I, 1},
		{1, V, "r8", 0, 9, 8, I, 1},
		{2, A, "rcx", 0, 8, 5, C, 1},
		{2, V, NULL, 0x3008, 8, 4, I, 1},
		{3, A, "rcx", 0, 4, 0, C, 1},
		{3, V, "rdx", 0, 4, 3, I, 1},
		{4, A, "rbx", 0, 3, 0, C, 1},
		{4, V, NULL, 0x2000, 3, 2, I, 1},
		{5, A, "rbx", 0, 2, 0, C, 1},
		{5, V, "rax", 0, 2, 1, I, 1},
		{1, V, "rdi", 0, 9, 7, I, 1},
		{2, V, "rsi", 0, 7, 6, I, 1},
		{3, V, NULL, 0x5000, 6, 5, C, 1},
	};
	umt_origin_query q;
	umt_origin_query_init(&q, 10, reg("r8"));
	expect_tree(ix, &q, chain, sizeof chain / sizeof chain[0]);
	/* to depth 2, and at most 4 nodes */
	static const struct want shallow[] = {
		{0, R, "r8", 0, 10, 9, I, 1}, {1, V, "r8", 0, 9, 8, I, 1}, {2, A, "rcx", 0, 8, 5, C, 1},
		{2, V, NULL, 0x3008, 8, 4, I, 1}, {1, V, "rdi", 0, 9, 7, I, 1},
		{2, V, "rsi", 0, 7, 6, I, 1},
	};
	q.depth = 2;
	expect_tree(ix, &q, shallow, 6);
	q.max_nodes = 4;
	expect_tree(ix, &q, shallow, 4);
	/* memory a thread read, another thread stored */
	static const struct want other[] = {
		{0, R, NULL, 0x9000, 15, 13, I, 1},
		{1, A, "rbx", 0, 13, 11, C, 1},
		{1, V, "rax", 0, 13, 12, I, 1},
	};
	umt_origin_query_init(&q, 15, -1);
	q.address = 0x9000;
	q.length = 8;
	expect_tree(ix, &q, other, 3);
	/* a thread's first record ends the chain (its input rbx is not listed); rbx, which
	 * that record only read, has no writer in the thread */
	static const struct want first[] = {
		{0, R, NULL, 0xa000, 20, 17, I, 1},
		{1, A, "rbx", 0, 17, NONE, U, 1},
		{1, V, "rax", 0, 17, 16, I, 1},
	};
	q.address = 0xa000;
	q.at = 20;
	expect_tree(ix, &q, first, 3);
	/* a value untraced code left (the gap of 18), inputs that cannot be believed */
	static const struct want gap[] = {{0, R, "rbx", 0, 20, 18, U, 0}};
	umt_origin_query_init(&q, 20, reg("rbx"));
	expect_tree(ix, &q, gap, 1);
	static const struct want untrusted[] = {
		{0, R, "r8", 0, 20, 19, I, 1},
		{1, V, "r8", 0, 19, NONE, U, 0},
		{1, V, "rdi", 0, 19, NONE, U, 0},
	};
	umt_origin_query_init(&q, 20, reg("r8"));
	expect_tree(ix, &q, untrusted, 3);
	/* the stack pointer of a push and a pop is address-only, unless it is what is traced
	 * (the syscall exit 5 wrote rax and rsp: its dump covers every register) */
	static const struct want popped[] = {
		{0, R, "rdx", 0, 23, 22, I, 1},
		{1, A, "rsp", 0, 22, 21, I, 1},
		{1, V, NULL, 0x7ff8, 22, 21, I, 1},
		{2, V, "rax", 0, 21, 5, C, 1},
		{2, A, "rsp", 0, 21, 5, C, 1},
	};
	umt_origin_query_init(&q, 23, reg("rdx"));
	expect_tree(ix, &q, popped, 5);
	static const struct want sp[] = {
		{0, R, "rsp", 0, 23, 22, I, 1},
		{1, V, "rsp", 0, 22, 21, I, 1},
		{2, V, "rax", 0, 21, 5, C, 1},
		{2, V, "rsp", 0, 21, 5, C, 1},
		{1, V, NULL, 0x7ff8, 22, 21, I, 1},
		{2, V, "rax", 0, 21, 5, C, 1},
		{2, A, "rsp", 0, 21, 5, C, 1},
	};
	umt_origin_query_init(&q, 23, reg("rsp"));
	expect_tree(ix, &q, sp, 7);
	/* bad queries */
	umt_origin *o;
	umt_origin_query_init(&q, 24, reg("r8"));
	assert_int_equal(umt_origin_open(ix, &q, &o), UMT_E_RANGE);
	umt_origin_query_init(&q, 3, -1);
	q.length = 0;
	assert_int_equal(umt_origin_open(ix, &q, &o), UMT_E_INVAL);
	q.length = UMT_ORIGIN_MAX_LENGTH + 1;
	assert_int_equal(umt_origin_open(ix, &q, &o), UMT_E_INVAL);
	umt_index_close(ix);
	umt_trace_close(t);
	fx_rmtree(dir);
	free(dir), free(trace), free(idx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_partial_states),
		cmocka_unit_test(test_partial_history),
		cmocka_unit_test(test_origin_trees),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
