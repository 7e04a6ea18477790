/*
 * libumtrace - threads: thread.itable rows by ID (stride RowSize: 40 in
 * real traces, 48 per the spec), lookup by Windows thread ID, and the
 * iterator along one thread's prev/next chain (its inline part is in
 * umtrace.h: this file has the first record, chunk changes, the end and
 * the errors).
 */
#include "internal.h"

uint64_t umt_thread_count(const umt_trace *t)
{
	return t ? t->thread.count : 0;
}

static int __attribute__((noinline, cold)) thread_out_of_range(const umt_trace *t, uint64_t id)
{
	static const struct umt_range_msg m = {UMT_FILE_THREAD, UMT_LOC_ROW, -1, "thread",
	                                       "threads"};
	return umt__out_of_range(t, &m, id, t->thread.count, t->thread.declared);
}

int umt_thread_get(const umt_trace *t, uint64_t id, const umt_thread_rec **row)
{
	if (t == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_thread_get: invalid argument");
	if (id >= t->thread.count)
		return thread_out_of_range(t, id);
	*row = (const umt_thread_rec *)(t->thread.rows + id * t->thread.row_size);
	return 0;
}

int umt_thread_find_win_tid(const umt_trace *t, int32_t win_tid, uint64_t *id)
{
	if (t == NULL || id == NULL)
		return umt__failf(UMT_E_INVAL, "umt_thread_find_win_tid: invalid argument");
	/* A linear scan: thread tables hold tens to thousands of rows. */
	for (uint64_t i = 0; i < t->thread.count; i++) {
		const umt_thread_rec *r =
			(const umt_thread_rec *)(t->thread.rows + i * t->thread.row_size);
		if (r->WinTID == win_tid) {
			*id = i;
			return 0;
		}
	}
	int rc = umt__lost(t, UMT_FILE_THREAD, UMT_LOC_NONE, 0, 0); /* the table was lost */
	if (rc < 0)
		return rc;
	return umt__fail(UMT_E_NOT_FOUND, UMT_FILE_THREAD, UMT_LOC_NONE, 0, 0,
	                 "no thread has WinTID %d (0x%x) (%llu threads)", win_tid,
	                 (unsigned)win_tid, (unsigned long long)t->thread.count);
}

/* ---- iterator along a thread's chain ------------------------------------ */

#define THREAD_UNKNOWN INT64_MIN

/* Records per chunk of the map of checked chunks. */
#define CHUNK ((uint64_t)1 << UMT__EXEC_CHUNK_SHIFT)

/*
 * A thread is dense when it holds at least 1/DENSE of the records: then
 * checking the whole chunk that its chain enters (about 16 instructions a
 * record) costs less per record of the chain than checking its records one
 * at a time in the step (about 150), and later walks and lookups skip the
 * checks of the chunk.
 */
#define DENSE 16

/*
 * Below 1/SPARSE of the records, the links of a chain are too far apart for
 * the processor's prefetchers (at most a few in a line): the inline path
 * prefetches the links and offsets ahead. Above, the prefetch instructions
 * would cost more than they save.
 */
#define SPARSE 6

int umt__thread_iter_init(umt_thread_iter *it, const umt_trace *t, uint64_t start_id,
                          int direction)
{
	if (it == NULL || t == NULL || (direction != UMT_FORWARD && direction != UMT_BACKWARD))
		return umt__failf(UMT_E_INVAL, "umt_thread_iter_init: invalid argument");
	if (start_id >= t->exec_count)
		return umt__exec_out_of_range(t, start_id);
	const struct umt_map *pn;
	int rc = umt__prev_next(t, &pn); /* mapped on first use, or lost at open */
	if (rc < 0)
		return rc;
	it->trace = t;
	it->next_id = (int64_t)start_id;
	it->prev_id = -1;
	it->thread_id = THREAD_UNKNOWN;
	it->direction = direction;
	it->offsets = t->exec_offsets;
	it->records = t->exec_records;
	it->links = pn->data + (direction == UMT_FORWARD ? offsetof(umt_prev_next, Next)
	                                                 : offsetof(umt_prev_next, Prev));
	it->good_lo = 0;
	it->good_hi = 0; /* the first record takes the step */
	it->prefetched = start_id;
	return 0;
}

int umt__thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t, uint64_t thread)
{
	const umt_thread_rec *row;
	int rc = umt_thread_get(t, thread, &row);
	if (rc < 0 || it == NULL)
		return rc < 0 ? rc : umt__failf(UMT_E_INVAL, "umt_thread_iter_init_thread: invalid argument");
	int64_t first = row->FirstEID;
	if (first != -1 && (first < 0 || (uint64_t)first >= t->exec_count))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_THREAD, UMT_LOC_ROW, thread,
		                 t->thread.table_fp + thread * t->thread.row_size + 16,
		                 "FirstEID %lld is outside the execution table (%llu records)",
		                 (long long)first, (unsigned long long)t->exec_count);
	if (first == -1) { /* no records: an iterator at its end */
		memset(it, 0, sizeof *it);
		it->trace = t;
		it->next_id = -1;
		it->prev_id = -1;
		it->thread_id = (int64_t)thread;
		it->direction = UMT_FORWARD;
		return 0;
	}
	rc = umt__thread_iter_init(it, t, (uint64_t)first, UMT_FORWARD);
	it->thread_id = (int64_t)thread;
	return rc;
}

/* Checks the link that led from prev_id to next_id. */
static int check_link(const umt_thread_iter *it)
{
	const umt_trace *t = it->trace;
	int64_t from = it->prev_id, to = it->next_id;
	bool fwd = it->direction == UMT_FORWARD;
	uint64_t at = (uint64_t)from * sizeof(umt_prev_next) + (fwd ? 8 : 0);
	if (to < 0 || (uint64_t)to >= t->exec_count)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		                 (uint64_t)from, at, "%s link %lld is outside the table (%llu records)",
		                 fwd ? "Next" : "Prev", (long long)to,
		                 (unsigned long long)t->exec_count);
	if (fwd ? to <= from : to >= from)
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		                 (uint64_t)from, at, "%s link %lld does not %s", fwd ? "Next" : "Prev",
		                 (long long)to, fwd ? "increase" : "decrease");
	return 0;
}

/*
 * Whether the thread of the chain holds at least 1/@p part of the records
 * (by its row's RecCount, a hint that decides nothing but speed).
 */
static bool thread_holds(const umt_trace *t, int64_t thread, uint64_t part)
{
	const umt_thread_rec *row;
	if (thread < 0 || (uint64_t)thread >= t->thread.count)
		return false;
	row = (const umt_thread_rec *)(t->thread.rows + (uint64_t)thread * t->thread.row_size);
	return row->RecCount > 0 && (uint64_t)row->RecCount >= t->exec_count / part;
}

/*
 * The records that the inline path may take without checking them: the
 * chunk of record @p id, when it is known good (a scan marked it), or when
 * the thread is dense, the good records of the chunk from its start, if
 * they reach past @p id; else none (good_hi 0).
 */
static void set_window(umt_thread_iter *it, uint64_t id)
{
	const umt_trace *t = it->trace;
	uint64_t lo = id & ~(CHUNK - 1), hi = lo + CHUNK < t->exec_count ? lo + CHUNK : t->exec_count;
	it->good_lo = lo;
	it->good_hi = 0;
	const uint8_t *map = umt__exec_chunk_map(t);
	if (map && umt__chunk_checked(map, id))
		it->good_hi = hi;
	else if (thread_holds(t, it->thread_id, DENSE)) {
		int64_t good = umt__exec_check_run(t, lo, hi); /* marks the chunk when all good */
		if (good > 0) /* else the chunk's first record is bad: the step reports it if reached */
			it->good_hi = (uint64_t)good;
	}
	if (id >= it->good_hi) /* a bad record before id ended the run: no window */
		it->good_hi = 0;
}

int umt__thread_iter_step(umt_thread_iter *it, umt_rec *out)
{
	if (it == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_thread_iter_next: invalid argument");
	if (it->next_id == -1)
		return 0;
	int rc = 0;
	if (it->prev_id >= 0)
		rc = check_link(it);
	if (rc == 0)
		rc = umt_exec_get(it->trace, (uint64_t)it->next_id, out);
	if (rc == 0 && it->thread_id != THREAD_UNKNOWN && out->thread_id != it->thread_id)
		rc = umt__fail(UMT_E_CORRUPT, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		               (uint64_t)(it->prev_id >= 0 ? it->prev_id : it->next_id),
		               (uint64_t)(it->prev_id >= 0 ? it->prev_id : it->next_id) *
		                       sizeof(umt_prev_next),
		               "chain of thread %lld reaches record %lld of thread %d",
		               (long long)it->thread_id, (long long)it->next_id, out->thread_id);
	if (rc < 0) {
		it->next_id = -1;
		it->good_hi = 0;
		return rc;
	}
	uint64_t id = out->id;
	it->thread_id = out->thread_id;
	it->sparse = !thread_holds(it->trace, it->thread_id, SPARSE);
	set_window(it, id);
	it->prev_id = (int64_t)id;
	int64_t link;
	memcpy(&link, it->links + id * sizeof(umt_prev_next), sizeof link);
	it->next_id = link;
	/* as the inline path: it goes on when the link leads ahead into the window */
	if (it->direction == UMT_FORWARD ? (uint64_t)link <= id || (uint64_t)link >= it->good_hi
	                                 : (uint64_t)link >= id || (uint64_t)link < it->good_lo)
		it->good_hi = 0;
	else if (it->sparse)
		umt__thread_iter_prefetch(it, id);
	return 1;
}
