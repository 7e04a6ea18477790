/*
 * libumtrace - the last phase of an index build: the partitions' streams
 * concatenated into mem.post and mem.skip, mem.dir written with the final
 * offsets and its top index, the other sections' files assembled from
 * what the scan left, index.umti filled in, and everything committed
 * (src/commit.c: index.umti is the commit record, renamed last).
 *
 * On two threads and more the sections are assembled in a thread of their
 * own beside the concatenation, which waits on the file system more than
 * it takes a core (on a disk, 0.35 s for a 320 MiB index, while the
 * registers' assembly took 0.1 s of the merge's time on 30 M records).
 */
/* copy_file_range() is a GNU extension: the only one the index uses */
#define _GNU_SOURCE /* NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp) */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "encode.h"

#define COPY_BUFFER (1u << 20)

/* Appends @p size bytes of @p in (from 0) to @p out at @p at: in the kernel when it can. */
static int copy_bytes(int in, uint64_t size, int out, uint64_t at)
{
	loff_t from = 0, to = (loff_t)at;
	while ((uint64_t)from < size) {
		ssize_t k = copy_file_range(in, &from, out, &to, (size_t)(size - (uint64_t)from), 0);
		if (k > 0)
			continue;
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != ENOSYS && errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP)
			return umt__failf(UMT_E_IO, "index build: cannot copy: %s", strerror(errno));
		break; /* not supported here, or nothing copied: copy by hand */
	}
	uint8_t *buf = (uint64_t)from < size ? malloc(COPY_BUFFER) : NULL;
	if ((uint64_t)from < size && buf == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	int rc = 0;
	while (rc == 0 && (uint64_t)from < size) {
		size_t want = size - (uint64_t)from < COPY_BUFFER ? (size_t)(size - (uint64_t)from) : COPY_BUFFER;
		ssize_t k = pread(in, buf, want, from);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = umt__failf(UMT_E_IO, "index build: cannot read back: %s",
			                k < 0 ? strerror(errno) : "short file");
		else
			rc = umt__ix_pwrite_all(out, buf, (size_t)k, (uint64_t)to);
		from += k;
		to += k;
	}
	free(buf);
	return rc;
}

/* The partitions' page entries, offsets made final, after the top index; fills @p top. */
static int write_dir(struct ix_build *b, int fd, uint64_t pages, const uint64_t *post_base,
                     const uint64_t *skip_base, uint64_t *top)
{
	uint64_t top_count = (pages + UMT_IX_TOP_STRIDE - 1) / UMT_IX_TOP_STRIDE;
	uint64_t at = 64 + top_count * 8, index = 0;
	enum { CHUNK = 4096 };
	umt_ix_page_entry *buf = malloc(CHUNK * sizeof *buf);
	int rc = buf ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (unsigned p = 0; rc == 0 && p < b->nparts; p++) {
		const struct ix_part *pt = &b->parts[p];
		for (uint64_t done = 0; rc == 0 && done < pt->pages;) {
			size_t n = pt->pages - done < CHUNK ? (size_t)(pt->pages - done) : CHUNK;
			ssize_t k = pread(pt->dir_fd, buf, n * sizeof *buf, (off_t)(done * sizeof *buf));
			if (k != (ssize_t)(n * sizeof *buf)) {
				rc = umt__failf(UMT_E_IO, "index build: cannot read back page entries");
				break;
			}
			for (size_t i = 0; i < n; i++, index++) {
				buf[i].PostEnd += post_base[p];
				buf[i].SkipStart += skip_base[p];
				if (index % UMT_IX_TOP_STRIDE == 0)
					top[index / UMT_IX_TOP_STRIDE] = buf[i].Page;
			}
			rc = umt__ix_pwrite_all(fd, buf, n * sizeof *buf, at);
			at += n * sizeof *buf;
			done += n;
		}
	}
	if (rc == 0)
		rc = umt__ix_pwrite_all(fd, top, top_count * 8, 64);
	free(buf);
	return rc;
}

static void put_name(umt_ix_file_entry *f, const char *name, uint64_t size)
{
	memset(f, 0, sizeof *f);
	memcpy(f->Name, name, strlen(name));
	f->Size = size;
}

/* The file table's entries of the sections' files, their sizes as written. */
static int section_files(struct ix_build *b, umt_ix_header *h)
{
	for (unsigned i = 0; i < b->nfiles; i++) {
		struct stat st;
		if (fstat(b->file_fds[i], &st) != 0)
			return umt__failf(UMT_E_IO, "index build: %s: %s", b->file_names[i], strerror(errno));
		put_name(&h->Files[IX_F_COUNT + i], b->file_names[i], (uint64_t)st.st_size);
		b->section_bytes += (uint64_t)st.st_size;
	}
	for (unsigned bit = 1; bit < UMT_IX_MAX_SECTIONS; bit++)
		memcpy(h->SectionInfo[bit - 1], b->section_info[bit], sizeof h->SectionInfo[0]);
	return 0;
}

static int write_header(struct ix_build *b, int fd, const uint64_t *sizes, uint64_t pages,
                        uint64_t top_count, uint64_t skips)
{
	umt_ix_header *h = calloc(1, sizeof *h);
	if (h == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	memcpy(h->Magic, UMT_IX_MAGIC, 8);
	h->Version = UMT_IX_VERSION;
	h->HeaderSize = UMT_IX_HEADER_SIZE;
	h->BuildID = b->build_id;
	h->Granule = UMT_IX_GRANULE;
	h->PageSize = UMT_IX_PAGE;
	h->BlockPostings = UMT_IX_BLOCK;
	h->FineMax = UMT_IX_FINE_MAX;
	h->Sections = b->sections | UMT_IX_SECTION_MEMORY;
	h->Trace = b->identity;
	for (int f = 0; f < IX_F_COUNT; f++)
		put_name(&h->Files[f], umt__ix_file_names[f], sizes[f]);
	h->Memory.Pages = pages;
	h->Memory.Postings = b->entries;
	h->Memory.Accesses = atomic_load(&b->accesses);
	h->Memory.TopStride = UMT_IX_TOP_STRIDE;
	h->Memory.TopCount = top_count;
	h->Memory.SkipEntries = skips;
	int rc = section_files(b, h);
	h->HeaderSum = umt__ix_header_sum(h);
	if (rc == 0)
		rc = umt__ix_pwrite_all(fd, h, sizeof *h, 0);
	free(h);
	return rc;
}

/* Creates the final temporaries of the four files. */
static int create_files(struct ix_build *b, int fds[IX_F_COUNT + 1])
{
	int rc = 0;
	for (int f = 0; rc == 0 && f < IX_F_COUNT; f++)
		rc = umt__commit_create(b->commit, umt__ix_file_names[f], &fds[f]);
	if (rc == 0)
		rc = umt__commit_create(b->commit, "index.umti", &fds[IX_F_COUNT]);
	return rc;
}

/* Every section's files and info block. */
static int assemble_sections(struct ix_build *b)
{
	int rc = 0;
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++) {
		const struct ix_section *sec = b->secs[i];
		rc = sec->assemble(b, b->states[i], b->nranges, b->section_info[sec->bit]);
		b->sections |= 1ull << sec->bit;
	}
	return rc;
}

/* The sections' assembly as a thread: its result, and its message (errors are the
 * thread's own). */
struct sections_job {
	struct ix_build *b;
	pthread_t tid;
	int rc;
	char message[512];
};

static void *sections_main(void *arg)
{
	struct sections_job *j = arg;
	j->rc = assemble_sections(j->b);
	if (j->rc < 0)
		snprintf(j->message, sizeof j->message, "%s", umt_errmsg());
	return NULL;
}

/* Starts the sections' assembly beside the caller's work when the build has threads to
 * spare, else does it now. @return whether a thread took it (joined by sections_join()). */
static bool sections_start(struct ix_build *b, struct sections_job *j, int *rc)
{
	j->b = b;
	j->rc = 0;
	if (b->nsections > 0 && b->threads > 1 && pthread_create(&j->tid, NULL, sections_main, j) == 0)
		return true;
	*rc = assemble_sections(b);
	return false;
}

/* Waits for the thread sections_start() started; @p rc is the caller's result so far. */
static int sections_join(struct sections_job *j, int rc)
{
	pthread_join(j->tid, NULL);
	if (rc == 0 && j->rc < 0)
		rc = umt__failf(j->rc, "%s", j->message);
	return rc;
}

int umt__ixb_assemble(struct ix_build *b)
{
	int fds[IX_F_COUNT + 1];
	int rc = create_files(b, fds);
	static const char *const magic[IX_F_COUNT] = {"UMTIXDIR", "UMTIXPST", "UMTIXSKP"};
	for (int f = 0; rc == 0 && f < IX_F_COUNT; f++)
		rc = umt__ixb_file_header(b, fds[f], magic[f]);
	struct sections_job job;
	bool beside = rc == 0 && sections_start(b, &job, &rc);
	uint64_t *post_base = calloc(b->nparts + 1, sizeof *post_base);
	uint64_t *skip_base = calloc(b->nparts + 1, sizeof *skip_base);
	uint64_t post_at = 64, skips = 0, pages = 0;
	if (rc == 0 && (post_base == NULL || skip_base == NULL))
		rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (unsigned p = 0; rc == 0 && p < b->nparts; p++) {
		const struct ix_part *pt = &b->parts[p];
		post_base[p] = post_at;
		skip_base[p] = skips;
		rc = copy_bytes(pt->post_fd, pt->post_size, fds[IX_F_POST], post_at);
		if (rc == 0)
			rc = copy_bytes(pt->skip_fd, pt->skip_count * sizeof(umt_ix_skip_entry),
			                fds[IX_F_SKIP], 64 + skips * sizeof(umt_ix_skip_entry));
		post_at += pt->post_size;
		skips += pt->skip_count;
		pages += pt->pages;
	}
	uint64_t top_count = (pages + UMT_IX_TOP_STRIDE - 1) / UMT_IX_TOP_STRIDE;
	uint64_t *top = calloc(top_count + 1, sizeof *top);
	if (rc == 0 && top == NULL)
		rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc == 0)
		rc = write_dir(b, fds[IX_F_DIR], pages, post_base, skip_base, top);
	uint64_t sizes[IX_F_COUNT] = {64 + top_count * 8 + pages * sizeof(umt_ix_page_entry),
	                              post_at, 64 + skips * sizeof(umt_ix_skip_entry)};
	if (beside) /* before the header: it holds the sections' files and info */
		rc = sections_join(&job, rc);
	if (rc == 0)
		rc = write_header(b, fds[IX_F_COUNT], sizes, pages, top_count, skips);
	free(post_base);
	free(skip_base);
	free(top);
	if (rc == 0) {
		rc = umt__commit_finish(b->commit);
		b->commit = NULL; /* freed by finish in all cases */
	}
	b->stats.postings = b->entries;
	b->stats.pages = pages;
	b->stats.temp_bytes = b->temp_bytes;
	b->stats.index_bytes = UMT_IX_HEADER_SIZE + sizes[0] + sizes[1] + sizes[2] + b->section_bytes;
	return rc;
}
