/*
 * libumtrace - building an index: options, worker threads, the scan that
 * extracts postings into sorted runs (docs/index-format.md, "Building").
 *
 * Workers take record ranges (umt_exec_split into umt__ix_range_count(),
 * the same ranges whatever the threads) in increasing order, so a
 * worker's chunk of entries is in (key, locator) order and one stable sort
 * by list orders it completely: each chunk a run. A worker holds as many
 * runs as its share of the budget allows and spills the oldest to a
 * scratch file to make room; what remains at the end stays in memory, as
 * much as leaves room for the merge's read buffers of the file runs. The
 * scan drops the trace pages it has read from its mapping as it goes, so
 * the resident set stays near the budget.
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

/*
 * A worker's buffer: slots of chunk entries (its share of the budget, less
 * a sort scratch of one chunk). Entries are appended to one slot; a full
 * slot is sorted (through the scratch, swapped with the slot when the
 * sort ends there) and holds a run, and the next slot is filled. When
 * every slot holds a run, the oldest run goes to a scratch file and its
 * slot is filled again. So the budget holds entries, not entries and
 * their copies; a trace whose entries exceed the budget by a little
 * spills a little; and at the end every slot still held is a run in
 * memory.
 */
struct scan_buf {
	struct ix_build *b;
	struct ix_entry **slot; /* nslots, each chunk entries, allocated when first filled */
	size_t *held;           /* the entries of the run each slot holds (0: none) */
	struct ix_entry *tmp;   /* the sort's scratch: chunk entries */
	uint32_t *counts;       /* the sort's counters */
	size_t nslots, cur, n, chunk; /* slot cur is being filled: n entries */
	uint64_t accesses;
	uint64_t undropped;     /* records read since the worker last dropped the trace's pages */
};

#define SORT_CHUNK ((size_t)1 << 19) /* entries: 20 MiB, and as much scratch */

/* Sorts the slot being filled into a run and moves to the next slot. */
static void close_chunk(struct scan_buf *s)
{
	if (s->n == 0)
		return;
	struct ix_entry *r = umt__ix_sort(s->slot[s->cur], s->tmp, s->n, s->counts);
	if (r != s->slot[s->cur]) { /* the sorted entries are in the scratch: swap them */
		s->tmp = s->slot[s->cur];
		s->slot[s->cur] = r;
	}
	s->held[s->cur] = s->n;
	s->n = 0;
	s->cur = (s->cur + 1) % s->nslots;
}

/* Makes slot cur ready to fill: allocated, its run (the oldest) spilled to a scratch file. */
static int open_slot(struct scan_buf *s)
{
	size_t i = s->cur;
	if (s->slot[i] == NULL && (s->slot[i] = malloc(s->chunk * sizeof **s->slot)) == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (s->held[i] == 0)
		return 0;
	int fd;
	struct ix_run run;
	int rc = umt__ixb_scratch(s->b, "mem.run", &fd);
	if (rc == 0)
		rc = umt__ix_run_write(fd, s->slot[i], s->held[i], &run);
	if (rc == 0 && (rc = umt__ixb_add_run(s->b, run)) < 0)
		umt__ix_run_free(&run);
	s->held[i] = 0;
	return rc;
}

static int emit(void *ctx, const struct ix_entry *e)
{
	struct scan_buf *s = ctx;
	if (UMT_UNLIKELY(s->n == 0)) {
		int rc = open_slot(s);
		if (rc < 0)
			return rc;
	}
	s->slot[s->cur][s->n++] = *e;
	if (UMT_UNLIKELY(s->n == s->chunk))
		close_chunk(s);
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
	int rc = b->no_postings ? 0 : umt__ix_record_postings(b->t, r, emit, s, &s->accesses);
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
	while (rc == 0 && (n = umt_exec_iter_next_block(&it, &blk, 4096)) > 0) {
		for (int i = 0; i < n && rc == 0; i++) {
			umt_block_rec(&blk, (uint32_t)i, &r);
			rc = scan_record(s, k, &r);
		}
		atomic_fetch_add_explicit(&b->records_done, (uint64_t)n, memory_order_relaxed);
		s->undropped += (uint64_t)n; /* across ranges: a range holds fewer records */
		if (s->undropped >= ADVISE_EVERY) {
			/* The whole mapping, not the range just read: the page cache maps
			 * large folios with 2 MiB entries that a partial drop leaves in
			 * place (measured: the resident set grew by 100 MiB). Pages other
			 * workers still read fault back in from the page cache. A hint. */
			umt_trace_advise(b->t, UMT_FILE_EXEC_VTABLE, UMT_ADVISE_DONTNEED);
			umt_trace_advise(b->t, UMT_FILE_EXEC_OFFSETS, UMT_ADVISE_DONTNEED);
			s->undropped = 0;
		}
		if (atomic_load_explicit(&b->stop, memory_order_relaxed))
			return 0;
	}
	if (rc == 0 && n < 0)
		rc = n;
	return rc < 0 ? rc : sections_range(b, k, from, to, 1);
}

/* The worker's runs still in slots: kept in memory, each a block of the build's. */
static int keep(struct scan_buf *s)
{
	close_chunk(s);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < s->nslots; i++) {
		if (s->held[i] == 0)
			continue;
		/* a slot filled in part (the last, or one cut at a range) gives back its tail */
		struct ix_entry *kept = realloc(s->slot[i], s->held[i] * sizeof **s->slot);
		if (kept != NULL)
			s->slot[i] = kept;
		rc = umt__ixb_add_mem_run(s->b, s->slot[i], s->held[i]);
		if (rc == 0)
			s->slot[i] = NULL, s->held[i] = 0; /* the build owns it */
	}
	return rc;
}

/*
 * The next range worker @p w scans into *k: the next of its stripe (the
 * workers' stripes cut the ranges in equal consecutive shares), or, its
 * stripe done, the last left of the stripe with most left. A worker thus
 * scans consecutive ranges, whose sections can carry their state from one
 * to the next (regbuild.c), and the workers still end together.
 * @return false when no range is left.
 */
static bool claim_range(struct ix_build *b, unsigned w, unsigned *k)
{
	bool found = true;
	pthread_mutex_lock(&b->mu);
	if (b->stripe_next[w] < b->stripe_end[w]) {
		*k = b->stripe_next[w]++;
	} else {
		unsigned most = 0, from = 0;
		for (unsigned i = 0; i < b->threads; i++)
			if (b->stripe_end[i] - b->stripe_next[i] > most)
				most = b->stripe_end[i] - b->stripe_next[i], from = i;
		found = most > 0;
		if (found)
			*k = --b->stripe_end[from];
	}
	pthread_mutex_unlock(&b->mu);
	return found;
}

static void *scan_main(void *arg)
{
	struct ix_build *b = arg;
	unsigned w = atomic_fetch_add(&b->next_worker, 1) % b->threads, k;
	struct scan_buf s = {.b = b};
	size_t share = (size_t)(b->budget / b->threads / sizeof(struct ix_entry));
	s.chunk = share / 4 < SORT_CHUNK ? share / 4 : SORT_CHUNK;
	s.nslots = (share - s.chunk) / s.chunk;
	s.slot = calloc(s.nslots, sizeof(struct ix_entry *));
	s.held = calloc(s.nslots, sizeof *s.held);
	s.tmp = malloc(s.chunk * sizeof *s.tmp);
	s.counts = malloc(UMT_IX_SORT_COUNTS * sizeof *s.counts);
	int rc = s.slot && s.held && s.tmp && s.counts
	                 ? 0
	                 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (unsigned last = 0; rc == 0 && !atomic_load(&b->stop) && claim_range(b, w, &k); last = k) {
		/* a chunk is sorted by list only, stably: its records must ascend (a range
		 * taken from another stripe comes before the worker's last) */
		if (k < last)
			close_chunk(&s);
		rc = scan_range(&s, k);
	}
	if (rc == 0)
		rc = keep(&s);
	atomic_fetch_add(&b->accesses, s.accesses);
	if (rc < 0)
		umt__ixb_fail(b, rc);
	for (size_t i = 0; s.slot && i < s.nslots; i++)
		free(s.slot[i]);
	free(s.slot);
	free(s.held);
	free(s.tmp);
	free(s.counts);
	return NULL;
}

/*
 * When some runs went to files, the merge reads them through buffers
 * (umt__ixb_read_want()), which the runs kept in memory must leave room
 * for: runs in memory are spilled, each freeing its block, until they do.
 */
static int spill_blocks(struct ix_build *b)
{
	for (size_t i = 0; i < b->nruns; i++) {
		struct ix_run *r = &b->runs[i];
		if (b->disk_runs == 0 || b->mem_run_bytes <= b->budget - umt__ixb_read_want(b))
			break;
		if (r->mem == NULL)
			continue;
		struct ix_run run = {0};
		int fd, rc = umt__ixb_scratch(b, "mem.run", &fd);
		if (rc == 0)
			rc = umt__ix_run_write(fd, r->mem, r->count, &run);
		if (rc < 0)
			return rc;
		b->mem_run_bytes -= r->count * sizeof(struct ix_entry);
		b->disk_runs++;
		b->temp_bytes += run.end; /* scratch runs start at 0 */
		free(b->blocks[r->block]);
		b->blocks[r->block] = NULL;
		*r = run;
	}
	return 0;
}

int umt__ixb_plan(struct ix_build *b)
{
	b->nranges = umt__ix_range_count(b->t);
	b->bounds = malloc((b->nranges + 1) * sizeof *b->bounds);
	if (b->bounds == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	b->first_range = 0;
	b->end_range = b->nranges;
	int rc = umt_exec_split(b->t, b->nranges, b->bounds);
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++)
		if ((b->states[i] = calloc(b->nranges, sizeof *b->states[i])) == NULL)
			rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
	return rc;
}

int umt__ixb_scan(struct ix_build *b)
{
	unsigned n = b->end_range - b->first_range;
	for (unsigned w = 0; w < b->threads; w++) {
		b->stripe_next[w] = b->first_range + (unsigned)((uint64_t)n * w / b->threads);
		b->stripe_end[w] = b->first_range + (unsigned)((uint64_t)n * (w + 1) / b->threads);
	}
	atomic_store(&b->next_worker, 0);
	int rc = umt__ixb_parallel(b, scan_main, UMT_INDEX_PHASE_SCAN, &b->records_done,
	                           b->bounds[b->end_range] - b->bounds[b->first_range]);
	for (size_t i = 0; i < b->nruns; i++) {
		b->entries += b->runs[i].count;
		if (b->runs[i].mem)
			b->mem_run_bytes += b->runs[i].count * sizeof(struct ix_entry);
	}
	return rc == 0 ? spill_blocks(b) : rc;
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
int umt__ixb_make_dirs(const char *dir)
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

int umt__ixb_open_dir(struct ix_build *b, const char *commit_name)
{
	int rc = umt__ixb_make_dirs(b->dir);
	if (rc < 0)
		return rc;
	b->dirfd = open(b->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (b->dirfd < 0)
		return umt__failf(UMT_E_IO, "%s: cannot open the index directory: %s", b->dir,
		                  strerror(errno));
	rc = umt__ix_identity(b->t, &b->identity);
	if (rc == 0)
		rc = umt__commit_begin(b->dirfd, b->dir, commit_name, &b->commit);
	b->build_id = umt__fnv(UMT_FNV_SEED, &b->identity, sizeof b->identity);
	for (unsigned i = 0; umt__ix_sections[i] != NULL; i++)
		if (b->o.sections & (1ull << umt__ix_sections[i]->bit))
			b->secs[b->nsections++] = umt__ix_sections[i];
	for (unsigned i = 0; rc == 0 && i < b->nsections; i++)
		if (b->secs[i]->build_begin)
			rc = b->secs[i]->build_begin(b, &b->section_global[b->secs[i]->bit]);
	return rc;
}

void umt__ixb_release(struct ix_build *b)
{
	for (unsigned i = 0; i < b->nsections; i++) {
		for (unsigned k = 0; b->states[i] && k < b->nranges; k++)
			if (b->states[i][k])
				b->secs[i]->free_state(b->states[i][k]);
		free(b->states[i]);
		if (b->secs[i]->build_end && b->section_global[b->secs[i]->bit])
			b->secs[i]->build_end(b->section_global[b->secs[i]->bit]);
	}
	for (size_t k = 0; k < b->nblocks; k++)
		free(b->blocks[k]);
	free(b->blocks);
	for (size_t i = 0; i < b->nruns; i++)
		umt__ix_run_free(&b->runs[i]);
	free(b->runs);
	free(b->bounds);
	free(b->parts);
	for (unsigned i = 0; i < b->ninputs; i++) {
		if (b->input_fds[i] >= 0)
			close(b->input_fds[i]);
		free(b->input_names[i]);
	}
	free(b->input_fds);
	free(b->input_names);
	umt__commit_abort(b->commit); /* NULL after a commit */
	if (b->dirfd >= 0)
		close(b->dirfd);
	pthread_mutex_destroy(&b->mu);
}

int umt__ixb_init(struct ix_build *b, const umt_trace *t, const char *dir,
                  const umt_index_build_options *o)
{
	memset(b, 0, sizeof *b);
	b->t = t;
	b->dir = dir;
	b->dirfd = -1;
	b->spill_fd = -1;
	if (o)
		b->o = *o;
	else
		umt_index_build_options_init(&b->o);
	b->threads = thread_count(b->o.threads);
	b->budget = b->o.memory ? b->o.memory : DEFAULT_MEMORY;
	if (b->budget < MIN_MEMORY)
		b->budget = MIN_MEMORY;
	pthread_mutex_init(&b->mu, NULL);
	if (t == NULL || dir == NULL || (b->o.sections & ~(uint64_t)UMT_INDEX_SECTIONS_ALL))
		return umt__failf(UMT_E_INVAL, "index build: invalid argument");
	return 0;
}

int umt__ixb_done(struct ix_build *b, int rc, umt_index_build_stats *stats)
{
	b->stats.records = atomic_load(&b->records_done);
	b->stats.accesses = atomic_load(&b->accesses);
	b->stats.runs = b->disk_runs;
	b->stats.threads = b->threads;
	if (stats)
		*stats = b->stats;
	umt__ixb_release(b);
	return rc;
}

int umt_index_build(const umt_trace *t, const char *dir, const umt_index_build_options *o,
                    umt_index_build_stats *stats)
{
	struct ix_build b;
	int rc = umt__ixb_init(&b, t, dir, o);
	if (rc == 0)
		rc = umt__ixb_open_dir(&b, "index.umti");
	if (rc == 0)
		rc = umt__ixb_plan(&b);
	if (rc == 0)
		rc = umt__ixb_scan(&b);
	if (rc == 0)
		rc = umt__ixb_merge(&b);
	if (rc == 0)
		rc = umt__ixb_assemble(&b); /* commits: b.commit is NULL after */
	return umt__ixb_done(&b, rc, stats);
}
