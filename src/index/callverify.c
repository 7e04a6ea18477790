/*
 * libumtrace - the full check of the calls section (umt_index_verify()).
 *
 * Structure: calls.thr lists threads of the trace in increasing order, each
 * thread's rows following the previous ones; calls.tgt lists targets in
 * increasing order, their entries of calls.byt following each other; every
 * entry of calls.byt is a row whose target is its entry's, in increasing
 * call records within a target; all of them cover exactly the calls.
 * Content: a fresh extraction of the trace (callextract.c) replayed by the
 * build's own matching (callreplay.c) must give every row of calls.tab,
 * field by field, and the counts of the header. Together: the section is
 * exactly what a build of this trace writes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "calls.h"

#define NONE UINT64_MAX

static int check_threads(const umt_index *ix, const struct calls_data *d, uint64_t *base)
{
	uint64_t n = umt_thread_count(ix->trace), sum = 0;
	int64_t prev = -1;
	for (uint64_t i = 0; i < n; i++)
		base[i] = NONE;
	for (uint64_t i = 0; i < d->threads; i++) {
		umt_ix_call_thread e;
		int rc = umt__ix_call_thread_at(d, i, &e);
		if (rc < 0)
			return rc;
		if (e.Thread <= prev || (uint64_t)e.Thread >= n || e.FirstRow != sum)
			return umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64 + i * sizeof e,
			                             "entry %llu: thread %d out of order or of the trace, or "
			                             "rows not following", (unsigned long long)i, e.Thread);
		prev = e.Thread;
		base[e.Thread] = e.FirstRow;
		sum += e.Count;
	}
	if (sum != d->calls)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64, "%llu rows listed, %llu calls",
		                             (unsigned long long)sum, (unsigned long long)d->calls);
	return 0;
}

/* The entries of one target in calls.byt: rows of that target, in call order. */
static int check_target_rows(const umt_index *ix, const struct calls_data *d,
                             const umt_ix_call_target *t)
{
	uint64_t prev_id = 0;
	for (uint64_t j = t->First; j < t->First + t->Count; j++) {
		uint64_t row;
		umt_ix_call_row r = {0};
		memcpy(&row, d->by_target + j * 8, sizeof row);
		int rc = row < d->calls ? umt__ix_call_row(ix, d, row, &r) : UMT_E_CORRUPT;
		if (rc < 0 || r.Target != t->Target || (j > t->First && r.CallID <= prev_id))
			return umt__ix_calls_corrupt(UMT_IX_CALLS_BYT, 64 + j * 8,
			                             "entry %llu is not the next call to 0x%llx",
			                             (unsigned long long)j, (unsigned long long)t->Target);
		prev_id = r.CallID;
	}
	return 0;
}

static int check_targets(const umt_index *ix, const struct calls_data *d)
{
	uint64_t sum = 0;
	for (uint64_t i = 0; i < d->targets; i++) {
		umt_ix_call_target t;
		memcpy(&t, &d->target_dir[i], sizeof t);
		if (t.Count == 0 || t.First != sum || t.Count > d->calls - sum ||
		    (i > 0 && t.Target <= d->target_dir[i - 1].Target))
			return umt__ix_calls_corrupt(UMT_IX_CALLS_TGT, 64 + i * sizeof t,
			                             "entry %llu out of order or not following",
			                             (unsigned long long)i);
		int rc = check_target_rows(ix, d, &t);
		if (rc < 0)
			return rc;
		sum += t.Count;
	}
	if (sum != d->calls)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_TGT, 64, "%llu entries listed, %llu calls",
		                             (unsigned long long)sum, (unsigned long long)d->calls);
	return 0;
}

/* ---- the fresh extraction against the table ----------------------------------------------------- */

struct vcheck {
	const umt_index *ix;
	const struct calls_data *d;
	int fd; /* the replay's spill file, created on first use */
	uint64_t spilled;
};

static int differs(uint64_t row, const char *what)
{
	return umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, 64 + row * sizeof(umt_ix_call_row),
	                             "row %llu: %s differs from the trace's", (unsigned long long)row,
	                             what);
}

static int v_open(void *ctx, const struct call_open *c)
{
	struct vcheck *v = ctx;
	umt_ix_call_row r = {0};
	int32_t thread = -1;
	int rc = c->row < v->d->calls ? umt__ix_call_thread_of(v->d, c->row, &thread) : 0;
	if (c->row >= v->d->calls || (rc == 0 && thread != c->thread))
		return umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64, "thread %d makes more calls than "
		                             "its rows", c->thread);
	if (rc == 0)
		rc = umt__ix_call_row(v->ix, v->d, c->row, &r);
	if (rc < 0)
		return rc;
	if (r.CallID != c->id || r.Caller != c->caller || r.Parent != c->parent ||
	    r.Depth != c->depth || r.Length != c->length)
		return differs(c->row, "the call");
	if (c->final && (r.Target != c->target || UMT_IX_CALL_SOURCE(r.Flags) != c->source))
		return differs(c->row, "the target");
	return 0;
}

static int v_target(void *ctx, int32_t thread, uint64_t row, uint64_t id, uint64_t target,
                    unsigned source)
{
	const struct vcheck *v = ctx;
	umt_ix_call_row r = {0};
	(void)thread, (void)id;
	int rc = umt__ix_call_row(v->ix, v->d, row, &r);
	if (rc == 0 && (r.Target != target || UMT_IX_CALL_SOURCE(r.Flags) != source))
		rc = differs(row, "the target");
	return rc;
}

static int v_close(void *ctx, int32_t thread, uint64_t row, uint64_t end_id, unsigned end)
{
	const struct vcheck *v = ctx;
	umt_ix_call_row r = {0};
	(void)thread;
	int rc = umt__ix_call_row(v->ix, v->d, row, &r);
	if (rc == 0 && (r.EndID != end_id || UMT_IX_CALL_END(r.Flags) != end))
		rc = differs(row, "the end");
	return rc;
}

/* The replay's spill file: an unlinked temporary, made on first use. */
static int v_spill_write(void *ctx, const void *p, size_t n, uint64_t *at)
{
	struct vcheck *v = ctx;
	if (v->fd < 0) {
		const char *dir = getenv("TMPDIR");
		char path[4096];
		snprintf(path, sizeof path, "%s/umtverify-XXXXXX", dir && *dir ? dir : "/tmp");
		if ((v->fd = mkstemp(path)) < 0)
			return umt__failf(UMT_E_IO, "index verify: no temporary file: %s", strerror(errno));
		unlink(path);
	}
	*at = v->spilled;
	v->spilled += n;
	return umt__ix_pwrite_all(v->fd, p, n, *at);
}

static int v_spill_read(void *ctx, void *p, size_t n, uint64_t at)
{
	const struct vcheck *v = ctx;
	return umt__ix_calls_pread(v->fd, p, n, at, "index verify: temporary file");
}

static int v_event(void *ctx, const struct call_event *e, struct call_thread_scan *th)
{
	(void)th;
	return umt__ix_replay_event(ctx, e);
}

static int v_resolve(void *ctx, struct call_thread_scan *th, const struct call_event *next)
{
	return v_event(ctx, next, th);
}

/* Every record of the trace through the extraction and the replay. */
static int extract_all(const umt_trace *t, struct call_replay *r, uint64_t *ignored)
{
	struct call_extract x = {0};
	uint64_t n = umt_thread_count(t);
	struct call_thread_scan *th = calloc(n ? n : 1, sizeof *th);
	int rc = th ? umt__ix_call_extract_init(&x, t)
	            : umt__failf(UMT_E_NOMEM, "index verify: out of memory");
	x.emit = v_event;
	x.resolve = v_resolve;
	x.ctx = r;
	umt_exec_iter it;
	umt_rec rec;
	if (rc == 0)
		rc = umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while (rc == 0 && (rc = umt_exec_iter_next(&it, &rec)) > 0) {
		bool known = rec.thread_id >= 0 && (uint64_t)rec.thread_id < n;
		rc = umt__ix_call_extract(&x, &rec, known ? &th[rec.thread_id] : NULL);
	}
	*ignored = x.ignored;
	free(th);
	return rc;
}

/* The replay's counts and rows per thread against the header and calls.thr. */
static int check_counts(const struct calls_data *d, const uint64_t *info, const uint64_t *calls,
                        const uint64_t *base, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		umt_ix_call_thread e;
		int rc = base[i] == NONE ? 0 : umt__ix_call_thread_find(d, (int64_t)i, &e);
		if (rc < 0)
			return rc;
		if ((base[i] == NONE && calls[i] != 0) || (base[i] != NONE && e.Count != calls[i]))
			return umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64, "thread %llu: %llu calls in the "
			                             "trace, not the rows listed", (unsigned long long)i,
			                             (unsigned long long)calls[i]);
	}
	for (unsigned k = CALLS_INFO_RETURNED; k <= CALLS_INFO_IGNORED; k++)
		if (info[k] != d->info[k])
			return umt__failf(UMT_E_CORRUPT, "index.umti: calls count %u is %llu, the trace "
			                  "gives %llu", k, (unsigned long long)d->info[k],
			                  (unsigned long long)info[k]);
	return 0;
}

static int check_content(const umt_index *ix, const struct calls_data *d, const uint64_t *base)
{
	uint64_t n = umt_thread_count(ix->trace), info[UMT_IX_INFO_WORDS] = {0};
	uint64_t *calls = calloc(n ? n : 1, sizeof *calls);
	struct vcheck v = {ix, d, -1, 0};
	struct call_sink sink = {v_open, v_target, v_close, &v};
	struct call_spill spill = {v_spill_write, v_spill_read, &v};
	struct call_replay *r = NULL;
	int rc = calls ? umt__ix_replay_new(n, base, &sink, &spill, "index verify", &r)
	               : umt__failf(UMT_E_NOMEM, "index verify: out of memory");
	if (rc == 0)
		rc = extract_all(ix->trace, r, &info[CALLS_INFO_IGNORED]);
	if (rc == 0)
		rc = umt__ix_replay_finish(r, info, calls);
	if (rc == 0)
		rc = check_counts(d, info, calls, base, n);
	umt__ix_replay_free(r);
	if (v.fd >= 0)
		close(v.fd);
	free(calls);
	return rc;
}

int umt__ix_calls_verify(const umt_index *ix)
{
	const struct calls_data *d = umt__ix_calls(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	uint64_t n = umt_thread_count(ix->trace);
	uint64_t *base = malloc((n ? n : 1) * sizeof *base);
	int rc = base ? check_threads(ix, d, base) : umt__failf(UMT_E_NOMEM, "index verify: out of memory");
	if (rc == 0)
		rc = check_targets(ix, d);
	if (rc == 0)
		rc = check_content(ix, d, base);
	free(base);
	return rc;
}
