/*
 * Instruction records per instruction row over a record range: the one
 * pass the coverage and the instruction mix need (everything else they
 * report follows from the row counts and the instruction table). A record
 * costs its header and InsID, and one increment in an array of the table's
 * size, instead of numpy's several passes over columns of every record.
 */
#include <string.h>

#include "umtpy.h"

int64_t umtpy_row_counts(const umt_trace *t, uint64_t begin, uint64_t end, int64_t *counts,
                         uint64_t rows, uint64_t *without, uint64_t *failed)
{
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t n = 0, lost = 0;
	int rc = umt_exec_iter_init(&it, t, begin, end);
	if (rc < 0)
		return rc;
	while ((rc = umt_exec_iter_next_block(&it, &b, 4096)) != 0) {
		if (rc < 0) { /* the iterator moved past the bad record */
			*failed = it.next_id - 1;
			return rc;
		}
		for (uint32_t i = 0; i < (uint32_t)rc; i++) {
			const uint8_t *p = umt_block_data(&b, i);
			if (((const umt_exec_rec_hdr *)p)->Type != UMT_REC_INSTRUCTION)
				continue;
			int64_t id;
			memcpy(&id, p + offsetof(umt_exec_ins, InsID), sizeof id);
			n++;
			if ((uint64_t)id < rows) /* one compare: -1 and rows past the table miss */
				counts[id]++;
			else
				lost++;
		}
	}
	*without = lost;
	return (int64_t)n;
}
