/*
 * libumtrace - what the phases of an index build share (build.h): the
 * worker threads of a parallel phase with the progress reported from the
 * calling thread, the first failure of any thread, scratch files and the
 * list of sorted runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "build.h"



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
			b->temp_bytes += run.end; /* scratch runs start at 0 */
		}
	}
	pthread_mutex_unlock(&b->mu);
	return rc;
}

int umt__ixb_add_mem_run(struct ix_build *b, struct ix_entry *mem, uint64_t count)
{
	int rc = 0;
	pthread_mutex_lock(&b->mu);
	if (b->nblocks == b->blocks_cap) {
		size_t cap = b->blocks_cap ? 2 * b->blocks_cap : 16;
		struct ix_entry **p = realloc(b->blocks, cap * sizeof(struct ix_entry *));
		if (p == NULL)
			rc = umt__failf(UMT_E_NOMEM, "index build: out of memory");
		else
			b->blocks = p, b->blocks_cap = cap;
	}
	size_t block = b->nblocks;
	if (rc == 0)
		b->blocks[b->nblocks++] = mem;
	pthread_mutex_unlock(&b->mu);
	if (rc == 0 && (rc = umt__ixb_add_run(b, (struct ix_run){mem, -1, count, (unsigned)block,
	                                                         NULL, 0, NULL})) < 0)
		b->blocks[block] = NULL; /* the caller keeps it */
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
	pthread_t tid[UMT_IX_MAX_THREADS];
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

