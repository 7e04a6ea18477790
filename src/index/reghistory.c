/*
 * libumtrace - a register's history (index.h section 8): the records of a
 * thread that write (or change) a register, forward or backward, with a
 * limit; every thread's histories merged by record when no thread is given.
 *
 * Forward, a thread's cursor works window by window, a window being the
 * thread's records between two of its checkpoints (at most 2K - 1): it
 * replays the window from the first checkpoint, keeping lw and lc (regs.h),
 * and logs every record after which a byte of the register has it as last
 * writer (last changer), with the register's value; a window whose closing
 * checkpoint says nothing was written (changed) since the cursor is not
 * replayed, the checkpoint is loaded instead. Backward, the cursor examines
 * the thread's records from the end down (regsettle.c gives the register
 * around each write, usually from the record's own slots), and at a
 * checkpoint jumps to the latest write (change) it records: "the previous
 * change of rax" reads the records back to that change, or to one
 * checkpoint and one record. The bytes tested for skipping are those the
 * register covers in either map, so a thread that changes mode is never
 * skipped wrongly.
 */
#include <stdlib.h>

#include "regs.h"

struct rh_entry {
	uint64_t id;
	int reg;
	uint32_t size;
	size_t value; /* offset of size values then size known flags in the pool */
	int changed;
};

struct rh_cursor {
	uint64_t thread;
	struct rstate s;      /* forward: the state after cur */
	uint64_t cur;         /* forward: the last record applied */
	uint64_t pos;         /* backward: the next record to examine (of the thread) */
	bool done;
	struct rh_entry *log; /* the window's writes, in record order */
	size_t n, cap, next;  /* next: the entry to give (from the end when backward) */
	uint8_t *pool;
	size_t pool_len, pool_cap;
};

struct umt_reg_history {
	const umt_index *ix;
	const struct regs_data *d;
	umt_reg_history_query q;
	uint32_t lo, hi;      /* the bytes of the register in either map: [lo, hi) */
	struct rstate ck;     /* a checkpoint being looked at */
	struct rstate tmp;    /* backward: the register around one record */
	struct settle w;
	struct rh_cursor *cur;
	size_t ncur;
	uint64_t emitted;
};

void umt_reg_history_query_init(umt_reg_history_query *q, int reg)
{
	if (q == NULL)
		return;
	memset(q, 0, sizeof *q);
	q->reg = reg;
	q->thread = -1;
	q->to = UINT64_MAX;
}

/* ---- the log of a window --------------------------------------------------------------- */

struct visit_arg {
	struct umt_reg_history *h;
	struct rh_cursor *c;
};

static int log_write(struct umt_reg_history *h, struct rh_cursor *c, uint64_t id, int reg,
                     uint32_t off, uint32_t len, const struct rstate *s, int changed)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct rh_entry *p = realloc(c->log, cap * sizeof *p);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "register history: out of memory");
		c->log = p, c->cap = cap;
	}
	if (c->pool_len + 2 * len > c->pool_cap) {
		size_t cap = 2 * (c->pool_cap + 2 * len);
		uint8_t *p = realloc(c->pool, cap);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "register history: out of memory");
		c->pool = p, c->pool_cap = cap;
	}
	c->log[c->n++] = (struct rh_entry){id, reg, len, c->pool_len, changed};
	memcpy(c->pool + c->pool_len, s->val + off, len);
	memcpy(c->pool + c->pool_len + len, s->known + off, len);
	c->pool_len += 2 * len;
	(void)h;
	return 0;
}

/* After a record of a window: does it write (change) the register, in its own map? */
static int visit(void *arg, const umt_rec *r, const struct rstate *s)
{
	struct visit_arg *a = arg;
	struct umt_reg_history *h = a->h;
	uint32_t off, len, loff, llen;
	int largest, l2;
	bool mode64 = (r->flags & UMT_EXEC_F_64BIT) != 0;
	if (r->id < h->q.from || r->id >= h->q.to ||
	    !umt__regs_place(&h->d->ctx, h->q.reg, mode64, &off, &len, &largest) ||
	    !umt__regs_place(&h->d->ctx, largest, mode64, &loff, &llen, &l2))
		return 0;
	bool wrote = false, changed = false;
	for (uint32_t b = loff; b < loff + llen; b++) {
		wrote |= umt__rs_lw(s, b) == r->id;
		changed |= umt__rs_lc(s, b) == r->id;
	}
	if (!wrote || (h->q.changes && !changed))
		return 0;
	return log_write(h, a->c, r->id, largest, loff, llen, s, changed);
}

/* The latest record before (or at) a checkpoint that wrote (changed) a byte of the register. */
static uint64_t latest(const struct umt_reg_history *h, const struct rstate *s)
{
	uint64_t m = UMT_NO_RECORD;
	for (uint32_t b = h->lo; b < h->hi; b++) {
		uint64_t at = h->q.changes ? umt__rs_lc(s, b) : umt__rs_lw(s, b);
		if (at != UMT_NO_RECORD && (m == UMT_NO_RECORD || at > m))
			m = at;
	}
	return m;
}

/* ---- windows ------------------------------------------------------------------------------ */

static void reset_log(struct rh_cursor *c)
{
	c->n = c->next = 0;
	c->pool_len = 0;
}

/* A checkpoint that does not move the cursor on: only a damaged regs.dir has one (its
 * entries out of record order, or a record of another thread), and it would loop. */
static int stuck(const struct regs_data *d, const struct rh_cursor *c, uint64_t entry)
{
	return umt__regs_corrupt(UMT_IX_REGS_DIR, 64 + d->thread_count * sizeof(umt_ix_regs_thread) +
	                         entry * 16, "checkpoint %llu of thread %llu does not follow record "
	                         "%llu of the thread", (unsigned long long)entry,
	                         (unsigned long long)c->thread, (unsigned long long)c->cur);
}

/* Forward: from the state after c->cur to the next checkpoint, skipping quiet windows. */
static int fill_forward(struct umt_reg_history *h, struct rh_cursor *c)
{
	const struct regs_data *d = h->d;
	int rc = 0;
	reset_log(c);
	while (rc == 0 && !c->done && c->n == 0) {
		uint64_t entry = 0, x = 0, end = h->q.to, last, before = c->cur;
		int has = umt__regs_next_entry(d, c->thread, c->cur, &entry);
		if (has < 0 || (has > 0 && (rc = umt__regs_load(d, entry, &h->ck, &x)) < 0))
			return has < 0 ? has : rc;
		if (has > 0 && c->cur != UMT_NO_RECORD && x <= c->cur)
			return stuck(d, c, entry);
		if (has > 0) {
			uint64_t m = latest(h, &h->ck);
			if (m == UMT_NO_RECORD || (c->cur != UMT_NO_RECORD && m <= c->cur)) {
				umt__rs_copy(&c->s, &h->ck); /* nothing written in between: jump */
				c->cur = x;
				c->done = x + 1 >= h->q.to;
				continue;
			}
			end = x + 1 < end ? x + 1 : end;
		}
		struct visit_arg a = {h, c};
		rc = umt__regs_advance(d, c->thread, c->cur, end, &c->s, visit, &a, &last);
		c->cur = last;
		c->done = has == 0 || end >= h->q.to;
		if (rc == 0 && !c->done && c->n == 0 && c->cur == before)
			return stuck(d, c, entry);
	}
	return rc;
}

/* ---- backwards ---------------------------------------------------------------------- */

/* Which bytes of the register a record writes (gap, dump, outputs). */
struct wrote {
	uint32_t lo, hi;
	bool any;
};

static int wrote_sink(void *arg, const struct reg_effect *e)
{
	struct wrote *w = arg;
	if (e->kind != RE_OBSERVE && e->off < w->hi && w->lo < e->off + e->len)
		w->any = true;
	return 0;
}

/*
 * Record @p r of the cursor's thread: when it writes the register (in its own
 * map), the entry, as the build decides it (regstate.c): the register's bytes
 * at the record (before a context record's dump), then the record's writes
 * applied with their last writes and changes kept.
 */
static int examine(struct umt_reg_history *h, struct rh_cursor *c, const umt_rec *r)
{
	const struct regctx *ctx = &h->d->ctx;
	bool mode64 = (r->flags & UMT_EXEC_F_64BIT) != 0, ins = r->type == UMT_REC_INSTRUCTION;
	uint32_t off, len, loff, llen;
	int largest, l2;
	if (r->id < h->q.from || r->id >= h->q.to ||
	    !umt__regs_place(ctx, h->q.reg, mode64, &off, &len, &largest) ||
	    !umt__regs_place(ctx, largest, mode64, &loff, &llen, &l2))
		return 0;
	struct wrote w = {loff, loff + llen, false};
	int rc = umt__regs_effects(ctx, r, -1, wrote_sink, &w);
	if (rc < 0 || !w.any)
		return rc;
	struct rstate *s = &h->tmp;
	for (uint32_t b = loff; b < loff + llen; b++)
		s->lw[b] = s->lc[b] = UMT_NO_RECORD;
	s->flw = s->flc = s->fsrc = UMT_NO_RECORD;
	rc = umt__regs_settle(&h->w, c->thread, r->id, ins ? SETTLE_AT : SETTLE_BEFORE, loff,
	                      loff + llen, s);
	if (rc == 0)
		rc = umt__regs_apply(ctx, s, r, ins ? 1 : 0);
	bool gap = (r->flags & UMT_EXEC_F_INSTR_OFF) != 0, changed = gap;
	for (uint32_t b = loff; b < loff + llen; b++)
		changed |= umt__rs_lc(s, b) == r->id;
	if (rc < 0 || (h->q.changes && !changed))
		return rc;
	return log_write(h, c, r->id, largest, loff, llen, s, changed);
}

/* The thread's last record before @p to (UMT_NO_RECORD when none). */
static int last_before(struct umt_reg_history *h, uint64_t thread, uint64_t to, uint64_t *pos)
{
	umt_rec r;
	for (uint64_t id = to; id > 0 && to - id < 64;) { /* threads interleave: usually close */
		int rc = umt_exec_get(h->ix->trace, --id, &r);
		if (rc < 0)
			return rc;
		if (r.thread_id >= 0 && (uint64_t)r.thread_id == thread) {
			*pos = id;
			return 0;
		}
	}
	return umt__regs_replay(h->d, thread, to, &h->ck, NULL, NULL, pos);
}

/*
 * Backward: the thread's records from c->pos down, each examined; at the
 * window's checkpoint, a jump to the latest write (change) it records.
 */
static int fill_backward(struct umt_reg_history *h, struct rh_cursor *c)
{
	const struct regs_data *d = h->d;
	int rc = 0;
	reset_log(c);
	while (rc == 0 && !c->done && c->n == 0) {
		uint64_t entry, x = UMT_NO_RECORD, pos = c->pos;
		int has = pos == UMT_NO_RECORD || pos < h->q.from ? 0 : umt__regs_find(d, c->thread, pos, &entry);
		if (has < 0)
			return has;
		if (has > 0)
			memcpy(&x, &d->entries[entry].Record, 8);
		c->done = true; /* unless a record or a jump says otherwise below */
		umt_thread_iter it;
		umt_rec r;
		rc = pos == UMT_NO_RECORD || pos < h->q.from
		             ? 0 : umt_thread_iter_init(&it, d->ctx.t, pos, UMT_BACKWARD);
		while (rc == 0 && pos != UMT_NO_RECORD && pos >= h->q.from &&
		       (rc = umt_thread_iter_next(&it, &r)) > 0) {
			rc = 0;
			if (r.id < h->q.from)
				break;
			if (x != UMT_NO_RECORD && r.id <= x) { /* the checkpoint: jump */
				uint64_t record;
				if ((rc = umt__regs_load(d, entry, &h->ck, &record)) == 0)
					c->pos = latest(h, &h->ck);
				if (rc == 0 && c->pos != UMT_NO_RECORD && c->pos >= pos)
					rc = stuck(d, c, entry); /* a write at or after where we were */
				c->done = c->pos == UMT_NO_RECORD;
				break;
			}
			if ((rc = examine(h, c, &r)) == 0 && c->n > 0) {
				c->pos = it.next_id < 0 ? UMT_NO_RECORD : (uint64_t)it.next_id;
				c->done = c->pos == UMT_NO_RECORD;
				break;
			}
		}
	}
	return rc < 0 ? rc : 0;
}

/* Makes sure cursor @p c has an entry to give, unless it is at its end. */
static int ready(struct umt_reg_history *h, struct rh_cursor *c)
{
	int rc = 0;
	while (rc == 0 && c->next == c->n && !c->done)
		rc = h->q.reverse ? fill_backward(h, c) : fill_forward(h, c);
	return rc;
}

static const struct rh_entry *head(const struct umt_reg_history *h, const struct rh_cursor *c)
{
	if (c->next == c->n)
		return NULL;
	return &c->log[h->q.reverse ? c->n - 1 - c->next : c->next];
}

int umt_reg_history_next(umt_reg_history *h, umt_reg_write *out)
{
	if (h == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_reg_history_next: invalid argument");
	if (h->q.limit && h->emitted >= h->q.limit)
		return 0;
	struct rh_cursor *best = NULL;
	const struct rh_entry *e = NULL;
	for (size_t i = 0; i < h->ncur; i++) {
		int rc = ready(h, &h->cur[i]);
		if (rc < 0)
			return rc;
		const struct rh_entry *x = head(h, &h->cur[i]);
		if (x && (e == NULL || (h->q.reverse ? x->id > e->id : x->id < e->id)))
			e = x, best = &h->cur[i];
	}
	if (e == NULL)
		return 0;
	memset(out, 0, sizeof *out);
	out->id = e->id;
	out->thread = best->thread;
	out->reg = e->reg;
	out->size = e->size;
	memcpy(out->value, best->pool + e->value, e->size);
	memcpy(out->known, best->pool + e->value + e->size, e->size);
	out->changed = e->changed;
	best->next++;
	h->emitted++;
	return 1;
}

/* ---- opening ---------------------------------------------------------------------------- */

void umt_reg_history_close(umt_reg_history *h)
{
	if (h == NULL)
		return;
	for (size_t i = 0; h->cur && i < h->ncur; i++) {
		umt__rs_free(&h->cur[i].s);
		free(h->cur[i].log);
		free(h->cur[i].pool);
	}
	free(h->cur);
	umt__rs_free(&h->ck);
	umt__rs_free(&h->tmp);
	umt__settle_free(&h->w);
	free(h);
}

/* The bytes the register's largest enclosing register covers in either map. */
static bool extent(struct umt_reg_history *h)
{
	bool any = false;
	h->lo = UINT32_MAX;
	h->hi = 0;
	for (int mode = 0; mode < 2; mode++) {
		uint32_t off, len, loff, llen;
		int largest, l2;
		if (!umt__regs_place(&h->d->ctx, h->q.reg, mode, &off, &len, &largest) ||
		    !umt__regs_place(&h->d->ctx, largest, mode, &loff, &llen, &l2))
			continue;
		any = true;
		h->lo = loff < h->lo ? loff : h->lo;
		h->hi = loff + llen > h->hi ? loff + llen : h->hi;
	}
	return any;
}

/* A cursor for @p thread, positioned where the query starts. */
static int cursor(struct umt_reg_history *h, uint64_t thread)
{
	struct rh_cursor *c = &h->cur[h->ncur++];
	c->thread = thread;
	int rc = umt__rs_alloc(&c->s, h->d->ctx.dump, false, true);
	if (rc < 0)
		return rc;
	if (h->q.reverse) {
		uint64_t count = umt_exec_count(h->ix->trace), to = h->q.to < count ? h->q.to : count;
		c->done = to <= h->q.from;
		return c->done ? 0 : last_before(h, thread, to, &c->pos);
	}
	c->done = h->q.from >= h->q.to;
	return umt__regs_replay(h->d, thread, h->q.from, &c->s, NULL, NULL, &c->cur);
}

int umt_reg_history_open(const umt_index *ix, const umt_reg_history_query *q,
                         umt_reg_history **out)
{
	if (ix == NULL || q == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_reg_history_open: invalid argument");
	*out = NULL;
	const struct regs_data *d = umt__regs_of(ix);
	if (d == NULL)
		return UMT_E_MISSING;
	if (q->reg < 0 || q->reg >= d->ctx.map->ElemCount ||
	    (q->thread >= 0 && (uint64_t)q->thread >= d->thread_count))
		return umt__failf(UMT_E_RANGE, "umt_reg_history_open: register %d or thread %lld out "
		                  "of range", q->reg, (long long)q->thread);
	umt_reg_history *h = calloc(1, sizeof *h);
	if (h == NULL)
		return umt__failf(UMT_E_NOMEM, "umt_reg_history_open: out of memory");
	h->ix = ix;
	h->d = d;
	h->q = *q;
	int rc = extent(h) ? umt__rs_alloc(&h->ck, d->ctx.dump, false, true)
	                   : umt__failf(UMT_E_NOT_FOUND, "register %d is in no map of the dump",
	                                q->reg);
	if (rc == 0)
		rc = umt__rs_alloc(&h->tmp, d->ctx.dump, false, true);
	if (rc == 0)
		rc = umt__settle_init(&h->w, d);
	uint64_t n = q->thread >= 0 ? 1 : d->thread_count;
	if (rc == 0 && (h->cur = calloc(n ? n : 1, sizeof *h->cur)) == NULL)
		rc = umt__failf(UMT_E_NOMEM, "umt_reg_history_open: out of memory");
	for (uint64_t t = 0; rc == 0 && t < n; t++) {
		uint64_t thread = q->thread >= 0 ? (uint64_t)q->thread : t, first;
		memcpy(&first, &d->threads[thread].FirstRecord, 8);
		if (q->thread >= 0 || first != UMT_NO_RECORD)
			rc = cursor(h, thread);
	}
	if (rc < 0) {
		umt_reg_history_close(h);
		return rc;
	}
	*out = h;
	return 0;
}
