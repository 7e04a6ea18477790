/*
 * libumtrace - the identity of the trace an index belongs to, and the
 * index header's checksum.
 *
 * An index is stale when any trace file's size, modification time or
 * presence differs from what the build saw, or when the first bytes of a
 * file (which hold every header) differ: the record count and every table
 * geometry are in them.
 */
#include "ixint.h"

int umt__ix_identity(const umt_trace *t, umt_ix_trace_identity *out)
{
	memset(out, 0, sizeof *out);
	out->RecordCount = umt_exec_count(t);
	uint64_t sum = UMT_FNV_SEED;
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		umt_file_stamp s;
		int rc = umt_trace_file_stamp(t, f, &s);
		if (rc < 0)
			return rc;
		out->Files[f].Size = s.size;
		out->Files[f].MtimeSec = s.mtime_sec;
		out->Files[f].MtimeNsec = s.mtime_nsec;
		out->Files[f].Present = (uint64_t)(s.present != 0);
		sum = umt__fnv(sum, s.head, s.head_size);
	}
	out->HeaderSum = sum;
	return 0;
}

uint64_t umt__ix_header_sum(const umt_ix_header *h)
{
	umt_ix_header c;
	memcpy(&c, h, sizeof c);
	c.HeaderSum = 0;
	return umt__fnv(UMT_FNV_SEED, &c, sizeof c);
}
