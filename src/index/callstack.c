/*
 * libumtrace - the call stack at a record, and a call by its record
 * (index.h sections 11 and 12).
 *
 * The stack of thread T before record N: the frames open at N are those of
 * T's last call before N and its ancestors that are still open. Every
 * operation of the matching rule pops from the top, so the frames under a
 * frame do not change while it is open: the stack at T's last call before
 * N is that call and its ancestors, and from there to N frames only close.
 * A binary search in T's rows finds the call, the parents lead up.
 */
#include "calls.h"

#define NONE UINT64_MAX

/* The thread's rows; 0 when it made no call. */
static int thread_rows(const struct calls_data *d, int64_t thread, umt_ix_call_thread *e)
{
	int rc = umt__ix_call_thread_find(d, thread, e);
	if (rc == 0)
		e->FirstRow = e->Count = 0;
	return rc < 0 ? rc : 0;
}

int umt_call_find(const umt_index *ix, uint64_t id, umt_call *out)
{
	umt_rec r;
	umt_ix_call_thread e = {0};
	umt_ix_call_row cr = {0};
	uint64_t row = 0;
	if (ix == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_call_find: invalid argument");
	const struct calls_data *d = umt__ix_calls(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	int rc = umt_exec_get(ix->trace, id, &r);
	if (rc == 0)
		rc = thread_rows(d, r.thread_id, &e);
	if (rc == 0)
		rc = umt__ix_call_lower_bound(ix, d, e.FirstRow, e.FirstRow + e.Count, id, &row);
	if (rc < 0)
		return rc;
	if (row == e.FirstRow + e.Count || (rc = umt__ix_call_row(ix, d, row, &cr)) < 0 ||
	    cr.CallID != id)
		return rc < 0 ? rc : umt__failf(UMT_E_NOT_FOUND, "record %llu: not a call of the index",
		                                (unsigned long long)id);
	return umt__ix_call_fill(ix, d, row, &cr, r.thread_id, out);
}

/* Frame @p f of call @p row at record @p at: the call, the module of its return address. */
static int frame_of(const umt_index *ix, const struct calls_data *d, uint64_t row,
                    const umt_ix_call_row *cr, int32_t thread, uint64_t at, umt_frame *f)
{
	int rc = umt__ix_call_fill(ix, d, row, cr, thread, &f->call);
	uint64_t m;
	const umt_module_rec *mr;
	f->module = -1;
	f->module_offset = 0;
	if (rc == 0 && umt_module_find(ix->trace, f->call.return_address, at, &m) == 0 &&
	    umt_module_get(ix->trace, m, &mr) == 0) {
		f->module = (int64_t)m;
		f->module_offset = f->call.return_address - (uint64_t)mr->StartAddr;
	}
	return rc;
}

/* Walks up from row @p row (the thread's last call before @p at), keeping the open frames. */
static int walk(const umt_index *ix, const struct calls_data *d, const umt_ix_call_thread *e,
                uint64_t row, uint64_t at, umt_frame *frames, size_t cap, size_t *depth)
{
	while (row != NONE) {
		umt_ix_call_row cr = {0};
		int rc = umt__ix_call_row(ix, d, row, &cr);
		if (rc == 0 && (row < e->FirstRow || cr.CallID >= at))
			rc = umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, 64 + row * sizeof cr,
			                           "row %llu: a parent outside its thread's calls",
			                           (unsigned long long)row);
		if (rc < 0)
			return rc;
		if (at <= cr.EndID) { /* open at the record (EndID NONE: open to the end) */
			if (*depth < cap && (rc = frame_of(ix, d, row, &cr, e->Thread, at,
			                                   &frames[*depth])) < 0)
				return rc;
			++*depth;
		}
		row = cr.Parent;
	}
	return 0;
}

int umt_stack_at(const umt_index *ix, uint64_t at, int64_t thread, umt_frame *frames,
                 size_t cap, size_t *depth)
{
	if (ix == NULL || depth == NULL || (frames == NULL && cap > 0))
		return umt__failf(UMT_E_INVAL, "umt_stack_at: invalid argument");
	*depth = 0;
	const struct calls_data *d = umt__ix_calls(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	umt_ix_call_thread e = {0};
	uint64_t pos = 0;
	int rc = 0;
	if (at >= umt_exec_count(ix->trace))
		return umt__failf(UMT_E_RANGE, "umt_stack_at: record %llu of %llu",
		                  (unsigned long long)at, (unsigned long long)umt_exec_count(ix->trace));
	if (thread < 0) {
		umt_rec r;
		if ((rc = umt_exec_get(ix->trace, at, &r)) < 0)
			return rc;
		thread = r.thread_id;
	}
	if ((rc = thread_rows(d, thread, &e)) == 0)
		rc = umt__ix_call_lower_bound(ix, d, e.FirstRow, e.FirstRow + e.Count, at, &pos);
	if (rc < 0 || pos == e.FirstRow)
		return rc; /* no call of the thread before the record */
	return walk(ix, d, &e, pos - 1, at, frames, cap, depth);
}
