/*
 * libumtrace - private declarations of the index (src/index/ only).
 *
 * The index reads the trace only through the reader's public API
 * (umtrace.h); from src/ it uses the error recorder and the atomic commit.
 */
#ifndef UMTRACE_IXINT_H
#define UMTRACE_IXINT_H

#include <stdbool.h>
#include <stdint.h>

#include "../internal.h"
#include "ixformat.h"
#include "umtrace/index.h"

/* ---- an open index ---------------------------------------------------------- */

/** The files of an index, in the header's file table order. */
enum { IX_F_DIR = 0, IX_F_POST, IX_F_SKIP, IX_F_COUNT };
extern const char *const umt__ix_file_names[IX_F_COUNT];

struct umt_index {
	const umt_trace *trace;
	umt_exec_view view;
	int exec_version;
	struct umt_map files[IX_F_COUNT];
	umt_ix_header header;               /* a copy, checked */
	const umt_ix_page_entry *pages;     /* mem.dir entries */
	uint64_t page_count;
	const uint8_t *top;                 /* TopCount u64 page numbers (unaligned) */
	uint64_t top_count;
	const umt_ix_skip_entry *skips;     /* mem.skip entries */
	uint64_t skip_count;
	void *section_data[UMT_IX_MAX_SECTIONS]; /* what each section keeps (section.h) */
};

/** A file of a section, by name, for an index opened from buffers. */
typedef struct umt_ix_named_buffer {
	const char *name;
	umt_buffer buffer;
} umt_ix_named_buffer;

/**
 * Opens an index from buffers (the fuzz targets): @p header is index.umti,
 * files[] the memory section's files in IX_F_* order, sections[] the files
 * of the further sections by name (a section whose file is not among them
 * fails with UMT_E_MISSING); nothing is copied. Checks and errors as
 * umt_index_open().
 */
UMT_HIDDEN int umt__ix_open_buffers(const umt_trace *t, const void *header, size_t header_size,
                                    const umt_buffer files[IX_F_COUNT],
                                    const umt_ix_named_buffer *sections, unsigned nsections,
                                    umt_index **out);

/* ---- small helpers ------------------------------------------------------------ */

/** FNV-1a 64 of @p n bytes, continuing from @p h (start with UMT_FNV_SEED). */
#define UMT_FNV_SEED 0xcbf29ce484222325ull
static inline uint64_t umt__fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/** Appends a LEB128 varint of @p v at @p p; returns the bytes written (1-10). */
static inline unsigned umt__put_varint(uint8_t *p, uint64_t v)
{
	unsigned n = 0;
	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/** Reads a varint from [*p, end); false when it runs past end or is too long. */
static inline bool umt__get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	if (UMT_LIKELY(q < end && *q < 0x80)) {
		*v = *q;
		*p = q + 1;
		return true;
	}
	uint64_t r = 0;
	for (unsigned shift = 0; q < end && shift < 64; shift += 7) {
		uint8_t b = *q++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = r;
			*p = q;
			return true;
		}
	}
	return false;
}

/* ---- identity (identity.c) ------------------------------------------------------ */

/** Fills @p out with the identity of @p t as it is now. */
UMT_HIDDEN int umt__ix_identity(const umt_trace *t, umt_ix_trace_identity *out);

/** The header checksum: FNV-1a of the header with HeaderSum as 0. */
UMT_HIDDEN uint64_t umt__ix_header_sum(const umt_ix_header *h);

/* ---- postings of an access (postings.c) ------------------------------------------- */

/** One posting as the build sorts it (32 bytes). */
struct ix_entry {
	uint64_t list;    /* page << 7 | list index (0-63 fine granules, 64 the page list) */
	uint64_t key;     /* record << 1 | phase */
	uint32_t locator; /* LC slot or context block index */
	int32_t thread;
	uint16_t lo;      /* first byte in the granule or page */
	uint16_t len;     /* bytes, 1-64 or 1-4096 */
	uint8_t kind;     /* UMT_IX_K_* */
	uint8_t clobber;  /* a write whose value is not trusted */
	uint8_t pad[2];
	uint64_t value;   /* the bytes [lo, lo + len) when umt__ix_inline() (memory order) */
};

/** Whether access @p a is indexed (umtrace.h 8b, index.h section 1). */
static inline bool umt__ix_indexed(const umt_access *a)
{
	if (!(a->trust & UMT_TRUST_ADDRESS) || a->size == 0)
		return false;
	return (a->trust & UMT_TRUST_VALUE) || a->kind == UMT_ACCESS_WRITE;
}

/** The stored kind of an access kind. */
UMT_HIDDEN unsigned umt__ix_kind(unsigned access_kind);
/** The access kind of a stored kind. */
UMT_HIDDEN unsigned umt__ix_access_kind(unsigned stored);

/**
 * The postings of access @p a (umt__ix_indexed() true) into out[]: at most
 * UMT_IX_FINE_MAX fine postings, or one per page touched. Calls
 * emit(ctx, entry) for each; stops and returns its nonzero result.
 */
typedef int (*umt_ix_emit)(void *ctx, const struct ix_entry *e);
UMT_HIDDEN int umt__ix_postings(const umt_access *a, umt_ix_emit emit, void *ctx);

/** Every indexed access of record @p r, as postings. */
UMT_HIDDEN int umt__ix_record_postings(const umt_trace *t, const umt_rec *r, umt_ix_emit emit,
                                       void *ctx, uint64_t *accesses);

/* ---- reading lists (lists.c) -------------------------------------------------------- */

/** A decoded posting. */
struct ix_posting {
	uint64_t key;
	uint32_t locator;
	int32_t thread;
	uint16_t lo, len;
	uint8_t kind, clobber;
	uint64_t value; /* its bytes, when umt__ix_inline() */
};

/**
 * Whether a posting carries its value bytes in the index: fine postings of
 * trusted values of up to UMT_IX_INLINE_MAX bytes in their granule, so that
 * memory at a record reads the index alone (docs/index-format.md).
 */
static inline bool umt__ix_inline(bool page_list, unsigned len, bool clobber)
{
	return !page_list && !clobber && len <= UMT_IX_INLINE_MAX;
}

/** One page of mem.post, its footer checked. */
struct ix_page {
	uint64_t page;
	const uint8_t *data;   /* the page's data (lists then footer) */
	uint64_t data_off;     /* its offset in mem.post */
	uint64_t lists_len;    /* bytes before the footer */
	uint64_t skip_start;
	uint64_t present[2];
	const uint8_t *descs;  /* umt_ix_list_desc per present list */
};

/** One list of a page. */
struct ix_list {
	const umt_index *ix;
	const uint8_t *data;   /* its blocks */
	uint64_t len;          /* bytes */
	uint64_t file_off;     /* offset of data in mem.post */
	uint64_t count;        /* postings */
	uint64_t blocks;
	const umt_ix_skip_entry *skip; /* blocks entries, or NULL for one block */
	uint64_t skip_index;   /* of skip[0] in mem.skip */
	bool page_list;        /* 32-bit posting bits */
	uint64_t base;         /* address of byte 0 of the granule or page */
};

/**
 * Finds page @p page in mem.dir. @return 1 with *out; 0 when the index has
 * no posting in that page; a negative error for a corrupt directory/footer.
 */
UMT_HIDDEN int umt__ix_page_find(const umt_index *ix, uint64_t page, struct ix_page *out);
/** Page entry @p i (< page_count), checked. Same returns (never 0). */
UMT_HIDDEN int umt__ix_page_at(const umt_index *ix, uint64_t i, struct ix_page *out);

/** List @p list (0-64) of a page. @return 1 with *out; 0 absent; < 0 corrupt. */
UMT_HIDDEN int umt__ix_page_list(const umt_index *ix, const struct ix_page *pg, unsigned list,
                                 struct ix_list *out);

/**
 * Decodes block @p b of list @p l into out[] (UMT_IX_BLOCK entries):
 * @return the number of postings (> 0); a negative error (corrupt block).
 */
UMT_HIDDEN int umt__ix_block_decode(const struct ix_list *l, uint64_t b, struct ix_posting *out);

/**
 * The last block whose first key is < @p key (0 when none is): where a
 * forward scan for keys >= @p key starts, and a backward scan for keys <
 * @p key too (equal keys may straddle a block boundary).
 */
UMT_HIDDEN uint64_t umt__ix_block_before(const struct ix_list *l, uint64_t key);

/** Top-index entry @p i (< top_count): the page of page entry i * TopStride. */
UMT_HIDDEN uint64_t umt__ix_top_at(const umt_index *ix, uint64_t i);

/** Index of the first page entry whose page is >= @p page (page_count when none). */
UMT_HIDDEN uint64_t umt__ix_page_lower_bound(const umt_index *ix, uint64_t page);

/**
 * A cursor over one list, forward or backward, block by block. When mask
 * is not 0, blocks of a multi-block list whose SeenMask (or WriteMask, with
 * writes_only) has none of its bits are skipped without being decoded.
 */
struct ix_cursor_l {
	struct ix_list l;
	uint64_t block;
	int n, i;
	int dir;             /* +1 forward, -1 backward */
	bool done;
	uint64_t mask;
	bool writes_only;
	struct ix_posting buf[UMT_IX_BLOCK];
};

/**
 * Positions @p c on list @p l: forward (dir +1) at the first posting with
 * key >= @p key, backward (dir -1) at the last posting with key < @p key.
 * @return 0 (c->done when there is none); a negative error.
 */
UMT_HIDDEN int umt__ix_lcursor_seek(struct ix_cursor_l *c, const struct ix_list *l, uint64_t key,
                                    int dir, uint64_t mask, bool writes_only);
/** The posting under the cursor, NULL when done. */
static inline const struct ix_posting *umt__ix_lcursor_cur(const struct ix_cursor_l *c)
{
	return c->done ? NULL : &c->buf[c->i];
}
/** Moves one posting in the cursor's direction. @return 0; a negative error. */
UMT_HIDDEN int umt__ix_lcursor_next(struct ix_cursor_l *c);

/** ixfiles.c: the size the header's file table gives @p name, or UINT64_MAX when absent. */
UMT_HIDDEN uint64_t umt__ix_listed_size(const umt_ix_header *h, const char *name);

/**
 * ixfiles.c: a mapped file of the index against the file table (its size)
 * and its 64-byte header (@p magic, the version, the BuildID); @p f is its
 * IX_F_* number for messages, or -1. @return 0; UMT_E_INCOMPLETE,
 * UMT_E_TRUNCATED, UMT_E_CORRUPT.
 */
UMT_HIDDEN int umt__ix_check_named(const umt_index *ix, const struct umt_map *m, int f,
                                   const char *name, const char *magic);

/** Reports a corrupt index structure. */
UMT_HIDDEN int umt__ix_corrupt(int code, int file, uint64_t offset, const char *fmt, ...)
	UMT_PRINTF(4, 5);

/** The access (record, locator) of a posting, read from the trace. */
UMT_HIDDEN int umt__ix_fetch(const umt_index *ix, uint64_t record, uint32_t locator,
                             umt_access *out);

#endif
