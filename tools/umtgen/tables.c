/*
 * umtgen: the trace's tables beside the records: the context map (the
 * writer's standard map, with YMM registers in the 2015 flavour), module
 * rows with their load and unload records, the address ranges, and the
 * coverage of each module row.
 */
#include <stdlib.h>

#include "sim.h"

/*
 * The 2015 flavour's dump also holds ymm0-15 (ymm i at 256 + 32 i, xmm i its
 * low half, ymm the largest enclosing register): 768 bytes. The 2014 map has
 * no vector registers (XED 20140106 numbers none past GSBASE: ERRATA 17).
 */
int tables_context_map(struct gen *g)
{
	int ins_ver = g->old ? 0 : 1;
	umt_context_map_default(&g->cmap, ins_ver, g->old ? "20140106" : "20150121");
	if (!g->old) {
		for (int i = 0; i < 16; i++) {
			int x = X_XMM0 + i, y = X_YMM0 + i;
			uint16_t off = (uint16_t)(RF_VEC + 32 * i);
			g->cmap.RegMap64[y] = (umt_reg_info){.Offset = off, .Size = 32, .EffLargest = (int16_t)y};
			g->cmap.RegMap64[x] = (umt_reg_info){.Offset = off, .Size = 16, .EffLargest = (int16_t)y};
			if (i < 8) {
				g->cmap.RegMap32[y] = g->cmap.RegMap64[y];
				g->cmap.RegMap32[x] = g->cmap.RegMap64[x];
			}
		}
		g->cmap.DumpSize = RF_SIZE_2015;
	}
	g->dump_size = g->cmap.DumpSize;
	if (umt_writer_set_context_map(g->w, &g->cmap) < 0)
		return gen_fail(g, "context map: %s", umt_errmsg());
	return 0;
}

void coverage_add(struct gen *g, int row, uint64_t addr)
{
	struct modrow *r = row >= 0 ? &g->mods[row] : &g->floating;
	if ((r->ncover + 1) * 2 > r->cover_cap) {
		uint64_t cap = r->cover_cap ? 2 * r->cover_cap : 1024;
		uint64_t *n = calloc(cap, sizeof *n);
		if (n == NULL) {
			gen_fail(g, "out of memory");
			return;
		}
		for (uint64_t i = 0; i < r->cover_cap; i++) {
			if (r->cover[i] == 0)
				continue;
			uint64_t k = (r->cover[i] * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
			while (n[k])
				k = (k + 1) & (cap - 1);
			n[k] = r->cover[i];
		}
		free(r->cover);
		r->cover = n;
		r->cover_cap = cap;
	}
	uint64_t k = (addr * 0x9e3779b97f4a7c15ull >> 20) & (r->cover_cap - 1);
	while (r->cover[k] && r->cover[k] != addr)
		k = (k + 1) & (r->cover_cap - 1);
	if (r->cover[k] == 0) {
		r->cover[k] = addr;
		r->ncover++;
	}
}

static int cmp_range(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Module rows in ID order, then the address ranges sorted and merged. */
int tables_finish(struct gen *g)
{
	for (int i = 0; i < g->nmods; i++) {
		const struct modrow *r = &g->mods[i];
		const struct module_img *m = &g->prog.mods[r->img];
		umt_module_desc d = {
			.load_eid = r->load, .unload_eid = r->unload, .start_addr = (int64_t)m->base,
			.end_addr = (int64_t)(m->end - 1), .win_name = m->name, .device_name = m->device,
			.last_file_write_time = m->filetime,
		};
		memcpy(d.version_info, m->version, sizeof d.version_info);
		if (umt_writer_add_module(g->w, &d, NULL) < 0)
			return gen_fail(g, "module %d: %s", i, umt_errmsg());
	}
	qsort(g->ranges, g->nranges, sizeof g->ranges[0], cmp_range);
	uint64_t k = 0;
	for (uint64_t i = 0; i < g->nranges; i++) {
		if (k > 0 && g->ranges[i].first <= g->ranges[k - 1].last + 1) {
			if (g->ranges[i].last > g->ranges[k - 1].last)
				g->ranges[k - 1].last = g->ranges[i].last;
		} else {
			g->ranges[k++] = g->ranges[i];
		}
	}
	for (uint64_t i = 0; i < k; i++)
		if (umt_writer_add_address_range(g->w, (int64_t)g->ranges[i].first,
		                                 (int64_t)g->ranges[i].last) < 0)
			return gen_fail(g, "address range: %s", umt_errmsg());
	return 0;
}
