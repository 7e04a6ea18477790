/*
 * libumtrace - building the coverage section (coverage.h) in the index's
 * scan.
 *
 * Each range counts its instruction records per (row, module) in a small
 * open-addressing table: a record costs one hash probe, and a range holds
 * at most as many keys as the rows it executes. At the range's end the
 * counts go into the build's one shared table (a count per instruction
 * row, plus the rare floating rows found inside a module), under the
 * build's lock: the sum does not depend on the ranges or their order, so
 * the section's bytes do not either. Memory: 8 bytes per instruction row,
 * plus each range's table while it is scanned. assemble() sorts the
 * executed addresses per module and writes cov.table.
 */
#include <stdlib.h>

#include "build.h"
#include "coverage.h"
#include "encode.h"

/* ---- one range's counts -------------------------------------------------------- */

struct slot {
	uint64_t row;   /* UINT64_MAX: empty */
	int64_t module;
	uint64_t count;
};

struct range {
	struct ix_build *b;
	struct slot *tab;
	size_t cap, n; /* cap a power of two, n < cap / 2 */
};

static size_t hash(uint64_t row, int64_t module, size_t cap)
{
	uint64_t h = (row ^ ((uint64_t)module << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static struct slot *alloc_table(size_t cap)
{
	struct slot *t = malloc(cap * sizeof *t);
	for (size_t i = 0; t && i < cap; i++)
		t[i].row = UINT64_MAX;
	return t;
}

static int grow(struct range *s)
{
	size_t cap = 2 * s->cap;
	struct slot *t = alloc_table(cap);
	if (t == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	for (size_t i = 0; i < s->cap; i++) {
		if (s->tab[i].row == UINT64_MAX)
			continue;
		size_t j = hash(s->tab[i].row, s->tab[i].module, cap);
		while (t[j].row != UINT64_MAX)
			j = (j + 1) & (cap - 1);
		t[j] = s->tab[i];
	}
	free(s->tab);
	s->tab = t;
	s->cap = cap;
	return 0;
}

static int count(struct range *s, uint64_t row, int64_t module)
{
	size_t j = hash(row, module, s->cap);
	for (;; j = (j + 1) & (s->cap - 1)) {
		struct slot *e = &s->tab[j];
		if (e->row == row && e->module == module) {
			e->count++;
			return 0;
		}
		if (e->row == UINT64_MAX)
			break;
	}
	s->tab[j] = (struct slot){row, module, 1};
	return ++s->n * 2 >= s->cap ? grow(s) : 0;
}

/* ---- the section's hooks --------------------------------------------------------- */

static int build_begin(struct ix_build *b, void **global)
{
	struct cov_counts *c = calloc(1, sizeof *c);
	if (c != NULL) {
		c->nrows = umt_ins_count(b->t);
		c->rows = calloc(c->nrows + 1, sizeof *c->rows);
	}
	if (c == NULL || c->rows == NULL) {
		free(c);
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	}
	*global = c;
	return 0;
}

static void build_end(void *global)
{
	struct cov_counts *c = global;
	free(c->rows);
	free(c->moved);
	free(c);
}

static int range_begin(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
                       void **state)
{
	(void)range, (void)first, (void)end;
	struct range *s = calloc(1, sizeof *s);
	if (s != NULL) {
		s->b = b;
		s->cap = 256;
		s->tab = alloc_table(s->cap);
	}
	if (s == NULL || s->tab == NULL) {
		free(s);
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	}
	*state = s;
	return 0;
}

static int record(void *state, const umt_rec *r)
{
	struct range *s = state;
	if (r->type != UMT_REC_INSTRUCTION)
		return 0;
	uint64_t row;
	int64_t module;
	int rc = umt__cov_attribute(s->b->t, r, &row, &module);
	return rc < 0 ? rc : count(s, row, module);
}

static void free_state(void *state)
{
	struct range *s = state;
	free(s->tab);
	free(s);
}

/* The range's counts into the build's table; the range keeps nothing. */
static int range_end(struct ix_build *b, void *state)
{
	struct range *s = state;
	struct cov_counts *c = b->section_global[UMT_IX_COV_BIT];
	int rc = 0;
	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; rc == 0 && i < s->cap; i++)
		if (s->tab[i].row != UINT64_MAX)
			rc = umt__cov_add(b->t, c, s->tab[i].row, s->tab[i].module, s->tab[i].count);
	pthread_mutex_unlock(&b->mu);
	free(s->tab);
	s->tab = NULL;
	s->cap = s->n = 0;
	return rc;
}

/* cov.table: header, entries, addresses. */
static int write_table(struct ix_build *b, const umt_ix_cov_module *m, uint64_t entries,
                       const umt_ix_cov_address *a, uint64_t naddr)
{
	int fd;
	int rc = umt__ixb_create(b, UMT_IX_COV_FILE, &fd);
	if (rc == 0)
		rc = umt__ixb_file_header(b, fd, UMT_IX_COV_MAGIC);
	if (rc == 0)
		rc = umt__ix_pwrite_all(fd, m, entries * sizeof *m, 64);
	if (rc == 0)
		rc = umt__ix_pwrite_all(fd, a, naddr * sizeof *a, 64 + entries * sizeof *m);
	return rc;
}

static int assemble(struct ix_build *b, void *const *states, unsigned nranges,
                    uint64_t info[UMT_IX_INFO_WORDS])
{
	(void)states, (void)nranges; /* every range gave its counts at its end */
	const struct cov_counts *c = b->section_global[UMT_IX_COV_BIT];
	umt_ix_cov_module *m;
	umt_ix_cov_address *a;
	uint64_t naddr = 0, entries = umt_module_count(b->t) + 1;
	int rc = umt__cov_tables(b->t, c, &m, &a, &naddr);
	if (rc < 0)
		return rc;
	rc = write_table(b, m, entries, a, naddr);
	memset(info, 0, UMT_IX_INFO_WORDS * sizeof *info);
	info[COV_INFO_ENTRIES] = entries;
	info[COV_INFO_ADDRESSES] = naddr;
	for (uint64_t e = 0; e < entries; e++)
		info[COV_INFO_EXECUTIONS] += m[e].Executions;
	free(m);
	free(a);
	return rc;
}

const struct ix_section umt__ix_coverage_section = {
	.name = "coverage",
	.bit = UMT_IX_COV_BIT,
	.build_begin = build_begin,
	.build_end = build_end,
	.range_begin = range_begin,
	.record = record,
	.range_end = range_end,
	.assemble = assemble,
	.free_state = free_state,
	.open = umt__cov_open,
	.close = umt__cov_close,
	.verify = umt__cov_verify,
};
