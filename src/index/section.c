/*
 * libumtrace - what the build gives the index's sections (section.h): their
 * files, the ranges of the scan, the spill file. Nothing here knows the
 * sections (their registry is sections.c), so that they can use it.
 */
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "encode.h"

/* Bytes of exec.vtable per range of the scan, and the most ranges: enough
 * ranges for 64 threads to share the work evenly, few enough that what a
 * section keeps per range stays small; small traces still get several. */
#define RANGE_BYTES (1u << 20)
#define MAX_RANGES 1024u

int umt__ixb_create(struct ix_build *b, const char *name, int *fd)
{
	if (b->nfiles >= UMT_IX_MAX_FILES - IX_F_COUNT || strlen(name) >= sizeof b->file_names[0])
		return umt__failf(UMT_E_INVAL, "index build: too many files, or %s too long a name", name);
	pthread_mutex_lock(&b->mu); /* the commit's file list: scratch files of the merge too */
	int rc = umt__commit_create(b->commit, name, fd);
	pthread_mutex_unlock(&b->mu);
	if (rc < 0)
		return rc;
	memcpy(b->file_names[b->nfiles], name, strlen(name) + 1);
	b->file_fds[b->nfiles++] = *fd;
	return 0;
}

int umt__ixb_file_header(const struct ix_build *b, int fd, const char *magic)
{
	umt_ix_file_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.Magic, magic, 8);
	h.Version = UMT_IX_VERSION;
	h.BuildID = b->build_id;
	return umt__ix_pwrite_all(fd, &h, sizeof h, 0);
}

unsigned umt__ix_range_count(const umt_trace *t)
{
	uint64_t bytes = umt_trace_file_size(t, UMT_FILE_EXEC_VTABLE);
	uint64_t n = bytes / RANGE_BYTES + 1;
	return n < MAX_RANGES ? (unsigned)n : MAX_RANGES;
}

int umt__ixb_spill(struct ix_build *b, const void *p, size_t n, uint64_t *at)
{
	int rc = 0;
	pthread_mutex_lock(&b->mu);
	if (b->spill_fd < 0)
		rc = umt__commit_scratch(b->commit, "sections.spill", &b->spill_fd);
	if (rc == 0) {
		*at = b->spill_end;
		b->spill_end += n;
	}
	int fd = b->spill_fd;
	pthread_mutex_unlock(&b->mu);
	return rc < 0 ? rc : umt__ix_pwrite_all(fd, p, n, *at); /* its own bytes: no lock */
}

int umt__ixb_spill_read(struct ix_build *b, void *p, size_t n, uint64_t at)
{
	uint8_t *q = p;
	while (n > 0) {
		ssize_t k = pread(b->spill_fd, q, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return umt__failf(UMT_E_IO, "index build: cannot read back the spill file: %s",
			                  k < 0 ? strerror(errno) : "short file");
		q += k;
		n -= (size_t)k;
		at += (uint64_t)k;
	}
	return 0;
}
