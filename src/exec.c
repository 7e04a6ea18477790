/*
 * libumtrace - the execution table: exec.vtable, exec.offsets and
 * exec.prev_next.column. Record views, typed accessors, register contexts
 * and iterators in record order and thread order.
 *
 * The per-record path is a few loads and compares: two offsets, one
 * branch for the extent and one table lookup for the type's minimum size.
 * Everything else (messages) happens only on failure.
 */
#include "internal.h"

#define U64_NONE UINT64_MAX

/*
 * Minimum bytes of a record by type, stored complemented so that the zero
 * of every undefined entry reads as UINT64_MAX: no record is that large, so
 * one compare rejects both short records and unknown types.
 */
const uint64_t umt__rec_min_size_inv[256] = {
	[UMT_REC_INSTRUCTION] = ~(uint64_t)UMT_EXEC_MIN_INSTRUCTION,
	[UMT_REC_THREAD_BEGIN] = ~(uint64_t)UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_THREAD_END] = ~(uint64_t)UMT_EXEC_MIN_EXIT,
	[UMT_REC_APP_END] = ~(uint64_t)UMT_EXEC_MIN_EXIT,
	[UMT_REC_SYSCALL_ENTRY] = ~(uint64_t)UMT_EXEC_MIN_SYSCALL,
	[UMT_REC_SYSCALL_EXIT] = ~(uint64_t)UMT_EXEC_MIN_SYSCALL,
	[UMT_REC_SYSCALL_SKIPPED] = ~(uint64_t)UMT_EXEC_MIN_SKIPPED,
	[UMT_REC_CTX_APC] = ~(uint64_t)UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_EXCEPTION] = ~(uint64_t)UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_CALLBACK] = ~(uint64_t)UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_UNKNOWN] = ~(uint64_t)UMT_EXEC_MIN_CONTEXT,
};

static const char *const type_names[UMT_REC_TYPE_LIMIT] = {
	[UMT_REC_INSTRUCTION] = "instruction",
	[UMT_REC_THREAD_BEGIN] = "thread-begin",
	[UMT_REC_THREAD_END] = "thread-end",
	[UMT_REC_APP_END] = "app-end",
	[UMT_REC_SYSCALL_ENTRY] = "syscall-entry",
	[UMT_REC_SYSCALL_EXIT] = "syscall-exit",
	[UMT_REC_SYSCALL_SKIPPED] = "syscall-skipped",
	[UMT_REC_CTX_APC] = "ctx-apc",
	[UMT_REC_CTX_EXCEPTION] = "ctx-exception",
	[UMT_REC_CTX_CALLBACK] = "ctx-callback",
	[UMT_REC_CTX_UNKNOWN] = "ctx-unknown",
};

const char *umt_rec_type_name(int type)
{
	if (type < 0 || type >= UMT_REC_TYPE_LIMIT)
		return NULL;
	return type_names[type];
}

int umt_rec_type_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < UMT_REC_TYPE_LIMIT; i++)
		if (type_names[i] && strcmp(type_names[i], name) == 0)
			return i;
	return -1;
}

const char *umt_exec_flag_name(int exec_version, unsigned bit)
{
	static const char *const common[4] = {"64bit", "instr-off", "not-executed", "rep-first"};
	static const char *const v0[4] = {"exc-input", "exc-execute", "exc-output", "internal-error"};
	static const char *const v1[4] = {"bad-inputs", "bad-outputs", "fault", "aborted"};
	if (bit == 0 || bit > 0x80 || (bit & (bit - 1)) != 0)
		return NULL;
	int i = __builtin_ctz(bit);
	if (i < 4)
		return common[i];
	if (exec_version == 0)
		return v0[i - 4];
	if (exec_version == 1)
		return v1[i - 4];
	return NULL;
}

int umt_rec_type_has_context(int type)
{
	switch (type) {
	case UMT_REC_THREAD_BEGIN:
	case UMT_REC_SYSCALL_ENTRY:
	case UMT_REC_SYSCALL_EXIT:
	case UMT_REC_CTX_APC:
	case UMT_REC_CTX_EXCEPTION:
	case UMT_REC_CTX_CALLBACK:
	case UMT_REC_CTX_UNKNOWN:
		return 1;
	default:
		return 0;
	}
}

/* ---- record views ------------------------------------------------------- */

/* Cold path of umt__exec_fill: says precisely what is wrong. */
static int __attribute__((noinline, cold))
bad_record(const umt_trace *t, uint64_t id, uint64_t begin, uint64_t end)
{
	if (end < begin)
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_EXEC_OFFSETS, UMT_LOC_RECORD, id, id * 8,
		                 "offsets decrease (0x%llx, then 0x%llx)", (unsigned long long)begin,
		                 (unsigned long long)end);
	if (begin < sizeof(umt_exec_vtable_header))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS, UMT_LOC_RECORD, id, id * 8,
		                 "offset 0x%llx points into the exec.vtable header",
		                 (unsigned long long)begin);
	if (end > t->exec_size)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin,
		                 "record ends at 0x%llx, past the end of the file (%llu bytes)",
		                 (unsigned long long)end, (unsigned long long)t->exec_size);
	uint64_t size = end - begin;
	if (size < UMT_EXEC_MIN_HDR)
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin,
		                 "record of %llu bytes is shorter than the 6-byte execRec header",
		                 (unsigned long long)size);
	uint8_t type = t->exec_records[begin + 4];
	if (umt__rec_min_size(type) == U64_NONE)
		return umt__fail(UMT_E_TYPE, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin + 4,
		                 "unknown record type %u", type);
	return umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin,
	                 "%s record of %llu bytes is shorter than the %llu bytes its type needs",
	                 type_names[type], (unsigned long long)size,
	                 (unsigned long long)umt__rec_min_size(type));
}

int umt__exec_fill(const umt_trace *t, uint64_t id, uint64_t begin, uint64_t end, umt_rec *out)
{
	/* One branch for the extent, one for the type: end >= begin + 6 implies
	 * the header and the type byte are inside. */
	if (UMT_UNLIKELY((begin < sizeof(umt_exec_vtable_header)) | (end > t->exec_size) |
	                 (end < begin + UMT_EXEC_MIN_HDR) | (end < begin)))
		return bad_record(t, id, begin, end);
	const uint8_t *p = t->exec_records + begin;
	const umt_exec_rec_hdr *h = (const umt_exec_rec_hdr *)p;
	uint64_t size = end - begin;
	if (UMT_UNLIKELY(size < umt__rec_min_size(h->Type)))
		return bad_record(t, id, begin, end);
	out->data = p;
	out->size = size;
	out->id = id;
	out->offset = begin;
	out->thread_id = h->ThreadID;
	out->type = h->Type;
	out->flags = h->Flags;
	return 0;
}

int umt_exec_get(const umt_trace *t, uint64_t id, umt_rec *out)
{
	if (UMT_UNLIKELY(t == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_exec_get: invalid argument");
	if (UMT_UNLIKELY(id >= t->exec_count))
		return umt__failf(UMT_E_RANGE, "record %llu is out of range (%llu records)",
		                  (unsigned long long)id, (unsigned long long)t->exec_count);
	const uint8_t *o = t->exec_offsets + id * 8;
	return umt__exec_fill(t, id, umt__ld64(o), umt__ld64(o + 8), out);
}

/* ---- typed accessors ---------------------------------------------------- */

static int __attribute__((noinline, cold)) wrong_type(const umt_rec *r, const char *want)
{
	const char *have = umt_rec_type_name(r->type);
	return umt__fail(UMT_E_INVAL, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, r->offset,
	                 "%s record, not %s", have ? have : "unknown", want);
}

int umt_rec_ins(const umt_rec *r, int64_t *ins_id, const uint8_t **lc, uint64_t *lc_size)
{
	if (UMT_UNLIKELY(r == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_ins: invalid argument");
	if (UMT_UNLIKELY(r->type != UMT_REC_INSTRUCTION))
		return wrong_type(r, "an instruction");
	const umt_exec_ins *e = (const umt_exec_ins *)r->data;
	if (ins_id)
		*ins_id = e->InsID;
	if (lc)
		*lc = r->data + sizeof(umt_exec_ins);
	if (lc_size)
		*lc_size = r->size - sizeof(umt_exec_ins);
	return 0;
}

int umt_rec_syscall_id(const umt_rec *r, int64_t *syscall_id)
{
	if (UMT_UNLIKELY(r == NULL || syscall_id == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_syscall_id: invalid argument");
	if (UMT_UNLIKELY(r->type < UMT_REC_SYSCALL_ENTRY || r->type > UMT_REC_SYSCALL_SKIPPED))
		return wrong_type(r, "a syscall");
	*syscall_id = ((const umt_exec_skipped *)r->data)->SyscallID;
	return 0;
}

int umt_rec_exit_code(const umt_rec *r, int32_t *exit_code)
{
	if (UMT_UNLIKELY(r == NULL || exit_code == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_exit_code: invalid argument");
	if (UMT_UNLIKELY(r->type != UMT_REC_THREAD_END && r->type != UMT_REC_APP_END))
		return wrong_type(r, "a thread-end or app-end");
	*exit_code = ((const umt_exec_exit *)r->data)->ExitCode;
	return 0;
}

/* ---- register contexts -------------------------------------------------- */

int umt_rec_context(const umt_trace *t, const umt_rec *r, umt_context *out)
{
	if (UMT_UNLIKELY(t == NULL || r == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_context: invalid argument");
	if (!umt_rec_type_has_context(r->type))
		return wrong_type(r, "a record with a register context");
	uint64_t at = (r->type == UMT_REC_SYSCALL_ENTRY || r->type == UMT_REC_SYSCALL_EXIT)
	                      ? offsetof(umt_exec_syscall, Context)
	                      : offsetof(umt_exec_context, Context);
	/* The type's minimum size guarantees the 16-byte rmContext header. */
	const umt_rm_context *c = (const umt_rm_context *)(r->data + at);
	uint64_t avail = r->size - at, file_off = r->offset + at;
	uint64_t dump = t->cmap->DumpSize;
	if (c->MemCount < 0 || (uint64_t)c->MemCount > (avail - sizeof *c) / sizeof(umt_context_mem))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, file_off,
		                 "rmContext MemCount %d does not fit in the record (%llu bytes left)",
		                 c->MemCount, (unsigned long long)avail);
	if (c->RegsFP < 0 || !umt__span_ok((uint64_t)c->RegsFP, dump, avail))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id,
		                 file_off + 8,
		                 "rmContext RegsFP 0x%llx + DumpSize %llu points past the record (%llu bytes left)",
		                 (unsigned long long)c->RegsFP, (unsigned long long)dump,
		                 (unsigned long long)avail);
	out->base = (const uint8_t *)c;
	out->regs = out->base + c->RegsFP;
	out->avail = avail;
	out->record_id = r->id;
	out->offset = file_off;
	out->regs_size = (uint32_t)dump;
	out->mem_count = (uint32_t)c->MemCount;
	out->is_64bit = umt_rec_is_64bit(r);
	return 0;
}

int umt_context_mem_get(const umt_context *c, uint32_t index, umt_mem_ref *out)
{
	if (UMT_UNLIKELY(c == NULL || out == NULL || c->base == NULL))
		return umt__failf(UMT_E_INVAL, "umt_context_mem_get: invalid argument");
	if (UMT_UNLIKELY(index >= c->mem_count))
		return umt__failf(UMT_E_RANGE, "memory reference %u is out of range (%u)", index,
		                  c->mem_count);
	uint64_t at = sizeof(umt_rm_context) + (uint64_t)index * sizeof(umt_context_mem);
	const umt_context_mem *m = (const umt_context_mem *)(c->base + at);
	if (m->Size < 0 || m->DataFP < 0 ||
	    !umt__span_ok((uint64_t)m->DataFP, (uint64_t)m->Size, c->avail))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, c->record_id,
		                 c->offset + at,
		                 "contextMem %u: DataFP 0x%llx, Size %lld points past the record (%llu bytes from the rmContext)",
		                 index, (unsigned long long)m->DataFP, (long long)m->Size,
		                 (unsigned long long)c->avail);
	out->address = (uint64_t)m->Address;
	out->size = (uint64_t)m->Size;
	out->data = c->base + m->DataFP;
	return 0;
}

/* ---- iterator in record order ------------------------------------------- */

int umt_exec_iter_init(umt_exec_iter *it, const umt_trace *t, uint64_t begin, uint64_t end)
{
	if (it == NULL || t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_iter_init: invalid argument");
	if (begin > t->exec_count)
		return umt__failf(UMT_E_RANGE, "record %llu is out of range (%llu records)",
		                  (unsigned long long)begin, (unsigned long long)t->exec_count);
	it->trace = t;
	it->offsets = t->exec_offsets;
	it->records = t->exec_records;
	it->records_size = t->exec_size;
	it->next_id = begin;
	it->end_id = end < t->exec_count ? end : t->exec_count;
	return 0;
}

int umt_exec_iter_next(umt_exec_iter *it, umt_rec *out)
{
	uint64_t id = it->next_id;
	if (id >= it->end_id)
		return 0;
	it->next_id = id + 1;
	const uint8_t *o = it->offsets + id * 8;
	int rc = umt__exec_fill(it->trace, id, umt__ld64(o), umt__ld64(o + 8), out);
	return rc < 0 ? rc : 1;
}

/* ---- iterator along a thread -------------------------------------------- */

#define THREAD_UNKNOWN INT64_MIN

int umt_exec_links(const umt_trace *t, uint64_t id, int64_t *prev, int64_t *next)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_links: invalid argument");
	if (id >= t->exec_count)
		return umt__failf(UMT_E_RANGE, "record %llu is out of range (%llu records)",
		                  (unsigned long long)id, (unsigned long long)t->exec_count);
	const uint8_t *pn = umt__prev_next(t);
	if (pn == NULL)
		return UMT_E_IO; /* message set by the mapping */
	const umt_prev_next *e = (const umt_prev_next *)(pn + id * sizeof(umt_prev_next));
	if (prev)
		*prev = e->Prev;
	if (next)
		*next = e->Next;
	return 0;
}

int umt_thread_iter_init(umt_thread_iter *it, const umt_trace *t, uint64_t start_id,
                         int direction)
{
	if (it == NULL || t == NULL || (direction != UMT_FORWARD && direction != UMT_BACKWARD))
		return umt__failf(UMT_E_INVAL, "umt_thread_iter_init: invalid argument");
	if (start_id >= t->exec_count)
		return umt__failf(UMT_E_RANGE, "record %llu is out of range (%llu records)",
		                  (unsigned long long)start_id, (unsigned long long)t->exec_count);
	if (umt__prev_next(t) == NULL)
		return UMT_E_IO;
	it->trace = t;
	it->next_id = (int64_t)start_id;
	it->prev_id = -1;
	it->thread_id = THREAD_UNKNOWN;
	it->direction = direction;
	return 0;
}

int umt_thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t, uint64_t thread)
{
	const umt_thread_rec *row;
	int rc = umt_thread_get(t, thread, &row);
	if (rc < 0 || it == NULL)
		return rc < 0 ? rc : umt__failf(UMT_E_INVAL, "umt_thread_iter_init_thread: invalid argument");
	int64_t first = row->FirstEID;
	if (first != -1 && (first < 0 || (uint64_t)first >= t->exec_count))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_THREAD, UMT_LOC_ROW, thread,
		                 t->thread.table_fp + thread * t->thread.row_size + 16,
		                 "FirstEID %lld is outside the execution table (%llu records)",
		                 (long long)first, (unsigned long long)t->exec_count);
	if (first == -1) {
		it->trace = t;
		it->next_id = -1;
		it->prev_id = -1;
		it->thread_id = (int64_t)thread;
		it->direction = UMT_FORWARD;
		return 0;
	}
	rc = umt_thread_iter_init(it, t, (uint64_t)first, UMT_FORWARD);
	it->thread_id = (int64_t)thread;
	return rc;
}

/* Checks the link that led from prev_id to next_id. */
static int check_link(const umt_thread_iter *it)
{
	const umt_trace *t = it->trace;
	int64_t from = it->prev_id, to = it->next_id;
	bool fwd = it->direction == UMT_FORWARD;
	uint64_t at = (uint64_t)from * sizeof(umt_prev_next) + (fwd ? 8 : 0);
	if (to < 0 || (uint64_t)to >= t->exec_count)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		                 (uint64_t)from, at, "%s link %lld is outside the table (%llu records)",
		                 fwd ? "Next" : "Prev", (long long)to,
		                 (unsigned long long)t->exec_count);
	if (fwd ? to <= from : to >= from)
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		                 (uint64_t)from, at, "%s link %lld does not %s", fwd ? "Next" : "Prev",
		                 (long long)to, fwd ? "increase" : "decrease");
	return 0;
}

int umt_thread_iter_next(umt_thread_iter *it, umt_rec *out)
{
	if (it->next_id == -1)
		return 0;
	int rc = 0;
	if (it->prev_id >= 0)
		rc = check_link(it);
	if (rc == 0)
		rc = umt_exec_get(it->trace, (uint64_t)it->next_id, out);
	if (rc == 0 && it->thread_id != THREAD_UNKNOWN && out->thread_id != it->thread_id)
		rc = umt__fail(UMT_E_CORRUPT, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_RECORD,
		               (uint64_t)(it->prev_id >= 0 ? it->prev_id : it->next_id),
		               (uint64_t)(it->prev_id >= 0 ? it->prev_id : it->next_id) *
		                       sizeof(umt_prev_next),
		               "chain of thread %lld reaches record %lld of thread %d",
		               (long long)it->thread_id, (long long)it->next_id, out->thread_id);
	if (rc < 0) {
		it->next_id = -1;
		return rc;
	}
	it->thread_id = out->thread_id;
	it->prev_id = it->next_id;
	const umt_prev_next *e = (const umt_prev_next *)(umt__prev_next(it->trace) +
	                                                  out->id * sizeof(umt_prev_next));
	it->next_id = it->direction == UMT_FORWARD ? e->Next : e->Prev;
	return 1;
}
