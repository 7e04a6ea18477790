/*
 * libumtrace - where a value came from (index.h section 9): a depth-first
 * walk of defining records. A node is a value used at a record (a register
 * or memory range); its defining record is the last writer before that use:
 *   - a register: the latest record of the user's thread at or before it
 *     (phase 0 of the user itself: its gap, its dump) that wrote one of the
 *     register's bytes, found by walking the thread's chain back to its
 *     latest checkpoint, whose last writes answer beyond it;
 *   - memory: the latest write or context block overlapping the range in
 *     the memory history (any thread), the user's own writes excluded.
 * An instruction defining record is expanded into its inputs: the slots of
 * its before group of read and read-write operands (registers the map
 * places, and memory reads), each used at that record; registers of a
 * memory phrase (segment, base, index) serving a MEM0 or MEM1 access and
 * read by no explicit operand are address-only inputs, listed and not
 * followed; so is the stack pointer of an implicit stack access (push,
 * pop, call, ret) unless the value traced is the stack pointer itself.
 */
#include <stdlib.h>

#include "regs.h"

#define DEFAULT_DEPTH 10u
#define DEFAULT_NODES 10000u

/* An instruction record whose inputs are being listed. */
struct frame {
	unsigned depth;      /* of its inputs */
	uint64_t rec, thread;
	unsigned next;       /* the next slot to look at */
	int traced;          /* the common name of the register it defined, -1 for memory */
};

struct umt_origin {
	const umt_index *ix;
	const struct regs_data *d;
	umt_origin_query q;
	struct frame *stack;
	size_t n, cap;
	bool root_done;
	uint64_t emitted;
	struct rstate ck;
	int sp_common;       /* the common name of the stack pointer (rsp), -1 when unnamed */
	umt_state st;
	uint8_t *val, *known;
	size_t vcap;
};

void umt_origin_query_init(umt_origin_query *q, uint64_t at, int reg)
{
	if (q == NULL)
		return;
	memset(q, 0, sizeof *q);
	q->at = at;
	q->reg = reg;
	q->depth = DEFAULT_DEPTH;
	q->max_nodes = DEFAULT_NODES;
}

/* ---- defining records ------------------------------------------------------------------ */

/* Whether a record's effects write [off, off + len), and whether only by its gap. */
struct touch {
	uint32_t off, len;
	bool wrote, other;
};

static int touch_sink(void *arg, const struct reg_effect *e)
{
	struct touch *t = arg;
	if (e->kind == RE_OBSERVE || e->off >= t->off + t->len || t->off >= e->off + e->len)
		return 0;
	t->wrote = true;
	t->other |= e->kind != RE_GAP;
	return 0;
}

static int touches(const struct regctx *c, const umt_rec *r, int phase, uint32_t off,
                   uint32_t len, struct touch *t)
{
	*t = (struct touch){off, len, false, false};
	return umt__regs_effects(c, r, phase, touch_sink, t);
}

/* *id, *kind of a defining record found (UMT_ORIGIN_UNKNOWN for a gap). */
static int definer_kind(const struct regctx *c, uint64_t id, uint32_t off, uint32_t len,
                        uint64_t *out, int *kind)
{
	umt_rec r;
	struct touch t;
	*out = id;
	*kind = UMT_ORIGIN_UNKNOWN;
	if (id == UMT_NO_RECORD)
		return 0;
	int rc = umt_exec_get(c->t, id, &r);
	if (rc == 0)
		rc = touches(c, &r, -1, off, len, &t);
	if (rc == 0 && t.other)
		*kind = r.type == UMT_REC_INSTRUCTION ? UMT_ORIGIN_INSTRUCTION : UMT_ORIGIN_CONTEXT;
	return rc;
}

/* The last writer of dump bytes [off, off + len) of @p thread at record @p at. */
static int reg_definer(struct umt_origin *o, uint64_t thread, uint64_t at, uint32_t off,
                       uint32_t len, uint64_t *id, int *kind)
{
	const struct regs_data *d = o->d;
	uint64_t entry, x = UMT_NO_RECORD, found = UMT_NO_RECORD;
	int has = umt__regs_find(d, thread, at, &entry);
	if (has < 0)
		return has;
	if (has > 0)
		memcpy(&x, &d->entries[entry].Record, 8);
	umt_thread_iter it;
	umt_rec r;
	struct touch t;
	int rc = umt_thread_iter_init(&it, d->ctx.t, at, UMT_BACKWARD);
	while (rc == 0 && (rc = umt_thread_iter_next(&it, &r)) > 0) {
		if ((x != UMT_NO_RECORD && r.id <= x) || (uint64_t)r.thread_id != thread)
			break;
		rc = touches(&d->ctx, &r, r.id == at ? 0 : -1, off, len, &t);
		if (rc == 0 && t.wrote) {
			found = r.id;
			break;
		}
	}
	if (rc < 0)
		return rc;
	if (found == UMT_NO_RECORD && has > 0) { /* beyond the walk: the checkpoint's last writes */
		uint64_t rec;
		if ((rc = umt__regs_load(d, entry, &o->ck, &rec)) < 0)
			return rc;
		for (uint32_t b = off; b < off + len; b++) {
			uint64_t lw = umt__rs_lw(&o->ck, b);
			if (lw != UMT_NO_RECORD && (found == UMT_NO_RECORD || lw > found))
				found = lw;
		}
	}
	return definer_kind(&d->ctx, found, off, len, id, kind);
}

/* The last write or context block over [address, address + length) before @p at's writes. */
static int mem_definer(struct umt_origin *o, uint64_t at, uint64_t address, uint64_t length,
                       uint64_t *id, int *kind)
{
	umt_history_query q;
	umt_history_query_init(&q, address, length);
	q.kinds = UMT_ACCESS_WRITE | UMT_ACCESS_CONTEXT;
	q.to = at + 1;
	q.reverse = 1;
	umt_history *h;
	umt_access a;
	int rc = umt_history_open(o->ix, &q, &h);
	*id = UMT_NO_RECORD;
	*kind = UMT_ORIGIN_UNKNOWN;
	while (rc == 0 && (rc = umt_history_next(h, &a)) > 0) {
		rc = 0;
		if (a.record_id == at && a.kind == UMT_ACCESS_WRITE)
			continue; /* the user's own writes come after its use */
		*id = a.record_id;
		*kind = a.kind == UMT_ACCESS_CONTEXT ? UMT_ORIGIN_CONTEXT : UMT_ORIGIN_INSTRUCTION;
		break;
	}
	umt_history_close(h);
	return rc < 0 ? rc : 0;
}

/* ---- nodes ------------------------------------------------------------------------------ */

static int value_room(struct umt_origin *o, size_t n)
{
	if (n <= o->vcap)
		return 0;
	uint8_t *v = realloc(o->val, n), *k = v ? realloc(o->known, n) : NULL;
	if (v)
		o->val = v;
	if (k)
		o->known = k;
	if (v == NULL || k == NULL)
		return umt__failf(UMT_E_NOMEM, "origin: out of memory");
	o->vcap = n;
	return 0;
}

/* Pushes the inputs of @p node's defining record when the walk goes on from it. */
static int expand(struct umt_origin *o, const umt_origin_node *node)
{
	if (node->kind != UMT_ORIGIN_INSTRUCTION || node->role == UMT_ORIGIN_ADDRESS ||
	    node->depth >= o->q.depth)
		return 0;
	for (uint32_t i = 0; i < node->size; i++)
		if (!node->known[i])
			return 0; /* an unknown value ends its chain */
	umt_rec r;
	int rc = umt_exec_get(o->ix->trace, node->id, &r);
	if (rc < 0)
		return rc;
	uint64_t first = UMT_NO_RECORD;
	if (r.thread_id >= 0 && (uint64_t)r.thread_id < o->d->thread_count)
		memcpy(&first, &o->d->threads[r.thread_id].FirstRecord, 8);
	if (first == UMT_NO_RECORD || first == node->id)
		return 0; /* the first record of its thread (or of none) ends the chain */
	if (o->n == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct frame *p = realloc(o->stack, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "origin: out of memory");
		o->stack = p, o->cap = cap;
	}
	const umt_context_map *map = o->d->ctx.map;
	int traced = node->reg >= 0 && node->reg < map->ElemCount ? map->CommonName[node->reg] : -1;
	o->stack[o->n++] = (struct frame){node->depth + 1, node->id, (uint64_t)r.thread_id, 0, traced};
	return 0;
}

/* What the memory slots of @p x are: MEM0, MEM1, implicit stack ones; an AGEN slot. */
struct shape {
	bool mem0, mem1, stack, agen;
};

static struct shape shape_of(const umt_ins_exec *x)
{
	struct shape sh = {false, false, false, false};
	for (unsigned i = 0; i < x->dec.ins->LCCount; i++) {
		const umt_lc_slot *s = &x->dec.slots[i];
		bool m0 = s->RegName == (int16_t)UMT_REG_MEM0, m1 = s->RegName == (int16_t)UMT_REG_MEM1;
		sh.mem0 |= s->AddrWidth > 0 && m0;
		sh.mem1 |= s->AddrWidth > 0 && m1;
		sh.stack |= s->AddrWidth > 0 && !m0 && !m1; /* STACKPUSH, STACKPOP */
		sh.agen |= s->RegName == (int16_t)UMT_REG_AGEN;
	}
	return sh;
}

/* The role of before slot @p k of @p x for frame @p f: 0 when it is not an input. */
static int slot_role(const struct umt_origin *o, const struct frame *f, const umt_ins_exec *x,
                     unsigned k)
{
	const umt_decoded_ins *d = x->dec.ins;
	const umt_lc_slot *s = &x->dec.slots[k];
	if (k >= d->FirstOutSlot || s->RegName == (int16_t)UMT_REG_AGEN)
		return 0; /* write-only old values; a computed address: its phrase registers are */
	struct shape sh = shape_of(x);
	bool phrase = (sh.mem0 && !sh.agen && (k == d->Mem0SegSlot || k == d->Mem0BaseSlot ||
	                                       k == d->Mem0IndexSlot)) ||
	              (sh.mem1 && k == d->Mem1BaseSlot);
	for (unsigned i = 0; phrase && i < d->ExpCount && i < 4; i++)
		if (d->ExpOper[i].BeforeSlot == k && (d->ExpOper[i].Flags & UMT_OPER_F_READ))
			phrase = false; /* also read as a value */
	const umt_context_map *map = o->d->ctx.map;
	int common = s->AddrWidth == 0 && s->RegName >= 0 && s->RegName < map->ElemCount
	                     ? map->CommonName[s->RegName] : -2;
	if (sh.stack && o->sp_common >= 0 && common == o->sp_common && f->traced != o->sp_common)
		phrase = true; /* the stack pointer only placed the stack access */
	return phrase ? UMT_ORIGIN_ADDRESS : UMT_ORIGIN_VALUE;
}

/* The node of input slot @p k of frame @p f's record; 0 when the slot is none. */
static int input(struct umt_origin *o, const struct frame *f, const umt_ins_exec *x,
                 const umt_rec *r, unsigned k, umt_origin_node *out)
{
	const umt_lc_slot *s = &x->dec.slots[k];
	int role = slot_role(o, f, x, k), rc;
	uint32_t off, len;
	int largest;
	bool reg = s->AddrWidth == 0;
	if (role == 0 || s->ValueSize <= 0 ||
	    (reg && !umt__regs_place(&o->d->ctx, s->RegName, r->flags & 1, &off, &len, &largest)))
		return 0;
	umt_value v;
	uint64_t address = 0;
	if ((rc = umt_lc_slot_value(x, k, &v, &address)) < 0 || (rc = value_room(o, v.size)) < 0)
		return rc;
	bool trusted = umt_exec_reliability(o->d->ctx.exec_version, r->flags) & UMT_RELIABLE_INPUTS;
	memcpy(o->val, v.data, v.size);
	memset(o->known, trusted, v.size);
	*out = (umt_origin_node){.depth = f->depth, .role = role, .at = r->id, .thread = f->thread,
	                         .reg = reg ? s->RegName : -1, .size = v.size, .value = o->val,
	                         .known = o->known};
	if (!trusted) {
		out->id = UMT_NO_RECORD; /* nor is its address: nothing to look up */
		out->kind = UMT_ORIGIN_UNKNOWN;
		rc = 0;
	} else if (reg) {
		rc = reg_definer(o, f->thread, r->id, off, len < v.size ? len : v.size, &out->id,
		                 &out->kind);
	} else {
		out->address = address;
		out->length = v.size;
		rc = mem_definer(o, r->id, address, v.size, &out->id, &out->kind);
	}
	return rc < 0 ? rc : 1;
}

/* The root: the register or memory at q.at, and its defining record. */
static int root(struct umt_origin *o, umt_origin_node *out)
{
	const umt_origin_query *q = &o->q;
	int rc = umt_state_at(o->ix, q->at, -1, &o->st);
	umt_reg_value v = {0};
	if (rc == 0 && q->reg >= 0)
		rc = umt_state_reg(&o->st, q->reg, &v);
	uint64_t size = q->reg >= 0 ? v.size : q->length;
	if (rc == 0)
		rc = value_room(o, size);
	if (rc < 0)
		return rc;
	*out = (umt_origin_node){.role = UMT_ORIGIN_ROOT, .at = q->at, .thread = o->st.thread,
	                         .reg = q->reg, .size = (uint32_t)size, .value = o->val,
	                         .known = o->known};
	if (q->reg >= 0) {
		if (v.data != NULL && v.known != NULL) { /* set by umt_state_reg() on success */
			memcpy(o->val, v.data, v.size);
			memcpy(o->known, v.known, v.size);
		}
		return reg_definer(o, o->st.thread, q->at, v.offset, v.size, &out->id, &out->kind);
	}
	out->address = q->address;
	out->length = q->length;
	rc = umt_mem_at(o->ix, q->at, q->address, q->length, o->val, o->known, NULL);
	return rc < 0 ? rc : mem_definer(o, q->at, q->address, q->length, &out->id, &out->kind);
}

/* The next input of the frame on top of the stack; 0 when it has no more (popped). */
static int next_input(struct umt_origin *o, umt_origin_node *out)
{
	struct frame *f = &o->stack[o->n - 1];
	umt_rec r;
	umt_ins_exec x;
	int rc = umt_exec_get(o->ix->trace, f->rec, &r);
	if (rc == 0)
		rc = umt_rec_ins_exec(o->ix->trace, &r, &x);
	while (rc == 0 && f->next < x.dec.ins->FirstOutSlot)
		rc = input(o, f, &x, &r, f->next++, out);
	if (rc == 0)
		o->n--;
	return rc;
}

int umt_origin_next(umt_origin *o, umt_origin_node *out)
{
	if (o == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_origin_next: invalid argument");
	if (o->q.max_nodes && o->emitted >= o->q.max_nodes)
		return 0;
	int rc = 0;
	if (!o->root_done) {
		o->root_done = true;
		rc = root(o, out);
	} else {
		while (o->n > 0 && (rc = next_input(o, out)) == 0)
			;
		if (rc == 0)
			return 0; /* the stack is empty: the tree is whole */
	}
	if (rc >= 0)
		rc = expand(o, out);
	if (rc < 0)
		return rc;
	o->emitted++;
	return 1;
}

void umt_origin_close(umt_origin *o)
{
	if (o == NULL)
		return;
	free(o->stack);
	free(o->val);
	free(o->known);
	umt__rs_free(&o->ck);
	umt_state_release(&o->st);
	free(o);
}

int umt_origin_open(const umt_index *ix, const umt_origin_query *q, umt_origin **out)
{
	if (ix == NULL || q == NULL || out == NULL ||
	    (q->reg < 0 && (q->length == 0 || q->length > UMT_ORIGIN_MAX_LENGTH ||
	                    q->address + (q->length - 1) < q->address)))
		return umt__failf(UMT_E_INVAL, "umt_origin_open: invalid argument");
	*out = NULL;
	const struct regs_data *d = umt__regs_of(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	if (q->at >= umt_exec_count(ix->trace) || q->reg >= d->ctx.map->ElemCount)
		return umt__failf(UMT_E_RANGE, "umt_origin_open: record %llu or register %d out of "
		                  "range", (unsigned long long)q->at, q->reg);
	umt_origin *o = calloc(1, sizeof *o);
	if (o == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_origin_open: out of memory");
	o->ix = ix;
	o->d = d;
	o->q = *q;
	int sp = umt_reg_by_name(ix->trace, "rsp");
	if (sp < 0)
		sp = umt_reg_by_name(ix->trace, "esp");
	o->sp_common = sp >= 0 ? d->ctx.map->CommonName[sp] : -1;
	int rc = umt__rs_alloc(&o->ck, d->ctx.dump, false, true);
	if (rc == 0)
		rc = umt_state_init(ix, &o->st);
	uint64_t thread;
	if (rc == 0)
		rc = umt__regs_thread_of(ix, d, q->at, &thread);
	if (rc == 0 && q->reg >= 0) { /* the register must be in the dump of at's map */
		umt_reg_value v;
		if ((rc = umt_state_at(ix, q->at, -1, &o->st)) == 0)
			rc = umt_state_reg(&o->st, q->reg, &v);
	}
	if (rc < 0) {
		umt_origin_close(o);
		return rc;
	}
	*out = o;
	return 0;
}
