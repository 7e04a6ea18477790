/*
 * libumtrace - the writer's execution records: exec.vtable, exec.offsets
 * and the prev/next column (see writer.h).
 *
 * Records are assembled in place in the buffers of exec.vtable and
 * exec.offsets (outfile.c), which a background thread writes while the
 * caller produces the next records. Memory use does not depend on the record
 * count: the prev/next column is written through a window, and a link whose
 * entry already left the window is patched in place with one 8-byte pwrite
 * (at most one per thread per window).
 *
 * Each record is checked whole (type, thread, local context, every field of
 * its context and the sum of its sizes) before its first byte is appended.
 */
#include "writer.h"

/* ---- checks ------------------------------------------------------------------ */

static bool has_context(uint8_t type)
{
	return type == UMT_REC_THREAD_BEGIN || type == UMT_REC_SYSCALL_ENTRY ||
	       type == UMT_REC_SYSCALL_EXIT || type >= UMT_REC_CTX_APC;
}

/* The record must end at or below 2^63 - 1 in exec.vtable: offsets and FPs are int64. */
static int check_room(const umt_writer *w, uint64_t size)
{
	if (UMT_UNLIKELY(size > (uint64_t)INT64_MAX - umt__os_tell(&w->vtable)))
		return umt__failf(UMT_E_INVAL,
		                  "writer: a record of %llu bytes would end past 2^63 in exec.vtable",
		                  (unsigned long long)size);
	return 0;
}

/*
 * Bytes of a context (rmContext, MemRefs, dump, memory data) after @p head
 * bytes of record, every field checked, the sum without overflow.
 */
static int context_size(const umt_writer *w, const umt_context_desc *c, uint64_t head,
                        uint64_t *size)
{
	uint32_t dump = w->cmap.DumpSize;
	uint64_t n = head + sizeof(umt_rm_context) + dump;
	if (c == NULL) {
		*size = n;
		return 0;
	}
	if ((c->regs != NULL && c->regs_size != dump) || (c->regs == NULL && c->regs_size != 0))
		return umt__failf(UMT_E_INVAL,
		                  "writer: register dump of %u bytes, the context map says %u",
		                  c->regs_size, dump);
	if (c->mem_count > INT32_MAX || (c->mem_count > 0 && c->mem == NULL))
		return umt__failf(UMT_E_INVAL, "writer: %u memory references at %p", c->mem_count,
		                  (const void *)c->mem);
	n += (uint64_t)c->mem_count * sizeof(umt_context_mem); /* < 2^36: no overflow */
	for (uint32_t i = 0; i < c->mem_count; i++) {
		if (c->mem[i].size > 0 && c->mem[i].data == NULL)
			return umt__failf(UMT_E_INVAL, "writer: memory reference %u has no data", i);
		if (__builtin_add_overflow(n, c->mem[i].size, &n) || n > INT64_MAX)
			return umt__failf(UMT_E_INVAL,
			                  "writer: memory reference %u of %llu bytes: the record exceeds 2^63 bytes",
			                  i, (unsigned long long)c->mem[i].size);
	}
	*size = n;
	return 0;
}

/* Checks record @p d whole; *size receives its bytes. */
static int check_exec(const umt_writer *w, const umt_exec_desc *d, uint64_t *size)
{
	if (UMT_UNLIKELY(d->type >= UMT_REC_TYPE_LIMIT || umt_rec_min_size(d->type) == UINT64_MAX))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: unknown record type %u", d->type);
	if (UMT_UNLIKELY(d->thread_id < 0 || d->thread_id >= w->thread_count))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: thread %d was not declared",
		                  d->thread_id);
	int rc = 0;
	switch (d->type) {
	case UMT_REC_INSTRUCTION:
		if (UMT_UNLIKELY(d->lc_size > UMT_WRITER_MAX_LC || (d->lc_size > 0 && d->lc == NULL)))
			return umt__failf(UMT_E_INVAL,
			                  "umt_writer_add_exec: local context of %llu bytes at %p (at most %u)",
			                  (unsigned long long)d->lc_size, d->lc, UMT_WRITER_MAX_LC);
		*size = sizeof(umt_exec_ins) + d->lc_size;
		break;
	case UMT_REC_THREAD_END:
	case UMT_REC_APP_END: *size = sizeof(umt_exec_exit); break;
	case UMT_REC_SYSCALL_SKIPPED: *size = sizeof(umt_exec_skipped); break;
	case UMT_REC_SYSCALL_ENTRY:
	case UMT_REC_SYSCALL_EXIT:
		rc = context_size(w, d->context, offsetof(umt_exec_syscall, Context), size);
		break;
	default: /* thread begin, context changes */
		rc = context_size(w, d->context, sizeof(umt_exec_rec_hdr), size);
		break;
	}
	return rc < 0 ? rc : check_room(w, *size);
}

/* ---- threads and the prev/next column ------------------------------------ */

int umt_writer_add_thread(umt_writer *w, int32_t win_tid, int64_t tib_addr, int32_t *id)
{
	int rc = umt__writer_usable(w, "umt_writer_add_thread");
	if (rc < 0)
		return rc;
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

/* Writes a context checked by context_size(). */
static int write_context(umt_writer *w, const umt_context_desc *c)
{
	static const umt_context_desc none = {0};
	if (c == NULL)
		c = &none;
	uint32_t dump = w->cmap.DumpSize;
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

/* Stores a record without a context (@p size bytes, checked) at @p p. */
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

/* Writes a record with a context, piece by piece. */
static int write_pieces(umt_writer *w, const umt_exec_desc *d)
{
	umt_exec_rec_hdr h = {d->thread_id, d->type, d->flags};
	int rc = umt__os_write(&w->vtable, &h, sizeof h);
	if (rc == 0 && (d->type == UMT_REC_SYSCALL_ENTRY || d->type == UMT_REC_SYSCALL_EXIT))
		rc = umt__os_write(&w->vtable, &d->syscall_id, sizeof d->syscall_id);
	if (rc == 0)
		rc = write_context(w, d->context);
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

/* The general path: offset and links, then the record (size bytes, checked). */
static int add_general(umt_writer *w, const umt_exec_desc *d, uint64_t size)
{
	int rc = begin_record(w, d->thread_id, d->type);
	if (rc < 0)
		return rc;
	if (has_context(d->type))
		return write_pieces(w, d);
	if (size <= w->vtable.cap) {
		uint8_t *p = umt__os_reserve(&w->vtable, size);
		if (p == NULL)
			return UMT_E_IO;
		put_plain(p, d);
		return 0;
	}
	/* larger than the buffer (a local context near 64 KiB in a small buffer) */
	umt_exec_rec_hdr h = {d->thread_id, d->type, d->flags};
	rc = umt__os_write(&w->vtable, &h, sizeof h);
	if (rc == 0)
		rc = umt__os_write(&w->vtable, &d->ins_id, sizeof d->ins_id);
	if (rc == 0)
		rc = umt__os_write(&w->vtable, d->lc, d->lc_size);
	return rc;
}

int umt_writer_add_exec(umt_writer *w, const umt_exec_desc *d, uint64_t *id)
{
	int rc = umt__writer_usable(w, "umt_writer_add_exec");
	if (UMT_UNLIKELY(rc < 0))
		return rc;
	if (UMT_UNLIKELY(d == NULL))
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec: invalid argument");
	uint64_t size = 0;
	rc = check_exec(w, d, &size);
	if (UMT_UNLIKELY(rc < 0))
		return rc;
	if (has_context(d->type) || !add_plain_fast(w, d, size)) {
		rc = add_general(w, d, size);
		if (rc < 0)
			return umt__writer_stick(w, rc);
	}
	if (id)
		*id = w->exec_count;
	w->exec_count++;
	return 0;
}

int umt_writer_add_exec_raw(umt_writer *w, const void *bytes, uint64_t size, uint64_t *id)
{
	int rc = umt__writer_usable(w, "umt_writer_add_exec_raw");
	if (rc < 0)
		return rc;
	if (bytes == NULL && size > 0)
		return umt__failf(UMT_E_INVAL, "umt_writer_add_exec_raw: invalid argument");
	if ((rc = check_room(w, size)) < 0)
		return rc;
	int32_t thread = -1;
	uint8_t type = 0xff;
	if (size >= sizeof(umt_exec_rec_hdr)) {
		const umt_exec_rec_hdr *h = bytes;
		thread = h->ThreadID;
		type = h->Type;
	}
	rc = begin_record(w, thread, type);
	if (rc == 0 && size)
		rc = umt__os_write(&w->vtable, bytes, size);
	if (rc < 0)
		return umt__writer_stick(w, rc);
	if (id)
		*id = w->exec_count;
	w->exec_count++;
	return 0;
}

uint64_t umt_writer_exec_count(const umt_writer *w)
{
	return w ? w->exec_count : 0;
}
