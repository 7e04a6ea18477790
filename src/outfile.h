/*
 * libumtrace - buffered output files for the writer, written by a
 * background I/O thread.
 *
 * Each stream fills one buffer while the I/O thread writes the other, so
 * the kernel's copy into the page cache overlaps the caller's work. Every
 * job carries its file offset (pwrite), so jobs of different regions need
 * no ordering; patches of bytes already handed over go through the same
 * FIFO, after the write of the buffer that holds them.
 */
#ifndef UMTRACE_OUTFILE_H
#define UMTRACE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/** The I/O thread and its queue, shared by a writer's streams. */
struct umt_out;

/** A buffered output file. */
struct umt_ostream {
	struct umt_out *out;
	int fd;             /* borrowed from the commit (commit.h) */
	const char *name;   /* final file name, for messages */
	uint8_t *buf;       /* being filled */
	uint8_t *spare;     /* being written by the I/O thread, or idle */
	size_t len, cap;
	uint64_t flushed;   /* bytes handed to the I/O thread (or written) */
	_Atomic int spare_busy;
};

/** Starts the I/O thread. @return 0; UMT_E_NOMEM, UMT_E_IO. */
UMT_HIDDEN int umt__out_start(struct umt_out **out);

/** Waits for every queued job; then reports the first I/O error, if any. */
UMT_HIDDEN int umt__out_drain(struct umt_out *out);

/** Drains, stops the thread and frees; NULL is allowed. */
UMT_HIDDEN void umt__out_stop(struct umt_out *out);

/**
 * Starts a stream writing from offset 0 of @p fd (a temporary of the
 * commit, see commit.h; not owned: the stream never closes it) with two
 * buffers of @p cap bytes; @p name (the final file name) is for messages.
 * @return 0; UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__os_open(struct umt_out *out, struct umt_ostream *s, int fd, const char *name,
                            size_t cap);

/** Hands the filled buffer to the I/O thread. */
UMT_HIDDEN int umt__os_flush(struct umt_ostream *s);

/** Appends @p n bytes; blocks larger than the buffer are written directly. */
UMT_HIDDEN int umt__os_write(struct umt_ostream *s, const void *p, size_t n);

/** Appends @p n zero bytes. */
UMT_HIDDEN int umt__os_zeros(struct umt_ostream *s, size_t n);

/**
 * Overwrites @p n (<= 16) bytes at file offset @p at, which was already
 * appended: in the buffer when it is still there, else by a queued job.
 */
UMT_HIDDEN int umt__os_patch(struct umt_ostream *s, uint64_t at, const void *p, size_t n);

/** Flushes, waits for the stream's writes, frees the buffers (the file stays open). */
UMT_HIDDEN int umt__os_close(struct umt_ostream *s);

/** Frees without finishing (after an error); NULL-safe fields; the file stays open. */
UMT_HIDDEN void umt__os_release(struct umt_ostream *s);

/** Bytes appended so far: the file offset of the next byte. */
static inline uint64_t umt__os_tell(const struct umt_ostream *s)
{
	return s->flushed + s->len;
}

/**
 * Room for @p n (<= cap) bytes at the end of the stream, flushing first if
 * needed: the caller fills them. NULL after an I/O error (message set).
 */
static inline uint8_t *umt__os_reserve(struct umt_ostream *s, size_t n)
{
	if (UMT_UNLIKELY(n > s->cap - s->len) && umt__os_flush(s) < 0)
		return NULL;
	uint8_t *p = s->buf + s->len;
	s->len += n;
	return p;
}

#endif
