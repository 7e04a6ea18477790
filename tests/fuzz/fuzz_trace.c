/*
 * Fuzz target: a whole trace from one input (the split format of fuzz.h),
 * opened with umt_trace_open_mem() and walked through everything the API
 * offers: every record with its typed fields, contexts, memory references,
 * operands, LC slots, phrases and registers; instruction rows decoded by
 * Zydis (umt_sem_get(), umt_sem_decode()); thread chains in both
 * directions; every row of every table, names, the context map, trace.xml
 * and umt_verify(). Invariants of the documented API are asserted: each
 * pointer returned lies inside its file or record, iteration visits exactly
 * RecordCount records, chains are monotonic and end, a record the iterator
 * returns equals umt_exec_get()'s, and a trace umt_verify() passes has no
 * record, chain, row or name that an accessor refuses. An input that does
 * not open is opened again with UMT_OPEN_SALVAGE and what it holds is read
 * (walk_salvaged()).
 */
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "fuzz_xml.h"
#include "umtrace/umtrace.h"

/* Work caps per input, so that one execution stays fast on large tables. */
enum {
	MAX_ROWS = 4096,      /* rows walked per table */
	MAX_CHAINS = 16,      /* threads and start records whose chains are walked */
	MAX_FULL_REGS = 8,    /* contexts whose every register is read */
	MAX_WIN_TID = 64,     /* linear find_win_tid() lookups */
};

/* ---- the input: split into files ---------------------------------------- */

struct input {
	void *alloc[UMT_FILE_COUNT];
	umt_buffer buf[UMT_FILE_COUNT];
};

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A copy of @p n bytes of @p src at offset @p mis of an allocation of exactly n + mis. */
static const uint8_t *place(struct input *in, int f, const void *src, size_t n, unsigned mis)
{
	static const uint8_t empty[1];
	uint8_t *a = malloc(n + mis);
	if (a == NULL) {
		if (n + mis != 0)
			abort();
		return empty;
	}
	in->alloc[f] = a;
	if (n)
		memcpy(a + mis, src, n);
	return a + mis;
}

/* The context map per the option bits: the given bytes, or overlaid on a base map. */
static void place_cmap(struct input *in, const uint8_t *p, size_t n, unsigned opt)
{
	int f = UMT_FILE_CONTEXT_MAP;
	unsigned mis = FUZZ_OPT_MISALIGN(opt), kind = FUZZ_OPT_CMAP(opt);
	if (kind == FUZZ_CMAP_RAW || n >= UMT_CONTEXT_MAP_SIZE) {
		in->buf[f].data = place(in, f, p, n, mis);
		in->buf[f].size = n;
		return;
	}
	umt_context_map base;
	memset(&base, 0, sizeof base);
	if (kind == FUZZ_CMAP_DEFAULT_V1)
		umt_context_map_default(&base, 1, "20150121");
	else if (kind == FUZZ_CMAP_DEFAULT_V0)
		umt_context_map_default(&base, 0, "20140106");
	memcpy(&base, p, n);
	in->buf[f].data = place(in, f, &base, sizeof base, mis);
	in->buf[f].size = sizeof base;
}

static void split(const uint8_t *data, size_t size, struct input *in)
{
	memset(in, 0, sizeof *in);
	uint8_t hdr[FUZZ_TRACE_HEADER] = {0};
	memcpy(hdr, data, size < sizeof hdr ? size : sizeof hdr);
	size_t pos = size < sizeof hdr ? size : sizeof hdr;
	unsigned opt = hdr[0];
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		uint32_t want = ld32(hdr + 1 + 4 * f);
		if (want == FUZZ_MISSING)
			continue; /* data NULL: a missing file */
		size_t n = want < size - pos ? want : size - pos;
		if (f == UMT_FILE_CONTEXT_MAP) {
			place_cmap(in, data + pos, n, opt);
		} else {
			in->buf[f].data = place(in, f, data + pos, n, FUZZ_OPT_MISALIGN(opt));
			in->buf[f].size = n;
		}
		pos += n;
	}
}

static void release(struct input *in)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		free(in->alloc[f]);
}

/* ---- walking state --------------------------------------------------------- */

/* Refusals by accessors, by the umt_verify() check class that covers them. */
struct walk {
	const umt_trace *t;
	const struct input *in;
	uint64_t count;
	umt_trace_info info;
	uint64_t full_reg_contexts;
	uint64_t bad_exec;    /* records, their contexts, InsIDs, LC lengths, SyscallIDs */
	uint64_t bad_links;   /* thread chains */
	uint64_t bad_ins;     /* instruction rows, strings, decoded bodies */
	uint64_t bad_sys;     /* syscall records */
	uint64_t bad_mod;     /* module names */
	uint64_t bad_xml;     /* trace.xml */
};

static const uint8_t *file_data(const struct walk *w, int f)
{
	return w->in->buf[f].data;
}
static uint64_t file_size(const struct walk *w, int f)
{
	return w->in->buf[f].size;
}
static int in_file(const struct walk *w, int f, const void *p, uint64_t n)
{
	return fuzz_inside(p, n, file_data(w, f), file_size(w, f));
}

static int is_content_error(int rc)
{
	return rc == UMT_E_TRUNCATED || rc == UMT_E_BOUNDS || rc == UMT_E_TYPE ||
	       rc == UMT_E_VERSION || rc == UMT_E_CORRUPT;
}

/* Minimum record size by type (docs/decisions.md), 0 for unknown types. */
static uint64_t min_size(uint8_t type)
{
	static const uint8_t sizes[UMT_REC_TYPE_LIMIT] = {14, 22, 10, 10, 30, 30, 14, 0,
	                                                  22, 22, 22, 22};
	return type < UMT_REC_TYPE_LIMIT ? sizes[type] : 0;
}

/* ---- contexts ------------------------------------------------------------- */

static void check_value_in(const umt_value *v, const void *base, uint64_t size)
{
	FUZZ_CHECK(fuzz_inside(v->data, v->size, base, size));
	fuzz_touch(v->data, v->size);
	uint64_t u = umt_value_u64(v);
	if (v->size > 0)
		FUZZ_CHECK((u & 0xff) == v->data[0]);
}

static void walk_context_regs(struct walk *w, const umt_context *c)
{
	uint32_t elems = w->info.context_map_elems;
	unsigned step = w->full_reg_contexts++ < MAX_FULL_REGS ? 1 : 37;
	for (uint32_t reg = 0; reg < elems; reg += step) {
		umt_value v;
		int rc = umt_context_reg(w->t, c, (int)reg, &v);
		if (rc == 0)
			check_value_in(&v, c->regs, c->regs_size);
		else
			FUZZ_CHECK(rc == UMT_E_NOT_FOUND || rc == UMT_E_BOUNDS);
	}
	umt_value v;
	FUZZ_CHECK(umt_context_reg(w->t, c, (int)elems, &v) == UMT_E_RANGE);
	FUZZ_CHECK(umt_context_reg(w->t, c, -1, &v) == UMT_E_RANGE);
}

static void walk_context(struct walk *w, const umt_rec *r)
{
	umt_context c;
	int rc = umt_rec_context(w->t, r, &c);
	if (!umt_rec_type_has_context(r->type)) {
		FUZZ_CHECK(rc == UMT_E_INVAL);
		return;
	}
	if (rc < 0) {
		FUZZ_CHECK(is_content_error(rc));
		w->bad_exec++;
		return;
	}
	FUZZ_CHECK(c.record_id == r->id);
	FUZZ_CHECK(fuzz_inside(c.base, 16, r->data, r->size));
	FUZZ_CHECK(c.avail == (uint64_t)(r->data + r->size - c.base));
	FUZZ_CHECK(c.regs_size == w->info.dump_size);
	FUZZ_CHECK(fuzz_inside(c.regs, c.regs_size, r->data, r->size));
	FUZZ_CHECK(c.is_64bit == umt_rec_is_64bit(r));
	fuzz_touch(c.regs, c.regs_size);
	umt_mem_ref m;
	for (uint32_t i = 0; i < c.mem_count; i++) {
		rc = umt_context_mem_get(&c, i, &m);
		if (rc < 0) {
			FUZZ_CHECK(rc == UMT_E_BOUNDS);
			w->bad_exec++;
			continue;
		}
		FUZZ_CHECK(fuzz_inside(m.data, m.size, r->data, r->size));
		fuzz_touch(m.data, m.size);
	}
	FUZZ_CHECK(umt_context_mem_get(&c, c.mem_count, &m) == UMT_E_RANGE);
	walk_context_regs(w, &c);
}

/* ---- instruction records --------------------------------------------------- */

static void check_xvalue(const umt_ins_exec *x, const umt_value *v)
{
	if (v->is_const)
		check_value_in(v, x->dec.ins, sizeof *x->dec.ins);
	else
		check_value_in(v, x->lc, x->lc_size);
}

static void walk_operands(struct walk *w, const umt_ins_exec *x)
{
	const umt_decoded_ins *d = x->dec.ins;
	for (unsigned i = 0; i <= d->ExpCount; i++) {
		int kind = umt_operand_kind(x, i);
		umt_value v;
		uint64_t addr;
		if (i == d->ExpCount) {
			FUZZ_CHECK(kind == UMT_E_RANGE);
			FUZZ_CHECK(umt_operand_value(x, i, UMT_BEFORE, &v) == UMT_E_RANGE);
			FUZZ_CHECK(umt_operand_address(x, i, &addr) == UMT_E_RANGE);
			break;
		}
		FUZZ_CHECK(kind >= UMT_KIND_REGISTER && kind <= UMT_KIND_IMMEDIATE);
		for (int when = UMT_BEFORE; when <= UMT_AFTER; when++) {
			int rc = umt_operand_value(x, i, when, &v);
			/* umt_ins_decoded() checked every operand against LCSize */
			FUZZ_CHECK(rc == 0 || rc == UMT_E_NO_VALUE);
			if (rc == 0)
				check_xvalue(x, &v);
		}
		int rc = umt_operand_address(x, i, &addr);
		FUZZ_CHECK(rc == 0 || rc == UMT_E_NO_VALUE || rc == UMT_E_BOUNDS);
		if (rc == UMT_E_BOUNDS)
			w->bad_ins++;
	}
}

static void walk_slots(struct walk *w, const umt_ins_exec *x)
{
	const umt_decoded_ins *d = x->dec.ins;
	for (unsigned s = 0; s <= d->LCCount; s++) {
		umt_value v;
		uint64_t addr = 1;
		int rc = umt_lc_slot_value(x, s, &v, &addr);
		if (s == d->LCCount) {
			FUZZ_CHECK(rc == UMT_E_RANGE);
			break;
		}
		/* umt_ins_decoded() checked every slot against LCSize */
		FUZZ_CHECK(rc == 0);
		check_xvalue(x, &v);
		const umt_lc_slot *sl = &x->dec.slots[s];
		if (sl->AddrWidth == 0)
			FUZZ_CHECK(addr == 0);
		int when = s < d->FirstAfterSlot ? UMT_BEFORE : UMT_AFTER;
		int found = umt_lc_find_common(x, sl->CommonRegName, 0, when);
		if (found >= 0) {
			FUZZ_CHECK((unsigned)found < d->LCCount);
			FUZZ_CHECK(x->dec.slots[found].CommonRegName == sl->CommonRegName);
			FUZZ_CHECK(x->dec.slots[found].AddrWidth == 0);
			FUZZ_CHECK(when == UMT_BEFORE ? (unsigned)found < d->FirstAfterSlot
			                              : (unsigned)found >= d->FirstAfterSlot);
		} else {
			FUZZ_CHECK(found == UMT_E_NOT_FOUND);
			FUZZ_CHECK(sl->AddrWidth != 0 || sl->ValueSize < 0);
		}
		rc = umt_lc_find_reg(w->t, x, sl->RegName, when, &v);
		if (rc == 0)
			check_xvalue(x, &v);
		else
			FUZZ_CHECK(rc == UMT_E_RANGE || rc == UMT_E_NOT_FOUND || rc == UMT_E_BOUNDS);
	}
}

static void walk_phrases(const umt_ins_exec *x)
{
	for (int which = 0; which <= 1; which++) {
		umt_mem_phrase p;
		int rc = umt_ins_exec_phrase(x, which, &p);
		FUZZ_CHECK(rc == 0 || rc == UMT_E_NO_VALUE);
		if (rc == 0)
			FUZZ_CHECK(p.scale == 0 || p.scale == 1 || p.scale == 2 || p.scale == 4 ||
			           p.scale == 8);
		if (rc == 0 && !x->is_64bit)
			FUZZ_CHECK(p.ea <= UINT32_MAX);
	}
}

/*
 * A caller-owned umt_ins_exec may have been changed since it was bound: the
 * accessors still check every slot index and every LC access.
 */
static void walk_tampered(const umt_ins_exec *x)
{
	umt_decoded_ins d = *x->dec.ins;
	umt_ins_exec y = *x;
	umt_mem_phrase p;
	umt_value v;
	y.dec.ins = &d;
	if (d.LCCount < UMT_SLOT_IMM0) { /* a base slot past the slots */
		d.Mem0SegSlot = d.Mem0IndexSlot = UMT_SLOT_NA;
		d.Mem0BaseSlot = d.LCCount;
		int rc = umt_ins_exec_phrase(&y, 0, &p);
		FUZZ_CHECK(rc == UMT_E_RANGE || rc == UMT_E_BOUNDS);
	}
	y = *x; /* an LC shorter than LCSize */
	y.lc_size = 0;
	for (unsigned s = 0; s < y.dec.ins->LCCount; s++) {
		const umt_lc_slot *sl = &y.dec.slots[s];
		int rc = umt_lc_slot_value(&y, s, &v, NULL);
		int empty = sl->Offset == 0 && sl->AddrWidth == 0 && sl->ValueSize == 0;
		FUZZ_CHECK(empty ? rc == 0 : rc == UMT_E_BOUNDS);
	}
	for (unsigned i = 0; i < y.dec.ins->ExpCount; i++) {
		int rc = umt_operand_value(&y, i, UMT_BEFORE, &v);
		FUZZ_CHECK(rc == 0 || rc == UMT_E_NO_VALUE || rc == UMT_E_BOUNDS);
		if (rc == 0)
			FUZZ_CHECK(v.is_const || v.size == 0);
	}
}

static void walk_ins_record(struct walk *w, const umt_rec *r)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(w->t, r, &x);
	if (rc < 0) {
		FUZZ_CHECK(is_content_error(rc));
		w->bad_exec++;
		return;
	}
	FUZZ_CHECK(x.record_id == r->id);
	FUZZ_CHECK(x.lc_size >= x.dec.ins->LCSize);
	FUZZ_CHECK(x.lc + x.lc_size == r->data + r->size);
	FUZZ_CHECK((uint64_t)x.ins_id == x.dec.ins_id);
	FUZZ_CHECK(in_file(w, UMT_FILE_INS, x.dec.ins, sizeof *x.dec.ins));
	FUZZ_CHECK(in_file(w, UMT_FILE_INS, x.dec.slots, 12ull * x.dec.ins->LCCount));
	walk_operands(w, &x);
	walk_slots(w, &x);
	walk_phrases(&x);
	walk_tampered(&x);
}

/* ---- syscalls ----------------------------------------------------------------- */

static void check_syscall(struct walk *w, const umt_syscall *s)
{
	int f = UMT_FILE_SYSCALL_VTABLE;
	FUZZ_CHECK(in_file(w, f, s->rec, s->size));
	FUZZ_CHECK(s->size >= sizeof *s->rec);
	FUZZ_CHECK(s->rec == (const void *)(file_data(w, f) + s->offset));
	FUZZ_CHECK(fuzz_inside(s->args, 8ull * s->rec->ArgCount, s->rec, s->size));
	FUZZ_CHECK(fuzz_inside(s->extras, s->extras_size, s->rec, s->size));
	fuzz_touch(s->extras, s->extras_size);
	uint64_t v;
	for (unsigned i = 0; i < s->rec->ArgCount; i++)
		FUZZ_CHECK(umt_syscall_arg(s, i, &v) == 0);
	FUZZ_CHECK(umt_syscall_arg(s, s->rec->ArgCount, &v) == UMT_E_RANGE);
}

static void walk_syscall_table(struct walk *w)
{
	uint64_t n = umt_syscall_count(w->t);
	FUZZ_CHECK(n == w->info.syscall_count);
	for (uint64_t id = 0; id < n && id < MAX_ROWS; id++) {
		umt_syscall s;
		int rc = umt_syscall_get(w->t, id, &s);
		if (rc < 0) {
			FUZZ_CHECK(is_content_error(rc));
			w->bad_sys++;
			continue;
		}
		FUZZ_CHECK(s.id == id);
		check_syscall(w, &s);
	}
	umt_syscall s;
	FUZZ_CHECK(umt_syscall_get(w->t, n, &s) == UMT_E_RANGE);
}

/* ---- records ------------------------------------------------------------------ */

static void walk_typed(struct walk *w, const umt_rec *r)
{
	int64_t ins_id, sys_id;
	int32_t code;
	const uint8_t *lc;
	uint64_t lc_size;
	int t = r->type;
	int rc = umt_rec_ins(r, &ins_id, &lc, &lc_size);
	FUZZ_CHECK(t == UMT_REC_INSTRUCTION ? rc == 0 : rc == UMT_E_INVAL);
	if (rc == 0)
		FUZZ_CHECK(lc + lc_size == r->data + r->size && lc_size == r->size - 14);
	rc = umt_rec_syscall_id(r, &sys_id);
	int is_sys = t == UMT_REC_SYSCALL_ENTRY || t == UMT_REC_SYSCALL_EXIT ||
	             t == UMT_REC_SYSCALL_SKIPPED;
	FUZZ_CHECK(is_sys ? rc == 0 : rc == UMT_E_INVAL);
	rc = umt_rec_exit_code(r, &code);
	FUZZ_CHECK(t == UMT_REC_THREAD_END || t == UMT_REC_APP_END ? rc == 0 : rc == UMT_E_INVAL);
	walk_context(w, r);
	if (t == UMT_REC_INSTRUCTION)
		walk_ins_record(w, r);
	umt_syscall s;
	rc = umt_rec_syscall(w->t, r, &s);
	if (!is_sys) {
		FUZZ_CHECK(rc == UMT_E_INVAL);
	} else if (rc == 0) {
		FUZZ_CHECK((int64_t)s.id == sys_id);
		check_syscall(w, &s);
	} else if (rc == UMT_E_NO_VALUE) {
		FUZZ_CHECK(sys_id == -1 && t == UMT_REC_SYSCALL_EXIT);
	} else {
		FUZZ_CHECK(is_content_error(rc));
		w->bad_exec++;
	}
}

static void check_record(struct walk *w, const umt_rec *r, uint64_t id)
{
	int f = UMT_FILE_EXEC_VTABLE;
	FUZZ_CHECK(r->id == id);
	FUZZ_CHECK(in_file(w, f, r->data, r->size));
	FUZZ_CHECK(r->offset == (uint64_t)(r->data - file_data(w, f)));
	FUZZ_CHECK(r->offset >= 16);
	const char *name = umt_rec_type_name(r->type);
	FUZZ_CHECK(name != NULL && umt_rec_type_from_name(name) == r->type);
	FUZZ_CHECK(r->size >= min_size(r->type) && min_size(r->type) > 0);
	FUZZ_CHECK(umt_rec_min_size(r->type) == min_size(r->type));
	(void)umt_rec_is_incomplete(r);
	FUZZ_CHECK(r->type == r->data[4] && r->flags == r->data[5]);
	FUZZ_CHECK((uint32_t)r->thread_id == ld32(r->data));
	int64_t prev, next;
	FUZZ_CHECK(umt_exec_links(w->t, id, &prev, &next) == 0);
}

static void same_record(const umt_rec *a, const umt_rec *b)
{
	FUZZ_CHECK(a->data == b->data && a->size == b->size && a->id == b->id);
	FUZZ_CHECK(a->offset == b->offset && a->thread_id == b->thread_id);
	FUZZ_CHECK(a->type == b->type && a->flags == b->flags);
}

/* Iterates [begin, count) and checks each result against umt_exec_get(). */
static void walk_records(struct walk *w, uint64_t begin, int deep)
{
	umt_exec_iter it;
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, begin, UINT64_MAX) == 0);
	uint64_t id = begin;
	for (;;) {
		umt_rec r, g;
		int rc = umt_exec_iter_next(&it, &r);
		if (rc == 0)
			break;
		FUZZ_CHECK(id < w->count);
		int grc = umt_exec_get(w->t, id, &g);
		if (rc < 0) {
			FUZZ_CHECK(is_content_error(rc));
			FUZZ_CHECK(grc == rc);
			if (deep)
				w->bad_exec++;
		} else {
			FUZZ_CHECK(rc == 1 && grc == 0);
			same_record(&r, &g);
			if (deep) {
				check_record(w, &r, id);
				walk_typed(w, &r);
			}
		}
		id++;
	}
	FUZZ_CHECK(id == w->count);
	umt_rec r;
	FUZZ_CHECK(umt_exec_iter_next(&it, &r) == 0);
}

/* umt_exec_view_get() and umt_exec_get_batch() agree with umt_exec_get() on every ID. */
static void walk_views(struct walk *w)
{
	umt_exec_view v;
	umt_rec r, g, batch[8];
	uint64_t ids[8];
	FUZZ_CHECK(umt_exec_view_init(&v, w->t) == 0);
	for (uint64_t id = 0; id <= w->count; id++) {
		int rc = umt_exec_view_get(&v, id, &r), grc = umt_exec_get(w->t, id, &g);
		FUZZ_CHECK(rc == grc);
		if (rc == 0)
			same_record(&r, &g);
	}
	/* batches of 8 IDs running backwards from the end, one past the end first */
	for (uint64_t top = w->count + 1; top > 0; top = top > 8 ? top - 8 : 0) {
		size_t n = top < 8 ? (size_t)top : 8;
		int first = 0;
		for (size_t i = 0; i < n; i++)
			ids[i] = top - 1 - i;
		int rc = umt_exec_get_batch(w->t, ids, n, batch);
		for (size_t i = 0; i < n; i++) {
			int grc = umt_exec_get(w->t, ids[i], &g);
			if (grc == 0)
				same_record(&batch[i], &g);
			else
				FUZZ_CHECK(batch[i].data == NULL);
			if (first == 0)
				first = grc;
		}
		FUZZ_CHECK(rc == first);
	}
}

/* Blocks of up to @p max records cover the range exactly as umt_exec_iter_next() does. */
static void walk_blocks(struct walk *w, uint32_t max)
{
	umt_exec_iter it;
	umt_exec_block b;
	umt_rec r, g;
	uint64_t id = 0;
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, 0, UINT64_MAX) == 0);
	FUZZ_CHECK(umt_exec_iter_next_block(&it, &b, 0) == UMT_E_INVAL);
	for (;;) {
		int n = umt_exec_iter_next_block(&it, &b, max);
		if (n == 0)
			break;
		if (n < 0) { /* the bad record: skipped */
			FUZZ_CHECK(umt_exec_get(w->t, id, &g) == n);
			id++;
			continue;
		}
		FUZZ_CHECK((uint32_t)n <= max && b.count == (uint32_t)n && b.first == id);
		for (uint32_t i = 0; i < b.count; i++, id++) {
			FUZZ_CHECK(umt_exec_get(w->t, id, &g) == 0);
			umt_block_rec(&b, i, &r);
			same_record(&r, &g);
			FUZZ_CHECK(umt_block_data(&b, i) == g.data && umt_block_size(&b, i) == g.size);
		}
	}
	FUZZ_CHECK(id == w->count);
}

/* Ranges from umt_exec_split() cover [0, count) once; hints are no-ops in memory. */
static void walk_split_advise(struct walk *w)
{
	uint64_t bounds[8];
	for (unsigned n = 1; n < 8; n += 3) {
		FUZZ_CHECK(umt_exec_split(w->t, n, bounds) == 0);
		FUZZ_CHECK(bounds[0] == 0 && bounds[n] == w->count);
		for (unsigned k = 0; k < n; k++)
			FUZZ_CHECK(bounds[k] <= bounds[k + 1]);
	}
	FUZZ_CHECK(umt_exec_split(w->t, 0, bounds) == UMT_E_INVAL);
	umt_exec_iter it;
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, 0, UINT64_MAX) == 0);
	for (int a = UMT_ADVISE_NORMAL; a <= UMT_ADVISE_DONTNEED; a++) {
		FUZZ_CHECK(umt_exec_advise(w->t, 0, w->count, a) == 0);
		FUZZ_CHECK(umt_exec_iter_advise(&it, a) == 0);
		FUZZ_CHECK(umt_trace_advise(w->t, UMT_FILE_EXEC_VTABLE, a) == 0);
	}
	FUZZ_CHECK(umt_exec_advise(w->t, 0, w->count, UMT_ADVISE_DONTNEED + 1) == UMT_E_INVAL);
	FUZZ_CHECK(umt_exec_advise(w->t, 0, w->count + 1, UMT_ADVISE_NORMAL) == UMT_E_RANGE);
	if (w->count > 0)
		FUZZ_CHECK(umt_exec_advise(w->t, 1, 0, UMT_ADVISE_NORMAL) == UMT_E_RANGE);
}

static void walk_exec(struct walk *w)
{
	umt_rec r;
	umt_exec_iter it;
	FUZZ_CHECK(umt_exec_count(w->t) == w->count);
	FUZZ_CHECK(umt_exec_get(w->t, w->count, &r) == UMT_E_RANGE);
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, w->count + 1, UINT64_MAX) == UMT_E_RANGE);
	walk_records(w, 0, 1);
	walk_records(w, w->count / 2, 0);
	walk_views(w);
	walk_blocks(w, 1);
	walk_blocks(w, 7);
	walk_blocks(w, 1024);
	walk_split_advise(w);
	/* an empty range */
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, w->count, w->count) == 0);
	FUZZ_CHECK(umt_exec_iter_next(&it, &r) == 0);
}

/* ---- thread chains ------------------------------------------------------------- */

/* Walks a chain to its end; returns the last record returned, or -1. */
static int64_t walk_chain(struct walk *w, umt_thread_iter *it, int dir)
{
	uint64_t n = 0;
	int64_t last = -1;
	int32_t tid = 0;
	for (;;) {
		umt_rec r;
		int rc = umt_thread_iter_next(it, &r);
		if (rc == 0)
			break;
		if (rc < 0) {
			FUZZ_CHECK(is_content_error(rc));
			w->bad_links++;
			FUZZ_CHECK(umt_thread_iter_next(it, &r) == 0); /* at its end */
			break;
		}
		FUZZ_CHECK(rc == 1);
		FUZZ_CHECK(++n <= w->count); /* every walk ends within RecordCount steps */
		if (n > 1) {
			FUZZ_CHECK(dir == UMT_FORWARD ? (int64_t)r.id > last : (int64_t)r.id < last);
			FUZZ_CHECK(r.thread_id == tid);
		}
		last = (int64_t)r.id;
		tid = r.thread_id;
	}
	return last;
}

static void walk_chains_from(struct walk *w, uint64_t id)
{
	umt_thread_iter it;
	for (int dir = UMT_BACKWARD; dir <= UMT_FORWARD; dir += 2) {
		int rc = umt_thread_iter_init(&it, w->t, id, dir);
		FUZZ_CHECK(rc == 0);
		walk_chain(w, &it, dir);
	}
}

static void walk_threads(struct walk *w)
{
	uint64_t n = umt_thread_count(w->t);
	FUZZ_CHECK(n == w->info.thread_count);
	for (uint64_t id = 0; id < n && id < MAX_ROWS; id++) {
		const umt_thread_rec *row;
		FUZZ_CHECK(umt_thread_get(w->t, id, &row) == 0);
		FUZZ_CHECK(in_file(w, UMT_FILE_THREAD, row, 40));
		if (id < MAX_WIN_TID) {
			uint64_t found;
			FUZZ_CHECK(umt_thread_find_win_tid(w->t, row->WinTID, &found) == 0);
			const umt_thread_rec *frow;
			FUZZ_CHECK(found <= id && umt_thread_get(w->t, found, &frow) == 0);
			FUZZ_CHECK(frow->WinTID == row->WinTID);
		}
		if (id >= MAX_CHAINS)
			continue;
		umt_thread_iter it;
		int rc = umt_thread_iter_init_thread(&it, w->t, id);
		if (rc < 0) {
			FUZZ_CHECK(rc == UMT_E_BOUNDS);
			w->bad_links++;
			continue;
		}
		int64_t last = walk_chain(w, &it, UMT_FORWARD);
		if (last >= 0) {
			FUZZ_CHECK(umt_thread_iter_init(&it, w->t, (uint64_t)last, UMT_BACKWARD) == 0);
			walk_chain(w, &it, UMT_BACKWARD);
		}
	}
	const umt_thread_rec *row;
	FUZZ_CHECK(umt_thread_get(w->t, n, &row) == UMT_E_RANGE);
	umt_thread_iter it;
	FUZZ_CHECK(umt_thread_iter_init_thread(&it, w->t, n) == UMT_E_RANGE);
	FUZZ_CHECK(umt_thread_iter_init(&it, w->t, w->count, UMT_FORWARD) == UMT_E_RANGE);
	if (w->count > 0)
		FUZZ_CHECK(umt_thread_iter_init(&it, w->t, 0, 0) == UMT_E_INVAL);
	/* chains through a few records, whatever their thread */
	uint64_t step = w->count / MAX_CHAINS + 1;
	for (uint64_t id = 0; id < w->count; id += step)
		walk_chains_from(w, id);
}

/* ---- instruction table ---------------------------------------------------------- */

static void walk_decoded(struct walk *w, uint64_t id)
{
	umt_decoded d;
	int rc = umt_ins_decoded(w->t, id, &d);
	if (rc < 0) {
		FUZZ_CHECK(rc == UMT_E_BOUNDS || rc == UMT_E_CORRUPT);
		w->bad_ins++;
		return;
	}
	/* a second call takes the checked-row path */
	umt_decoded d2;
	FUZZ_CHECK(umt_ins_decoded(w->t, id, &d2) == 0 && d2.ins == d.ins);
	const umt_decoded_ins *di = d.ins;
	FUZZ_CHECK(d.ins_id == id);
	FUZZ_CHECK(in_file(w, UMT_FILE_INS, di, sizeof *di));
	FUZZ_CHECK(d.offset == (uint64_t)((const uint8_t *)di - file_data(w, UMT_FILE_INS)));
	FUZZ_CHECK(in_file(w, UMT_FILE_INS, d.slots, 12ull * di->LCCount));
	FUZZ_CHECK(di->ExpCount <= 4 && di->FirstOutSlot <= di->FirstAfterSlot);
	FUZZ_CHECK(di->FirstAfterSlot <= di->LCCount);
	for (unsigned i = 0; i < 5; i++)
		FUZZ_CHECK((umt_decoded_operand(&d, i) != NULL) == (i < di->ExpCount));
	for (unsigned s = 0; s <= di->LCCount; s++) {
		FUZZ_CHECK((umt_decoded_slot(&d, s) != NULL) == (s < di->LCCount));
		int g = umt_decoded_slot_group(&d, s);
		if (s == di->LCCount)
			FUZZ_CHECK(g == UMT_E_RANGE);
		else
			FUZZ_CHECK(g == (s < di->FirstOutSlot     ? UMT_SLOT_GROUP_BEFORE
			                 : s < di->FirstAfterSlot ? UMT_SLOT_GROUP_BEFORE_WRITE_ONLY
			                                          : UMT_SLOT_GROUP_AFTER));
	}
	(void)(umt_decoded_is_rep(&d) + umt_decoded_is_repne(&d) + umt_decoded_is_lock(&d) +
	       umt_decoded_is_32in64(&d) + umt_decoded_reads_memory(&d) +
	       umt_decoded_writes_memory(&d));
}

/*
 * The row's code bytes through Zydis: decoded (or refused with a content
 * error) the same way twice, the second time from the remembered table; a
 * decoded row is CodeSize bytes long and its names are known.
 */
static void walk_semantics(struct walk *w, uint64_t id, const umt_ins_rec *row)
{
	umt_sem s, s2;
	umt_sem_detail d;
	int rc = umt_sem_get(w->t, id, &s);
	if (rc < 0) {
		FUZZ_CHECK(rc == UMT_E_CORRUPT || (rc == UMT_E_BOUNDS && row->CodeSize > 15));
		FUZZ_CHECK(umt_sem_get(w->t, id, &s2) == rc && umt_sem_decode(w->t, id, &d) == rc);
		return;
	}
	FUZZ_CHECK(umt_sem_get(w->t, id, &s2) == 0 && memcmp(&s, &s2, sizeof s) == 0);
	FUZZ_CHECK(s.length == row->CodeSize && s.length >= 1);
	FUZZ_CHECK(((s.flags & UMT_SEM_F_64BIT) != 0) == (row->CSis64Bits != 0));
	FUZZ_CHECK(umt_sem_mnemonic_name(s.mnemonic) != NULL);
	FUZZ_CHECK(umt_sem_category_name(s.category) != NULL);
	FUZZ_CHECK(umt_sem_zydis_category_name(s.zydis_category) != NULL);
	FUZZ_CHECK((s.flags & UMT_SEM_F_TARGET) ? umt_sem_is_branch(&s) : s.target == 0);
	FUZZ_CHECK(!(s.flags & UMT_SEM_F_64BIT) ? s.target <= 0xffffffffu : 1);
	FUZZ_CHECK(umt_sem_decode(w->t, id, &d) == 0 && memcmp(&d.sem, &s, sizeof s) == 0);
	FUZZ_CHECK(d.operand_count <= UMT_SEM_MAX_OPERANDS && memchr(d.text, 0, sizeof d.text));
	for (unsigned i = 0; i < d.operand_count; i++)
		FUZZ_CHECK(d.operands[i].kind >= UMT_SEM_OP_REGISTER &&
		           d.operands[i].kind <= UMT_SEM_OP_IMMEDIATE);
}

static void walk_ins_table(struct walk *w)
{
	uint64_t n = umt_ins_count(w->t);
	FUZZ_CHECK(n == w->info.ins_count);
	int kind = umt_ins_slot_name_kind(w->t);
	FUZZ_CHECK(kind == w->info.ins_record_version);
	for (uint64_t id = 0; id < n && id < MAX_ROWS; id++) {
		const umt_ins_rec *row;
		FUZZ_CHECK(umt_ins_get(w->t, id, &row) == 0);
		FUZZ_CHECK(in_file(w, UMT_FILE_INS, row, 56));
		const uint8_t *code;
		unsigned code_size;
		int rc = umt_ins_code(w->t, id, &code, &code_size);
		if (rc == 0)
			FUZZ_CHECK(code_size <= 15 && code_size == row->CodeSize);
		else
			FUZZ_CHECK(rc == UMT_E_BOUNDS && row->CodeSize > 15);
		const char *text;
		size_t len;
		rc = umt_ins_disasm(w->t, id, &text, &len);
		if (rc == 0) {
			FUZZ_CHECK(in_file(w, UMT_FILE_INS, text, len + 1));
			FUZZ_CHECK(text[len] == '\0' && strlen(text) == len);
		} else {
			FUZZ_CHECK(rc == UMT_E_BOUNDS || rc == UMT_E_CORRUPT);
			w->bad_ins++;
		}
		walk_decoded(w, id);
		walk_semantics(w, id, row);
		uint64_t mod;
		rc = umt_ins_module(w->t, id, &mod);
		if (rc == 0)
			FUZZ_CHECK(mod < w->info.module_count && (int64_t)mod == row->ModuleID);
		else
			FUZZ_CHECK(rc == UMT_E_NOT_FOUND || rc == UMT_E_BOUNDS);
	}
	const umt_ins_rec *row;
	FUZZ_CHECK(umt_ins_get(w->t, n, &row) == UMT_E_RANGE);
}

/* ---- modules, address space ----------------------------------------------------- */

static void walk_module_names(struct walk *w, uint64_t id)
{
	for (int which = UMT_MODULE_WIN_NAME; which <= UMT_MODULE_DEVICE_NAME; which++) {
		const uint8_t *units;
		size_t count;
		int rc = umt_module_name_utf16(w->t, id, which, &units, &count);
		char small[8], big[512];
		long n1 = umt_module_name(w->t, id, which, small, sizeof small);
		long n2 = umt_module_name(w->t, id, which, big, sizeof big);
		FUZZ_CHECK(memchr(small, '\0', sizeof small) != NULL);
		FUZZ_CHECK(memchr(big, '\0', sizeof big) != NULL);
		if (rc < 0) {
			FUZZ_CHECK(rc == UMT_E_BOUNDS);
			FUZZ_CHECK(n1 == rc && n2 == rc);
			w->bad_mod++;
			continue;
		}
		FUZZ_CHECK(in_file(w, UMT_FILE_MODULE, units, 2ull * count));
		size_t need = umt_utf16_to_utf8(units, count, NULL, 0);
		FUZZ_CHECK(n1 >= 0 && (size_t)n1 == need && n2 == n1);
		FUZZ_CHECK(need <= 3 * count);
		if ((size_t)n2 < sizeof big)
			FUZZ_CHECK(strlen(big) <= (size_t)n2 && big[n2] == '\0');
	}
}

static void walk_modules(struct walk *w)
{
	uint64_t n = umt_module_count(w->t);
	FUZZ_CHECK(n == w->info.module_count);
	for (uint64_t id = 0; id < n && id < MAX_ROWS; id++) {
		const umt_module_rec *row;
		const umt_module_rec_2015 *row15;
		FUZZ_CHECK(umt_module_get(w->t, id, &row) == 0);
		FUZZ_CHECK(in_file(w, UMT_FILE_MODULE, row, 48));
		int rc = umt_module_get_2015(w->t, id, &row15);
		if (w->info.module_row_size >= 64) {
			FUZZ_CHECK(rc == 0 && in_file(w, UMT_FILE_MODULE, row15, 64));
			int64_t sec;
			uint32_t nsec;
			umt_filetime_to_unix(row15->LastFileWriteTime, &sec, &nsec);
			FUZZ_CHECK(nsec < 1000000000u);
		} else
			FUZZ_CHECK(rc == UMT_E_NO_VALUE);
		walk_module_names(w, id);
		uint64_t found;
		uint64_t addr = (uint64_t)row->StartAddr, eid = (uint64_t)row->LoadEID;
		rc = umt_module_find(w->t, addr, eid, &found);
		FUZZ_CHECK(rc == 0 || rc == UMT_E_NOT_FOUND);
		if (rc == 0) {
			const umt_module_rec *f;
			FUZZ_CHECK(found < n && umt_module_get(w->t, found, &f) == 0);
			FUZZ_CHECK((uint64_t)f->StartAddr <= addr && addr <= (uint64_t)f->EndAddr);
			FUZZ_CHECK((uint64_t)f->LoadEID <= eid &&
			           (f->UnloadEID == -1 || eid < (uint64_t)f->UnloadEID));
		}
	}
	const umt_module_rec *row;
	FUZZ_CHECK(umt_module_get(w->t, n, &row) == UMT_E_RANGE);
}

static void find_address(struct walk *w, uint64_t addr)
{
	uint64_t id;
	int rc = umt_address_space_find(w->t, addr, &id);
	FUZZ_CHECK(rc == 0 || rc == 1);
	if (rc == 1) {
		const umt_address_range *r;
		FUZZ_CHECK(umt_address_range_get(w->t, id, &r) == 0);
		FUZZ_CHECK((uint64_t)r->First <= addr && addr <= (uint64_t)r->Last);
	}
}

static void walk_address_space(struct walk *w)
{
	uint64_t n = umt_address_range_count(w->t);
	FUZZ_CHECK(n == w->info.address_range_count);
	for (uint64_t id = 0; id < n && id < MAX_ROWS; id++) {
		const umt_address_range *r;
		FUZZ_CHECK(umt_address_range_get(w->t, id, &r) == 0);
		FUZZ_CHECK(in_file(w, UMT_FILE_ADDRESS_SPACE, r, sizeof *r));
		find_address(w, (uint64_t)r->First);
		find_address(w, (uint64_t)r->Last);
		find_address(w, (uint64_t)r->First - 1);
	}
	const umt_address_range *r;
	FUZZ_CHECK(umt_address_range_get(w->t, n, &r) == UMT_E_RANGE);
}

/* ---- context map, names ---------------------------------------------------------- */

static void walk_context_map(struct walk *w)
{
	const umt_context_map *m = umt_context_map_get(w->t);
	FUZZ_CHECK(m != NULL && in_file(w, UMT_FILE_CONTEXT_MAP, m, sizeof *m));
	FUZZ_CHECK(m->ElemCount == w->info.context_map_elems && m->ElemCount <= 512);
	for (int reg = 0; reg < m->ElemCount; reg++) {
		umt_reg_desc d;
		FUZZ_CHECK(umt_context_map_reg(w->t, reg, &d) == 0);
		FUZZ_CHECK(d.reg == reg && strlen(d.name) <= UMT_REG_NAME_SIZE);
		if (d.name[0] != '\0') {
			int r = umt_reg_by_name(w->t, d.name);
			umt_reg_desc e;
			FUZZ_CHECK(r >= 0 && r <= reg && umt_context_map_reg(w->t, r, &e) == 0);
			FUZZ_CHECK(strcasecmp(e.name, d.name) == 0);
		}
	}
	umt_reg_desc d;
	FUZZ_CHECK(umt_context_map_reg(w->t, m->ElemCount, &d) == UMT_E_RANGE);
	FUZZ_CHECK(umt_reg_by_name(w->t, "") == UMT_E_INVAL);
}

static void walk_reg_names(struct walk *w)
{
	char buf[UMT_REG_NAME_MAX], tiny[3];
	int top = (int)w->info.context_map_elems + 4;
	for (int reg = -4; reg < top; reg++) {
		FUZZ_CHECK(umt_reg_name(w->t, reg, buf, sizeof buf) == buf);
		FUZZ_CHECK(strlen(buf) > 0 && strlen(buf) < sizeof buf);
		FUZZ_CHECK(umt_reg_name(w->t, reg, tiny, sizeof tiny) == tiny);
		FUZZ_CHECK(strlen(tiny) < sizeof tiny);
	}
}

/* ---- trace.xml ---------------------------------------------------------------------- */

static void walk_meta(struct walk *w)
{
	const umt_meta *m, *m2;
	int rc = umt_trace_meta(w->t, &m);
	int rc2 = umt_trace_meta(w->t, &m2);
	FUZZ_CHECK(rc == rc2); /* a failure is remembered, a success kept */
	int check = umt_trace_meta_check(w->t);
	if (rc < 0) {
		FUZZ_CHECK(rc == UMT_E_XML && check == UMT_E_XML);
		w->bad_xml++;
		return;
	}
	FUZZ_CHECK(m == m2);
	FUZZ_CHECK(check == 0 || check == UMT_E_CORRUPT);
	if (check < 0)
		w->bad_xml++;
	int layout = umt_meta_layout(m);
	FUZZ_CHECK(w->info.has_trace_xml ? layout == UMT_META_ROOTLESS || layout == UMT_META_2015
	                                 : layout == UMT_META_NONE);
	umt_meta_info mi;
	FUZZ_CHECK(umt_meta_get_info(m, &mi) == 0 && mi.layout == layout);
	size_t n = umt_meta_leaf_count(m);
	for (size_t i = 0; i < n; i++) {
		const char *path, *text;
		FUZZ_CHECK(umt_meta_leaf(m, i, &path, &text) == 0 && path && text);
		FUZZ_CHECK(umt_meta_get(m, path) != NULL);
	}
	FUZZ_CHECK(umt_meta_leaf(m, n, NULL, NULL) == UMT_E_RANGE);
	char buf[UMT_REG_NAME_MAX];
	for (int which = UMT_SPECIAL_STACKPUSH; which <= UMT_SPECIAL_GSBASE; which++) {
		int reg = umt_xed_special_reg(mi.xed_number, which);
		FUZZ_CHECK(reg > 0);
		FUZZ_CHECK(umt_reg_name(w->t, reg, buf, sizeof buf) == buf);
		const char *xn = umt_xed_reg_name(mi.xed_number, reg);
		FUZZ_CHECK(xn != NULL && strcmp(xn, buf) == 0);
	}
}

/* ---- umt_verify() ----------------------------------------------------------------- */

struct verify_count {
	uint64_t calls, errors, warnings, progress;
	int stop_after; /* on_problem returns 1 at this call (0: never) */
};

static int on_problem(const umt_problem *p, void *ctx)
{
	struct verify_count *vc = ctx;
	FUZZ_CHECK(p->status < 0 && p->message != NULL && p->message[0] != '\0');
	FUZZ_CHECK(p->severity == UMT_SEVERITY_ERROR || p->severity == UMT_SEVERITY_WARNING);
	FUZZ_CHECK(p->check != 0 && (p->check & (p->check - 1)) == 0 &&
	           (p->check & ~(unsigned)UMT_CHECK_ALL) == 0);
	FUZZ_CHECK(p->file >= 0 && p->file < UMT_FILE_COUNT);
	FUZZ_CHECK(p->id >= -1);
	vc->calls++;
	if (p->severity == UMT_SEVERITY_ERROR)
		vc->errors++;
	else
		vc->warnings++;
	return vc->stop_after != 0 && vc->calls >= (uint64_t)vc->stop_after;
}

static void on_progress(uint64_t done, uint64_t total, void *ctx)
{
	struct verify_count *vc = ctx;
	FUZZ_CHECK(done <= total);
	vc->progress++;
}

static int run_verify(const umt_trace *t, uint64_t cap, int stop_after,
                      struct verify_count *vc, umt_verify_result *res)
{
	umt_verify_options o;
	umt_verify_options_init(&o);
	FUZZ_CHECK(o.checks == UMT_CHECK_ALL && o.max_problems == 1000);
	o.max_problems = cap;
	o.on_problem = on_problem;
	o.on_progress = on_progress;
	memset(vc, 0, sizeof *vc);
	vc->stop_after = stop_after;
	o.ctx = vc;
	int rc = umt_verify(t, &o, res);
	FUZZ_CHECK(rc == 0 || rc == UMT_E_CORRUPT || rc == UMT_E_NOMEM);
	if (rc == UMT_E_NOMEM)
		return rc;
	FUZZ_CHECK(vc->errors == res->errors && vc->warnings == res->warnings);
	FUZZ_CHECK((rc == 0) == (res->errors == 0));
	return rc;
}

static void walk_verify(struct walk *w)
{
	struct verify_count vc, vc1;
	umt_verify_result res, res1;
	int rc = run_verify(w->t, 0, 0, &vc, &res);
	if (rc == UMT_E_NOMEM)
		return;
	FUZZ_CHECK(!res.stopped && res.records <= w->count);
	/* a cap of one problem, then a callback that stops at the first one */
	for (int by_callback = 0; by_callback <= 1; by_callback++) {
		if (run_verify(w->t, by_callback ? 0 : 1, by_callback, &vc1, &res1) == UMT_E_NOMEM)
			continue;
		FUZZ_CHECK(vc1.calls == (vc.calls > 0));
		/* stopping at the only problem may or may not count as early */
		if (vc.calls != 1)
			FUZZ_CHECK(res1.stopped == (vc.calls > 1));
	}
	FUZZ_CHECK(umt_verify(w->t, NULL, NULL) == rc);
	/*
	 * A trace verify passes completely must not hold anything an accessor
	 * refuses. (A placeholder verify that checks no record is exempt.)
	 */
	if (rc == 0 && w->count > 0 && res.records == w->count) {
		FUZZ_CHECK(w->bad_exec == 0);
		FUZZ_CHECK(w->bad_links == 0);
		FUZZ_CHECK(w->bad_ins == 0);
		FUZZ_CHECK(w->bad_sys == 0);
		FUZZ_CHECK(w->bad_mod == 0);
		FUZZ_CHECK(w->bad_xml == 0);
	}
}

/* ---- the target ----------------------------------------------------------------------- */

static void check_info(struct walk *w)
{
	umt_trace_info *i = &w->info;
	FUZZ_CHECK(umt_trace_get_info(w->t, i) == 0);
	w->count = i->exec_count;
	FUZZ_CHECK(i->exec_version == 0 || i->exec_version == 1);
	FUZZ_CHECK(i->ins_record_version == 0 || i->ins_record_version == 1);
	FUZZ_CHECK(i->unified_ids_version == 0 || i->unified_ids_version == 1);
	FUZZ_CHECK(i->has_trace_xml == (w->in->buf[UMT_FILE_TRACE_XML].data != NULL));
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		FUZZ_CHECK(umt_trace_file_size(w->t, f) == file_size(w, f));
	FUZZ_CHECK(umt_trace_changed(w->t) == 0);
	for (unsigned bit = 1; bit < 0x100; bit <<= 1)
		(void)umt_exec_flag_name(i->exec_version, bit);
	/* no record of an undefined type can be long enough */
	for (unsigned type = 0; type < 256; type++)
		FUZZ_CHECK(umt_rec_type_name((int)type) != NULL
		                   ? umt_rec_min_size(type) == min_size((uint8_t)type)
		                   : umt_rec_min_size(type) > UINT32_MAX);
}

/* A failure of an accessor of a salvaged trace: content, or the failure that lost a table. */
static int salvage_error(int rc)
{
	return is_content_error(rc) || rc == UMT_E_MISSING || rc == UMT_E_RANGE ||
	       rc == UMT_E_NOT_FOUND || rc == UMT_E_NO_VALUE;
}

/*
 * A trace that only opens with UMT_OPEN_SALVAGE: every record, row and
 * table, one past the declared counts included; each call succeeds or fails
 * cleanly, and every view it returns lies inside its file.
 */
static void walk_salvaged(struct walk *w)
{
	umt_trace_info *i = &w->info;
	FUZZ_CHECK(umt_trace_get_info(w->t, i) == 0);
	FUZZ_CHECK(i->salvaged && i->exec_count <= i->exec_declared);
	umt_rec r;
	for (uint64_t id = 0; id <= i->exec_declared && id < MAX_ROWS; id++) {
		int rc = umt_exec_get(w->t, id, &r);
		FUZZ_CHECK(rc == 0 ? id < i->exec_count && in_file(w, UMT_FILE_EXEC_VTABLE, r.data, r.size)
		                   : salvage_error(rc));
		umt_context c;
		umt_mem_ref m;
		if (rc == 0 && umt_rec_context(w->t, &r, &c) == 0 && c.mem_count > 0 &&
		    umt_context_mem_get(&c, 0, &m) == 0)
			FUZZ_CHECK(in_file(w, UMT_FILE_EXEC_VTABLE, m.data, m.size));
		int64_t p, n;
		rc = umt_exec_links(w->t, id, &p, &n);
		FUZZ_CHECK(rc == 0 || salvage_error(rc));
		umt_thread_iter ti;
		if (umt_thread_iter_init(&ti, w->t, id, UMT_FORWARD) == 0)
			while ((rc = umt_thread_iter_next(&ti, &r)) == 1)
				FUZZ_CHECK(r.id < i->exec_count);
	}
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t seen = 0;
	int got;
	FUZZ_CHECK(umt_exec_iter_init(&it, w->t, 0, UINT64_MAX) == 0);
	while ((got = umt_exec_iter_next_block(&it, &b, 64)) != 0)
		if (got > 0)
			seen += (uint64_t)got;
		else
			FUZZ_CHECK(is_content_error(got));
	FUZZ_CHECK(seen <= i->exec_count);
	const umt_thread_rec *th;
	const umt_module_rec *mod;
	const umt_ins_rec *ins;
	const umt_address_range *ar;
	umt_syscall s;
	for (uint64_t id = 0; id < 64; id++) {
		int rc = umt_thread_get(w->t, id, &th);
		FUZZ_CHECK(rc == 0 ? id < i->thread_count : salvage_error(rc));
		rc = umt_module_get(w->t, id, &mod);
		FUZZ_CHECK(rc == 0 ? id < i->module_count : salvage_error(rc));
		rc = umt_ins_get(w->t, id, &ins);
		FUZZ_CHECK(rc == 0 ? id < i->ins_count : salvage_error(rc));
		rc = umt_address_range_get(w->t, id, &ar);
		FUZZ_CHECK(rc == 0 ? id < i->address_range_count : salvage_error(rc));
		rc = umt_syscall_get(w->t, id, &s);
		FUZZ_CHECK(rc == 0 ? in_file(w, UMT_FILE_SYSCALL_VTABLE, s.rec, s.size) : salvage_error(rc));
	}
	umt_verify_result res;
	FUZZ_CHECK(umt_verify(w->t, NULL, &res) == UMT_E_CORRUPT && res.errors > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_forbid_xml_print();
	struct input in;
	split(data, size, &in);
	umt_trace *t = NULL;
	int rc = umt_trace_open_mem(in.buf, 0, &t);
	if (rc < 0) {
		FUZZ_CHECK(t == NULL);
		FUZZ_CHECK(rc == UMT_E_MISSING || rc == UMT_E_NOMEM || is_content_error(rc));
		FUZZ_CHECK(umt_errmsg()[0] != '\0' && umt_strerror(rc)[0] != '\0');
		rc = umt_trace_open_mem(in.buf, UMT_OPEN_SALVAGE, &t);
		FUZZ_CHECK(rc == 0 ? t != NULL : t == NULL && rc != UMT_E_INVAL);
		if (rc == 0) {
			struct walk w;
			memset(&w, 0, sizeof w);
			w.t = t;
			w.in = &in;
			walk_salvaged(&w);
			umt_trace_close(t);
		}
		release(&in);
		return 0;
	}
	struct walk w;
	memset(&w, 0, sizeof w);
	w.t = t;
	w.in = &in;
	check_info(&w);
	walk_exec(&w);
	walk_threads(&w);
	walk_ins_table(&w);
	walk_syscall_table(&w);
	walk_modules(&w);
	walk_address_space(&w);
	walk_context_map(&w);
	walk_reg_names(&w);
	walk_meta(&w);
	walk_verify(&w);
	umt_trace_close(t);
	release(&in);
	return 0;
}
