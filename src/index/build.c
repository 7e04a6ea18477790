/*
 * libumtrace - building an index: options, worker threads, the scan that
 * extracts postings into sorted runs (docs/index-format.md, "Building").
 *
 * Workers take record ranges (umt_exec_split into umt__ix_range_count(),
 * the same ranges whatever the threads) in increasing order, so a
 * worker's buffer is in (key, locator) order and one stable sort by list
 * orders it completely. A full buffer is sorted and spilled to a scratch
 * file; what remains at the end stays in memory, and when something was
 * spilled the merge's read buffers of the file runs get the rest of
 * the budget (the runs kept hold at most half of it). The scan drops the trace pages it has read from its
 * mapping as it goes, so the resident set stays near the budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"

#define DEFAULT_MEMORY (256ull << 20)
#define MIN_MEMORY (1ull << 20)
#define MAX_THREADS 64u
#define ADVISE_EVERY 65536u /* records between drops of the pages already read */

void umt_index_build_options_init(umt_index_build_options *o)
{
	if (o == NULL)
		return;
	memset(o, 0, sizeof *o);
	o->memory = DEFAULT_MEMORY;
	o->sections = UMT_INDEX_SECTIONS_ALL;
}

/* ---- shared helpers ----------------------------------------------------------------- */

int umt__ixb_fail(struct ix_build *b, int rc)
{
	pthread_mutex_lock(&b->mu);
	if (b->error == 0) {
		b->error = rc;
		snprintf(b->message, sizeof b->message, "%s", umt_errmsg());
	}
	pthread_mutex_unlock(&b->mu);
	atomic_store(&b->stop, 1);
	return rc;
}

int umt__ixb_scratch(struct ix_build *b, const char *what, int *fd)
{
	pthread_mutex_lock(&b->mu);
	int rc = umt__commit_scratch(b->commit, what, fd);
	pthread_mutex_unlock(&b->mu);
	return rc;
}

int umt__ixb_add_run(struct ix_build *b, struct ix_run run)
{
	int rc = 0;
	pthread_mutex_lock(&b->mu);
	if (b->nruns == b->runs_cap) {
		size_t cap = b->runs_cap ? 2 * b->runs_cap : 16;
		struct ix_run *p = realloc(b->runs, cap * sizeof *p);
		if (p == NULL)
			rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
		else
			b->runs = p, b->runs_cap = cap;
	}
	if (rc == 0) {
		b->runs[b->nruns++] = run;
		if (run.fd >= 0) {
			b->disk_runs++;
			b->temp_bytes += run.count * sizeof(struct ix_entry);
		}
	}
	pthread_mutex_unlock(&b->mu);
	return rc;
}

static void report(struct ix_build *b, int phase, uint64_t done, uint64_t total)
{
	if (b->o.on_progress)
		b->o.on_progress(phase, done, total, b->o.ctx);
}

/* A worker of a phase: its function, then one worker fewer running. */
struct task {
	struct ix_build *b;
	void *(*fn)(void *);
};

static void *run_task(void *arg)
{
	const struct task *k = arg;
	k->fn(k->b);
	atomic_fetch_sub(&k->b->running, 1);
	return NULL;
}

int umt__ixb_parallel(struct ix_build *b, void *(*fn)(void *), int phase,
                      _Atomic uint64_t *done, uint64_t total)
{
	pthread_t tid[MAX_THREADS];
	struct task k = {b, fn};
	unsigned started = 0;
	report(b, phase, 0, total);
	atomic_store(&b->running, b->threads);
	for (; started < b->threads; started++)
		if (pthread_create(&tid[started], NULL, run_task, &k) != 0)
			break;
	atomic_fetch_sub(&b->running, b->threads - started);
	if (started == 0)
		fn(b); /* no thread could start: do the work here */
	/* the progress, polled while the workers run: nothing on their path */
	uint64_t step = total / 100 + 1, next = step;
	while (atomic_load(&b->running) > 0) {
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
		uint64_t d = atomic_load_explicit(done, memory_order_relaxed);
		if (d >= next) {
			report(b, phase, d, total);
			next = d + step;
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	if (b->error)
		return umt__failf(b->error, "%s", b->message);
	report(b, phase, total, total);
	return 0;
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
	b->nranges = umt__ix_range_count(b->t);
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
	return want < MAX_THREADS ? want : MAX_THREADS;
}

static int open_dir(struct ix_build *b)
{
	if (mkdir(b->dir, 0777) != 0 && errno != EEXIST)
		return umt__failf(UMT_E_IO, "%s: cannot create the index directory: %s", b->dir,
		                  strerror(errno));
	b->dirfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0)
		return umt__failf(UMT_E_IO, "%s: cannot open the index directory: %s", b->dir,
		                  strerror(errno));
	int rc = umt__ix_identity(b->t, &b->identity);
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
	b.spill_fd = -1;
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
