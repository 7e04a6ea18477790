/*
 * libumtrace - committing a set of files into one directory atomically.
 *
 * Used by every writer of this project (the trace writer; the index writer
 * later). Each file is written under a temporary name in the target
 * directory and renamed over its final name only at the end, so that
 *   - a process that has the old files mapped keeps its inodes (a final name
 *     is never truncated or rewritten in place: no SIGBUS for readers);
 *   - a writer killed at any point leaves the directory reading as the old
 *     set, complete, or, only inside the short commit window below, as an
 *     incomplete set (the commit record missing), never as a mix.
 *
 * One file of the set is its commit record (exec.vtable for traces): it is
 * removed first and renamed into place last, and readers treat its absence
 * next to other files of the set as "incomplete".
 *
 * The protocol of umt__commit_finish():
 *   1. fsync and close every temporary;
 *   2. unlink the old commit record (the directory now reads as incomplete);
 *   3. fsync the directory;
 *   4. rename every other temporary over its final name; unlink the final
 *      names the new set no longer has (umt__commit_remove());
 *   5. fsync the directory (every file is in place before the commit record);
 *   6. rename the commit record's temporary over its final name;
 *   7. fsync the directory.
 * A kill before step 2 leaves the old set; between the end of step 2 and
 * step 6, an incomplete set; from step 6 on, the new set.
 *
 * Temporaries are named ".FINAL.tmp-XXXXXX" (XXXXXX: 6 letters or digits).
 * umt__commit_begin() takes an exclusive flock() on the directory, so that
 * two writers never share one, and then removes every leftover temporary of
 * that pattern: a writer killed earlier left them, since the lock says no
 * other writer is running. (On a file system without flock() it writes
 * unlocked and leaves the temporaries it finds alone.)
 */
#ifndef UMTRACE_COMMIT_H
#define UMTRACE_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

/** A set of files being written into one directory. */
struct umt_commit;

/**
 * Starts a set in directory @p dirfd (not owned: it must stay open until
 * umt__commit_finish() or umt__commit_abort()); @p dir names it in messages;
 * @p commit_name is the final name of the commit record (copied).
 * Locks the directory and removes leftover temporaries.
 * @return 0 and *out; UMT_E_IO (another writer holds the directory),
 *   UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__commit_begin(int dirfd, const char *dir, const char *commit_name,
                                 struct umt_commit **out);

/**
 * Creates the temporary of @p final_name (O_EXCL, mode 0644 before the
 * umask, opened read-write) and returns its descriptor in *fd. The
 * descriptor belongs to the commit: callers write through it but never
 * close it. Each final name is created at most once.
 * @return 0; UMT_E_INVAL (a name created twice), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__commit_create(struct umt_commit *c, const char *final_name, int *fd);

/**
 * A scratch file for intermediate data: created like a temporary of
 * @p final_name and unlinked at once, so that only *fd (owned by the commit,
 * read-write) refers to it. It is never renamed.
 * @return 0; UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__commit_scratch(struct umt_commit *c, const char *final_name, int *fd);

/**
 * Says that final name @p final_name is not part of the new set: an old file
 * of that name is unlinked in step 4. @return 0; UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__commit_remove(struct umt_commit *c, const char *final_name);

/**
 * Commits (the protocol above) and frees @p c in all cases. On a failure in
 * step 1 nothing final changed and the temporaries are removed; on a
 * failure from step 2 on, the temporaries not yet renamed are removed and
 * the directory reads as incomplete until the next successful commit.
 * @return 0; UMT_E_INVAL (no commit record was created), UMT_E_IO.
 */
UMT_HIDDEN int umt__commit_finish(struct umt_commit *c);

/** Closes and unlinks every temporary, leaves final names alone, frees; NULL allowed. */
UMT_HIDDEN void umt__commit_abort(struct umt_commit *c);

/** true when @p name has the temporaries' pattern ".FINAL.tmp-XXXXXX". */
UMT_HIDDEN bool umt__commit_is_temp(const char *name);

/**
 * For readers that found the commit record missing: true when directory
 * @p dirfd holds one of @p names (the set's other files) or a temporary,
 * i.e. a writer did not finish; false for an unrelated directory.
 */
UMT_HIDDEN bool umt__commit_leftovers(int dirfd, const char *const *names, size_t count);

/* ---- test hook ------------------------------------------------------------ */

/** Points of a commit, reported to the test hook after they happened. */
enum umt_commit_step {
	UMT_COMMIT_CREATED = 0,   /* a temporary was created (name: its final name) */
	UMT_COMMIT_WROTE,         /* a block was written to a temporary (from any thread) */
	UMT_COMMIT_SYNCED,        /* step 1, per file */
	UMT_COMMIT_UNLINKED,      /* step 2: the old commit record is gone */
	UMT_COMMIT_DIR_SYNCED,    /* steps 3, 5 and 7 */
	UMT_COMMIT_RENAMED,       /* step 4, per file */
	UMT_COMMIT_REMOVED,       /* step 4, per removed name */
	UMT_COMMIT_COMMITTED      /* step 6 */
};

/**
 * Called at every point above when not NULL; NULL in production. Tests set
 * it (before any writer starts) to kill the process at a chosen point.
 */
UMT_HIDDEN extern void (*umt__commit_hook)(enum umt_commit_step step, const char *name);

static inline void umt__commit_point(enum umt_commit_step step, const char *name)
{
	void (*hook)(enum umt_commit_step, const char *) = umt__commit_hook;
	if (UMT_UNLIKELY(hook != NULL))
		hook(step, name);
}

#endif
