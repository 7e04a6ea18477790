/*
 * libumtrace - the register section's files, from the ranges the scan left
 * in the spill file (regs.h), on the calling thread:
 *   1. the ranges' summaries only: each thread's record count per range
 *      gives, by the checkpoint rule, its number of checkpoints, hence where
 *      its entries go in regs.dir (each thread's entries are contiguous);
 *   2. range by range, in record order: each checkpoint item composed with
 *      its thread's state at the range's start, then each thread's state at
 *      the range's end, and the rule's checkpoint after its last record.
 *      An absolute state (regbuild.c) is the checkpoint as it is: its
 *      encoding is copied, and a thread's absolute state at a range's end
 *      is decoded only when a relative range needs it.
 * Checkpoint blobs are appended to regs.ckpt in that order; entries are
 * written in place, a batch of a thread's at a time. Memory: a register file
 * per thread, the batches (at most 4 MiB), and one range's summary or one
 * spill chunk at a time.
 */
#include <stdlib.h>

#include "build.h"
#include "encode.h"
#include "regs.h"

struct ra {
	struct ix_build *b;
	uint64_t nthreads, interval, dump, total;
	/* per thread */
	uint64_t *since, *entries, *base, *next, *first, *records;
	struct rstate **composed;
	/* per thread: its latest absolute end state, encoded, not yet in composed[] */
	uint8_t **abs;
	size_t *abs_len, *abs_cap;
	uint64_t *abs_record;
	struct rstate rel, tmp;
	uint8_t *enc, *rbuf;
	size_t rcap;
	struct ix_out ckpt;
	int dir_fd;
	/* entries waiting to be written, per thread (its entries are contiguous in
	 * regs.dir): batch[t * per + i], nbatch[t] of them; a pwrite per batch,
	 * not per checkpoint */
	umt_ix_regs_entry *batch;
	uint32_t *nbatch, per;
};

/* Entries kept per thread: up to 64, within ENTRY_MEMORY for all threads. */
#define ENTRY_BATCH 64u
#define ENTRY_MEMORY ((uint64_t)4 << 20)

static int nomem(void)
{
	return umt__failf(UMT_E_NOMEM, "index build: out of memory");
}

/* Reads @p len bytes of the spill file at @p at into g->rbuf. */
static int read_piece(struct ra *g, uint64_t at, uint64_t len)
{
	if (len > g->rcap) {
		uint8_t *p = realloc(g->rbuf, len);
		if (p == NULL)
			return nomem();
		g->rbuf = p, g->rcap = len;
	}
	return umt__ixb_spill_read(g->b, g->rbuf, len, at);
}

static int spill_corrupt(void)
{
	return umt__failf(UMT_E_CORRUPT, "index build: the registers' spill file does not read back");
}

/* Pass 1: the entries of every thread from the ranges' record counts. */
static int count_entries(struct ra *g, void *const *states, unsigned nranges)
{
	for (unsigned k = 0; k < nranges; k++) {
		const struct rb_range *r = states[k];
		uint64_t n;
		int rc = umt__ixb_spill_read(g->b, &n, 8, r->summary.at);
		if (rc == 0 && (n > g->nthreads || 8 + n * 32 > r->summary.len))
			rc = spill_corrupt();
		if (rc == 0)
			rc = read_piece(g, r->summary.at + 8, n * 32);
		for (uint64_t i = 0; rc == 0 && i < n; i++) {
			uint64_t row[4];
			memcpy(row, g->rbuf + i * 32, sizeof row);
			if (row[0] >= g->nthreads)
				return spill_corrupt();
			uint64_t c = umt__regs_rule(row[1], g->interval, &g->since[row[0]]);
			g->entries[row[0]] += (c & ~RB_AT_END) + ((c & RB_AT_END) != 0);
			g->records[row[0]] += row[1];
			if (g->first[row[0]] == UMT_NO_RECORD)
				g->first[row[0]] = row[2];
		}
		if (rc < 0)
			return rc;
	}
	for (uint64_t t = 0; t < g->nthreads; t++) {
		g->base[t] = g->total;
		g->total += g->entries[t];
		g->since[t] = 0;
	}
	return 0;
}

/* The thread's state so far (empty before its first range). */
static int composed(struct ra *g, uint64_t thread, struct rstate **out)
{
	if (g->composed[thread] == NULL) {
		struct rstate *s = malloc(sizeof *s);
		int rc = s ? umt__rs_alloc(s, (uint32_t)g->dump, false, true) : nomem();
		if (rc < 0) {
			free(s);
			return rc;
		}
		g->composed[thread] = s;
	}
	*out = g->composed[thread];
	size_t n = g->abs_len[thread];
	g->abs_len[thread] = 0; /* decoded now: an absolute range's end state */
	if (n > 0 && umt__rs_decode(g->abs[thread], n, g->abs_record[thread], *out) < 0)
		return spill_corrupt();
	return 0;
}

/* Keeps the encoded absolute state @p p (@p n bytes) of @p thread after @p record. */
static int keep_abs(struct ra *g, uint64_t thread, const uint8_t *p, size_t n, uint64_t record)
{
	if (n > g->abs_cap[thread]) {
		uint8_t *q = realloc(g->abs[thread], n);
		if (q == NULL)
			return nomem();
		g->abs[thread] = q, g->abs_cap[thread] = n;
	}
	memcpy(g->abs[thread], p, n);
	g->abs_len[thread] = n;
	g->abs_record[thread] = record;
	return 0;
}

/* Writes the thread's waiting entries in place, in one pwrite. */
static int flush_entries(struct ra *g, uint64_t thread)
{
	uint32_t n = g->nbatch[thread];
	if (n == 0)
		return 0;
	g->nbatch[thread] = 0;
	uint64_t at = 64 + g->nthreads * sizeof(umt_ix_regs_thread) +
	              (g->base[thread] + g->next[thread] - n) * sizeof(umt_ix_regs_entry);
	return umt__ix_pwrite_all(g->dir_fd, g->batch + thread * g->per,
	                          n * sizeof(umt_ix_regs_entry), at);
}

/* A checkpoint, encoded (@p n bytes at @p enc): appended to regs.ckpt, its entry to its
 * thread's batch. */
static int emit_encoded(struct ra *g, uint64_t thread, uint64_t record, const uint8_t *enc,
                        size_t n)
{
	if (g->next[thread] >= g->entries[thread])
		return umt__failf(UMT_E_CORRUPT, "index build: thread %llu has more checkpoints "
		                  "than counted", (unsigned long long)thread);
	uint8_t len[10];
	unsigned k = umt__put_varint(len, n);
	umt_ix_regs_entry e = {record, g->ckpt.size};
	int rc = umt__ix_out_put(&g->ckpt, len, k);
	if (rc == 0)
		rc = umt__ix_out_put(&g->ckpt, enc, n);
	if (rc < 0)
		return rc;
	g->batch[thread * g->per + g->nbatch[thread]++] = e;
	g->next[thread]++;
	return g->nbatch[thread] == g->per ? flush_entries(g, thread) : 0;
}

/* A checkpoint of state @p s after @p record. */
static int emit(struct ra *g, uint64_t thread, uint64_t record, struct rstate *s)
{
	return emit_encoded(g, thread, record, g->enc, umt__rs_encode(s, record, g->enc));
}

/*
 * Reads a varint length and an encoded state from [*p, end) into *@p enc and
 * *@p n; *@p absolute says whether it is absolute (a checkpoint as it is).
 */
static int take_encoded(const uint8_t **p, const uint8_t *end, const uint8_t **enc, size_t *n,
                        bool *absolute)
{
	uint64_t len;
	if (!umt__get_varint(p, end, &len) || len == 0 || len > (uint64_t)(end - *p) ||
	    (**p >> 3) != 0 || !(**p & 4))
		return spill_corrupt();
	*enc = *p;
	*n = (size_t)len;
	*absolute = !(**p & 2);
	*p += len;
	return 0;
}

/* The checkpoint items of one spill chunk: absolute ones as they are, relative ones
 * composed with their threads' states. */
static int items(struct ra *g, const struct rb_chunk *c)
{
	int rc = read_piece(g, c->at, c->len);
	const uint8_t *p = g->rbuf, *end = g->rbuf + c->len, *enc;
	while (rc == 0 && p < end) {
		uint64_t thread, record;
		struct rstate *start;
		size_t n;
		bool absolute;
		if (!umt__get_varint(&p, end, &thread) || !umt__get_varint(&p, end, &record) ||
		    thread >= g->nthreads)
			return spill_corrupt();
		if ((rc = take_encoded(&p, end, &enc, &n, &absolute)) < 0)
			break;
		if (absolute) {
			rc = emit_encoded(g, thread, record, enc, n);
			continue;
		}
		if (umt__rs_decode(enc, n, record, &g->rel) < 0)
			return spill_corrupt();
		if ((rc = composed(g, thread, &start)) == 0) {
			umt__rs_compose(&g->tmp, start, &g->rel);
			rc = emit(g, thread, record, &g->tmp);
		}
	}
	return rc;
}

/* A range's summary: every thread's state at its end, and the rule's checkpoints. */
static int range_end(struct ra *g, const struct rb_range *r)
{
	uint64_t n = 0;
	int rc = r->summary.len >= 8 ? read_piece(g, r->summary.at, r->summary.len) : spill_corrupt();
	if (rc == 0)
		memcpy(&n, g->rbuf, 8);
	if (rc == 0 && (n > g->nthreads || 8 + n * 32 > r->summary.len))
		return spill_corrupt();
	const uint8_t *rows = g->rbuf + 8, *p = rows + n * 32, *end = g->rbuf + r->summary.len;
	for (uint64_t i = 0; rc == 0 && i < n; i++) {
		uint64_t row[4];
		struct rstate *s;
		const uint8_t *enc;
		size_t len;
		bool absolute;
		memcpy(row, rows + i * 32, sizeof row);
		if (row[0] >= g->nthreads)
			return spill_corrupt();
		if ((rc = take_encoded(&p, end, &enc, &len, &absolute)) < 0)
			break;
		bool at_end = (umt__regs_rule(row[1], g->interval, &g->since[row[0]]) & RB_AT_END) != 0;
		if (absolute) { /* the state as it is: decoded if a relative range needs it */
			rc = keep_abs(g, row[0], enc, len, row[3]);
			if (rc == 0 && at_end)
				rc = emit_encoded(g, row[0], row[3], enc, len);
			continue;
		}
		if (umt__rs_decode(enc, len, row[3], &g->rel) < 0)
			return spill_corrupt();
		if ((rc = composed(g, row[0], &s)) < 0)
			break;
		umt__rs_compose(s, s, &g->rel);
		if (at_end)
			rc = emit(g, row[0], row[3], s);
	}
	return rc;
}

/* The thread table of regs.dir, once every entry is in place. */
static int thread_table(struct ra *g)
{
	int rc = 0;
	for (uint64_t t = 0; rc == 0 && t < g->nthreads; t++) {
		if ((rc = flush_entries(g, t)) < 0)
			return rc;
		if (g->next[t] != g->entries[t])
			return umt__failf(UMT_E_CORRUPT, "index build: thread %llu has fewer checkpoints "
			                  "than counted", (unsigned long long)t);
		umt_ix_regs_thread row = {g->base[t], g->entries[t], g->first[t], g->records[t]};
		rc = umt__ix_pwrite_all(g->dir_fd, &row, sizeof row, 64 + t * sizeof row);
	}
	return rc;
}

static int alloc_all(struct ra *g)
{
	uint64_t n = g->nthreads ? g->nthreads : 1;
	uint64_t **arrays[] = {&g->since, &g->entries, &g->base, &g->next, &g->first, &g->records};
	for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
		if ((*arrays[i] = calloc(n, sizeof(uint64_t))) == NULL)
			return nomem();
	for (uint64_t t = 0; t < g->nthreads; t++)
		g->first[t] = UMT_NO_RECORD;
	g->composed = calloc(n, sizeof(struct rstate *));
	g->abs = calloc(n, sizeof(uint8_t *));
	g->abs_len = calloc(n, sizeof(size_t));
	g->abs_cap = calloc(n, sizeof(size_t));
	g->abs_record = calloc(n, sizeof(uint64_t));
	g->enc = malloc(umt__rs_encoded_max((uint32_t)g->dump));
	uint64_t per = ENTRY_MEMORY / (n * sizeof(umt_ix_regs_entry));
	g->per = per < 1 ? 1u : per > ENTRY_BATCH ? ENTRY_BATCH : (uint32_t)per;
	g->batch = malloc(n * g->per * sizeof *g->batch);
	g->nbatch = calloc(n, sizeof *g->nbatch);
	if (g->composed == NULL || g->enc == NULL || g->batch == NULL || g->nbatch == NULL ||
	    g->abs == NULL || g->abs_len == NULL || g->abs_cap == NULL || g->abs_record == NULL)
		return nomem();
	int rc = umt__rs_alloc(&g->rel, (uint32_t)g->dump, true, true);
	return rc < 0 ? rc : umt__rs_alloc(&g->tmp, (uint32_t)g->dump, false, true);
}

static void free_all(struct ra *g)
{
	for (uint64_t t = 0; g->composed && t < g->nthreads; t++)
		if (g->composed[t])
			umt__rs_free(g->composed[t]), free(g->composed[t]);
	free(g->composed);
	for (uint64_t t = 0; g->abs && t < g->nthreads; t++)
		free(g->abs[t]);
	free(g->abs), free(g->abs_len), free(g->abs_cap), free(g->abs_record);
	free(g->since), free(g->entries), free(g->base), free(g->next), free(g->first);
	free(g->records);
	umt__rs_free(&g->rel);
	umt__rs_free(&g->tmp);
	free(g->enc);
	free(g->batch);
	free(g->nbatch);
	free(g->rbuf);
	umt__ix_out_free(&g->ckpt);
}

/* Creates regs.dir and regs.ckpt with their file headers. */
static int create_files(struct ra *g)
{
	int fd;
	int rc = umt__ixb_create(g->b, UMT_IX_REGS_CKPT, &fd);
	if (rc == 0)
		rc = umt__ix_out_init(&g->ckpt, fd, 1u << 20);
	umt_ix_file_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.Magic, UMT_IX_REGS_CKPT_MAGIC, 8);
	h.Version = UMT_IX_VERSION;
	h.BuildID = g->b->build_id;
	if (rc == 0)
		rc = umt__ix_out_put(&g->ckpt, &h, sizeof h);
	if (rc == 0)
		rc = umt__ixb_create(g->b, UMT_IX_REGS_DIR, &g->dir_fd);
	return rc < 0 ? rc : umt__ixb_file_header(g->b, g->dir_fd, UMT_IX_REGS_DIR_MAGIC);
}

int umt__regs_assemble(struct ix_build *b, void *const *states, unsigned nranges,
                       uint64_t info[UMT_IX_INFO_WORDS])
{
	umt_trace_info ti;
	struct ra g = {.b = b, .nthreads = umt_thread_count(b->t), .interval = UMT_IX_REGS_INTERVAL};
	int rc = umt_trace_get_info(b->t, &ti);
	g.dump = ti.dump_size;
	if (rc == 0)
		rc = alloc_all(&g);
	if (rc == 0)
		rc = create_files(&g);
	if (rc == 0)
		rc = count_entries(&g, states, nranges);
	for (unsigned k = 0; rc == 0 && k < nranges; k++) {
		const struct rb_range *r = states[k];
		for (size_t c = 0; rc == 0 && c < r->nchunks; c++)
			rc = items(&g, &r->chunks[c]);
		if (rc == 0)
			rc = range_end(&g, r);
	}
	if (rc == 0)
		rc = thread_table(&g);
	if (rc == 0)
		rc = umt__ix_out_flush(&g.ckpt);
	info[RI_THREADS] = g.nthreads;
	info[RI_ENTRIES] = g.total;
	info[RI_INTERVAL] = g.interval;
	info[RI_DUMP_SIZE] = g.dump;
	free_all(&g);
	return rc;
}
