/*
 * libumtrace - the full check of the register section (regs.h), called by
 * umt_index_verify(): one pass over the trace in the build's ranges,
 * following every thread's register file from its first record, applying
 * the checkpoint rule with the section's interval; every checkpoint the
 * rule makes must be the next entry of its thread, with exactly that
 * state (values of known bytes, known flags, sources, last writes, last
 * changes, map); the thread rows must say where each thread's entries are,
 * its first record and record count; and the checkpoints' blobs must fill
 * regs.ckpt. So a section that verifies holds exactly what a build makes.
 */
#include <stdlib.h>

#include "regs.h"

struct rv {
	const umt_index *ix;
	const struct regs_data *d;
	struct rstate **st;        /* per thread, from its first record */
	struct rstate ck;          /* a checkpoint decoded */
	uint64_t *count, *since, *next, *first, *records, *last;
	uint64_t *touched;         /* threads of the current range */
	size_t ntouched;
	uint64_t blob_bytes;
};

static int nomem(void)
{
	return umt__failf(UMT_E_NOMEM, "umt_index_verify: out of memory");
}

static bool same_state(const struct rstate *a, const struct rstate *b)
{
	if (a->mode64 != b->mode64)
		return false;
	for (uint32_t i = 0; i < a->size; i++)
		if (a->known[i] != b->known[i] || (a->known[i] && a->val[i] != b->val[i]) ||
		    umt__rs_src(a, i) != umt__rs_src(b, i) || umt__rs_lw(a, i) != umt__rs_lw(b, i) ||
		    umt__rs_lc(a, i) != umt__rs_lc(b, i))
			return false;
	return true;
}

/* The rule made a checkpoint of @p thread after @p record: it must be the next entry. */
static int expect(struct rv *v, uint64_t thread, uint64_t record)
{
	const struct regs_data *d = v->d;
	umt_ix_regs_thread row;
	memcpy(&row, &d->threads[thread], sizeof row);
	uint64_t i = row.FirstEntry + v->next[thread]++, got, off;
	if (v->next[thread] > row.Entries || row.FirstEntry > d->entry_count ||
	    i >= d->entry_count)
		return umt__regs_corrupt(UMT_IX_REGS_DIR, 64 + thread * 32, "thread %llu: a checkpoint "
		                         "after record %llu is missing", (unsigned long long)thread,
		                         (unsigned long long)record);
	int rc = umt__regs_load(d, i, &v->ck, &got);
	uint64_t at = 64 + d->thread_count * 32 + i * 16;
	if (rc == 0 && got != record)
		rc = umt__regs_corrupt(UMT_IX_REGS_DIR, at, "checkpoint %llu of thread %llu is after "
		                       "record %llu, the rule puts it after %llu", (unsigned long long)i,
		                       (unsigned long long)thread, (unsigned long long)got,
		                       (unsigned long long)record);
	memcpy(&off, &d->entries[i].Offset, 8);
	if (rc == 0 && !same_state(&v->ck, v->st[thread]))
		rc = umt__regs_corrupt(UMT_IX_REGS_CKPT, off, "checkpoint after record %llu differs "
		                       "from the trace's registers", (unsigned long long)record);
	if (rc < 0) /* umt__regs_load() checked off: past here it lies inside regs.ckpt */
		return rc;
	const uint8_t *p = d->ckpt.data + off;
	uint64_t len;
	if (umt__get_varint(&p, d->ckpt.data + d->ckpt.size, &len))
		v->blob_bytes += (uint64_t)(p - (d->ckpt.data + off)) + len;
	return 0;
}

/* One record: applied to its thread's state, the rule's checkpoints every K. */
static int record(struct rv *v, const umt_rec *r)
{
	if (r->thread_id < 0 || (uint64_t)r->thread_id >= v->d->thread_count)
		return 0;
	uint64_t t = (uint64_t)r->thread_id;
	if (v->st[t] == NULL) {
		struct rstate *s = malloc(sizeof *s);
		int rc = s ? umt__rs_alloc(s, v->d->ctx.dump, false, true) : nomem();
		if (rc < 0)
			return free(s), rc;
		v->st[t] = s;
		v->first[t] = r->id;
	}
	if (v->count[t]++ == 0)
		v->touched[v->ntouched++] = t;
	v->records[t]++;
	v->last[t] = r->id;
	int rc = umt__regs_apply(&v->d->ctx, v->st[t], r, -1);
	if (rc == 0 && v->count[t] % v->d->interval == 0)
		rc = expect(v, t, r->id);
	return rc;
}

static int range(struct rv *v, uint64_t from, uint64_t to)
{
	umt_exec_iter it;
	umt_rec r;
	int rc = umt_exec_iter_init(&it, v->ix->trace, from, to);
	while (rc == 0 && (rc = umt_exec_iter_next(&it, &r)) > 0)
		rc = record(v, &r);
	for (size_t i = 0; rc == 0 && i < v->ntouched; i++) {
		uint64_t t = v->touched[i];
		if (umt__regs_rule(v->count[t], v->d->interval, &v->since[t]) & RB_AT_END)
			rc = expect(v, t, v->last[t]);
	}
	for (size_t i = 0; i < v->ntouched; i++)
		v->count[v->touched[i]] = 0;
	v->ntouched = 0;
	return rc;
}

/* The thread rows against what the pass saw. */
static int rows(struct rv *v)
{
	uint64_t expected_first = 0;
	for (uint64_t t = 0; t < v->d->thread_count; t++) {
		umt_ix_regs_thread row;
		memcpy(&row, &v->d->threads[t], sizeof row);
		uint64_t first = v->st[t] ? v->first[t] : UMT_NO_RECORD;
		if (row.FirstEntry != expected_first || row.Entries != v->next[t] ||
		    row.FirstRecord != first || row.Records != v->records[t])
			return umt__regs_corrupt(UMT_IX_REGS_DIR, 64 + t * 32, "thread %llu: its row "
			                         "differs from the trace", (unsigned long long)t);
		expected_first += row.Entries;
	}
	if (expected_first != v->d->entry_count || v->blob_bytes != v->d->ckpt.size - 64)
		return umt__regs_corrupt(UMT_IX_REGS_CKPT, 64, "%llu checkpoints of %llu bytes; the "
		                         "section has %llu in %llu bytes", (unsigned long long)expected_first,
		                         (unsigned long long)v->blob_bytes,
		                         (unsigned long long)v->d->entry_count,
		                         (unsigned long long)(v->d->ckpt.size - 64));
	return 0;
}

static int pass(struct rv *v)
{
	unsigned n = umt__ix_range_count(v->ix->trace);
	uint64_t *bounds = malloc((n + 1) * sizeof *bounds);
	int rc = bounds ? umt_exec_split(v->ix->trace, n, bounds) : nomem();
	for (unsigned k = 0; rc == 0 && k < n; k++)
		rc = range(v, bounds[k], bounds[k + 1]);
	free(bounds);
	return rc == 0 ? rows(v) : rc;
}

static void free_all(struct rv *v)
{
	for (uint64_t t = 0; v->st && t < v->d->thread_count; t++)
		if (v->st[t])
			umt__rs_free(v->st[t]), free(v->st[t]);
	free(v->st);
	free(v->count), free(v->since), free(v->next), free(v->first), free(v->records);
	free(v->last), free(v->touched);
	umt__rs_free(&v->ck);
}

int umt__regs_verify(const umt_index *ix)
{
	struct rv v = {.ix = ix, .d = umt__regs_of(ix)};
	if (v.d == NULL)
		return UMT_E_MISSING;
	size_t n = v.d->thread_count ? (size_t)v.d->thread_count : 1, w = sizeof(uint64_t);
	v.count = calloc(n, w), v.since = calloc(n, w), v.next = calloc(n, w);
	v.first = calloc(n, w), v.records = calloc(n, w), v.last = calloc(n, w);
	v.touched = calloc(n, w);
	v.st = calloc(n, sizeof(struct rstate *));
	int rc = v.count && v.since && v.next && v.first && v.records && v.last && v.touched && v.st
	                 ? umt__rs_alloc(&v.ck, v.d->ctx.dump, false, true)
	                 : nomem();
	if (rc == 0)
		rc = pass(&v);
	free_all(&v);
	return rc;
}
