/*
 * libumtrace - the coverage section of an open index (coverage.h): open
 * (O(1) checks of cov.table), the queries of index.h section 10, and the
 * full check against the trace.
 *
 * Open checks only the file's size against the counts: an entry's First
 * and Addresses are checked by every query that follows them, and
 * umt_index_verify() checks everything (entries in sequence, addresses
 * increasing, sums, and the tables a fresh scan of the trace makes).
 */
#include <stdlib.h>

#include "coverage.h"

static uint64_t entry_offset(uint64_t e)
{
	return 64 + e * sizeof(umt_ix_cov_module);
}

int umt__cov_open(umt_index *ix, const struct ix_source *src,
                  const uint64_t info[UMT_IX_INFO_WORDS])
{
	struct cov_data *d = calloc(1, sizeof *d);
	if (d == NULL)
		return umt__failf(UMT_E_NOMEM, "index: out of memory");
	int rc = umt__ix_map_section_file(ix, src, UMT_IX_COV_FILE, UMT_IX_COV_MAGIC, &d->map);
	uint64_t e = info[COV_INFO_ENTRIES], a = info[COV_INFO_ADDRESSES];
	if (rc == 0 && (e != umt_module_count(ix->trace) + 1 ||
	                e > (UINT64_MAX - 64) / sizeof(umt_ix_cov_module) ||
	                a > (UINT64_MAX - entry_offset(e)) / sizeof(umt_ix_cov_address) ||
	                d->map.size != entry_offset(e) + a * sizeof(umt_ix_cov_address)))
		rc = umt__failf(UMT_E_CORRUPT,
		                "%s: %llu bytes for %llu entries and %llu addresses, with %llu modules "
		                "in the trace", UMT_IX_COV_FILE, (unsigned long long)d->map.size,
		                (unsigned long long)e, (unsigned long long)a,
		                (unsigned long long)umt_module_count(ix->trace));
	if (rc < 0) {
		umt__unmap(&d->map);
		free(d);
		return rc;
	}
	d->modules = (const umt_ix_cov_module *)(d->map.data + 64);
	d->entries = e;
	d->addresses = (const umt_ix_cov_address *)(d->map.data + entry_offset(e));
	d->addresses_count = a;
	ix->section_data[UMT_IX_COV_BIT] = d;
	return 0;
}

void umt__cov_close(umt_index *ix)
{
	struct cov_data *d = ix->section_data[UMT_IX_COV_BIT];
	if (d == NULL)
		return;
	umt__unmap(&d->map);
	free(d);
	ix->section_data[UMT_IX_COV_BIT] = NULL;
}

int umt__cov_data(const umt_index *ix, const char *fn, const struct cov_data **out)
{
	if (ix == NULL)
		return umt__failf(UMT_E_INVAL, "%s: invalid argument", fn);
	*out = ix->section_data[UMT_IX_COV_BIT];
	if (*out == NULL)
		return umt__failf(UMT_E_MISSING,
		                  "%s: the index has no coverage section (built without it): rebuild it",
		                  fn);
	return 0;
}

/* Entry @p e, its addresses checked to lie in the address table. */
static int entry_at(const struct cov_data *d, uint64_t e, umt_ix_cov_module *m)
{
	if (e >= d->entries)
		return umt__failf(UMT_E_RANGE, "coverage entry %llu is out of range (%llu entries)",
		                  (unsigned long long)e, (unsigned long long)d->entries);
	memcpy(m, &d->modules[e], sizeof *m);
	if (m->First > d->addresses_count || m->Addresses > d->addresses_count - m->First)
		return umt__failf(UMT_E_CORRUPT,
		                  "%s: at offset 0x%llx: entry %llu has addresses %llu + %llu, the "
		                  "table %llu", UMT_IX_COV_FILE, (unsigned long long)entry_offset(e),
		                  (unsigned long long)e, (unsigned long long)m->First,
		                  (unsigned long long)m->Addresses,
		                  (unsigned long long)d->addresses_count);
	return 0;
}

uint64_t umt_coverage_count(const umt_index *ix)
{
	const struct cov_data *d = ix ? ix->section_data[UMT_IX_COV_BIT] : NULL;
	return d ? d->entries : 0;
}

/* The start of every query of an entry: the section, @p out not NULL, entry @p e checked. */
static int query(const umt_index *ix, const char *fn, const void *out, uint64_t e,
                 const struct cov_data **d, umt_ix_cov_module *m)
{
	int rc = umt__cov_data(ix, fn, d);
	if (rc == 0 && out == NULL)
		rc = umt__failf(UMT_E_INVAL, "%s: invalid argument", fn);
	return rc < 0 ? rc : entry_at(*d, e, m);
}

int umt_coverage_get(const umt_index *ix, uint64_t entry, umt_coverage_module *out)
{
	const struct cov_data *d;
	umt_ix_cov_module m;
	int rc = query(ix, "umt_coverage_get", out, entry, &d, &m);
	if (rc < 0)
		return rc;
	*out = (umt_coverage_module){m.ModuleID, m.Base, m.Addresses, m.Executions};
	return 0;
}

static void address_out(const struct cov_data *d, uint64_t i, umt_coverage_address *out)
{
	umt_ix_cov_address a;
	memcpy(&a, &d->addresses[i], sizeof a);
	*out = (umt_coverage_address){a.Address, a.Executions, a.Size};
}

int umt_coverage_address_get(const umt_index *ix, uint64_t entry, uint64_t k,
                             umt_coverage_address *out)
{
	const struct cov_data *d;
	umt_ix_cov_module m;
	int rc = query(ix, "umt_coverage_address_get", out, entry, &d, &m);
	if (rc == 0 && k >= m.Addresses)
		rc = umt__failf(UMT_E_RANGE, "coverage entry %llu has %llu addresses, not %llu",
		                (unsigned long long)entry, (unsigned long long)m.Addresses,
		                (unsigned long long)k + 1);
	if (rc < 0)
		return rc;
	address_out(d, m.First + k, out);
	return 0;
}

int umt_coverage_find(const umt_index *ix, uint64_t entry, uint64_t address,
                      umt_coverage_address *out)
{
	const struct cov_data *d;
	umt_ix_cov_module m;
	int rc = query(ix, "umt_coverage_find", ix, entry, &d, &m); /* @p out may be NULL */
	if (rc < 0)
		return rc;
	uint64_t lo = m.First, hi = m.First + m.Addresses; /* first index whose address >= */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, a;
		memcpy(&a, &d->addresses[mid].Address, sizeof a);
		if (a < address)
			lo = mid + 1;
		else
			hi = mid;
	}
	umt_coverage_address got;
	if (lo == m.First + m.Addresses)
		return 0;
	address_out(d, lo, &got);
	if (got.address != address)
		return 0;
	if (out)
		*out = got;
	return 1;
}

/* ---- the full check ---------------------------------------------------------------- */

/* The tables a fresh scan of the trace makes. */
static int rescan(const umt_trace *t, umt_ix_cov_module **m, umt_ix_cov_address **a,
                  uint64_t *naddr)
{
	struct cov_counts c = {.nrows = umt_ins_count(t)};
	c.rows = calloc(c.nrows + 1, sizeof *c.rows);
	umt_exec_iter it;
	umt_rec r;
	int rc = c.rows ? umt_exec_iter_init(&it, t, 0, UINT64_MAX)
	                : umt__failf(UMT_E_NOMEM, "umt_index_verify: out of memory");
	while (rc == 0 && (rc = umt_exec_iter_next(&it, &r)) > 0) {
		uint64_t row;
		int64_t module;
		rc = r.type != UMT_REC_INSTRUCTION ? 0 : umt__cov_attribute(t, &r, &row, &module);
		if (rc == 0 && r.type == UMT_REC_INSTRUCTION)
			rc = umt__cov_add(t, &c, row, module, 1);
	}
	if (rc >= 0) /* the end of the records */
		rc = umt__cov_tables(t, &c, m, a, naddr);
	free(c.rows);
	free(c.moved);
	return rc;
}

int umt__cov_verify(const umt_index *ix)
{
	const struct cov_data *d = ix->section_data[UMT_IX_COV_BIT];
	umt_ix_cov_module *m = NULL;
	umt_ix_cov_address *a = NULL;
	uint64_t naddr = 0;
	int rc = rescan(ix->trace, &m, &a, &naddr);
	if (rc < 0)
		return rc;
	uint64_t bad = UINT64_MAX; /* offset of the first difference */
	if (naddr != d->addresses_count)
		bad = 0;
	for (uint64_t e = 0; bad == UINT64_MAX && e < d->entries; e++)
		if (memcmp(&m[e], &d->modules[e], sizeof m[e]) != 0)
			bad = entry_offset(e);
	for (uint64_t i = 0; bad == UINT64_MAX && i < naddr; i++)
		if (memcmp(&a[i], &d->addresses[i], sizeof a[i]) != 0)
			bad = entry_offset(d->entries) + i * sizeof a[i];
	free(m);
	free(a);
	if (bad != UINT64_MAX)
		return umt__failf(UMT_E_CORRUPT,
		                  "%s: at offset 0x%llx: differs from the coverage a scan of the trace "
		                  "gives (%llu addresses in the file, %llu in the trace)",
		                  UMT_IX_COV_FILE, (unsigned long long)bad,
		                  (unsigned long long)d->addresses_count, (unsigned long long)naddr);
	return 0;
}
