/*
 * libumtrace - private declarations of the trace writer, shared by
 * writer.c (open, tables, finish), writer_exec.c (execution records) and
 * writer_xml.c (trace.xml).
 *
 * Every public writer call checks all its arguments before it changes
 * anything, so that a call that fails leaves the writer as it was. The one
 * exception is an I/O error in the middle of an append: bytes already handed
 * to the files cannot be taken back, so the error becomes sticky (failed
 * below): every later call returns it and finish() commits nothing.
 */
#ifndef UMTRACE_WRITER_H
#define UMTRACE_WRITER_H

#include "commit.h"
#include "mbuf.h"
#include "outfile.h"

/** Per thread row: what the thread table and the prev/next links need. */
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
	struct umt_commit *commit; /* the temporaries (commit.h) */
	struct umt_out *out;       /* the I/O thread of every stream */
	umt_context_map cmap;
	bool records_with_context; /* DumpSize can no longer change */

	int failed;                /* sticky status after an I/O error, or 0 */
	char failed_msg[256];      /* its message */

	struct umt_ostream vtable, offsets, prev_next;
	uint64_t exec_count;

	struct umt_ostream ins_rows, ins_extra; /* scratch files (commit.h) */
	int ins_rows_fd, ins_extra_fd;
	int64_t ins_count;

	struct umt_ostream sys;
	struct umt_mbuf sys_index; /* umt_offset_size per ID; Offset 0 = not written */
	int64_t sys_count;

	struct umt_mbuf mod_rows, mod_extra;
	int64_t mod_count;

	struct wthread *threads;
	int32_t thread_count, thread_cap;

	struct umt_mbuf ranges;
};

/**
 * Returns @p rc after making a negative one sticky (an I/O error of an
 * append that already changed the files).
 */
UMT_HIDDEN int umt__writer_stick(umt_writer *w, int rc);

/** The sticky error of @p w again, for a later call named @p fn. */
UMT_HIDDEN int umt__writer_sticky(const umt_writer *w, const char *fn);

/**
 * The common entry check of writer calls: UMT_E_INVAL for a NULL writer,
 * the sticky error after an I/O failure, else 0.
 */
static inline int umt__writer_usable(const umt_writer *w, const char *fn)
{
	if (UMT_UNLIKELY(w == NULL))
		return umt__failf(UMT_E_INVAL, "%s: invalid argument", fn);
	if (UMT_UNLIKELY(w->failed != 0))
		return umt__writer_sticky(w, fn);
	return 0;
}

/**
 * Checks every string of @p o that goes into trace.xml (the umt_writer_xml
 * fields and xml_text): valid UTF-8 holding only characters XML 1.0 allows.
 * @return 0; UMT_E_INVAL naming the field and the byte, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__xml_check(const umt_writer_options *o);

/** Appends the trace.xml of @p o (from o->xml) to @p b. @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__xml_build(const umt_writer_options *o, struct umt_mbuf *b);

#endif
