/*
 * libumtrace - what every register query starts with (regs.h): the latest
 * checkpoint of a thread before a record, and the replay of the thread's
 * records from it along the thread's prev/next chain (at most 2K - 1 of
 * them, K the checkpoint interval).
 */
#include "regs.h"

int umt__regs_thread_of(const umt_index *ix, const struct regs_data *d, uint64_t at,
                        uint64_t *thread)
{
	umt_rec r;
	int rc = umt_exec_get(ix->trace, at, &r);
	if (rc < 0)
		return rc;
	if (r.thread_id < 0 || (uint64_t)r.thread_id >= d->thread_count)
		return umt__failf(UMT_E_CORRUPT, "exec.vtable: record %llu: ThreadID %d is not a row "
		                  "of thread.itable: it has no register file", (unsigned long long)at,
		                  r.thread_id);
	*thread = (uint64_t)r.thread_id;
	return 0;
}

/* The row of @p thread, its entries checked to lie in the directory. */
static int thread_row(const struct regs_data *d, uint64_t thread, umt_ix_regs_thread *row)
{
	memcpy(row, &d->threads[thread], sizeof *row);
	if (row->FirstEntry > d->entry_count || row->Entries > d->entry_count - row->FirstEntry)
		return umt__regs_corrupt(UMT_IX_REGS_DIR, 64 + thread * sizeof *row,
		                         "thread %llu: entries [%llu, +%llu) outside the %llu checkpoints",
		                         (unsigned long long)thread,
		                         (unsigned long long)row->FirstEntry,
		                         (unsigned long long)row->Entries,
		                         (unsigned long long)d->entry_count);
	return 0;
}

static uint64_t entry_record(const struct regs_data *d, uint64_t i)
{
	uint64_t r;
	memcpy(&r, &d->entries[i].Record, 8);
	return r;
}

int umt__regs_find(const struct regs_data *d, uint64_t thread, uint64_t before, uint64_t *entry)
{
	umt_ix_regs_thread row;
	int rc = thread_row(d, thread, &row);
	if (rc < 0)
		return rc;
	uint64_t lo = row.FirstEntry, hi = row.FirstEntry + row.Entries; /* the last below before */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (entry_record(d, mid) < before)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == row.FirstEntry)
		return 0;
	*entry = lo - 1;
	return 1;
}

int umt__regs_next_entry(const struct regs_data *d, uint64_t thread, uint64_t cur,
                         uint64_t *entry)
{
	umt_ix_regs_thread row;
	int rc = thread_row(d, thread, &row);
	uint64_t e = row.FirstEntry;
	if (rc == 0 && cur != UMT_NO_RECORD && (rc = umt__regs_find(d, thread, cur + 1, &e)) > 0)
		e++;
	if (rc < 0)
		return rc;
	*entry = e;
	return e < row.FirstEntry + row.Entries;
}

int umt__regs_load(const struct regs_data *d, uint64_t entry, struct rstate *s, uint64_t *record)
{
	uint64_t off, len, at = 64 + d->thread_count * sizeof(umt_ix_regs_thread) + entry * 16;
	*record = entry_record(d, entry);
	memcpy(&off, &d->entries[entry].Offset, 8);
	if (off < 64 || off >= d->ckpt.size) /* checked before it makes a pointer */
		return umt__regs_corrupt(UMT_IX_REGS_DIR, at + 8, "checkpoint offset 0x%llx outside "
		                         "regs.ckpt", (unsigned long long)off);
	const uint8_t *p = d->ckpt.data + off, *end = d->ckpt.data + d->ckpt.size;
	if (!umt__get_varint(&p, end, &len) || len > (uint64_t)(end - p))
		return umt__regs_corrupt(UMT_IX_REGS_CKPT, off, "checkpoint length runs past the file");
	if (umt__rs_decode(p, len, *record, s) < 0)
		return umt__regs_corrupt(UMT_IX_REGS_CKPT, off, "checkpoint of record %llu: %s",
		                         (unsigned long long)*record, umt_errmsg());
	return 0;
}

int umt__regs_advance(const struct regs_data *d, uint64_t thread, uint64_t cur, uint64_t end,
                      struct rstate *s, regs_visit visit, void *arg, uint64_t *last)
{
	umt_ix_regs_thread row;
	memcpy(&row, &d->threads[thread], sizeof row);
	uint64_t from = cur == UMT_NO_RECORD ? row.FirstRecord : cur;
	*last = cur;
	if (from == UMT_NO_RECORD || from >= end)
		return 0;
	umt_thread_iter it;
	umt_rec r;
	int rc = umt_thread_iter_init(&it, d->ctx.t, from, UMT_FORWARD);
	while (rc == 0 && (rc = umt_thread_iter_next(&it, &r)) > 0) {
		rc = 0;
		if (r.id >= end)
			break;
		if (r.thread_id < 0 || (uint64_t)r.thread_id != thread)
			return umt__regs_corrupt(UMT_IX_REGS_DIR, 64 + thread * sizeof row,
			                         "thread %llu: its checkpoint or first record %llu is of "
			                         "thread %d", (unsigned long long)thread,
			                         (unsigned long long)from, r.thread_id);
		if (r.id == cur)
			continue; /* the state is after it */
		if ((rc = umt__regs_apply(&d->ctx, s, &r, -1)) < 0)
			return rc;
		*last = r.id;
		if (visit)
			rc = visit(arg, &r, s);
	}
	return rc < 0 ? rc : 0;
}

int umt__regs_replay(const struct regs_data *d, uint64_t thread, uint64_t before,
                     struct rstate *s, regs_visit visit, void *arg, uint64_t *last)
{
	uint64_t entry, cur = UMT_NO_RECORD;
	int rc = umt__regs_find(d, thread, before, &entry);
	if (rc > 0)
		rc = umt__regs_load(d, entry, s, &cur);
	else
		umt__rs_clear(s);
	if (rc < 0)
		return rc;
	return umt__regs_advance(d, thread, cur, before, s, visit, arg, last);
}
