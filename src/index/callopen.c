/*
 * libumtrace - the calls section of an open index (calls.h): its files
 * mapped and checked in O(1) (sizes from the header's counts), the checked
 * accessors every query goes through (a row, a thread's entry), the public
 * view of a row, and the section's table of hooks (section.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "calls.h"

#define NONE UINT64_MAX
/* SectionInfo of bit 2 in index.umti */
#define INFO_OFFSET (offsetof(umt_ix_header, SectionInfo) + (UMT_IX_CALLS_BIT - 1) * 64)

/* ---- opening ------------------------------------------------------------------------------- */

/* The counts of the header agree with each other and give file sizes without overflow. */
static int check_info(const struct calls_data *d)
{
	const uint64_t *in = d->info, max_rows = (UINT64_MAX - 64) / sizeof(umt_ix_call_row);
	uint64_t ended = in[CALLS_INFO_RETURNED] + in[CALLS_INFO_ABANDONED];
	if (d->calls > max_rows || d->threads > d->calls || d->targets > d->calls ||
	    (d->calls > 0) != (d->threads > 0) || (d->calls > 0) != (d->targets > 0) ||
	    ended < in[CALLS_INFO_RETURNED] || ended + in[CALLS_INFO_OPEN] < ended ||
	    ended + in[CALLS_INFO_OPEN] != d->calls)
		return umt__ix_calls_corrupt("index.umti", INFO_OFFSET, "inconsistent calls counts");
	return 0;
}

static int map_file(umt_index *ix, const struct ix_source *src, const char *name,
                    const char *magic, uint64_t entries, uint64_t size, struct umt_map *m)
{
	int rc = umt__ix_map_section_file(ix, src, name, magic, m);
	if (rc == 0 && m->size != 64 + entries * size)
		rc = umt__ix_calls_corrupt(name, m->size < 64 + entries * size ? m->size : 64 + entries * size,
		                           "%llu bytes for %llu entries of %llu bytes",
		                           (unsigned long long)m->size, (unsigned long long)entries,
		                           (unsigned long long)size);
	return rc;
}

int umt__ix_calls_open(umt_index *ix, const struct ix_source *src,
                       const uint64_t info[UMT_IX_INFO_WORDS])
{
	struct calls_data *d = calloc(1, sizeof *d);
	if (d == NULL)
		return umt__failf(UMT_E_NOMEM, "index: out of memory");
	ix->section_data[UMT_IX_CALLS_BIT] = d; /* umt__ix_calls_close() frees it on failure */
	memcpy(d->info, info, sizeof d->info);
	d->calls = info[CALLS_INFO_CALLS];
	d->threads = info[CALLS_INFO_THREADS];
	d->targets = info[CALLS_INFO_TARGETS];
	int rc = check_info(d);
	if (rc == 0)
		rc = map_file(ix, src, UMT_IX_CALLS_TAB, "UMTCLTAB", d->calls, sizeof(umt_ix_call_row),
		              &d->tab);
	if (rc == 0)
		rc = map_file(ix, src, UMT_IX_CALLS_THR, "UMTCLTHR", d->threads,
		              sizeof(umt_ix_call_thread), &d->thr);
	if (rc == 0)
		rc = map_file(ix, src, UMT_IX_CALLS_TGT, "UMTCLTGT", d->targets,
		              sizeof(umt_ix_call_target), &d->tgt);
	if (rc == 0)
		rc = map_file(ix, src, UMT_IX_CALLS_BYT, "UMTCLBYT", d->calls, 8, &d->byt);
	if (rc < 0)
		return rc;
	d->rows = d->tab.data + 64;
	d->thread_dir = (const umt_ix_call_thread *)(d->thr.data + 64);
	d->target_dir = (const umt_ix_call_target *)(d->tgt.data + 64);
	d->by_target = d->byt.data + 64;
	return 0;
}

void umt__ix_calls_close(umt_index *ix)
{
	struct calls_data *d = ix->section_data[UMT_IX_CALLS_BIT];
	if (d == NULL)
		return;
	umt__unmap(&d->tab);
	umt__unmap(&d->thr);
	umt__unmap(&d->tgt);
	umt__unmap(&d->byt);
	free(d);
	ix->section_data[UMT_IX_CALLS_BIT] = NULL;
}

/* ---- checked accessors --------------------------------------------------------------------------- */

int umt__ix_call_row(const umt_index *ix, const struct calls_data *d, uint64_t row,
                     umt_ix_call_row *out)
{
	uint64_t at = 64 + row * sizeof *out, count = umt_exec_count(ix->trace);
	memset(out, 0, sizeof *out); /* a row that is not there reads as zeros */
	if (row >= d->calls)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, d->tab.size,
		                             "row %llu past the %llu calls", (unsigned long long)row,
		                             (unsigned long long)d->calls);
	memcpy(out, d->rows + row * sizeof *out, sizeof *out);
	unsigned end = UMT_IX_CALL_END(out->Flags);
	if (out->CallID >= count || out->Zero != 0 || (out->Flags & ~UMT_IX_CALL_FLAGS_MASK) ||
	    end > UMT_CALL_OPEN || (end == UMT_CALL_OPEN) != (out->EndID == NONE) ||
	    (out->EndID != NONE && (out->EndID <= out->CallID || out->EndID >= count)) ||
	    (out->Parent != NONE && out->Parent >= row) || (out->Parent == NONE) != (out->Depth == 0) ||
	    out->Length == 0 || out->Length > 15)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, at, "row %llu is not a call of this trace",
		                             (unsigned long long)row);
	return 0;
}

int umt__ix_call_thread_at(const struct calls_data *d, uint64_t i, umt_ix_call_thread *out)
{
	memcpy(out, &d->thread_dir[i], sizeof *out);
	if (out->Thread < 0 || out->Zero != 0 || out->Count == 0 || out->FirstRow > d->calls ||
	    out->Count > d->calls - out->FirstRow)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64 + i * sizeof *out,
		                             "entry %llu is not a thread's rows", (unsigned long long)i);
	return 0;
}

int umt__ix_call_thread_find(const struct calls_data *d, int64_t thread, umt_ix_call_thread *out)
{
	uint64_t lo = 0, hi = d->threads;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		int rc = umt__ix_call_thread_at(d, mid, out);
		if (rc < 0)
			return rc;
		if (out->Thread == thread)
			return 1;
		if (out->Thread < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int umt__ix_call_thread_of(const struct calls_data *d, uint64_t row, int32_t *thread)
{
	uint64_t lo = 0, hi = d->threads; /* the last entry whose FirstRow <= row */
	umt_ix_call_thread e = {0};
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		memcpy(&e, &d->thread_dir[mid], sizeof e);
		if (e.FirstRow <= row)
			lo = mid;
		else
			hi = mid;
	}
	int rc = d->threads ? umt__ix_call_thread_at(d, lo, &e) : 0;
	if (rc == 0 && (d->threads == 0 || row < e.FirstRow || row - e.FirstRow >= e.Count))
		rc = umt__ix_calls_corrupt(UMT_IX_CALLS_THR, 64, "no thread holds row %llu",
		                           (unsigned long long)row);
	*thread = rc == 0 ? e.Thread : -1;
	return rc;
}

int umt__ix_call_lower_bound(const umt_index *ix, const struct calls_data *d, uint64_t lo,
                             uint64_t hi, uint64_t id, uint64_t *out)
{
	(void)ix;
	if (lo > hi || hi > d->calls)
		return umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, 64, "rows [%llu, %llu) out of the table",
		                             (unsigned long long)lo, (unsigned long long)hi);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, call;
		memcpy(&call, d->rows + mid * sizeof(umt_ix_call_row), sizeof call);
		if (call < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo;
	return 0;
}

/* ---- the public view of a row ------------------------------------------------------------------- */

/* The module of @p address at record @p id and the offset in it. */
static void module_of(const umt_trace *t, uint64_t address, uint64_t id, int64_t *module,
                      uint64_t *offset)
{
	uint64_t m;
	const umt_module_rec *row;
	*module = -1;
	*offset = 0;
	if (umt_module_find(t, address, id, &m) == 0 && umt_module_get(t, m, &row) == 0) {
		*module = (int64_t)m;
		*offset = address - (uint64_t)row->StartAddr;
	}
}

int umt__ix_call_fill(const umt_index *ix, const struct calls_data *d, uint64_t row,
                      const umt_ix_call_row *cr, int32_t thread, umt_call *out)
{
	memset(out, 0, sizeof *out);
	out->parent = NONE;
	if (cr->Parent != NONE) {
		umt_ix_call_row p = {0};
		int rc = umt__ix_call_row(ix, d, cr->Parent, &p);
		if (rc < 0)
			return rc;
		if (p.CallID >= cr->CallID || p.Depth + 1 != cr->Depth)
			return umt__ix_calls_corrupt(UMT_IX_CALLS_TAB, 64 + row * sizeof *cr,
			                             "row %llu: its parent does not enclose it",
			                             (unsigned long long)row);
		out->parent = p.CallID;
	}
	out->id = cr->CallID;
	out->thread_id = thread;
	out->depth = cr->Depth;
	out->caller = cr->Caller;
	out->target = cr->Target;
	out->return_address = cr->Caller + cr->Length;
	out->end = (uint8_t)UMT_IX_CALL_END(cr->Flags);
	out->end_id = cr->EndID == NONE ? UMT_NO_RECORD : cr->EndID;
	out->return_id = out->end == UMT_CALL_RETURNED ? cr->EndID : UMT_NO_RECORD;
	out->target_source = (uint8_t)UMT_IX_CALL_SOURCE(cr->Flags);
	out->length = cr->Length;
	module_of(ix->trace, cr->Target, cr->CallID, &out->module, &out->module_offset);
	return 0;
}

int umt_calls_info_get(const umt_index *ix, umt_calls_info *out)
{
	if (ix == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_calls_info_get: invalid argument");
	const struct calls_data *d = umt__ix_calls(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	const uint64_t *in = d->info;
	*out = (umt_calls_info){in[CALLS_INFO_CALLS],    in[CALLS_INFO_THREADS],
	                        in[CALLS_INFO_TARGETS],  in[CALLS_INFO_RETURNED],
	                        in[CALLS_INFO_ABANDONED], in[CALLS_INFO_OPEN],
	                        in[CALLS_INFO_UNMATCHED], in[CALLS_INFO_IGNORED]};
	return 0;
}
