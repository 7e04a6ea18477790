/*
 * libumtrace SQLite module - state(at [, thread]): the registers of a
 * thread just before record AT executed (index.h section 7, umt_state_at:
 * each byte from its latest observation in the thread), one row per whole
 * register of the context map in the map of the record's mode (rax, not
 * eax), as umtdump state shows them: its ID and lower-case name, its size,
 * its value as an integer (registers of at most 8 bytes, all known), its
 * bytes (memory order, unknown bytes 0), how many bytes are known, and the
 * record that gave its latest byte. THREAD is a thread-table row; without
 * it, the thread of record AT.
 */
#include <ctype.h>

#include "usql.h"

enum { COL_REG, COL_NAME, COL_SIZE, COL_VALUE, COL_BYTES, COL_KNOWN, COL_SOURCE, COL_AT,
       COL_THREAD };

enum { K_AT, K_THREAD }; /* usql_at_thread_args()'s order */

struct cursor {
	struct usql_cursor c;
	umt_state s;
	int ready;        /* s initialized (released by close) */
	int reg, nregs;   /* the current register; the context map's ElemCount */
	umt_reg_value v;  /* register reg of s */
};

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	(void)vt, (void)s;
	*rows = 40;              /* whole registers of an x86-64 map, about */
	*cost = 2000 + *rows;    /* a checkpoint and up to 2K - 1 records replayed */
	return SQLITE_OK;
}

/* Moves to the first whole register from k->reg on; eof after the last. */
static void settle(struct cursor *k)
{
	for (; k->reg < k->nregs; k->reg++)
		if (umt_state_reg(&k->s, k->reg, &k->v) == 0 && k->v.largest == k->reg)
			return;
	k->c.eof = 1;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	const umt_index *ix;
	int64_t thread = -1;
	int rc;
	if (usql_at_thread_args(c, a, &thread) != SQLITE_OK || usql_cursor_index(c, &ix) != SQLITE_OK)
		return SQLITE_ERROR;
	if (!k->ready) {
		if ((rc = umt_state_init(ix, &k->s)) < 0)
			return usql_fail(c, rc);
		k->ready = 1;
	}
	if ((rc = umt_state_at(ix, (uint64_t)a->lo[K_AT], thread, &k->s)) < 0)
		return usql_fail(c, rc);
	usql_visit(c, 1);
	k->nregs = umt_context_map_get(c->t)->ElemCount;
	k->reg = 0;
	c->eof = 0;
	settle(k);
	c->rowid = k->reg;
	return SQLITE_OK;
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	k->reg++;
	settle(k);
	c->rowid = k->reg;
	return SQLITE_OK;
}

/* The register's value as an integer: at most 8 bytes, all known; else NULL. */
static void value_column(sqlite3_context *ctx, const umt_reg_value *v)
{
	if (v->size == 0 || v->size > 8 || v->known_bytes != v->size) {
		sqlite3_result_null(ctx);
		return;
	}
	uint64_t x = 0;
	for (uint32_t i = v->size; i-- > 0;)
		x = x << 8 | v->data[i];
	sqlite3_result_int64(ctx, (sqlite3_int64)x);
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	struct cursor *k = (struct cursor *)c;
	const umt_reg_value *v = &k->v;
	char name[UMT_REG_NAME_MAX];
	switch (col) {
	case COL_REG: sqlite3_result_int(ctx, k->reg); break;
	case COL_NAME:
		umt_reg_name(c->t, k->reg, name, sizeof name);
		for (char *p = name; *p; p++)
			*p = (char)tolower((unsigned char)*p);
		sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
		break;
	case COL_SIZE: sqlite3_result_int(ctx, (int)v->size); break;
	case COL_VALUE: value_column(ctx, v); break;
	case COL_BYTES: usql_result_blob(ctx, v->data, v->size); break;
	case COL_KNOWN: sqlite3_result_int(ctx, (int)v->known_bytes); break;
	case COL_SOURCE:
		if (v->source == UMT_NO_RECORD)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, (sqlite3_int64)v->source);
		break;
	case COL_AT: sqlite3_result_int64(ctx, (sqlite3_int64)k->s.at); break;
	default: sqlite3_result_int64(ctx, (sqlite3_int64)k->s.thread); break;
	}
	return SQLITE_OK;
}

static void close_cursor(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	if (k->ready)
		umt_state_release(&k->s);
	k->ready = 0;
}

const struct usql_table usql_state = USQL_AT_THREAD_TABLE(
	"state",
	"CREATE TABLE x(reg INTEGER, name TEXT, size INTEGER, value INTEGER, "
	"bytes BLOB, known INTEGER, source INTEGER, "
	"at INTEGER HIDDEN, thread INTEGER HIDDEN)",
	struct cursor, COL_AT, COL_THREAD, plan, filter, next, column, close_cursor);
