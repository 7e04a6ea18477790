/*
 * libumtrace - building an index: options, worker threads, the scan that
 * extracts postings into sorted runs (docs/index-format.md, "Building").
 *
 * Workers take record ranges (umt_exec_split) in increasing order, so a
 * worker's buffer is in (key, locator) order and one stable sort by list
 * orders it completely. A full buffer is sorted and spilled to a scratch
 * file; what remains at the end stays in memory, and when something was
 * spilled the merge's read buffers of the file runs get the rest of
 * the budget (the runs kept hold at most half of it). The scan drops the trace pages it has read from its
 * mapping as it goes, so the resident set stays near the budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"

#define DEFAULT_MEMORY (256ull << 20)
#define MIN_MEMORY (1ull << 20)

#define RANGES_PER_THREAD 16u
#define ADVISE_EVERY 65536u /* records between drops of the pages already read */

void umt_index_build_options_init(umt_index_build_options *o)
{
	if (o == NULL)
		return;
	memset(o, 0, sizeof *o);
	o->memory = DEFAULT_MEMORY;
	o->sections = UMT_INDEX_SECTIONS_ALL;
}

/* ---- the scan ------------------------------------------------------------------------- */

struct scan_buf {
	struct ix_build *b;
	struct ix_entry *buf, *tmp;
	size_t n, cap;
	uint64_t accesses;
};

static int spill(struct scan_buf *s)
{
	if (s->n == 0)
		return 0;
	struct ix_entry *sorted = umt__ix_sort(s->buf, s->tmp, s->n);
	int fd;
	int rc = umt__ixb_scratch(s->b, "mem.run", &fd);
	if (rc == 0)
		rc = umt__ix_run_write(fd, sorted, s->n);
	if (rc == 0)
		rc = umt__ixb_add_run(s->b, (struct ix_run){NULL, fd, s->n});
	s->n = 0;
	return rc;
}

static int emit(void *ctx, const struct ix_entry *e)
{
	struct scan_buf *s = ctx;
	if (UMT_UNLIKELY(s->n == s->cap)) {
		int rc = spill(s);
		if (rc < 0)
			return rc;
	}
	s->buf[s->n++] = *e;
	return 0;
}

/* Every section's range_begin (end: 0) or range_end (1) for range @p k. */
static int sections_range(struct ix_build *b, unsigned k, uint64_t from, uint64_t to, int end)
{
	int rc = 0;
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++) {
		const struct ix_section *sec = b->secs[i];
		rc = end ? sec->range_end(b, b->states[i][k])
		         : sec->range_begin(b, k, from, to, &b->states[i][k]);
	}
	return rc;
}

/* One record: its postings, and every section's look at it. */
static int scan_record(struct scan_buf *s, unsigned k, const umt_rec *r)
{
	struct ix_build *b = s->b;
	int rc = umt__ix_record_postings(b->t, r, emit, s, &s->accesses);
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++)
		rc = b->secs[i]->record(b->states[i][k], r);
	return rc;
}

static int scan_range(struct scan_buf *s, unsigned k)
{
	struct ix_build *b = s->b;
	uint64_t from = b->bounds[k], to = b->bounds[k + 1];
	umt_exec_iter it;
	umt_exec_block blk;
	umt_rec r;
	int n = 0, rc = umt_exec_iter_init(&it, b->t, from, to);
	if (rc == 0)
		rc = sections_range(b, k, from, to, 0);
	uint64_t dropped = from;
	while (rc == 0 && (n = umt_exec_iter_next_block(&it, &blk, 4096)) > 0) {
		for (int i = 0; i < n && rc == 0; i++) {
			umt_block_rec(&blk, (uint32_t)i, &r);
			rc = scan_record(s, k, &r);
		}
		atomic_fetch_add_explicit(&b->records_done, (uint64_t)n, memory_order_relaxed);
		if (it.next_id - dropped >= ADVISE_EVERY) {
			/* The whole mapping, not the range just read: the page cache maps
			 * large folios with 2 MiB entries that a partial drop leaves in
			 * place (measured: the resident set grew by 100 MiB). Pages other
			 * workers still read fault back in from the page cache. A hint. */
			umt_trace_advise(b->t, UMT_FILE_EXEC_VTABLE, UMT_ADVISE_DONTNEED);
			umt_trace_advise(b->t, UMT_FILE_EXEC_OFFSETS, UMT_ADVISE_DONTNEED);
			dropped = it.next_id;
		}
		if (atomic_load_explicit(&b->stop, memory_order_relaxed))
			return 0;
	}
	if (rc == 0 && n < 0)
		rc = n;
	return rc < 0 ? rc : sections_range(b, k, from, to, 1);
}

/* The worker's last buffer: kept in memory as a sorted run. */
static int keep(struct scan_buf *s)
{
	if (s->n == 0)
		return 0;
	struct ix_entry *sorted = umt__ix_sort(s->buf, s->tmp, s->n);
	struct ix_entry *spare = sorted == s->buf ? s->tmp : s->buf;
	free(spare);
	s->buf = s->tmp = NULL;
	int rc = umt__ixb_add_run(s->b, (struct ix_run){sorted, -1, s->n});
	if (rc < 0)
		free(sorted);
	return rc;
}

static void *scan_main(void *arg)
{
	struct ix_build *b = arg;
	struct scan_buf s = {.b = b};
	s.cap = (size_t)(b->budget / b->threads / (2 * sizeof(struct ix_entry)));
	s.buf = malloc(s.cap * sizeof *s.buf);
	s.tmp = malloc(s.cap * sizeof *s.tmp);
	int rc = s.buf && s.tmp ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	while (rc == 0 && !atomic_load(&b->stop)) {
		unsigned k = atomic_fetch_add(&b->next_range, 1);
		if (k >= b->nranges)
			break;
		rc = scan_range(&s, k);
	}
	if (rc == 0)
		rc = keep(&s);
	atomic_fetch_add(&b->accesses, s.accesses);
	if (rc < 0)
		umt__ixb_fail(b, rc);
	free(s.buf);
	free(s.tmp);
	return NULL;
}

static int scan(struct ix_build *b)
{
	b->nranges = b->threads * RANGES_PER_THREAD;
	b->bounds = malloc((b->nranges + 1) * sizeof *b->bounds);
	if (b->bounds == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	int rc = umt_exec_split(b->t, b->nranges, b->bounds);
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++)
		if ((b->states[i] = calloc(b->nranges, sizeof *b->states[i])) == NULL)
			rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc == 0)
		rc = umt__ixb_parallel(b, scan_main, UMT_INDEX_PHASE_SCAN, &b->records_done,
		                       umt_exec_count(b->t));
	for (size_t i = 0; i < b->nruns; i++) {
		b->entries += b->runs[i].count;
		if (b->runs[i].mem)
			b->mem_run_bytes += b->runs[i].count * sizeof(struct ix_entry);
	}
	return rc;
}

/* ---- the build ---------------------------------------------------------------------- */

static unsigned thread_count(unsigned want)
{
	if (want == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		want = n > 0 ? (unsigned)n : 1u;
	}
	return want < UMT_IX_MAX_THREADS ? want : UMT_IX_MAX_THREADS;
}

/* mkdir -p: the default place (~/.cache/umtrace/KEY) may not exist yet. */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX];
	size_t n = strlen(dir);
	if (n == 0 || n >= sizeof path)
		return umt__failf(UMT_E_INVAL, "index build: bad directory name");
	memcpy(path, dir, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];
		path[i] = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return umt__failf(UMT_E_IO, "%s: cannot create the index directory: %s", path,
			                  strerror(errno));
		path[i] = c;
	}
	return 0;
}

static int open_dir(struct ix_build *b)
{
	int rc = make_dirs(b->dir);
	if (rc < 0)
		return rc;
	b->dirfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0)
		return umt__failf(UMT_E_IO, "%s: cannot open the index directory: %s", b->dir,
		                  strerror(errno));
	rc = umt__ix_identity(b->t, &b->identity);
	if (rc == 0)
		rc = umt__commit_begin(b->dirfd, b->dir, "index.umti", &b->commit);
	b->build_id = umt__fnv(UMT_FNV_SEED, &b->identity, sizeof b->identity);
	for (unsigned i = 0; umt__ix_sections[i] != NULL; i++)
		if (b->o.sections & (1ull << umt__ix_sections[i]->bit))
			b->secs[b->nsections++] = umt__ix_sections[i];
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++)
		if (b->secs[i]->build_begin)
			rc = b->secs[i]->build_begin(b, &b->section_global[b->secs[i]->bit]);
	return rc;
}

static void release(struct ix_build *b)
{
	for (unsigned i = 0; i < b->nsections; i++) {
		for (unsigned k = 0; b->states[i] && k < b->nranges; k++)
			if (b->states[i][k])
				b->secs[i]->free_state(b->states[i][k]);
		free(b->states[i]);
		if (b->secs[i]->build_end && b->section_global[b->secs[i]->bit])
			b->secs[i]->build_end(b->section_global[b->secs[i]->bit]);
	}
	for (size_t i = 0; i < b->nruns; i++)
		free(b->runs[i].mem);
	free(b->runs);
	free(b->bounds);
	free(b->parts);
	umt__commit_abort(b->commit); /* NULL after a commit */
	if (b->dirfd >= 0)
		close(b->dirfd);
	pthread_mutex_destroy(&b->mu);
}

int umt_index_build(const umt_trace *t, const char *dir, const umt_index_build_options *o,
                    umt_index_build_stats *stats)
{
	if (t == NULL || dir == NULL || (o && (o->sections & ~(uint64_t)UMT_INDEX_SECTIONS_ALL)))
		return umt__failf(UMT_E_INVAL, "umt_index_build: invalid argument");
	struct ix_build b;
	memset(&b, 0, sizeof b);
	b.t = t;
	b.dir = dir;
	b.dirfd = -1;
	if (o)
		b.o = *o;
	else
		umt_index_build_options_init(&b.o);
	b.threads = thread_count(b.o.threads);
	b.budget = b.o.memory ? b.o.memory : DEFAULT_MEMORY;
	if (b.budget < MIN_MEMORY)
		b.budget = MIN_MEMORY;
	pthread_mutex_init(&b.mu, NULL);
	int rc = open_dir(&b);
	if (rc == 0)
		rc = scan(&b);
	if (rc == 0)
		rc = umt__ixb_merge(&b);
	if (rc == 0)
		rc = umt__ixb_assemble(&b); /* commits: b.commit is NULL after */
	b.stats.records = atomic_load(&b.records_done);
	b.stats.accesses = atomic_load(&b.accesses);
	b.stats.runs = b.disk_runs;
	b.stats.threads = b.threads;
	if (stats)
		*stats = b.stats;
	release(&b);
	return rc;
}
