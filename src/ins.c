/*
 * libumtrace - ins.itable: instruction rows, disassembly strings, decoded
 * instructions and LC slots.
 *
 * A decodedIns is variable-size (88 bytes, then LCCount 12-byte slots) and
 * full of indexes, counts and offsets that later accesses follow: operand
 * slots, memory phrase slots, slot offsets into the execution record's
 * local context. umt_ins_decoded() checks all of them once per row, so that
 * operand accessors (operand.c) only compare the record's LC length with
 * LCSize. A bitmap of checked rows (t->ins_checked) makes every later call
 * for that row a few loads.
 */
#include <stdlib.h>

#include "internal.h"

uint64_t umt_ins_count(const umt_trace *t)
{
	return t ? t->ins.count : 0;
}

int umt_ins_slot_name_kind(const umt_trace *t)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_ins_slot_name_kind: invalid argument");
	return t->ins.record_ver == 0 ? UMT_SLOT_LARGEST_ENCLOSING : UMT_SLOT_COMMON_REG_NAME;
}

/* The row of a valid ID, and its file offset. */
static inline const umt_ins_rec *row_at(const umt_trace *t, uint64_t id)
{
	return (const umt_ins_rec *)(t->ins.rows + id * t->ins.row_size);
}
static inline uint64_t row_offset(const umt_trace *t, uint64_t id)
{
	return t->ins.table_fp + id * t->ins.row_size;
}

static int __attribute__((noinline, cold)) bad_id(const umt_trace *t, uint64_t id)
{
	static const struct umt_range_msg m = {UMT_FILE_INS, UMT_LOC_ROW, -1, "instruction",
	                                       "instructions"};
	return umt__out_of_range(t, &m, id, t->ins.count, t->ins.declared);
}

int umt_ins_get(const umt_trace *t, uint64_t id, const umt_ins_rec **row)
{
	if (UMT_UNLIKELY(t == NULL || row == NULL))
		return umt__failf(UMT_E_INVAL, "umt_ins_get: invalid argument");
	if (UMT_UNLIKELY(id >= t->ins.count))
		return bad_id(t, id);
	*row = row_at(t, id);
	return 0;
}

int umt_ins_code(const umt_trace *t, uint64_t id, const uint8_t **bytes, unsigned *size)
{
	if (t == NULL || bytes == NULL || size == NULL)
		return umt__failf(UMT_E_INVAL, "umt_ins_code: invalid argument");
	if (id >= t->ins.count)
		return bad_id(t, id);
	const umt_ins_rec *r = row_at(t, id);
	uint8_t code_size = r->CodeSize; /* loaded once: the size returned is the one checked */
	if (code_size > sizeof r->CodeBytes)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_INS, UMT_LOC_ROW, id,
		                 row_offset(t, id) + offsetof(umt_ins_rec, CodeSize),
		                 "CodeSize %u exceeds the 15 bytes of CodeBytes", code_size);
	*bytes = r->CodeBytes;
	*size = code_size;
	return 0;
}

int umt_ins_disasm(const umt_trace *t, uint64_t id, const char **text, size_t *len)
{
	if (t == NULL || text == NULL || len == NULL)
		return umt__failf(UMT_E_INVAL, "umt_ins_disasm: invalid argument");
	if (id >= t->ins.count)
		return bad_id(t, id);
	int64_t fp = row_at(t, id)->DisasmFP;
	uint64_t field = row_offset(t, id) + offsetof(umt_ins_rec, DisasmFP);
	uint64_t extra = t->ins.extra_size;
	if (fp < 0 || !umt__span_ok((uint64_t)fp, sizeof(umt_cstr), extra))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_INS, UMT_LOC_ROW, id, field,
		                 "DisasmFP 0x%llx points outside the extra area (%llu bytes)",
		                 (unsigned long long)fp, (unsigned long long)extra);
	const uint8_t *s = t->ins.extra + fp;
	int16_t n = ((const umt_cstr *)s)->Length;
	uint64_t at = t->ins.extra_fp + (uint64_t)fp; /* file offset of the cStr */
	/* Length, its characters and the NUL: Length + 3 bytes. */
	if (n < 0 || !umt__span_ok((uint64_t)fp, (uint64_t)n + 3, extra))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_INS, UMT_LOC_ROW, id, at,
		                 "disassembly cStr of Length %d at DisasmFP 0x%llx runs past the extra area (%llu bytes)",
		                 n, (unsigned long long)fp, (unsigned long long)extra);
	const char *chars = (const char *)s + sizeof(umt_cstr);
	if (chars[n] != '\0' || memchr(chars, '\0', (size_t)n) != NULL)
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_INS, UMT_LOC_ROW, id, at,
		                 "disassembly cStr of Length %d is not a string of that length followed by its NUL",
		                 n);
	*text = chars;
	*len = (size_t)n;
	return 0;
}

/* ---- the bitmap of checked rows ------------------------------------------ */

/* Allocates the bitmap; none when memory is short (every call then checks). */
static int build_checked_bits(const umt_trace *t, void **out)
{
	*out = calloc(t->ins.count / 64 + 1, sizeof(uint64_t));
	return 0;
}

static const struct umt_lazy_kind checked_bits_kind = {UMT_LAZY_INS_CHECKED, build_checked_bits,
                                                        free};

/* The bitmap, allocating it on first use; NULL when there is none. */
static uint64_t *checked_bits(const umt_trace *t)
{
	void *bits;
	return umt__lazy_get(t, &checked_bits_kind, &bits) == 0 ? bits : NULL;
}

/* ---- decoded instructions --------------------------------------------------- */

/* Where a decodedIns check fails: the row and the body's file offset. */
struct dec_ctx {
	uint64_t id;
	uint64_t base; /* file offset of the decodedIns */
};

#define DEC_FAIL(c, code, field_off, ...)                                              \
	umt__fail(code, UMT_FILE_INS, UMT_LOC_ROW, (c)->id, (c)->base + (field_off), \
	          "decodedIns: " __VA_ARGS__)

/* true for an index into LCSlots or one of 0xfd/0xfe/0xff. */
static inline bool slot_ok(uint8_t slot, uint8_t count)
{
	return slot < count || slot >= UMT_SLOT_IMM0;
}

static int check_slots(const struct dec_ctx *c, const umt_decoded_ins *d,
                       const umt_lc_slot *slots)
{
	for (unsigned i = 0; i < d->LCCount; i++) {
		umt_lc_slot copy; /* each field loaded once: checked as used */
		memcpy(&copy, &slots[i], sizeof copy);
		const umt_lc_slot *s = &copy;
		uint64_t at = sizeof *d + (uint64_t)i * sizeof *s;
		if (s->AddrWidth > 8)
			return DEC_FAIL(c, UMT_E_CORRUPT, at + offsetof(umt_lc_slot, AddrWidth),
			                "slot %u: AddrWidth %u exceeds 8", i, s->AddrWidth);
		/* memory slots hold a 64-bit address before the value (ERRATA 11) */
		uint64_t width = (uint64_t)(s->AddrWidth ? 8 : 0) + (uint64_t)(int64_t)s->ValueSize;
		if (s->ValueSize < 0 || (uint64_t)s->Offset + width > d->LCSize)
			return DEC_FAIL(c, UMT_E_BOUNDS, at + offsetof(umt_lc_slot, Offset),
			                "slot %u: Offset %u + %s%d bytes runs past LCSize %u", i,
			                s->Offset, s->AddrWidth ? "8 + " : "", s->ValueSize,
			                d->LCSize);
	}
	return 0;
}

/* One slot reference of an operand: index valid, operand bytes inside LCSize. */
static int check_oper_slot(const struct dec_ctx *c, const umt_decoded_ins *d,
                           const umt_lc_slot *slots, unsigned i, bool after)
{
	const umt_exp_oper *o = &d->ExpOper[i];
	uint8_t slot = after ? o->AfterSlot : o->BeforeSlot;
	uint8_t off = after ? o->AfterOffset : o->BeforeOffset;
	uint64_t at = offsetof(umt_decoded_ins, ExpOper) + (uint64_t)i * sizeof *o;
	const char *which = after ? "AfterSlot" : "BeforeSlot";
	if (!slot_ok(slot, d->LCCount))
		return DEC_FAIL(c, UMT_E_BOUNDS,
		                at + (after ? offsetof(umt_exp_oper, AfterSlot)
		                            : offsetof(umt_exp_oper, BeforeSlot)),
		                "operand %u: %s 0x%02x is not a slot (LCCount %u)", i, which, slot,
		                d->LCCount);
	if (slot >= UMT_SLOT_IMM0) /* constants: ConstSlot is read at most 8 bytes */
		return 0;
	if ((uint64_t)slots[slot].Offset + off + (uint64_t)(int64_t)o->Size > d->LCSize)
		return DEC_FAIL(c, UMT_E_BOUNDS, at + offsetof(umt_exp_oper, Size),
		                "operand %u: %s %u at offset %u + %u, %d bytes, runs past LCSize %u",
		                i, which, slot, slots[slot].Offset, off, o->Size, d->LCSize);
	return 0;
}

static int check_operands(const struct dec_ctx *c, const umt_decoded_ins *d,
                          const umt_lc_slot *slots)
{
	if (d->ExpCount > 4)
		return DEC_FAIL(c, UMT_E_BOUNDS, offsetof(umt_decoded_ins, ExpCount),
		                "ExpCount %u exceeds 4", d->ExpCount);
	for (unsigned i = 0; i < d->ExpCount; i++) {
		const umt_exp_oper *o = &d->ExpOper[i];
		if (o->Size < 0)
			return DEC_FAIL(c, UMT_E_BOUNDS,
			                offsetof(umt_decoded_ins, ExpOper) + i * sizeof *o +
			                        offsetof(umt_exp_oper, Size),
			                "operand %u: Size %d is negative", i, o->Size);
		int rc = check_oper_slot(c, d, slots, i, false);
		if (rc == 0)
			rc = check_oper_slot(c, d, slots, i, true);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int check_phrase(const struct dec_ctx *c, const umt_decoded_ins *d)
{
	static const struct {
		size_t off;
		const char *name;
	} fields[] = {
		{offsetof(umt_decoded_ins, Mem0SegSlot), "Mem0SegSlot"},
		{offsetof(umt_decoded_ins, Mem0BaseSlot), "Mem0BaseSlot"},
		{offsetof(umt_decoded_ins, Mem0IndexSlot), "Mem0IndexSlot"},
		{offsetof(umt_decoded_ins, Mem1BaseSlot), "Mem1BaseSlot"},
	};
	const uint8_t *p = (const uint8_t *)d;
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (!slot_ok(p[fields[i].off], d->LCCount))
			return DEC_FAIL(c, UMT_E_BOUNDS, fields[i].off,
			                "%s 0x%02x is not a slot (LCCount %u)", fields[i].name,
			                p[fields[i].off], d->LCCount);
	uint8_t s = d->Mem0Scale;
	if (s != 0 && s != 1 && s != 2 && s != 4 && s != 8)
		return DEC_FAIL(c, UMT_E_CORRUPT, offsetof(umt_decoded_ins, Mem0Scale),
		                "Mem0Scale %u is not 0, 1, 2, 4 or 8", s);
	return 0;
}

/*
 * The body's extent: DecodedFP (@p fp, loaded by the caller) + 88 + 12 *
 * LCCount inside the extra area; *lc_count receives the LCCount checked.
 * Checked on every call, with the values then used, so that the pointers
 * returned are always inside the mapping.
 */
static int decoded_extent(const umt_trace *t, uint64_t id, int64_t fp, uint8_t *lc_count_out)
{
	uint64_t extra = t->ins.extra_size;
	if (fp < 0 || !umt__span_ok((uint64_t)fp, sizeof(umt_decoded_ins), extra))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_INS, UMT_LOC_ROW, id,
		                 row_offset(t, id) + offsetof(umt_ins_rec, DecodedFP),
		                 "DecodedFP 0x%llx + 88 points outside the extra area (%llu bytes)",
		                 (unsigned long long)fp, (unsigned long long)extra);
	struct dec_ctx c = {id, t->ins.extra_fp + (uint64_t)fp};
	uint8_t lc_count = ((const umt_decoded_ins *)(t->ins.extra + fp))->LCCount;
	uint64_t end = (uint64_t)fp + sizeof(umt_decoded_ins) + (uint64_t)lc_count * sizeof(umt_lc_slot);
	if (end > extra)
		return DEC_FAIL(&c, UMT_E_BOUNDS, offsetof(umt_decoded_ins, LCCount),
		                "%u slots at DecodedFP 0x%llx run past the extra area (%llu bytes)",
		                lc_count, (unsigned long long)fp, (unsigned long long)extra);
	*lc_count_out = lc_count;
	return 0;
}

/*
 * The full check of row @p id's body at @p fp: run once per row, on a copy
 * of the fixed part, so that every field is read once even if the file
 * changes under the mapping.
 */
static int __attribute__((noinline)) check_decoded(const umt_trace *t, uint64_t id, int64_t fp)
{
	uint8_t lc_count;
	int rc = decoded_extent(t, id, fp, &lc_count);
	if (rc < 0)
		return rc;
	umt_decoded_ins copy;
	memcpy(&copy, t->ins.extra + fp, sizeof copy);
	copy.LCCount = lc_count; /* the count whose extent was checked */
	const umt_decoded_ins *d = &copy;
	const umt_lc_slot *slots = (const umt_lc_slot *)(t->ins.extra + fp + sizeof copy);
	struct dec_ctx c = {id, t->ins.extra_fp + (uint64_t)fp};
	if (d->FirstOutSlot > d->FirstAfterSlot)
		return DEC_FAIL(&c, UMT_E_CORRUPT, offsetof(umt_decoded_ins, FirstOutSlot),
		                "FirstOutSlot %u is after FirstAfterSlot %u", d->FirstOutSlot,
		                d->FirstAfterSlot);
	if (d->FirstAfterSlot > d->LCCount)
		return DEC_FAIL(&c, UMT_E_BOUNDS, offsetof(umt_decoded_ins, FirstAfterSlot),
		                "FirstAfterSlot %u exceeds LCCount %u", d->FirstAfterSlot,
		                d->LCCount);
	rc = check_slots(&c, d, slots);
	if (rc == 0)
		rc = check_operands(&c, d, slots);
	if (rc == 0)
		rc = check_phrase(&c, d);
	return rc;
}

int umt_ins_decoded(const umt_trace *t, uint64_t ins_id, umt_decoded *out)
{
	if (UMT_UNLIKELY(t == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_ins_decoded: invalid argument");
	if (UMT_UNLIKELY(ins_id >= t->ins.count))
		return bad_id(t, ins_id);
	int64_t fp = row_at(t, ins_id)->DecodedFP; /* loaded once, checked below */
	uint64_t *bits = checked_bits(t);
	uint64_t word = ins_id / 64, mask = (uint64_t)1 << (ins_id % 64);
	int rc;
	if (bits == NULL || (__atomic_load_n(&bits[word], __ATOMIC_ACQUIRE) & mask) == 0) {
		if ((rc = check_decoded(t, ins_id, fp)) < 0)
			return rc;
		if (bits != NULL)
			__atomic_fetch_or(&bits[word], mask, __ATOMIC_RELEASE);
	} else {
		uint8_t lc_count; /* a row checked earlier: its extent again, in case the file changed */
		if ((rc = decoded_extent(t, ins_id, fp, &lc_count)) < 0)
			return rc;
	}
	out->ins = (const umt_decoded_ins *)(t->ins.extra + fp);
	out->slots = (const umt_lc_slot *)(out->ins + 1);
	out->ins_id = ins_id;
	out->offset = t->ins.extra_fp + (uint64_t)fp;
	return 0;
}

int umt_decoded_slot_group(const umt_decoded *d, unsigned slot)
{
	if (d == NULL || d->ins == NULL)
		return umt__failf(UMT_E_INVAL, "umt_decoded_slot_group: invalid argument");
	if (slot >= d->ins->LCCount)
		return umt__failf(UMT_E_RANGE, "slot %u is out of range (LCCount %u)", slot,
		                  d->ins->LCCount);
	if (slot < d->ins->FirstOutSlot)
		return UMT_SLOT_GROUP_BEFORE;
	return slot < d->ins->FirstAfterSlot ? UMT_SLOT_GROUP_BEFORE_WRITE_ONLY
	                                     : UMT_SLOT_GROUP_AFTER;
}

const umt_exp_oper *umt_decoded_operand(const umt_decoded *d, unsigned i)
{
	if (d == NULL || d->ins == NULL || i >= d->ins->ExpCount)
		return NULL;
	return &d->ins->ExpOper[i];
}

const umt_lc_slot *umt_decoded_slot(const umt_decoded *d, unsigned slot)
{
	if (d == NULL || d->ins == NULL || slot >= d->ins->LCCount)
		return NULL;
	return &d->slots[slot];
}
