/*
 * libumtrace - the files of an index being opened, as the open and the
 * sections share them: their names, the file table, the check of a file's
 * header, a section's file mapped from a directory or a buffer, and the
 * report of a damaged structure. Nothing here knows the sections.
 */
#include <stdarg.h>
#include <stdio.h>

#include "section.h"

const char *const umt__ix_file_names[IX_F_COUNT] = {"mem.dir", "mem.post", "mem.skip"};

int umt__ix_corrupt(int code, int file, uint64_t offset, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	const char *name = file >= 0 && file < IX_F_COUNT ? umt__ix_file_names[file] : "index.umti";
	return umt__failf(code, "%s: at offset 0x%llx: %s", name, (unsigned long long)offset, msg);
}

/* The size the header's file table gives @p name, or UINT64_MAX when absent. */
uint64_t umt__ix_listed_size(const umt_ix_header *h, const char *name)
{
	for (unsigned i = 0; i < UMT_IX_MAX_FILES; i++)
		if (strncmp(h->Files[i].Name, name, sizeof h->Files[i].Name) == 0)
			return h->Files[i].Size;
	return UINT64_MAX;
}

/* A mapped file's size against the file table, and its file header. */
int umt__ix_check_named(const umt_index *ix, const struct umt_map *m, int f, const char *name,
                       const char *magic)
{
	uint64_t want = umt__ix_listed_size(&ix->header, name);
	if (m->size != want)
		return umt__failf(UMT_E_INCOMPLETE,
		                  "%s: %llu bytes, the index header says %llu: incomplete index", name,
		                  (unsigned long long)m->size, (unsigned long long)want);
	umt_ix_file_header fh;
	if (m->size < sizeof fh)
		return umt__ix_corrupt(UMT_E_TRUNCATED, f, m->size, "shorter than its header");
	memcpy(&fh, m->data, sizeof fh);
	static const uint8_t zero[sizeof fh.Zero];
	if (memcmp(fh.Magic, magic, 8) != 0 || fh.Version != UMT_IX_VERSION ||
	    fh.Zero0 != 0 || memcmp(fh.Zero, zero, sizeof zero) != 0)
		return umt__ix_corrupt(UMT_E_CORRUPT, f, 0, "not a %s of this version", name);
	if (fh.BuildID != ix->header.BuildID)
		return umt__ix_corrupt(UMT_E_CORRUPT, f, 16, "belongs to another build of the index");
	return 0;
}

/* The buffer named @p name of an index opened from buffers, or NULL. */
static const umt_buffer *named_buffer(const struct ix_source *src, const char *name)
{
	for (unsigned i = 0; i < src->nbuffers; i++)
		if (src->buffers[i].name && strcmp(src->buffers[i].name, name) == 0)
			return &src->buffers[i].buffer;
	return NULL;
}

int umt__ix_map_section_file(const umt_index *ix, const struct ix_source *src, const char *name,
                             const char *magic, struct umt_map *out)
{
	memset(out, 0, sizeof *out);
	if (umt__ix_listed_size(&ix->header, name) == UINT64_MAX)
		return umt__ix_corrupt(UMT_E_CORRUPT, -1, 1024, "the file table lacks %s", name);
	int rc;
	if (src->dirfd < 0) {
		const umt_buffer *b = named_buffer(src, name);
		if (b == NULL)
			return umt__failf(UMT_E_MISSING, "%s: not given (an index from buffers)", name);
		umt__map_buffer(b, out);
		rc = 0;
	} else if ((rc = umt__map_named(src->dirfd, name, out)) == UMT_E_MISSING) {
		return umt__failf(UMT_E_INCOMPLETE,
		                  "%s: missing: incomplete index, the build did not finish", name);
	}
	if (rc == 0)
		rc = umt__ix_check_named(ix, out, -1, name, magic);
	if (rc < 0)
		umt__unmap(out);
	return rc;
}


int umt__ix_section_corrupt(const char *file, uint64_t offset, const char *fmt, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return umt__failf(UMT_E_CORRUPT, "%s: at offset 0x%llx: %s", file, (unsigned long long)offset,
	                  msg);
}

const void *umt__ix_section_of(const umt_index *ix, unsigned bit, const char *name)
{
	const void *d = ix ? ix->section_data[bit] : NULL;
	if (d == NULL && ix != NULL)
		(void)umt__failf(UMT_E_MISSING, "index: no %s section (built without it, or by an "
		                 "older library): build the index again", name);
	return d;
}
