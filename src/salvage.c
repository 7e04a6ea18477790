/*
 * libumtrace - salvage: what a damaged trace opened with UMT_OPEN_SALVAGE
 * still holds, and the errors of what it lost.
 *
 * Open (trace.c) runs the same O(1) checks with or without the flag. In
 * salvage mode a failed check does not fail open: the table it guards is
 * either reduced to the part that lies inside its files (the rows, records
 * or index entries that exist) or marked unavailable with the failure that
 * lost it, and everything else reads as usual. Accessors reach this file on
 * their cold out-of-range paths only, to say that an item was lost at open
 * rather than that it never existed.
 *
 * The execution table is the one table that cannot be unavailable: its
 * readable prefix is found here by binary search over exec.offsets (the
 * largest k such that the end offset of record k - 1 is inside
 * exec.vtable), so that opening a salvaged 100 GB trace stays O(log n).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

#define VT_HDR sizeof(umt_exec_vtable_header)

/* ---- marking files ------------------------------------------------------- */

static int mark_va(umt_trace *t, int file, int status, int code, const char *fmt, va_list ap)
	UMT_PRINTF(5, 0);
static int mark_va(umt_trace *t, int file, int status, int code, const char *fmt, va_list ap)
{
	struct umt_salvage *s = &t->salvage;
	if (status > s->status[file])
		s->status[file] = status; /* unavailable wins over reduced */
	if (s->why[file] != NULL)
		return 0; /* the first reason is the cause; later ones follow from it */
	s->code[file] = code;
	char buf[512];
	vsnprintf(buf, sizeof buf, fmt, ap);
	s->why[file] = strdup(buf);
	if (s->why[file] == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_trace_open: out of memory");
	return 0;
}

int umt__salvage_mark(umt_trace *t, int file, int status, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = mark_va(t, file, status, code, fmt, ap);
	va_end(ap);
	return rc;
}

const char *umt__errmsg_after(int file)
{
	/* messages about a file start "FILE: " */
	const char *msg = umt_errmsg(), *name = umt_file_name(file);
	size_t n = strlen(name);
	if (strncmp(msg, name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
		return msg + n + 2;
	return msg;
}

void umt__salvage_release(umt_trace *t)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		free(t->salvage.why[f]);
		t->salvage.why[f] = NULL;
	}
}

/* ---- the execution table ---------------------------------------------------- */

/* Stands for exec.offsets when not even entry 0 exists: record count 0 needs one entry. */
static const uint8_t no_offsets[8];

/*
 * The records readable among the first @p n whose offsets entries all exist
 * (n + 1 entries): the largest k <= n with offsets[k] <= size, by binary
 * search, which is exact when offsets increase (a valid table). On corrupt
 * offsets it is still a count whose end entry lies inside the file; each
 * record is checked when read.
 */
static uint64_t readable_prefix(const uint8_t *off, uint64_t n, uint64_t size)
{
	/* first j in [0, n] with off[j] > size: entries before it end inside */
	uint64_t lo = 0, hi = n + 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (umt__ld64(off + mid * 8) <= size)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : 0;
}

/* The record count declared, from exec.offsets, when exec.vtable's header is short. */
static int count_from_offsets(umt_trace *t, int rc, uint64_t *declared)
{
	const struct umt_map *off = &t->files[UMT_FILE_EXEC_OFFSETS];
	if (!off->present || off->size < 8 || off->size % 8 != 0) {
		/* keep open's message, and say why exec.offsets cannot stand in */
		char first[400];
		snprintf(first, sizeof first, "%s", umt_errmsg());
		umt__failf_record("%s; exec.offsets (%llu bytes) does not give the record count "
		                  "either: nothing to salvage",
		                  first, (unsigned long long)off->size);
		return rc;
	}
	*declared = off->size / 8 - 1;
	return umt__salvage_mark(t, UMT_FILE_EXEC_VTABLE, UMT_FILE_REDUCED, rc,
	                         "file of %llu bytes is shorter than its 16-byte header: no "
	                         "record is readable (%llu declared by exec.offsets)",
	                         (unsigned long long)t->files[UMT_FILE_EXEC_VTABLE].size,
	                         (unsigned long long)*declared);
}

/* Marks exec.offsets when it holds other than the declared + 1 entries. */
static int mark_offsets_size(umt_trace *t, int rc, uint64_t declared, uint64_t entries)
{
	const struct umt_map *off = &t->files[UMT_FILE_EXEC_OFFSETS];
	if (!off->present) /* marked unavailable when it failed to map */
		return 0;
	if (off->size / 8 < declared + 1 || off->size % 8 != 0)
		return umt__salvage_mark(t, UMT_FILE_EXEC_OFFSETS, UMT_FILE_REDUCED, rc,
		                         "file of %llu bytes holds %llu of the %llu entries of "
		                         "%llu records",
		                         (unsigned long long)off->size, (unsigned long long)entries,
		                         (unsigned long long)declared + 1,
		                         (unsigned long long)declared);
	if (off->size / 8 > declared + 1)
		return umt__salvage_mark(t, UMT_FILE_EXEC_OFFSETS, UMT_FILE_REDUCED, rc,
		                         "file of %llu bytes is longer than the %llu entries of "
		                         "%llu records: the rest is ignored",
		                         (unsigned long long)off->size,
		                         (unsigned long long)declared + 1,
		                         (unsigned long long)declared);
	return 0;
}

int umt__salvage_exec(umt_trace *t, int rc, bool header_ok)
{
	const struct umt_map *vt = &t->files[UMT_FILE_EXEC_VTABLE];
	const struct umt_map *off = &t->files[UMT_FILE_EXEC_OFFSETS];
	uint64_t declared = 0;
	int err = 0;
	if (header_ok) {
		declared = (uint64_t)((const umt_exec_vtable_header *)vt->data)->RecordCount;
	} else {
		if ((err = count_from_offsets(t, rc, &declared)) != 0)
			return err;
		t->exec_version = -1;
	}
	uint64_t entries = off->size / 8 < declared + 1 ? off->size / 8 : declared + 1;
	uint64_t n = entries ? entries - 1 : 0; /* records with both entries */
	/* Fewer than 16 bytes hold no record, and the inline checks need size >= 16. */
	uint64_t k = vt->size < VT_HDR || entries == 0 ? 0 : readable_prefix(off->data, n, vt->size);
	if ((err = mark_offsets_size(t, rc, declared, entries)) != 0)
		return err;
	if (k > 0 && umt__ld64(off->data) > umt__ld64(off->data + k * 8)) {
		/* exec_split() relies on first <= last, as a strict open checks */
		err = umt__salvage_mark(t, UMT_FILE_EXEC_OFFSETS, UMT_FILE_REDUCED, rc,
		                        "offset 0x%llx of record 0 is after the end 0x%llx of "
		                        "record %llu: no record readable",
		                        (unsigned long long)umt__ld64(off->data),
		                        (unsigned long long)umt__ld64(off->data + k * 8),
		                        (unsigned long long)k - 1);
		k = 0;
	} else if (k < n && vt->size >= VT_HDR) {
		err = umt__salvage_mark(t, UMT_FILE_EXEC_VTABLE, UMT_FILE_REDUCED, rc,
		                        "record %llu ends at 0x%llx, past the end of the file (%llu "
		                        "bytes): %llu of %llu records readable",
		                        (unsigned long long)k,
		                        (unsigned long long)umt__ld64(off->data + (k + 1) * 8),
		                        (unsigned long long)vt->size, (unsigned long long)k,
		                        (unsigned long long)declared);
	}
	/* neither file was short: open's own check failed (offsets into the header...) */
	if (err == 0 && t->salvage.status[UMT_FILE_EXEC_VTABLE] == UMT_FILE_INTACT &&
	    t->salvage.status[UMT_FILE_EXEC_OFFSETS] == UMT_FILE_INTACT)
		err = umt__salvage_mark(t, UMT_FILE_EXEC_OFFSETS, UMT_FILE_REDUCED, rc, "%s",
		                        umt__errmsg_after(UMT_FILE_EXEC_OFFSETS));
	if (err != 0)
		return err;
	t->exec_records = vt->data;
	t->exec_size = vt->size;
	t->exec_offsets = entries ? off->data : no_offsets;
	t->exec_count = k;
	t->exec_declared = declared;
	return 0;
}

/* ---- what accessors say about lost items -------------------------------------- */

int umt__out_of_range_record(const umt_trace *t, const struct umt_range_msg *m, uint64_t id,
                             uint64_t count, uint64_t declared)
{
	int rc = umt__lost(t, m->lost_file, m->kind, id, declared);
	if (rc < 0)
		return rc;
	return umt__fail(UMT_E_RANGE, m->range_file, UMT_LOC_NONE, 0, 0,
	                 "%s %llu is out of range (%llu %s)", m->item, (unsigned long long)id,
	                 (unsigned long long)count, m->items);
}

/* The file to blame for a lost item of the table in @p file: its index file when the damage is there. */
static int blamed(const umt_trace *t, int file)
{
	int index = file == UMT_FILE_EXEC_VTABLE      ? UMT_FILE_EXEC_OFFSETS
	            : file == UMT_FILE_SYSCALL_VTABLE ? UMT_FILE_SYSCALL_OFFSETS
	                                              : -1;
	if (index >= 0 && t->salvage.status[file] == UMT_FILE_INTACT &&
	    t->salvage.status[index] != UMT_FILE_INTACT)
		return index;
	return file;
}

int umt__lost(const umt_trace *t, int file, enum umt_loc_kind kind, uint64_t id,
              uint64_t declared)
{
	int f = blamed(t, file);
	bool gone = t->salvage.status[f] == UMT_FILE_UNAVAILABLE;
	if (!gone && (id >= declared || t->salvage.status[f] == UMT_FILE_INTACT))
		return 0;
	const char *why = t->salvage.why[f] ? t->salvage.why[f] : "damaged";
	int code = t->salvage.code[f];
	if (gone || kind == UMT_LOC_NONE)
		return umt__fail(code, f, UMT_LOC_NONE, 0, 0, "unavailable, lost at open: %s", why);
	return umt__fail(code, f, UMT_LOC_NONE, 0, 0, "%s %llu lost at open: %s",
	                 kind == UMT_LOC_RECORD ? "record" : "row", (unsigned long long)id, why);
}
