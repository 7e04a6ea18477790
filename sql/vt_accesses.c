/*
 * libumtrace SQLite module - the accesses table: the memory accesses the
 * index holds (index.h section 1, docs/index-format.md "What is indexed"):
 * every access of a record (umtrace.h section 8b) whose address is trusted
 * and that observes memory: reads and peeks with a trusted value, writes
 * (a write whose value is not trusted has trusted = 0: memory there is
 * unknown from then on), context blocks. One row each, whole (not clipped).
 *
 * Two ways to read them, with the same rows:
 *   - address = or address BETWEEN (both bounds): from the index's history
 *     (umt_history_open), with the id range, thread and kind constraints
 *     pushed into the query: a few pages, whatever the trace's size. The
 *     index must exist (umtdump index); the error says how to build it;
 *   - otherwise: the records of the id range (and of the thread: its chain)
 *     read from the trace, their accesses through umt_access_iter.
 * Either way the rows come out in ID order (ORDER BY id costs nothing).
 */
#include <string.h>

#include "usql.h"

enum {
	COL_ID, COL_THREAD_ID, COL_KIND, COL_PHASE, COL_ADDRESS, COL_SIZE, COL_VALUE, COL_TRUSTED,
	COL_LOCATOR, COL_OPERAND
};

enum { K_ID, K_ADDRESS, K_THREAD, K_KIND };

static const struct usql_pushable push[] = {{COL_ID, USQL_EQ | USQL_RANGE},
                                             {COL_ADDRESS, USQL_EQ | USQL_RANGE},
                                             {COL_THREAD_ID, USQL_EQ},
                                             {COL_KIND, USQL_EQ | USQL_TEXT}};

struct cursor {
	struct usql_cursor c;
	int from_index;        /* 1: the history; 0: the records */
	unsigned kinds;        /* UMT_ACCESS_* wanted */
	int64_t thread;        /* USQL_ANY_THREAD, or the thread wanted */
	int64_t alo, ahi;      /* the address range, as SQLite compares the signed values */
	struct usql_recscan scan;
	umt_rec rec;
	umt_access_iter ai;
	int in_record;         /* ai holds the current record's accesses */
	umt_history *h[2];     /* one history per unsigned range of [alo, ahi] */
	umt_access ahead[2];   /* the next access of each */
	int have[2];
	umt_access a;          /* the current row */
};

/* Accesses a record holds, about: for estimates. */
#define ACCESSES_PER_RECORD 1.5

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	const umt_trace *t = usql_vtab_trace(vt);
	double kind_share = (s->used[K_KIND] & USQL_C_EQ) ? 0.4 : 1;
	unsigned a = s->used[K_ADDRESS];
	if (!(a & USQL_C_EQ) && a != (USQL_C_LO | USQL_C_HI))
		s->used[K_ADDRESS] = 0; /* one bound alone: a history of half the address space */
	if (s->used[K_ADDRESS]) {
		/* the index: a seek, then about an access per 8 bytes of the range */
		double width = 64;
		unsigned known = (unsigned)s->known[K_ADDRESS];
		if (!(a & USQL_C_EQ) && (known & (USQL_C_LO | USQL_C_HI)) == (USQL_C_LO | USQL_C_HI))
			width = (double)s->hi[K_ADDRESS] - (double)s->lo[K_ADDRESS] + 1;
		else if (!(a & USQL_C_EQ))
			width = 4096; /* a range from a join or parameters */
		*rows = (8 + (width < 1 ? 1 : width) / 8) * kind_share;
		*cost = 20 + *rows * 1.5;
		return SQLITE_OK;
	}
	double records = usql_recscan_rows(t, s, K_ID, K_THREAD);
	double accesses = records * ACCESSES_PER_RECORD;
	*rows = accesses * kind_share;
	*cost = records * 0.2 + accesses * 0.2 + *rows;
	return SQLITE_OK;
}

static void close_cursor(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	for (int i = 0; i < 2; i++) {
		umt_history_close(k->h[i]);
		k->h[i] = NULL;
		k->have[i] = 0;
	}
}

/* Whether the access is in the table: the index.h definition of what is indexed. */
static int indexed(const umt_access *a)
{
	return (a->trust & UMT_TRUST_ADDRESS) && a->size > 0 &&
	       ((a->trust & UMT_TRUST_VALUE) || a->kind == UMT_ACCESS_WRITE);
}

static int in_range(const struct cursor *k, const umt_access *a)
{
	int64_t v = (int64_t)a->address;
	return v >= k->alo && v <= k->ahi;
}

/* The next row from the records: their accesses, in order. */
static int scan_next(struct cursor *k)
{
	struct usql_cursor *c = &k->c;
	for (;;) {
		int rc = 0;
		uint64_t seen = 0;
		while (k->in_record && (rc = umt_access_iter_next(&k->ai, &k->a)) > 0) {
			seen++;
			if (indexed(&k->a) && in_range(k, &k->a))
				break;
		}
		usql_visit(c, seen);
		if (rc < 0)
			return usql_fail(c, rc);
		if (rc > 0)
			return SQLITE_OK;
		if ((rc = usql_recscan_next(&k->scan, &k->rec)) <= 0) {
			c->eof = 1;
			return rc < 0 ? SQLITE_ERROR : SQLITE_OK;
		}
		if ((rc = umt_access_iter_init(&k->ai, c->t, &k->rec, k->kinds)) < 0)
			return usql_fail(c, rc);
		k->in_record = 1;
	}
}

/* Reads the next access of history @p i into ahead[i]. */
static int fill(struct cursor *k, int i)
{
	int rc = umt_history_next(k->h[i], &k->ahead[i]);
	if (rc < 0)
		return usql_fail(&k->c, rc);
	k->have[i] = rc > 0;
	return SQLITE_OK;
}

/* Whether access @p x comes before @p y in the history's order (record, phase, address). */
static int before(const umt_access *x, const umt_access *y)
{
	if (x->record_id != y->record_id)
		return x->record_id < y->record_id;
	if (x->phase != y->phase)
		return x->phase < y->phase;
	return x->address < y->address;
}

/* The next row from the index: the two histories merged in record order. */
static int index_next(struct cursor *k)
{
	for (;;) {
		int i = k->have[0] && (!k->have[1] || before(&k->ahead[0], &k->ahead[1])) ? 0 : 1;
		if (!k->have[i]) {
			k->c.eof = 1;
			return SQLITE_OK;
		}
		k->a = k->ahead[i];
		int rc = fill(k, i);
		if (rc != SQLITE_OK)
			return rc;
		usql_visit(&k->c, 1);
		/* the history gives every access overlapping the range */
		if (in_range(k, &k->a) && (k->thread == USQL_ANY_THREAD || k->a.thread_id == k->thread))
			return SQLITE_OK;
	}
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	int rc = k->from_index ? index_next(k) : scan_next(k);
	c->rowid++;
	return rc;
}

/* Opens the histories of the unsigned ranges that make up [alo, ahi]. */
static int open_histories(struct cursor *k, uint64_t lo, uint64_t hi)
{
	struct usql_cursor *c = &k->c;
	const umt_index *ix;
	if (usql_cursor_index(c, &ix) != SQLITE_OK)
		return SQLITE_ERROR;
	/* signed order: [alo, -1] is the top of the address space, [0, ahi] the bottom */
	uint64_t first[2] = {(uint64_t)k->alo, 0}, last[2] = {(uint64_t)k->ahi, 0};
	if (k->alo < 0 && k->ahi >= 0) {
		last[0] = UINT64_MAX;
		last[1] = (uint64_t)k->ahi;
	}
	for (int i = 0; i < (k->alo < 0 && k->ahi >= 0 ? 2 : 1); i++) {
		umt_history_query q;
		umt_history_query_init(&q, first[i], last[i] - first[i] + 1);
		q.from = lo;
		q.to = hi + 1;
		q.kinds = k->kinds;
		q.thread = k->thread >= 0 ? k->thread : -1; /* a negative one: filtered here */
		int rc = umt_history_open(ix, &q, &k->h[i]);
		if (rc < 0) {
			k->h[i] = NULL;
			return usql_fail(c, rc);
		}
		if ((rc = fill(k, i)) != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

/* The kinds of "kind = 'write'": a name of umt_access_kind_name(), else none. */
static unsigned kind_bits(sqlite3_value *v)
{
	const char *s = sqlite3_value_type(v) == SQLITE_TEXT ? (const char *)sqlite3_value_text(v) : NULL;
	for (unsigned bit = 1; s && bit <= UMT_ACCESS_CONTEXT; bit <<= 1)
		if (!strcmp(s, umt_access_kind_name(bit)))
			return bit;
	return 0;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	uint64_t lo, hi;
	k->kinds = a->text[K_KIND] ? kind_bits(a->text[K_KIND]) : UMT_ACCESS_ALL;
	k->alo = a->lo[K_ADDRESS];
	k->ahi = a->hi[K_ADDRESS];
	k->from_index = a->used[K_ADDRESS] != 0;
	k->in_record = 0;
	c->rowid = 0;
	k->thread = a->used[K_THREAD] ? a->lo[K_THREAD] : USQL_ANY_THREAD;
	if (!usql_id_range(a, K_ID, umt_exec_count(c->t), &lo, &hi) || k->kinds == 0 ||
	    (a->used[K_THREAD] && (k->thread < INT32_MIN || k->thread > INT32_MAX))) {
		c->eof = 1; /* no such record, kind or thread */
		return SQLITE_OK;
	}
	int rc = k->from_index ? open_histories(k, lo, hi)
	                       : usql_recscan_init(&k->scan, c, lo, hi, k->thread, -1);
	return rc != SQLITE_OK ? rc : next(c);
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	const umt_access *a = &((struct cursor *)c)->a;
	char name[UMT_REG_NAME_MAX];
	const char *s;
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)a->record_id); break;
	case COL_THREAD_ID: sqlite3_result_int(ctx, a->thread_id); break;
	case COL_KIND:
		s = umt_access_kind_name(a->kind);
		sqlite3_result_text(ctx, s ? s : "?", -1, SQLITE_STATIC);
		break;
	case COL_PHASE: sqlite3_result_int(ctx, a->phase); break;
	case COL_ADDRESS: sqlite3_result_int64(ctx, (sqlite3_int64)a->address); break;
	case COL_SIZE: sqlite3_result_int64(ctx, (sqlite3_int64)a->size); break;
	case COL_VALUE: usql_result_blob(ctx, a->data, a->size); break;
	case COL_TRUSTED: sqlite3_result_int(ctx, (a->trust & UMT_TRUST_VALUE) != 0); break;
	case COL_LOCATOR: sqlite3_result_int64(ctx, a->locator); break;
	default:
		if (a->kind == UMT_ACCESS_CONTEXT) {
			sqlite3_result_null(ctx); /* a context block, not an operand */
		} else {
			umt_reg_name(c->t, (uint16_t)a->reg_name, name, sizeof name);
			usql_result_text(ctx, name, strlen(name));
		}
		break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_accesses = {
	.name = "accesses",
	.schema = "CREATE TABLE x(id INTEGER, thread_id INTEGER, kind TEXT, phase INTEGER, "
	          "address INTEGER, size INTEGER, value BLOB, trusted INTEGER, locator INTEGER, "
	          "operand TEXT)",
	.cursor_size = sizeof(struct cursor),
	.push = push,
	.npush = sizeof push / sizeof push[0],
	.order_col = COL_ID,
	.plan = plan,
	.filter = filter,
	.next = next,
	.column = column,
	.close = close_cursor,
};
