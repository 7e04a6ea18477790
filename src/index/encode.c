/*
 * libumtrace - encoding sorted index entries (encode.h): lists of blocks of
 * varint-coded postings, page footers, skip entries and page entries.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../commit.h"
#include "encode.h"

/* ---- output streams ------------------------------------------------------------------ */

/* A write to @p fd at @p at failed with @p err (0: nothing written): the message names the
 * file, as the kernel knows it (a temporary of the commit: its final name is in it), and
 * the offset. */
static int write_failed(int fd, uint64_t at, int err)
{
	char link[32], path[512];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0)
		n = snprintf(path, sizeof path, "descriptor %d", fd);
	path[n < (ssize_t)sizeof path ? n : (ssize_t)sizeof path - 1] = 0;
	return umt__failf(UMT_E_IO, "index build: %s: cannot write at offset %llu: %s", path,
	                  (unsigned long long)at, err ? strerror(err) : "no space");
}

int umt__ix_pwrite_all(int fd, const void *p, size_t n, uint64_t at)
{
	const uint8_t *b = p;
	while (n > 0) {
		ssize_t k = pwrite(fd, b, n, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return write_failed(fd, at, k < 0 ? errno : 0);
		b += k;
		n -= (size_t)k;
		at += (uint64_t)k;
	}
	umt__commit_point(UMT_COMMIT_WROTE, NULL); /* a kill point for the tests */
	return 0;
}

int umt__ix_out_init(struct ix_out *o, int fd, size_t cap)
{
	o->fd = fd;
	o->len = 0;
	o->cap = cap;
	o->size = 0;
	o->buf = malloc(cap);
	return o->buf ? 0 : umt__failf(UMT_E_NOMEM, "index build: out of memory");
}

int umt__ix_out_flush(struct ix_out *o)
{
	int rc = umt__ix_pwrite_all(o->fd, o->buf, o->len, o->size - o->len);
	o->len = 0;
	return rc;
}

int umt__ix_out_put(struct ix_out *o, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n > 0) {
		if (o->len == o->cap) {
			int rc = umt__ix_out_flush(o);
			if (rc < 0)
				return rc;
		}
		size_t k = n < o->cap - o->len ? n : o->cap - o->len;
		memcpy(o->buf + o->len, b, k);
		o->len += k;
		o->size += k;
		b += k;
		n -= k;
	}
	return 0;
}

void umt__ix_out_free(struct ix_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* ---- blocks -------------------------------------------------------------------------- */

void umt__ix_encoder_init(struct ix_encoder *e, struct ix_out *post, struct ix_out *skip,
                          struct ix_out *dir)
{
	memset(e, 0, sizeof *e);
	e->post = post;
	e->skip = skip;
	e->dir = dir;
}

/* The bytes a posting covers, as a mask: bytes of a granule, or granules of a page. */
static uint64_t coverage(const struct ix_entry *x, bool page_list)
{
	unsigned lo = x->lo, last = x->lo + x->len - 1u;
	if (page_list) {
		lo >>= UMT_IX_GRANULE_SHIFT;
		last >>= UMT_IX_GRANULE_SHIFT;
	}
	uint64_t upto = last == 63 ? UINT64_MAX : ((1ull << (last + 1)) - 1);
	return upto & ~((1ull << lo) - 1);
}

static int flush_block(struct ix_encoder *e)
{
	if (e->block_n == 0)
		return 0;
	e->seen_before |= e->seen;
	e->written_before |= e->written;
	umt_ix_skip_entry s = {e->first_key, e->post->size - e->list_start, e->seen,
	                       e->written, e->seen_before, e->written_before};
	int rc = umt__ix_out_put(e->post, e->block, e->block_len);
	/* a list's skip entries exist only when it has a second block */
	if (rc == 0 && e->blocks == 0)
		e->pending = s;
	else if (rc == 0 && e->blocks == 1)
		rc = umt__ix_out_put(e->skip, &e->pending, sizeof e->pending);
	if (rc == 0 && e->blocks >= 1)
		rc = umt__ix_out_put(e->skip, &s, sizeof s);
	e->blocks++;
	e->block_n = 0;
	e->block_len = 0;
	e->seen = e->written = 0;
	return rc;
}

/* Appends one posting to the block being filled. */
static void put_posting(struct ix_encoder *e, const struct ix_entry *x)
{
	bool page_list = e->list == UMT_IX_PAGE_LIST, first = e->block_n == 0;
	bool same = !first && x->thread == e->prev_thread;
	uint8_t *p = e->block + e->block_len;
	p += umt__put_varint(p, first ? x->key : x->key - e->prev_key);
	if (first)
		e->first_key = x->key;
	if (page_list) {
		uint32_t bits = x->lo | (uint32_t)(x->len - 1u) << 12 | (uint32_t)x->kind << 24 |
		                (x->clobber ? UMT_IX_PAGE_CLOBBER : 0) |
		                (same ? UMT_IX_PAGE_SAME_THREAD : 0);
		memcpy(p, &bits, 4);
		p += 4;
	} else {
		uint16_t bits = (uint16_t)(x->lo | (unsigned)(x->len - 1u) << 6 |
		                           (unsigned)x->kind << 12 |
		                           (x->clobber ? UMT_IX_FINE_CLOBBER : 0u) |
		                           (same ? UMT_IX_FINE_SAME_THREAD : 0u));
		memcpy(p, &bits, 2);
		p += 2;
	}
	if (!same)
		p += umt__put_varint(p, (uint32_t)x->thread);
	p += umt__put_varint(p, x->locator);
	if (umt__ix_inline(page_list, x->len, x->clobber)) {
		memcpy(p, &x->value, x->len);
		p += x->len;
	}
	e->block_len = (size_t)(p - e->block);
	e->block_n++;
	e->prev_key = x->key;
	e->prev_thread = x->thread;
	uint64_t m = coverage(x, page_list);
	e->seen |= m;
	if (x->kind == UMT_IX_K_WRITE)
		e->written |= m;
}

/* ---- lists and pages ----------------------------------------------------------------- */

static int end_list(struct ix_encoder *e)
{
	if (!e->in_list)
		return 0;
	int rc = flush_block(e);
	umt_ix_list_desc *d = &e->descs[e->ndescs++];
	d->DataOff = e->list_start - e->page_start;
	d->Count = e->list_count;
	d->SkipFirst = e->list_skip - e->page_skip;
	if (e->list == UMT_IX_PAGE_LIST)
		e->present[1] |= 1;
	else
		e->present[0] |= 1ull << e->list;
	e->in_list = false;
	return rc;
}

static int end_page(struct ix_encoder *e)
{
	if (!e->in_page)
		return 0;
	int rc = end_list(e);
	umt_ix_footer_tail tail = {(uint32_t)(16 + e->ndescs * sizeof(umt_ix_list_desc) + 8),
	                           UMT_IX_FOOTER_MAGIC};
	if (rc == 0)
		rc = umt__ix_out_put(e->post, e->present, sizeof e->present);
	if (rc == 0)
		rc = umt__ix_out_put(e->post, e->descs, e->ndescs * sizeof e->descs[0]);
	if (rc == 0)
		rc = umt__ix_out_put(e->post, &tail, sizeof tail);
	umt_ix_page_entry pe = {e->page, e->post->size, e->page_skip};
	if (rc == 0)
		rc = umt__ix_out_put(e->dir, &pe, sizeof pe);
	e->pages++;
	e->in_page = false;
	return rc;
}

int umt__ix_encode(struct ix_encoder *e, const struct ix_entry *x)
{
	uint64_t page = x->list >> 7;
	unsigned list = (unsigned)(x->list & 127);
	int rc = 0;
	if (!e->in_page || page != e->page) {
		if ((rc = end_page(e)) < 0)
			return rc;
		e->in_page = true;
		e->page = page;
		e->page_start = e->post->size;
		e->page_skip = e->skip->size / sizeof(umt_ix_skip_entry);
		e->present[0] = e->present[1] = 0;
		e->ndescs = 0;
	}
	if (!e->in_list || list != e->list) {
		if ((rc = end_list(e)) < 0)
			return rc;
		e->in_list = true;
		e->list = list;
		e->list_start = e->post->size;
		e->list_count = 0;
		e->list_skip = e->skip->size / sizeof(umt_ix_skip_entry);
		e->blocks = 0;
		e->seen_before = e->written_before = 0;
	}
	if (e->block_n == UMT_IX_BLOCK && (rc = flush_block(e)) < 0)
		return rc;
	put_posting(e, x);
	e->list_count++;
	e->postings++;
	return 0;
}

int umt__ix_encoder_finish(struct ix_encoder *e)
{
	return end_page(e);
}
