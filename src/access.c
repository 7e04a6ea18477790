/*
 * libumtrace - the memory accesses of a record (umtrace.h section 8b).
 *
 * An instruction record's accesses are its LC slots with AddrWidth > 0
 * (ERRATA 11), classified by slot group: before a write-only operand's
 * group a read, inside it a peek, after it a write. A context record's
 * accesses are its memory blocks. Which values can be believed follows
 * umt_exec_reliability(), decided once in the header.
 *
 * The memory slots of an instruction row are found once and remembered in
 * a lazily allocated array of 4-byte plans (one per row), so a scan that
 * asks every record for its accesses reads one word per record instead of
 * every slot of the decoded body.
 */
#include <stdlib.h>

#include "internal.h"

/*
 * A row's plan: 0 until computed; then byte 0 is PLAN_DONE | n and bytes
 * 1..3 the indexes of its n <= 3 memory slots, in slot order, or byte 0 is
 * PLAN_DONE | PLAN_SCAN when the row has more (then every slot is looked
 * at). Rows with more than three memory slots do not occur in real x86
 * code (call [mem]: MEM0 and both STACKPUSH values is the most).
 */
#define PLAN_DONE 0x80u
#define PLAN_SCAN 0x40u
#define PLAN_MAX 3u

/* One 4-byte plan per instruction row, zero until computed; none when memory is short. */
static int build_plans(const umt_trace *t, void **out)
{
	*out = calloc(umt_ins_count(t) + 1, sizeof(uint32_t));
	return 0;
}

static const struct umt_lazy_kind plans_kind = {UMT_LAZY_ACCESS_PLANS, build_plans, free};

/* The plans, allocating them on first use; NULL when there is no memory (compute each time). */
static uint32_t *plans_of(const umt_trace *t)
{
	void *p;
	return umt__lazy_get(t, &plans_kind, &p) == 0 ? p : NULL;
}

static inline bool is_memory_slot(const umt_lc_slot *s)
{
	return s->AddrWidth > 0 && (uint16_t)s->RegName != UMT_REG_AGEN;
}

/* The plan of a checked decoded body. */
static uint32_t make_plan(const umt_decoded_ins *d, const umt_lc_slot *slots)
{
	uint32_t plan = 0, n = 0;
	for (unsigned i = 0; i < d->LCCount; i++) {
		if (!is_memory_slot(&slots[i]))
			continue;
		if (n == PLAN_MAX)
			return PLAN_DONE | PLAN_SCAN;
		plan |= (uint32_t)i << (8 * (n + 1));
		n++;
	}
	return plan | PLAN_DONE | n;
}

/*
 * The plan of row @p ins_id. Any thread may compute and store it: every
 * thread computes the same word, so a relaxed atomic store is enough.
 */
static uint32_t plan_of(const umt_trace *t, uint64_t ins_id, const umt_decoded *dec)
{
	uint32_t *plans = plans_of(t);
	if (plans == NULL)
		return make_plan(dec->ins, dec->slots);
	uint32_t plan = __atomic_load_n(&plans[ins_id], __ATOMIC_RELAXED);
	if (UMT_UNLIKELY(plan == 0)) {
		plan = make_plan(dec->ins, dec->slots);
		__atomic_store_n(&plans[ins_id], plan, __ATOMIC_RELAXED);
	}
	return plan;
}

static int init_instruction(umt_access_iter *it, const umt_trace *t, const umt_rec *r)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(t, r, &x);
	if (rc < 0)
		return rc;
	it->lc = x.lc;
	it->ins = x.dec.ins;
	it->slots = x.dec.slots;
	it->plan = plan_of(t, (uint64_t)x.ins_id, &x.dec);
	it->count = (it->plan & PLAN_SCAN) ? it->ins->LCCount : (it->plan & 0x3fu);
	it->reliable = (uint8_t)umt_exec_reliability(t->exec_version, r->flags);
	it->not_executed = (r->flags & UMT_EXEC_F_NOT_EXECUTED) != 0;
	return 0;
}

int umt_access_iter_init(umt_access_iter *it, const umt_trace *t, const umt_rec *r,
                         unsigned kinds)
{
	if (UMT_UNLIKELY(it == NULL || t == NULL || r == NULL || r->data == NULL || kinds == 0 ||
	                 (kinds & ~UMT_ACCESS_ALL) != 0))
		return umt__failf(UMT_E_INVAL, "umt_access_iter_init: invalid argument");
	memset(it, 0, sizeof *it);
	it->trace = t;
	it->record_id = r->id;
	it->thread_id = r->thread_id;
	it->kinds = kinds;
	if (r->type == UMT_REC_INSTRUCTION)
		return init_instruction(it, t, r);
	if (!umt_rec_type_has_context(r->type) || !(kinds & UMT_ACCESS_CONTEXT))
		return 0; /* nothing to yield */
	int rc = umt_rec_context(t, r, &it->ctx);
	if (rc < 0)
		return rc;
	it->is_context = 1;
	it->count = it->ctx.mem_count;
	return 0;
}

/* Kind, phase and trust of memory slot @p i of the iterator's instruction. */
static void classify(const umt_access_iter *it, unsigned i, umt_access *out)
{
	const umt_decoded_ins *d = it->ins;
	bool in_ok = (it->reliable & UMT_RELIABLE_INPUTS) != 0;
	bool out_ok = (it->reliable & UMT_RELIABLE_OUTPUTS) != 0;
	if (i >= d->FirstAfterSlot) {
		/* a false condition leaves the operand as it was: an observation */
		out->kind = it->not_executed ? UMT_ACCESS_PEEK : UMT_ACCESS_WRITE;
		out->phase = 1;
		out->trust = (uint8_t)((in_ok ? UMT_TRUST_ADDRESS : 0) |
		                       (in_ok && out_ok ? UMT_TRUST_VALUE : 0));
		return;
	}
	out->kind = i < d->FirstOutSlot ? UMT_ACCESS_READ : UMT_ACCESS_PEEK;
	out->phase = 0;
	out->trust = in_ok ? (UMT_TRUST_ADDRESS | UMT_TRUST_VALUE) : 0;
}

/* Fills @p out from memory slot @p i (checked by umt_ins_decoded()). */
static void slot_access(const umt_access_iter *it, unsigned i, umt_access *out)
{
	const umt_lc_slot *s = &it->slots[i];
	uint64_t address;
	memcpy(&address, it->lc + s->Offset, sizeof address);
	if (s->AddrWidth < 8)
		address &= ((uint64_t)1 << (8 * s->AddrWidth)) - 1;
	out->record_id = it->record_id;
	out->thread_id = it->thread_id;
	out->address = address;
	out->size = (uint64_t)(uint16_t)s->ValueSize;
	out->data = it->lc + s->Offset + 8;
	out->locator = i;
	out->reg_name = s->RegName;
	out->addr_width = s->AddrWidth;
	classify(it, i, out);
}

static int next_instruction(umt_access_iter *it, umt_access *out)
{
	while (it->next < it->count) {
		unsigned k = it->next++, i;
		if (it->plan & PLAN_SCAN) {
			i = k;
			if (!is_memory_slot(&it->slots[i]))
				continue;
		} else {
			i = (it->plan >> (8 * (k + 1))) & 0xffu;
		}
		slot_access(it, i, out);
		if (it->kinds & out->kind)
			return 1;
	}
	return 0;
}

static int next_context(umt_access_iter *it, umt_access *out)
{
	if (it->next >= it->count)
		return 0;
	uint32_t i = it->next++;
	umt_mem_ref m;
	int rc = umt_context_mem_get(&it->ctx, i, &m);
	if (rc < 0)
		return rc;
	out->record_id = it->record_id;
	out->thread_id = it->thread_id;
	out->address = m.address;
	out->size = m.size;
	out->data = m.data;
	out->locator = i;
	out->reg_name = 0;
	out->kind = UMT_ACCESS_CONTEXT;
	out->trust = UMT_TRUST_ADDRESS | UMT_TRUST_VALUE;
	out->phase = 0;
	out->addr_width = 8;
	return 1;
}

int umt_access_iter_next(umt_access_iter *it, umt_access *out)
{
	if (UMT_UNLIKELY(it == NULL || out == NULL || it->trace == NULL))
		return umt__failf(UMT_E_INVAL, "umt_access_iter_next: invalid argument");
	if (it->is_context)
		return next_context(it, out);
	if (it->ins == NULL)
		return 0;
	return next_instruction(it, out);
}

const char *umt_access_kind_name(unsigned kind)
{
	switch (kind) {
	case UMT_ACCESS_READ: return "read";
	case UMT_ACCESS_WRITE: return "write";
	case UMT_ACCESS_PEEK: return "peek";
	case UMT_ACCESS_CONTEXT: return "context";
	default: return NULL;
	}
}
