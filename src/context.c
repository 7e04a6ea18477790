/*
 * libumtrace - context_map.itable: register dump layout and register
 * relations. Reading: register descriptions, names, values in register
 * dumps. Writing: the standard map the writer uses by default.
 *
 * The file has no table header (ERRATA 5); open checked its size (17424)
 * and ElemCount (<= 512), so every array index below ElemCount is inside
 * the mapping. Offsets and sizes in the maps are checked on use.
 */
#include <stdio.h>
#include <strings.h>

#include "internal.h"
#include "xedregs.h"

/* A map under construction: XED 20150121 numbers, renumbered for older XED. */
struct map_builder {
	umt_context_map *m;
	int ins_ver;
	bool old_xed; /* XED 20140106 and earlier: registers up to GSBASE sit 6 lower */
};

/* The trace's number for XED 2015 register @p r, or -1 if it has none. */
static int reg_id(const struct map_builder *b, int r)
{
	if (!b->old_xed)
		return r;
	return r <= X15_GSBASE && r >= 7 ? r - 6 : (r == X15_INVALID ? 0 : -1);
}

static void set_common(struct map_builder *b, int r, int common)
{
	int id = reg_id(b, r), c = reg_id(b, common);
	if (id >= 0 && c >= 0)
		b->m->CommonName[id] = (int16_t)c;
}

/* Places register @p r in the 32- and/or 64-bit map (size 0: absent). */
static void place(struct map_builder *b, int r, int off, int size32, int size64, int eff32,
                  int eff64)
{
	int id = reg_id(b, r);
	if (id < 0)
		return;
	/* an enclosing register without a number in this XED version (st0 for
	 * mm7 before 20150121) leaves the register its own largest */
	int e32 = reg_id(b, eff32) >= 0 ? reg_id(b, eff32) : id;
	int e64 = reg_id(b, eff64) >= 0 ? reg_id(b, eff64) : id;
	if (size32) {
		b->m->RegMap32[id].Offset = (uint16_t)off;
		b->m->RegMap32[id].Size = (uint8_t)size32;
		b->m->RegMap32[id].EffLargest = (int16_t)e32;
	}
	if (size64) {
		b->m->RegMap64[id].Offset = (uint16_t)off;
		b->m->RegMap64[id].Size = (uint8_t)size64;
		b->m->RegMap64[id].EffLargest = (int16_t)e64;
	}
}

/* The 16 general purpose registers and their parts, at 8 * i. */
static void place_gprs(struct map_builder *b)
{
	for (int i = 0; i < 16; i++) {
		bool legacy = i < 8;
		int r64 = legacy ? X15_RAX + i : X15_R8 + i - 8;
		int r32 = legacy ? X15_EAX + i : X15_R8D + i - 8;
		int r16 = legacy ? X15_AX + i : X15_R8W + i - 8;
		int r8 = legacy ? X15_AL + i : X15_R8B + i - 8;
		int off = 8 * i, e32 = legacy ? r32 : r64;
		/* x64-only registers exist in the 64-bit map only */
		place(b, r64, off, 0, 8, r64, r64);
		place(b, r32, off, legacy ? 4 : 0, 4, e32, r64);
		place(b, r16, off, legacy ? 2 : 0, 2, e32, r64);
		place(b, r8, off, legacy && i < 4 ? 1 : 0, 1, e32, r64);
		/* version 1: legacy GPRs share the 16-bit name, x64 ones the 64-bit
		 * name (spec 11.1); version 0: the largest enclosing register */
		int common = b->ins_ver >= 1 && legacy ? r16 : r64;
		set_common(b, r64, common);
		set_common(b, r32, common);
		set_common(b, r16, common);
		set_common(b, r8, common);
		if (i < 4) { /* ah ch dh bh at byte 1 */
			int rh = X15_AH + i;
			place(b, rh, off + 1, 1, 1, r32, r64);
			set_common(b, rh, common);
		}
	}
}

/* A register with 16/32/64-bit forms (flags, ip) at @p off. */
static void place_family(struct map_builder *b, int r16, int r32, int r64, int off)
{
	place(b, r64, off, 0, 8, r64, r64);
	place(b, r32, off, 4, 4, r32, r64);
	place(b, r16, off, 2, 2, r32, r64);
	int common = b->ins_ver >= 1 ? r16 : r64;
	set_common(b, r64, common);
	set_common(b, r32, common);
	set_common(b, r16, common);
}

void umt_context_map_default(umt_context_map *m, int ins_record_version,
                             const char *xed_version)
{
	struct map_builder b = {m, ins_record_version,
	                        xed_version != NULL && strcmp(xed_version, "20150121") < 0};
	memset(m, 0, sizeof *m);
	for (int i = 0; i < UMT_CONTEXT_MAP_REGS; i++) {
		m->CommonName[i] = (int16_t)i;
		m->RegMap32[i] = (umt_reg_info){.Offset = 0xffff, .EffLargest = (int16_t)i};
		m->RegMap64[i] = m->RegMap32[i];
	}
	int count = 0;
	for (int r = 0; r < UMT_XED2015_REG_LAST; r++) {
		int id = reg_id(&b, r);
		if (id < 0)
			continue;
		snprintf(m->StrName[id], UMT_REG_NAME_SIZE, "%s", umt__xed2015_reg_names[r]);
		if (id + 1 > count)
			count = id + 1;
	}
	m->ElemCount = (uint16_t)count;

	place_gprs(&b);
	place_family(&b, X15_FLAGS, X15_EFLAGS, X15_RFLAGS, 128);
	place_family(&b, X15_IP, X15_EIP, X15_RIP, 136);
	for (int s = 0; s < 6; s++) /* cs ds es ss fs gs */
		place(&b, X15_CS + s, 144 + 2 * s, 2, 2, X15_CS + s, X15_CS + s);
	place(&b, X15_FSBASE, 156, 4, 8, X15_FSBASE, X15_FSBASE);
	place(&b, X15_GSBASE, 164, 4, 8, X15_GSBASE, X15_GSBASE);
	place(&b, X15_MXCSR, 172, 4, 4, X15_MXCSR, X15_MXCSR);
	for (int i = 0; i < 8; i++) { /* st(i) encloses mm(7 - i) */
		int st = X15_ST0 + i, mm = X15_MMX0 + 7 - i, off = 176 + 10 * i;
		place(&b, st, off, 10, 10, st, st);
		place(&b, mm, off, 8, 8, st, st);
		set_common(&b, mm, st);
	}
	for (int i = 0; i < 32; i++) {
		int xmm = X15_XMM0 + i, ymm = X15_YMM0 + i, zmm = X15_ZMM0 + i;
		if (i < 16) /* xmm0-7 in 32-bit code, xmm0-15 in 64-bit code */
			place(&b, xmm, 256 + 16 * i, i < 8 ? 16 : 0, 16, xmm, xmm);
		set_common(&b, ymm, ins_record_version >= 1 ? xmm : ymm);
		set_common(&b, zmm, ins_record_version >= 1 ? xmm : zmm);
		set_common(&b, xmm, ins_record_version >= 1 ? xmm : ymm);
	}
	m->DumpSize = 512;
}

/* ---- reading ------------------------------------------------------------ */

const umt_context_map *umt_context_map_get(const umt_trace *t)
{
	return t ? t->cmap : NULL;
}

int umt__reg_check(const umt_trace *t, int reg, const char *fn)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "%s: invalid argument", fn);
	unsigned elems = umt__cmap_elems(t->cmap);
	if (reg < 0 || (unsigned)reg >= elems) {
		int rc = umt__lost(t, UMT_FILE_CONTEXT_MAP, UMT_LOC_NONE, 0, 0);
		return rc < 0 ? rc
		              : umt__failf(UMT_E_RANGE,
		                           "register %d is outside the context map (ElemCount %u)",
		                           reg, elems);
	}
	return 0;
}

static inline bool reg_present(const umt_reg_info *ri)
{
	return ri->Offset != 0xffff && ri->Size != 0;
}

int umt_context_map_reg(const umt_trace *t, int reg, umt_reg_desc *out)
{
	int rc = umt__reg_check(t, reg, "umt_context_map_reg");
	if (rc < 0)
		return rc;
	if (out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_context_map_reg: invalid argument");
	const umt_context_map *m = t->cmap;
	out->reg = reg;
	/* NUL-terminated within 16 bytes, or 16 characters without a NUL (ERRATA 16) */
	memcpy(out->name, m->StrName[reg], UMT_REG_NAME_SIZE);
	out->name[UMT_REG_NAME_SIZE] = '\0';
	out->common = m->CommonName[reg];
	out->map32 = m->RegMap32[reg];
	out->map64 = m->RegMap64[reg];
	out->in32 = reg_present(&out->map32);
	out->in64 = reg_present(&out->map64);
	return 0;
}

int umt_reg_by_name(const umt_trace *t, const char *name)
{
	if (t == NULL || name == NULL || name[0] == '\0')
		return umt__failf(UMT_E_INVAL, "umt_reg_by_name: invalid argument");
	int rc = umt__lost(t, UMT_FILE_CONTEXT_MAP, UMT_LOC_NONE, 0, 0);
	if (rc < 0)
		return rc;
	size_t n = strlen(name);
	if (n <= UMT_REG_NAME_SIZE) {
		const umt_context_map *m = t->cmap;
		unsigned elems = umt__cmap_elems(t->cmap);
		for (unsigned r = 0; r < elems; r++) {
			const char *s = m->StrName[r];
			/* the entry must end where name ends: at its NUL or at 16 bytes */
			bool ends = n == UMT_REG_NAME_SIZE || s[n] == '\0';
			if (ends && strncasecmp(s, name, n) == 0)
				return (int)r;
		}
	}
	return umt__failf(UMT_E_NOT_FOUND, "no register named \"%.32s\" in the context map", name);
}

int umt_context_reg(const umt_trace *t, const umt_context *c, int reg, umt_value *out)
{
	int rc = umt__reg_check(t, reg, "umt_context_reg");
	if (rc < 0)
		return rc;
	if (c == NULL || c->regs == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_context_reg: invalid argument");
	const umt_reg_info *ri = c->is_64bit ? &t->cmap->RegMap64[reg] : &t->cmap->RegMap32[reg];
	umt_reg_info info = *ri; /* loaded once: the offset and size checked are those used */
	if (!reg_present(&info))
		return umt__failf(UMT_E_NOT_FOUND, "register %d is not in the %d-bit context map", reg,
		                  c->is_64bit ? 64 : 32);
	if ((uint32_t)info.Offset + info.Size > c->regs_size)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_CONTEXT_MAP, UMT_LOC_OFFSET, 0,
		                 (uint64_t)((const uint8_t *)ri - (const uint8_t *)t->cmap),
		                 "RegMap%d[%d]: Offset %u + Size %u runs past DumpSize %u",
		                 c->is_64bit ? 64 : 32, reg, info.Offset, info.Size, c->regs_size);
	out->data = c->regs + info.Offset;
	out->size = info.Size;
	out->is_const = 0;
	return 0;
}
