/*
 * The results of a memory history query as rows of a numpy structured
 * array. A query opens, fills its first chunk and, when that holds the
 * whole answer, closes in one call: a short query ("who last wrote A
 * before N") then costs Python one C call.
 */
#include "umtpy.h"

int64_t umtpy_history_fill(umt_history *h, const uint8_t *records, umtpy_access_row *rows,
                           uint64_t cap)
{
	umt_access a;
	uint64_t n = 0;
	while (n < cap) {
		int rc = umt_history_next(h, &a);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		umtpy_access_put(&rows[n++], &a, records);
	}
	return (int64_t)n;
}

int64_t umtpy_history_first(const umt_index *ix, uint64_t address, uint64_t length,
                            uint64_t from, uint64_t to, unsigned kinds, int64_t thread,
                            int reverse, uint64_t limit, const uint8_t *records,
                            umtpy_access_row *rows, uint64_t cap, umt_history **more)
{
	umt_history_query q;
	umt_history *h;
	umt_history_query_init(&q, address, length);
	q.from = from;
	q.to = to;
	q.kinds = kinds;
	q.thread = thread;
	q.reverse = reverse;
	q.limit = limit;
	*more = NULL;
	int rc = umt_history_open(ix, &q, &h);
	if (rc < 0)
		return rc;
	int64_t n = umtpy_history_fill(h, records, rows, cap);
	if (n < 0 || (uint64_t)n < cap || (uint64_t)n == limit)
		umt_history_close(h); /* the whole answer, or an error */
	else
		*more = h;
	return n;
}
