/* The Zydis semantics of instruction rows [begin, end) into columns: one C
 * loop for Trace.semantics_table() (umt_sem_get() remembers each row). */
#include "umtpy.h"

int64_t umtpy_sem_rows(const umt_trace *t, uint64_t begin, uint64_t end, uint16_t *mnemonic,
                       uint8_t *category, uint8_t *zydis_category, uint8_t *flags,
                       uint8_t *length, uint64_t *target, uint64_t *failed)
{
	for (uint64_t i = begin; i < end; i++) {
		umt_sem s;
		int rc = umt_sem_get(t, i, &s);
		if (rc < 0) {
			*failed = i;
			return rc;
		}
		uint64_t k = i - begin;
		mnemonic[k] = s.mnemonic;
		category[k] = s.category;
		zydis_category[k] = s.zydis_category;
		flags[k] = s.flags;
		length[k] = s.length;
		target[k] = s.target;
	}
	return (int64_t)(end - begin);
}

int64_t umtpy_sem_pick(const umt_trace *t, const int64_t *rows, uint64_t n, uint16_t *mnemonic,
                       uint8_t *zydis_category, uint8_t *category, int32_t *status)
{
	for (uint64_t k = 0; k < n; k++) {
		umt_sem s;
		int rc = rows[k] < 0 ? UMT_E_RANGE : umt_sem_get(t, (uint64_t)rows[k], &s);
		status[k] = rc;
		mnemonic[k] = rc == 0 ? s.mnemonic : 0;
		zydis_category[k] = rc == 0 ? s.zydis_category : 0;
		category[k] = rc == 0 ? s.category : 0;
	}
	return (int64_t)n;
}
