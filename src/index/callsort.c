/*
 * libumtrace - the calls section's index by target (calls.h): entries
 * (target, call record, row) sorted by target, call record, then row, written as
 * calls.tgt (one entry per distinct target) and calls.byt (the rows).
 * An external sort: sort_entries entries in memory (calls.h, the limits),
 * sorted runs in the build's spill file beyond them, merged through small
 * read buffers.
 */
#include <stdlib.h>

#include "build.h"
#include "calls.h"


struct srun {
	uint64_t at, count; /* in the spill file */
};

struct call_sorter {
	struct ix_build *b;
	struct call_key *buf;
	size_t n;
	struct srun *runs;
	size_t nruns, runs_cap;
};

/* ---- sorting the buffer: an introsort with the comparison inline (qsort()'s call
 * through a pointer per comparison took 0.13 s of a 30 M-record build) ---------------- */

/* Target, call record, then row: a total order, so that neither the in-memory sort nor
 * the merge of runs depends on the algorithm for ties. */
static inline bool entry_less(const struct call_key *x, const struct call_key *y)
{
	if (x->target != y->target)
		return x->target < y->target;
	if (x->id != y->id)
		return x->id < y->id;
	return x->row < y->row;
}

static inline void swap_keys(struct call_key *a, struct call_key *b)
{
	struct call_key t = *a;
	*a = *b;
	*b = t;
}

static void insertion_sort(struct call_key *a, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		struct call_key k = a[i];
		size_t j = i;
		for (; j > 0 && entry_less(&k, &a[j - 1]); j--)
			a[j] = a[j - 1];
		a[j] = k;
	}
}

static void heap_down(struct call_key *a, size_t n, size_t i)
{
	for (size_t m; (m = 2 * i + 1) < n; i = m) {
		if (m + 1 < n && entry_less(&a[m], &a[m + 1]))
			m++;
		if (!entry_less(&a[i], &a[m]))
			return;
		swap_keys(&a[i], &a[m]);
	}
}

/* The fallback when partitions go badly: O(n log n) whatever the input. */
static void heap_sort(struct call_key *a, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		heap_down(a, n, i);
	for (size_t end = n; end-- > 1;) {
		swap_keys(&a[0], &a[end]);
		heap_down(a, end, 0);
	}
}

/* Partitions around the median of the first, middle and last entries; returns the
 * pivot's place (entries before it are not greater, after it not less). */
static size_t partition(struct call_key *a, size_t n)
{
	size_t mid = n / 2, last = n - 1;
	if (entry_less(&a[mid], &a[0]))
		swap_keys(&a[mid], &a[0]);
	if (entry_less(&a[last], &a[0]))
		swap_keys(&a[last], &a[0]);
	if (entry_less(&a[last], &a[mid]))
		swap_keys(&a[last], &a[mid]);
	swap_keys(&a[mid], &a[last - 1]); /* the pivot, out of the way */
	struct call_key pivot = a[last - 1];
	size_t i = 0, j = last - 1;
	for (;;) {
		while (entry_less(&a[++i], &pivot))
			;
		while (entry_less(&pivot, &a[--j]))
			;
		if (i >= j)
			break;
		swap_keys(&a[i], &a[j]);
	}
	swap_keys(&a[i], &a[last - 1]);
	return i;
}

static void sort_keys(struct call_key *a, size_t n)
{
	unsigned depth = 0; /* sort_depth x log2(n) partitions deep at most, then the heap sort */
	for (size_t k = n; k > 1; k >>= 1)
		depth += umt__ix_calls_limits.sort_depth;
	while (n > 16) {
		if (depth-- == 0) {
			heap_sort(a, n);
			return;
		}
		size_t p = partition(a, n);
		/* the smaller side recursively, the larger in this loop: log n stack */
		if (p < n - p - 1) {
			sort_keys(a, p);
			a += p + 1, n -= p + 1;
		} else {
			sort_keys(a + p + 1, n - p - 1);
			n = p;
		}
	}
	insertion_sort(a, n);
}

int umt__ix_csort_new(struct ix_build *b, struct call_sorter **out)
{
	struct call_sorter *s = calloc(1, sizeof *s);
	if (s == NULL || (s->buf = malloc(umt__ix_calls_limits.sort_entries * sizeof *s->buf)) == NULL) {
		free(s);
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	}
	s->b = b;
	*out = s;
	return 0;
}

void umt__ix_csort_free(struct call_sorter *s)
{
	if (s) {
		free(s->buf);
		free(s->runs);
		free(s);
	}
}

/* The buffer, sorted, as a run in the spill file. */
static int spill_run(struct call_sorter *s)
{
	if (s->nruns == s->runs_cap) {
		size_t cap = s->runs_cap ? 2 * s->runs_cap : 16;
		struct srun *p = realloc(s->runs, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: out of memory");
		s->runs = p;
		s->runs_cap = cap;
	}
	sort_keys(s->buf, s->n);
	struct srun *r = &s->runs[s->nruns];
	int rc = umt__ixb_spill(s->b, s->buf, s->n * sizeof *s->buf, &r->at);
	if (rc == 0) {
		r->count = s->n;
		s->nruns++;
		s->n = 0;
	}
	return rc;
}

int umt__ix_csort_add(struct call_sorter *s, const struct call_key *k)
{
	if (s->n == umt__ix_calls_limits.sort_entries) {
		int rc = spill_run(s);
		if (rc < 0)
			return rc;
	}
	s->buf[s->n++] = *k;
	return 0;
}

/* ---- the output ---------------------------------------------------------------------------- */

/* calls.tgt and calls.byt being written. */
struct tgt_out {
	struct ix_out tgt, byt;
	umt_ix_call_target cur; /* the target being counted */
	uint64_t targets;
};

static int out_open(struct ix_build *b, struct tgt_out *o)
{
	int fd[2], rc = umt__ixb_create(b, UMT_IX_CALLS_TGT, &fd[0]);
	if (rc == 0 && (rc = umt__ixb_create(b, UMT_IX_CALLS_BYT, &fd[1])) == 0 &&
	    (rc = umt__ixb_file_header(b, fd[0], "UMTCLTGT")) == 0)
		rc = umt__ixb_file_header(b, fd[1], "UMTCLBYT");
	if (rc == 0 && (rc = umt__ix_out_init(&o->tgt, fd[0], 64u << 10)) == 0)
		rc = umt__ix_out_init(&o->byt, fd[1], 256u << 10);
	o->tgt.size = o->byt.size = 64; /* after the headers */
	return rc;
}

static int out_put(struct tgt_out *o, const struct call_key *k)
{
	int rc = 0;
	if (o->cur.Count && o->cur.Target != k->target) {
		rc = umt__ix_out_put(&o->tgt, &o->cur, sizeof o->cur);
		o->cur.First += o->cur.Count;
		o->cur.Count = 0;
	}
	if (o->cur.Count++ == 0) {
		o->cur.Target = k->target;
		o->targets++;
	}
	return rc == 0 ? umt__ix_out_put(&o->byt, &k->row, sizeof k->row) : rc;
}

static int out_finish(struct tgt_out *o)
{
	int rc = o->cur.Count ? umt__ix_out_put(&o->tgt, &o->cur, sizeof o->cur) : 0;
	if (rc == 0 && (rc = umt__ix_out_flush(&o->tgt)) == 0)
		rc = umt__ix_out_flush(&o->byt);
	return rc;
}

/* ---- merging the runs ------------------------------------------------------------------------ */

/* A run being read: its next entries in a buffer. */
struct cursor {
	const struct srun *run;
	uint64_t next;           /* entries of the run read into buf so far */
	struct call_key *buf;
	size_t n, pos, cap;
};

static int cursor_fill(struct ix_build *b, struct cursor *c)
{
	uint64_t left = c->run->count - c->next;
	size_t want = left < c->cap ? (size_t)left : c->cap;
	c->n = want;
	c->pos = 0;
	int rc = umt__ixb_spill_read(b, c->buf, want * sizeof *c->buf,
	                             c->run->at + c->next * sizeof *c->buf);
	c->next += want;
	return rc;
}

/* The heap of cursors by their current entry (all non-empty). */
static void sift_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t m = i, l = 2 * i + 1, r = l + 1;
		if (l < n && entry_less(&h[l]->buf[h[l]->pos], &h[m]->buf[h[m]->pos]))
			m = l;
		if (r < n && entry_less(&h[r]->buf[h[r]->pos], &h[m]->buf[h[m]->pos]))
			m = r;
		if (m == i)
			return;
		struct cursor *x = h[i];
		h[i] = h[m];
		h[m] = x;
		i = m;
	}
}

static int merge_runs(struct call_sorter *s, struct tgt_out *o)
{
	const struct calls_limits *l = &umt__ix_calls_limits;
	size_t k = s->nruns, cap = l->merge_bytes / sizeof(struct call_key) / k;
	cap = cap < l->merge_min ? l->merge_min : cap;
	struct cursor *c = calloc(k, sizeof *c), **h = calloc(k, sizeof(struct cursor *));
	struct call_key *mem = malloc(k * cap * sizeof *mem);
	int rc = c && h && mem ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	size_t n = 0;
	for (size_t i = 0; rc == 0 && i < k; i++) {
		c[i] = (struct cursor){&s->runs[i], 0, mem + i * cap, 0, 0, cap};
		if ((rc = cursor_fill(s->b, &c[i])) == 0 && c[i].n > 0)
			h[n++] = &c[i];
	}
	for (size_t i = n / 2; rc == 0 && i-- > 0;)
		sift_down(h, n, i);
	while (rc == 0 && n > 0) {
		struct cursor *top = h[0];
		rc = out_put(o, &top->buf[top->pos]);
		if (rc == 0 && ++top->pos == top->n)
			rc = cursor_fill(s->b, top);
		if (top->n == 0)
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	free(c), free(h), free(mem);
	return rc;
}

int umt__ix_csort_finish(struct call_sorter *s, uint64_t *targets)
{
	struct tgt_out o;
	memset(&o, 0, sizeof o);
	int rc = out_open(s->b, &o);
	if (rc == 0 && s->nruns > 0) {
		rc = s->n ? spill_run(s) : 0;
		if (rc == 0)
			rc = merge_runs(s, &o);
	} else if (rc == 0) {
		sort_keys(s->buf, s->n);
		for (size_t i = 0; rc == 0 && i < s->n; i++)
			rc = out_put(&o, &s->buf[i]);
	}
	if (rc == 0)
		rc = out_finish(&o);
	*targets = o.targets;
	umt__ix_out_free(&o.tgt);
	umt__ix_out_free(&o.byt);
	return rc;
}
