/*
 * Columns of records: one pass of the block iterator writing the wanted
 * fields of every record into numpy arrays. The per-row facts of the
 * instruction table (address, mnemonic...) come from a cache filled once,
 * so a record costs its own bytes and one indexed load per column.
 */
#include <string.h>

#include "umtpy.h"

void umtpy_ins_cache_fill(const umt_trace *t, uint64_t count, uint64_t *address,
                          int16_t *mnemonic, int16_t *category, int16_t *form, int32_t *module,
                          int32_t *status)
{
	for (uint64_t i = 0; i < count; i++) {
		const umt_ins_rec *row;
		umt_decoded d;
		address[i] = 0;
		module[i] = -1;
		mnemonic[i] = category[i] = form[i] = -1;
		int rc = umt_ins_get(t, i, &row);
		if (rc == 0) {
			address[i] = (uint64_t)row->Address;
			module[i] = row->ModuleID;
			rc = umt_ins_decoded(t, i, &d);
		}
		if (rc == 0) {
			mnemonic[i] = d.ins->Mnemonic;
			category[i] = d.ins->Category;
			form[i] = d.ins->Form;
		}
		status[i] = rc;
	}
}

/*
 * The columns of one record: @p p its bytes (at least its type's minimum
 * size). Callers pass copies of the column and cache structs held in local
 * variables: a byte store (type, flags) may alias anything, and through a
 * caller's struct the compiler would reload every column pointer after it.
 */
static inline void put_row(const umtpy_cols *out, uint64_t row, uint64_t id, const uint8_t *p,
                           uint64_t offset, uint64_t size, const umtpy_ins_cache *cache)
{
	const umt_exec_rec_hdr *h = (const umt_exec_rec_hdr *)p;
	uint8_t type = h->Type;
	int64_t ins = -1, sys = -1;
	int32_t exit_code = 0;
	if (type == UMT_REC_INSTRUCTION)
		ins = ((const umt_exec_ins *)p)->InsID;
	else if (type == UMT_REC_SYSCALL_ENTRY || type == UMT_REC_SYSCALL_EXIT ||
	         type == UMT_REC_SYSCALL_SKIPPED)
		sys = ((const umt_exec_skipped *)p)->SyscallID; /* at offset 6 in the three types */
	else if (type == UMT_REC_THREAD_END || type == UMT_REC_APP_END)
		exit_code = ((const umt_exec_exit *)p)->ExitCode;
	if (out->id)
		out->id[row] = id;
	if (out->thread)
		out->thread[row] = h->ThreadID;
	if (out->type)
		out->type[row] = type;
	if (out->flags)
		out->flags[row] = h->Flags;
	if (out->offset)
		out->offset[row] = offset;
	if (out->size)
		out->size[row] = size;
	if (out->ins_id)
		out->ins_id[row] = ins;
	if (out->syscall_id)
		out->syscall_id[row] = sys;
	if (out->exit_code)
		out->exit_code[row] = exit_code;
	if (out->ok)
		out->ok[row] = 1;
	if (cache == NULL)
		return;
	/* one unsigned compare: -1 (no instruction) and rows past the table miss */
	int hit = (uint64_t)ins < cache->count;
	uint64_t k = hit ? (uint64_t)ins : 0;
	if (out->address)
		out->address[row] = hit ? cache->address[k] : 0;
	if (out->mnemonic)
		out->mnemonic[row] = hit ? cache->mnemonic[k] : -1;
	if (out->category)
		out->category[row] = hit ? cache->category[k] : -1;
	if (out->form)
		out->form[row] = hit ? cache->form[k] : -1;
	if (out->module)
		out->module[row] = hit ? cache->module[k] : -1;
}

/* The row of a bad record: no type, no thread, nothing else (by value: see put_row()). */
static void put_bad(umtpy_cols out, uint64_t row, uint64_t id)
{
	static const uint8_t none[UMT_EXEC_MIN_HDR] = {0xff, 0xff, 0xff, 0xff, 0xff, 0};
	static const umtpy_ins_cache no_rows = {0, NULL, NULL, NULL, NULL, NULL};
	put_row(&out, row, id, none, 0, 0, &no_rows);
	if (out.ok)
		out.ok[row] = 0;
}

int64_t umtpy_columns(const umt_trace *t, uint64_t begin, uint64_t end,
                      const umtpy_ins_cache *cache, const umtpy_cols *out, int skip_bad,
                      uint64_t *failed)
{
	umt_exec_iter it;
	umt_exec_block b;
	const umtpy_cols cols = *out; /* locals, see put_row() */
	const umtpy_ins_cache rows = cache ? *cache : (umtpy_ins_cache){0, NULL, NULL, NULL, NULL, NULL};
	int rc = umt_exec_iter_init(&it, t, begin, end);
	if (rc < 0)
		return rc;
	end = it.end_id;
	while ((rc = umt_exec_iter_next_block(&it, &b, 4096)) != 0) {
		if (rc < 0) { /* the iterator moved past the bad record */
			uint64_t bad = it.next_id - 1;
			if (!skip_bad) {
				*failed = bad;
				return rc;
			}
			put_bad(cols, bad - begin, bad);
			continue;
		}
		uint64_t row = b.first - begin;
		for (uint32_t i = 0; i < (uint32_t)rc; i++) {
			uint64_t off;
			memcpy(&off, b.offsets + (uint64_t)i * 8, sizeof off);
			put_row(&cols, row + i, b.first + i, b.records + off, off, umt_block_size(&b, i),
			        cache ? &rows : NULL);
		}
	}
	return (int64_t)(end - begin);
}

int64_t umtpy_chain_fill(umt_thread_iter *it, const umtpy_ins_cache *cache,
                         const umtpy_cols *out, uint64_t cap, int *status)
{
	umt_rec r;
	uint64_t n = 0;
	const umtpy_cols cols = *out; /* locals, see put_row() */
	const umtpy_ins_cache rows = cache ? *cache : (umtpy_ins_cache){0, NULL, NULL, NULL, NULL, NULL};
	*status = 0;
	while (n < cap) {
		int rc = umt_thread_iter_next(it, &r);
		if (rc < 0)
			*status = rc;
		if (rc <= 0)
			break;
		put_row(&cols, n++, r.id, r.data, r.offset, r.size, cache ? &rows : NULL);
	}
	return (int64_t)n;
}
