/*
 * libumtrace - the registry of the index's sections (section.h), and what
 * the build and open share for their files.
 */
#include <errno.h>
#include <sys/stat.h>

#include "build.h"
#include "encode.h"

/* Sections are added here, one line each, in bit order. */
const struct ix_section *const umt__ix_sections[] = {
	NULL,
};

int umt__ixb_create(struct ix_build *b, const char *name, int *fd)
{
	if (b->nfiles >= UMT_IX_MAX_FILES - IX_F_COUNT || strlen(name) >= sizeof b->file_names[0])
		return umt__failf(UMT_E_INVAL, "index build: too many files, or %s too long a name", name);
	int rc = umt__commit_create(b->commit, name, fd);
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
