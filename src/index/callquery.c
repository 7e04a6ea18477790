/*
 * libumtrace - calls by thread, target, module and record range (index.h
 * section 11): sorted runs of calls merged in record order. A run is a
 * thread's rows of calls.tab (in call order), or a target's entries of
 * calls.byt (in call order too); each starts at its first call >= from,
 * found by binary search, and the merge stops at the first call >= to.
 */
#include <stdlib.h>

#include "calls.h"

#define NONE UINT64_MAX

struct crun {
	uint64_t pos, end; /* rows of calls.tab, or entries of calls.byt */
	uint64_t id;       /* CallID at pos */
};

struct umt_calls {
	const umt_index *ix;
	const struct calls_data *d;
	umt_calls_query q;
	bool by_target;     /* runs are entries of calls.byt */
	struct crun *runs;
	struct crun **heap;
	size_t nruns, n;
	uint64_t given, last;
	bool any; /* last holds the last call examined */
};

void umt_calls_query_init(umt_calls_query *q)
{
	if (q == NULL)
		return;
	memset(q, 0, sizeof *q);
	q->thread = -1;
	q->target_last = UINT64_MAX;
	q->module = -1;
	q->offset_last = UINT64_MAX;
	q->to = UINT64_MAX;
}

/* The row at position @p pos of a run. */
static int row_at(const umt_calls *c, uint64_t pos, uint64_t *row)
{
	if (!c->by_target) {
		*row = pos;
		return 0;
	}
	memcpy(row, c->d->by_target + pos * 8, sizeof *row);
	if (*row >= c->d->calls)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_BYT, 64 + pos * 8, "entry %llu: row %llu past "
		                             "the table", (unsigned long long)pos, (unsigned long long)*row);
	return 0;
}

/* The CallID of a run's current call (UINT64_MAX at its end). */
static int run_key(const umt_calls *c, struct crun *r)
{
	uint64_t row;
	r->id = UINT64_MAX;
	if (r->pos >= r->end)
		return 0;
	int rc = row_at(c, r->pos, &row);
	if (rc == 0)
		memcpy(&r->id, c->d->rows + row * sizeof(umt_ix_call_row), sizeof r->id);
	return rc;
}

/* The first position of [lo, hi) of a target's entries whose call is >= @p id. */
static int target_lower_bound(const umt_calls *c, uint64_t lo, uint64_t hi, uint64_t id,
                              uint64_t *out)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, row, call;
		int rc = row_at(c, mid, &row);
		if (rc < 0)
			return rc;
		memcpy(&call, c->d->rows + row * sizeof(umt_ix_call_row), sizeof call);
		if (call < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo;
	return 0;
}

static int add_run(umt_calls *c, uint64_t pos, uint64_t end)
{
	struct crun *p = realloc(c->runs, (c->nruns + 1) * sizeof *p);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_calls_open: out of memory");
	c->runs = p;
	c->runs[c->nruns++] = (struct crun){pos, end, 0};
	return 0;
}

/* A run per thread (or the one thread asked for), from its first call >= from. */
static int thread_runs(umt_calls *c)
{
	const struct calls_data *d = c->d;
	umt_ix_call_thread e;
	int rc = 0;
	for (uint64_t i = 0; rc == 0 && i < d->threads; i++) {
		uint64_t pos;
		if ((rc = umt__ix_call_thread_at(d, i, &e)) < 0)
			break;
		if (c->q.thread >= 0 && e.Thread != c->q.thread)
			continue;
		rc = umt__ix_call_lower_bound(c->ix, d, e.FirstRow, e.FirstRow + e.Count, c->q.from, &pos);
		if (rc == 0)
			rc = add_run(c, pos, e.FirstRow + e.Count);
	}
	return rc;
}

/* A run per target in [lo, hi]. */
static int target_runs(umt_calls *c, uint64_t lo, uint64_t hi)
{
	const struct calls_data *d = c->d;
	uint64_t a = 0, b = d->targets;
	while (a < b) { /* the first target >= lo */
		uint64_t mid = a + (b - a) / 2;
		if (d->target_dir[mid].Target < lo)
			a = mid + 1;
		else
			b = mid;
	}
	int rc = 0;
	for (uint64_t i = a; rc == 0 && i < d->targets; i++) {
		umt_ix_call_target t;
		memcpy(&t, &d->target_dir[i], sizeof t);
		if (t.Target > hi)
			break;
		uint64_t pos;
		if (t.First > d->calls || t.Count > d->calls - t.First)
			return umt__ix_calls_corrupt(UMT_IX_CALLS_TGT, 64 + i * sizeof t,
			                             "entry %llu past calls.byt", (unsigned long long)i);
		rc = target_lower_bound(c, t.First, t.First + t.Count, c->q.from, &pos);
		if (rc == 0)
			rc = add_run(c, pos, t.First + t.Count);
	}
	return rc;
}

/* ---- the merge -------------------------------------------------------------------------------- */

static void sift_down(struct crun **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		if (l < n && h[l]->id < h[m]->id)
			m = l;
		if (r < n && h[r]->id < h[m]->id)
			m = r;
		if (m == i)
			return;
		struct crun *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static int make_heap(umt_calls *c)
{
	c->heap = malloc((c->nruns ? c->nruns : 1) * sizeof(struct crun *));
	if (c->heap == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_calls_open: out of memory");
	for (size_t i = 0; i < c->nruns; i++) {
		int rc = run_key(c, &c->runs[i]);
		if (rc < 0)
			return rc;
		if (c->runs[i].id != UINT64_MAX)
			c->heap[c->n++] = &c->runs[i];
	}
	for (size_t i = c->n / 2; i-- > 0;)
		sift_down(c->heap, c->n, i);
	return 0;
}

/* The targets a query asks for, [*lo, *hi]; false when none can match. */
static int target_range(const umt_index *ix, const umt_calls_query *q, uint64_t *lo, uint64_t *hi)
{
	*lo = q->target_first;
	*hi = q->target_last;
	if (q->module < 0)
		return 1;
	const umt_module_rec *m;
	int rc = umt_module_get(ix->trace, (uint64_t)q->module, &m);
	if (rc < 0)
		return rc;
	uint64_t start = (uint64_t)m->StartAddr, last = (uint64_t)m->EndAddr;
	if (last < start || q->offset_first > last - start)
		return 0;
	uint64_t a = start + q->offset_first;
	uint64_t b = q->offset_last > last - start ? last : start + q->offset_last;
	*lo = a > *lo ? a : *lo;
	*hi = b < *hi ? b : *hi;
	return *lo <= *hi;
}

int umt_calls_open(const umt_index *ix, const umt_calls_query *q, umt_calls **out)
{
	if (ix == NULL || q == NULL || out == NULL || q->target_first > q->target_last ||
	    q->offset_first > q->offset_last)
		return umt__failf(UMT_E_INVAL, "umt_calls_open: invalid argument");
	*out = NULL;
	const struct calls_data *d = umt__ix_calls(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	if (q->module >= 0 && (uint64_t)q->module >= umt_module_count(ix->trace))
		return umt__failf(UMT_E_RANGE, "umt_calls_open: module %lld of %llu",
		                  (long long)q->module, (unsigned long long)umt_module_count(ix->trace));
	umt_calls *c = calloc(1, sizeof *c);
	if (c == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_calls_open: out of memory");
	c->ix = ix;
	c->d = d;
	c->q = *q;
	uint64_t lo, hi;
	int rc = target_range(ix, q, &lo, &hi);
	c->by_target = q->module >= 0 || lo > 0 || hi < UINT64_MAX;
	if (rc > 0)
		rc = c->by_target ? target_runs(c, lo, hi) : thread_runs(c);
	if (rc >= 0)
		rc = make_heap(c);
	if (rc < 0) {
		umt_calls_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

/* Whether call @p r (row @p row) passes the filters the runs do not apply; its thread. */
static int wanted(const umt_calls *c, uint64_t row, const umt_ix_call_row *r, int32_t *thread)
{
	int rc = umt__ix_call_thread_of(c->d, row, thread);
	if (rc < 0)
		return rc;
	if (c->q.thread >= 0 && *thread != c->q.thread)
		return 0;
	uint64_t m;
	if (c->q.module >= 0 &&
	    (umt_module_find(c->ix->trace, r->Target, r->CallID, &m) < 0 || m != (uint64_t)c->q.module))
		return 0;
	return 1;
}

int umt_calls_next(umt_calls *c, umt_call *out)
{
	if (c == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_calls_next: invalid argument");
	while (c->n > 0 && (c->q.limit == 0 || c->given < c->q.limit)) {
		struct crun *top = c->heap[0];
		uint64_t row = 0;
		umt_ix_call_row r = {0};
		int32_t thread = -1;
		if (top->id >= c->q.to)
			break; /* the smallest call of every run is past the range */
		int rc = row_at(c, top->pos, &row);
		if (rc == 0)
			rc = umt__ix_call_row(c->ix, c->d, row, &r);
		if (rc == 0 && c->any && r.CallID <= c->last)
			rc = umt__ix_calls_corrupt(c->by_target ? UMT_IX_CALLS_BYT : UMT_IX_CALLS_TAB, 64,
			                           "calls out of record order at call %llu",
			                           (unsigned long long)r.CallID);
		top->pos++;
		if (rc == 0)
			rc = run_key(c, top);
		if (rc == 0 && top->id == UINT64_MAX)
			c->heap[0] = c->heap[--c->n];
		sift_down(c->heap, c->n, 0);
		if (rc == 0)
			rc = wanted(c, row, &r, &thread);
		if (rc < 0)
			return rc;
		c->last = r.CallID;
		c->any = true;
		if (rc == 0)
			continue;
		c->given++;
		rc = umt__ix_call_fill(c->ix, c->d, row, &r, thread, out);
		return rc < 0 ? rc : 1;
	}
	return 0;
}

void umt_calls_close(umt_calls *c)
{
	if (c == NULL)
		return;
	free(c->runs);
	free(c->heap);
	free(c);
}
