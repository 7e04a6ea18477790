/*
 * libumtrace - the sections of an index besides the memory postings
 * (docs/index-format.md, "Sections"): register checkpoints, calls,
 * coverage. Each is built in the build's one scan of the trace, has files
 * of its own listed in the header's file table, eight counts in the
 * header's info block of its bit, and is opened, closed and verified with
 * the index. A section is a table of hooks here; its code is a file of
 * src/index/ (one per section), registered in sections.c.
 *
 * Building. The scan cuts the records into ranges (ranges are in record
 * order; any thread may scan any range). The ranges depend only on the
 * trace (umt__ix_range_count(): its exec.vtable size), never on the number
 * of threads or the budget, so that what a section derives from them is
 * the same bytes for any build. For each range, the thread that
 * scans it calls range_begin, then record() for every record of the range
 * in order, then range_end. A range does not know the state at its start
 * (which registers hold what, which calls are open): it records what it
 * saw relative to an unknown start, spilling what does not fit a small
 * constant to the build's spill file (umt__ixb_spill(): one file shared by
 * every section and range, so that a thousand ranges do not hold a thousand
 * descriptors) and keeping only where it went. After the scan,
 * assemble() gets every range's state in record order on one thread (of
 * its own beside the memory section's last phase on two threads and more,
 * assemble.c; the sections one after another), composes them (the state at the start of range k is that at the
 * end of range k - 1), writes the section's final files through
 * umt__ixb_create() and fills its info block. Memory is the section's own
 * to bound: the budget (b->budget) is the memory postings'.
 *
 * Opening. open() gets where the files are (a directory, or the named
 * buffers of an index opened from memory: the fuzz targets), maps and
 * checks its files in O(1) with umt__ix_map_section_file(), and keeps what
 * it needs in ix->section_data[its bit]. Queries of a section live in its
 * own file and check everything they follow, as the memory queries do.
 * verify() is called by umt_index_verify() for every section the header
 * lists.
 */
#ifndef UMTRACE_IX_SECTION_H
#define UMTRACE_IX_SECTION_H

#include "ixint.h"

struct ix_build;

/** Where the files of an index being opened are: a directory, or named buffers. */
struct ix_source {
	int dirfd;                            /**< the index directory, or -1 */
	const umt_ix_named_buffer *buffers;   /**< with dirfd -1: the section files */
	unsigned nbuffers;
};

/** A section of the index. */
struct ix_section {
	const char *name; /**< for messages ("registers") */
	unsigned bit;     /**< its bit in the header's Sections (1 to UMT_IX_MAX_SECTIONS - 1) */
	const char *const *files; /**< its file names, NULL-terminated (incomplete builds) */
	/* build: build_begin (may be NULL) makes what the section's ranges share, kept in
	 * b->section_global[bit] until build_end */
	int (*build_begin)(struct ix_build *b, void **global);
	void (*build_end)(void *global);
	int (*range_begin)(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
	                   void **state);
	int (*record)(void *state, const umt_rec *r);
	int (*range_end)(struct ix_build *b, void *state);
	int (*assemble)(struct ix_build *b, void *const *states, unsigned nranges,
	                uint64_t info[UMT_IX_INFO_WORDS]);
	void (*free_state)(void *state);
	/* an open index */
	int (*open)(umt_index *ix, const struct ix_source *src, const uint64_t info[UMT_IX_INFO_WORDS]);
	void (*close)(umt_index *ix);
	int (*verify)(const umt_index *ix);
};

/** The sections every build makes, NULL-terminated (sections.c). */
UMT_HIDDEN extern const struct ix_section *const umt__ix_sections[];

/**
 * Creates the final temporary of file @p name of the index (a section's
 * file): it is listed in the header's file table with its size at commit.
 * The fd belongs to the build's commit. @return 0; UMT_E_INVAL (more than
 * UMT_IX_MAX_FILES files), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ixb_create(struct ix_build *b, const char *name, int *fd);

/**
 * The number of ranges the build's scan cuts the trace into: a function of
 * the size of exec.vtable only (about one range per RANGE_BYTES, at least
 * 1, at most 1024), so that the ranges (umt_exec_split() into this many)
 * are the same for every build of the trace.
 */
UMT_HIDDEN unsigned umt__ix_range_count(const umt_trace *t);

/**
 * Appends @p n bytes to the build's spill file (created on first use,
 * removed with the build); thread-safe. *at receives their offset, for
 * umt__ixb_spill_read(). @return 0; UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ixb_spill(struct ix_build *b, const void *p, size_t n, uint64_t *at);

/** Reads back @p n bytes at @p at of the spill file. @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ixb_spill_read(struct ix_build *b, void *p, size_t n, uint64_t at);

/**
 * Maps section file @p name of an index being opened: present, of the size
 * the file table lists, its 64-byte header with magic @p magic (8 bytes),
 * this version and the index's BuildID. @return 0; UMT_E_INCOMPLETE,
 * UMT_E_MISSING (a buffer index without that buffer), UMT_E_TRUNCATED,
 * UMT_E_CORRUPT, UMT_E_IO.
 */
UMT_HIDDEN int umt__ix_map_section_file(const umt_index *ix, const struct ix_source *src,
                                        const char *name, const char *magic,
                                        struct umt_map *out);

/** The size the header's file table gives @p name, or UINT64_MAX when it lists none (ixfiles.c). */
UMT_HIDDEN uint64_t umt__ix_listed_size(const umt_ix_header *h, const char *name);

/**
 * A mapped file of an index being opened: its size against the file table
 * (UMT_E_INCOMPLETE), its 64-byte header (magic @p magic, this version, the
 * index's BuildID: UMT_E_TRUNCATED, UMT_E_CORRUPT, naming file @p f, an
 * IX_F_* or -1 for index.umti... as umt__ix_corrupt() does).
 */
UMT_HIDDEN int umt__ix_check_named(const umt_index *ix, const struct umt_map *m, int f,
                                   const char *name, const char *magic);

/** Writes the 64-byte header of an index file (magic, version, BuildID) at offset 0. */
/** Reports a corrupt structure of section file @p file at @p offset ("FILE: at offset
 * 0x...: ..."). @return UMT_E_CORRUPT. */
UMT_HIDDEN int umt__ix_section_corrupt(const char *file, uint64_t offset, const char *fmt, ...)
	UMT_PRINTF(3, 4);

/** What section @p bit of @p ix keeps open, or NULL with UMT_E_MISSING reported ("index: no
 * @p name section ..."); NULL without a message when @p ix is NULL. */
UMT_HIDDEN const void *umt__ix_section_of(const umt_index *ix, unsigned bit, const char *name);

UMT_HIDDEN int umt__ixb_file_header(const struct ix_build *b, int fd, const char *magic);

#endif
