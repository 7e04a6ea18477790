/* The results of a memory history query as rows of a numpy structured array. */
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
