/*
 * libumtrace - mapping trace files: the only caller of mmap and munmap.
 *
 * Files are mapped whole, read-only and private. Nothing is read at map
 * time (no MAP_POPULATE): opening a 100 GB trace costs a few system calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * Opens and fstats one file; 0 with *fd = -1 when it is missing and optional.
 * O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer,
 * forever, before the regular-file check below could refuse it. It changes
 * nothing for regular files, which are only fstat'ed and mapped.
 */
static int open_file(int dirfd, int file, bool optional, int *fd, struct stat *st)
{
	*fd = openat(dirfd, umt_file_name(file), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		if (errno == ENOENT && optional)
			return 0;
		int code = errno == ENOENT ? UMT_E_MISSING : UMT_E_IO;
		return umt__fail(code, file, UMT_LOC_NONE, 0, 0, "cannot open: %s",
		                 strerror(errno));
	}
	if (fstat(*fd, st) != 0) {
		int err = errno;
		close(*fd);
		*fd = -1;
		return umt__fail(UMT_E_IO, file, UMT_LOC_NONE, 0, 0, "cannot stat: %s",
		                 strerror(err));
	}
	if (!S_ISREG(st->st_mode)) {
		close(*fd);
		*fd = -1;
		return umt__fail(UMT_E_IO, file, UMT_LOC_NONE, 0, 0, "not a regular file");
	}
	return 0;
}

static void record_identity(struct umt_map *m, const struct stat *st)
{
	m->present = true;
	m->size = (uint64_t)st->st_size;
	m->dev = st->st_dev;
	m->ino = st->st_ino;
	m->mtime = st->st_mtim;
}

static int map_fd(int fd, int file, struct umt_map *m)
{
	static const uint8_t empty[1];
	if (m->size == 0) {
		m->data = empty;
		return 0;
	}
	if (m->size > SIZE_MAX)
		return umt__fail(UMT_E_IO, file, UMT_LOC_NONE, 0, 0,
		                 "file of %llu bytes does not fit in the address space",
		                 (unsigned long long)m->size);
	void *p = mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return umt__fail(UMT_E_IO, file, UMT_LOC_NONE, 0, 0, "cannot map: %s",
		                 strerror(errno));
	m->data = p;
	m->mapped = true;
	return 0;
}

int umt__stat_file(int dirfd, int file, bool optional, struct umt_map *m)
{
	int fd;
	struct stat st;
	memset(m, 0, sizeof *m);
	int rc = open_file(dirfd, file, optional, &fd, &st);
	if (rc < 0 || fd < 0)
		return rc;
	record_identity(m, &st);
	close(fd);
	return 0;
}

int umt__map_file(int dirfd, int file, bool optional, struct umt_map *m)
{
	int fd;
	struct stat st;
	memset(m, 0, sizeof *m);
	int rc = open_file(dirfd, file, optional, &fd, &st);
	if (rc < 0 || fd < 0)
		return rc;
	record_identity(m, &st);
	rc = map_fd(fd, file, m);
	close(fd);
	return rc;
}

int umt__map_later(int dirfd, int file, struct umt_map *m)
{
	int fd;
	struct stat st;
	int rc = open_file(dirfd, file, false, &fd, &st);
	if (rc < 0)
		return rc;
	if ((uint64_t)st.st_size != m->size || st.st_ino != m->ino || st.st_dev != m->dev) {
		close(fd);
		return umt__fail(UMT_E_IO, file, UMT_LOC_NONE, 0, 0,
		                 "file changed since the trace was opened");
	}
	rc = map_fd(fd, file, m);
	close(fd);
	return rc;
}

int umt__map_named(int dirfd, const char *name, struct umt_map *m)
{
	memset(m, 0, sizeof *m);
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return umt__failf(errno == ENOENT ? UMT_E_MISSING : UMT_E_IO, "%s: cannot open: %s",
		                  name, strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = umt__failf(UMT_E_IO, "%s: cannot stat: %s", name, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = umt__failf(UMT_E_IO, "%s: not a regular file", name);
	if (rc == 0) {
		record_identity(m, &st);
		static const uint8_t empty[1];
		void *p = m->size == 0 || m->size > SIZE_MAX
		                  ? NULL
		                  : mmap(NULL, (size_t)m->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->size == 0) {
			m->data = empty;
		} else if (p == NULL || p == MAP_FAILED) {
			rc = umt__failf(UMT_E_IO, "%s: cannot map: %s", name,
			                p == NULL ? "too large" : strerror(errno));
		} else {
			m->data = p;
			m->mapped = true;
		}
	}
	close(fd);
	return rc;
}

void umt__map_buffer(const umt_buffer *b, struct umt_map *m)
{
	static const uint8_t empty[1];
	memset(m, 0, sizeof *m);
	if (b->data == NULL)
		return;
	m->present = true;
	m->data = b->size ? (const uint8_t *)b->data : empty;
	m->size = b->size;
}

int umt__map_advise(const struct umt_map *m, int file, uint64_t off, uint64_t len, int advice)
{
	static const int how[] = {
		[UMT_ADVISE_NORMAL] = MADV_NORMAL,         [UMT_ADVISE_SEQUENTIAL] = MADV_SEQUENTIAL,
		[UMT_ADVISE_RANDOM] = MADV_RANDOM,         [UMT_ADVISE_WILLNEED] = MADV_WILLNEED,
		[UMT_ADVISE_DONTNEED] = MADV_DONTNEED,
	};
	if (!m->mapped || off >= m->size || len == 0)
		return 0;
	if (len > m->size - off)
		len = m->size - off;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)(m->data + off) & ~(page - 1);
	uintptr_t end = (uintptr_t)(m->data + off + len);
	if (madvise((void *)start, end - start, how[advice]) != 0)
		return umt__fail(UMT_E_IO, file, UMT_LOC_OFFSET, 0, off, "madvise: %s", strerror(errno));
	return 0;
}

void umt__unmap(struct umt_map *m)
{
	if (m->mapped)
		munmap((void *)(uintptr_t)m->data, (size_t)m->size);
	memset(m, 0, sizeof *m);
}
