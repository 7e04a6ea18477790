/*
 * umtgen: the ground truth, JSON Lines (docs/umtgen.md has the format):
 * register files before sampled records, memory ranges, every memory write,
 * every call, coverage per module row. Addresses and values of up to 8 bytes
 * are "0x..." strings; longer values and memory are hex bytes in memory
 * order.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "kernel.h"
#include "sim.h"

static const char hexdig[] = "0123456789abcdef";

static void put_hex_bytes(FILE *f, const uint8_t *p, uint64_t n)
{
	char buf[512];
	size_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		buf[k++] = hexdig[p[i] >> 4];
		buf[k++] = hexdig[p[i] & 15];
		if (k == sizeof buf) {
			fwrite(buf, 1, k, f);
			k = 0;
		}
	}
	fwrite(buf, 1, k, f);
}

/* A value of @p size bytes: "0x..." up to 8 bytes, hex bytes beyond. */
static void put_value(FILE *f, const uint8_t *p, unsigned size)
{
	if (size > 8) {
		fputc('"', f);
		put_hex_bytes(f, p, size);
		fputc('"', f);
		return;
	}
	uint64_t v = 0;
	memcpy(&v, p, size);
	fprintf(f, "\"0x%" PRIx64 "\"", v);
}

/* The registers the machine models, as the context map names them: each
 * largest register (general, flags, instruction pointer, segments, their
 * bases, mxcsr, ymm) and the xmm halves; not x87 and MMX (always zero). */
void truth_regs_setup(struct gen *g)
{
	const umt_context_map *m = &g->cmap;
	g->ntregs = 0;
	for (int r = 0; r < m->ElemCount && g->ntregs < 64; r++) {
		const umt_reg_info *ri = g->mode64 ? &m->RegMap64[r] : &m->RegMap32[r];
		const char *name = m->StrName[r];
		if (ri->Offset == 0xffff || ri->Size == 0)
			continue;
		int largest = ri->EffLargest == r, xmm = strncmp(name, "xmm", 3) == 0;
		if ((!largest && !xmm) || strncmp(name, "st", 2) == 0 || strncmp(name, "mmx", 3) == 0)
			continue;
		snprintf(g->tregs[g->ntregs].name, sizeof g->tregs[0].name, "%.15s", name);
		g->tregs[g->ntregs].off = ri->Offset;
		g->tregs[g->ntregs].size = ri->Size;
		g->ntregs++;
	}
}

void truth_regs(struct gen *g, const struct thread *t, uint64_t id)
{
	if (g->truth == NULL)
		return;
	FILE *f = g->truth;
	fprintf(f, "{\"kind\":\"regs\",\"id\":%" PRIu64 ",\"thread_id\":%d,\"regs\":{", id, t->id);
	for (int i = 0; i < g->ntregs; i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", g->tregs[i].name);
		put_value(f, t->regs + g->tregs[i].off, g->tregs[i].size);
	}
	fputs("}}\n", f);
}

void truth_mem(struct gen *g, uint64_t id, uint64_t addr, uint64_t size)
{
	if (g->truth == NULL || size == 0)
		return;
	uint8_t buf[4096];
	if (size > sizeof buf)
		size = sizeof buf;
	if (!mem_ok(&g->mem, addr, size, PERM_R))
		return;
	mem_get(&g->mem, addr, buf, size);
	fprintf(g->truth, "{\"kind\":\"mem\",\"id\":%" PRIu64 ",\"address\":\"0x%" PRIx64 "\",\"data\":\"",
	        id, addr);
	put_hex_bytes(g->truth, buf, size);
	fputs("\"}\n", g->truth);
}

void truth_write(struct gen *g, uint64_t id, const struct thread *t, uint64_t addr,
                 const void *data, uint64_t size, const char *by)
{
	if (g->truth == NULL)
		return;
	fprintf(g->truth,
	        "{\"kind\":\"write\",\"id\":%" PRIu64 ",\"thread_id\":%d,\"address\":\"0x%" PRIx64
	        "\",\"size\":%" PRIu64 ",\"data\":\"",
	        id, t->id, addr, size);
	put_hex_bytes(g->truth, data, size);
	fprintf(g->truth, "\",\"by\":\"%s\"}\n", by);
}

void truth_call(struct gen *g, const struct thread *t, const struct frame *fr, int64_t ret)
{
	if (g->truth == NULL)
		return;
	FILE *f = g->truth;
	fprintf(f,
	        "{\"kind\":\"call\",\"id\":%" PRIu64 ",\"thread_id\":%d,\"caller\":\"0x%" PRIx64
	        "\",\"target\":\"0x%" PRIx64 "\",\"return_id\":",
	        fr->call_id, t->id, fr->caller, fr->target);
	if (ret < 0)
		fputs("null", f);
	else
		fprintf(f, "%" PRId64, ret);
	fprintf(f, ",\"depth\":%u,\"parent\":", fr->depth);
	if (fr->parent < 0)
		fputs("null}\n", f);
	else
		fprintf(f, "%" PRId64 "}\n", fr->parent);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void coverage_line(struct gen *g, const struct modrow *r, int row)
{
	FILE *f = g->truth;
	uint64_t *a = malloc((r->ncover ? r->ncover : 1) * sizeof *a), n = 0;
	if (a == NULL) {
		gen_fail(g, "out of memory");
		return;
	}
	for (uint64_t i = 0; i < r->cover_cap; i++)
		if (r->cover[i])
			a[n++] = r->cover[i];
	qsort(a, n, sizeof *a, cmp_u64);
	if (row >= 0) {
		const struct module_img *m = &g->prog.mods[r->img];
		fputs("{\"kind\":\"coverage\",\"module\":\"", f);
		for (const char *s = m->name; *s; s++) /* JSON: the backslashes of the path */
			fputs(*s == '\\' ? "\\\\" : (char[2]){*s, 0}, f);
		fprintf(f, "\",\"module_id\":%d,\"base\":\"0x%" PRIx64 "\"", row, m->base);
	} else {
		fputs("{\"kind\":\"coverage\",\"module\":null,\"module_id\":null,\"base\":null", f);
	}
	fputs(",\"addresses\":[", f);
	for (uint64_t i = 0; i < n; i++)
		fprintf(f, "%s\"0x%" PRIx64 "\"", i ? "," : "", a[i]);
	fprintf(f, "],\"executions\":%" PRIu64 "}\n", r->execs);
	free(a);
}

void truth_coverage(struct gen *g)
{
	if (g->truth == NULL)
		return;
	for (int i = 0; i < g->nmods; i++)
		coverage_line(g, &g->mods[i], i);
	coverage_line(g, &g->floating, -1);
}
