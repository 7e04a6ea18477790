/*
 * libumtrace - the trace writer.
 *
 * Streams a complete trace directory: records are assembled in place in
 * the buffers of exec.vtable and exec.offsets (outfile.c), which a
 * background thread writes 4 MiB at a time (so the page cache keeps the
 * files in large folios, which later map with huge pages) while the caller
 * produces the next records. Memory use does not depend on the record count: the prev/next
 * column is written through a window, and a link whose entry already left
 * the window is patched in place with one 8-byte pwrite (at most one per
 * thread per window). The instruction table spills its rows and extra area
 * to two temporary files that finish() concatenates. Syscall offsets and
 * the small tables (modules, threads, address ranges) are kept in memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "outfile.h"

#define DEFAULT_BUFFER (4u << 20)
#define MIN_BUFFER (64u << 10)

static int io_fail(const char *name, const char *what)
{
	return umt__failf(UMT_E_IO, "%s: cannot %s: %s", name, what, strerror(errno));
}

static int write_all(int fd, const char *name, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return io_fail(name, "write");
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* ---- growable memory buffers -------------------------------------------- */

struct mbuf {
	uint8_t *p;
	size_t len, cap;
};

static int mb_reserve(struct mbuf *b, size_t n)
{
	if (n <= b->cap - b->len)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->len < n) {
		if (cap > SIZE_MAX / 2)
			return umt__failf(UMT_E_NOMEM, "writer: out of memory");
		cap *= 2;
	}
	uint8_t *p = realloc(b->p, cap);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "writer: out of memory");
	b->p = p;
	b->cap = cap;
	return 0;
}

static int mb_put(struct mbuf *b, const void *p, size_t n)
{
	int rc = mb_reserve(b, n);
	if (rc < 0)
		return rc;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* ---- writer state -------------------------------------------------------- */

struct wthread {
	int32_t win_tid;
	int64_t tib_addr;
	int64_t first, last; /* -1 until the first record */
	int64_t count;
	uint8_t last_type;
};

struct umt_writer {
	int dirfd;
	umt_writer_options opt;
	struct umt_out *out; /* the I/O thread of every stream */
	umt_context_map cmap;
	bool records_with_context; /* the map can no longer change */

	struct umt_ostream vtable, offsets, prev_next;
	uint64_t exec_count;

	struct umt_ostream ins_rows, ins_extra;
	int64_t ins_count;

	struct umt_ostream sys;
	struct mbuf sys_index; /* umt_offset_size per ID; Offset 0 = not written */
	int64_t sys_count;

	struct mbuf mod_rows, mod_extra;
	int64_t mod_count;

	struct wthread *threads;
	int32_t thread_count, thread_cap;

	struct mbuf ranges;
};

#define TMP_INS_ROWS ".ins.itable.rows.tmp"
#define TMP_INS_EXTRA ".ins.itable.extra.tmp"

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

static void release(umt_writer *w)
{
	umt__os_release(&w->vtable);
	umt__os_release(&w->offsets);
	umt__os_release(&w->prev_next);
	umt__os_release(&w->ins_rows);
	umt__os_release(&w->ins_extra);
	umt__os_release(&w->sys);
	umt__out_stop(w->out);
	unlinkat(w->dirfd, TMP_INS_ROWS, 0);
	unlinkat(w->dirfd, TMP_INS_EXTRA, 0);
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
	return 0;
}

static int open_streams(umt_writer *w)
{
	size_t big = w->opt.buffer_size, small = MIN_BUFFER;
	size_t mid = big < (1u << 20) ? big : (1u << 20); /* the instruction table is smaller */
	int rc = umt__out_start(&w->out);
	if (rc < 0 ||
	    (rc = umt__os_open(w->out, &w->vtable, w->dirfd, "exec.vtable", big)) < 0 ||
	    (rc = umt__os_open(w->out, &w->offsets, w->dirfd, "exec.offsets", big)) < 0 ||
	    (rc = umt__os_open(w->out, &w->prev_next, w->dirfd, "exec.prev_next.column", big)) < 0 ||
	    (rc = umt__os_open(w->out, &w->ins_rows, w->dirfd, TMP_INS_ROWS, mid)) < 0 ||
	    (rc = umt__os_open(w->out, &w->ins_extra, w->dirfd, TMP_INS_EXTRA, mid)) < 0 ||
	    (rc = umt__os_open(w->out, &w->sys, w->dirfd, "syscall.vtable", small)) < 0)
		return rc;
	/* Headers are rewritten by finish(); reserve their bytes now. */
	if ((rc = umt__os_zeros(&w->vtable, sizeof(umt_exec_vtable_header))) < 0 ||
	    (rc = umt__os_zeros(&w->sys, sizeof(umt_syscall_vtable_header))) < 0)
		return rc;
	return 0;
}

int umt_writer_open(const char *dir, const umt_writer_options *o, umt_writer **out)
{
	if (dir == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_open: invalid argument");
	*out = NULL;
	umt_writer *w = calloc(1, sizeof *w);
	if (w == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_writer_open: out of memory");
	w->dirfd = -1;
	struct umt_ostream *streams[] = {&w->vtable, &w->offsets, &w->prev_next,
	                             &w->ins_rows, &w->ins_extra, &w->sys};
	for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++)
		streams[i]->fd = -1;
	if (o)
		w->opt = *o;
	else
		umt_writer_options_init(&w->opt, UMT_FLAVOUR_2015);
	if (w->opt.buffer_size == 0)
		w->opt.buffer_size = DEFAULT_BUFFER;
	if (w->opt.buffer_size < MIN_BUFFER)
		w->opt.buffer_size = MIN_BUFFER;
	int rc = check_options(&w->opt);
	if (rc < 0) {
		release(w);
		return rc;
	}
	umt_context_map_default(&w->cmap, w->opt.ins_record_version, w->opt.xml.xed_version);
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		rc = umt__failf(UMT_E_IO, "%s: cannot create directory: %s", dir, strerror(errno));
		release(w);
		return rc;
	}
	w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd < 0) {
		rc = umt__failf(UMT_E_IO, "%s: cannot open directory: %s", dir, strerror(errno));
		release(w);
		return rc;
	}
	rc = open_streams(w);
	if (rc < 0) {
		release(w);
		return rc;
	}
	*out = w;
	return 0;
}

uint64_t umt_writer_exec_count(const umt_writer *w)
{
	return w ? w->exec_count : 0;
}

/* ---- threads and the prev/next column ------------------------------------ */

int umt_writer_add_thread(umt_writer *w, int32_t win_tid, int64_t tib_addr, int32_t *id)
{
	if (w == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_thread: invalid argument");
	if (w->thread_count == w->thread_cap) {
		if (w->thread_cap > INT32_MAX / 2)
			return umt__failf(UMT_E_NOMEM, "writer: too many threads");
		int32_t cap = w->thread_cap ? w->thread_cap * 2 : 16;
		struct wthread *p = realloc(w->threads, (size_t)cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "writer: out of memory");
		w->threads = p;
		w->thread_cap = cap;
	}
	w->threads[w->thread_count] = (struct wthread){win_tid, tib_addr, -1, -1, 0, 0};
	if (id)
		*id = w->thread_count;
	w->thread_count++;
	return 0;
}

/*
 * Appends the prev/next entry of record @p id of @p thread (-1: none) and
 * links the thread's previous record to it: in the buffer while its entry
 * is still there, else by a patch queued after that buffer's write.
 */
static int link_record(umt_writer *w, uint64_t id, int32_t thread, uint8_t type)
{
	umt_prev_next e = {-1, -1};
	struct wthread *th = thread >= 0 && thread < w->thread_count ? &w->threads[thread] : NULL;
	if (th) {
		e.Prev = th->last;
		if (th->last >= 0) {
			uint64_t at = (uint64_t)th->last * sizeof e + offsetof(umt_prev_next, Next);
			int64_t next = (int64_t)id;
			int rc = umt__os_patch(&w->prev_next, at, &next, sizeof next);
			if (rc < 0)
				return rc;
		} else {
			th->first = (int64_t)id;
		}
		th->last = (int64_t)id;
		th->last_type = type;
		th->count++;
	}
	uint8_t *p = umt__os_reserve(&w->prev_next, sizeof e);
	if (p == NULL)
		return UMT_E_IO;
	memcpy(p, &e, sizeof e);
	return 0;
}

/* Appends the offset of the next record, then links it into its thread. */
static int begin_record(umt_writer *w, int32_t thread, uint8_t type)
{
	uint64_t at = umt__os_tell(&w->vtable);
	uint8_t *p = umt__os_reserve(&w->offsets, sizeof at);
	if (p == NULL)
		return UMT_E_IO;
	memcpy(p, &at, sizeof at);
	return link_record(w, w->exec_count, thread, type);
}

/* ---- execution records --------------------------------------------------- */

static int write_context(umt_writer *w, const umt_context_desc *c)
{
	static const umt_context_desc none = {0};
	if (c == NULL)
		c = &none;
	uint32_t dump = w->cmap.DumpSize;
	if ((c->regs != NULL && c->regs_size != dump) || (c->regs == NULL && c->regs_size != 0) ||
	    (c->mem_count > 0 && c->mem == NULL) || c->mem_count > INT32_MAX)
		return umt__failf(UMT_E_INVAL,
		                  "writer: register dump of %u bytes, the context map says %u",
		                  c->regs_size, dump);
	uint64_t regs_fp = sizeof(umt_rm_context) + (uint64_t)c->mem_count * sizeof(umt_context_mem);
	umt_rm_context h = {.MemCount = (int32_t)c->mem_count, .RegsFP = (int64_t)regs_fp};
	int rc = umt__os_write(&w->vtable, &h, sizeof h);
	uint64_t data_fp = regs_fp + dump;
	for (uint32_t i = 0; rc == 0 && i < c->mem_count; i++) {
		umt_context_mem m = {(int64_t)c->mem[i].address, (int64_t)c->mem[i].size,
		                     (int64_t)data_fp};
		data_fp += c->mem[i].size;
		rc = umt__os_write(&w->vtable, &m, sizeof m);
	}
	if (rc == 0)
		rc = c->regs ? umt__os_write(&w->vtable, c->regs, dump) : umt__os_zeros(&w->vtable, dump);
	for (uint32_t i = 0; rc == 0 && i < c->mem_count; i++)
		rc = umt__os_write(&w->vtable, c->mem[i].data, c->mem[i].size);
	w->records_with_context = true;
	return rc;
}

/* Size of a record without a context, or 0 for types that carry one. */
static uint64_t plain_size(const umt_exec_desc *d)
{
	switch (d->type) {
	case UMT_REC_INSTRUCTION: return sizeof(umt_exec_ins) + d->lc_size;
	case UMT_REC_THREAD_END:
	case UMT_REC_APP_END: return sizeof(umt_exec_exit);
	case UMT_REC_SYSCALL_SKIPPED: return sizeof(umt_exec_skipped);
	default: return 0;
	}
}

/* Stores a record without a context (plain_size() bytes) at @p p. */
static void put_plain(uint8_t *p, const umt_exec_desc *d)
{
	umt_exec_rec_hdr h = {d->thread_id, d->type, d->flags};
	memcpy(p, &h, sizeof h);
	p += sizeof h;
	switch (d->type) {
	case UMT_REC_INSTRUCTION:
		memcpy(p, &d->ins_id, sizeof d->ins_id);
		if (d->lc_size) /* lc may be NULL then, and memcpy(NULL) is undefined */
			memcpy(p + sizeof d->ins_id, d->lc, d->lc_size);
		break;
	case UMT_REC_SYSCALL_SKIPPED:
		memcpy(p, &d->syscall_id, sizeof d->syscall_id);
		break;
	default:
		memcpy(p, &d->exit_code, sizeof d->exit_code);
		break;
	}
}

/* Writes a record without a context in place in the buffer: one bounds check. */
static int write_plain(umt_writer *w, const umt_exec_desc *d, uint64_t size)
{
	uint8_t *p = umt__os_reserve(&w->vtable, size);
	if (p == NULL)
		return UMT_E_IO;
	put_plain(p, d);
	return 0;
}

/* Writes a record piece by piece: contexts, and records larger than the buffer. */
static int write_pieces(umt_writer *w, const umt_exec_desc *d)
{
	umt_exec_rec_hdr h = {d->thread_id, d->type, d->flags};
	int rc = umt__os_write(&w->vtable, &h, sizeof h);
	switch (d->type) {
	case UMT_REC_INSTRUCTION:
		if (rc == 0)
			rc = umt__os_write(&w->vtable, &d->ins_id, sizeof d->ins_id);
		if (rc == 0 && d->lc_size)
			rc = umt__os_write(&w->vtable, d->lc, d->lc_size);
		break;
	case UMT_REC_SYSCALL_ENTRY:
	case UMT_REC_SYSCALL_EXIT:
		if (rc == 0)
			rc = umt__os_write(&w->vtable, &d->syscall_id, sizeof d->syscall_id);
		if (rc == 0)
			rc = write_context(w, d->context);
		break;
	default: /* thread begin, context changes */
		if (rc == 0)
			rc = write_context(w, d->context);
		break;
	}
	return rc;
}

/*
 * The common case, a record without a context when all three buffers have
 * room: the offset, the prev/next entry (and the link from the thread's
 * previous record, when that entry is still in the buffer) and the record
 * go straight into the buffers. Returns 1 when done, 0 to take the general
 * path (nothing was written then).
 */
static int add_plain_fast(umt_writer *w, const umt_exec_desc *d, uint64_t size)
{
	struct umt_ostream *vt = &w->vtable, *off = &w->offsets, *pn = &w->prev_next;
	struct wthread *th = &w->threads[d->thread_id];
	uint64_t prev_at = (uint64_t)th->last * sizeof(umt_prev_next) + sizeof(int64_t);
	if (size > vt->cap - vt->len || sizeof(uint64_t) > off->cap - off->len ||
	    sizeof(umt_prev_next) > pn->cap - pn->len ||
	    (th->last >= 0 && prev_at < pn->flushed))
		return 0;
	uint64_t id = w->exec_count, at = umt__os_tell(vt);
	memcpy(off->buf + off->len, &at, sizeof at);
	off->len += sizeof at;
	umt_prev_next e = {th->last, -1};
	memcpy(pn->buf + pn->len, &e, sizeof e);
	pn->len += sizeof e;
	if (th->last >= 0)
		memcpy(pn->buf + (prev_at - pn->flushed), &id, sizeof id);
	else
		th->first = (int64_t)id;
	th->last = (int64_t)id;
	th->last_type = d->type;
	th->count++;
	put_plain(umt__os_reserve(vt, size), d); /* room checked above: never flushes */
	return 1;
}

int umt_writer_add_exec(umt_writer *w, const umt_exec_desc *d, uint64_t *id)
{
	if (UMT_UNLIKELY(w == NULL || d == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: invalid argument");
	if (UMT_UNLIKELY(d->type >= UMT_REC_TYPE_LIMIT || umt_rec_min_size(d->type) == UINT64_MAX))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: unknown record type %u", d->type);
	if (UMT_UNLIKELY(d->thread_id < 0 || d->thread_id >= w->thread_count))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: thread %d was not declared",
		                  d->thread_id);
	if (UMT_UNLIKELY(d->type == UMT_REC_INSTRUCTION && d->lc_size > 0 && d->lc == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: local context missing");
	uint64_t size = plain_size(d);
	if (!(size && add_plain_fast(w, d, size))) {
		int rc = begin_record(w, d->thread_id, d->type);
		if (rc < 0)
			return rc;
		rc = size && size <= w->vtable.cap ? write_plain(w, d, size) : write_pieces(w, d);
		if (rc < 0)
			return rc;
	}
	if (id)
		*id = w->exec_count;
	w->exec_count++;
	return 0;
}

int umt_writer_add_exec_raw(umt_writer *w, const void *bytes, uint64_t size, uint64_t *id)
{
	if (w == NULL || (bytes == NULL && size > 0))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec_raw: invalid argument");
	int32_t thread = -1;
	uint8_t type = 0xff;
	if (size >= sizeof(umt_exec_rec_hdr)) {
		const umt_exec_rec_hdr *h = bytes;
		thread = h->ThreadID;
		type = h->Type;
	}
	int rc = begin_record(w, thread, type);
	if (rc == 0 && size)
		rc = umt__os_write(&w->vtable, bytes, size);
	if (rc < 0)
		return rc;
	if (id)
		*id = w->exec_count;
	w->exec_count++;
	return 0;
}

/* ---- instruction table ---------------------------------------------------- */

int umt_writer_add_disasm(umt_writer *w, const char *text, int64_t *fp)
{
	if (w == NULL || text == NULL || fp == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_disasm: invalid argument");
	size_t n = strlen(text);
	if (n > INT16_MAX)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_disasm: string of %zu bytes", n);
	int16_t len = (int16_t)n;
	*fp = (int64_t)umt__os_tell(&w->ins_extra);
	int rc = umt__os_write(&w->ins_extra, &len, sizeof len);
	if (rc == 0)
		rc = umt__os_write(&w->ins_extra, text, n + 1);
	return rc;
}

int umt_writer_add_decoded(umt_writer *w, const umt_decoded_ins *d, const umt_lc_slot *slots,
                           int64_t *fp)
{
	if (w == NULL || d == NULL || fp == NULL || (d->LCCount > 0 && slots == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_decoded: invalid argument");
	*fp = (int64_t)umt__os_tell(&w->ins_extra);
	int rc = umt__os_write(&w->ins_extra, d, sizeof *d);
	if (rc == 0 && d->LCCount)
		rc = umt__os_write(&w->ins_extra, slots, (size_t)d->LCCount * sizeof *slots);
	return rc;
}

int umt_writer_add_ins(umt_writer *w, const umt_ins_rec *row, int64_t *id)
{
	if (w == NULL || row == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_ins: invalid argument");
	umt_ins_rec r = *row;
	r.ID = w->ins_count;
	int rc = umt__os_write(&w->ins_rows, &r, sizeof r);
	if (rc < 0)
		return rc;
	if (id)
		*id = w->ins_count;
	w->ins_count++;
	return 0;
}

/* ---- system calls ----------------------------------------------------------- */

int umt_writer_add_syscall(umt_writer *w, int64_t id, const umt_syscall_desc *d)
{
	if (w == NULL || d == NULL || id < 0 || (d->arg_count && d->args == NULL) ||
	    (d->extras_size && d->extras == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_syscall: invalid argument");
	size_t need = ((size_t)id + 1) * sizeof(umt_offset_size);
	if (need > w->sys_index.len) {
		int rc = mb_reserve(&w->sys_index, need - w->sys_index.len);
		if (rc < 0)
			return rc;
		memset(w->sys_index.p + w->sys_index.len, 0, need - w->sys_index.len);
		w->sys_index.len = need;
	}
	umt_offset_size *slot = (umt_offset_size *)(w->sys_index.p + (size_t)id * sizeof *slot);
	if (slot->Offset != 0)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_syscall: syscall %lld written twice",
		                  (long long)id);
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
	int rc = umt__os_write(&w->sys, &r, sizeof r);
	if (rc == 0 && d->arg_count)
		rc = umt__os_write(&w->sys, d->args, (size_t)d->arg_count * 8);
	if (rc == 0 && d->extras_size)
		rc = umt__os_write(&w->sys, d->extras, d->extras_size);
	if (rc < 0)
		return rc;
	slot->Offset = (int64_t)at;
	slot->Size = (int64_t)(umt__os_tell(&w->sys) - at);
	if (id >= w->sys_count)
		w->sys_count = id + 1;
	return 0;
}

/* ---- modules, address space, context map --------------------------------- */

/* Appends a uStr to the module extra area; *fp is absolute once ExtraFP is known. */
static int put_ustr(umt_writer *w, const char *utf8, const uint16_t *u16, size_t u16_len,
                    int64_t *rel)
{
	uint16_t *conv = NULL; /* UTF-16 needs at most one unit per UTF-8 byte */
	const uint16_t *units = u16;
	long n = (long)u16_len;
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
		rc = umt__failf(UMT_E_INVAL, "umt_writer_add_module: name is not valid UTF-8 or too long");
	*rel = (int64_t)w->mod_extra.len;
	int16_t len = (int16_t)n;
	uint16_t nul = 0;
	if (rc == 0)
		rc = mb_put(&w->mod_extra, &len, sizeof len);
	if (rc == 0)
		rc = mb_put(&w->mod_extra, units, (size_t)n * 2);
	if (rc == 0)
		rc = mb_put(&w->mod_extra, &nul, sizeof nul);
	free(conv);
	return rc;
}

int umt_writer_add_module(umt_writer *w, const umt_module_desc *m, int64_t *id)
{
	if (w == NULL || m == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_module: invalid argument");
	umt_module_rec_2015 r = {
		.LoadEID = m->load_eid, .UnloadEID = m->unload_eid, .StartAddr = m->start_addr,
		.EndAddr = m->end_addr, .LastFileWriteTime = m->last_file_write_time,
	};
	memcpy(r.VersionInfo, m->version_info, sizeof r.VersionInfo);
	/* FPs are stored relative to the extra area here, made absolute at finish. */
	int rc = put_ustr(w, m->win_name, m->win_name_utf16, m->win_name_utf16_len, &r.WinNameFP);
	if (rc == 0)
		rc = put_ustr(w, m->device_name, m->device_name_utf16, m->device_name_utf16_len,
		              &r.DeviceNameFP);
	if (rc == 0)
		rc = mb_put(&w->mod_rows, &r, w->opt.module_row_size);
	if (rc < 0)
		return rc;
	if (id)
		*id = w->mod_count;
	w->mod_count++;
	return 0;
}

int umt_writer_add_address_range(umt_writer *w, int64_t first, int64_t last)
{
	if (w == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_address_range: invalid argument");
	umt_address_range r = {first, last};
	return mb_put(&w->ranges, &r, sizeof r);
}

int umt_writer_set_context_map(umt_writer *w, const umt_context_map *map)
{
	if (w == NULL || map == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_set_context_map: invalid argument");
	if (w->records_with_context && map->DumpSize != w->cmap.DumpSize)
		return umt__failf(UMT_E_INVAL,
		                  "umt_writer_set_context_map: DumpSize changed after records with a context");
	w->cmap = *map;
	return 0;
}

/* ---- finish ---------------------------------------------------------------- */

static int write_file(umt_writer *w, const char *name, const void *a, size_t an,
                      const void *b, size_t bn)
{
	int fd = openat(w->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return io_fail(name, "create");
	int rc = write_all(fd, name, a, an);
	if (rc == 0 && bn)
		rc = write_all(fd, name, b, bn);
	if (close(fd) != 0 && rc == 0)
		rc = io_fail(name, "close");
	return rc;
}

/* Copies temporary file @p tmp (already closed) to the end of @p out. */
static int append_file(umt_writer *w, struct umt_ostream *out, const char *tmp)
{
	int fd = openat(w->dirfd, tmp, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return io_fail(tmp, "open");
	int rc = 0;
	for (;;) {
		/* read straight into the stream's buffer, then keep what came */
		uint8_t *dst = umt__os_reserve(out, out->cap);
		if (dst == NULL) {
			rc = UMT_E_IO;
			break;
		}
		ssize_t k = read(fd, dst, out->cap);
		out->len -= out->cap - (k > 0 ? (size_t)k : 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			rc = io_fail(tmp, "read");
		if (k <= 0)
			break;
	}
	close(fd);
	return rc;
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
		rc = umt__os_open(w->out, &out, w->dirfd, "ins.itable", w->opt.buffer_size);
	umt_extra_table_header h = {
		.HeaderVer = 0, .RecordVer = w->opt.ins_record_version, .RowCount = w->ins_count,
		.RowSize = sizeof(umt_ins_rec), .TableFP = sizeof h,
		.ExtraFP = (int64_t)(sizeof h + rows), .ExtraSize = (int64_t)extra,
	};
	if (rc == 0)
		rc = umt__os_write(&out, &h, sizeof h);
	if (rc == 0)
		rc = append_file(w, &out, TMP_INS_ROWS);
	if (rc == 0)
		rc = append_file(w, &out, TMP_INS_EXTRA);
	if (rc == 0)
		rc = umt__os_close(&out);
	umt__os_release(&out);
	return rc;
}

static int finish_syscalls(umt_writer *w)
{
	const umt_offset_size *idx = (const umt_offset_size *)w->sys_index.p;
	for (int64_t i = 0; i < w->sys_count; i++)
		if (idx[i].Offset == 0)
			return umt__failf(UMT_E_CORRUPT, "writer: syscall %lld was never written (%lld syscalls)",
			                  (long long)i, (long long)w->sys_count);
	umt_syscall_vtable_header h = {0, w->opt.unified_ids_version, w->sys_count};
	int rc = umt__os_patch(&w->sys, 0, &h, sizeof h);
	if (rc == 0)
		rc = umt__os_close(&w->sys);
	if (rc == 0)
		rc = write_file(w, "syscall.offsets", idx, (size_t)w->sys_count * sizeof *idx, NULL, 0);
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
	struct mbuf all = {0};
	int rc = mb_put(&all, &h, sizeof h);
	if (rc == 0)
		rc = mb_put(&all, w->mod_rows.p, w->mod_rows.len);
	if (rc == 0)
		rc = mb_put(&all, w->mod_extra.p, w->mod_extra.len);
	if (rc == 0)
		rc = write_file(w, "module.itable", all.p, all.len, NULL, 0);
	free(all.p);
	return rc;
}

static int finish_threads(umt_writer *w)
{
	size_t row = w->opt.thread_row_size;
	umt_table_header h = {0, 0, w->thread_count, (int64_t)row, sizeof h};
	struct mbuf all = {0};
	int rc = mb_put(&all, &h, sizeof h);
	for (int32_t i = 0; rc == 0 && i < w->thread_count; i++) {
		const struct wthread *th = &w->threads[i];
		bool ended = th->last_type == UMT_REC_THREAD_END || th->last_type == UMT_REC_APP_END;
		uint8_t bytes[48] = {0};
		umt_thread_rec r = {i, th->win_tid, th->tib_addr, th->first,
		                    th->count && ended ? th->last : -1, th->count};
		memcpy(bytes, &r, sizeof r);
		rc = mb_put(&all, bytes, row);
	}
	if (rc == 0)
		rc = write_file(w, "thread.itable", all.p, all.len, NULL, 0);
	free(all.p);
	return rc;
}

static int finish_small_tables(umt_writer *w)
{
	umt_table_header h = {0, 0, (int64_t)(w->ranges.len / sizeof(umt_address_range)),
	                      sizeof(umt_address_range), sizeof h};
	int rc = write_file(w, "address_space.itable", &h, sizeof h, w->ranges.p, w->ranges.len);
	if (rc == 0)
		rc = write_file(w, "context_map.itable", &w->cmap, sizeof w->cmap, NULL, 0);
	return rc;
}

/* ---- trace.xml ---------------------------------------------------------------- */

/*
 * Writes leaves given as slash-separated paths, nesting them: consecutive
 * leaves that share parents share the parent elements, as in real files.
 */
struct xml_out {
	struct mbuf *b;
	char open[8][32]; /* element names currently open */
	int depth;
	bool failed;
};

static void xml_put(struct xml_out *x, const char *s, size_t n)
{
	if (!x->failed && mb_put(x->b, s, n) < 0)
		x->failed = true;
}

static void xml_puts(struct xml_out *x, const char *s)
{
	xml_put(x, s, strlen(s));
}

static void xml_indent(struct xml_out *x, int depth)
{
	for (int i = 0; i < depth; i++)
		xml_puts(x, "  ");
}

static void xml_close_to(struct xml_out *x, int depth)
{
	while (x->depth > depth) {
		x->depth--;
		xml_indent(x, x->depth);
		xml_puts(x, "</");
		xml_puts(x, x->open[x->depth]);
		xml_puts(x, ">\n");
	}
}

static void xml_leaf(struct xml_out *x, const char *path, const char *value)
{
	if (value == NULL)
		return;
	char names[8][32];
	int n = 0;
	for (const char *p = path; *p && n < 8; n++) {
		size_t k = strcspn(p, "/");
		snprintf(names[n], sizeof names[n], "%.*s", (int)k, p);
		p += k + (p[k] == '/');
	}
	int keep = 0;
	while (keep < x->depth && keep < n - 1 && !strcmp(x->open[keep], names[keep]))
		keep++;
	xml_close_to(x, keep);
	for (; x->depth < n - 1; x->depth++) {
		xml_indent(x, x->depth);
		xml_puts(x, "<");
		xml_puts(x, names[x->depth]);
		xml_puts(x, ">\n");
		memcpy(x->open[x->depth], names[x->depth], sizeof names[0]);
	}
	xml_indent(x, x->depth);
	xml_puts(x, "<");
	xml_puts(x, names[n - 1]);
	xml_puts(x, ">");
	for (const char *s = value; *s; s++) {
		switch (*s) {
		case '&': xml_puts(x, "&amp;"); break;
		case '<': xml_puts(x, "&lt;"); break;
		case '>': xml_puts(x, "&gt;"); break;
		case '"': xml_puts(x, "&quot;"); break;
		default: xml_put(x, s, 1); break;
		}
	}
	xml_puts(x, "</");
	xml_puts(x, names[n - 1]);
	xml_puts(x, ">\n");
}

static int build_xml(const umt_writer *w, struct mbuf *b)
{
	const umt_writer_xml *m = &w->opt.xml;
	bool root = w->opt.xml_root;
	char exec_ver[16], ins_ver[16], ids_ver[16];
	snprintf(exec_ver, sizeof exec_ver, "%d", w->opt.exec_version);
	snprintf(ins_ver, sizeof ins_ver, "%d", w->opt.ins_record_version);
	snprintf(ids_ver, sizeof ids_ver, "%d", w->opt.unified_ids_version);
	struct xml_out x = {.b = b};
	xml_puts(&x, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
	/* In the 2015 layout everything sits under TraceMetaData (ERRATA 19). */
	const char *top = root ? "TraceMetaData/" : "";
	struct { const char *path, *value; } leaves[] = {
		{"CPU/HasXMM", m->has_xmm}, {"CPU/hasYMM", m->has_ymm}, {"CPU/hasZMM", m->has_zmm},
		{"OS/Id", m->os_id}, {"OS/Name", m->os_name},
		{"Pin/Version", m->pin_version}, {"Pin/CommandLine", m->pin_command_line},
		{"Xed/Version", m->xed_version},
		{"App/CommandLine", m->app_command_line}, {"App/Bitness", m->bitness},
		{"App/ProcessID", m->process_id},
		{"RawTrace/DateTime", root ? m->raw_trace_date : NULL},
		{"RawTrace/UMTracer/Version", root ? m->umtracer_version : NULL},
		{"RawTrace/UMTracer/Ins/Format/Version", root ? ins_ver : NULL},
		{"RawTrace/UMTracer/Exec/Format/Version", root ? exec_ver : NULL},
	};
	char path[128];
	for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++) {
		snprintf(path, sizeof path, "%s%s", top, leaves[i].path);
		xml_leaf(&x, path, leaves[i].value);
	}
	if (!root) { /* pre-2015: a comment, then the tracer's own settings */
		xml_close_to(&x, 0);
		xml_puts(&x, "<!-- UMTracer settings -->\n");
		xml_leaf(&x, "UMTracer/Ins/Format/Version", ins_ver);
		xml_leaf(&x, "UMTracer/Exec/Format/Version", exec_ver);
		xml_leaf(&x, "UMTracer/Exec/SyscallTable/Version", ids_ver);
	}
	xml_close_to(&x, 0);
	return x.failed ? umt__failf(UMT_E_NOMEM, "writer: out of memory") : 0;
}

static int finish_xml(umt_writer *w)
{
	if (w->opt.xml_text)
		return write_file(w, "trace.xml", w->opt.xml_text, strlen(w->opt.xml_text), NULL, 0);
	if (!w->opt.write_trace_xml) {
		unlinkat(w->dirfd, "trace.xml", 0);
		return 0;
	}
	struct mbuf b = {0};
	int rc = build_xml(w, &b);
	if (rc == 0)
		rc = write_file(w, "trace.xml", b.p, b.len, NULL, 0);
	free(b.p);
	return rc;
}

int umt_writer_finish(umt_writer *w)
{
	if (w == NULL)
		return umt__failf(UMT_E_INVAL, "umt_writer_finish: invalid argument");
	int rc = finish_exec(w);
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
	release(w);
	return rc;
}
