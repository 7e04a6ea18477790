/*
 * libumtrace - thread.itable: rows by ID (stride RowSize: 40 in real
 * traces, 48 per the spec) and lookup by Windows thread ID.
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
