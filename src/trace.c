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

static int check_extra(const struct umt_map *m, const struct itable_rules *r,
                       struct umt_itable *out)
{
	const umt_extra_table_header *h = (const umt_extra_table_header *)m->data;
	int64_t fp = h->ExtraFP, size = h->ExtraSize;
	if (fp < 0 || (uint64_t)fp > m->size)
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 32,
		                 "ExtraFP 0x%llx is outside the file (%llu bytes)",
		                 (unsigned long long)fp, (unsigned long long)m->size);
	if (size < 0 || !umt__span_ok((uint64_t)fp, (uint64_t)size, m->size))
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 40,
		                 "ExtraSize %lld at ExtraFP 0x%llx runs past the end of the file (%llu bytes)",
		                 (long long)size, (unsigned long long)fp,
		                 (unsigned long long)m->size);
	out->extra = m->data + fp;
	out->extra_fp = (uint64_t)fp;
	out->extra_size = (uint64_t)size;
	return 0;
}

static int check_itable(const struct umt_map *m, const struct itable_rules *r,
                        struct umt_itable *out)
{
	memset(out, 0, sizeof *out);
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
	uint64_t count = (uint64_t)h->RowCount, row = (uint64_t)h->RowSize, bytes;
	if (__builtin_mul_overflow(count, row, &bytes))
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 8,
		                 "RowCount %llu * RowSize %llu overflows", (unsigned long long)count,
		                 (unsigned long long)row);
	if (h->TableFP < (int64_t)r->header_size ||
	    !umt__span_ok((uint64_t)h->TableFP, bytes, m->size))
		return umt__fail(UMT_E_BOUNDS, r->file, UMT_LOC_OFFSET, 0, 24,
		                 "table of %llu rows of %llu bytes at TableFP 0x%llx does not fit in the file (%llu bytes)",
		                 (unsigned long long)count, (unsigned long long)row,
		                 (unsigned long long)h->TableFP, (unsigned long long)m->size);
	out->rows = m->data + h->TableFP;
	out->count = count;
	out->row_size = row;
	out->table_fp = (uint64_t)h->TableFP;
	out->record_ver = h->RecordVer;
	if (r->header_size >= sizeof(umt_extra_table_header))
		return check_extra(m, r, out);
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
	if (vt->size < sizeof(umt_exec_vtable_header))
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, vt->size,
		                 "file of %llu bytes is shorter than its 16-byte header",
		                 (unsigned long long)vt->size);
	const umt_exec_vtable_header *h = (const umt_exec_vtable_header *)vt->data;
	if (h->Version != 0 && h->Version != 1)
		return umt__fail(UMT_E_VERSION, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, 0,
		                 "unsupported Version %d (0 and 1 are known)", h->Version);
	/* (RecordCount + 1) * 16 must not overflow: it bounds both index files. */
	if (h->RecordCount < 0 || (uint64_t)h->RecordCount >= UINT64_MAX / 16)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_VTABLE, UMT_LOC_OFFSET, 0, 8,
		                 "RecordCount %lld is out of range", (long long)h->RecordCount);
	uint64_t count = (uint64_t)h->RecordCount;
	int rc = check_exact_size(off, UMT_FILE_EXEC_OFFSETS, count + 1, 8,
	                          "(RecordCount + 1) * 8");
	if (rc < 0)
		return rc;
	rc = check_exact_size(&t->files[UMT_FILE_EXEC_PREV_NEXT], UMT_FILE_EXEC_PREV_NEXT, count,
	                      16, "RecordCount * 16");
	if (rc < 0)
		return rc;
	/* The first and last offsets bound every record: O(1) here, per record later. */
	uint64_t first = umt__ld64(off->data), last = umt__ld64(off->data + count * 8);
	if (count > 0 && first < sizeof(umt_exec_vtable_header))
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS, UMT_LOC_RECORD, 0, 0,
		                 "offset 0x%llx points into the exec.vtable header",
		                 (unsigned long long)first);
	if (last > vt->size || first > last)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_EXEC_OFFSETS, UMT_LOC_OFFSET, 0, count * 8,
		                 "end offset 0x%llx is outside exec.vtable (%llu bytes) or before the first record (0x%llx)",
		                 (unsigned long long)last, (unsigned long long)vt->size,
		                 (unsigned long long)first);
	t->exec_records = vt->data;
	t->exec_size = vt->size;
	t->exec_offsets = off->data;
	t->exec_count = count;
	t->exec_version = h->Version;
	return 0;
}

static int check_syscall(umt_trace *t)
{
	const struct umt_map *vt = &t->files[UMT_FILE_SYSCALL_VTABLE];
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
	uint64_t count = (uint64_t)h->RecordCount;
	int rc = check_exact_size(&t->files[UMT_FILE_SYSCALL_OFFSETS], UMT_FILE_SYSCALL_OFFSETS,
	                          count, 16, "RecordCount * 16");
	if (rc < 0)
		return rc;
	t->sys_records = vt->data;
	t->sys_size = vt->size;
	t->sys_offsets = t->files[UMT_FILE_SYSCALL_OFFSETS].data;
	t->sys_count = count;
	t->sys_version = h->Version;
	t->unified_ids_version = h->UnifiedIDsVer;
	return 0;
}

static int check_context_map(umt_trace *t)
{
	const struct umt_map *m = &t->files[UMT_FILE_CONTEXT_MAP];
	if (m->size < sizeof(umt_context_map))
		return umt__fail(UMT_E_TRUNCATED, UMT_FILE_CONTEXT_MAP, UMT_LOC_OFFSET, 0, m->size,
		                 "file of %llu bytes is shorter than the %u bytes of a context map",
		                 (unsigned long long)m->size, (unsigned)UMT_CONTEXT_MAP_SIZE);
	t->cmap = (const umt_context_map *)m->data;
	if (t->cmap->ElemCount > UMT_CONTEXT_MAP_REGS)
		return umt__fail(UMT_E_BOUNDS, UMT_FILE_CONTEXT_MAP, UMT_LOC_OFFSET, 0, 2,
		                 "ElemCount %u exceeds the %d entries of the map",
		                 (unsigned)t->cmap->ElemCount, UMT_CONTEXT_MAP_REGS);
	return 0;
}

static int check_all(umt_trace *t)
{
	int rc;
	if ((rc = check_exec(t)) < 0 || (rc = check_syscall(t)) < 0 ||
	    (rc = check_itable(&t->files[UMT_FILE_INS], &ins_rules, &t->ins)) < 0 ||
	    (rc = check_itable(&t->files[UMT_FILE_MODULE], &module_rules, &t->module)) < 0 ||
	    (rc = check_itable(&t->files[UMT_FILE_THREAD], &thread_rules, &t->thread)) < 0 ||
	    (rc = check_itable(&t->files[UMT_FILE_ADDRESS_SPACE], &aspace_rules, &t->aspace)) < 0 ||
	    (rc = check_context_map(t)) < 0)
		return rc;
	return 0;
}

/* ---- open / close ------------------------------------------------------ */

static umt_trace *trace_new(void)
{
	umt_trace *t = calloc(1, sizeof *t);
	if (t == NULL)
		return NULL;
	t->dirfd = -1;
	pthread_mutex_init(&t->lazy_lock, NULL);
	atomic_init(&t->prev_next, NULL);
	atomic_init(&t->ins_checked, NULL);
	atomic_init(&t->exec_checked, NULL);
	atomic_init(&t->module_index, NULL);
	atomic_init(&t->meta, NULL);
	atomic_init(&t->access_plans, NULL);
	return t;
}

/* The umt_advice of open flags, or -1 for bad flags. */
static int flags_advice(unsigned flags)
{
	switch (flags) {
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

int umt_trace_open(const char *dir, unsigned flags, umt_trace **out)
{
	if (dir == NULL || out == NULL || flags_advice(flags) < 0)
		return umt__failf(UMT_E_INVAL, "umt_trace_open: invalid argument");
	*out = NULL;
	umt_trace *t = trace_new();
	if (t == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_trace_open: out of memory");
	t->open_advice = flags_advice(flags);
	t->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0) {
		int err = errno;
		umt_trace_close(t);
		return umt__failf(err == ENOENT ? UMT_E_MISSING : UMT_E_IO,
		                  "%s: cannot open trace directory: %s", dir, strerror(err));
	}
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		int rc;
		if (f == UMT_FILE_EXEC_PREV_NEXT)
			rc = umt__stat_file(t->dirfd, f, false, &t->files[f]);
		else
			rc = umt__map_file(t->dirfd, f, f == UMT_FILE_TRACE_XML, &t->files[f]);
		if (rc == UMT_E_MISSING && f == UMT_FILE_EXEC_VTABLE)
			rc = missing_commit(t->dirfd, dir, rc);
		if (rc < 0) {
			umt_trace_close(t);
			return rc;
		}
	}
	return finish_open(t, out);
}

int umt_trace_open_mem(const umt_buffer files[UMT_FILE_COUNT], unsigned flags,
                       umt_trace **out)
{
	if (files == NULL || out == NULL || flags_advice(flags) < 0)
		return umt__failf(UMT_E_INVAL, "umt_trace_open_mem: invalid argument");
	*out = NULL;
	umt_trace *t = trace_new();
	if (t == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_trace_open_mem: out of memory");
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		umt__map_buffer(&files[f], &t->files[f]);
		if (!t->files[f].present && f != UMT_FILE_TRACE_XML) {
			umt_trace_close(t);
			return umt__fail(UMT_E_MISSING, f, UMT_LOC_NONE, 0, 0, "missing (no buffer given)");
		}
	}
	atomic_store(&t->prev_next, t->files[UMT_FILE_EXEC_PREV_NEXT].data);
	return finish_open(t, out);
}

void umt_trace_close(umt_trace *t)
{
	if (t == NULL)
		return;
	umt__exec_release(t);
	umt__ins_release(t);
	umt__module_release(t);
	umt__meta_release(t);
	umt__access_release(t);
	for (int f = 0; f < UMT_FILE_COUNT; f++)
		umt__unmap(&t->files[f]);
	if (t->dirfd >= 0)
		close(t->dirfd);
	pthread_mutex_destroy(&t->lazy_lock);
	free(t);
}

const uint8_t *umt__prev_next(const umt_trace *ct)
{
	umt_trace *t = (umt_trace *)(uintptr_t)ct; /* lazily filled cache */
	const uint8_t *p = atomic_load_explicit(&t->prev_next, memory_order_acquire);
	if (UMT_LIKELY(p != NULL))
		return p;
	pthread_mutex_lock(&t->lazy_lock);
	p = atomic_load_explicit(&t->prev_next, memory_order_relaxed);
	if (p == NULL && umt__map_later(t->dirfd, UMT_FILE_EXEC_PREV_NEXT,
	                                &t->files[UMT_FILE_EXEC_PREV_NEXT]) == 0) {
		p = t->files[UMT_FILE_EXEC_PREV_NEXT].data;
		if (t->open_advice != UMT_ADVISE_NORMAL) /* a hint: failure to apply it is harmless */
			umt__map_advise(&t->files[UMT_FILE_EXEC_PREV_NEXT], UMT_FILE_EXEC_PREV_NEXT, 0,
			                t->files[UMT_FILE_EXEC_PREV_NEXT].size, t->open_advice);
		atomic_store_explicit(&t->prev_next, p, memory_order_release);
	}
	pthread_mutex_unlock(&t->lazy_lock);
	return p;
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
	const uint8_t *data = m->data;
	if (file == UMT_FILE_EXEC_PREV_NEXT && (data = umt__prev_next(t)) == NULL)
		return UMT_E_IO; /* message set by the mapping */
	out->head = data;
	out->head_size = m->present ? (size_t)(m->size < 64 ? m->size : 64) : 0;
	return 0;
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
	return 0;
}

uint64_t umt_exec_count(const umt_trace *t)
{
	return t ? t->exec_count : 0;
}
