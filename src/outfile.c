/*
 * libumtrace - buffered output files written by a background I/O thread
 * (see outfile.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "commit.h"
#include "outfile.h"

#define QUEUE_SIZE 256

/* A write of a full buffer (owner set) or a small patch (bytes in patch[]). */
struct job {
	struct umt_ostream *owner;
	int fd;
	const char *name;
	const uint8_t *data;
	size_t len;
	uint64_t at;
	uint8_t patch[16];
};

struct umt_out {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work; /* a job was queued, or stop */
	pthread_cond_t done; /* a job finished */
	struct job queue[QUEUE_SIZE];
	unsigned head, count;
	bool busy; /* a job is being written */
	bool stop;
	int err;   /* errno of the first failed write */
	const char *err_name;
};

static int pwrite_all(int fd, const uint8_t *p, size_t n, uint64_t at)
{
	while (n > 0) {
		ssize_t k = pwrite(fd, p, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? errno : EIO;
		p += k;
		n -= (size_t)k;
		at += (uint64_t)k;
	}
	return 0;
}

static void *io_main(void *arg)
{
	struct umt_out *o = arg;
	pthread_mutex_lock(&o->mu);
	for (;;) {
		while (o->count == 0 && !o->stop)
			pthread_cond_wait(&o->work, &o->mu);
		if (o->count == 0)
			break;
		struct job j = o->queue[o->head];
		o->head = (o->head + 1) % QUEUE_SIZE;
		o->count--;
		o->busy = true;
		pthread_mutex_unlock(&o->mu);
		int err = pwrite_all(j.fd, j.owner ? j.data : j.patch, j.len, j.at);
		umt__commit_point(UMT_COMMIT_WROTE, j.name);
		pthread_mutex_lock(&o->mu);
		o->busy = false;
		if (j.owner)
			atomic_store_explicit(&j.owner->spare_busy, 0, memory_order_release);
		if (err && o->err == 0) {
			o->err = err;
			o->err_name = j.name;
		}
		pthread_cond_broadcast(&o->done);
	}
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

int umt__out_start(struct umt_out **out)
{
	struct umt_out *o = calloc(1, sizeof *o);
	if (o == NULL)
		return umt__failf(UMT_E_NOMEM, "writer: out of memory");
	pthread_mutex_init(&o->mu, NULL);
	pthread_cond_init(&o->work, NULL);
	pthread_cond_init(&o->done, NULL);
	int err = pthread_create(&o->thread, NULL, io_main, o);
	if (err) {
		pthread_cond_destroy(&o->work);
		pthread_cond_destroy(&o->done);
		pthread_mutex_destroy(&o->mu);
		free(o);
		return umt__failf(UMT_E_IO, "writer: cannot start the I/O thread: %s", strerror(err));
	}
	*out = o;
	return 0;
}

/* The first write error, as a status with its message. Called with o->mu held. */
static int error_locked(const struct umt_out *o)
{
	if (o->err == 0)
		return 0;
	return umt__failf(UMT_E_IO, "%s: cannot write: %s", o->err_name, strerror(o->err));
}

static int submit(struct umt_out *o, const struct job *j)
{
	pthread_mutex_lock(&o->mu);
	while (o->count == QUEUE_SIZE)
		pthread_cond_wait(&o->done, &o->mu);
	int rc = error_locked(o);
	if (rc == 0) {
		o->queue[(o->head + o->count) % QUEUE_SIZE] = *j;
		o->count++;
		pthread_cond_signal(&o->work);
	}
	pthread_mutex_unlock(&o->mu);
	return rc;
}

/* Waits until every queued job is written. Called with o->mu held. */
static void idle_locked(struct umt_out *o)
{
	while (o->count > 0 || o->busy)
		pthread_cond_wait(&o->done, &o->mu);
}

int umt__out_drain(struct umt_out *o)
{
	pthread_mutex_lock(&o->mu);
	idle_locked(o);
	int rc = error_locked(o);
	pthread_mutex_unlock(&o->mu);
	return rc;
}

void umt__out_stop(struct umt_out *o)
{
	if (o == NULL)
		return;
	pthread_mutex_lock(&o->mu);
	o->stop = true;
	pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->mu);
	pthread_join(o->thread, NULL);
	pthread_cond_destroy(&o->work);
	pthread_cond_destroy(&o->done);
	pthread_mutex_destroy(&o->mu);
	free(o);
}

/* ---- streams ------------------------------------------------------------- */

int umt__os_open(struct umt_out *out, struct umt_ostream *s, int fd, const char *name,
                 size_t cap)
{
	s->out = out;
	s->fd = fd;
	s->name = name;
	s->len = 0;
	s->flushed = 0;
	s->cap = cap;
	atomic_init(&s->spare_busy, 0);
	s->buf = malloc(cap);
	s->spare = malloc(cap);
	if (s->buf == NULL || s->spare == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", name);
	return 0;
}

/* Waits until the I/O thread no longer reads the spare buffer. */
static void wait_spare(struct umt_ostream *s)
{
	if (!atomic_load_explicit(&s->spare_busy, memory_order_acquire))
		return;
	struct umt_out *o = s->out;
	pthread_mutex_lock(&o->mu);
	while (atomic_load_explicit(&s->spare_busy, memory_order_acquire))
		pthread_cond_wait(&o->done, &o->mu);
	pthread_mutex_unlock(&o->mu);
}

int umt__os_flush(struct umt_ostream *s)
{
	if (s->len == 0)
		return 0;
	wait_spare(s);
	struct job j = {.owner = s, .fd = s->fd, .name = s->name, .data = s->buf,
	                .len = s->len, .at = s->flushed};
	atomic_store_explicit(&s->spare_busy, 1, memory_order_relaxed);
	int rc = submit(s->out, &j);
	if (rc < 0) {
		atomic_store_explicit(&s->spare_busy, 0, memory_order_relaxed);
		return rc;
	}
	uint8_t *tmp = s->buf;
	s->buf = s->spare;
	s->spare = tmp;
	s->flushed += s->len;
	s->len = 0;
	return 0;
}

int umt__os_write(struct umt_ostream *s, const void *p, size_t n)
{
	if (UMT_LIKELY(n <= s->cap)) {
		uint8_t *dst = umt__os_reserve(s, n);
		if (dst == NULL)
			return UMT_E_IO;
		if (n)
			memcpy(dst, p, n);
		return 0;
	}
	/* A block larger than the buffer (a memory dump): written right here, at
	 * its own offset, while the I/O thread writes what came before. */
	int rc = umt__os_flush(s);
	if (rc < 0)
		return rc;
	int err = pwrite_all(s->fd, p, n, s->flushed);
	if (err)
		return umt__failf(UMT_E_IO, "%s: cannot write: %s", s->name, strerror(err));
	umt__commit_point(UMT_COMMIT_WROTE, s->name);
	s->flushed += n;
	return 0;
}

int umt__os_zeros(struct umt_ostream *s, size_t n)
{
	while (n > 0) {
		size_t k = n < s->cap ? n : s->cap;
		uint8_t *dst = umt__os_reserve(s, k);
		if (dst == NULL)
			return UMT_E_IO;
		memset(dst, 0, k);
		n -= k;
	}
	return 0;
}

int umt__os_patch(struct umt_ostream *s, uint64_t at, const void *p, size_t n)
{
	if (at >= s->flushed) { /* still in the buffer being filled */
		memcpy(s->buf + (at - s->flushed), p, n);
		return 0;
	}
	struct job j = {.owner = NULL, .fd = s->fd, .name = s->name, .len = n, .at = at};
	memcpy(j.patch, p, n < sizeof j.patch ? n : sizeof j.patch);
	return submit(s->out, &j);
}

int umt__os_close(struct umt_ostream *s)
{
	int rc = umt__os_flush(s);
	if (rc == 0)
		rc = umt__out_drain(s->out);
	umt__os_release(s);
	return rc;
}

void umt__os_release(struct umt_ostream *s)
{
	if (s->out && s->buf) { /* the I/O thread may still read the spare buffer */
		pthread_mutex_lock(&s->out->mu);
		idle_locked(s->out); /* without a message: release keeps the caller's */
		pthread_mutex_unlock(&s->out->mu);
	}
	s->fd = -1;
	free(s->buf);
	free(s->spare);
	s->buf = s->spare = NULL;
}
