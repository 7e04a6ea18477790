/*
 * umtdump context-map: the registers present in the context map (in the
 * 32-bit or the 64-bit dump) with offsets, sizes, common names and
 * effective largest enclosing registers.
 */
#include "umtdump.h"

/* Offset, size and largest register in one map; the last column is not padded. */
static void text_map(const umt_trace *t, const umt_reg_info *ri, bool present, bool last)
{
	if (!present) {
		out_str(last ? "      -      -  -" : "      -      -  -           ");
		return;
	}
	out_u64_pad(ri->Offset, 7);
	out_u64_pad(ri->Size, 7);
	out_spaces(2);
	if (last)
		out_str(reg_name(t, ri->EffLargest));
	else
		out_str_pad(reg_name(t, ri->EffLargest), 12);
}

static void text_row(const umt_trace *t, const umt_reg_desc *d)
{
	out_u64_pad((unsigned)d->reg, 5);
	out_char(' ');
	out_str_pad(reg_name(t, d->reg), 14);
	out_i64_pad(d->common, 6);
	out_char(' ');
	out_str_pad(reg_name(t, d->common), 10);
	text_map(t, &d->map32, d->in32, false);
	text_map(t, &d->map64, d->in64, true);
	out_char('\n');
}

static void json_row(const umt_trace *t, const umt_reg_desc *d)
{
	struct jw j;
	jw_begin(&j);
	jw_i64(&j, "id", d->reg);
	jw_str(&j, "name", reg_name(t, d->reg));
	jw_named(&j, "common_name", d->common, reg_name(t, d->common));
	jw_u64(&j, "offset32", d->map32.Offset);
	jw_u64(&j, "size32", d->map32.Size);
	jw_named(&j, "eff_largest32", d->map32.EffLargest, reg_name(t, d->map32.EffLargest));
	jw_u64(&j, "offset64", d->map64.Offset);
	jw_u64(&j, "size64", d->map64.Size);
	jw_named(&j, "eff_largest64", d->map64.EffLargest, reg_name(t, d->map64.EffLargest));
	jw_end(&j);
}

int cmd_context_map(umt_trace *t, const struct opts *o)
{
	const umt_context_map *map = umt_context_map_get(t);
	if (!o->json) {
		out_printf("dump size %u bytes, %u register entries\n", map->DumpSize, map->ElemCount);
		out_str("  REG NAME              COMMON         OFF32 SIZE32  LARGEST32     OFF64 SIZE64"
		        "  LARGEST64\n");
	}
	int n = map->ElemCount < UMT_CONTEXT_MAP_REGS ? map->ElemCount : UMT_CONTEXT_MAP_REGS;
	for (int reg = 0; reg < n && !out_closed(); reg++) {
		umt_reg_desc d;
		int rc = umt_context_map_reg(t, reg, &d);
		if (rc < 0) {
			report_error(rc);
			return EXIT_BAD_TRACE;
		}
		if (!d.in32 && !d.in64)
			continue;
		if (o->json)
			json_row(t, &d);
		else
			text_row(t, &d);
	}
	return EXIT_OK;
}
