/*
 * The memory accesses of a range of records as rows of a numpy structured
 * array: the record iterator and the access iterator of umtrace.h section
 * 8b, resumable between calls so that Python can fill fixed-size chunks.
 */
#include <string.h>

#include "umtpy.h"

void umtpy_access_put(umtpy_access_row *row, const umt_access *a, const uint8_t *records)
{
	row->id = a->record_id;
	row->address = a->address;
	row->size = a->size;
	row->data_offset = (uint64_t)(a->data - records);
	row->thread = a->thread_id;
	row->locator = a->locator;
	row->reg_name = (uint16_t)a->reg_name;
	row->kind = a->kind;
	row->phase = a->phase;
	row->trust = a->trust;
	row->addr_width = a->addr_width;
	row->pad[0] = row->pad[1] = 0;
}

int umtpy_access_scan_init(umtpy_access_scan *s, const umt_trace *t, uint64_t begin,
                           uint64_t end, unsigned kinds, int skip_bad)
{
	memset(s, 0, sizeof *s);
	if (kinds == 0 || (kinds & ~UMT_ACCESS_ALL) != 0)
		return UMT_E_INVAL;
	s->kinds = kinds;
	s->skip_bad = skip_bad;
	return umt_exec_iter_init(&s->recs, t, begin, end);
}

/* Starts the next record's accesses: 1 started, 0 no records left, < 0 a bad record. */
static int next_record(umtpy_access_scan *s, uint64_t *failed)
{
	umt_rec r;
	int rc = umt_exec_iter_next(&s->recs, &r);
	if (rc < 0) /* the iterator moved past the bad record */
		*failed = s->recs.next_id - 1;
	if (rc <= 0)
		return rc;
	rc = umt_access_iter_init(&s->acc, s->recs.trace, &r, s->kinds);
	if (rc < 0) {
		*failed = r.id;
		return rc;
	}
	s->current = r.id;
	s->in_record = 1;
	return 1;
}

int64_t umtpy_access_scan_next(umtpy_access_scan *s, umtpy_access_row *rows, uint64_t cap,
                               uint64_t *failed)
{
	uint64_t n = 0;
	umt_access a;
	while (n < cap) {
		if (!s->in_record) {
			int rc = next_record(s, failed);
			if (rc == 0)
				break;
			if (rc < 0) {
				if (s->skip_bad)
					continue;
				return rc;
			}
		}
		int rc = umt_access_iter_next(&s->acc, &a);
		if (rc == 0) {
			s->in_record = 0;
		} else if (rc < 0) { /* the iterator moved past the bad block */
			if (!s->skip_bad) {
				*failed = s->current;
				return rc;
			}
		} else {
			umtpy_access_put(&rows[n++], &a, s->recs.records);
		}
	}
	return (int64_t)n;
}
