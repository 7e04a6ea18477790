/*
 * libumtrace - the trace writer: open, the tables, finish (see writer.h;
 * execution records are in writer_exec.c, trace.xml in writer_xml.c).
 *
 * Every file is written under a temporary name and committed at finish
 * (commit.h): exec.vtable, the commit record, is renamed into place last,
 * so that a reader never sees a mix of an old and a new trace and a process
 * that has the old trace mapped keeps reading it. The big files stream
 * through buffers written by a background thread (outfile.c). The
 * instruction table spills its rows and extra area to two scratch files
 * that finish() concatenates. Syscall offsets and the small tables
 * (modules, threads, address ranges) are kept in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer.h"

#define DEFAULT_BUFFER (4u << 20)
#define MIN_BUFFER (64u << 10)
/* insRec rows are written 64 bytes long, as real traces have them: the 56
 * bytes of umt_ins_rec and 8 zero bytes. */
#define INS_ROW_SIZE 64

/* ---- sticky errors ---------------------------------------------------------- */

int umt__writer_stick(umt_writer *w, int rc)
{
	if (rc < 0 && w->failed == 0) {
		w->failed = rc;
		snprintf(w->failed_msg, sizeof w->failed_msg, "%s", umt_errmsg());
	}
	return rc;
}

int umt__writer_sticky(const umt_writer *w, const char *fn)
{
	return umt__failf(w->failed, "%s: an earlier call failed, the writer must be aborted: %s",
	                  fn, w->failed_msg);
}

static int write_all(int fd, const char *name, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "%s: cannot write: %s", name,
			                  strerror(k < 0 ? errno : EIO));
		b += k;
		n -= (size_t)k;
	}
	umt__commit_point(UMT_COMMIT_WROTE, name);
	return 0;
}

/* ---- options, open, abort ---------------------------------------------------- */

void umt_writer_options_init(umt_writer_options *o, int flavour)
{
	memset(o, 0, sizeof *o);
	bool old = flavour == UMT_FLAVOUR_2014;
	o->flavour = old ? UMT_FLAVOUR_2014 : UMT_FLAVOUR_2015;
	o->exec_version = old ? 0 : 1;
	o->ins_record_version = old ? 0 : 1;
	o->unified_ids_version = old ? 0 : 1;
	o->module_row_size = old ? 48 : 64;
	o->thread_row_size = 40;
	o->write_trace_xml = 1;
	o->xml_root = old ? 0 : 1;
	o->buffer_size = DEFAULT_BUFFER;
	umt_writer_xml *x = &o->xml;
	x->xed_version = old ? "20140106" : "20150121";
	x->process_id = "4242";
	x->bitness = "64";
	x->app_command_line = "\"C:\\Windows\\System32\\notepad.exe\"";
	x->os_id = "06010110";
	x->os_name = "Windows 7 SP1 64-bits";
	x->pin_version = old ? "2.13.62732" : "2.14.71313";
	x->pin_command_line = "pin.exe -t UMTracer.dll -- notepad.exe";
	x->has_xmm = "1";
	x->has_ymm = "1";
	x->has_zmm = "0";
	x->raw_trace_date = old ? NULL : "2015-07-01T12:00:00";
	x->umtracer_version = old ? NULL : "4.0";
}

/* Frees everything; the temporaries are removed unless they were committed. */
static void release(umt_writer *w)
{
	struct umt_ostream *streams[] = {&w->vtable, &w->offsets, &w->prev_next,
	                                 &w->ins_rows, &w->ins_extra, &w->sys};
	for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
		umt__os_release(streams[i]);
	umt__out_stop(w->out);
	umt__commit_abort(w->commit); /* after the I/O thread stopped using the files */
	free(w->sys_index.p);
	free(w->mod_rows.p);
	free(w->mod_extra.p);
	free(w->ranges.p);
	free(w->threads);
	if (w->dirfd >= 0)
		close(w->dirfd);
	free(w);
}

void umt_writer_abort(umt_writer *w)
{
	if (w)
		release(w);
}

static int check_options(const umt_writer_options *o)
{
	if ((o->exec_version != 0 && o->exec_version != 1) ||
	    (o->ins_record_version != 0 && o->ins_record_version != 1) ||
	    (o->unified_ids_version != 0 && o->unified_ids_version != 1) ||
	    (o->module_row_size != 48 && o->module_row_size != 64) ||
	    (o->thread_row_size != 40 && o->thread_row_size != 48))
		return umt__failf(UMT_E_INVAL, "umt_writer_open: unsupported option value");
	if (o->buffer_size > UMT_WRITER_MAX_BUFFER)
		return umt__failf(UMT_E_INVAL, "umt_writer_open: buffer_size %zu is above %zu",
		                  o->buffer_size, (size_t)UMT_WRITER_MAX_BUFFER);
	return umt__xml_check(o);
}

/* A stream into a new temporary of @p name. */
static int open_stream(umt_writer *w, struct umt_ostream *s, const char *name, size_t cap)
{
	int fd;
	int rc = umt__commit_create(w->commit, name, &fd);
	return rc < 0 ? rc : umt__os_open(w->out, s, fd, name, cap);
}

/* A stream into a scratch file of ins.itable; *fd keeps it for reading back. */
static int open_scratch(umt_writer *w, struct umt_ostream *s, int *fd, size_t cap)
{
	int rc = umt__commit_scratch(w->commit, "ins.itable", fd);
	return rc < 0 ? rc : umt__os_open(w->out, s, *fd, "ins.itable", cap);
}

static int open_streams(umt_writer *w, const char *dir)
{
	size_t big = w->opt.buffer_size, small = MIN_BUFFER;
	size_t mid = big < (1u << 20) ? big : (1u << 20); /* the instruction table is smaller */
	int rc = umt__commit_begin(w->dirfd, dir, "exec.vtable", &w->commit);
	if (rc < 0 || (rc = umt__out_start(&w->out)) < 0 ||
	    (rc = open_stream(w, &w->vtable, "exec.vtable", big)) < 0 ||
	    (rc = open_stream(w, &w->offsets, "exec.offsets", big)) < 0 ||
	    (rc = open_stream(w, &w->prev_next, "exec.prev_next.column", big)) < 0 ||
	    (rc = open_scratch(w, &w->ins_rows, &w->ins_rows_fd, mid)) < 0 ||
	    (rc = open_scratch(w, &w->ins_extra, &w->ins_extra_fd, mid)) < 0 ||
	    (rc = open_stream(w, &w->sys, "syscall.vtable", small)) < 0)
		return rc;
	/* Headers are rewritten by finish(); reserve their bytes now. */
	if ((rc = umt__os_zeros(&w->vtable, sizeof(umt_exec_vtable_header))) < 0 ||
	    (rc = umt__os_zeros(&w->sys, sizeof(umt_syscall_vtable_header))) < 0)
		return rc;
	return 0;
}

/* The writer's directory: created if missing, opened. */
static int open_dir(umt_writer *w, const char *dir)
{
	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
		return umt__failf(UMT_E_IO, "%s: cannot create directory: %s", dir, strerror(errno));
	w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0)
		return umt__failf(UMT_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
	return 0;
}

int umt_writer_open(const char *dir, const umt_writer_options *o, umt_writer **out)
{
	if (dir == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_open: invalid argument");
	*out = NULL;
	umt_writer_options opt;
	if (o)
		opt = *o;
	else
		umt_writer_options_init(&opt, UMT_FLAVOUR_2015);
	int rc = check_options(&opt); /* before anything happens on disk */
	if (rc < 0)
		return rc;
	if (opt.buffer_size == 0)
		opt.buffer_size = DEFAULT_BUFFER;
	if (opt.buffer_size < MIN_BUFFER)
		opt.buffer_size = MIN_BUFFER;
	umt_writer *w = calloc(1, sizeof *w);
	if (w == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_writer_open: out of memory");
	w->dirfd = -1;
	w->opt = opt;
	umt_context_map_default(&w->cmap, opt.ins_record_version, opt.xml.xed_version);
	rc = open_dir(w, dir);
	if (rc == 0)
		rc = open_streams(w, dir);
	if (rc < 0) {
		release(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* ---- instruction table ---------------------------------------------------- */

int umt_writer_add_disasm(umt_writer *w, const char *text, int64_t *fp)
{
	int rc = umt__writer_usable(w, "umt_writer_add_disasm");
	if (rc < 0)
		return rc;
	if (text == NULL || fp == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_disasm: invalid argument");
	size_t n = strlen(text);
	if (n > INT16_MAX)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_disasm: string of %zu bytes", n);
	int16_t len = (int16_t)n;
	int64_t at = (int64_t)umt__os_tell(&w->ins_extra);
	rc = umt__os_write(&w->ins_extra, &len, sizeof len);
	if (rc == 0)
		rc = umt__os_write(&w->ins_extra, text, n + 1);
	if (rc < 0)
		return umt__writer_stick(w, rc);
	*fp = at;
	return 0;
}

int umt_writer_add_decoded(umt_writer *w, const umt_decoded_ins *d, const umt_lc_slot *slots,
                           int64_t *fp)
{
	int rc = umt__writer_usable(w, "umt_writer_add_decoded");
	if (rc < 0)
		return rc;
	if (d == NULL || fp == NULL || (d->LCCount > 0 && slots == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_decoded: invalid argument");
	int64_t at = (int64_t)umt__os_tell(&w->ins_extra);
	rc = umt__os_write(&w->ins_extra, d, sizeof *d);
	if (rc == 0 && d->LCCount) /* LCCount is 8-bit: at most 255 slots */
		rc = umt__os_write(&w->ins_extra, slots, (size_t)d->LCCount * sizeof *slots);
	if (rc < 0)
		return umt__writer_stick(w, rc);
	*fp = at;
	return 0;
}

int umt_writer_add_ins(umt_writer *w, const umt_ins_rec *row, int64_t *id)
{
	int rc = umt__writer_usable(w, "umt_writer_add_ins");
	if (rc < 0)
		return rc;
	if (row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_ins: invalid argument");
	uint8_t bytes[INS_ROW_SIZE] = {0};
	umt_ins_rec r = *row; /* the 56 bytes the format defines, no more */
	r.ID = w->ins_count;
	memcpy(bytes, &r, sizeof r);
	rc = umt__os_write(&w->ins_rows, bytes, sizeof bytes);
	if (rc < 0)
		return umt__writer_stick(w, rc);
	if (id)
		*id = w->ins_count;
	w->ins_count++;
	return 0;
}

/* ---- system calls ----------------------------------------------------------- */

/* Checks a syscall record; *size receives its bytes. */
static int check_syscall(const umt_writer *w, int64_t id, const umt_syscall_desc *d,
                         uint64_t *size)
{
	if (d == NULL || (d->arg_count && d->args == NULL) || (d->extras_size && d->extras == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_syscall: invalid argument");
	if (id < 0 || id >= UMT_WRITER_SYSCALL_ID_LIMIT)
		return umt__failf(UMT_E_INVAL,
		                  "umt_writer_add_syscall: syscall ID %lld is outside [0, 2^32)",
		                  (long long)id);
	size_t slot = (size_t)id * sizeof(umt_offset_size); /* < 2^36 */
	if (slot < w->sys_index.len && ((const umt_offset_size *)(w->sys_index.p + slot))->Offset != 0)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_syscall: syscall %lld written twice",
		                  (long long)id);
	uint64_t n = sizeof(umt_syscall_rec) + (uint64_t)d->arg_count * 8; /* arg_count < 256 */
	if (__builtin_add_overflow(n, d->extras_size, &n) ||
	    n > (uint64_t)INT64_MAX - umt__os_tell(&w->sys))
		return umt__failf(UMT_E_INVAL,
		                  "umt_writer_add_syscall: %llu extra bytes would end past 2^63 in syscall.vtable",
		                  (unsigned long long)d->extras_size);
	*size = n;
	return 0;
}

/* Grows the syscall index to hold ID @p id (new slots zero: not written). */
static int grow_sys_index(umt_writer *w, int64_t id)
{
	size_t need = ((size_t)id + 1) * sizeof(umt_offset_size);
	if (need <= w->sys_index.len)
		return 0;
	int rc = umt__mb_reserve(&w->sys_index, need - w->sys_index.len);
	if (rc < 0)
		return rc;
	memset(w->sys_index.p + w->sys_index.len, 0, need - w->sys_index.len);
	w->sys_index.len = need;
	return 0;
}

int umt_writer_add_syscall(umt_writer *w, int64_t id, const umt_syscall_desc *d)
{
	int rc = umt__writer_usable(w, "umt_writer_add_syscall");
	uint64_t size = 0;
	if (rc < 0 || (rc = check_syscall(w, id, d, &size)) < 0 || (rc = grow_sys_index(w, id)) < 0)
		return rc; /* a grown index of empty slots is not a change: finish reads sys_count */
	uint64_t at = umt__os_tell(&w->sys);
	uint64_t args_fp = sizeof(umt_syscall_rec);
	uint64_t extras_fp = args_fp + (uint64_t)d->arg_count * 8;
	umt_syscall_rec r = {
		.RawID = d->raw_id, .UniformID = d->uniform_id, .Convention = d->convention,
		.Completed = d->completed, .ArgCount = d->arg_count, .ExtraCount = d->extra_count,
		.BeginEID = d->begin_eid, .EndEID = d->end_eid, .BeforeSP = d->before_sp,
		.Result = d->result,
		.ArgsFP = (int64_t)(d->args_fp_absolute ? at + args_fp : args_fp),
		.ExtrasFP = (int64_t)extras_fp,
	};
	rc = umt__os_write(&w->sys, &r, sizeof r);
	if (rc == 0 && d->arg_count)
		rc = umt__os_write(&w->sys, d->args, (size_t)d->arg_count * 8);
	if (rc == 0 && d->extras_size)
		rc = umt__os_write(&w->sys, d->extras, d->extras_size);
	if (rc < 0)
		return umt__writer_stick(w, rc);
	umt_offset_size *slot = (umt_offset_size *)(w->sys_index.p + (size_t)id * sizeof *slot);
	slot->Offset = (int64_t)at;
	slot->Size = (int64_t)size;
	if (id >= w->sys_count)
		w->sys_count = id + 1;
	return 0;
}

/* ---- modules, address space, context map --------------------------------- */

/* Appends a uStr to the module extra area; *rel is made absolute at finish. */
static int put_ustr(umt_writer *w, const char *utf8, const uint16_t *u16, size_t u16_len,
                    int64_t *rel)
{
	uint16_t *conv = NULL; /* UTF-16 needs at most one unit per UTF-8 byte */
	const uint16_t *units = u16;
	long n = u16_len > INT16_MAX ? -1 : (long)u16_len;
	if (u16 == NULL) {
		size_t cap = strlen(utf8 ? utf8 : "") + 1;
		conv = malloc(cap * sizeof *conv);
		if (conv == NULL)
			return umt__failf(UMT_E_NOMEM, "writer: out of memory");
		n = umt__utf8_to_utf16(utf8 ? utf8 : "", conv, cap);
		units = conv;
	}
	int rc = 0;
	if (n < 0 || n > INT16_MAX)
		rc = umt__failf(UMT_E_INVAL,
		                "umt_writer_add_module: name is not valid UTF-8 or longer than 32767 units");
	*rel = (int64_t)w->mod_extra.len;
	int16_t len = (int16_t)n;
	uint16_t nul = 0;
	if (rc == 0)
		rc = umt__mb_put(&w->mod_extra, &len, sizeof len);
	if (rc == 0)
		rc = umt__mb_put(&w->mod_extra, units, (size_t)n * 2);
	if (rc == 0)
		rc = umt__mb_put(&w->mod_extra, &nul, sizeof nul);
	free(conv);
	return rc;
}

int umt_writer_add_module(umt_writer *w, const umt_module_desc *m, int64_t *id)
{
	int rc = umt__writer_usable(w, "umt_writer_add_module");
	if (rc < 0)
		return rc;
	if (m == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_module: invalid argument");
	umt_module_rec_2015 r = {
		.LoadEID = m->load_eid, .UnloadEID = m->unload_eid, .StartAddr = m->start_addr,
		.EndAddr = m->end_addr, .LastFileWriteTime = m->last_file_write_time,
	};
	memcpy(r.VersionInfo, m->version_info, sizeof r.VersionInfo);
	/* FPs are stored relative to the extra area here, made absolute at finish. */
	size_t mark = w->mod_extra.len;
	rc = put_ustr(w, m->win_name, m->win_name_utf16, m->win_name_utf16_len, &r.WinNameFP);
	if (rc == 0)
		rc = put_ustr(w, m->device_name, m->device_name_utf16, m->device_name_utf16_len,
		              &r.DeviceNameFP);
	if (rc == 0)
		rc = umt__mb_put(&w->mod_rows, &r, w->opt.module_row_size);
	if (rc < 0) {
		w->mod_extra.len = mark; /* as before the call */
		return rc;
	}
	if (id)
		*id = w->mod_count;
	w->mod_count++;
	return 0;
}

int umt_writer_add_address_range(umt_writer *w, int64_t first, int64_t last)
{
	int rc = umt__writer_usable(w, "umt_writer_add_address_range");
	if (rc < 0)
		return rc;
	umt_address_range r = {first, last};
	return umt__mb_put(&w->ranges, &r, sizeof r);
}

int umt_writer_set_context_map(umt_writer *w, const umt_context_map *map)
{
	int rc = umt__writer_usable(w, "umt_writer_set_context_map");
	if (rc < 0)
		return rc;
	if (map == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_set_context_map: invalid argument");
	if (map->ElemCount > UMT_CONTEXT_MAP_REGS) /* open would refuse the trace */
		return umt__failf(UMT_E_INVAL,
		                  "umt_writer_set_context_map: ElemCount %u exceeds the %d entries of the map",
		                  (unsigned)map->ElemCount, UMT_CONTEXT_MAP_REGS);
	if (w->records_with_context && map->DumpSize != w->cmap.DumpSize)
		return umt__failf(UMT_E_INVAL,
		                  "umt_writer_set_context_map: DumpSize changed after records with a context");
	w->cmap = *map;
	return 0;
}

/* ---- finish ---------------------------------------------------------------- */

/* Writes file @p name (bytes a then b) into a new temporary. */
static int put_file(umt_writer *w, const char *name, const void *a, size_t an, const void *b,
                    size_t bn)
{
	int fd;
	int rc = umt__commit_create(w->commit, name, &fd);
	if (rc == 0)
		rc = write_all(fd, name, a, an);
	if (rc == 0 && bn)
		rc = write_all(fd, name, b, bn);
	return rc;
}

/* Copies scratch file @p fd (complete, @p size bytes) to the end of @p out. */
static int append_scratch(struct umt_ostream *out, int fd, uint64_t size)
{
	for (uint64_t at = 0; at < size;) {
		/* read straight into the stream's buffer, then keep what came */
		size_t want = size - at < out->cap ? (size_t)(size - at) : out->cap;
		uint8_t *dst = umt__os_reserve(out, want);
		if (dst == NULL)
			return UMT_E_IO;
		ssize_t k = pread(fd, dst, want, (off_t)at);
		out->len -= want - (k > 0 ? (size_t)k : 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "ins.itable: cannot read back a scratch file: %s",
			                  k < 0 ? strerror(errno) : "it is shorter than written");
		at += (uint64_t)k;
	}
	return 0;
}

static int finish_exec(umt_writer *w)
{
	uint64_t end = umt__os_tell(&w->vtable);
	int rc = umt__os_write(&w->offsets, &end, sizeof end);
	umt_exec_vtable_header h = {.Version = w->opt.exec_version,
	                            .RecordCount = (int64_t)w->exec_count};
	if (rc == 0) /* after the write of the buffer that held the placeholder */
		rc = umt__os_patch(&w->vtable, 0, &h, sizeof h);
	if (rc == 0)
		rc = umt__os_close(&w->vtable);
	if (rc == 0)
		rc = umt__os_close(&w->offsets);
	if (rc == 0)
		rc = umt__os_close(&w->prev_next);
	return rc;
}

static int finish_ins(umt_writer *w)
{
	uint64_t rows = umt__os_tell(&w->ins_rows), extra = umt__os_tell(&w->ins_extra);
	int rc = umt__os_close(&w->ins_rows);
	if (rc == 0)
		rc = umt__os_close(&w->ins_extra);
	struct umt_ostream out = {.fd = -1};
	if (rc == 0)
		rc = open_stream(w, &out, "ins.itable", w->opt.buffer_size);
	umt_extra_table_header h = {
		.HeaderVer = 0, .RecordVer = w->opt.ins_record_version, .RowCount = w->ins_count,
		.RowSize = INS_ROW_SIZE, .TableFP = sizeof h,
		.ExtraFP = (int64_t)(sizeof h + rows), .ExtraSize = (int64_t)extra,
	};
	if (rc == 0)
		rc = umt__os_write(&out, &h, sizeof h);
	if (rc == 0)
		rc = append_scratch(&out, w->ins_rows_fd, rows);
	if (rc == 0)
		rc = append_scratch(&out, w->ins_extra_fd, extra);
	if (rc == 0)
		rc = umt__os_close(&out);
	umt__os_release(&out);
	return rc;
}

/* Every syscall ID below the largest written must have been written. */
static int check_syscalls_complete(const umt_writer *w)
{
	const umt_offset_size *idx = (const umt_offset_size *)w->sys_index.p;
	for (int64_t i = 0; i < w->sys_count; i++)
		if (idx[i].Offset == 0)
			return umt__failf(UMT_E_CORRUPT, "writer: syscall %lld was never written (%lld syscalls)",
			                  (long long)i, (long long)w->sys_count);
	return 0;
}

static int finish_syscalls(umt_writer *w)
{
	umt_syscall_vtable_header h = {0, w->opt.unified_ids_version, w->sys_count};
	int rc = umt__os_patch(&w->sys, 0, &h, sizeof h);
	if (rc == 0)
		rc = umt__os_close(&w->sys);
	if (rc == 0)
		rc = put_file(w, "syscall.offsets", w->sys_index.p,
		              (size_t)w->sys_count * sizeof(umt_offset_size), NULL, 0);
	return rc;
}

static int finish_modules(umt_writer *w)
{
	size_t row = w->opt.module_row_size;
	uint64_t extra_fp = sizeof(umt_extra_table_header) + (uint64_t)w->mod_count * row;
	for (int64_t i = 0; i < w->mod_count; i++) {
		umt_module_rec *r = (umt_module_rec *)(w->mod_rows.p + (size_t)i * row);
		r->WinNameFP += (int64_t)extra_fp;
		r->DeviceNameFP += (int64_t)extra_fp;
	}
	umt_extra_table_header h = {
		.HeaderVer = 0, .RecordVer = 0, .RowCount = w->mod_count, .RowSize = (int64_t)row,
		.TableFP = sizeof h, .ExtraFP = (int64_t)extra_fp,
		.ExtraSize = (int64_t)w->mod_extra.len,
	};
	struct umt_mbuf all = {0};
	int rc = umt__mb_put(&all, &h, sizeof h);
	if (rc == 0)
		rc = umt__mb_put(&all, w->mod_rows.p, w->mod_rows.len);
	if (rc == 0)
		rc = umt__mb_put(&all, w->mod_extra.p, w->mod_extra.len);
	if (rc == 0)
		rc = put_file(w, "module.itable", all.p, all.len, NULL, 0);
	free(all.p);
	return rc;
}

static int finish_threads(umt_writer *w)
{
	size_t row = w->opt.thread_row_size;
	umt_table_header h = {0, 0, w->thread_count, (int64_t)row, sizeof h};
	struct umt_mbuf all = {0};
	int rc = umt__mb_put(&all, &h, sizeof h);
	for (int32_t i = 0; rc == 0 && i < w->thread_count; i++) {
		const struct wthread *th = &w->threads[i];
		bool ended = th->last_type == UMT_REC_THREAD_END || th->last_type == UMT_REC_APP_END;
		uint8_t bytes[48] = {0};
		umt_thread_rec r = {i, th->win_tid, th->tib_addr, th->first,
		                    th->count && ended ? th->last : -1, th->count};
		memcpy(bytes, &r, sizeof r);
		rc = umt__mb_put(&all, bytes, row);
	}
	if (rc == 0)
		rc = put_file(w, "thread.itable", all.p, all.len, NULL, 0);
	free(all.p);
	return rc;
}

static int finish_small_tables(umt_writer *w)
{
	umt_table_header h = {0, 0, (int64_t)(w->ranges.len / sizeof(umt_address_range)),
	                      sizeof(umt_address_range), sizeof h};
	int rc = put_file(w, "address_space.itable", &h, sizeof h, w->ranges.p, w->ranges.len);
	if (rc == 0)
		rc = put_file(w, "context_map.itable", &w->cmap, sizeof w->cmap, NULL, 0);
	return rc;
}

static int finish_xml(umt_writer *w)
{
	if (w->opt.xml_text)
		return put_file(w, "trace.xml", w->opt.xml_text, strlen(w->opt.xml_text), NULL, 0);
	if (!w->opt.write_trace_xml) /* an old trace.xml must not stay with the new trace */
		return umt__commit_remove(w->commit, "trace.xml");
	struct umt_mbuf b = {0};
	int rc = umt__xml_build(&w->opt, &b);
	if (rc == 0)
		rc = put_file(w, "trace.xml", b.p, b.len, NULL, 0);
	free(b.p);
	return rc;
}

int umt_writer_finish(umt_writer *w)
{
	int rc = umt__writer_usable(w, "umt_writer_finish");
	if (w == NULL)
		return rc;
	if (rc == 0)
		rc = check_syscalls_complete(w);
	if (rc == 0)
		rc = finish_exec(w);
	if (rc == 0)
		rc = finish_ins(w);
	if (rc == 0)
		rc = finish_syscalls(w);
	if (rc == 0)
		rc = finish_modules(w);
	if (rc == 0)
		rc = finish_threads(w);
	if (rc == 0)
		rc = finish_small_tables(w);
	if (rc == 0)
		rc = finish_xml(w);
	if (rc == 0) {
		rc = umt__commit_finish(w->commit); /* frees the commit in all cases */
		w->commit = NULL;
	}
	release(w); /* without a commit: removes the temporaries, the old trace stays */
	return rc;
}
