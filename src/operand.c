/*
 * libumtrace - operand values of instruction records: explicit operands,
 * LC slots, memory phrases, register lookup in the LC.
 *
 * umt_rec_ins_exec() binds a record to its decoded instruction, whose
 * slots and operands umt_ins_decoded() has checked to lie inside LCSize,
 * and checks that the record's LC holds at least LCSize bytes. Every access
 * below still compares with the LC length (a caller-owned umt_ins_exec may
 * have been changed), which costs one compare. Nothing here allocates.
 */
#include "internal.h"

/* The 8 bytes of ConstSlot[0] (slot 0xfd) or ConstSlot[1] (0xfe). */
static inline const uint8_t *const_bytes(const umt_decoded_ins *d, uint8_t slot)
{
	return (const uint8_t *)d + offsetof(umt_decoded_ins, ConstSlot) +
	       8 * (unsigned)(slot - UMT_SLOT_IMM0);
}

static inline uint64_t addr_mask(uint8_t width)
{
	return width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * width)) - 1;
}

uint64_t umt_value_u64(const umt_value *v)
{
	uint64_t r = 0;
	if (v != NULL && v->data != NULL)
		memcpy(&r, v->data, v->size < 8 ? v->size : 8); /* little-endian host */
	return r;
}

static int __attribute__((noinline, cold))
lc_bounds(const umt_ins_exec *x, uint64_t pos, uint64_t size, const char *what, unsigned n)
{
	return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, x->record_id,
	                 x->lc_offset + pos,
	                 "%s %u of instruction %llu: %llu bytes at LC offset %llu run past the local context (%llu bytes)",
	                 what, n, (unsigned long long)x->dec.ins_id, (unsigned long long)size,
	                 (unsigned long long)pos, (unsigned long long)x->lc_size);
}

int umt_rec_ins_exec(const umt_trace *t, const umt_rec *r, umt_ins_exec *out)
{
	if (UMT_UNLIKELY(t == NULL || r == NULL || out == NULL || r->data == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_ins_exec: invalid argument");
	if (UMT_UNLIKELY(r->type != UMT_REC_INSTRUCTION || r->size < sizeof(umt_exec_ins)))
		return umt__fail(UMT_E_INVAL, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id,
		                 r->offset, "not an instruction record of at least 14 bytes");
	int64_t ins_id = ((const umt_exec_ins *)r->data)->InsID;
	int rc;
	if (UMT_UNLIKELY(ins_id >= 0 && (uint64_t)ins_id >= t->ins.count) &&
	    (rc = umt__lost(t, UMT_FILE_INS, UMT_LOC_ROW, (uint64_t)ins_id, t->ins.declared)) < 0)
		return rc; /* its row was lost at open (salvage) */
	if (UMT_UNLIKELY(ins_id < 0 || (uint64_t)ins_id >= t->ins.count))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id,
		                 r->offset + offsetof(umt_exec_ins, InsID),
		                 "InsID %lld is outside the instruction table (%llu instructions)",
		                 (long long)ins_id, (unsigned long long)t->ins.count);
	rc = umt_ins_decoded(t, (uint64_t)ins_id, &out->dec);
	if (UMT_UNLIKELY(rc < 0))
		return rc;
	uint64_t lc_size = r->size - sizeof(umt_exec_ins);
	if (UMT_UNLIKELY(lc_size < out->dec.ins->LCSize))
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id,
		                 r->offset + sizeof(umt_exec_ins),
		                 "local context of %llu bytes is shorter than LCSize %u of instruction %lld",
		                 (unsigned long long)lc_size, out->dec.ins->LCSize,
		                 (long long)ins_id);
	out->lc = r->data + sizeof(umt_exec_ins);
	out->lc_size = lc_size;
	out->record_id = r->id;
	out->lc_offset = r->offset + sizeof(umt_exec_ins);
	out->ins_id = ins_id;
	out->is_64bit = umt_rec_is_64bit(r);
	return 0;
}

/* Explicit operand @p i, or NULL when out of range. */
static const umt_exp_oper *oper(const umt_ins_exec *x, unsigned i)
{
	if (x == NULL || x->dec.ins == NULL || i >= x->dec.ins->ExpCount)
		return NULL;
	return &x->dec.ins->ExpOper[i];
}

static int __attribute__((noinline, cold)) bad_oper(const umt_ins_exec *x, unsigned i)
{
	if (x == NULL || x->dec.ins == NULL)
		return umt__failf(UMT_E_INVAL, "invalid argument: no instruction record");
	return umt__failf(UMT_E_RANGE, "operand %u of instruction %llu is out of range (ExpCount %u)",
	                  i, (unsigned long long)x->dec.ins_id, x->dec.ins->ExpCount);
}

/* The slot that locates an operand: BeforeSlot, or AfterSlot when that is SLOT_NA. */
static inline uint8_t oper_slot(const umt_exp_oper *o)
{
	return o->BeforeSlot != UMT_SLOT_NA ? o->BeforeSlot : o->AfterSlot;
}

int umt_operand_kind(const umt_ins_exec *x, unsigned i)
{
	const umt_exp_oper *o = oper(x, i);
	if (o == NULL)
		return bad_oper(x, i);
	uint8_t s = oper_slot(o);
	uint16_t name = (uint16_t)o->RegName;
	if (s == UMT_SLOT_IMM0 || s == UMT_SLOT_IMM1)
		return UMT_KIND_IMMEDIATE;
	if (name == UMT_REG_AGEN)
		return UMT_KIND_AGEN;
	/* memory by the slot's AddrWidth, not by register number (ERRATA 11) */
	if (s < x->dec.ins->LCCount)
		return x->dec.slots[s].AddrWidth > 0 ? UMT_KIND_MEMORY : UMT_KIND_REGISTER;
	return name == UMT_REG_MEM0 || name == UMT_REG_MEM1 ? UMT_KIND_MEMORY : UMT_KIND_REGISTER;
}

int umt_operand_value(const umt_ins_exec *x, unsigned i, int when, umt_value *out)
{
	const umt_exp_oper *o = oper(x, i);
	if (UMT_UNLIKELY(o == NULL))
		return bad_oper(x, i);
	if (UMT_UNLIKELY(out == NULL || (when != UMT_BEFORE && when != UMT_AFTER)))
		return umt__failf(UMT_E_INVAL, "umt_operand_value: invalid argument");
	uint8_t slot = when == UMT_AFTER ? o->AfterSlot : o->BeforeSlot;
	uint64_t off = when == UMT_AFTER ? o->AfterOffset : o->BeforeOffset;
	uint64_t size = (uint16_t)o->Size; /* not negative: checked by umt_ins_decoded() */
	if (slot == UMT_SLOT_NA)
		return umt__failf(UMT_E_NO_VALUE,
		                  "operand %u of instruction %llu has no %s value (slot 0xff)", i,
		                  (unsigned long long)x->dec.ins_id,
		                  when == UMT_AFTER ? "after" : "before");
	if (slot >= UMT_SLOT_IMM0) { /* a constant: at most the 8 bytes of ConstSlot */
		out->data = const_bytes(x->dec.ins, slot);
		out->size = size < 8 ? (uint32_t)size : 8;
		out->is_const = 1;
		return 0;
	}
	uint64_t pos = (uint64_t)x->dec.slots[slot].Offset + off;
	if (UMT_UNLIKELY(!umt__span_ok(pos, size, x->lc_size)))
		return lc_bounds(x, pos, size, "operand", i);
	out->data = x->lc + pos;
	out->size = (uint32_t)size;
	out->is_const = 0;
	return 0;
}

int umt_lc_slot_value(const umt_ins_exec *x, unsigned slot, umt_value *value,
                      uint64_t *address)
{
	if (UMT_UNLIKELY(x == NULL || x->dec.ins == NULL || value == NULL))
		return umt__failf(UMT_E_INVAL, "umt_lc_slot_value: invalid argument");
	if (UMT_UNLIKELY(slot >= x->dec.ins->LCCount))
		return umt__failf(UMT_E_RANGE, "slot %u of instruction %llu is out of range (LCCount %u)",
		                  slot, (unsigned long long)x->dec.ins_id, x->dec.ins->LCCount);
	const umt_lc_slot *s = &x->dec.slots[slot];
	uint64_t pos = s->Offset, head = s->AddrWidth ? 8 : 0;
	uint64_t size = (uint16_t)s->ValueSize; /* not negative: checked */
	if (UMT_UNLIKELY(!umt__span_ok(pos, head + size, x->lc_size)))
		return lc_bounds(x, pos, head + size, "slot", slot);
	if (address)
		*address = head ? umt__ld64(x->lc + pos) & addr_mask(s->AddrWidth) : 0;
	value->data = x->lc + pos + head;
	value->size = (uint32_t)size;
	value->is_const = 0;
	return 0;
}

int umt_operand_address(const umt_ins_exec *x, unsigned i, uint64_t *address)
{
	int kind = umt_operand_kind(x, i);
	if (kind < 0)
		return kind;
	if (address == NULL)
		return umt__failf(UMT_E_INVAL, "umt_operand_address: invalid argument");
	const umt_exp_oper *o = &x->dec.ins->ExpOper[i];
	uint8_t s = oper_slot(o);
	if (kind == UMT_KIND_AGEN) { /* its value is the computed address */
		umt_value v;
		int rc = umt_operand_value(x, i, UMT_BEFORE, &v);
		if (rc == 0)
			*address = umt_value_u64(&v);
		return rc;
	}
	if (kind != UMT_KIND_MEMORY || s >= x->dec.ins->LCCount)
		return umt__failf(UMT_E_NO_VALUE,
		                  "operand %u of instruction %llu is not a memory or AGEN operand", i,
		                  (unsigned long long)x->dec.ins_id);
	umt_value v;
	return umt_lc_slot_value(x, s, &v, address);
}

/* ---- memory phrases --------------------------------------------------------- */

/* Value of phrase slot @p slot (0 for SLOT_NA) and its register name. */
static int phrase_part(const umt_ins_exec *x, uint8_t slot, int16_t *reg, uint64_t *v)
{
	*reg = UMT_REG_INVALID;
	*v = 0;
	if (slot == UMT_SLOT_NA)
		return 0;
	if (slot >= UMT_SLOT_IMM0) {
		*v = umt__ld64(const_bytes(x->dec.ins, slot));
		return 0;
	}
	umt_value val;
	int rc = umt_lc_slot_value(x, slot, &val, NULL);
	if (rc < 0) /* val is unset, and slot may be past LCCount */
		return rc;
	*reg = x->dec.slots[slot].RegName;
	*v = umt_value_u64(&val);
	return 0;
}

/* true when an explicit operand or a slot is named @p a or @p b. */
static bool has_name(const umt_ins_exec *x, uint16_t a, uint16_t b)
{
	const umt_decoded_ins *d = x->dec.ins;
	for (unsigned i = 0; i < d->ExpCount; i++)
		if ((uint16_t)d->ExpOper[i].RegName == a || (uint16_t)d->ExpOper[i].RegName == b)
			return true;
	for (unsigned i = 0; i < d->LCCount; i++) {
		uint16_t name = (uint16_t)x->dec.slots[i].RegName;
		if (name == a || name == b)
			return true;
	}
	return false;
}

int umt_ins_exec_phrase(const umt_ins_exec *x, int which, umt_mem_phrase *out)
{
	if (x == NULL || x->dec.ins == NULL || out == NULL || (which != 0 && which != 1))
		return umt__failf(UMT_E_INVAL, "umt_ins_exec_phrase: invalid argument");
	const umt_decoded_ins *d = x->dec.ins;
	memset(out, 0, sizeof *out);
	bool present;
	if (which == 0)
		present = d->Mem0SegSlot != UMT_SLOT_NA || d->Mem0BaseSlot != UMT_SLOT_NA ||
		          d->Mem0IndexSlot != UMT_SLOT_NA ||
		          has_name(x, UMT_REG_MEM0, UMT_REG_AGEN);
	else
		present = d->Mem1BaseSlot != UMT_SLOT_NA || has_name(x, UMT_REG_MEM1, UMT_REG_MEM1);
	if (!present)
		return umt__failf(UMT_E_NO_VALUE, "instruction %llu has no %s memory phrase",
		                  (unsigned long long)x->dec.ins_id, which ? "MEM1" : "MEM0/AGEN");
	int rc;
	if (which == 1) { /* MEM1 has a base register only */
		if ((rc = phrase_part(x, d->Mem1BaseSlot, &out->base_reg, &out->base)) < 0)
			return rc;
		out->ea = x->is_64bit ? out->base : out->base & UINT32_MAX;
		return 0;
	}
	if ((rc = phrase_part(x, d->Mem0SegSlot, &out->seg_reg, &out->seg)) < 0 ||
	    (rc = phrase_part(x, d->Mem0BaseSlot, &out->base_reg, &out->base)) < 0)
		return rc;
	/* scale 0 means no index register (spec 7.3.3) */
	if (d->Mem0Scale != 0 &&
	    (rc = phrase_part(x, d->Mem0IndexSlot, &out->index_reg, &out->index)) < 0)
		return rc;
	out->scale = d->Mem0Scale;
	out->disp = (int64_t)umt__ld64(const_bytes(d, UMT_SLOT_IMM0));
	/* ERRATA 13: wraps modulo 2^64, or 2^32 in 32-bit code */
	uint64_t ea = out->seg + out->base + out->index * out->scale + (uint64_t)out->disp;
	out->ea = x->is_64bit ? ea : ea & UINT32_MAX;
	return 0;
}

/* ---- register lookup -------------------------------------------------------- */

/* Slots [lo, hi) holding values before or after execution. */
static int group_range(const umt_ins_exec *x, int when, unsigned *lo, unsigned *hi)
{
	if (when == UMT_BEFORE) {
		*lo = 0;
		*hi = x->dec.ins->FirstAfterSlot;
	} else if (when == UMT_AFTER) {
		*lo = x->dec.ins->FirstAfterSlot;
		*hi = x->dec.ins->LCCount;
	} else {
		return UMT_E_INVAL;
	}
	return 0;
}

int umt_lc_find_common(const umt_ins_exec *x, int common, unsigned min_size, int when)
{
	unsigned lo, hi;
	if (x == NULL || x->dec.ins == NULL || group_range(x, when, &lo, &hi) < 0)
		return umt__failf(UMT_E_INVAL, "umt_lc_find_common: invalid argument");
	for (unsigned s = lo; s < hi; s++) {
		const umt_lc_slot *sl = &x->dec.slots[s];
		if (sl->AddrWidth == 0 && sl->CommonRegName == common &&
		    sl->ValueSize >= 0 && (unsigned)sl->ValueSize >= min_size)
			return (int)s;
	}
	return umt__failf(UMT_E_NOT_FOUND,
	                  "no %s slot of common name %d and at least %u bytes in instruction %llu",
	                  when == UMT_AFTER ? "after" : "before", common, min_size,
	                  (unsigned long long)x->dec.ins_id);
}

/* true when slot register @p sr and register @p reg share their common name. */
static bool same_group(const umt_context_map *m, const umt_lc_slot *sl, int reg)
{
	int16_t common = m->CommonName[reg];
	uint16_t sr = (uint16_t)sl->RegName;
	/* offset 2 is CommonRegName (v1) or LargestEnclosing (v0): either way it
	 * agrees with the trace's own CommonName table (ERRATA 23) */
	return sl->CommonRegName == common ||
	       (sr < umt__cmap_elems(m) && m->CommonName[sr] == common);
}

/* Byte offset of @p reg inside slot @p sl by the dump map, or -1 if it does not fit. */
static int64_t offset_in(const umt_context_map *m, const umt_reg_info *map, const umt_lc_slot *sl,
                         int reg)
{
	uint16_t sr = (uint16_t)sl->RegName;
	const umt_reg_info *ri = &map[reg];
	if (sr >= umt__cmap_elems(m) || ri->Offset == 0xffff || ri->Size == 0)
		return -1;
	const umt_reg_info *si = &map[sr];
	if (si->Offset == 0xffff || si->Size == 0 || ri->Offset < si->Offset)
		return -1;
	int64_t rel = ri->Offset - si->Offset;
	return rel + ri->Size <= sl->ValueSize ? rel : -1;
}

int umt_lc_find_reg(const umt_trace *t, const umt_ins_exec *x, int reg, int when,
                    umt_value *out)
{
	unsigned lo, hi;
	if (t == NULL || x == NULL || x->dec.ins == NULL || out == NULL ||
	    group_range(x, when, &lo, &hi) < 0)
		return umt__failf(UMT_E_INVAL, "umt_lc_find_reg: invalid argument");
	const umt_context_map *m = t->cmap;
	int rc = umt__reg_check(t, reg, "umt_lc_find_reg");
	if (rc < 0)
		return rc;
	const umt_reg_info *map = x->is_64bit ? m->RegMap64 : m->RegMap32;
	int found = -1;
	int64_t rel = 0;
	uint64_t size = 0;
	for (unsigned s = lo; s < hi && found < 0; s++) { /* a slot naming it */
		const umt_lc_slot *sl = &x->dec.slots[s];
		if (sl->AddrWidth == 0 && sl->RegName == reg)
			found = (int)s, size = (uint16_t)sl->ValueSize;
	}
	for (unsigned s = lo; s < hi && found < 0; s++) { /* a slot enclosing it */
		const umt_lc_slot *sl = &x->dec.slots[s];
		if (sl->AddrWidth == 0 && same_group(m, sl, reg) &&
		    (rel = offset_in(m, map, sl, reg)) >= 0)
			found = (int)s, size = map[reg].Size;
	}
	if (found < 0)
		return umt__failf(UMT_E_NOT_FOUND,
		                  "register %d is not in the %s slots of instruction %llu", reg,
		                  when == UMT_AFTER ? "after" : "before",
		                  (unsigned long long)x->dec.ins_id);
	uint64_t pos = x->dec.slots[found].Offset + (uint64_t)rel;
	if (!umt__span_ok(pos, size, x->lc_size))
		return lc_bounds(x, pos, size, "slot", (unsigned)found);
	out->data = x->lc + pos;
	out->size = (uint32_t)size;
	out->is_const = 0;
	return 0;
}
