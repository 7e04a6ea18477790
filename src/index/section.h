/*
 * libumtrace - the sections of an index besides the memory postings
 * (docs/index-format.md, "Sections"): register checkpoints, calls,
 * coverage. Each is built in the build's one scan of the trace, has files
 * of its own listed in the header's file table, eight counts in the
 * header's info block of its bit, and is opened, closed and verified with
 * the index. A section is a table of hooks here; its code is a file of
 * src/index/ (one per section), registered in section.c.
 *
 * Building. The scan cuts the records into ranges (ranges are in record
 * order; any thread may scan any range). For each range, the thread that
 * scans it calls range_begin, then record() for every record of the range
 * in order, then range_end. A range does not know the state at its start
 * (which registers hold what, which calls are open): it records what it
 * saw relative to an unknown start, spilling to scratch files
 * (umt__ixb_scratch) what does not fit a small constant. After the scan,
 * assemble() gets every range's state in record order on the calling
 * thread, composes them (the state at the start of range k is that at the
 * end of range k - 1), writes the section's final files through
 * umt__ixb_create() and fills its info block. Memory is the section's own
 * to bound: the budget (b->budget) is the memory postings'.
 *
 * Opening. open() gets the directory (or -1 for indexes opened from
 * buffers: then it fails with UMT_E_MISSING for its own files), maps and
 * checks its files in O(1) with umt__ix_map_section_file(), and keeps what
 * it needs in ix->section_data[its bit]. Queries of a section live in its
 * own file and check everything they follow, as the memory queries do.
 */
#ifndef UMTRACE_IX_SECTION_H
#define UMTRACE_IX_SECTION_H

#include "ixint.h"

struct ix_build;

/** A section of the index. */
struct ix_section {
	const char *name; /**< for messages ("registers") */
	unsigned bit;     /**< its bit in the header's Sections (1 to UMT_IX_MAX_SECTIONS - 1) */
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
	int (*open)(umt_index *ix, int dirfd, const uint64_t info[UMT_IX_INFO_WORDS]);
	void (*close)(umt_index *ix);
	int (*verify)(const umt_index *ix);
};

/** The sections every build makes, NULL-terminated (section.c). */
UMT_HIDDEN extern const struct ix_section *const umt__ix_sections[];

/**
 * Creates the final temporary of file @p name of the index (a section's
 * file): it is listed in the header's file table with its size at commit.
 * The fd belongs to the build's commit. @return 0; UMT_E_INVAL (more than
 * UMT_IX_MAX_FILES files), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ixb_create(struct ix_build *b, const char *name, int *fd);

/**
 * Maps section file @p name of an index being opened: present, of the size
 * the file table lists, its 64-byte header with magic @p magic (8 bytes),
 * this version and the index's BuildID. @return 0; UMT_E_INCOMPLETE,
 * UMT_E_TRUNCATED, UMT_E_CORRUPT, UMT_E_IO.
 */
UMT_HIDDEN int umt__ix_map_section_file(const umt_index *ix, int dirfd, const char *name,
                                        const char *magic, struct umt_map *out);

/** Writes the 64-byte header of an index file (magic, version, BuildID) at offset 0. */
UMT_HIDDEN int umt__ixb_file_header(const struct ix_build *b, int fd, const char *magic);

#endif
