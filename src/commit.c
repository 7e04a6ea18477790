/*
 * libumtrace - committing a set of files into one directory atomically
 * (see commit.h for the protocol).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commit.h"

#define TMP_MARK ".tmp-"
#define TMP_RANDOM 6
#define CREATE_TRIES 100

void (*umt__commit_hook)(enum umt_commit_step step, const char *name);

struct commit_file {
	char *final;
	char *tmp;   /* NULL once renamed or unlinked */
	int fd;      /* -1 once closed */
	bool scratch;
};

struct umt_commit {
	int dirfd;
	char *dir;
	char *commit_name;
	struct commit_file *files;
	size_t count, cap;
	char **removed; /* final names to unlink at commit */
	size_t removed_count;
	bool locked;
};

static int io_fail(const struct umt_commit *c, const char *name, const char *what, int err)
{
	return umt__failf(UMT_E_IO, "%s/%s: cannot %s: %s", c->dir, name, what, strerror(err));
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);
	if (p)
		memcpy(p, s, n);
	return p;
}

bool umt__commit_is_temp(const char *name)
{
	size_t n = strlen(name), mark = sizeof TMP_MARK - 1;
	/* ".", at least one character of the final name, the mark, the random part */
	if (name[0] != '.' || n < 2 + mark + TMP_RANDOM)
		return false;
	const char *tail = name + n - TMP_RANDOM;
	if (memcmp(tail - mark, TMP_MARK, mark) != 0)
		return false;
	for (int i = 0; i < TMP_RANDOM; i++) {
		char ch = tail[i];
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')))
			return false;
	}
	return true;
}

/*
 * Calls @p fn for each temporary in @p dirfd until it returns true.
 * @return what fn last returned; false also when the directory cannot be read.
 */
static bool each_temp(int dirfd, bool (*fn)(int dirfd, const char *name))
{
	/* A descriptor of its own: closedir() closes it, and reading moves its offset. */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return false;
	DIR *d = fdopendir(fd);
	if (d == NULL) {
		close(fd);
		return false;
	}
	bool stop = false;
	const struct dirent *e;
	while (!stop && (e = readdir(d)) != NULL)
		if (umt__commit_is_temp(e->d_name))
			stop = fn(dirfd, e->d_name);
	closedir(d);
	return stop;
}

static bool remove_temp(int dirfd, const char *name)
{
	unlinkat(dirfd, name, 0); /* best effort: a leftover only costs space */
	return false;
}

static bool found(int dirfd, const char *name)
{
	(void)dirfd;
	(void)name;
	return true;
}

bool umt__commit_leftovers(int dirfd, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		struct stat st;
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	}
	return each_temp(dirfd, found);
}

int umt__commit_begin(int dirfd, const char *dir, const char *commit_name,
                      struct umt_commit **out)
{
	*out = NULL;
	struct umt_commit *c = calloc(1, sizeof *c);
	if (c == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", dir);
	c->dirfd = dirfd;
	if ((c->dir = dup_str(dir)) == NULL || (c->commit_name = dup_str(commit_name)) == NULL) {
		umt__commit_abort(c);
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", dir);
	}
	if (flock(dirfd, LOCK_EX | LOCK_NB) == 0) {
		c->locked = true;
		/* No other writer runs here: every temporary is a killed writer's. */
		each_temp(dirfd, remove_temp);
	} else if (errno == EWOULDBLOCK) {
		umt__commit_abort(c);
		return umt__failf(UMT_E_IO, "%s: another writer is writing into this directory", dir);
	}
	/* A file system without flock(): write unlocked and leave temporaries alone. */
	*out = c;
	return 0;
}

/* Fills the random part of @p name (the last TMP_RANDOM characters). */
static void randomize(char *name)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static _Atomic uint64_t counter;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
	             ((uint64_t)getpid() << 16) ^ (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15u);
	char *p = name + strlen(name) - TMP_RANDOM;
	for (int i = 0; i < TMP_RANDOM; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		p[i] = alphabet[(x >> 33) % (sizeof alphabet - 1)];
	}
}

/* Creates a new temporary of @p final in the directory: *tmp (malloc'd) and *fd. */
static int create_temp(const struct umt_commit *c, const char *final, char **tmp, int *fd)
{
	size_t n = 1 + strlen(final) + sizeof TMP_MARK - 1 + TMP_RANDOM + 1;
	char *name = malloc(n);
	if (name == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", final);
	snprintf(name, n, ".%s%sXXXXXX", final, TMP_MARK);
	for (int i = 0; i < CREATE_TRIES; i++) {
		randomize(name);
		*fd = openat(c->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (*fd >= 0) {
			*tmp = name;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	int rc = io_fail(c, name, "create", errno);
	free(name);
	return rc;
}

static struct commit_file *find(struct umt_commit *c, const char *final)
{
	for (size_t i = 0; i < c->count; i++)
		if (!c->files[i].scratch && strcmp(c->files[i].final, final) == 0)
			return &c->files[i];
	return NULL;
}

/* Adds a file entry (the caller fills tmp and fd). */
static struct commit_file *add_file(struct umt_commit *c, const char *final, bool scratch)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct commit_file *p = realloc(c->files, cap * sizeof *p);
		if (p == NULL)
			return NULL;
		c->files = p;
		c->cap = cap;
	}
	struct commit_file *f = &c->files[c->count];
	*f = (struct commit_file){.final = dup_str(final), .fd = -1, .scratch = scratch};
	if (f->final == NULL)
		return NULL;
	c->count++;
	return f;
}

int umt__commit_create(struct umt_commit *c, const char *final_name, int *fd)
{
	if (find(c, final_name) != NULL)
		return umt__failf(UMT_E_INVAL, "%s/%s: written twice in one commit", c->dir,
		                  final_name);
	struct commit_file *f = add_file(c, final_name, false);
	if (f == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", final_name);
	int rc = create_temp(c, final_name, &f->tmp, &f->fd);
	if (rc < 0)
		return rc; /* the entry stays, without a file: abort frees it */
	umt__commit_point(UMT_COMMIT_CREATED, final_name);
	*fd = f->fd;
	return 0;
}

int umt__commit_scratch(struct umt_commit *c, const char *final_name, int *fd)
{
	struct commit_file *f = add_file(c, final_name, true);
	if (f == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", final_name);
	int rc = create_temp(c, final_name, &f->tmp, &f->fd);
	if (rc < 0)
		return rc;
	/* Only the descriptor refers to it from now on: nothing is left if we die. */
	if (unlinkat(c->dirfd, f->tmp, 0) != 0)
		return io_fail(c, f->tmp, "unlink", errno);
	free(f->tmp);
	f->tmp = NULL;
	*fd = f->fd;
	return 0;
}

int umt__commit_remove(struct umt_commit *c, const char *final_name)
{
	char **p = realloc(c->removed, (c->removed_count + 1) * sizeof *p);
	if (p == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", final_name);
	c->removed = p;
	if ((p[c->removed_count] = dup_str(final_name)) == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", final_name);
	c->removed_count++;
	return 0;
}

static void free_commit(struct umt_commit *c)
{
	for (size_t i = 0; i < c->count; i++) {
		struct commit_file *f = &c->files[i];
		if (f->fd >= 0)
			close(f->fd);
		if (f->tmp != NULL)
			unlinkat(c->dirfd, f->tmp, 0);
		free(f->tmp);
		free(f->final);
	}
	for (size_t i = 0; i < c->removed_count; i++)
		free(c->removed[i]);
	if (c->locked)
		flock(c->dirfd, LOCK_UN);
	free(c->removed);
	free(c->files);
	free(c->commit_name);
	free(c->dir);
	free(c);
}

void umt__commit_abort(struct umt_commit *c)
{
	if (c != NULL)
		free_commit(c);
}

/* Step 1: every temporary's data on disk, every descriptor closed. */
static int sync_files(struct umt_commit *c)
{
	for (size_t i = 0; i < c->count; i++) {
		struct commit_file *f = &c->files[i];
		if (f->fd < 0)
			continue;
		if (!f->scratch && fsync(f->fd) != 0)
			return io_fail(c, f->tmp, "fsync", errno);
		int bad = close(f->fd);
		f->fd = -1;
		if (bad != 0 && !f->scratch)
			return io_fail(c, f->tmp, "close", errno);
		if (!f->scratch)
			umt__commit_point(UMT_COMMIT_SYNCED, f->final);
	}
	return 0;
}

static int sync_dir(struct umt_commit *c)
{
	if (fsync(c->dirfd) != 0)
		return io_fail(c, ".", "fsync the directory", errno);
	umt__commit_point(UMT_COMMIT_DIR_SYNCED, c->dir);
	return 0;
}

static int rename_file(struct umt_commit *c, struct commit_file *f)
{
	if (renameat(c->dirfd, f->tmp, c->dirfd, f->final) != 0)
		return io_fail(c, f->tmp, "rename", errno);
	free(f->tmp);
	f->tmp = NULL;
	return 0;
}

/* Steps 2 to 5: the old commit record out, every other file in place. */
static int replace_files(struct umt_commit *c)
{
	if (unlinkat(c->dirfd, c->commit_name, 0) != 0 && errno != ENOENT)
		return io_fail(c, c->commit_name, "unlink", errno);
	umt__commit_point(UMT_COMMIT_UNLINKED, c->commit_name);
	int rc = sync_dir(c);
	for (size_t i = 0; rc == 0 && i < c->count; i++) {
		struct commit_file *f = &c->files[i];
		if (f->scratch || strcmp(f->final, c->commit_name) == 0)
			continue;
		rc = rename_file(c, f);
		if (rc == 0)
			umt__commit_point(UMT_COMMIT_RENAMED, f->final);
	}
	for (size_t i = 0; rc == 0 && i < c->removed_count; i++) {
		if (unlinkat(c->dirfd, c->removed[i], 0) != 0 && errno != ENOENT)
			rc = io_fail(c, c->removed[i], "unlink", errno);
		else
			umt__commit_point(UMT_COMMIT_REMOVED, c->removed[i]);
	}
	return rc == 0 ? sync_dir(c) : rc;
}

int umt__commit_finish(struct umt_commit *c)
{
	struct commit_file *record = find(c, c->commit_name);
	if (record == NULL || record->tmp == NULL) {
		int rc = umt__failf(UMT_E_INVAL, "%s: nothing to commit: %s was not written", c->dir,
		                    c->commit_name);
		free_commit(c);
		return rc;
	}
	int rc = sync_files(c);
	if (rc == 0)
		rc = replace_files(c);
	if (rc == 0)
		rc = rename_file(c, record);
	if (rc == 0) {
		umt__commit_point(UMT_COMMIT_COMMITTED, c->commit_name);
		rc = sync_dir(c);
	}
	free_commit(c);
	return rc;
}
