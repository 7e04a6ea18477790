/*
 * libumtrace SQLite module - records by ID range, thread and type: the walk
 * under the records, operands and accesses tables. A thread's records
 * come along its prev/next chain (they are read, the others are not),
 * unless the trace has one thread (then a scan reads the same records,
 * faster: docs/performance.md) or the chain cannot be used (no row for the
 * thread, a salvaged trace without exec.prev_next.column): then a scan of
 * the range keeps the thread's records. Every record read counts as visited.
 */
#include <string.h>

#include "usql.h"

/* Estimated records when SQLite has no trace to ask yet. */
#define DEFAULT_RECORDS 1e6

double usql_recscan_rows(const umt_trace *t, const struct usql_shape *s, unsigned k_id,
                         int k_thread)
{
	double n = t ? (double)umt_exec_count(t) : DEFAULT_RECORDS;
	double v = usql_id_rows(s, k_id, n > 1 ? n : 1);
	if (k_thread >= 0 && (s->used[k_thread] & USQL_C_EQ)) {
		uint64_t threads = t ? umt_thread_count(t) : 4;
		double share = threads > 1 ? 1.0 / (double)threads : 1.0;
		const umt_thread_rec *row;
		if (t && threads > 1 && (s->known[k_thread] & USQL_C_EQ) && s->eq[k_thread] >= 0 &&
		    umt_thread_get(t, (uint64_t)s->eq[k_thread], &row) == 0 && n > 0 &&
		    row->RecCount >= 0)
			share = (double)row->RecCount / n;
		v *= share;
	}
	return v < 1 ? 1 : v;
}

/* The first record of @p thread at or after @p lo, up to s->hi: found by a scan. */
static int find_start(struct usql_recscan *s, uint64_t lo, int64_t *start)
{
	umt_exec_iter it;
	umt_rec r;
	int rc = umt_exec_iter_init(&it, s->c->t, lo, s->hi + 1);
	uint64_t seen = 0;
	*start = -1;
	while (rc >= 0 && (rc = umt_exec_iter_next(&it, &r)) > 0) {
		seen++;
		if (r.thread_id == s->thread) {
			*start = (int64_t)r.id;
			break;
		}
	}
	usql_visit(s->c, seen);
	return rc < 0 ? usql_fail(s->c, rc) : SQLITE_OK;
}

/* Starts along the thread's chain; *ok = 0 when the chain cannot be used. */
static int chain_init(struct usql_recscan *s, uint64_t lo, int *ok)
{
	const umt_trace *t = s->c->t;
	const umt_thread_rec *row;
	int64_t first;
	*ok = 0;
	if (umt_thread_count(t) < 2 || umt_thread_get(t, (uint64_t)s->thread, &row) < 0)
		return SQLITE_OK;
	memcpy(&first, &row->FirstEID, sizeof first);
	if (first < 0) { /* no records: an empty chain */
		s->th.next_id = -1;
		*ok = 1;
		return SQLITE_OK;
	}
	int rc;
	if ((uint64_t)first >= lo) {
		rc = umt_thread_iter_init_thread(&s->th, t, (uint64_t)s->thread);
	} else {
		int64_t start;
		if ((rc = find_start(s, lo, &start)) != SQLITE_OK)
			return rc;
		if (start < 0) {
			s->th.next_id = -1;
			*ok = 1;
			return SQLITE_OK;
		}
		rc = umt_thread_iter_init(&s->th, t, (uint64_t)start, UMT_FORWARD);
	}
	*ok = rc == 0; /* else (no exec.prev_next.column, a bad FirstEID) the scan tells */
	return SQLITE_OK;
}

int usql_recscan_init(struct usql_recscan *s, struct usql_cursor *c, uint64_t lo, uint64_t hi,
                      int64_t thread, int type)
{
	memset(s, 0, sizeof *s);
	s->c = c;
	s->hi = hi;
	s->thread = thread;
	s->type = type;
	if (thread >= 0) { /* else every thread, or a negative ID no row has */
		int rc = chain_init(s, lo, &s->chain);
		if (rc != SQLITE_OK || s->chain)
			return rc;
	}
	int rc = umt_exec_iter_init(&s->it, c->t, lo, hi + 1);
	return rc < 0 ? usql_fail(c, rc) : SQLITE_OK;
}

static int chain_next(struct usql_recscan *s, umt_rec *r)
{
	int rc;
	uint64_t seen = 0;
	while ((rc = umt_thread_iter_next(&s->th, r)) > 0) {
		if (r->id > s->hi) {
			rc = 0;
			break;
		}
		seen++;
		if (s->type < 0 || r->type == s->type)
			break;
	}
	usql_visit(s->c, seen);
	if (rc < 0) {
		usql_fail(s->c, rc);
		return -1;
	}
	return rc;
}

int usql_recscan_next(struct usql_recscan *s, umt_rec *r)
{
	if (s->chain)
		return chain_next(s, r);
	int rc;
	uint64_t seen = 0;
	/* the scan's loop: a few loads per record, the counter flushed once */
	while ((rc = umt_exec_iter_next(&s->it, r)) > 0) {
		seen++;
		if ((s->thread == USQL_ANY_THREAD || r->thread_id == s->thread) &&
		    (s->type < 0 || r->type == s->type))
			break;
	}
	usql_visit(s->c, seen);
	if (rc < 0) {
		usql_fail(s->c, rc);
		return -1;
	}
	return rc;
}
