/*
 * libumtrace - the state of an index build, shared by its phases:
 * build.c (options, the scan, runs), merge.c (partitions merged in
 * parallel) and assemble.c (the final files, the header, the commit).
 */
#ifndef UMTRACE_IX_BUILD_H
#define UMTRACE_IX_BUILD_H

#include "../commit.h"
#include "runs.h"
#include "section.h"

/** Worker threads of a build, at most. */
#define UMT_IX_MAX_THREADS 64u

/** The output of one partition: its three streams, in scratch files. */
struct ix_part {
	uint64_t first_page, end_page; /* pages [first_page, end_page) */
	int post_fd, skip_fd, dir_fd;
	uint64_t post_size, skip_count, pages, postings;
};

struct ix_build {
	const umt_trace *t;
	umt_index_build_options o;
	unsigned threads;
	uint64_t budget;
	const char *dir;
	int dirfd;
	struct umt_commit *commit;
	pthread_mutex_t mu; /* runs, the commit's scratch files, the first error */
	umt_ix_trace_identity identity; /* of the trace, taken at the start */
	uint64_t build_id;

	/* the sections built (section.h, those o.sections asks for): one state per section
	 * and range */
	const struct ix_section *secs[UMT_IX_MAX_SECTIONS];
	void *section_global[UMT_IX_MAX_SECTIONS]; /* by bit: what a section's ranges share */
	void **states[UMT_IX_MAX_SECTIONS];
	unsigned nsections;
	uint64_t sections; /* their bits, and memory's */
	uint64_t section_info[UMT_IX_MAX_SECTIONS][UMT_IX_INFO_WORDS];
	/* the sections' spill file (section.h), created on first use */
	int spill_fd;
	uint64_t spill_end;
	/* files the sections created, for the file table */
	char file_names[UMT_IX_MAX_FILES][24];
	int file_fds[UMT_IX_MAX_FILES];
	unsigned nfiles;
	uint64_t section_bytes; /* their sizes, at commit */

	/* the scan: ranges [first_range, end_range) of the nranges ranges (all of them
	 * but in a part of a build in parts, parts.c) */
	uint64_t *bounds;
	unsigned nranges, first_range, end_range;
	bool no_postings; /* sections only: the postings come from parts (parts.c) */
	/* the parts a merge reads (parts.c): their descriptors and names (for messages) */
	int *input_fds;
	char **input_names;
	unsigned ninputs;
	/* the ranges left to each worker: [stripe_next[w], stripe_end[w]) (under mu) */
	unsigned stripe_next[UMT_IX_MAX_THREADS], stripe_end[UMT_IX_MAX_THREADS];
	_Atomic unsigned next_worker;
	_Atomic uint64_t records_done;
	_Atomic uint64_t accesses;
	struct ix_run *runs;
	size_t nruns, runs_cap;
	uint64_t disk_runs, temp_bytes;
	uint64_t mem_run_bytes; /* bytes of the runs kept in memory after the scan */
	struct ix_entry **blocks; /* the memory runs' entries, one allocation each (NULL: spilled) */
	size_t nblocks, blocks_cap;

	/* the merge */
	struct ix_part *parts;
	unsigned nparts;
	_Atomic unsigned next_part;
	_Atomic uint64_t merged;
	uint64_t entries;

	/* the first error of any thread, with its message (thread-local where it happened) */
	_Atomic unsigned running; /* workers of the current phase still running */
	_Atomic int stop;
	int error;
	char message[512];

	umt_index_build_stats stats;
};

/** Records the first failure of any thread and stops the others; returns @p rc. */
UMT_HIDDEN int umt__ixb_fail(struct ix_build *b, int rc);

/** A scratch file of the build (unlinked, owned by the commit). @return 0; errors. */
UMT_HIDDEN int umt__ixb_scratch(struct ix_build *b, const char *what, int *fd);

/** Adds a run (thread-safe). @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ixb_add_run(struct ix_build *b, struct ix_run run);
/** Adds a run in memory, @p count entries at @p mem, which the build then owns (thread-safe;
 * on failure the caller keeps it). @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ixb_add_mem_run(struct ix_build *b, struct ix_entry *mem, uint64_t count);

/** What the merge's read buffers of the file runs want: UMT_IX_READ_WANT for each on each
 * thread, at most half the budget; the runs kept in memory leave it free (merge.c). */
UMT_HIDDEN uint64_t umt__ixb_read_want(const struct ix_build *b);
/** What the merge's read buffers get: the budget the runs kept in memory leave (merge.c). */
UMT_HIDDEN uint64_t umt__ixb_read_budget(const struct ix_build *b);

/** Runs @p fn on b->threads threads, reporting @p phase progress from this one. */
UMT_HIDDEN int umt__ixb_parallel(struct ix_build *b, void *(*fn)(void *), int phase,
                                 _Atomic uint64_t *done, uint64_t total);

/** Starts a build: options checked and copied. Call umt__ixb_done() in all cases.
 * @return 0; UMT_E_INVAL. */
UMT_HIDDEN int umt__ixb_init(struct ix_build *b, const umt_trace *t, const char *dir,
                             const umt_index_build_options *o);
/** mkdir -p @p dir. @return 0; UMT_E_INVAL, UMT_E_IO. */
UMT_HIDDEN int umt__ixb_make_dirs(const char *dir);
/** Creates and opens b->dir, takes the trace's identity, begins the commit whose record is
 * @p commit_name, starts the sections o.sections asks for. @return 0; errors. */
UMT_HIDDEN int umt__ixb_open_dir(struct ix_build *b, const char *commit_name);
/** The record ranges of the trace (all of them to scan). @return 0; errors. */
UMT_HIDDEN int umt__ixb_plan(struct ix_build *b);
/** Scans ranges [first_range, end_range) on b->threads threads. @return 0; errors. */
UMT_HIDDEN int umt__ixb_scan(struct ix_build *b);
/** Fills @p stats (may be NULL), frees the build; returns @p rc. */
UMT_HIDDEN int umt__ixb_done(struct ix_build *b, int rc, umt_index_build_stats *stats);
UMT_HIDDEN void umt__ixb_release(struct ix_build *b);

/** merge.c: merges groups of file runs until the merge's read buffers fit the budget. */
UMT_HIDDEN int umt__ixb_reduce_runs(struct ix_build *b);
/** merge.c: merges @p n runs into the run writer @p w (read buffers of @p cap bytes). */
UMT_HIDDEN int umt__ixb_merge_runs(struct ix_build *b, const struct ix_run *runs, size_t n,
                                   size_t cap, struct ix_run_writer *w);

/** merge.c: merges every run into the partitions' streams. */
UMT_HIDDEN int umt__ixb_merge(struct ix_build *b);

/** assemble.c: writes mem.dir, mem.post, mem.skip, the other sections' files (beside
 * them on a thread of their own when b->threads > 1) and index.umti, and commits. */
UMT_HIDDEN int umt__ixb_assemble(struct ix_build *b);

#endif
