/*
 * libumtrace - the execution table: exec.vtable, exec.offsets and
 * exec.prev_next.column. Record views, typed accessors, register contexts
 * and iterators in record order and thread order.
 *
 * The per-record path is a few loads and compares: two offsets, one
 * branch for the extent and one table lookup for the type's minimum size.
 * Everything else (messages) happens only on failure.
 * (The iterator along a thread's chain: thread.c.)
 */
#include <stdlib.h>

#include "internal.h"

#define U64_NONE UINT64_MAX

#define NONE UINT64_MAX
const uint64_t umt_rec_min_size_table[256] = {
	[UMT_REC_INSTRUCTION] = UMT_EXEC_MIN_INSTRUCTION,
	[UMT_REC_THREAD_BEGIN] = UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_THREAD_END] = UMT_EXEC_MIN_EXIT,
	[UMT_REC_APP_END] = UMT_EXEC_MIN_EXIT,
	[UMT_REC_SYSCALL_ENTRY] = UMT_EXEC_MIN_SYSCALL,
	[UMT_REC_SYSCALL_EXIT] = UMT_EXEC_MIN_SYSCALL,
	[UMT_REC_SYSCALL_SKIPPED] = UMT_EXEC_MIN_SKIPPED,
	[7] = NONE,
	[UMT_REC_CTX_APC] = UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_EXCEPTION] = UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_CALLBACK] = UMT_EXEC_MIN_CONTEXT,
	[UMT_REC_CTX_UNKNOWN] = UMT_EXEC_MIN_CONTEXT,
	/* 12-255: undefined */
	[12] = NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	NONE, NONE, NONE, NONE, NONE,
};
#undef NONE

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

/* Why umt__rec_ok() rejected record @p id: the message of every record check. */
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
	if (umt_rec_min_size(type) == U64_NONE)
		return umt__fail(UMT_E_TYPE, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin + 4,
		                 "unknown record type %u", type);
	return umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, begin,
	                 "%s record of %llu bytes is shorter than the %llu bytes its type needs",
	                 type_names[type], (unsigned long long)size,
	                 (unsigned long long)umt_rec_min_size(type));
}

/*
 * The map of checked chunks of CHUNK records: byte k is set once every
 * record of chunk k passed umt__rec_ok(), so that later scans and lookups
 * skip their checks (umt__chunk_checked()). The mapping is read-only, so a
 * record that was good stays good (see Caveats for files changed under a
 * mapping). One byte per chunk, 244 KB for 10^9 records, allocated on first
 * use, not at open; a byte, not a bit, so that lookups test it in one load
 * and scans set it with a plain store. NULL when out of memory (then every
 * record is checked every time, and the next call tries again).
 */
#define CHUNK_SHIFT UMT__EXEC_CHUNK_SHIFT
#define CHUNK ((uint64_t)1 << CHUNK_SHIFT)

/* Allocates the map; none when memory is short (the next call tries again). */
static int build_checked_chunks(const umt_trace *t, void **out)
{
	*out = calloc((t->exec_count >> CHUNK_SHIFT) + 1, 1);
	return *out ? 0 : umt__failf(UMT_E_NOMEM, "exec.vtable: no memory for the chunk map");
}

static const struct umt_lazy_kind checked_chunks_kind = {UMT_LAZY_EXEC_CHECKED,
                                                          build_checked_chunks, free};

/* The map, allocated on first use; NULL when out of memory. */
static const uint8_t *checked_chunks(const umt_trace *t)
{
	void *map;
	return umt__lazy_get(t, &checked_chunks_kind, &map) == 0 ? map : NULL;
}

/* The map of checked chunks if it exists yet, else NULL. */
static inline const uint8_t *chunk_map(const umt_trace *t)
{
	return umt__lazy_peek(t, &checked_chunks_kind);
}

const uint8_t *umt__exec_chunk_map(const umt_trace *t)
{
	return chunk_map(t);
}

/*
 * Fills @p out from a record known to be good, as umt__rec_fill() does, but
 * with ThreadID, Type and Flags copied in one 8-byte load and store: they
 * lie in that order at the start of every record (which has at least 10
 * bytes) and of umt_rec's last 8 bytes (two of them padding). For the out of
 * line lookups, whose caller reads the fields from memory.
 */
_Static_assert(offsetof(umt_rec, type) == offsetof(umt_rec, thread_id) + 4 &&
                       offsetof(umt_rec, flags) == offsetof(umt_rec, thread_id) + 5 &&
                       sizeof(umt_rec) == offsetof(umt_rec, thread_id) + 8,
               "umt_rec ends with ThreadID, Type and Flags as in execRec");
static inline void fill_out(const uint8_t *records, uint64_t id, uint64_t begin, uint64_t end,
                            umt_rec *out)
{
	const uint8_t *p = records + begin;
	out->data = p;
	out->size = end - begin;
	out->id = id;
	out->offset = begin;
	memcpy(&out->thread_id, p, 8);
}

/* Record @p id is past the readable ones (it may have been lost at open: salvage.c). */
int umt__exec_out_of_range(const umt_trace *t, uint64_t id)
{
	static const struct umt_range_msg m = {UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, -1, "record",
	                                       "records"};
	return umt__out_of_range(t, &m, id, t->exec_count, t->exec_declared);
}

/* umt_exec_get() of a record (< count) whose chunk is not known good. */
static int __attribute__((noinline)) get_checked(const umt_trace *t, uint64_t id, umt_rec *out)
{
	const uint8_t *o = t->exec_offsets + id * 8;
	uint64_t begin = umt__ld64(o), end = umt__ld64(o + 8);
	if (UMT_UNLIKELY(!umt__rec_ok(t->exec_records, t->exec_size, begin, end)))
		return bad_record(t, id, begin, end);
	fill_out(t->exec_records, id, begin, end, out);
	return 0;
}

int umt_exec_get(const umt_trace *t, uint64_t id, umt_rec *out)
{
	if (UMT_UNLIKELY(t == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_exec_get: invalid argument");
	if (UMT_UNLIKELY(id >= t->exec_count))
		return umt__exec_out_of_range(t, id);
	const uint8_t *map = chunk_map(t);
	if (UMT_UNLIKELY(map == NULL || !umt__chunk_checked(map, id)))
		return get_checked(t, id, out); /* a tail call: no registers saved on the fast path */
	const uint8_t *o = t->exec_offsets + id * 8;
	fill_out(t->exec_records, id, umt__ld64(o), umt__ld64(o + 8), out);
	return 0;
}

int umt__exec_view_init(umt_exec_view *v, const umt_trace *t)
{
	if (v == NULL || t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_view_init: invalid argument");
	const uint8_t *map = checked_chunks(t);
	if (map == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_exec_view_init: out of memory");
	v->trace = t;
	v->offsets = t->exec_offsets;
	v->records = t->exec_records;
	v->records_size = t->exec_size;
	v->count = t->exec_count;
	v->checked = map;
	return 0;
}

int umt__exec_bad(const umt_trace *t, uint64_t id)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "record accessor: invalid argument");
	if (id >= t->exec_count)
		return umt__exec_out_of_range(t, id);
	/* the full check, whatever the map says: the caller's check failed */
	const uint8_t *o = t->exec_offsets + id * 8;
	uint64_t begin = umt__ld64(o), end = umt__ld64(o + 8);
	if (!umt__rec_ok(t->exec_records, t->exec_size, begin, end))
		return bad_record(t, id, begin, end);
	return umt__failf(UMT_E_CORRUPT, "record %llu: inconsistent check", (unsigned long long)id);
}

/* ---- typed accessors ---------------------------------------------------- */

int umt__rec_wrong_type(int is_null, uint64_t id, uint64_t offset, unsigned type,
                        const char *want)
{
	if (is_null)
		return umt__failf(UMT_E_INVAL, "record accessor: invalid argument");
	const char *have = umt_rec_type_name((int)type);
	return umt__fail(UMT_E_INVAL, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, id, offset,
	                 "%s record, not %s", have ? have : "unknown", want);
}

/* The wrong-type report of the accessors below. */
static int wrong_type(const umt_rec *r, const char *want)
{
	return umt__rec_wrong_type(r == NULL, r ? r->id : 0, r ? r->offset : 0,
	                           r ? r->type : 0, want);
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
	/* The type's minimum size guarantees the 16-byte rmContext header. Each
	 * field is loaded once: what is checked is what is used. */
	const umt_rm_context *c = (const umt_rm_context *)(r->data + at);
	int32_t mem_count = c->MemCount;
	int64_t regs_fp = c->RegsFP;
	uint64_t avail = r->size - at, file_off = r->offset + at;
	uint64_t dump = t->cmap->DumpSize;
	if (mem_count < 0 || (uint64_t)mem_count > (avail - sizeof *c) / sizeof(umt_context_mem))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, file_off,
		                 "rmContext MemCount %d does not fit in the record (%llu bytes left)",
		                 mem_count, (unsigned long long)avail);
	if (regs_fp < 0 || !umt__span_ok((uint64_t)regs_fp, dump, avail))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id,
		                 file_off + 8,
		                 "rmContext RegsFP 0x%llx + DumpSize %llu points past the record (%llu bytes left)",
		                 (unsigned long long)regs_fp, (unsigned long long)dump,
		                 (unsigned long long)avail);
	out->base = (const uint8_t *)c;
	out->regs = out->base + regs_fp;
	out->avail = avail;
	out->record_id = r->id;
	out->offset = file_off;
	out->regs_size = (uint32_t)dump;
	out->mem_count = (uint32_t)mem_count;
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
	int64_t size = m->Size, data_fp = m->DataFP; /* loaded once: checked as used */
	if (size < 0 || data_fp < 0 || !umt__span_ok((uint64_t)data_fp, (uint64_t)size, c->avail))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, c->record_id,
		                 c->offset + at,
		                 "contextMem %u: DataFP 0x%llx, Size %lld points past the record (%llu bytes from the rmContext)",
		                 index, (unsigned long long)data_fp, (long long)size,
		                 (unsigned long long)c->avail);
	out->address = (uint64_t)m->Address;
	out->size = (uint64_t)size;
	out->data = c->base + data_fp;
	return 0;
}

/* ---- iterator in record order ------------------------------------------- */

int umt__exec_iter_init(umt_exec_iter *it, const umt_trace *t, uint64_t begin, uint64_t end)
{
	if (it == NULL || t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_iter_init: invalid argument");
	if (begin > t->exec_count)
		return umt__exec_out_of_range(t, begin);
	it->trace = t;
	it->offsets = t->exec_offsets;
	it->records = t->exec_records;
	it->records_size = t->exec_size;
	it->next_id = begin;
	it->end_id = end < t->exec_count ? end : t->exec_count;
	it->checked_end = begin; /* nothing checked yet */
	return 0;
}

/*
 * How many of the @p max (> 0) records from @p id on are good, stopping at
 * the first bad one: the record check in one tight loop.
 */
static uint64_t good_run(const umt_trace *t, uint64_t id, uint64_t max)
{
	const uint8_t *off = t->exec_offsets + id * 8, *rec = t->exec_records;
	uint64_t size = t->exec_size, begin = umt__ld64(off), n;
	if (!umt__rec_ok(rec, size, begin, umt__ld64(off + 8)))
		return 0;
	/* each record begins where the previous one, checked, ends */
	for (n = 1, begin = umt__ld64(off + 8); n < max; n++) {
		uint64_t end = umt__ld64(off + (n + 1) * 8);
		if (!umt__rec_end_ok(rec, size, begin, end))
			break;
		begin = end;
	}
	return n;
}

int64_t umt__exec_check_run(const umt_trace *t, uint64_t id, uint64_t end)
{
	/* runs end at chunk boundaries, so that whole chunks get checked and marked */
	uint64_t chunk = id >> CHUNK_SHIFT, want = CHUNK - (id & (CHUNK - 1));
	if (want > end - id)
		want = end - id;
	const uint8_t *map = checked_chunks(t);
	if (map && umt__chunk_checked(map, id))
		return (int64_t)(id + want);
	uint64_t n = good_run(t, id, want);
	if (n == 0) /* the first record is bad: report it as umt_exec_get() would */
		return umt__exec_bad(t, id);
	if (map && n == CHUNK) /* a whole chunk, every record good: remember it */
		__atomic_store_n((uint8_t *)(uintptr_t)&map[chunk], 1, __ATOMIC_RELAXED);
	return (int64_t)(id + n);
}

int umt_exec_iter_next_block(umt_exec_iter *it, umt_exec_block *b, uint32_t max)
{
	if (it == NULL || b == NULL || max == 0)
		return umt__failf(UMT_E_INVAL, "umt_exec_iter_next_block: invalid argument");
	if (max > INT32_MAX)
		max = INT32_MAX; /* the count is returned as an int */
	uint64_t id = it->next_id;
	if (id >= it->end_id)
		return 0;
	uint64_t end = it->end_id - id > max ? id + max : it->end_id;
	int64_t good = umt__exec_check_run(it->trace, id, end);
	if (good < 0) { /* the first record is bad: move past it */
		it->next_id = id + 1;
		return (int)good;
	}
	b->records = it->records;
	b->offsets = it->offsets + id * 8;
	b->first = id;
	b->count = (uint32_t)((uint64_t)good - id);
	it->next_id = (uint64_t)good;
	return (int)b->count;
}

/* ---- prev/next links (their iterator: thread.c) ------------------------ */

/*
 * A mapping of its own, not t->files[]: the handle's files stay as open set
 * them (other threads read them), and close releases it as a lazy part.
 */
static int build_prev_next(const umt_trace *t, void **out)
{
	int rc = umt__lost(t, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_NONE, 0, 0);
	if (rc < 0)
		return rc;
	struct umt_map *m = malloc(sizeof *m);
	if (m == NULL)
		return umt__fail(UMT_E_NOMEM, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_NONE, 0, 0,
		                 "out of memory");
	*m = t->files[UMT_FILE_EXEC_PREV_NEXT]; /* identity from open; caller buffers: the bytes */
	if (t->dirfd >= 0 && (rc = umt__map_later(t->dirfd, UMT_FILE_EXEC_PREV_NEXT, m)) < 0) {
		free(m);
		return rc;
	}
	if (t->open_advice != UMT_ADVISE_NORMAL) /* a hint: failure to apply it is harmless */
		(void)umt__map_advise(m, UMT_FILE_EXEC_PREV_NEXT, 0, m->size, t->open_advice);
	*out = m;
	return 0;
}

static void release_prev_next(void *p)
{
	umt__unmap(p);
	free(p);
}

static const struct umt_lazy_kind prev_next_kind = {UMT_LAZY_PREV_NEXT, build_prev_next,
                                                     release_prev_next};

int umt__prev_next(const umt_trace *t, const struct umt_map **out)
{
	void *m;
	int rc = umt__lazy_get(t, &prev_next_kind, &m);
	if (rc == 0 && m == NULL) /* build_prev_next() never builds "nothing" */
		rc = umt__fail(UMT_E_IO, UMT_FILE_EXEC_PREV_NEXT, UMT_LOC_NONE, 0, 0, "not mapped");
	*out = m;
	return rc;
}


int umt_exec_links(const umt_trace *t, uint64_t id, int64_t *prev, int64_t *next)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_links: invalid argument");
	if (id >= t->exec_count)
		return umt__exec_out_of_range(t, id);
	const struct umt_map *pn;
	int rc = umt__prev_next(t, &pn);
	if (rc < 0)
		return rc;
	const umt_prev_next *e = (const umt_prev_next *)(pn->data + id * sizeof(umt_prev_next));
	if (prev)
		*prev = e->Prev;
	if (next)
		*next = e->Next;
	return 0;
}

/* ---- parallel ranges, batched lookups, access hints ---------------------- */

/* The first record whose offset is at least @p target (binary search). */
static uint64_t first_at_or_after(const umt_trace *t, uint64_t target)
{
	uint64_t lo = 0, hi = t->exec_count;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (umt__ld64(t->exec_offsets + mid * 8) < target)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int umt_exec_split(const umt_trace *t, unsigned n, uint64_t *bounds)
{
	if (t == NULL || n == 0 || bounds == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_split: invalid argument");
	uint64_t count = t->exec_count;
	uint64_t first = umt__ld64(t->exec_offsets), last = umt__ld64(t->exec_offsets + count * 8);
	uint64_t bytes = last - first; /* open checked first <= last */
	bounds[0] = 0;
	for (unsigned k = 1; k < n; k++) {
		/* k/n of the bytes, without overflow */
		uint64_t target = first + bytes / n * k + bytes % n * k / n;
		uint64_t b = first_at_or_after(t, target);
		bounds[k] = b > bounds[k - 1] ? (b < count ? b : count) : bounds[k - 1];
	}
	bounds[n] = count;
	return 0;
}

/* A failed lookup of a batch: its error (message set), and out->data NULL. */
static int __attribute__((noinline, cold)) batch_bad(const umt_trace *t, uint64_t id,
                                                     umt_rec *out)
{
	out->data = NULL;
	return umt__exec_bad(t, id);
}

/*
 * Lookup @p id of a batch, through the geometry @p g (with its map of
 * checked chunks) in the caller's locals: the byte stores into out[] could
 * alias the handle's fields, which the compiler would then read again for
 * every lookup.
 */
static inline int batch_one(const umt_exec_view *g, uint64_t id, umt_rec *out)
{
	if (UMT_LIKELY(id < g->count)) {
		const uint8_t *o = g->offsets + id * 8;
		uint64_t begin = umt__ld64(o), end = umt__ld64(o + 8);
		if (UMT_LIKELY(umt__chunk_checked(g->checked, id) ||
		               umt__rec_ok(g->records, g->records_size, begin, end))) {
			fill_out(g->records, id, begin, end, out);
			return 0;
		}
	}
	return batch_bad(g->trace, id, out);
}

/* Prefetches the offsets entry of lookup @p id (the last entry for a bad ID). */
static inline void batch_prefetch_offsets(const umt_exec_view *g, uint64_t id)
{
	__builtin_prefetch(g->offsets + (id < g->count ? id : g->count) * 8);
}

/* Prefetches the record of lookup @p id: a prefetch never faults, so the
 * offset, not checked yet, is harmless. */
static inline void batch_prefetch_record(const umt_exec_view *g, uint64_t id)
{
	uint64_t b = umt__ld64(g->offsets + (id < g->count ? id : g->count) * 8);
	__builtin_prefetch((const void *)((uintptr_t)g->records + b));
}

int umt_exec_get_batch(const umt_trace *t, const uint64_t *ids, size_t n, umt_rec *out)
{
	/* A pipeline D lookups deep: while lookup k is filled, the record of
	 * lookup k + D and the offsets entry of lookup k + 2D are being fetched,
	 * so that the two dependent cache misses of every lookup overlap with
	 * those of the others. */
	enum { D = 16 };
	if (t == NULL || (n > 0 && (ids == NULL || out == NULL)))
		return umt__failf(UMT_E_INVAL, "umt_exec_get_batch: invalid argument");
	int first_error = 0, rc;
	const uint8_t *map = checked_chunks(t);
	if (UMT_UNLIKELY(map == NULL)) { /* out of memory for the map: one by one */
		for (size_t k = 0; k < n; k++)
			if ((rc = umt_exec_get(t, ids[k], &out[k])) < 0) {
				out[k].data = NULL;
				first_error = first_error ? first_error : rc;
			}
		return first_error;
	}
	const umt_exec_view g = {t, t->exec_offsets, t->exec_records, t->exec_size, t->exec_count,
	                         map};
	for (size_t k = 0; k < n && k < 2 * D; k++)
		batch_prefetch_offsets(&g, ids[k]);
	for (size_t k = 0; k < n && k < D; k++)
		batch_prefetch_record(&g, ids[k]);
	size_t k = 0;
	for (; k + 2 * D < n; k++) { /* the steady state, with no test of k */
		batch_prefetch_offsets(&g, ids[k + 2 * D]);
		batch_prefetch_record(&g, ids[k + D]);
		if (UMT_UNLIKELY((rc = batch_one(&g, ids[k], &out[k])) < 0) && first_error == 0)
			first_error = rc;
	}
	for (; k < n; k++) {
		if (k + D < n)
			batch_prefetch_record(&g, ids[k + D]);
		if (UMT_UNLIKELY((rc = batch_one(&g, ids[k], &out[k])) < 0) && first_error == 0)
			first_error = rc;
	}
	return first_error;
}

static int check_advice(int advice)
{
	if (advice < UMT_ADVISE_NORMAL || advice > UMT_ADVISE_DONTNEED)
		return umt__failf(UMT_E_INVAL, "bad access hint %d", advice);
	return 0;
}

int umt_exec_advise(const umt_trace *t, uint64_t begin, uint64_t end, int advice)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_advise: invalid argument");
	int rc = check_advice(advice);
	if (rc < 0)
		return rc;
	if (begin > end || end > t->exec_count)
		return umt__failf(UMT_E_RANGE, "records [%llu, %llu) are out of range (%llu records)",
		                  (unsigned long long)begin, (unsigned long long)end,
		                  (unsigned long long)t->exec_count);
	if (begin == end)
		return 0;
	/* the offsets of [begin, end] and the bytes between the first and last record */
	rc = umt__map_advise(&t->files[UMT_FILE_EXEC_OFFSETS], UMT_FILE_EXEC_OFFSETS, begin * 8,
	                     (end - begin + 1) * 8, advice);
	uint64_t from = umt__ld64(t->exec_offsets + begin * 8);
	uint64_t to = umt__ld64(t->exec_offsets + end * 8);
	if (rc == 0 && from < to)
		rc = umt__map_advise(&t->files[UMT_FILE_EXEC_VTABLE], UMT_FILE_EXEC_VTABLE, from,
		                     to - from, advice);
	const struct umt_map *pn = umt__lazy_peek(t, &prev_next_kind); /* acquire: once mapped */
	if (rc == 0 && pn != NULL)
		rc = umt__map_advise(pn, UMT_FILE_EXEC_PREV_NEXT, begin * 16, (end - begin) * 16,
		                     advice);
	return rc;
}

int umt_exec_iter_advise(const umt_exec_iter *it, int advice)
{
	if (it == NULL || it->trace == NULL)
		return umt__failf(UMT_E_INVAL, "umt_exec_iter_advise: invalid argument");
	uint64_t end = it->end_id, begin = it->next_id < end ? it->next_id : end;
	return umt_exec_advise(it->trace, begin, end, advice);
}

int umt_trace_advise(const umt_trace *t, int file, int advice)
{
	if (t == NULL || file < 0 || file >= UMT_FILE_COUNT)
		return umt__failf(UMT_E_INVAL, "umt_trace_advise: invalid argument");
	int rc = check_advice(advice);
	if (rc < 0)
		return rc;
	if (file != UMT_FILE_EXEC_PREV_NEXT)
		return umt__map_advise(&t->files[file], file, 0, t->files[file].size, advice);
	/* mapped lazily by another thread: its mapping is read after an acquire load */
	const struct umt_map *pn = umt__lazy_peek(t, &prev_next_kind);
	return pn != NULL ? umt__map_advise(pn, file, 0, pn->size, advice) : 0;
}
