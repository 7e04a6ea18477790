/*
 * libumtrace - the coverage of two traces compared (umt_coverage_diff(),
 * index.h section 10).
 *
 * Every module row of both traces gets a group: rows whose file names
 * (the last path component, ASCII case folded) are equal share one, ranked
 * by their first row (the first trace's rows before the second's); code
 * outside modules is the last group. Every executed address of both
 * becomes an item (group, offset from its row's base, side); sorted, the
 * items of one (group, offset) are adjacent, and a run with one side only
 * is a difference.
 */
#include <ctype.h>
#include <stdlib.h>

#include "coverage.h"

struct item {
	uint64_t rank;   /* the group's rank */
	uint64_t offset;
	int side;
	int64_t module;
	uint64_t address, executions;
};

struct name {
	char *text;      /* folded file name */
	int side;
	uint64_t row;
	uint64_t rank;   /* set from the first row of the name */
};

static int by_name(const void *a, const void *b)
{
	const struct name *x = a, *y = b;
	int c = strcmp(x->text, y->text);
	if (c)
		return c;
	if (x->side != y->side)
		return x->side - y->side;
	return x->row < y->row ? -1 : x->row > y->row;
}

static int by_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->side != y->side)
		return x->side - y->side;
	return x->module < y->module ? -1 : x->module > y->module;
}

/* The folded file name of module row @p row of @p t (malloc'd). */
static int file_name(const umt_trace *t, uint64_t row, char **out)
{
	char path[2048];
	long n = umt_module_name(t, row, UMT_MODULE_WIN_NAME, path, sizeof path);
	if (n < 0)
		return (int)n;
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '\\' || *p == '/')
			base = p + 1;
	*out = strdup(base);
	if (*out == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_coverage_diff: out of memory");
	for (char *p = *out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return 0;
}

/*
 * The rank of every module row of both sides: rank[side][row]; rows of one
 * name get the position of the name's first row among all rows. The last
 * rank (rows of both plus one) is code outside modules.
 */
static int rank_rows(const umt_trace *const t[2], uint64_t *rank[2])
{
	uint64_t n0 = umt_module_count(t[0]), n = n0 + umt_module_count(t[1]), k = 0;
	struct name *v = calloc(n + 1, sizeof *v);
	int rc = v ? 0 : umt__failf(UMT_E_NOMEM, "umt_coverage_diff: out of memory");
	for (int s = 0; rc == 0 && s < 2; s++)
		for (uint64_t r = 0; rc == 0 && r < umt_module_count(t[s]); r++, k++) {
			v[k] = (struct name){NULL, s, r, 0};
			rc = file_name(t[s], r, &v[k].text);
		}
	if (rc == 0) {
		qsort(v, n, sizeof *v, by_name);
		for (uint64_t i = 0; i < n; i++) {
			bool first = i == 0 || strcmp(v[i].text, v[i - 1].text) != 0;
			v[i].rank = first ? (uint64_t)v[i].side * n0 + v[i].row : v[i - 1].rank;
			rank[v[i].side][v[i].row] = v[i].rank;
		}
	}
	for (uint64_t i = 0; v && i < n; i++)
		free(v[i].text);
	free(v);
	return rc;
}

/* Appends side @p s's addresses to @p items (@p cap entries: every address of both tables). */
static int add_side(const umt_index *ix, int s, const uint64_t *rank, uint64_t floating,
                    struct item *items, size_t *n, size_t cap)
{
	uint64_t entries = umt_coverage_count(ix);
	for (uint64_t e = 0; e < entries; e++) {
		umt_coverage_module m;
		int rc = umt_coverage_get(ix, e, &m);
		for (uint64_t k = 0; rc == 0 && k < m.addresses; k++) {
			umt_coverage_address a;
			if ((rc = umt_coverage_address_get(ix, e, k, &a)) < 0)
				break;
			if (*n == cap) /* entries that overlap: only a corrupt file has more */
				return umt__failf(UMT_E_CORRUPT, "%s: entries share addresses",
				                  UMT_IX_COV_FILE);
			bool outside = m.module_id < 0;
			items[(*n)++] = (struct item){outside ? floating : rank[e],
			                              outside ? a.address : a.address - m.base, s,
			                              m.module_id, a.address, a.executions};
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Calls @p fn for every (rank, offset) run of sorted @p items held by one side. */
static int emit(const struct item *items, size_t n, umt_coverage_diff_fn fn, void *ctx)
{
	uint64_t group = 0;
	for (size_t i = 0, j; i < n; i = j) {
		bool sides[2] = {false, false};
		for (j = i; j < n && items[j].rank == items[i].rank && items[j].offset == items[i].offset;
		     j++)
			sides[items[j].side] = true;
		if (i > 0 && items[i].rank != items[i - 1].rank)
			group++;
		if (sides[0] && sides[1])
			continue;
		const struct item *it = &items[i]; /* the first row of its side */
		umt_coverage_delta d = {it->side, group, it->module, it->offset, it->address,
		                        it->executions};
		int rc = fn(&d, ctx);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int umt_coverage_diff(const umt_index *a, const umt_index *b, umt_coverage_diff_fn fn,
                      void *ctx)
{
	const struct cov_data *d[2];
	int rc = umt__cov_data(a, "umt_coverage_diff", &d[0]);
	if (rc == 0)
		rc = umt__cov_data(b, "umt_coverage_diff", &d[1]);
	if (rc == 0 && fn == NULL)
		rc = umt__failf(UMT_E_INVAL, "umt_coverage_diff: invalid argument");
	if (rc < 0)
		return rc;
	const umt_trace *t[2] = {a->trace, b->trace};
	uint64_t floating = umt_module_count(t[0]) + umt_module_count(t[1]);
	uint64_t *rank[2] = {calloc(umt_module_count(t[0]) + 1, sizeof(uint64_t)),
	                     calloc(umt_module_count(t[1]) + 1, sizeof(uint64_t))};
	size_t total = d[0]->addresses_count + d[1]->addresses_count, n = 0;
	struct item *items = malloc((total ? total : 1) * sizeof *items);
	if (!rank[0] || !rank[1] || !items)
		rc = umt__failf(UMT_E_NOMEM, "umt_coverage_diff: out of memory");
	if (rc == 0)
		rc = rank_rows(t, rank);
	if (rc == 0)
		rc = add_side(a, 0, rank[0], floating, items, &n, total);
	if (rc == 0)
		rc = add_side(b, 1, rank[1], floating, items, &n, total);
	if (rc == 0) {
		qsort(items, n, sizeof *items, by_item);
		rc = emit(items, n, fn, ctx);
	}
	free(items);
	free(rank[0]);
	free(rank[1]);
	return rc;
}
