/*
 * libumtrace - opening an index: O(1) checks of its header, its identity
 * and the trace it belongs to; where indexes live by default.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../commit.h"
#include "section.h"

static const char *const file_magic[IX_F_COUNT] = {"UMTIXDIR", "UMTIXPST", "UMTIXSKP"};

/* ---- the header ------------------------------------------------------------------ */

static int check_header(const umt_ix_header *h, uint64_t size)
{
	if (size != UMT_IX_HEADER_SIZE)
		return umt__ix_corrupt(size < UMT_IX_HEADER_SIZE ? UMT_E_TRUNCATED : UMT_E_CORRUPT, -1,
		                       size < UMT_IX_HEADER_SIZE ? size : UMT_IX_HEADER_SIZE,
		                       "file of %llu bytes, an index header has %u",
		                       (unsigned long long)size, UMT_IX_HEADER_SIZE);
	if (memcmp(h->Magic, UMT_IX_MAGIC, 8) != 0)
		return umt__ix_corrupt(UMT_E_CORRUPT, -1, 0, "not an index (magic)");
	if (h->Version != UMT_IX_VERSION)
		return umt__ix_corrupt(UMT_E_VERSION, -1, 8, "unsupported version %u (%u is known)",
		                       h->Version, UMT_IX_VERSION);
	if (h->HeaderSum != umt__ix_header_sum(h))
		return umt__ix_corrupt(UMT_E_CORRUPT, -1, 24, "header checksum mismatch");
	if (h->HeaderSize != UMT_IX_HEADER_SIZE || h->Granule != UMT_IX_GRANULE ||
	    h->PageSize != UMT_IX_PAGE || h->BlockPostings != UMT_IX_BLOCK ||
	    h->FineMax != UMT_IX_FINE_MAX || !(h->Sections & UMT_IX_SECTION_MEMORY))
		return umt__ix_corrupt(UMT_E_VERSION, -1, 12, "unsupported build parameters");
	uint64_t known = UMT_IX_SECTION_MEMORY;
	for (unsigned i = 0; umt__ix_sections[i]; i++)
		known |= 1ull << umt__ix_sections[i]->bit;
	if (h->Sections & ~known)
		return umt__ix_corrupt(UMT_E_VERSION, -1, 48,
		                       "sections 0x%llx unknown to this library (a newer build)",
		                       (unsigned long long)(h->Sections & ~known));
	return 0;
}

/* Names the first difference between the identity the index saw and now. */
static int stale(const umt_ix_trace_identity *was, const umt_ix_trace_identity *now)
{
	if (was->RecordCount != now->RecordCount)
		return umt__failf(UMT_E_STALE,
		                  "stale index: built from a trace of %llu records, this one has %llu",
		                  (unsigned long long)was->RecordCount,
		                  (unsigned long long)now->RecordCount);
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		const umt_ix_file_stamp *a = &was->Files[f], *b = &now->Files[f];
		if (memcmp(a, b, sizeof *a) != 0)
			return umt__failf(UMT_E_STALE,
			                  "stale index: %s changed since the index was built (size %llu, "
			                  "then %llu; modified %lld.%09lld, then %lld.%09lld)",
			                  umt_file_name(f), (unsigned long long)a->Size,
			                  (unsigned long long)b->Size, (long long)a->MtimeSec,
			                  (long long)a->MtimeNsec, (long long)b->MtimeSec,
			                  (long long)b->MtimeNsec);
	}
	if (memcmp(was, now, sizeof *was) != 0)
		return umt__failf(UMT_E_STALE, "stale index: the trace's headers differ");
	return 0;
}

/* ---- the files ------------------------------------------------------------------- */

static int check_file(const umt_index *ix, int f)
{
	return umt__ix_check_named(ix, &ix->files[f], f, umt__ix_file_names[f], file_magic[f]);
}

/* The sections the header lists: each opens its own files. */
static int open_sections(umt_index *ix, const struct ix_source *src)
{
	int rc = 0;
	for (unsigned i = 0; rc == 0 && umt__ix_sections[i]; i++) {
		const struct ix_section *sec = umt__ix_sections[i];
		if (ix->header.Sections & (1ull << sec->bit))
			rc = sec->open(ix, src, ix->header.SectionInfo[sec->bit - 1]);
	}
	return rc;
}

static int map_files(umt_index *ix, int dirfd)
{
	for (int f = 0; f < IX_F_COUNT; f++) {
		const char *name = umt__ix_file_names[f];
		if (umt__ix_listed_size(&ix->header, name) == UINT64_MAX)
			return umt__ix_corrupt(UMT_E_CORRUPT, -1, 1024, "the file table lacks %s", name);
		int rc = umt__map_named(dirfd, name, &ix->files[f]);
		if (rc == UMT_E_MISSING)
			return umt__failf(UMT_E_INCOMPLETE,
			                  "%s: missing: incomplete index, the build did not finish", name);
		if (rc == 0)
			rc = check_file(ix, f);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The memory section's geometry: mem.dir and mem.skip sizes are exact. */
static int check_memory(umt_index *ix)
{
	const umt_ix_mem_info *mi = &ix->header.Memory;
	uint64_t dir = ix->files[IX_F_DIR].size, skip = ix->files[IX_F_SKIP].size, want;
	if (mi->TopStride != UMT_IX_TOP_STRIDE ||
	    mi->TopCount != (mi->Pages + UMT_IX_TOP_STRIDE - 1) / UMT_IX_TOP_STRIDE ||
	    mi->Pages > (UINT64_MAX - 64) / 32 || mi->SkipEntries > (UINT64_MAX - 64) / 32)
		return umt__ix_corrupt(UMT_E_CORRUPT, -1, 2048, "inconsistent memory counts");
	want = 64 + mi->TopCount * 8 + mi->Pages * sizeof(umt_ix_page_entry);
	if (dir != want)
		return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_DIR, dir < want ? dir : want,
		                       "%llu bytes for %llu pages (%llu expected)",
		                       (unsigned long long)dir, (unsigned long long)mi->Pages,
		                       (unsigned long long)want);
	want = 64 + mi->SkipEntries * sizeof(umt_ix_skip_entry);
	if (skip != want)
		return umt__ix_corrupt(UMT_E_CORRUPT, IX_F_SKIP, skip < want ? skip : want,
		                       "%llu bytes for %llu skip entries",
		                       (unsigned long long)skip, (unsigned long long)mi->SkipEntries);
	ix->top = ix->files[IX_F_DIR].data + 64;
	ix->top_count = mi->TopCount;
	ix->pages = (const umt_ix_page_entry *)(ix->top + mi->TopCount * 8);
	ix->page_count = mi->Pages;
	ix->skips = (const umt_ix_skip_entry *)(ix->files[IX_F_SKIP].data + 64);
	ix->skip_count = mi->SkipEntries;
	return 0;
}

/* Reads and checks index.umti; UMT_E_MISSING / UMT_E_INCOMPLETE when there is none. */
static int read_header(umt_index *ix, int dirfd, const char *dir)
{
	struct umt_map m;
	int rc = umt__map_named(dirfd, "index.umti", &m);
	if (rc == UMT_E_MISSING) {
		const char *others[UMT_IX_MAX_FILES];
		size_t n = 0;
		for (int f = 0; f < IX_F_COUNT; f++)
			others[n++] = umt__ix_file_names[f];
		for (unsigned i = 0; umt__ix_sections[i]; i++)
			for (const char *const *f = umt__ix_sections[i]->files; *f && n < UMT_IX_MAX_FILES; f++)
				others[n++] = *f;
		if (umt__commit_leftovers(dirfd, others, n))
			return umt__failf(UMT_E_INCOMPLETE,
			                  "%s: incomplete index: the build did not finish", dir);
		return umt__failf(UMT_E_MISSING, "%s: no index here (index.umti is missing)", dir);
	}
	if (rc < 0)
		return rc;
	if (m.size == UMT_IX_HEADER_SIZE)
		memcpy(&ix->header, m.data, sizeof ix->header);
	rc = check_header(&ix->header, m.size);
	umt__unmap(&m);
	return rc;
}

int umt_index_open(const umt_trace *t, const char *dir, umt_index **out)
{
	if (t == NULL || dir == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_index_open: invalid argument");
	*out = NULL;
	umt_index *ix = calloc(1, sizeof *ix);
	if (ix == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_index_open: out of memory");
	ix->trace = t;
	int rc, dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		rc = umt__failf(errno == ENOENT ? UMT_E_MISSING : UMT_E_IO, "%s: no index: %s", dir,
		                strerror(errno));
		free(ix);
		return rc;
	}
	umt_ix_trace_identity now;
	umt_trace_info info;
	if ((rc = read_header(ix, dirfd, dir)) == 0 && (rc = umt__ix_identity(t, &now)) == 0)
		rc = stale(&ix->header.Trace, &now);
	if (rc == 0 && (rc = map_files(ix, dirfd)) == 0 && (rc = check_memory(ix)) == 0 &&
	    (rc = umt_exec_view_init(&ix->view, t)) == 0 && (rc = umt_trace_get_info(t, &info)) == 0)
		ix->exec_version = info.exec_version;
	struct ix_source src = {dirfd, NULL, 0};
	if (rc == 0)
		rc = open_sections(ix, &src);
	close(dirfd);
	if (rc < 0) {
		umt_index_close(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

int umt__ix_open_buffers(const umt_trace *t, const void *header, size_t header_size,
                         const umt_buffer files[IX_F_COUNT], const umt_ix_named_buffer *sections,
                         unsigned nsections, umt_index **out)
{
	umt_index *ix = calloc(1, sizeof *ix);
	if (ix == NULL)
		return umt__failf(UMT_E_NOMEM, "index: out of memory");
	ix->trace = t;
	if (header_size == UMT_IX_HEADER_SIZE)
		memcpy(&ix->header, header, sizeof ix->header);
	umt_ix_trace_identity now;
	umt_trace_info info;
	int rc = check_header(&ix->header, header_size);
	if (rc == 0 && (rc = umt__ix_identity(t, &now)) == 0)
		rc = stale(&ix->header.Trace, &now);
	for (int f = 0; rc == 0 && f < IX_F_COUNT; f++) {
		umt__map_buffer(&files[f], &ix->files[f]);
		rc = check_file(ix, f);
	}
	if (rc == 0 && (rc = check_memory(ix)) == 0 && (rc = umt_exec_view_init(&ix->view, t)) == 0 &&
	    (rc = umt_trace_get_info(t, &info)) == 0)
		ix->exec_version = info.exec_version;
	struct ix_source src = {-1, sections, nsections};
	if (rc == 0)
		rc = open_sections(ix, &src);
	if (rc < 0) {
		umt_index_close(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

void umt_index_close(umt_index *ix)
{
	if (ix == NULL)
		return;
	for (unsigned i = 0; umt__ix_sections[i]; i++)
		umt__ix_sections[i]->close(ix);
	for (int f = 0; f < IX_F_COUNT; f++)
		umt__unmap(&ix->files[f]);
	free(ix);
}

int umt_index_get_info(const umt_index *ix, umt_index_info *out)
{
	if (ix == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_index_get_info: invalid argument");
	memset(out, 0, sizeof *out);
	out->version = ix->header.Version;
	out->pages = ix->header.Memory.Pages;
	out->postings = ix->header.Memory.Postings;
	out->accesses = ix->header.Memory.Accesses;
	out->bytes = UMT_IX_HEADER_SIZE; /* and every file the file table lists, sections' too */
	for (unsigned f = 0; f < UMT_IX_MAX_FILES; f++)
		out->bytes += ix->header.Files[f].Name[0] ? ix->header.Files[f].Size : 0;
	return 0;
}

/* ---- where indexes live ---------------------------------------------------------- */

static int put_path(char *buf, size_t cap, const char *fmt, ...) UMT_PRINTF(3, 4);
static int put_path(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= cap)
		return umt__failf(UMT_E_RANGE, "umt_index_default_dir: the path needs %d bytes", n + 1);
	return 0;
}

int umt_index_default_dir(const char *trace_dir, char *buf, size_t cap)
{
	if (trace_dir == NULL || buf == NULL || cap == 0)
		return umt__failf(UMT_E_INVAL, "umt_index_default_dir: invalid argument");
	char beside[PATH_MAX];
	int rc = put_path(beside, sizeof beside, "%s/umtindex", trace_dir);
	if (rc < 0)
		return rc;
	struct stat st;
	if (stat(beside, &st) == 0 || access(trace_dir, W_OK) == 0)
		return put_path(buf, cap, "%s", beside);
	char real[PATH_MAX];
	if (realpath(trace_dir, real) == NULL)
		return umt__failf(UMT_E_IO, "%s: cannot resolve: %s", trace_dir, strerror(errno));
	unsigned long long key = (unsigned long long)umt__fnv(UMT_FNV_SEED, real, strlen(real));
	const char *cache = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (cache && cache[0] == '/')
		return put_path(buf, cap, "%s/umtrace/%016llx", cache, key);
	if (home && home[0])
		return put_path(buf, cap, "%s/.cache/umtrace/%016llx", home, key);
	return umt__failf(UMT_E_IO, "%s: read-only trace directory and no $HOME for a cache",
	                  trace_dir);
}
