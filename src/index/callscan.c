/*
 * libumtrace - the calls section in the build's scan (calls.h): per range,
 * the events of its records (callextract.c) gathered in a small buffer,
 * encoded (callevent.c) into a stream that goes to the build's spill file
 * whenever tail_cap bytes are pending (calls.h, the limits), and per thread
 * the calls it made.
 *
 * A call's target is its thread's next record: when that record comes
 * while the call's event is still in the buffer (nearly always), the event
 * is completed in place; else a NEXT event follows in the stream. A
 * range's first record of each thread also gives a NEXT event: the range
 * cannot know whether the thread's last call, in an earlier range, waits
 * for it.
 */
#include <stdlib.h>

#include "build.h"
#include "calls.h"

struct calls_limits umt__ix_calls_limits = {
	.chunk = CALL_CHUNK_MAX,
	.tail_cap = 64u << 10,
	.tail_keep = 4u << 10,
	.stack_block = 1024,
	.window_min = 16,
	.window_max = 4096,
	.window_bytes = 16u << 20,
	.patch_max = 65536,
	.sort_entries = (size_t)1 << 20, /* 24 MiB */
	.sort_depth = 2,
	.merge_bytes = 8u << 20,
	.merge_min = 256,
};

/* What a range needs while it scans. */
struct scan_threads {
	struct call_extract x;
	struct call_thread_scan *th; /* by thread-table row */
	uint64_t *calls;             /* calls per thread */
	uint64_t nthreads;
	uint32_t n, chunk;           /* events in buf; chunks encoded so far */
	struct call_event buf[CALL_CHUNK_MAX];
};

static int spill_tail(struct calls_range *s)
{
	if (s->tail_len == 0)
		return 0;
	if (s->segs == NULL || s->nsegs == s->segs_cap) {
		size_t cap = s->segs_cap ? 2 * s->segs_cap : 8;
		struct call_segment *p = realloc(s->segs, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "index build: out of memory");
		memset(p + s->nsegs, 0, (cap - s->nsegs) * sizeof *p);
		s->segs = p;
		s->segs_cap = cap;
	}
	uint64_t at;
	int rc = umt__ixb_spill(s->b, s->tail, s->tail_len, &at);
	if (rc < 0)
		return rc;
	struct call_segment *last = s->nsegs ? &s->segs[s->nsegs - 1] : NULL;
	if (last && last->at + last->bytes == at)
		last->bytes += s->tail_len;
	else
		s->segs[s->nsegs++] = (struct call_segment){at, s->tail_len};
	s->tail_len = 0;
	return 0;
}

static int encode_chunk(struct calls_range *s)
{
	struct scan_threads *st = s->scan;
	for (uint32_t i = 0; i < st->n; i++) {
		int rc = s->tail_cap - s->tail_len < CALL_EVENT_MAX ? spill_tail(s) : 0;
		if (rc < 0)
			return rc;
		s->tail_len += umt__ix_call_encode(&s->coder, &st->buf[i], s->tail + s->tail_len);
	}
	st->n = 0;
	st->chunk++;
	return 0;
}

static int range_emit(void *ctx, const struct call_event *e, struct call_thread_scan *th)
{
	struct calls_range *s = ctx;
	struct scan_threads *st = s->scan;
	if (st->n == umt__ix_calls_limits.chunk) {
		int rc = encode_chunk(s);
		if (rc < 0)
			return rc;
	}
	if (e->kind == CEV_CALL) {
		th->chunk = st->chunk;
		th->index = st->n;
		st->calls[e->thread]++;
	}
	st->buf[st->n++] = *e;
	return 0;
}

/* The next record of a thread after its call: completes the call's event if it is here. */
static int range_resolve(void *ctx, struct call_thread_scan *th, const struct call_event *next)
{
	struct calls_range *s = ctx;
	if (th->chunk != s->scan->chunk)
		return range_emit(ctx, next, th);
	struct call_event *c = &s->scan->buf[th->index];
	if (next->source == UMT_CALL_TARGET_NEXT) {
		c->target = next->value;
		c->source = UMT_CALL_TARGET_NEXT;
	}
	c->final = 1;
	return 0;
}

int umt__ix_calls_range_begin(struct ix_build *b, unsigned range, uint64_t first, uint64_t end,
                              void **state)
{
	(void)range;
	struct calls_range *s = calloc(1, sizeof *s);
	*state = s;
	if (s == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	s->b = b;
	s->first = first;
	s->end = end;
	s->coder.id = s->first;
	uint64_t n = umt_thread_count(b->t);
	struct scan_threads *st = s->scan = calloc(1, sizeof *st);
	s->tail_cap = umt__ix_calls_limits.tail_cap;
	s->tail = malloc(s->tail_cap);
	if (st && s->tail) {
		st->nthreads = n;
		st->th = calloc(n ? n : 1, sizeof *st->th);
		st->calls = calloc(n ? n : 1, sizeof *st->calls);
	}
	if (st == NULL || s->tail == NULL || st->th == NULL || st->calls == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	int rc = umt__ix_call_extract_init(&st->x, b->t);
	st->x.emit = range_emit;
	st->x.resolve = range_resolve;
	st->x.ctx = s;
	return rc;
}

int umt__ix_calls_record(void *state, const umt_rec *r)
{
	struct calls_range *s = state;
	struct scan_threads *st = s->scan;
	struct call_thread_scan *th = NULL;
	if (r->thread_id >= 0 && (uint64_t)r->thread_id < st->nthreads)
		th = &st->th[r->thread_id];
	return umt__ix_call_extract(&st->x, r, th);
}

static void free_scan(struct scan_threads *st)
{
	if (st) {
		free(st->th);
		free(st->calls);
		free(st);
	}
}

/* The threads that made calls, and how many. */
static int keep_counts(struct calls_range *s)
{
	const struct scan_threads *st = s->scan;
	size_t n = 0;
	for (uint64_t i = 0; i < st->nthreads; i++)
		n += st->calls[i] != 0;
	s->counts = malloc((n ? n : 1) * sizeof *s->counts);
	if (s->counts == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	for (uint64_t i = 0; i < st->nthreads; i++)
		if (st->calls[i])
			s->counts[s->ncounts++] = (struct call_count){(int32_t)i, st->calls[i]};
	return 0;
}

int umt__ix_calls_range_end(struct ix_build *b, void *state)
{
	(void)b;
	struct calls_range *s = state;
	int rc = encode_chunk(s);
	if (rc == 0 && (s->nsegs > 0 || s->tail_len > umt__ix_calls_limits.tail_keep))
		rc = spill_tail(s);
	if (rc == 0 && s->tail_len < s->tail_cap) { /* keep only what the tail holds */
		uint8_t *p = realloc(s->tail, s->tail_len ? s->tail_len : 1);
		if (p != NULL)
			s->tail = p, s->tail_cap = s->tail_len;
	}
	if (rc == 0)
		rc = keep_counts(s);
	s->ignored = s->scan->x.ignored;
	free_scan(s->scan);
	s->scan = NULL;
	return rc;
}

void umt__ix_calls_free_state(void *state)
{
	struct calls_range *s = state;
	if (s == NULL)
		return;
	free_scan(s->scan);
	free(s->segs);
	free(s->tail);
	free(s->counts);
	free(s);
}

/* ---- reading a range's events back -------------------------------------------------------- */

#define READ_BUF (256u << 10)

/* Decodes [p, end) whole: every event, none cut. */
static int decode_all(struct call_coder *c, const uint8_t *p, const uint8_t *end,
                      int (*fn)(void *, const struct call_event *), void *ctx)
{
	struct call_event e;
	int rc = 0;
	while (rc == 0 && umt__ix_call_decode(c, &p, end, &e) == 1)
		rc = fn(ctx, &e);
	if (rc == 0 && p != end)
		rc = umt__failf(UMT_E_IO, "index build: the calls' events read back damaged");
	return rc;
}

/* One spilled segment, read in pieces (events may straddle two pieces). */
static int decode_segment(const struct calls_range *s, const struct call_segment *g,
                          struct call_coder *c, uint8_t *buf,
                          int (*fn)(void *, const struct call_event *), void *ctx)
{
	size_t len = 0, pos = 0;
	uint64_t done = 0;
	int rc = 0;
	while (rc == 0 && (done < g->bytes || pos < len)) {
		if (len - pos < CALL_EVENT_MAX && done < g->bytes) {
			memmove(buf, buf + pos, len - pos);
			len -= pos;
			pos = 0;
			size_t want = READ_BUF - len < g->bytes - done ? READ_BUF - len : (size_t)(g->bytes - done);
			rc = umt__ixb_spill_read(s->b, buf + len, want, g->at + done);
			len += want;
			done += want;
			continue;
		}
		const uint8_t *p = buf + pos;
		struct call_event e;
		int k = umt__ix_call_decode(c, &p, buf + len, &e);
		if (k != 1)
			return umt__failf(UMT_E_IO, "index build: the calls' events read back damaged");
		pos = (size_t)(p - buf);
		rc = fn(ctx, &e);
	}
	return rc;
}

int umt__ix_calls_range_events(const struct calls_range *s,
                               int (*fn)(void *ctx, const struct call_event *e), void *ctx)
{
	struct call_coder c = {.id = s->first};
	uint8_t *buf = s->nsegs ? malloc(READ_BUF) : NULL;
	if (s->nsegs && buf == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < s->nsegs; i++)
		rc = decode_segment(s, &s->segs[i], &c, buf, fn, ctx);
	free(buf);
	return rc == 0 ? decode_all(&c, s->tail, s->tail + s->tail_len, fn, ctx) : rc;
}
