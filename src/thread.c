/*
 * libumtrace - thread.itable: rows by ID (stride RowSize: 40 in real
 * traces, 48 per the spec) and lookup by Windows thread ID.
 */
#include "internal.h"

uint64_t umt_thread_count(const umt_trace *t)
{
	return t ? t->thread.count : 0;
}

int umt_thread_get(const umt_trace *t, uint64_t id, const umt_thread_rec **row)
{
	if (t == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_thread_get: invalid argument");
	if (id >= t->thread.count)
		return umt__failf(UMT_E_RANGE, "thread %llu is out of range (%llu threads)",
		                  (unsigned long long)id, (unsigned long long)t->thread.count);
	*row = (const umt_thread_rec *)(t->thread.rows + id * t->thread.row_size);
	return 0;
}
