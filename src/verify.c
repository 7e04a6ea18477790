/*
 * libumtrace - umt_verify(): the deep O(n) consistency check.
 *
 * Accessors check in O(1) the one record or row they touch; this file
 * checks what only a whole pass can see: order, cross references between
 * tables, thread chains, the small tables' invariants, the rules of decoded
 * instructions and the MEM0 addresses. docs/verify.md lists every check.
 *
 * The passes, in order: trace.xml, context map, thread, module, address
 * space, instruction and syscall tables (each row once), then one
 * sequential pass over the execution records that checks every record, its
 * prev/next links, its thread's state and its references to other tables.
 * The prev/next check is sequential too: for record i of thread T, Prev(i)
 * must be the previous record of T seen, and that record's Next must be i;
 * at the end each thread's last record has Next -1 and its row's FirstEID,
 * LastEID and RecCount must match what was seen. Memory: one small struct
 * per thread and a fixed cache of instruction rows; nothing per record.
 * Syscall rows reach their entry and exit records by ID, and syscall
 * records their row (random access, once each); everything else is
 * sequential.
 *
 * Problems found by an accessor are reported with its own message, file and
 * location (umt__last_loc()), so that verify and the accessors say the same
 * thing about the same bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define PROGRESS_STEP (UINT64_C(1) << 20)
#define MSG_SIZE 512
#define NONE INT64_C(-1)

/* What the execution pass knows about one thread. */
struct vthread {
	int64_t first;     /* its first record, -1 before it */
	int64_t last;      /* its last record seen, -1 before the first */
	int64_t last_next; /* the Next link of that record */
	int64_t ended;     /* its thread-end record, -1 when none seen */
	uint64_t count;    /* its records seen */
};

struct verifier {
	const umt_trace *t;
	umt_verify_options o;
	umt_verify_result r;
	int fatal;              /* a failure of the check itself (UMT_E_NOMEM, UMT_E_IO) */
	bool stop;
	uint64_t problems;
	uint64_t done, total, next_progress;
	struct vthread *th;     /* one per thread row */
	struct ins_plan *plans; /* PLANS entries */
	const uint8_t *pn;      /* exec.prev_next.column, NULL when links are not checked */
	/* where the problems being looked for are: set by place() */
	unsigned check;
	int file;
	enum umt_loc_kind kind;
	uint64_t id;
	char msg[MSG_SIZE];
	char first_error[MSG_SIZE];
};

/* ---- reporting ----------------------------------------------------------- */

static bool want(const struct verifier *v, unsigned check)
{
	return (v->o.checks & check) != 0 && !v->stop;
}

/* Sets where the next problems are: their class, file and record, row or offset. */
static void place(struct verifier *v, unsigned check, int file, enum umt_loc_kind kind,
                  uint64_t id)
{
	v->check = check;
	v->file = file;
	v->kind = kind;
	v->id = id;
}

static void emit(struct verifier *v, int status, int severity, unsigned check, int file,
                 int64_t id, uint64_t offset)
{
	/* once stopped (the cap, or the callback), a check that finds several
	 * problems in a row reports none of the rest */
	if (v->stop)
		return;
	umt_problem p = {status, severity, check, file, id, offset, v->msg};
	if (severity == UMT_SEVERITY_ERROR) {
		if (v->r.errors++ == 0)
			snprintf(v->first_error, sizeof v->first_error, "%s", v->msg);
	} else {
		v->r.warnings++;
	}
	v->problems++;
	if (v->o.on_problem != NULL && v->o.on_problem(&p, v->o.ctx) != 0)
		v->stop = true;
	if (v->o.max_problems != 0 && v->problems >= v->o.max_problems)
		v->stop = true;
	v->r.stopped = v->stop;
}

/* Reports a problem found here at @p offset of the current place, as umt__fail() words it. */
static void problem(struct verifier *v, int severity, int status, uint64_t offset,
                    const char *fmt, ...) UMT_PRINTF(5, 6);
static void problem(struct verifier *v, int severity, int status, uint64_t offset,
                    const char *fmt, ...)
{
	bool has_id = v->kind == UMT_LOC_RECORD || v->kind == UMT_LOC_ROW;
	size_t n = (size_t)snprintf(v->msg, sizeof v->msg, "%s: ", umt_file_name(v->file));
	if (has_id)
		n += (size_t)snprintf(v->msg + n, sizeof v->msg - n, "%s %llu at offset 0x%llx: ",
		                      v->kind == UMT_LOC_RECORD ? "record" : "row",
		                      (unsigned long long)v->id, (unsigned long long)offset);
	else if (v->kind == UMT_LOC_OFFSET)
		n += (size_t)snprintf(v->msg + n, sizeof v->msg - n, "at offset 0x%llx: ",
		                      (unsigned long long)offset);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(v->msg + n, sizeof v->msg - n, fmt, ap);
	va_end(ap);
	emit(v, status, severity, v->check, v->file, has_id ? (int64_t)v->id : NONE, offset);
}

#define BAD(v, status, offset, ...) problem(v, UMT_SEVERITY_ERROR, status, offset, __VA_ARGS__)
#define WARN(v, status, offset, ...) \
	problem(v, UMT_SEVERITY_WARNING, status, offset, __VA_ARGS__)

/*
 * Reports the failure an accessor just returned (@p rc) with its message
 * and location, in the current class (and file, when the message names
 * none). Failures of the check itself (memory, mapping) end the check.
 */
static void report_last(struct verifier *v, int rc)
{
	if (rc == UMT_E_NOMEM || rc == UMT_E_IO) {
		v->fatal = rc;
		v->stop = true;
		return;
	}
	struct umt_loc loc;
	umt__last_loc(&loc);
	snprintf(v->msg, sizeof v->msg, "%s", umt_errmsg());
	bool has_id = loc.kind == UMT_LOC_RECORD || loc.kind == UMT_LOC_ROW;
	if (loc.file < 0)
		emit(v, rc, UMT_SEVERITY_ERROR, v->check, v->file, NONE, 0);
	else
		emit(v, rc, UMT_SEVERITY_ERROR, v->check, loc.file,
		     has_id ? (int64_t)loc.id : NONE, loc.offset);
}

static void progress(struct verifier *v, uint64_t n)
{
	v->done += n;
	if (v->o.on_progress != NULL && v->done >= v->next_progress) {
		v->o.on_progress(v->done, v->total, v->o.ctx);
		v->next_progress = v->done + PROGRESS_STEP;
	}
}

static inline uint64_t row_off(const struct umt_itable *tb, uint64_t id)
{
	return tb->table_fp + id * tb->row_size;
}

static inline const uint8_t *row_at(const struct umt_itable *tb, uint64_t id)
{
	return tb->rows + id * tb->row_size;
}

static bool eid_ok(const umt_trace *t, int64_t eid)
{
	return eid == NONE || (eid >= 0 && (uint64_t)eid < t->exec_count);
}

/* ---- trace.xml ----------------------------------------------------------- */

static void verify_xml(struct verifier *v)
{
	const umt_meta *m;
	place(v, UMT_CHECK_XML, UMT_FILE_TRACE_XML, UMT_LOC_NONE, 0);
	int rc = umt_trace_meta(v->t, &m);
	if (rc == 0)
		rc = umt_trace_meta_check(v->t);
	if (rc < 0)
		report_last(v, rc);
}

/* ---- context map --------------------------------------------------------- */

static bool reg_present(const umt_reg_info *ri)
{
	return ri->Offset != 0xffff && ri->Size != 0;
}

/* File offset of regInfo @p reg of the 32- or 64-bit map. */
static uint64_t reg_info_off(int bits, int reg)
{
	return (bits == 64 ? offsetof(umt_context_map, RegMap64)
	                   : offsetof(umt_context_map, RegMap32)) + 8 * (uint64_t)reg;
}

static void verify_reg_info(struct verifier *v, int reg, int bits)
{
	const umt_context_map *m = v->t->cmap;
	const umt_reg_info *ri = bits == 64 ? &m->RegMap64[reg] : &m->RegMap32[reg];
	uint64_t at = reg_info_off(bits, reg);
	place(v, UMT_CHECK_CONTEXT_MAP, UMT_FILE_CONTEXT_MAP, UMT_LOC_ROW, (uint64_t)reg);
	if ((ri->Offset == 0xffff) != (ri->Size == 0))
		BAD(v, UMT_E_CORRUPT, at,
		    "RegMap%d: Offset 0x%x with Size %u (an absent register has 0xffff and 0)",
		    bits, ri->Offset, ri->Size);
	else if (ri->Size != 0 && (uint32_t)ri->Offset + ri->Size > m->DumpSize)
		BAD(v, UMT_E_BOUNDS, at,
		    "RegMap%d: Offset %u + Size %u runs past DumpSize %u", bits,
		    ri->Offset, ri->Size, m->DumpSize);
	else if (ri->Size != 0 && (ri->EffLargest < 0 || ri->EffLargest >= (int)umt__cmap_elems(m)))
		BAD(v, UMT_E_BOUNDS, at + 4,
		    "RegMap%d: EffLargest %d is outside the map (ElemCount %u)",
		    bits, ri->EffLargest, m->ElemCount);
}

/*
 * A present register lies inside its EffLargest, which is present and its
 * own largest; the largest registers do not overlap one another. Together:
 * two registers share dump bytes only when they share their largest.
 */
static void verify_dump_layout(struct verifier *v, int bits)
{
	const umt_context_map *m = v->t->cmap;
	const umt_reg_info *map = bits == 64 ? m->RegMap64 : m->RegMap32;
	uint16_t largest[UMT_CONTEXT_MAP_REGS];
	int n = 0;
	int elems = (int)umt__cmap_elems(m); /* loaded once: never past the arrays */
	for (int r = 0; r < elems && !v->stop; r++) {
		const umt_reg_info *ri = &map[r];
		if (!reg_present(ri) || (uint32_t)ri->Offset + ri->Size > m->DumpSize ||
		    ri->EffLargest < 0 || ri->EffLargest >= elems)
			continue; /* absent, or reported by verify_reg_info() */
		const umt_reg_info *e = &map[ri->EffLargest];
		place(v, UMT_CHECK_CONTEXT_MAP, UMT_FILE_CONTEXT_MAP, UMT_LOC_ROW, (uint64_t)r);
		if (ri->EffLargest == r)
			largest[n++] = (uint16_t)r;
		else if (!reg_present(e) || e->EffLargest != ri->EffLargest ||
		         e->Offset > ri->Offset ||
		         (uint32_t)ri->Offset + ri->Size > (uint32_t)e->Offset + e->Size)
			BAD(v, UMT_E_CORRUPT, reg_info_off(bits, r) + 4,
			    "RegMap%d: EffLargest %d does not enclose it (bytes %u to %u)", bits,
			    ri->EffLargest, ri->Offset, ri->Offset + ri->Size);
	}
	/* the largest registers by offset (insertion sort: at most 512) */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && map[largest[j - 1]].Offset > map[largest[j]].Offset; j--) {
			uint16_t x = largest[j];
			largest[j] = largest[j - 1];
			largest[j - 1] = x;
		}
	for (int i = 1; i < n && !v->stop; i++) {
		const umt_reg_info *a = &map[largest[i - 1]], *b = &map[largest[i]];
		if ((uint32_t)a->Offset + a->Size <= b->Offset)
			continue;
		place(v, UMT_CHECK_CONTEXT_MAP, UMT_FILE_CONTEXT_MAP, UMT_LOC_ROW, largest[i]);
		BAD(v, UMT_E_CORRUPT, reg_info_off(bits, largest[i]),
		    "RegMap%d: bytes %u to %u overlap those of register %u (%u to %u)", bits,
		    b->Offset, b->Offset + b->Size, largest[i - 1], a->Offset, a->Offset + a->Size);
	}
}

static void verify_context_map(struct verifier *v)
{
	const umt_context_map *m = v->t->cmap;
	int elems = (int)umt__cmap_elems(m); /* loaded once: never past the arrays */
	for (int reg = 0; reg < elems && !v->stop; reg++) {
		int16_t c = m->CommonName[reg];
		uint64_t at = offsetof(umt_context_map, CommonName) + 2 * (uint64_t)reg;
		place(v, UMT_CHECK_CONTEXT_MAP, UMT_FILE_CONTEXT_MAP, UMT_LOC_ROW, (uint64_t)reg);
		if (c < 0 || c >= elems)
			BAD(v, UMT_E_BOUNDS, at, "CommonName %d is outside the map (ElemCount %u)",
			    c, (unsigned)elems);
		verify_reg_info(v, reg, 32);
		verify_reg_info(v, reg, 64);
	}
	verify_dump_layout(v, 32);
	verify_dump_layout(v, 64);
}

/* ---- thread table -------------------------------------------------------- */

static void verify_thread_row(struct verifier *v, uint64_t i)
{
	const umt_trace *t = v->t;
	const umt_thread_rec *r = (const umt_thread_rec *)row_at(&t->thread, i);
	uint64_t at = row_off(&t->thread, i), n = t->exec_count;
	place(v, UMT_CHECK_THREADS, UMT_FILE_THREAD, UMT_LOC_ROW, i);
	if (r->ID < 0 || (uint64_t)r->ID != i)
		BAD(v, UMT_E_CORRUPT, at, "ID %d is not the row number", r->ID);
	if (!eid_ok(t, r->FirstEID))
		BAD(v, UMT_E_BOUNDS, at + 16,
		    "FirstEID %lld is outside the execution table (%llu records)",
		    (long long)r->FirstEID, (unsigned long long)n);
	if (!eid_ok(t, r->LastEID))
		BAD(v, UMT_E_BOUNDS, at + 24,
		    "LastEID %lld is outside the execution table (%llu records)",
		    (long long)r->LastEID, (unsigned long long)n);
	if (r->RecCount < 0 || (uint64_t)r->RecCount > n)
		BAD(v, UMT_E_BOUNDS, at + 32, "RecCount %lld is outside [0, %llu]",
		    (long long)r->RecCount, (unsigned long long)n);
	else if ((r->FirstEID == NONE) != (r->RecCount == 0))
		BAD(v, UMT_E_CORRUPT, at + 32, "RecCount %lld does not agree with FirstEID %lld",
		    (long long)r->RecCount, (long long)r->FirstEID);
	if (r->LastEID != NONE && (r->FirstEID == NONE || r->LastEID < r->FirstEID))
		BAD(v, UMT_E_CORRUPT, at + 24, "LastEID %lld comes before FirstEID %lld",
		    (long long)r->LastEID, (long long)r->FirstEID);
}

/* ---- module table -------------------------------------------------------- */

static void verify_module_name(struct verifier *v, uint64_t i, int which)
{
	const struct umt_itable *m = &v->t->module;
	const uint8_t *units;
	size_t n;
	int rc = umt_module_name_utf16(v->t, i, which, &units, &n);
	if (rc < 0) {
		report_last(v, rc);
		return;
	}
	if (units[2 * n] != 0 || units[2 * n + 1] != 0)
		BAD(v, UMT_E_CORRUPT, m->extra_fp + (uint64_t)(units - m->extra) + 2 * n,
		    "uStr of %s: no NUL unit after its Length %zu units",
		    which == UMT_MODULE_WIN_NAME ? "WinNameFP" : "DeviceNameFP", n);
}

static void verify_module_row(struct verifier *v, uint64_t i)
{
	const umt_trace *t = v->t;
	const umt_module_rec *r = (const umt_module_rec *)row_at(&t->module, i);
	uint64_t at = row_off(&t->module, i);
	place(v, UMT_CHECK_MODULES, UMT_FILE_MODULE, UMT_LOC_ROW, i);
	verify_module_name(v, i, UMT_MODULE_WIN_NAME);
	verify_module_name(v, i, UMT_MODULE_DEVICE_NAME);
	if ((uint64_t)r->StartAddr > (uint64_t)r->EndAddr)
		BAD(v, UMT_E_CORRUPT, at + 16, "StartAddr 0x%llx is after EndAddr 0x%llx",
		    (unsigned long long)r->StartAddr, (unsigned long long)r->EndAddr);
	if (r->LoadEID < 0)
		BAD(v, UMT_E_CORRUPT, at, "LoadEID %lld is negative", (long long)r->LoadEID);
	else if (r->UnloadEID != NONE && r->UnloadEID < r->LoadEID)
		BAD(v, UMT_E_CORRUPT, at + 8, "UnloadEID %lld is before LoadEID %lld",
		    (long long)r->UnloadEID, (long long)r->LoadEID);
}

/* ---- address space ------------------------------------------------------- */

static void verify_ranges(struct verifier *v)
{
	const struct umt_itable *tb = &v->t->aspace;
	uint64_t prev_last = 0;
	for (uint64_t i = 0; i < tb->count && !v->stop; i++) {
		const umt_address_range *r = (const umt_address_range *)row_at(tb, i);
		uint64_t first = (uint64_t)r->First, last = (uint64_t)r->Last, at = row_off(tb, i);
		place(v, UMT_CHECK_ADDRESS_SPACE, UMT_FILE_ADDRESS_SPACE, UMT_LOC_ROW, i);
		if (first % 4096 != 0)
			BAD(v, UMT_E_CORRUPT, at, "First 0x%llx is not a multiple of 4096",
			    (unsigned long long)first);
		if ((last + 1) % 4096 != 0)
			BAD(v, UMT_E_CORRUPT, at + 8,
			    "Last 0x%llx is not one less than a multiple of 4096",
			    (unsigned long long)last);
		if (first >= last)
			BAD(v, UMT_E_CORRUPT, at + 8, "Last 0x%llx is not after First 0x%llx",
			    (unsigned long long)last, (unsigned long long)first);
		if (i > 0 && first <= prev_last)
			BAD(v, UMT_E_CORRUPT, at,
			    "First 0x%llx is not after the previous range's Last 0x%llx "
			    "(ranges are sorted and disjoint)",
			    (unsigned long long)first, (unsigned long long)prev_last);
		prev_last = last;
		progress(v, 1);
	}
}

/* ---- instruction table: decoded bodies ----------------------------------- */

static bool special_name(uint16_t name)
{
	return name == UMT_REG_MEM0 || name == UMT_REG_MEM1 || name == UMT_REG_AGEN;
}

/* A register name of a slot or operand: special, or inside the trace's context map. */
static void verify_reg_name(struct verifier *v, int16_t reg, uint64_t at, const char *what,
                            unsigned n)
{
	uint16_t name = (uint16_t)reg, elems = v->t->cmap->ElemCount;
	if (!special_name(name) && name >= elems)
		BAD(v, UMT_E_BOUNDS, at,
		    "decodedIns: %s %u: register %u is outside the context map (ElemCount %u)",
		    what, n, name, elems);
}

/* Operand @p k's before or after slot: its group, offset and width (spec 7.2.1, 7.3.3). */
static void verify_oper_slot(struct verifier *v, const umt_decoded *d, unsigned k, bool after)
{
	const umt_decoded_ins *b = d->ins;
	const umt_exp_oper *o = &b->ExpOper[k];
	uint64_t at = d->offset + offsetof(umt_decoded_ins, ExpOper) + 12 * (uint64_t)k;
	uint8_t s = after ? o->AfterSlot : o->BeforeSlot;
	uint8_t off = after ? o->AfterOffset : o->BeforeOffset;
	if (s >= b->LCCount)
		return; /* a constant, or none */
	/* groups: before values of read operands, of write-only ones, after values */
	bool read = (o->Flags & UMT_OPER_F_READ) != 0;
	unsigned lo = after ? b->FirstAfterSlot : read ? 0 : b->FirstOutSlot;
	unsigned hi = after ? b->LCCount : read ? b->FirstOutSlot : b->FirstAfterSlot;
	if (s < lo || s >= hi)
		BAD(v, UMT_E_CORRUPT, at + (after ? 6 : 5),
		    "decodedIns: operand %u: %s %u is not in its group [%u, %u)", k,
		    after ? "AfterSlot" : "BeforeSlot", s, lo, hi);
	const umt_lc_slot *sl = &d->slots[s];
	uint64_t skip = sl->AddrWidth > 0 ? 0 : off; /* a memory value follows its address */
	if (sl->AddrWidth > 0 && off != 8)
		BAD(v, UMT_E_CORRUPT, at + (after ? 8 : 7),
		    "decodedIns: operand %u: offset %u in memory slot %u is not 8", k, off, s);
	else if (skip + (uint64_t)o->Size > (uint64_t)sl->ValueSize)
		BAD(v, UMT_E_CORRUPT, at + 2,
		    "decodedIns: operand %u: %d bytes at offset %u exceed the %d bytes of slot %u",
		    k, o->Size, (unsigned)skip, sl->ValueSize, s);
}

static void verify_operand(struct verifier *v, const umt_decoded *d, unsigned k)
{
	const umt_exp_oper *o = &d->ins->ExpOper[k];
	uint64_t at = d->offset + offsetof(umt_decoded_ins, ExpOper) + 12 * (uint64_t)k;
	bool written = (o->Flags & UMT_OPER_F_WRITE) != 0;
	verify_reg_name(v, o->RegName, at, "operand", k);
	if ((o->Flags & (UMT_OPER_F_READ | UMT_OPER_F_WRITE)) == 0)
		BAD(v, UMT_E_CORRUPT, at + 4,
		    "decodedIns: operand %u: Flags 0x%x: neither read nor written",
		    k, o->Flags);
	if (o->BeforeSlot == UMT_SLOT_NA)
		BAD(v, UMT_E_CORRUPT, at + 5, "decodedIns: operand %u: BeforeSlot is SLOT_NA", k);
	if (written != (o->AfterSlot != UMT_SLOT_NA))
		BAD(v, UMT_E_CORRUPT, at + 6,
		    "decodedIns: operand %u: %s operand with AfterSlot 0x%02x",
		    k, written ? "a written" : "a read-only", o->AfterSlot);
	verify_oper_slot(v, d, k, false);
	verify_oper_slot(v, d, k, true);
}

/* The memory phrases: present only when an operand or slot needs them, before values. */
static void verify_phrases(struct verifier *v, const umt_decoded *d, bool mem0, bool mem1)
{
	const umt_decoded_ins *b = d->ins;
	static const struct {
		size_t off;
		const char *name;
	} f[] = {
		{offsetof(umt_decoded_ins, Mem0SegSlot), "Mem0SegSlot"},
		{offsetof(umt_decoded_ins, Mem0BaseSlot), "Mem0BaseSlot"},
		{offsetof(umt_decoded_ins, Mem0IndexSlot), "Mem0IndexSlot"},
		{offsetof(umt_decoded_ins, Mem1BaseSlot), "Mem1BaseSlot"},
	};
	for (size_t k = 0; k < 4; k++) {
		uint8_t s = ((const uint8_t *)b)[f[k].off];
		if (s != UMT_SLOT_NA && !(k < 3 ? mem0 : mem1))
			BAD(v, UMT_E_CORRUPT, d->offset + f[k].off,
			    "decodedIns: %s %u, but no operand or slot is %s", f[k].name, s,
			    k < 3 ? "MEM0 or AGEN" : "MEM1");
		else if (s < b->LCCount && s >= b->FirstAfterSlot)
			BAD(v, UMT_E_CORRUPT, d->offset + f[k].off,
			    "decodedIns: %s %u is not a before-execution slot (FirstAfterSlot %u)",
			    f[k].name, s, b->FirstAfterSlot);
	}
	if ((b->Mem0IndexSlot == UMT_SLOT_NA) != (b->Mem0Scale == 0))
		BAD(v, UMT_E_CORRUPT, d->offset + offsetof(umt_decoded_ins, Mem0Scale),
		    "decodedIns: Mem0Scale %u with Mem0IndexSlot 0x%02x (scale 0 is for no index)",
		    b->Mem0Scale, b->Mem0IndexSlot);
}

/* Rules of a decodedIns that umt_ins_decoded() leaves to verify: names, groups, phrases. */
static void verify_body(struct verifier *v, const umt_decoded *d)
{
	const umt_decoded_ins *b = d->ins;
	bool mem0 = false, mem1 = false;
	for (unsigned s = 0; s < b->LCCount; s++) {
		const umt_lc_slot *sl = &d->slots[s];
		uint64_t at = d->offset + sizeof *b + 12 * (uint64_t)s;
		uint16_t name = (uint16_t)sl->RegName;
		mem0 |= name == UMT_REG_MEM0 || name == UMT_REG_AGEN;
		mem1 |= name == UMT_REG_MEM1;
		verify_reg_name(v, sl->RegName, at, "slot", s);
		verify_reg_name(v, sl->CommonRegName, at + 2, "slot", s);
	}
	for (unsigned k = 0; k < b->ExpCount; k++) {
		uint16_t name = (uint16_t)b->ExpOper[k].RegName;
		mem0 |= name == UMT_REG_MEM0 || name == UMT_REG_AGEN;
		mem1 |= name == UMT_REG_MEM1;
		verify_operand(v, d, k);
	}
	verify_phrases(v, d, mem0, mem1);
}

/* ---- instruction table: rows --------------------------------------------- */

/* The instruction lies inside its module (ModuleID -1, floating code, has none). */
static void verify_ins_module(struct verifier *v, uint64_t i, const umt_ins_rec *r)
{
	uint64_t mod;
	const umt_module_rec *m;
	int rc = umt_ins_module(v->t, i, &mod);
	if (rc < 0) {
		if (rc != UMT_E_NOT_FOUND)
			report_last(v, rc);
		return;
	}
	/* (a module whose StartAddr is after its EndAddr is reported by the module pass) */
	if (umt_module_get(v->t, mod, &m) == 0 && (uint64_t)m->StartAddr <= (uint64_t)m->EndAddr &&
	    ((uint64_t)r->Address < (uint64_t)m->StartAddr ||
	     (uint64_t)r->Address > (uint64_t)m->EndAddr))
		BAD(v, UMT_E_CORRUPT, row_off(&v->t->ins, i) + 16,
		    "Address 0x%llx is outside module %llu [0x%llx, 0x%llx]",
		    (unsigned long long)r->Address, (unsigned long long)mod,
		    (unsigned long long)m->StartAddr, (unsigned long long)m->EndAddr);
}

static void verify_ins_row(struct verifier *v, uint64_t i)
{
	const umt_trace *t = v->t;
	const umt_ins_rec *r = (const umt_ins_rec *)row_at(&t->ins, i);
	uint64_t at = row_off(&t->ins, i);
	const uint8_t *bytes;
	unsigned size;
	const char *text;
	size_t len;
	umt_decoded d;
	int rc;
	place(v, UMT_CHECK_INS, UMT_FILE_INS, UMT_LOC_ROW, i);
	if (r->ID < 0 || (uint64_t)r->ID != i)
		BAD(v, UMT_E_CORRUPT, at, "ID %lld is not the row number", (long long)r->ID);
	if ((rc = umt_ins_code(t, i, &bytes, &size)) < 0)
		report_last(v, rc);
	else if (size == 0)
		BAD(v, UMT_E_CORRUPT, at + 10, "CodeSize is 0 (an instruction has 1 to 15 bytes)");
	verify_ins_module(v, i, r);
	if ((rc = umt_ins_disasm(t, i, &text, &len)) < 0)
		report_last(v, rc);
	if ((rc = umt_ins_decoded(t, i, &d)) < 0)
		report_last(v, rc);
	else
		verify_body(v, &d);
}

/* ---- syscall table ------------------------------------------------------- */

/* The execution record a syscall row names, or false when it is not readable. */
static bool syscall_target(struct verifier *v, const umt_syscall *s, int64_t eid, uint64_t field,
                           umt_rec *out)
{
	if (eid < 0 || (uint64_t)eid >= v->t->exec_count) {
		BAD(v, UMT_E_BOUNDS, s->offset + field,
		    "%s %lld is outside the execution table (%llu records)",
		    field == 8 ? "BeginEID" : "EndEID", (long long)eid,
		    (unsigned long long)v->t->exec_count);
		return false;
	}
	/* a record that cannot be read is reported by the execution pass */
	return umt_exec_get(v->t, (uint64_t)eid, out) == 0;
}

/* The SyscallID of entry/exit/skipped record @p r, or INT64_MIN for other types. */
static int64_t rec_syscall(const umt_rec *r)
{
	int64_t sid;
	return umt_rec_syscall_id(r, &sid) == 0 ? sid : INT64_MIN;
}

/* EndEID: an exit or skipped exit of this call, after its entry, in its thread. */
static void verify_syscall_end(struct verifier *v, const umt_syscall *s, const umt_rec *begin)
{
	const umt_syscall_rec *sr = s->rec;
	umt_rec end;
	int completed = -1; /* what EndEID implies */
	if (sr->EndEID == NONE) {
		completed = 0;
	} else if (syscall_target(v, s, sr->EndEID, 16, &end)) {
		if (end.type != UMT_REC_SYSCALL_EXIT && end.type != UMT_REC_SYSCALL_SKIPPED)
			BAD(v, UMT_E_CORRUPT, s->offset + 16,
			    "EndEID %lld is a %s record, not a syscall exit or skipped exit",
			    (long long)sr->EndEID, umt_rec_type_name(end.type));
		else if (rec_syscall(&end) != (int64_t)s->id)
			BAD(v, UMT_E_CORRUPT, s->offset + 16,
			    "EndEID %lld names syscall %lld, not this one",
			    (long long)sr->EndEID, (long long)rec_syscall(&end));
		else
			completed = end.type == UMT_REC_SYSCALL_EXIT;
		bool paired = completed >= 0 && begin != NULL; /* both ends of this call */
		if (paired && sr->EndEID <= sr->BeginEID)
			BAD(v, UMT_E_CORRUPT, s->offset + 16,
			    "EndEID %lld is not after BeginEID %lld",
			    (long long)sr->EndEID, (long long)sr->BeginEID);
		else if (paired && end.thread_id != begin->thread_id)
			BAD(v, UMT_E_CORRUPT, s->offset + 16,
			    "EndEID %lld is in thread %d, BeginEID %lld in thread %d",
			    (long long)sr->EndEID, end.thread_id, (long long)sr->BeginEID,
			    begin->thread_id);
	}
	if (sr->Completed > 1)
		BAD(v, UMT_E_CORRUPT, s->offset + 5, "Completed is %u, not 0 or 1", sr->Completed);
	else if (completed >= 0 && sr->Completed != completed)
		BAD(v, UMT_E_CORRUPT, s->offset + 5, "Completed is %u but EndEID %lld %s",
		    sr->Completed, (long long)sr->EndEID,
		    sr->EndEID == NONE ? "says the call never returned"
		    : completed        ? "is a syscall exit"
		                       : "is a skipped exit");
}

static void verify_syscall_row(struct verifier *v, uint64_t i)
{
	umt_syscall s;
	place(v, UMT_CHECK_SYSCALLS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, i);
	int rc = umt_syscall_get(v->t, i, &s);
	if (rc < 0) {
		report_last(v, rc);
		return;
	}
	place(v, UMT_CHECK_SYSCALLS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, i);
	if (s.args_fp_absolute) /* ERRATA 7: readable, but not as the spec says */
		WARN(v, UMT_E_BOUNDS, s.offset + 40,
		     "ArgsFP 0x%llx is an absolute offset, not relative to the record",
		     (unsigned long long)s.rec->ArgsFP);
	umt_rec begin;
	bool have_begin = syscall_target(v, &s, s.rec->BeginEID, 8, &begin);
	if (have_begin && begin.type != UMT_REC_SYSCALL_ENTRY) {
		BAD(v, UMT_E_CORRUPT, s.offset + 8,
		    "BeginEID %lld is a %s record, not a syscall entry",
		    (long long)s.rec->BeginEID, umt_rec_type_name(begin.type));
		have_begin = false;
	} else if (have_begin && rec_syscall(&begin) != (int64_t)i) {
		BAD(v, UMT_E_CORRUPT, s.offset + 8,
		    "BeginEID %lld names syscall %lld, not this one",
		    (long long)s.rec->BeginEID, (long long)rec_syscall(&begin));
		have_begin = false;
	}
	verify_syscall_end(v, &s, have_begin ? &begin : NULL);
}

/* ---- execution records: contexts ----------------------------------------- */

static void verify_context(struct verifier *v, const umt_rec *r)
{
	umt_context c;
	int rc = umt_rec_context(v->t, r, &c);
	if (rc < 0) {
		report_last(v, rc);
		return;
	}
	/* data follows the rmContext and its MemRefs array (spec 6.4) */
	uint64_t head = sizeof(umt_rm_context) + (uint64_t)c.mem_count * sizeof(umt_context_mem);
	if ((uint64_t)(c.regs - c.base) < head && c.regs_size > 0)
		BAD(v, UMT_E_CORRUPT, c.offset + 8,
		    "rmContext RegsFP 0x%llx points into the rmContext (%llu bytes)",
		    (unsigned long long)(c.regs - c.base), (unsigned long long)head);
	for (uint32_t k = 0; k < c.mem_count && !v->stop; k++) {
		umt_mem_ref m;
		/* its DataFP */
		uint64_t at = c.offset + sizeof(umt_rm_context) + 24 * (uint64_t)k + 16;
		if ((rc = umt_context_mem_get(&c, k, &m)) < 0)
			report_last(v, rc);
		else if ((uint64_t)(m.data - c.base) < head && m.size > 0)
			BAD(v, UMT_E_CORRUPT, at,
			    "contextMem %u: DataFP 0x%llx points into the rmContext (%llu bytes)",
			    k, (unsigned long long)(m.data - c.base), (unsigned long long)head);
	}
}

/* ---- execution records: instructions and MEM0 ---------------------------- */

/*
 * What the execution pass needs of one instruction row, cached by InsID in
 * a small direct-mapped table (fixed size: O(1) memory, and hot loops hit
 * it): the checked decoded body, LCSize and the LC slots holding a MEM0
 * address (ERRATA 13), so that a record costs a lookup, a compare and, for
 * memory instructions, one phrase.
 */
struct ins_plan {
	int64_t ins_id;             /* -1 when empty */
	const umt_decoded_ins *ins; /* checked by umt_ins_decoded() */
	uint16_t lc_size;
	uint8_t nmem0;              /* slots in mem0[]; PLAN_MANY: more than fit */
	uint8_t mem0[5];
};
#define PLANS 4096
#define PLAN_MANY 0xff

/* The LC slots of a checked body. */
static inline const umt_lc_slot *slots_of(const umt_decoded_ins *d)
{
	return (const umt_lc_slot *)(d + 1);
}

/* true when slot @p s holds a MEM0 address: a MEM0 slot, or the slot of a MEM0 operand. */
static bool is_mem0_slot(const umt_decoded_ins *d, unsigned s)
{
	const umt_lc_slot *sl = &slots_of(d)[s];
	if (sl->AddrWidth == 0)
		return false;
	if ((uint16_t)sl->RegName == UMT_REG_MEM0)
		return true;
	for (unsigned i = 0; i < d->ExpCount; i++) {
		const umt_exp_oper *o = &d->ExpOper[i];
		uint8_t os = o->BeforeSlot != UMT_SLOT_NA ? o->BeforeSlot : o->AfterSlot;
		if ((uint16_t)o->RegName == UMT_REG_MEM0 && os == s)
			return true;
	}
	return false;
}

static void plan_mem0(struct ins_plan *p)
{
	p->nmem0 = 0;
	for (unsigned s = 0; s < p->ins->LCCount; s++) {
		if (!is_mem0_slot(p->ins, s))
			continue;
		if (p->nmem0 == sizeof p->mem0) {
			p->nmem0 = PLAN_MANY;
			return;
		}
		p->mem0[p->nmem0++] = (uint8_t)s;
	}
}

static inline uint64_t width_mask(unsigned width)
{
	return width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * width)) - 1;
}

/*
 * Compares the address stored at slot @p slot with the phrase's effective
 * address (ERRATA 13), both masked to the slot's AddrWidth; false after a
 * warning (one per record).
 */
static bool mem0_same(struct verifier *v, const umt_ins_exec *x, const umt_mem_phrase *ph,
                      unsigned slot)
{
	const umt_lc_slot *s = &x->dec.slots[slot];
	/* what umt_lc_slot_value() returns: the body was checked, Offset + 8 <= LCSize <= LC */
	uint64_t mask = width_mask(s->AddrWidth);
	uint64_t addr = umt__ld64(x->lc + s->Offset) & mask, ea = ph->ea & mask;
	if (addr == ea)
		return true;
	place(v, UMT_CHECK_MEM0, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, x->record_id);
	WARN(v, UMT_E_CORRUPT, x->lc_offset + s->Offset,
	     "MEM0 address 0x%llx (slot %u) differs from its phrase's effective address 0x%llx "
	     "(seg 0x%llx + base 0x%llx + index 0x%llx * %u + disp %lld, instruction %lld)",
	     (unsigned long long)addr, slot, (unsigned long long)ea, (unsigned long long)ph->seg,
	     (unsigned long long)ph->base, (unsigned long long)ph->index, ph->scale,
	     (long long)ph->disp, (long long)x->ins_id);
	return false;
}

static void verify_mem0(struct verifier *v, const struct ins_plan *p, const umt_ins_exec *x)
{
	umt_mem_phrase ph;
	if (umt_ins_exec_phrase(x, 0, &ph) < 0)
		return; /* cannot happen: a MEM0 slot makes the phrase present */
	if (p->nmem0 != PLAN_MANY) {
		for (unsigned k = 0; k < p->nmem0; k++)
			if (!mem0_same(v, x, &ph, p->mem0[k]))
				return;
		return;
	}
	for (unsigned s = 0; s < p->ins->LCCount; s++) /* more than cached */
		if (is_mem0_slot(p->ins, s) && !mem0_same(v, x, &ph, s))
			return;
}

/* Reports why umt_rec_ins_exec() refuses @p r, unless the instruction row is at fault. */
static void report_ins_exec(struct verifier *v, const umt_rec *r)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(v->t, r, &x);
	struct umt_loc loc;
	umt__last_loc(&loc);
	/* a bad instruction row is reported once, by the instruction pass */
	if (rc < 0 && loc.file != UMT_FILE_INS && want(v, UMT_CHECK_EXEC))
		report_last(v, rc);
}

static void verify_instruction(struct verifier *v, const umt_rec *r)
{
	int64_t ins_id = ((const umt_exec_ins *)r->data)->InsID;
	uint64_t lc_size = r->size - sizeof(umt_exec_ins);
	struct ins_plan *p = &v->plans[(uint64_t)ins_id % PLANS];
	if (UMT_UNLIKELY(ins_id < 0 || (uint64_t)ins_id >= v->t->ins.count ||
	                 p->ins_id != ins_id)) {
		umt_ins_exec x;
		if (umt_rec_ins_exec(v->t, r, &x) < 0) {
			report_ins_exec(v, r);
			return;
		}
		*p = (struct ins_plan){.ins_id = ins_id, .ins = x.dec.ins,
		                       .lc_size = x.dec.ins->LCSize};
		plan_mem0(p);
	}
	if (UMT_UNLIKELY(lc_size != p->lc_size)) {
		if (lc_size < p->lc_size) {
			report_ins_exec(v, r);
			return;
		}
		/* the spec sizes the LC by LCSize: a shifted offset, or padding */
		if (want(v, UMT_CHECK_EXEC))
			WARN(v, UMT_E_CORRUPT, r->offset + sizeof(umt_exec_ins) + p->lc_size,
			     "local context of %llu bytes is longer than LCSize %u of instruction "
			     "%lld", (unsigned long long)lc_size, p->lc_size, (long long)ins_id);
	}
	if (p->nmem0 == 0 || !want(v, UMT_CHECK_MEM0))
		return;
	/* what umt_rec_ins_exec() returns, from the checked body */
	const struct umt_itable *tb = &v->t->ins;
	umt_decoded dec = {p->ins, slots_of(p->ins), (uint64_t)ins_id,
	                   tb->extra_fp + (uint64_t)((const uint8_t *)p->ins - tb->extra)};
	umt_ins_exec x = {dec, r->data + sizeof(umt_exec_ins), lc_size, r->id,
	                  r->offset + sizeof(umt_exec_ins), ins_id, umt_rec_is_64bit(r)};
	verify_mem0(v, p, &x);
}

/* ---- execution records: syscall IDs -------------------------------------- */

/* An entry, exit or skipped exit: its SyscallID, and the row that must name it back. */
static void verify_syscall_rec(struct verifier *v, const umt_rec *r)
{
	const umt_trace *t = v->t;
	int64_t sid = rec_syscall(r);
	uint64_t at = r->offset + sizeof(umt_exec_rec_hdr);
	if (sid == NONE && r->type == UMT_REC_SYSCALL_EXIT)
		return; /* an exit without an entry */
	if (sid < 0 || (uint64_t)sid >= t->sys_count) {
		if (want(v, UMT_CHECK_EXEC))
			BAD(v, UMT_E_BOUNDS, at,
			    "%s SyscallID %lld is outside the syscall table (%llu records)",
			    umt_rec_type_name(r->type), (long long)sid,
			    (unsigned long long)t->sys_count);
		return;
	}
	umt_syscall s;
	if (!want(v, UMT_CHECK_SYSCALLS) || umt_syscall_get(t, (uint64_t)sid, &s) < 0)
		return; /* a bad row is reported by the syscall pass */
	bool entry = r->type == UMT_REC_SYSCALL_ENTRY;
	int64_t back = entry ? s.rec->BeginEID : s.rec->EndEID;
	place(v, UMT_CHECK_SYSCALLS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id);
	if (back != (int64_t)r->id)
		BAD(v, UMT_E_CORRUPT, at, "SyscallID %lld: that row's %s is %lld, not this record",
		    (long long)sid, entry ? "BeginEID" : "EndEID", (long long)back);
	place(v, UMT_CHECK_EXEC, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id);
}

/* ---- execution records: threads and links -------------------------------- */

/* Thread-level rules: begin first and once, nothing after a thread-end. */
static void verify_thread_order(struct verifier *v, const umt_rec *r, const struct vthread *st)
{
	if (st->count == 0 && r->type != UMT_REC_THREAD_BEGIN)
		BAD(v, UMT_E_CORRUPT, r->offset + 4,
		    "first record of thread %d is a %s record, not a thread-begin", r->thread_id,
		    umt_rec_type_name(r->type));
	else if (st->count > 0 && r->type == UMT_REC_THREAD_BEGIN)
		BAD(v, UMT_E_CORRUPT, r->offset + 4,
		    "second thread-begin of thread %d (the first is record %lld)", r->thread_id,
		    (long long)st->first);
	if (st->ended != NONE)
		BAD(v, UMT_E_CORRUPT, r->offset,
		    "record of thread %d after its thread-end (record %lld)",
		    r->thread_id, (long long)st->ended);
}

/*
 * Record @p id's prev/next pair against its thread's state (@p st NULL
 * when the thread is unknown: only the ranges are checked).
 */
static void verify_links(struct verifier *v, uint64_t id, struct vthread *st)
{
	const umt_prev_next *e = (const umt_prev_next *)(v->pn + id * sizeof(umt_prev_next));
	int64_t prev = e->Prev, next = e->Next;
	uint64_t at = id * sizeof(umt_prev_next), n = v->t->exec_count;
	place(v, UMT_CHECK_LINKS, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD, id);
	if (!eid_ok(v->t, prev))
		BAD(v, UMT_E_BOUNDS, at, "Prev link %lld is outside the table (%llu records)",
		    (long long)prev, (unsigned long long)n);
	else if (st != NULL && prev != st->last)
		BAD(v, UMT_E_CORRUPT, at,
		    "Prev link is %lld, but the thread's previous record is %lld",
		    (long long)prev, (long long)st->last);
	if (!eid_ok(v->t, next))
		BAD(v, UMT_E_BOUNDS, at + 8, "Next link %lld is outside the table (%llu records)",
		    (long long)next, (unsigned long long)n);
	/* prev(next(i)) == i: the previous record's Next must lead here */
	if (st != NULL && st->last != NONE && st->last_next != (int64_t)id &&
	    eid_ok(v->t, st->last_next)) {
		uint64_t last = (uint64_t)st->last;
		place(v, UMT_CHECK_LINKS, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD, last);
		BAD(v, UMT_E_CORRUPT, (uint64_t)st->last * sizeof(umt_prev_next) + 8,
		    "Next link is %lld, but the thread's next record is %llu",
		    (long long)st->last_next, (unsigned long long)id);
	}
	if (st != NULL)
		st->last_next = next;
}

/* The thread row a record belongs to, or NULL (reported) when outside the table. */
static struct vthread *rec_thread(struct verifier *v, const umt_rec *r)
{
	const struct umt_itable *th = &v->t->thread;
	if (r->thread_id >= 0 && (uint64_t)r->thread_id < th->count)
		return &v->th[r->thread_id];
	/* a row lost at open (salvage) was reported once, by verify_salvage() */
	bool lost = v->t->salvage.status[UMT_FILE_THREAD] == UMT_FILE_UNAVAILABLE ||
	            (r->thread_id >= 0 && (uint64_t)r->thread_id < th->declared);
	if (want(v, UMT_CHECK_EXEC) && !lost)
		BAD(v, UMT_E_BOUNDS, r->offset,
		    "ThreadID %d is outside the thread table (%llu threads)",
		    r->thread_id, (unsigned long long)v->t->thread.count);
	return NULL;
}

/* umt_rec_type_has_context() without a call: types 1, 4, 5, 8-11 */
static inline bool has_context(uint8_t type)
{
	return type < 16 && ((0xf32u >> type) & 1) != 0;
}

static void seen(struct vthread *st, uint64_t id)
{
	if (st->count++ == 0)
		st->first = (int64_t)id;
	st->last = (int64_t)id;
}

static void verify_record(struct verifier *v, const umt_rec *r)
{
	place(v, UMT_CHECK_EXEC, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id);
	struct vthread *st = rec_thread(v, r);
	if (want(v, UMT_CHECK_EXEC)) {
		if (st != NULL)
			verify_thread_order(v, r, st);
		if (r->type == UMT_REC_APP_END && r->id + 1 != v->t->exec_count)
			BAD(v, UMT_E_CORRUPT, r->offset + 4,
			    "application end is not the last record (%llu records)",
			    (unsigned long long)v->t->exec_count);
	}
	if (r->type == UMT_REC_INSTRUCTION && want(v, UMT_CHECK_EXEC | UMT_CHECK_MEM0))
		verify_instruction(v, r);
	else if (r->type >= UMT_REC_SYSCALL_ENTRY && r->type <= UMT_REC_SYSCALL_SKIPPED)
		verify_syscall_rec(v, r);
	if (has_context(r->type) && want(v, UMT_CHECK_EXEC))
		verify_context(v, r);
	if (v->pn != NULL && !v->stop)
		verify_links(v, r->id, st);
	if (st != NULL) {
		seen(st, r->id);
		if (r->type == UMT_REC_THREAD_END && st->ended == NONE)
			st->ended = (int64_t)r->id;
	}
}

/*
 * A record the iterator refused (already reported): its links are still
 * followed when its header is readable, so that one bad record does not
 * also break its thread's chain.
 */
static void skip_bad_record(struct verifier *v, uint64_t id)
{
	const umt_trace *t = v->t;
	uint64_t begin = umt__ld64(t->exec_offsets + id * 8);
	struct vthread *st = NULL;
	if (begin >= sizeof(umt_exec_vtable_header) &&
	    umt__span_ok(begin, sizeof(umt_exec_rec_hdr), t->exec_size)) {
		int32_t tid = (int32_t)umt__ld32(t->exec_records + begin);
		if (tid >= 0 && (uint64_t)tid < t->thread.count)
			st = &v->th[tid];
	}
	if (v->pn != NULL)
		verify_links(v, id, st);
	if (st != NULL)
		seen(st, id);
}

/* The bytes before the first record and after the last one. */
static void verify_extent(struct verifier *v)
{
	const umt_trace *t = v->t;
	uint64_t first = umt__ld64(t->exec_offsets);
	uint64_t end = umt__ld64(t->exec_offsets + t->exec_count * 8);
	place(v, UMT_CHECK_EXEC, UMT_FILE_EXEC_OFFSETS, UMT_LOC_OFFSET, 0);
	if (first != sizeof(umt_exec_vtable_header))
		BAD(v, UMT_E_CORRUPT, 0,
		    "first offset 0x%llx: records must start right after the 16-byte header",
		    (unsigned long long)first);
	if (end < t->exec_size)
		WARN(v, UMT_E_CORRUPT, t->exec_count * 8,
		     "end offset 0x%llx: %llu bytes of exec.vtable follow the last record",
		     (unsigned long long)end, (unsigned long long)(t->exec_size - end));
}

/* After the pass: each thread's chain against its row. */
static void verify_thread_ends(struct verifier *v)
{
	const umt_trace *t = v->t;
	for (uint64_t i = 0; i < t->thread.count && !v->stop; i++) {
		const struct vthread *st = &v->th[i];
		const umt_thread_rec *r = (const umt_thread_rec *)row_at(&t->thread, i);
		uint64_t at = row_off(&t->thread, i);
		if (v->pn != NULL && st->last != NONE && st->last_next != NONE &&
		    eid_ok(t, st->last_next)) {
			place(v, UMT_CHECK_LINKS, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
			      (uint64_t)st->last);
			BAD(v, UMT_E_CORRUPT, (uint64_t)st->last * sizeof(umt_prev_next) + 8,
			    "Next link is %lld, but this is the last record of thread %llu",
			    (long long)st->last_next, (unsigned long long)i);
		}
		place(v, UMT_CHECK_LINKS, UMT_FILE_THREAD, UMT_LOC_ROW, i);
		if (r->FirstEID != st->first)
			BAD(v, UMT_E_CORRUPT, at + 16,
			    "FirstEID is %lld, but the thread's first record is %lld",
			    (long long)r->FirstEID, (long long)st->first);
		if (r->LastEID == NONE && st->ended != NONE && st->ended == st->last)
			BAD(v, UMT_E_CORRUPT, at + 24,
			    "LastEID is -1, but the thread ended (thread-end record %lld)",
			    (long long)st->ended);
		else if (r->LastEID != NONE && r->LastEID != st->last)
			BAD(v, UMT_E_CORRUPT, at + 24,
			    "LastEID is %lld, but the thread's last record is %lld",
			    (long long)r->LastEID, (long long)st->last);
		if (r->RecCount < 0 || (uint64_t)r->RecCount != st->count)
			BAD(v, UMT_E_CORRUPT, at + 32,
			    "RecCount is %lld, but the thread has %llu records",
			    (long long)r->RecCount, (unsigned long long)st->count);
	}
}

/* The per-thread state and the instruction cache; false when memory runs out. */
static bool exec_state(struct verifier *v)
{
	uint64_t threads = v->t->thread.count;
	v->th = malloc((threads ? threads : 1) * sizeof *v->th);
	v->plans = malloc(PLANS * sizeof *v->plans);
	if (v->th == NULL || v->plans == NULL) {
		v->fatal = umt__failf(UMT_E_NOMEM, "umt_verify: out of memory for %llu threads",
		                      (unsigned long long)threads);
		v->stop = true;
		return false;
	}
	for (uint64_t i = 0; i < threads; i++)
		v->th[i] = (struct vthread){NONE, NONE, NONE, NONE, 0};
	for (unsigned i = 0; i < PLANS; i++)
		v->plans[i].ins_id = NONE;
	return true;
}

/*
 * Maps exec.prev_next.column for the link checks; false when the check
 * cannot run. Lost at open (salvage): reported by verify_salvage(), and the
 * chains go unchecked (v->pn stays NULL).
 */
static bool links_ready(struct verifier *v)
{
	const struct umt_map *pn;
	if (!want(v, UMT_CHECK_LINKS))
		return true;
	int rc = umt__prev_next(v->t, &pn);
	if (rc == 0)
		v->pn = pn->data;
	else if (v->t->salvage.status[UMT_FILE_EXEC_PREV_NEXT] != UMT_FILE_UNAVAILABLE)
		report_last(v, rc); /* the mapping failed */
	return rc == 0 || v->t->salvage.status[UMT_FILE_EXEC_PREV_NEXT] == UMT_FILE_UNAVAILABLE;
}

static void verify_exec(struct verifier *v)
{
	const umt_trace *t = v->t;
	if (!exec_state(v) || !links_ready(v))
		return;
	/* a salvaged table's extent was reported by verify_salvage() */
	if (want(v, UMT_CHECK_EXEC) && t->exec_count == t->exec_declared &&
	    t->salvage.status[UMT_FILE_EXEC_VTABLE] == UMT_FILE_INTACT)
		verify_extent(v);
	umt_exec_iter it;
	umt_rec r;
	umt_exec_iter_init(&it, t, 0, t->exec_count);
	for (uint64_t id = 0; id < t->exec_count && !v->stop; id++) {
		int rc = umt_exec_iter_next(&it, &r);
		if (rc == 0)
			break; /* the iterator's end: the count cannot change, but say so */
		if (rc < 0) {
			place(v, UMT_CHECK_EXEC, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id);
			if (want(v, UMT_CHECK_EXEC))
				report_last(v, rc);
			skip_bad_record(v, id);
		} else {
			verify_record(v, &r);
		}
		v->r.records = id + 1;
		if ((id & (PROGRESS_STEP - 1)) == PROGRESS_STEP - 1)
			progress(v, PROGRESS_STEP);
	}
	progress(v, v->r.records & (PROGRESS_STEP - 1));
	if (want(v, UMT_CHECK_LINKS))
		verify_thread_ends(v);
}

/* ---- driver -------------------------------------------------------------- */

void umt_verify_options_init(umt_verify_options *o)
{
	if (o == NULL)
		return;
	memset(o, 0, sizeof *o);
	o->checks = UMT_CHECK_ALL;
	o->max_problems = 1000;
}

/* One row-by-row pass over a table. */
static void each_row(struct verifier *v, unsigned check, uint64_t count,
                     void (*fn)(struct verifier *, uint64_t))
{
	for (uint64_t i = 0; i < count && want(v, check); i++) {
		fn(v, i);
		progress(v, 1);
	}
}

#define EXEC_PASS (UMT_CHECK_EXEC | UMT_CHECK_LINKS | UMT_CHECK_MEM0 | UMT_CHECK_SYSCALLS)

/* Work units of the selected passes: one per row and per record. */
static uint64_t total_work(const struct verifier *v)
{
	const umt_trace *t = v->t;
	unsigned c = v->o.checks;
	uint64_t n = 0;
	if (c & UMT_CHECK_THREADS)
		n += t->thread.count;
	if (c & UMT_CHECK_MODULES)
		n += t->module.count;
	if (c & UMT_CHECK_ADDRESS_SPACE)
		n += t->aspace.count;
	if (c & UMT_CHECK_INS)
		n += t->ins.count;
	if (c & UMT_CHECK_SYSCALLS)
		n += t->sys_count;
	if (c & EXEC_PASS)
		n += t->exec_count;
	return n;
}

/* The check class of each file, for what a salvage open lost. */
static const unsigned file_check[UMT_FILE_COUNT] = {
	[UMT_FILE_EXEC_VTABLE] = UMT_CHECK_EXEC,       [UMT_FILE_EXEC_OFFSETS] = UMT_CHECK_EXEC,
	[UMT_FILE_EXEC_PREV_NEXT] = UMT_CHECK_LINKS,   [UMT_FILE_INS] = UMT_CHECK_INS,
	[UMT_FILE_SYSCALL_VTABLE] = UMT_CHECK_SYSCALLS, [UMT_FILE_SYSCALL_OFFSETS] = UMT_CHECK_SYSCALLS,
	[UMT_FILE_MODULE] = UMT_CHECK_MODULES,         [UMT_FILE_THREAD] = UMT_CHECK_THREADS,
	[UMT_FILE_CONTEXT_MAP] = UMT_CHECK_CONTEXT_MAP, [UMT_FILE_ADDRESS_SPACE] = UMT_CHECK_ADDRESS_SPACE,
	[UMT_FILE_TRACE_XML] = UMT_CHECK_XML,
};

/* A trace opened with UMT_OPEN_SALVAGE: each file reduced or lost at open is an error. */
static void verify_salvage(struct verifier *v)
{
	const struct umt_salvage *s = &v->t->salvage;
	for (int f = 0; f < UMT_FILE_COUNT && !v->stop; f++) {
		if (s->status[f] == UMT_FILE_INTACT || !want(v, file_check[f]))
			continue;
		place(v, file_check[f], f, UMT_LOC_NONE, 0);
		BAD(v, s->code[f], 0, "%s at open: %s",
		    s->status[f] == UMT_FILE_REDUCED ? "reduced" : "unavailable, lost",
		    s->why[f] ? s->why[f] : "damaged");
	}
}

static void run(struct verifier *v)
{
	const umt_trace *t = v->t;
	verify_salvage(v);
	if (want(v, UMT_CHECK_XML))
		verify_xml(v);
	if (want(v, UMT_CHECK_CONTEXT_MAP))
		verify_context_map(v);
	each_row(v, UMT_CHECK_THREADS, t->thread.count, verify_thread_row);
	each_row(v, UMT_CHECK_MODULES, t->module.count, verify_module_row);
	if (want(v, UMT_CHECK_ADDRESS_SPACE))
		verify_ranges(v);
	each_row(v, UMT_CHECK_INS, t->ins.count, verify_ins_row);
	each_row(v, UMT_CHECK_SYSCALLS, t->sys_count, verify_syscall_row);
	if (want(v, EXEC_PASS))
		verify_exec(v);
}

int umt_verify(const umt_trace *t, const umt_verify_options *o, umt_verify_result *out)
{
	if (t == NULL || (o != NULL && (o->checks & ~(unsigned)UMT_CHECK_ALL) != 0))
		return umt__failf(UMT_E_INVAL, "umt_verify: invalid argument");
	struct verifier *v = calloc(1, sizeof *v);
	if (v == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_verify: out of memory");
	v->t = t;
	if (o != NULL)
		v->o = *o;
	else
		umt_verify_options_init(&v->o);
	v->total = total_work(v);
	if (v->o.on_progress != NULL)
		v->o.on_progress(0, v->total, v->o.ctx);
	v->next_progress = PROGRESS_STEP;
	run(v);
	if (v->o.on_progress != NULL && !v->stop)
		v->o.on_progress(v->done, v->total, v->o.ctx);
	if (out != NULL)
		*out = v->r;
	int rc = v->fatal;
	if (rc == 0 && v->r.errors > 0)
		rc = umt__failf(UMT_E_CORRUPT, "%llu errors, %llu warnings; the first: %s",
		                (unsigned long long)v->r.errors, (unsigned long long)v->r.warnings,
		                v->first_error);
	else if (rc == 0)
		umt__clear_error();
	free(v->th);
	free(v->plans);
	free(v);
	return rc;
}
