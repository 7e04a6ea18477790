/*
 * libumtrace - building the coverage section (coverage.h) in the index's
 * scan.
 *
 * A record costs one increment: each range counts into a dense array of
 * 32-bit counters, one per instruction row, taken from a pool at the
 * range's start and given back at its end (a worker scans one range at a
 * time, so the pool holds at most one array per worker; they are summed
 * once, at assemble()). Whether a row is floating code is learned once per
 * row, for every range (a byte per row). Records of floating rows that ran
 * inside a module, and every record of a range that found the pool at its
 * memory limit, are counted in the range's own hash table instead, added
 * to the build's totals at the range's end. A counter that would overflow
 * is added to the totals first. Sums do not depend on the ranges or their
 * order: the section's bytes do not either.
 *
 * Memory: 9 bytes per instruction row (totals and kinds), plus 4 bytes per
 * row for each array, as many arrays as half the build's budget holds (at
 * least one, at most one per worker), plus the hash tables of ranges
 * without one.
 */
#include <stdlib.h>

#include "build.h"
#include "coverage.h"
#include "encode.h"

/* ---- a range's hash table: (row, key) -> count ------------------------------------- */

#define OWN INT64_MIN /* the row's own entry: its ModuleID's, or outside modules */

struct slot {
	uint64_t row1;  /* the row + 1; 0: empty */
	int64_t key;    /* OWN, or the module a floating row ran in */
	uint64_t count;
};

struct table {
	struct slot *tab;
	size_t cap, n; /* cap a power of two, n < cap / 2 between records */
};

static size_t hash(uint64_t row, int64_t key, size_t cap)
{
	uint64_t h = (row ^ ((uint64_t)key << 40)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 32) & (cap - 1);
}

static int table_alloc(struct table *t, size_t cap)
{
	t->tab = calloc(cap, sizeof *t->tab);
	if (t->tab == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	t->cap = cap;
	t->n = 0;
	return 0;
}

/* Adds @p count to (row, key). */
static int table_add(struct table *t, uint64_t row, int64_t key, uint64_t count)
{
	size_t j = hash(row, key, t->cap);
	for (;; j = (j + 1) & (t->cap - 1)) {
		struct slot *e = &t->tab[j];
		if (e->row1 == row + 1 && e->key == key) {
			e->count += count;
			return 0;
		}
		if (e->row1 == 0)
			break;
	}
	t->tab[j] = (struct slot){row + 1, key, count};
	if (++t->n * 2 < t->cap)
		return 0;
	struct table bigger;
	int rc = table_alloc(&bigger, 2 * t->cap);
	for (size_t i = 0; rc == 0 && i < t->cap; i++)
		if (t->tab[i].row1 != 0)
			table_add(&bigger, t->tab[i].row1 - 1, t->tab[i].key, t->tab[i].count);
	if (rc == 0) {
		free(t->tab);
		*t = bigger;
	}
	return rc;
}

/* ---- the build's state --------------------------------------------------------------- */

enum { KIND_UNKNOWN = 0, KIND_MODULE = 1, KIND_FLOATING = 2 };

/* A dense array of counters, lent to one range at a time. */
struct dense {
	uint32_t *rows;
	struct dense *next_free, *next_all;
};

struct global {
	struct ix_build *b;
	struct cov_counts totals; /* what the ranges added, and the overflows */
	uint8_t *kind;            /* per row, KIND_*, learned on first use (relaxed atomics) */
	struct dense *free, *all;
	unsigned made, max;       /* arrays made, and the most the budget holds */
};

struct range {
	struct global *g;
	struct dense *d; /* NULL: every record goes to the table */
	struct table t;
};

static int build_begin(struct ix_build *b, void **out)
{
	struct global *g = calloc(1, sizeof *g);
	if (g == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	*out = g;
	g->b = b;
	g->totals.nrows = umt_ins_count(b->t);
	g->totals.rows = calloc(g->totals.nrows + 1, sizeof *g->totals.rows);
	g->kind = calloc(g->totals.nrows + 1, 1);
	uint64_t each = (g->totals.nrows + 1) * sizeof(uint32_t), fit = b->budget / 2 / each;
	g->max = fit < 1 ? 1 : fit > b->threads ? b->threads : (unsigned)fit;
	if (g->totals.rows == NULL || g->kind == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	return 0;
}

static void build_end(void *global)
{
	struct global *g = global;
	for (struct dense *d = g->all, *next; d; d = next) {
		next = d->next_all;
		free(d->rows);
		free(d);
	}
	free(g->totals.rows);
	free(g->totals.moved);
	free(g->kind);
	free(g);
}

/* A free array of the pool, or a new one within the limit, or NULL (under the lock). */
static struct dense *take_dense(struct global *g)
{
	struct dense *d = g->free;
	if (d != NULL) {
		g->free = d->next_free;
		return d;
	}
	if (g->made == g->max || (d = calloc(1, sizeof *d)) == NULL)
		return NULL;
	if ((d->rows = calloc(g->totals.nrows + 1, sizeof *d->rows)) == NULL) {
		free(d);
		return NULL; /* the range counts in its table */
	}
	d->next_all = g->all;
	g->all = d;
	g->made++;
	return d;
}

static int range_begin(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
                       void **state)
{
	(void)range, (void)first, (void)end;
	struct range *s = calloc(1, sizeof *s);
	if (s == NULL || table_alloc(&s->t, 64) < 0) {
		free(s);
		return umt__failf(UMT_E_NOMEM, "index build: coverage: out of memory");
	}
	s->g = b->section_global[UMT_IX_COV_BIT];
	pthread_mutex_lock(&b->mu);
	s->d = take_dense(s->g);
	pthread_mutex_unlock(&b->mu);
	*state = s;
	return 0;
}

/* ---- the records ------------------------------------------------------------------- */

/* Learns whether row @p row is floating (its ModuleID checked): the first record of it. */
static int __attribute__((noinline)) learn_kind(struct global *g, uint64_t row, uint8_t *kind)
{
	const umt_ins_rec *ir = NULL;
	uint64_t m;
	int rc = umt_ins_get(g->b->t, row, &ir);
	/* floating code is asked about first: umt_ins_module() reports it as an error, whose
	 * message costs more than the rest of the row's first sight */
	if (rc == 0 && (ir == NULL || ir->ModuleID != -1))
		rc = umt_ins_module(g->b->t, row, &m);
	else if (rc == 0)
		rc = UMT_E_NOT_FOUND;
	if (rc < 0 && rc != UMT_E_NOT_FOUND)
		return rc;
	*kind = rc == 0 ? KIND_MODULE : KIND_FLOATING;
	__atomic_store_n(&g->kind[row], *kind, __ATOMIC_RELAXED);
	return 0;
}

/* One record of row @p row in its own entry. */
static int count_own(struct range *s, uint64_t row)
{
	if (s->d == NULL)
		return table_add(&s->t, row, OWN, 1);
	if (UMT_UNLIKELY(++s->d->rows[row] == UINT32_MAX)) { /* into the totals first */
		pthread_mutex_lock(&s->g->b->mu);
		s->g->totals.rows[row] += UINT32_MAX;
		pthread_mutex_unlock(&s->g->b->mu);
		s->d->rows[row] = 0;
	}
	return 0;
}

/* A record of a floating row: in the module holding its address at the record, if any. */
static int __attribute__((noinline)) count_floating(struct range *s, uint64_t row,
                                                    const umt_rec *r)
{
	const umt_ins_rec *ir = NULL;
	uint64_t m = 0;
	int rc = umt_ins_get(s->g->b->t, row, &ir);
	if (rc == 0 && ir != NULL) /* no message for an address outside modules: the usual case */
		rc = umt__module_lookup(s->g->b->t, (uint64_t)ir->Address, r->id, &m);
	if (rc == 1)
		return count_own(s, row); /* outside modules */
	return rc < 0 ? rc : table_add(&s->t, row, (int64_t)m, 1);
}

static int record(void *state, const umt_rec *r)
{
	struct range *s = state;
	int64_t ins = -1;
	if (r->type != UMT_REC_INSTRUCTION)
		return 0;
	umt_rec_ins(r, &ins, NULL, NULL);
	if (UMT_UNLIKELY(ins < 0 || (uint64_t)ins >= s->g->totals.nrows)) {
		uint64_t row; /* not a row: the attribution reports it */
		int64_t module;
		return umt__cov_attribute(s->g->b->t, r, &row, &module);
	}
	uint64_t row = (uint64_t)ins;
	uint8_t kind = __atomic_load_n(&s->g->kind[row], __ATOMIC_RELAXED);
	int rc;
	if (UMT_UNLIKELY(kind == KIND_UNKNOWN) && (rc = learn_kind(s->g, row, &kind)) < 0)
		return rc;
	return kind == KIND_MODULE ? count_own(s, row) : count_floating(s, row, r);
}

/* ---- the end of a range, the end of the scan --------------------------------------- */

static void free_state(void *state)
{
	struct range *s = state;
	free(s->t.tab);
	free(s);
}

/* The range's table into the totals, its array back to the pool. */
static int range_end(struct ix_build *b, void *state)
{
	struct range *s = state;
	int rc = 0;
	pthread_mutex_lock(&b->mu);
	for (size_t i = 0; rc == 0 && i < s->t.cap; i++) {
		const struct slot *e = &s->t.tab[i];
		if (e->row1 != 0) /* OWN: the row's own entry (-1 means that to _add) */
			rc = umt__cov_add(b->t, &s->g->totals, e->row1 - 1, e->key == OWN ? -1 : e->key,
			                  e->count);
	}
	if (s->d != NULL) {
		s->d->next_free = s->g->free;
		s->g->free = s->d;
		s->d = NULL;
	}
	pthread_mutex_unlock(&b->mu);
	free(s->t.tab);
	s->t.tab = NULL;
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
	(void)states, (void)nranges; /* every range gave its table at its end */
	struct global *g = b->section_global[UMT_IX_COV_BIT];
	for (const struct dense *d = g->all; d; d = d->next_all)
		for (uint64_t r = 0; r < g->totals.nrows; r++)
			g->totals.rows[r] += d->rows[r];
	umt_ix_cov_module *m;
	umt_ix_cov_address *a;
	uint64_t naddr = 0, entries = umt_module_count(b->t) + 1;
	int rc = umt__cov_tables(b->t, &g->totals, &m, &a, &naddr);
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

static const char *const cov_files[] = {UMT_IX_COV_FILE, NULL};

const struct ix_section umt__ix_coverage_section = {
	.name = "coverage",
	.bit = UMT_IX_COV_BIT,
	.files = cov_files,
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
