/*
 * libumtrace SQLite module - mem(at, address, length): memory as it was
 * just before record AT executed (index.h section 1: each byte's latest
 * observation at or before it), one row per byte: its address, its value
 * (NULL when no record observed it), whether it is known, and the record
 * that gave it (NULL when none). From the index (umt_mem_at), a chunk of
 * bytes at a time, so that any length costs a fixed amount of memory.
 */
#include "usql.h"

enum { COL_ADDRESS, COL_VALUE, COL_KNOWN, COL_SOURCE, COL_AT, COL_START, COL_LENGTH };

enum { K_AT, K_START, K_LENGTH };

static const struct usql_pushable push[] = {{COL_AT, USQL_EQ | USQL_REQUIRED},
                                             {COL_START, USQL_EQ | USQL_REQUIRED},
                                             {COL_LENGTH, USQL_EQ | USQL_REQUIRED}};

/* Bytes asked of the index at once. */
#define CHUNK 4096

struct cursor {
	struct usql_cursor c;
	const umt_index *ix;
	uint64_t at, start, length;
	uint64_t pos;      /* offset of the current byte from start */
	uint64_t chunk;    /* offset of data[0] */
	uint8_t data[CHUNK], known[CHUNK];
	uint64_t source[CHUNK];
};

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	(void)vt;
	*rows = (s->known[K_LENGTH] & USQL_C_EQ) && s->eq[K_LENGTH] > 0 ? (double)s->eq[K_LENGTH] : 64;
	*cost = 20 + *rows;
	return SQLITE_OK;
}

/* Reads the chunk of byte pos from the index. */
static int load(struct cursor *k)
{
	uint64_t n = k->length - k->pos < CHUNK ? k->length - k->pos : CHUNK;
	int rc = umt_mem_at(k->ix, k->at, k->start + k->pos, n, k->data, k->known, k->source);
	if (rc < 0)
		return usql_fail(&k->c, rc);
	k->chunk = k->pos;
	usql_visit(&k->c, n);
	return SQLITE_OK;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	int64_t at = a->lo[K_AT], start = a->lo[K_START], length = a->lo[K_LENGTH];
	if (!a->used[K_AT] || !a->used[K_START] || !a->used[K_LENGTH])
		return usql_failf(c, "mem(at, address, length): three arguments needed");
	if (a->empty)
		return usql_failf(c, "mem(at, address, length): the arguments must be integers");
	if (at < 0 || (uint64_t)at >= umt_exec_count(c->t))
		return usql_failf(c, "mem: at %lld: no such record (%llu records)", (long long)at,
		                  (unsigned long long)umt_exec_count(c->t));
	if (length <= 0 || (uint64_t)start + ((uint64_t)length - 1) < (uint64_t)start)
		return usql_failf(c, "mem: length %lld at address 0x%llx: must be at least 1 and "
		                  "stay below the top of the address space", (long long)length,
		                  (unsigned long long)start);
	if (usql_cursor_index(c, &k->ix) != SQLITE_OK)
		return SQLITE_ERROR;
	k->at = (uint64_t)at;
	k->start = (uint64_t)start; /* the signed value's 64 bits: the address */
	k->length = (uint64_t)length;
	k->pos = 0;
	c->rowid = 0;
	return load(k);
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	if (++k->pos >= k->length) {
		c->eof = 1;
		return SQLITE_OK;
	}
	c->rowid = (sqlite3_int64)k->pos;
	return k->pos - k->chunk < CHUNK ? SQLITE_OK : load(k);
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	struct cursor *k = (struct cursor *)c;
	uint64_t i = k->pos - k->chunk;
	switch (col) {
	case COL_ADDRESS: sqlite3_result_int64(ctx, (sqlite3_int64)(k->start + k->pos)); break;
	case COL_VALUE:
		if (k->known[i])
			sqlite3_result_int(ctx, k->data[i]);
		else
			sqlite3_result_null(ctx);
		break;
	case COL_KNOWN: sqlite3_result_int(ctx, k->known[i] != 0); break;
	case COL_SOURCE:
		if (k->source[i] == UMT_NO_RECORD)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, (sqlite3_int64)k->source[i]);
		break;
	case COL_AT: sqlite3_result_int64(ctx, (sqlite3_int64)k->at); break;
	case COL_START: sqlite3_result_int64(ctx, (sqlite3_int64)k->start); break;
	default: sqlite3_result_int64(ctx, (sqlite3_int64)k->length); break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_mem = {
	.name = "mem",
	.schema = "CREATE TABLE x(address INTEGER, value INTEGER, known INTEGER, source INTEGER, "
	          "at INTEGER HIDDEN, start INTEGER HIDDEN, length INTEGER HIDDEN)",
	.cursor_size = sizeof(struct cursor),
	.push = push,
	.npush = sizeof push / sizeof push[0],
	.order_col = -1, /* addresses increase, but may pass 2^63: negative as SQLite sees them */
	.plan = plan,
	.filter = filter,
	.next = next,
	.column = column,
	.strict_args = 1,
};
