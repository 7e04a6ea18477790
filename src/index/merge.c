/*
 * libumtrace - merging the sorted runs of an index build into partitions of
 * the page space, in parallel. Each partition goes through its own encoder
 * into its own scratch streams; assemble.c concatenates them. A page never
 * spans two partitions, and the encoding of a page depends only on its
 * postings, so the result does not depend on the partitioning.
 *
 * Memory: the runs the scan kept in memory leave room for the merge's read
 * buffers of the file runs (umt__ixb_read_want(): UMT_IX_READ_WANT each, at
 * most half the budget), threads x file runs of them, sized to fit the
 * rest of the budget; when there are too many file runs for
 * buffers of at least UMT_IX_CURSOR_MIN bytes, groups of them are first
 * merged into longer ones.
 */
#include <stdlib.h>
#include <unistd.h>

#include "build.h"
#include "encode.h"

#define OUT_BUFFER (256u << 10)
#define PARTS_PER_THREAD 4u
#define PROGRESS_EVERY 65536u

/* Opens cursors on entries [from[i], to[i]) of every run, file runs with buffers of @p cap bytes. */
static int open_cursors(const struct ix_run *runs, size_t n,
                        const uint64_t *from, const uint64_t *to, size_t cap,
                        struct ix_cursor *c, uint8_t **bufs)
{
	cap = cap < UMT_IX_CURSOR_MIN ? UMT_IX_CURSOR_MIN : cap;
	for (size_t i = 0; i < n; i++) {
		bufs[i] = NULL;
		if (runs[i].mem == NULL && (bufs[i] = malloc(cap)) == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: out of memory");
		int rc = umt__ix_cursor_init(&c[i], &runs[i], from[i], to[i], bufs[i], cap);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- merging groups of runs into longer runs ----------------------------------------- */

int umt__ixb_merge_runs(struct ix_build *b, const struct ix_run *runs, size_t n, size_t cap,
                        struct ix_run_writer *w)
{
	(void)b;
	size_t alloc = n ? n : 1;
	struct ix_cursor *c = calloc(alloc, sizeof *c);
	uint8_t **bufs = calloc(alloc, sizeof(uint8_t *));
	uint64_t *from = calloc(alloc, sizeof *from), *to = calloc(alloc, sizeof *to);
	struct ix_merge m = {0};
	int rc = c && bufs && from && to ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++)
		to[i] = runs[i].count;
	if (rc == 0)
		rc = open_cursors(runs, n, from, to, cap, c, bufs);
	if (rc == 0)
		rc = umt__ix_merge_init(&m, c, n);
	for (const struct ix_entry *e; rc == 0 && (e = umt__ix_merge_top(&m)) != NULL;) {
		rc = umt__ix_runw_put(w, e);
		if (rc == 0)
			rc = umt__ix_merge_pop(&m);
	}
	umt__ix_merge_free(&m);
	for (size_t i = 0; bufs && i < n; i++)
		free(bufs[i]);
	free(c);
	free(bufs);
	free(from);
	free(to);
	return rc;
}

/* Merges a group of runs into a new run in a scratch file. */
static int merge_group(struct ix_build *b, const struct ix_run *runs, size_t n, size_t cap,
                       struct ix_run *out)
{
	struct ix_run_writer w = {0};
	int fd = -1;
	int rc = umt__ixb_scratch(b, "mem.run", &fd);
	if (rc == 0)
		rc = umt__ix_runw_init(&w, fd, cap);
	if (rc == 0)
		rc = umt__ixb_merge_runs(b, runs, n, cap, &w);
	if (rc == 0)
		return umt__ix_runw_finish(&w, out);
	umt__ix_runw_free(&w);
	return rc;
}

uint64_t umt__ixb_read_want(const struct ix_build *b)
{
	uint64_t want = (uint64_t)b->threads * b->disk_runs * UMT_IX_READ_WANT;
	return want < b->budget / 2 ? want : b->budget / 2;
}

uint64_t umt__ixb_read_budget(const struct ix_build *b)
{
	return b->budget > b->mem_run_bytes ? b->budget - b->mem_run_bytes : 0;
}

/* Puts the memory runs first: [0, mem) in memory, [mem, nruns) in files. */
static size_t memory_runs_first(struct ix_build *b)
{
	size_t mem = 0;
	for (size_t i = 0; i < b->nruns; i++)
		if (b->runs[i].mem) {
			struct ix_run t = b->runs[mem];
			b->runs[mem++] = b->runs[i];
			b->runs[i] = t;
		}
	return mem;
}

/* Merges groups of file runs until threads x file runs buffers of UMT_IX_CURSOR_MIN fit. */
int umt__ixb_reduce_runs(struct ix_build *b)
{
	uint64_t budget = umt__ixb_read_budget(b);
	size_t fan_in = (size_t)(budget / (b->threads * (uint64_t)UMT_IX_CURSOR_MIN));
	if (fan_in < 2)
		fan_in = 2;
	size_t mem = memory_runs_first(b);
	while (b->nruns - mem > fan_in) {
		size_t files = b->nruns - mem, groups = (files + fan_in - 1) / fan_in, k = mem;
		size_t cap = (size_t)(budget / (fan_in + 1));
		for (size_t g = mem; g < b->nruns; g += fan_in) {
			size_t n = b->nruns - g < fan_in ? b->nruns - g : fan_in;
			struct ix_run merged = {0};
			int rc = merge_group(b, &b->runs[g], n, cap, &merged);
			if (rc < 0)
				return rc;
			for (size_t i = g; i < g + n; i++)
				umt__ix_run_free(&b->runs[i]);
			b->runs[k++] = merged; /* g >= k: the group was read before its slot is reused */
			b->disk_runs++;
			b->temp_bytes += merged.end;
		}
		b->nruns = mem + groups; /* the file runs' descriptors belong to the commit */
		b->stats.merge_passes++;
	}
	return 0;
}

/* ---- partitions ------------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Cuts the page space into partitions of about equal postings, from samples of the runs. */
static int choose_parts(struct ix_build *b)
{
	unsigned want = b->entries >= (1u << 20) ? b->threads * PARTS_PER_THREAD : 1;
	if (b->nruns == 0)
		want = 1;
	size_t samples = 1;
	for (size_t r = 0; r < b->nruns; r++)
		samples += (size_t)((b->runs[r].count + UMT_IX_FRAME - 1) / UMT_IX_FRAME);
	uint64_t *pool = malloc(samples * sizeof *pool);
	b->parts = calloc(want, sizeof *b->parts);
	if (pool == NULL || b->parts == NULL) {
		free(pool);
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	}
	size_t n = 0;
	for (size_t r = 0; r < b->nruns; r++) { /* one sample per frame of entries */
		const struct ix_run *run = &b->runs[r];
		for (uint64_t i = 0; i < run->count; i += UMT_IX_FRAME)
			pool[n++] = run->mem ? run->mem[i].list >> 7 : run->frames[i / UMT_IX_FRAME].first_page;
	}
	qsort(pool, n, sizeof *pool, cmp_u64);
	unsigned p = 0;
	b->parts[0].first_page = 0;
	for (unsigned k = 1; n > 0 && k < want; k++) {
		uint64_t cut = pool[n * k / want];
		if (cut > b->parts[p].first_page) {
			b->parts[p].end_page = cut;
			b->parts[++p].first_page = cut;
		}
	}
	b->parts[p].end_page = UINT64_MAX;
	b->nparts = p + 1;
	free(pool);
	return 0;
}

/* ---- one partition ------------------------------------------------------------------- */

static int encode_part(struct ix_build *b, struct ix_part *pt, struct ix_merge *m)
{
	struct ix_out post = {0}, skip = {0}, dir = {0};
	int rc = umt__ixb_scratch(b, "mem.post", &pt->post_fd);
	if (rc == 0)
		rc = umt__ixb_scratch(b, "mem.skip", &pt->skip_fd);
	if (rc == 0)
		rc = umt__ixb_scratch(b, "mem.dir", &pt->dir_fd);
	if (rc == 0 && (rc = umt__ix_out_init(&post, pt->post_fd, OUT_BUFFER)) == 0 &&
	    (rc = umt__ix_out_init(&skip, pt->skip_fd, OUT_BUFFER)) == 0)
		rc = umt__ix_out_init(&dir, pt->dir_fd, OUT_BUFFER);
	struct ix_encoder *e = rc == 0 ? malloc(sizeof *e) : NULL;
	if (rc == 0 && e == NULL)
		rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
	if (rc == 0)
		umt__ix_encoder_init(e, &post, &skip, &dir);
	uint64_t since = 0;
	for (const struct ix_entry *x; rc == 0 && (x = umt__ix_merge_top(m)) != NULL;) {
		if ((rc = umt__ix_encode(e, x)) == 0)
			rc = umt__ix_merge_pop(m);
		if (++since == PROGRESS_EVERY) {
			atomic_fetch_add_explicit(&b->merged, since, memory_order_relaxed);
			since = 0;
			if (atomic_load_explicit(&b->stop, memory_order_relaxed))
				break;
		}
	}
	atomic_fetch_add_explicit(&b->merged, since, memory_order_relaxed);
	if (rc == 0 && (rc = umt__ix_encoder_finish(e)) == 0 && (rc = umt__ix_out_flush(&post)) == 0 &&
	    (rc = umt__ix_out_flush(&skip)) == 0)
		rc = umt__ix_out_flush(&dir);
	if (rc == 0) {
		pt->post_size = post.size;
		pt->skip_count = skip.size / sizeof(umt_ix_skip_entry);
		pt->pages = e->pages;
		pt->postings = e->postings;
	}
	free(e);
	umt__ix_out_free(&post);
	umt__ix_out_free(&skip);
	umt__ix_out_free(&dir);
	return rc;
}

static int merge_part(struct ix_build *b, struct ix_part *pt)
{
	size_t n = b->nruns, alloc = n ? n : 1;
	struct ix_cursor *c = calloc(alloc, sizeof *c);
	uint8_t **bufs = calloc(alloc, sizeof(uint8_t *));
	uint64_t *from = calloc(alloc, sizeof *from), *to = calloc(alloc, sizeof *to);
	struct ix_merge m = {0};
	int rc = c && bufs && from && to ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		rc = umt__ix_run_seek(&b->runs[i], pt->first_page, &from[i]);
		if (rc == 0)
			rc = umt__ix_run_seek(&b->runs[i], pt->end_page, &to[i]);
	}
	size_t files = 0;
	for (size_t i = 0; i < n; i++)
		files += b->runs[i].mem == NULL;
	uint64_t cap = umt__ixb_read_budget(b) / ((uint64_t)b->threads * (files ? files : 1));
	if (rc == 0)
		rc = open_cursors(b->runs, n, from, to, (size_t)cap, c, bufs);
	if (rc == 0)
		rc = umt__ix_merge_init(&m, c, n);
	if (rc == 0)
		rc = encode_part(b, pt, &m);
	umt__ix_merge_free(&m);
	for (size_t i = 0; bufs && i < n; i++)
		free(bufs[i]);
	free(c);
	free(bufs);
	free(from);
	free(to);
	return rc;
}

/* A worker of the merge: merges partitions until none is left. */
static void *merge_main(void *arg)
{
	struct ix_build *b = arg;
	while (!atomic_load(&b->stop)) {
		unsigned p = atomic_fetch_add(&b->next_part, 1);
		if (p >= b->nparts)
			break;
		int rc = merge_part(b, &b->parts[p]);
		if (rc < 0) {
			umt__ixb_fail(b, rc);
			break;
		}
	}
	return NULL;
}

int umt__ixb_merge(struct ix_build *b)
{
	int rc = umt__ixb_reduce_runs(b);
	if (rc == 0)
		rc = choose_parts(b);
	if (rc == 0)
		rc = umt__ixb_parallel(b, merge_main, UMT_INDEX_PHASE_MERGE, &b->merged, b->entries);
	for (unsigned p = 0; rc == 0 && p < b->nparts; p++)
		b->temp_bytes += b->parts[p].post_size + b->parts[p].skip_count * sizeof(umt_ix_skip_entry) +
		                 b->parts[p].pages * sizeof(umt_ix_page_entry);
	return rc;
}
