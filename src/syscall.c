/*
 * libumtrace - syscall.vtable and syscall.offsets: syscall records, arguments, extras.
 *
 * Records are reached through their (Offset, Size) pair (RecordCount pairs,
 * ERRATA 8) and are not sorted in syscall.vtable. A record's extent is its
 * Size (ERRATA 6): the 56 bytes of syscallRec fields, then the data its FPs
 * point to, all of which must lie inside [Offset, Offset + Size). The arrays
 * ArgsFP and ExtrasFP point to must lie in the data area [56, Size) that
 * follows the fields; an FP equal to Size is an empty array at the end.
 */
#include "internal.h"

#define SYS_HDR sizeof(umt_syscall_vtable_header)
#define SYS_FIELDS sizeof(umt_syscall_rec)

uint64_t umt_syscall_count(const umt_trace *t)
{
	return t ? t->sys_count : 0;
}

/* Cold path of umt_syscall_get: says what is wrong with pair @p id. */
static int __attribute__((noinline, cold))
bad_pair(const umt_trace *t, uint64_t id, int64_t off, int64_t size)
{
	uint64_t at = id * sizeof(umt_offset_size), end;
	if (off < 0)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at,
		                 "Offset %lld is negative", (long long)off);
	if (size < 0)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at + 8,
		                 "Size %lld is negative", (long long)size);
	if (__builtin_add_overflow((uint64_t)off, (uint64_t)size, &end) ||
	    end > (uint64_t)INT64_MAX)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at,
		                 "Offset 0x%llx + Size %lld overflows", (unsigned long long)off,
		                 (long long)size);
	if ((uint64_t)off < SYS_HDR)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at,
		                 "Offset 0x%llx points into the 16-byte syscall.vtable header",
		                 (unsigned long long)off);
	if (end > t->sys_size)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at,
		                 "record at 0x%llx of %lld bytes ends past the end of syscall.vtable (%llu bytes)",
		                 (unsigned long long)off, (long long)size,
		                 (unsigned long long)t->sys_size);
	return umt__fail(UMT_E_TRUNCATED, UMT_FILE_SYSCALL_OFFSETS, UMT_LOC_RECORD, id, at + 8,
	                 "Size %lld is smaller than the %u bytes of syscallRec fields",
	                 (long long)size, (unsigned)SYS_FIELDS);
}

/* true when [fp, fp + len) lies in the data area [56, size) of a record; len may be 0. */
static inline bool data_span_ok(uint64_t fp, uint64_t len, uint64_t size)
{
	return fp >= SYS_FIELDS && umt__span_ok(fp, len, size);
}

/*
 * Cold path: neither reading of ArgsFP fits. Blames ArgCount when one
 * reading points into the data area.
 */
static int __attribute__((noinline, cold))
bad_args(uint64_t id, uint64_t off, uint64_t size, const umt_syscall_rec *r)
{
	uint64_t fp = (uint64_t)r->ArgsFP, bytes = (uint64_t)r->ArgCount * 8;
	bool rel_in = fp >= SYS_FIELDS && fp <= size;
	bool abs_in = fp >= off && fp - off >= SYS_FIELDS && fp - off <= size;
	if (rel_in || abs_in)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, id, off + 6,
		                 "ArgCount %u (%llu bytes at %s ArgsFP 0x%llx) does not fit in the record of %llu bytes",
		                 (unsigned)r->ArgCount, (unsigned long long)bytes,
		                 rel_in ? "relative" : "absolute", (unsigned long long)fp,
		                 (unsigned long long)size);
	return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, id, off + 40,
	                 "ArgsFP 0x%llx points outside the record's data [0x%llx, 0x%llx], "
	                 "read as relative or as absolute",
	                 (unsigned long long)fp, (unsigned long long)SYS_FIELDS,
	                 (unsigned long long)size);
}

static int __attribute__((noinline, cold))
bad_extras(uint64_t id, uint64_t off, uint64_t size, const umt_syscall_rec *r)
{
	return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, id, off + 48,
	                 "ExtrasFP 0x%llx points outside the record's data [0x%llx, 0x%llx]",
	                 (unsigned long long)r->ExtrasFP, (unsigned long long)SYS_FIELDS,
	                 (unsigned long long)size);
}

static int __attribute__((noinline, cold)) syscall_out_of_range(const umt_trace *t, uint64_t id)
{
	static const struct umt_range_msg m = {UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD,
	                                       UMT_FILE_SYSCALL_OFFSETS, "syscall", "records"};
	return umt__out_of_range(t, &m, id, t->sys_count, t->sys_declared);
}

int umt_syscall_get(const umt_trace *t, uint64_t id, umt_syscall *out)
{
	if (UMT_UNLIKELY(t == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_syscall_get: invalid argument");
	if (UMT_UNLIKELY(id >= t->sys_count))
		return syscall_out_of_range(t, id);
	const umt_offset_size *pair =
		(const umt_offset_size *)(t->sys_offsets + id * sizeof(umt_offset_size));
	int64_t soff = pair->Offset, ssize = pair->Size;
	/* Negative values read as huge unsigned ones and fail the same compares. */
	uint64_t off = (uint64_t)soff, size = (uint64_t)ssize;
	if (UMT_UNLIKELY((off < SYS_HDR) | (off > t->sys_size) | (size > t->sys_size - off) |
	                 (size < SYS_FIELDS)))
		return bad_pair(t, id, soff, ssize);
	const umt_syscall_rec *r = (const umt_syscall_rec *)(t->sys_records + off);
	uint64_t args_fp = (uint64_t)r->ArgsFP, args_len = (uint64_t)r->ArgCount * 8;
	int absolute = 0;
	if (UMT_UNLIKELY(!data_span_ok(args_fp, args_len, size))) {
		/* ERRATA 7: an older writer stored ArgsFP as an absolute offset. */
		if (args_fp < off || !data_span_ok(args_fp - off, args_len, size))
			return bad_args(id, off, size, r);
		args_fp -= off;
		absolute = 1;
	}
	uint64_t extras_fp = (uint64_t)r->ExtrasFP;
	if (UMT_UNLIKELY(!data_span_ok(extras_fp, 0, size)))
		return bad_extras(id, off, size, r);
	out->rec = r;
	out->id = id;
	out->offset = off;
	out->size = size;
	out->args = (const uint8_t *)r + args_fp;
	out->extras = (const uint8_t *)r + extras_fp;
	out->extras_size = size - extras_fp;
	out->args_fp_absolute = absolute;
	return 0;
}

int umt_syscall_arg(const umt_syscall *s, unsigned i, uint64_t *value)
{
	if (UMT_UNLIKELY(s == NULL || s->rec == NULL || value == NULL))
		return umt__failf(UMT_E_INVAL, "umt_syscall_arg: invalid argument");
	uint8_t count = s->rec->ArgCount;
	if (UMT_UNLIKELY(i >= count))
		return umt__fail(UMT_E_RANGE, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, s->id,
		                 s->offset, "argument %u is out of range (ArgCount %u)", i,
		                 (unsigned)count);
	/* ArgCount is read again from the mapping: the bytes must still lie in the
	 * record umt_syscall_get() checked, even if the file changed since */
	uint64_t at = (uint64_t)(s->args - (const uint8_t *)s->rec) + (uint64_t)i * 8;
	if (UMT_UNLIKELY(!umt__span_ok(at, 8, s->size)))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, s->id,
		                 s->offset + at, "argument %u runs past the record (%llu bytes)", i,
		                 (unsigned long long)s->size);
	*value = umt__ld64(s->args + (uint64_t)i * 8);
	return 0;
}

static int __attribute__((noinline, cold))
bad_syscall_id(const umt_trace *t, const umt_rec *r, int64_t sid)
{
	/* The SyscallID field follows the 6-byte header in types 4, 5 and 6. */
	uint64_t at = r->offset + sizeof(umt_exec_rec_hdr);
	if (sid == -1 && r->type == UMT_REC_SYSCALL_EXIT)
		return umt__fail(UMT_E_NO_VALUE, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, at,
		                 "syscall exit without a matching entry (SyscallID -1)");
	return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_RECORD, r->id, at,
	                 "%s SyscallID %lld is outside the syscall table (%llu records)",
	                 umt_rec_type_name(r->type), (long long)sid,
	                 (unsigned long long)t->sys_count);
}

int umt_rec_syscall(const umt_trace *t, const umt_rec *r, umt_syscall *out)
{
	if (UMT_UNLIKELY(t == NULL || r == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_rec_syscall: invalid argument");
	int64_t sid;
	int rc = umt_rec_syscall_id(r, &sid);
	if (rc < 0)
		return rc;
	if (UMT_UNLIKELY(sid < 0 || (uint64_t)sid >= t->sys_count)) {
		rc = sid < 0 ? 0 : umt__lost(t, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_RECORD, (uint64_t)sid,
		                             t->sys_declared);
		return rc < 0 ? rc : bad_syscall_id(t, r, sid);
	}
	return umt_syscall_get(t, (uint64_t)sid, out);
}
