/*
 * The C loops the benchmark (bench/python_bench.py) compares Python with,
 * measured in the same process on the same mapping.
 */
#include "umtpy.h"

uint64_t umtpy_ref_block_scan(const umt_trace *t, uint64_t begin, uint64_t end)
{
	/* bench/umtbench.c scan_block(), statement for statement */
	umt_exec_iter it;
	umt_exec_block b;
	uint64_t acc = 0;
	umt_exec_iter_init(&it, t, begin, end);
	int n;
	while ((n = umt_exec_iter_next_block(&it, &b, 4096)) != 0) {
		for (int i = 0; i < n; i++) {
			const umt_exec_rec_hdr *h = (const umt_exec_rec_hdr *)umt_block_data(&b, (uint32_t)i);
			acc += (uint64_t)h->ThreadID + h->Type + h->Flags;
			if (h->Type == UMT_REC_INSTRUCTION)
				acc += (uint64_t)((const umt_exec_ins *)h)->InsID;
		}
	}
	return acc;
}

int64_t umtpy_ref_history(const umt_index *ix, const uint64_t *addresses, const uint64_t *to,
                          uint64_t n, uint64_t length, unsigned kinds, int reverse, uint64_t limit)
{
	int64_t total = 0;
	for (uint64_t i = 0; i < n; i++) {
		umt_history_query q;
		umt_history *h;
		umt_access a;
		umt_history_query_init(&q, addresses[i], length);
		q.to = to[i];
		q.kinds = kinds;
		q.reverse = reverse;
		q.limit = limit;
		int rc = umt_history_open(ix, &q, &h);
		if (rc < 0)
			return rc;
		while ((rc = umt_history_next(h, &a)) > 0)
			total++;
		umt_history_close(h);
		if (rc < 0)
			return rc;
	}
	return total;
}

int umtpy_ref_mem(const umt_index *ix, const uint64_t *at, const uint64_t *addresses,
                  uint64_t n, uint64_t length, uint8_t *data, uint8_t *known, uint64_t *sources)
{
	for (uint64_t i = 0; i < n; i++) {
		int rc = umt_mem_at(ix, at[i], addresses[i], length, data, known, sources);
		if (rc < 0)
			return rc;
	}
	return 0;
}
