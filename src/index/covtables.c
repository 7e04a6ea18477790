/*
 * libumtrace - what the coverage section's build and its check share
 * (coverage.h): which module a record executed in, counts per row, and
 * the tables those counts make.
 */
#include <stdlib.h>

#include "coverage.h"

int umt__cov_attribute(const umt_trace *t, const umt_rec *r, uint64_t *row, int64_t *module)
{
	int64_t ins = -1;
	const umt_ins_rec *ir;
	uint64_t m;
	int rc = umt_rec_ins(r, &ins, NULL, NULL);
	if (rc < 0)
		return rc;
	if (ins < 0 || (uint64_t)ins >= umt_ins_count(t))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, r->offset,
		                 "InsID %lld is outside the instruction table", (long long)ins);
	*row = (uint64_t)ins;
	rc = umt_ins_module(t, *row, &m);
	if (rc == 0) {
		*module = (int64_t)m;
		return 0;
	}
	if (rc != UMT_E_NOT_FOUND || (rc = umt_ins_get(t, *row, &ir)) < 0)
		return rc;
	/* floating code: a module whose memory holds it at this record, if any */
	rc = umt_module_find(t, (uint64_t)ir->Address, r->id, &m);
	if (rc == 0)
		*module = (int64_t)m;
	else if (rc == UMT_E_NOT_FOUND)
		*module = -1;
	else
		return rc;
	return 0;
}

int umt__cov_add(const umt_trace *t, struct cov_counts *c, uint64_t row, int64_t module,
                 uint64_t count)
{
	const umt_ins_rec *ir;
	int rc = umt_ins_get(t, row, &ir);
	if (rc < 0)
		return rc;
	if (module == ir->ModuleID || module < 0) {
		c->rows[row] += count;
		return 0;
	}
	if (c->nmoved == c->moved_cap) {
		size_t cap = c->moved_cap ? 2 * c->moved_cap : 64;
		struct cov_moved *p = realloc(c->moved, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
		c->moved = p;
		c->moved_cap = cap;
	}
	c->moved[c->nmoved++] = (struct cov_moved){row, module, count};
	return 0;
}

/* One executed address of one entry before duplicates are merged. */
struct hit {
	uint64_t entry, address, count;
	uint8_t size;
};

static int by_entry_address(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

/* Every (entry, address) with its count: rows, then moved pairs; *n hits. */
static int collect(const umt_trace *t, const struct cov_counts *c, uint64_t floating,
                   struct hit **out, size_t *n)
{
	size_t cap = c->nmoved + 1, k = 0;
	for (uint64_t r = 0; r < c->nrows; r++)
		cap += c->rows[r] != 0;
	struct hit *h = malloc(cap * sizeof *h);
	if (h == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	for (uint64_t r = 0; r < c->nrows + c->nmoved; r++) {
		bool moved = r >= c->nrows;
		const struct cov_moved *mv = moved ? &c->moved[r - c->nrows] : NULL;
		uint64_t row = moved ? mv->row : r, count = moved ? mv->count : c->rows[r];
		const umt_ins_rec *ir;
		if (count == 0)
			continue;
		int rc = umt_ins_get(t, row, &ir);
		if (rc < 0) {
			free(h);
			return rc;
		}
		int64_t module = moved ? mv->module : ir->ModuleID;
		h[k++] = (struct hit){module < 0 ? floating : (uint64_t)module, (uint64_t)ir->Address,
		                      count, ir->CodeSize};
	}
	qsort(h, k, sizeof *h, by_entry_address);
	*out = h;
	*n = k;
	return 0;
}

/* The module entries, bases from the module table, First/Addresses/Executions from @p h. */
static int fill_modules(const umt_trace *t, umt_ix_cov_module *m, uint64_t entries,
                        const struct hit *h, size_t n, umt_ix_cov_address *a, uint64_t *naddr)
{
	uint64_t k = 0;
	size_t i = 0;
	for (uint64_t e = 0; e < entries; e++) {
		const umt_module_rec *mr;
		memset(&m[e], 0, sizeof m[e]);
		m[e].ModuleID = e + 1 == entries ? -1 : (int64_t)e;
		if (e + 1 < entries) {
			int rc = umt_module_get(t, e, &mr);
			if (rc < 0)
				return rc;
			m[e].Base = (uint64_t)mr->StartAddr;
		}
		m[e].First = k;
		for (; i < n && h[i].entry == e; i++) {
			if (k > m[e].First && a[k - 1].Address == h[i].address) {
				a[k - 1].Executions += h[i].count;
				a[k - 1].Size = h[i].size > a[k - 1].Size ? h[i].size : a[k - 1].Size;
			} else {
				memset(&a[k], 0, sizeof a[k]);
				a[k] = (umt_ix_cov_address){h[i].address, h[i].count, h[i].size, {0}};
				k++;
			}
			m[e].Executions += h[i].count;
		}
		m[e].Addresses = k - m[e].First;
	}
	*naddr = k;
	return 0;
}

int umt__cov_tables(const umt_trace *t, const struct cov_counts *c,
                    umt_ix_cov_module **modules, umt_ix_cov_address **addresses,
                    uint64_t *naddr)
{
	uint64_t entries = umt_module_count(t) + 1;
	struct hit *h = NULL;
	size_t n = 0;
	*modules = NULL;
	*addresses = NULL;
	int rc = collect(t, c, entries - 1, &h, &n);
	if (rc < 0)
		return rc;
	*modules = malloc(entries * sizeof **modules);
	*addresses = malloc((n ? n : 1) * sizeof **addresses);
	if (*modules == NULL || *addresses == NULL)
		rc = umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	else
		rc = fill_modules(t, *modules, entries, h, n, *addresses, naddr);
	free(h);
	if (rc < 0) {
		free(*modules);
		free(*addresses);
		*modules = NULL;
		*addresses = NULL;
	}
	return rc;
}
