/*
 * libumtrace SQLite module - the calls table: every call of every thread
 * the index holds (index.h section 11: matched by stack slot, with the ret
 * that returned to it, its depth and parent), in record order. The
 * constraints go into the index's query (umt_calls_open): thread_id =
 * (that thread's calls only), target = and ranges (a binary search per
 * target), module = (the targets of one module row), id ranges (from/to);
 * id = is one umt_call_find(). The hidden columns arg0..arg3 and
 * return_value are read only when asked (umt_call_args,
 * umt_call_return_value: one register replay each; NULL when unknown).
 * The call columns are shared with stack() (usql_call_column).
 */
#include "usql.h"

enum {
	COL_ID, COL_THREAD_ID, COL_DEPTH, COL_CALLER, COL_TARGET, COL_TARGET_SOURCE,
	COL_RETURN_ADDRESS, COL_RETURN_ID, COL_END_ID, COL_END, COL_PARENT, COL_MODULE_ID,
	COL_MODULE, COL_MODULE_OFFSET, COL_LENGTH, COL_ARG0, COL_RETURN_VALUE = COL_ARG0 + 4
};

_Static_assert(COL_ARG0 == USQL_CALL_NCOLS, "USQL_CALL_COLUMNS are the first columns");

enum { K_ID, K_THREAD, K_TARGET, K_MODULE };

static const struct usql_pushable push[] = {{COL_ID, USQL_EQ | USQL_RANGE},
                                             {COL_THREAD_ID, USQL_EQ},
                                             {COL_TARGET, USQL_EQ | USQL_RANGE},
                                             {COL_MODULE_ID, USQL_EQ}};

struct cursor {
	struct usql_cursor c;
	umt_calls *it;         /* the index's query; NULL for id = (one call) */
	const umt_index *ix;   /* the index of the filter */
	int64_t tlo, thi;      /* the target range, as SQLite compares the signed values */
	umt_call call;         /* the current row */
	umt_state s;           /* for the arguments; initialized on first use */
	int state_ready;
	int args_done;         /* args/known hold the current row's arguments */
	uint64_t args[4];
	uint8_t known[4];
};

/* Calls per record, about: for estimates before the index is open. */
#define CALLS_PER_RECORD 0.05

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	const umt_trace *t = usql_vtab_trace(vt);
	double records = t ? (double)umt_exec_count(t) : 1e6;
	double calls = records * CALLS_PER_RECORD + 1;
	/* the id range's share of the calls, the thread's share of those */
	double n = usql_id_rows(s, K_ID, records) * CALLS_PER_RECORD + 1;
	if (s->used[K_ID] & USQL_C_EQ)
		n = 1; /* umt_call_find: a binary search */
	if (s->used[K_THREAD] & USQL_C_EQ) {
		uint64_t threads = t ? umt_thread_count(t) : 4;
		n /= threads > 1 ? (double)threads : 1;
	}
	/* a target or a module: the calls to it, after a binary search per target */
	if (s->used[K_TARGET] & USQL_C_EQ)
		n = n / 200 + 1;
	else if (s->used[K_TARGET])
		n = n / 20 + 1;
	if (s->used[K_MODULE] & USQL_C_EQ)
		n = n / 4 + 1;
	*rows = n;
	*cost = (n < calls ? n : calls) + 10;
	return SQLITE_OK;
}

static void close_cursor(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	umt_calls_close(k->it);
	k->it = NULL;
	if (k->state_ready)
		umt_state_release(&k->s);
	k->state_ready = 0;
}

static int wanted(const struct cursor *k, const umt_call *call)
{
	int64_t v = (int64_t)call->target;
	return v >= k->tlo && v <= k->thi;
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	int rc;
	k->args_done = 0;
	c->rowid++;
	if (k->it == NULL) { /* id =: the one call was the row */
		c->eof = 1;
		return SQLITE_OK;
	}
	while ((rc = umt_calls_next(k->it, &k->call)) > 0) {
		usql_visit(c, 1);
		if (wanted(k, &k->call))
			return SQLITE_OK;
	}
	c->eof = 1;
	return rc < 0 ? usql_fail(c, rc) : SQLITE_OK;
}

/* id =: the call record @p id, if the index holds it and it meets the other constraints. */
static int find_one(struct cursor *k, const umt_index *ix, uint64_t id, const umt_calls_query *q)
{
	struct usql_cursor *c = &k->c;
	int rc = umt_call_find(ix, id, &k->call);
	if (rc == UMT_E_NOT_FOUND) {
		c->eof = 1;
		return SQLITE_OK;
	}
	if (rc < 0)
		return usql_fail(c, rc);
	usql_visit(c, 1);
	c->eof = !wanted(k, &k->call) || (q->thread >= 0 && k->call.thread_id != q->thread) ||
	         (q->module >= 0 && k->call.module != q->module);
	return SQLITE_OK;
}

/* The query of @p a: @return 0 when no call can match. */
static int make_query(struct cursor *k, const struct usql_args *a, umt_calls_query *q)
{
	const umt_trace *t = k->c.t;
	uint64_t lo, hi;
	umt_calls_query_init(q);
	if (!usql_id_range(a, K_ID, umt_exec_count(t), &lo, &hi))
		return 0;
	q->from = lo;
	q->to = hi + 1;
	if (a->used[K_THREAD]) {
		if (a->lo[K_THREAD] < 0 || (uint64_t)a->lo[K_THREAD] >= umt_thread_count(t))
			return 0;
		q->thread = a->lo[K_THREAD];
	}
	if (a->used[K_MODULE]) {
		if (a->lo[K_MODULE] < 0 || (uint64_t)a->lo[K_MODULE] >= umt_module_count(t))
			return 0;
		q->module = a->lo[K_MODULE];
	}
	k->tlo = a->lo[K_TARGET];
	k->thi = a->hi[K_TARGET];
	if (k->tlo > k->thi)
		return 0;
	/* one sign: the same order unsigned; a range across 0x8000... is filtered in next() */
	if (k->tlo >= 0 || k->thi < 0) {
		q->target_first = (uint64_t)k->tlo;
		q->target_last = (uint64_t)k->thi;
	}
	return 1;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	const umt_index *ix;
	umt_calls_query q;
	umt_calls_close(k->it);
	k->it = NULL;
	k->args_done = 0;
	c->rowid = 0;
	c->eof = 0;
	if (!make_query(k, a, &q)) {
		c->eof = 1;
		return SQLITE_OK;
	}
	if (usql_cursor_index(c, &ix) != SQLITE_OK)
		return SQLITE_ERROR;
	k->ix = ix;
	if (a->used[K_ID] & USQL_C_EQ)
		return find_one(k, ix, q.from, &q);
	int rc = umt_calls_open(ix, &q, &k->it);
	if (rc < 0) {
		k->it = NULL;
		return usql_fail(c, rc);
	}
	c->rowid = -1;
	return next(c);
}

/* The arguments of the current call, read once per row. @return SQLITE_OK or the value's error. */
static int read_args(struct cursor *k, sqlite3_context *ctx, int col)
{
	struct usql_cursor *c = &k->c;
	const umt_index *ix = k->ix;
	int rc;
	if (!k->state_ready) {
		if ((rc = umt_state_init(ix, &k->s)) < 0)
			return usql_result_fail(c, ctx, rc);
		k->state_ready = 1;
	}
	if (col == COL_RETURN_VALUE) {
		uint64_t v;
		if ((rc = umt_call_return_value(ix, &k->call, &k->s, &v)) < 0)
			return usql_result_fail(c, ctx, rc);
		if (rc > 0)
			sqlite3_result_int64(ctx, (sqlite3_int64)v);
		return SQLITE_OK;
	}
	if (!k->args_done) {
		if ((rc = umt_call_args(ix, &k->call, &k->s, 4, k->args, k->known)) < 0)
			return usql_result_fail(c, ctx, rc);
		k->args_done = 1;
	}
	if (k->known[col - COL_ARG0])
		sqlite3_result_int64(ctx, (sqlite3_int64)k->args[col - COL_ARG0]);
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	struct cursor *k = (struct cursor *)c;
	if (col >= COL_ARG0)
		return read_args(k, ctx, col);
	return usql_call_column(c, ctx, &k->call, col);
}

static const char *const end_names[] = {"returned", "abandoned", "open"};
static const char *const source_names[] = {"next", "decoded", "operand", "unknown"};

static void name_column(sqlite3_context *ctx, const char *const *names, unsigned n, unsigned v)
{
	sqlite3_result_text(ctx, v < n ? names[v] : "?", -1, SQLITE_STATIC);
}

static void record_column(sqlite3_context *ctx, uint64_t id)
{
	if (id != UMT_NO_RECORD)
		sqlite3_result_int64(ctx, (sqlite3_int64)id);
}

int usql_call_column(struct usql_cursor *c, sqlite3_context *ctx, const umt_call *call, int col)
{
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)call->id); break;
	case COL_THREAD_ID: sqlite3_result_int(ctx, call->thread_id); break;
	case COL_DEPTH: sqlite3_result_int64(ctx, call->depth); break;
	case COL_CALLER: sqlite3_result_int64(ctx, (sqlite3_int64)call->caller); break;
	case COL_TARGET: sqlite3_result_int64(ctx, (sqlite3_int64)call->target); break;
	case COL_TARGET_SOURCE: name_column(ctx, source_names, 4, call->target_source); break;
	case COL_RETURN_ADDRESS: sqlite3_result_int64(ctx, (sqlite3_int64)call->return_address); break;
	case COL_RETURN_ID: record_column(ctx, call->return_id); break;
	case COL_END_ID: record_column(ctx, call->end_id); break;
	case COL_END: name_column(ctx, end_names, 3, call->end); break;
	case COL_PARENT: record_column(ctx, call->parent); break;
	case COL_MODULE_ID: usql_result_id(ctx, call->module); break;
	case COL_MODULE: usql_result_module_name(c, ctx, call->module); break;
	case COL_MODULE_OFFSET: usql_result_module_offset(ctx, call->module, call->module_offset); break;
	default: sqlite3_result_int(ctx, call->length); break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_calls = {
	.name = "calls",
	.schema = "CREATE TABLE x(" USQL_CALL_COLUMNS ", arg0 INTEGER HIDDEN, arg1 INTEGER HIDDEN, "
	          "arg2 INTEGER HIDDEN, arg3 INTEGER HIDDEN, return_value INTEGER HIDDEN)",
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
