/*
 * libumtrace - encoding sorted index entries into the memory section's
 * page data, skip entries and page entries (docs/index-format.md), into
 * three buffered output streams (src/index/encode.c).
 */
#ifndef UMTRACE_IX_ENCODE_H
#define UMTRACE_IX_ENCODE_H

#include "ixint.h"

/** A buffered output file written from offset 0 (a scratch or final temporary). */
struct ix_out {
	int fd;
	uint8_t *buf;
	size_t len, cap;
	uint64_t size; /* bytes appended so far */
};

/** Prepares @p o on @p fd with a buffer of @p cap bytes. @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_out_init(struct ix_out *o, int fd, size_t cap);
/** Appends @p n bytes. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_out_put(struct ix_out *o, const void *p, size_t n);
/** Writes the buffer out. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_out_flush(struct ix_out *o);
/** Frees the buffer (does not close the fd). */
UMT_HIDDEN void umt__ix_out_free(struct ix_out *o);
/** pwrite() of all of @p n bytes at @p at. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_pwrite_all(int fd, const void *p, size_t n, uint64_t at);

/** The encoder of one key range of pages: offsets relative to its own streams. */
struct ix_encoder {
	struct ix_out *post, *skip, *dir;
	/* counts */
	uint64_t pages, postings;
	/* the page being written */
	bool in_page;
	uint64_t page, page_start, page_skip;
	uint64_t present[2];
	umt_ix_list_desc descs[UMT_IX_LISTS_PER_PAGE];
	unsigned ndescs;
	/* the list being written */
	bool in_list;
	unsigned list;
	uint64_t list_start, list_count, list_skip, blocks;
	umt_ix_skip_entry pending; /* the first block's entry, written once a second follows */
	/* the block being filled */
	uint8_t block[UMT_IX_BLOCK * 32]; /* a posting: at most 10 + 4 + 5 + 5 + 8 bytes */
	size_t block_len;
	unsigned block_n;
	uint64_t first_key, prev_key, seen, written;
	uint64_t seen_before, written_before; /* the list's masks so far */
	int32_t prev_thread;
};

/** Starts an encoder on three streams. */
UMT_HIDDEN void umt__ix_encoder_init(struct ix_encoder *e, struct ix_out *post,
                                     struct ix_out *skip, struct ix_out *dir);
/** Adds the next entry (entries must come in umt__ix_entry_less() order). */
UMT_HIDDEN int umt__ix_encode(struct ix_encoder *e, const struct ix_entry *x);
/** Ends the last page. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_encoder_finish(struct ix_encoder *e);

#endif
