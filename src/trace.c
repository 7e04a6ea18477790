/*
 * libumtrace - opening and closing a trace; O(1) header validation.
 *
 * Open maps every file and checks every header against the file sizes, so
 * that accessors only need O(1) checks of the one record or row they touch.
 * Nothing here scans records: opening a 100 GB trace costs a few system
 * calls and a few hundred instructions.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commit.h"
#include "internal.h"

/* ---- fixed-size tables (spec 4.2.1) ------------------------------------ */

/** How to validate one *.itable file. */
struct itable_rules {
	int file;
	uint64_t header_size;   /* 32, or 48 with ExtraFP/ExtraSize */
	uint64_t min_row;       /* bytes of the row the library reads */
	const char *row_name;   /* for messages */
	int32_t max_record_ver; /* RecordVer accepted: 0..max */
};

/*
 * In salvage mode, a table whose rows or extra area run past the end of the
 * file keeps what lies inside; the strict message is the reason kept.
 */
static int reduce(umt_trace *t, int file, int rc, const char *what, uint64_t kept)
{
	if (!t->salvage.on)
		return rc;
	return umt__salvage_mark(t, file, UMT_FILE_REDUCED, rc, "%s; %llu %s kept",
	                         umt__errmsg_after(file), (unsigned long long)kept, what);
}

static int check_extra(umt_trace *t, const struct umt_map *m, const struct itable_rules *r,
                       struct umt_itable *out)
{
	const umt_extra_table_header *h = (const umt_extra_table_header *)m->data;
	int64_t fp = h->ExtraFP, size = h->ExtraSize;
	int rc = 0;
	if (fp < 0 || (uint64_t)fp > m->size) {
		rc = umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 32,
		               "ExtraFP 0x%llx is outside the file (%llu bytes)",
		               (unsigned long long)fp, (unsigned long long)m->size);
		fp = (int64_t)m->size; /* salvage: an empty area at the end */
		size = 0;
	} else if (size < 0 || !umt__span_ok((uint64_t)fp, (uint64_t)size, m->size)) {
		rc = umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 40,
		               "ExtraSize %lld at ExtraFP 0x%llx runs past the end of the file (%llu bytes)",
		               (long long)size, (unsigned long long)fp, (unsigned long long)m->size);
		size = (int64_t)(m->size - (uint64_t)fp); /* salvage: up to the end */
	}
	if (rc < 0 && (rc = reduce(t, r->file, rc, "bytes of the extra area", (uint64_t)size)) < 0)
		return rc;
	out->extra = m->data + fp;
	out->extra_fp = (uint64_t)fp;
	out->extra_size = (uint64_t)size;
	return 0;
}

/* The header of a *.itable: any failure here leaves no row readable. */
static int check_itable_header(const struct umt_map *m, const struct itable_rules *r)
{
	if (m->size < r->header_size)
		return umt__fail(UMT_E_TRUNCATED, r->file, UMT_LOC_OFFSET, 0, m->size,
		                 "file of %llu bytes is shorter than its %llu-byte header",
		                 (unsigned long long)m->size, (unsigned long long)r->header_size);
	const umt_table_header *h = (const umt_table_header *)m->data;
	if (h->HeaderVer != 0)
		return umt__fail(UMT_E_VERSION, r->file, UMT_LOC_OFFSET, 0, 0,
		                 "unsupported HeaderVer %d (only 0 is known)", h->HeaderVer);
	if (h->RecordVer < 0 || h->RecordVer > r->max_record_ver)
		return umt__fail(UMT_E_VERSION, r->file, UMT_LOC_OFFSET, 0, 4,
		                 "unsupported RecordVer %d (0 to %d are known)", h->RecordVer,
		                 r->max_record_ver);
	if (h->RowCount < 0)
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 8,
		                 "RowCount %lld is negative", (long long)h->RowCount);
	if (h->RowSize < 0 || (uint64_t)h->RowSize < r->min_row)
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 16,
		                 "RowSize %lld is smaller than the %llu bytes of a %s",
		                 (long long)h->RowSize, (unsigned long long)r->min_row, r->row_name);
	if (h->TableFP < (int64_t)r->header_size || (uint64_t)h->TableFP > m->size)
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 24,
		                 "table of %llu rows of %llu bytes at TableFP 0x%llx does not fit in the file (%llu bytes)",
		                 (unsigned long long)h->RowCount, (unsigned long long)h->RowSize,
		                 (unsigned long long)h->TableFP, (unsigned long long)m->size);
	return 0;
}

static int check_itable(umt_trace *t, const struct itable_rules *r, struct umt_itable *out)
{
	const struct umt_map *m = &t->files[r->file];
	memset(out, 0, sizeof *out);
	out->record_ver = -1;
	int rc = check_itable_header(m, r);
	if (rc < 0)
		return rc;
	const umt_table_header *h = (const umt_table_header *)m->data;
	uint64_t count = (uint64_t)h->RowCount, row = (uint64_t)h->RowSize, bytes;
	uint64_t fits = (m->size - (uint64_t)h->TableFP) / row; /* rows inside the file */
	if (__builtin_mul_overflow(count, row, &bytes))
		rc = umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 8,
		               "RowCount %llu * RowSize %llu overflows", (unsigned long long)count,
		               (unsigned long long)row);
	else if (!umt__span_ok((uint64_t)h->TableFP, bytes, m->size))
		rc = umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 24,
		               "table of %llu rows of %llu bytes at TableFP 0x%llx does not fit in the file (%llu bytes)",
		               (unsigned long long)count, (unsigned long long)row,
		               (unsigned long long)h->TableFP, (unsigned long long)m->size);
	if (rc < 0 && (rc = reduce(t, r->file, rc, "rows", fits < count ? fits : count)) < 0)
		return rc;
	out->rows = m->data + h->TableFP;
	out->count = fits < count ? fits : count;
	out->declared = count;
	out->row_size = row;
	out->table_fp = (uint64_t)h->TableFP;
	out->record_ver = h->RecordVer;
	if (r->header_size >= sizeof(umt_extra_table_header))
		return check_extra(t, m, r, out);
	return 0;
}

static const struct itable_rules ins_rules = {
	UMT_FILE_INS, sizeof(umt_extra_table_header), UMT_INS_REC_MIN_ROW, "insRec", 1};
static const struct itable_rules module_rules = {
	UMT_FILE_MODULE, sizeof(umt_extra_table_header), sizeof(umt_module_rec), "moduleRec", 0};
static const struct itable_rules thread_rules = {
	UMT_FILE_THREAD, sizeof(umt_table_header), sizeof(umt_thread_rec), "threadRec", 0};
static const struct itable_rules aspace_rules = {
	UMT_FILE_ADDRESS_SPACE, sizeof(umt_table_header), sizeof(umt_address_range),
	"addressRange", 0};

/* ---- variable-size tables (spec 4.2.2) --------------------------------- */

/* Checks that @p file holds exactly count * entry (+ extra entries) bytes. */
static int check_exact_size(const struct umt_map *m, int file, uint64_t count,
                            uint64_t entry, const char *what)
{
	uint64_t want;
	if (__builtin_mul_overflow(count, entry, &want))
		return umt__fail(UMT_E_BOUNDS, file, UMT_LOC_NONE, 0, 0,
		                 "%s for %llu records overflows", what, (unsigned long long)count);
	if (m->size == want)
		return 0;
	return umt__fail(m->size < want ? UMT_E_TRUNCATED : UMT_E_BOUNDS, file, UMT_LOC_OFFSET,
	                 0, m->size < want ? m->size : want,
	                 "file is %llu bytes, %s needs exactly %llu",
	                 (unsigned long long)m->size, what, (unsigned long long)want);
}

static int check_exec(umt_trace *t)
{
	const struct umt_map *vt = &t->files[UMT_FILE_EXEC_VTABLE];
	const struct umt_map *off = &t->files[UMT_FILE_EXEC_OFFSETS];
	if (vt->size < sizeof(umt_exec_vtable_header)) {
		int rc = umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, vt->size,
		                   "file of %llu bytes is shorter than its 16-byte header",
		                   (unsigned long long)vt->size);
		return t->salvage.on ? umt__salvage_exec(t, rc, false) : rc;
	}
	const umt_exec_vtable_header *h = (const umt_exec_vtable_header *)vt->data;
	if (h->Version != 0 && h->Version != 1)
		return umt__fail(UMT_E_VERSION, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, 0,
		                 "unsupported Version %d (0 and 1 are known)", h->Version);
	/* (RecordCount + 1) * 16 must not overflow: it bounds both index files. */
	if (h->RecordCount < 0 || (uint64_t)h->RecordCount >= UINT64_MAX / 16)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, 8,
		                 "RecordCount %lld is out of range", (long long)h->RecordCount);
	t->exec_version = h->Version;
	uint64_t count = (uint64_t)h->RecordCount;
	int rc = check_exact_size(off, UMT_FILE_EXEC_OFFSETS, count + 1, 8,
	                          "(RecordCount + 1) * 8");
	/* The first and last offsets bound every record: O(1) here, per record later. */
	uint64_t first = rc == 0 ? umt__ld64(off->data) : 0;
	uint64_t last = rc == 0 ? umt__ld64(off->data + count * 8) : 0;
	if (rc == 0 && count > 0 && first < sizeof(umt_exec_vtable_header))
		rc = umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS, UMT_LOC_RECORD, 0, 0,
		               "offset 0x%llx points into the exec.vtable header",
		               (unsigned long long)first);
	else if (rc == 0 && (last > vt->size || first > last))
		rc = umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS, UMT_LOC_OFFSET, 0, count * 8,
		               "end offset 0x%llx is outside exec.vtable (%llu bytes) or before the first record (0x%llx)",
		               (unsigned long long)last, (unsigned long long)vt->size,
		               (unsigned long long)first);
	if (rc < 0)
		return t->salvage.on ? umt__salvage_exec(t, rc, true) : rc;
	t->exec_records = vt->data;
	t->exec_size = vt->size;
	t->exec_offsets = off->data;
	t->exec_count = count;
	t->exec_declared = count;
	return 0;
}

/*
 * exec.prev_next.column is only stat'ed at open (mapped on first use). A
 * salvaged one stays usable while it has an entry for every readable record.
 */
static int check_prev_next(umt_trace *t)
{
	const struct umt_map *pn = &t->files[UMT_FILE_EXEC_PREV_NEXT];
	int rc = check_exact_size(pn, UMT_FILE_EXEC_PREV_NEXT, t->exec_declared, 16,
	                          "RecordCount * 16");
	if (rc == 0 || !t->salvage.on)
		return rc;
	if (pn->size / 16 >= t->exec_count)
		return umt__salvage_mark(t, UMT_FILE_EXEC_PREV_NEXT, UMT_FILE_REDUCED, rc,
		                         "%s; it links every readable record",
		                         umt__errmsg_after(UMT_FILE_EXEC_PREV_NEXT));
	return rc; /* unavailable */
}

static int check_syscall(umt_trace *t)
{
	const struct umt_map *vt = &t->files[UMT_FILE_SYSCALL_VTABLE];
	const struct umt_map *off = &t->files[UMT_FILE_SYSCALL_OFFSETS];
	if (vt->size < sizeof(umt_syscall_vtable_header))
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_OFFSET, 0, vt->size,
		                 "file of %llu bytes is shorter than its 16-byte header",
		                 (unsigned long long)vt->size);
	const umt_syscall_vtable_header *h = (const umt_syscall_vtable_header *)vt->data;
	if (h->Version != 0)
		return umt__fail(UMT_E_VERSION, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_OFFSET, 0, 0,
		                 "unsupported Version %d (only 0 is known)", h->Version);
	if (h->UnifiedIDsVer != 0 && h->UnifiedIDsVer != 1)
		return umt__fail(UMT_E_VERSION, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_OFFSET, 0, 4,
		                 "unsupported UnifiedIDsVer %d (0 and 1 are known)", h->UnifiedIDsVer);
	if (h->RecordCount < 0)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_OFFSET, 0, 8,
		                 "RecordCount %lld is negative", (long long)h->RecordCount);
	uint64_t count = (uint64_t)h->RecordCount, pairs = off->size / 16;
	t->sys_records = vt->data;
	t->sys_size = vt->size;
	t->sys_offsets = off->data;
	t->sys_declared = count;
	t->sys_version = h->Version;
	t->unified_ids_version = h->UnifiedIDsVer;
	int rc = check_exact_size(off, UMT_FILE_SYSCALL_OFFSETS, count, 16, "RecordCount * 16");
	if (rc < 0 && !t->salvage.on)
		return rc;
	if (rc < 0 && (rc = reduce(t, UMT_FILE_SYSCALL_OFFSETS, rc, "pairs",
	                           pairs < count ? pairs : count)) < 0)
		return rc;
	t->sys_count = pairs < count ? pairs : count;
	return 0;
}

/* A context map that describes no register: what a lost one reads as. */
static const umt_context_map empty_map;

static int check_context_map(umt_trace *t)
{
	const struct umt_map *m = &t->files[UMT_FILE_CONTEXT_MAP];
	if (m->size < sizeof(umt_context_map))
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_CONTEXT_MAP, UMT_LOC_OFFSET, 0, m->size,
		                 "file of %llu bytes is shorter than the %u bytes of a context map",
		                 (unsigned long long)m->size, (unsigned)UMT_CONTEXT_MAP_SIZE);
	const umt_context_map *map = (const umt_context_map *)m->data;
	if (map->ElemCount > UMT_CONTEXT_MAP_REGS)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_CONTEXT_MAP, UMT_LOC_OFFSET, 0, 2,
		                 "ElemCount %u exceeds the %d entries of the map",
		                 (unsigned)map->ElemCount, UMT_CONTEXT_MAP_REGS);
	t->cmap = map;
	return 0;
}

static int check_ins(umt_trace *t)
{
	return check_itable(t, &ins_rules, &t->ins);
}
static int check_module(umt_trace *t)
{
	return check_itable(t, &module_rules, &t->module);
}
static int check_thread(umt_trace *t)
{
	return check_itable(t, &thread_rules, &t->thread);
}
static int check_aspace(umt_trace *t)
{
	return check_itable(t, &aspace_rules, &t->aspace);
}

/*
 * The checks of open, in order, each with the files it reads. In salvage
 * mode a failed check (or a file of it that could not be opened) makes
 * those files unavailable, and the table reads as empty (as set up by
 * trace_new()), except the execution table, which check_exec() salvages.
 */
static const struct {
	int (*check)(umt_trace *t);
	int files[2]; /* -1: none */
} checks[] = {
	{check_exec, {UMT_FILE_EXEC_VTABLE, -1}}, /* exec.offsets: salvaged within */
	{check_prev_next, {UMT_FILE_EXEC_PREV_NEXT, -1}},
	{check_syscall, {UMT_FILE_SYSCALL_VTABLE, UMT_FILE_SYSCALL_OFFSETS}},
	{check_ins, {UMT_FILE_INS, -1}},
	{check_module, {UMT_FILE_MODULE, -1}},
	{check_thread, {UMT_FILE_THREAD, -1}},
	{check_aspace, {UMT_FILE_ADDRESS_SPACE, -1}},
	{check_context_map, {UMT_FILE_CONTEXT_MAP, -1}},
};

/* Whether a file of check @p c could not be opened (salvage mode only). */
static bool lost_file(const umt_trace *t, size_t c)
{
	for (int i = 0; i < 2; i++) {
		int f = checks[c].files[i];
		if (f >= 0 && t->salvage.status[f] == UMT_FILE_UNAVAILABLE)
			return true;
	}
	return false;
}

/*
 * Salvage: the table of check @p c is lost. A failed check (@p rc) blames
 * its first file; a file that could not be opened was marked then.
 */
static int lose_table(umt_trace *t, size_t c, int rc)
{
	int f = checks[c].files[0];
	if (rc < 0 && (rc = umt__salvage_mark(t, f, UMT_FILE_UNAVAILABLE, rc, "%s",
	                                      umt__errmsg_after(f))) < 0)
		return rc;
	if (checks[c].check == check_syscall) { /* nothing reads the files then */
		t->sys_count = 0;
		t->sys_version = t->unified_ids_version = -1;
	}
	return 0;
}

static int check_all(umt_trace *t)
{
	for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
		/* a side table can be lost; the execution table is salvaged or fails */
		bool side = t->salvage.on && checks[c].check != check_exec;
		bool lost = side && lost_file(t, c);
		int rc = lost ? 0 : checks[c].check(t);
		if (lost || (rc < 0 && side))
			rc = lose_table(t, c, rc);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- open / close ------------------------------------------------------ */

static umt_trace *trace_new(unsigned flags)
{
	umt_trace *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->dirfd = -1;
	t->salvage.on = (flags & UMT_OPEN_SALVAGE) != 0;
	t->cmap = &empty_map;
	t->ins.record_ver = t->module.record_ver = -1;
	t->thread.record_ver = t->aspace.record_ver = -1;
	t->sys_version = t->unified_ids_version = -1;
	t->lazy = &t->lazy_parts;
	umt__lazy_init(t->lazy);
	return t;
}

/* The umt_advice of open flags, or -1 for bad flags (unknown bits, two hints). */
static int flags_advice(unsigned flags)
{
	switch (flags & ~(unsigned)UMT_OPEN_SALVAGE) {
	case 0: return UMT_ADVISE_NORMAL;
	case UMT_OPEN_SEQUENTIAL: return UMT_ADVISE_SEQUENTIAL;
	case UMT_OPEN_RANDOM: return UMT_ADVISE_RANDOM;
	default: return -1;
	}
}

static int finish_open(umt_trace *t, umt_trace **out)
{
	int rc = check_all(t);
	if (rc == 0 && t->open_advice != UMT_ADVISE_NORMAL) {
		for (int f = UMT_FILE_EXEC_VTABLE; rc == 0 && f <= UMT_FILE_EXEC_OFFSETS; f++)
			rc = umt__map_advise(&t->files[f], f, 0, t->files[f].size, t->open_advice);
	}
	if (rc < 0) {
		umt_trace_close(t);
		return rc;
	}
	*out = t;
	return 0;
}

/*
 * exec.vtable is missing: UMT_E_INCOMPLETE when other files of a trace or a
 * writer's temporaries are there (exec.vtable is the writer's commit record,
 * see commit.h), else @p rc (UMT_E_MISSING).
 */
static int missing_commit(int dirfd, const char *dir, int rc)
{
	const char *names[UMT_FILE_COUNT];
	size_t n = 0;
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		if (f != UMT_FILE_EXEC_VTABLE)
			names[n++] = umt_file_name(f);
	if (!umt__commit_leftovers(dirfd, names, n))
		return rc;
	return umt__failf(UMT_E_INCOMPLETE,
	                  "%s: incomplete trace: the writer did not finish (exec.vtable, "
	                  "written last, is missing)", dir);
}

/* Maps (or, for exec.prev_next.column, stats) file @p f; in salvage mode a failure loses it. */
static int open_file(umt_trace *t, int f)
{
	struct umt_map *m = &t->files[f];
	int rc = f == UMT_FILE_EXEC_PREV_NEXT ? umt__stat_file(t->dirfd, f, false, m)
	                                      : umt__map_file(t->dirfd, f, f == UMT_FILE_TRACE_XML, m);
	if (rc < 0 && t->salvage.on) {
		umt__unmap(m); /* nothing of it is used */
		rc = umt__salvage_mark(t, f, UMT_FILE_UNAVAILABLE, rc, "%s", umt__errmsg_after(f));
	}
	return rc;
}

int umt_trace_open(const char *dir, unsigned flags, umt_trace **out)
{
	if (dir == NULL || out == NULL || flags_advice(flags) < 0)
		return umt__failf(UMT_E_INVAL, "umt_trace_open: invalid argument");
	*out = NULL;
	umt_trace *t = trace_new(flags);
	if (t == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_trace_open: out of memory");
	t->open_advice = flags_advice(flags);
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	if (t->dirfd < 0) {
		int err = errno;
		umt_trace_close(t);
		return umt__failf(err == ENOENT ? UMT_E_MISSING : UMT_E_IO,
		                  "%s: cannot open trace directory: %s", dir, strerror(err));
	}
	/* exec.vtable first: without it there is no trace, salvaged or not. */
	int rc = umt__map_file(t->dirfd, UMT_FILE_EXEC_VTABLE, false,
	                       &t->files[UMT_FILE_EXEC_VTABLE]);
	if (rc == UMT_E_MISSING)
		rc = missing_commit(t->dirfd, dir, rc);
	for (int f = UMT_FILE_EXEC_VTABLE + 1; rc == 0 && f < UMT_FILE_COUNT; f++)
		rc = open_file(t, f);
	if (rc < 0) {
		umt_trace_close(t);
		return rc;
	}
	return finish_open(t, out);
}

int umt_trace_open_mem(const umt_buffer files[UMT_FILE_COUNT], unsigned flags,
                       umt_trace **out)
{
	if (files == NULL || out == NULL || flags_advice(flags) < 0)
		return umt__failf(UMT_E_INVAL, "umt_trace_open_mem: invalid argument");
	*out = NULL;
	umt_trace *t = trace_new(flags);
	if (t == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_trace_open_mem: out of memory");
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		umt__map_buffer(&files[f], &t->files[f]);
		if (t->files[f].present || f == UMT_FILE_TRACE_XML)
			continue;
		int rc = umt__fail(UMT_E_MISSING, f, UMT_LOC_NONE, 0, 0, "missing (no buffer given)");
		if (t->salvage.on && f != UMT_FILE_EXEC_VTABLE)
			rc = umt__salvage_mark(t, f, UMT_FILE_UNAVAILABLE, rc, "missing (no buffer given)");
		if (rc < 0) {
			umt_trace_close(t);
			return rc;
		}
	}
	return finish_open(t, out);
}

void umt_trace_close(umt_trace *t)
{
	if (t == NULL)
		return;
	umt__lazy_release(t->lazy);
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		umt__unmap(&t->files[f]);
	umt__salvage_release(t);
	if (t->dirfd >= 0)
		close(t->dirfd);
	free(t);
}

/* ---- file changes -------------------------------------------------------- */

int umt_trace_changed(const umt_trace *t)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_trace_changed: invalid argument");
	if (t->dirfd < 0)
		return 0; /* caller buffers */
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		const struct umt_map *m = &t->files[f];
		struct stat st;
		bool now = fstatat(t->dirfd, umt_file_name(f), &st, 0) == 0;
		if (now != m->present)
			return 1;
		if (now && ((uint64_t)st.st_size != m->size || st.st_ino != m->ino ||
		            st.st_dev != m->dev || st.st_mtim.tv_sec != m->mtime.tv_sec ||
		            st.st_mtim.tv_nsec != m->mtime.tv_nsec))
			return 1;
	}
	return 0;
}

/* ---- header values ------------------------------------------------------ */

uint64_t umt_trace_file_size(const umt_trace *t, int file)
{
	if (t == NULL || file < 0 || file >= UMT_FILE_COUNT)
		return 0;
	return t->files[file].size;
}

int umt_trace_file_stamp(const umt_trace *t, int file, umt_file_stamp *out)
{
	if (t == NULL || out == NULL || file < 0 || file >= UMT_FILE_COUNT)
		return umt__failf(UMT_E_INVAL, "umt_trace_file_stamp: invalid argument");
	const struct umt_map *m = &t->files[file];
	memset(out, 0, sizeof *out);
	out->size = m->size;
	out->mtime_sec = (int64_t)m->mtime.tv_sec;
	out->mtime_nsec = (int64_t)m->mtime.tv_nsec;
	out->present = m->present;
	/* exec.prev_next.column has no header and is mapped on first use: no head */
	if (file != UMT_FILE_EXEC_PREV_NEXT && m->present && m->data) {
		out->head = m->data;
		out->head_size = (size_t)(m->size < 64 ? m->size : 64);
	}
	return 0;
}

/* The salvage part of umt_trace_info. */
static void salvage_info(const umt_trace *t, umt_trace_info *out)
{
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		out->file_status[f] = t->salvage.status[f];
		out->file_problem[f] = t->salvage.why[f];
		if (out->file_status[f] != UMT_FILE_INTACT)
			out->salvaged = 1;
	}
	out->exec_declared = t->exec_declared;
	out->ins_declared = t->ins.declared;
	out->syscall_declared = t->sys_declared;
	out->module_declared = t->module.declared;
	out->thread_declared = t->thread.declared;
	out->address_range_declared = t->aspace.declared;
}

int umt_trace_get_info(const umt_trace *t, umt_trace_info *out)
{
	if (t == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_trace_get_info: invalid argument");
	memset(out, 0, sizeof *out);
	out->exec_count = t->exec_count;
	out->exec_version = t->exec_version;
	out->ins_record_version = t->ins.record_ver;
	out->ins_count = t->ins.count;
	out->syscall_count = t->sys_count;
	out->syscall_version = t->sys_version;
	out->unified_ids_version = t->unified_ids_version;
	out->module_count = t->module.count;
	out->module_row_size = t->module.row_size;
	out->thread_count = t->thread.count;
	out->thread_row_size = t->thread.row_size;
	out->address_range_count = t->aspace.count;
	out->dump_size = t->cmap->DumpSize;
	out->context_map_elems = t->cmap->ElemCount;
	out->has_trace_xml = t->files[UMT_FILE_TRACE_XML].present;
	salvage_info(t, out);
	return 0;
}

uint64_t umt_exec_count(const umt_trace *t)
{
	return t ? t->exec_count : 0;
}
