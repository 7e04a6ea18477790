/*
 * libumtrace SQLite module - the operands table: the explicit operands of
 * instruction records, one row each, with their before and after values.
 * Its id column is hidden, so that it reads as a table-valued function:
 * operands(5) is the operands of record 5, and a join on o.id = r.id reads
 * each record's own. Pushdowns: id = and ranges; without them every
 * instruction record is read.
 */
#include <string.h>

#include "usql.h"

enum { COL_ID, COL_N, COL_NAME, COL_KIND, COL_SIZE, COL_ACCESS, COL_ADDRESS, COL_BEFORE, COL_AFTER };

static const struct usql_pushable push[] = {{COL_ID, USQL_EQ | USQL_RANGE}};

struct cursor {
	struct usql_cursor c;
	struct usql_recscan scan;
	umt_rec rec;
	umt_ins_exec x;
	unsigned i; /* the operand of the row */
};

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	double visited = usql_recscan_rows(usql_vtab_trace(vt), s, 0, -1);
	*rows = visited * 2; /* about two operands an instruction */
	*cost = visited * 0.2 + *rows;
	return SQLITE_OK;
}

/* Moves to operand i of the record, or to the first operand of a later record. */
static int settle(struct cursor *k)
{
	struct usql_cursor *c = &k->c;
	while (k->i >= k->x.dec.ins->ExpCount) {
		int rc = usql_recscan_next(&k->scan, &k->rec);
		if (rc <= 0) {
			c->eof = 1;
			return rc < 0 ? SQLITE_ERROR : SQLITE_OK;
		}
		if ((rc = umt_rec_ins_exec(c->t, &k->rec, &k->x)) < 0)
			return usql_fail(c, rc);
		k->i = 0;
	}
	c->rowid++;
	return SQLITE_OK;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	static const umt_decoded_ins none; /* ExpCount 0: settle() reads the first record */
	struct cursor *k = (struct cursor *)c;
	uint64_t lo, hi;
	if (!usql_id_range(a, 0, umt_exec_count(c->t), &lo, &hi)) {
		c->eof = 1;
		return SQLITE_OK;
	}
	int rc = usql_recscan_init(&k->scan, c, lo, hi, USQL_ANY_THREAD, UMT_REC_INSTRUCTION);
	if (rc != SQLITE_OK)
		return rc;
	k->x.dec.ins = &none;
	k->i = 0;
	c->rowid = 0;
	return settle(k);
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	k->i++;
	return settle(k);
}

static const char *kind_name(int kind)
{
	static const char *const names[] = {"register", "memory", "agen", "immediate"};
	return kind >= 0 && kind < 4 ? names[kind] : NULL;
}

/* before or after: the value, or NULL when the operand has none (read-only: no after). */
static int value_column(struct cursor *k, sqlite3_context *ctx, int when)
{
	umt_value v;
	int rc = umt_operand_value(&k->x, k->i, when, &v);
	if (rc == UMT_E_NO_VALUE)
		sqlite3_result_null(ctx);
	else if (rc < 0)
		return usql_result_fail(&k->c, ctx, rc);
	else
		usql_result_value(ctx, v.data, v.size);
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	static const char *const access[] = {"-", "r", "w", "rw"};
	struct cursor *k = (struct cursor *)c;
	const umt_exp_oper *op = umt_decoded_operand(&k->x.dec, k->i);
	char name[UMT_REG_NAME_MAX];
	uint64_t address;
	int rc;
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)k->rec.id); break;
	case COL_N: sqlite3_result_int(ctx, (int)k->i); break;
	case COL_NAME:
		if (op->RegName == 0) { /* XED's INVALID: an immediate */
			sqlite3_result_null(ctx);
			break;
		}
		umt_reg_name(c->t, (uint16_t)op->RegName, name, sizeof name);
		usql_result_text(ctx, name, strlen(name));
		break;
	case COL_KIND:
		if ((rc = umt_operand_kind(&k->x, k->i)) < 0)
			return usql_result_fail(c, ctx, rc);
		sqlite3_result_text(ctx, kind_name(rc), -1, SQLITE_STATIC);
		break;
	case COL_SIZE: sqlite3_result_int(ctx, op->Size); break;
	case COL_ACCESS: sqlite3_result_text(ctx, access[op->Flags & 3], -1, SQLITE_STATIC); break;
	case COL_ADDRESS:
		if ((rc = umt_operand_address(&k->x, k->i, &address)) == UMT_E_NO_VALUE)
			sqlite3_result_null(ctx);
		else if (rc < 0)
			return usql_result_fail(c, ctx, rc);
		else
			sqlite3_result_int64(ctx, (sqlite3_int64)address);
		break;
	case COL_BEFORE: return value_column(k, ctx, UMT_BEFORE);
	default: return value_column(k, ctx, UMT_AFTER);
	}
	return SQLITE_OK;
}

const struct usql_table usql_operands = {
	.name = "operands",
	.schema = "CREATE TABLE x(id INTEGER HIDDEN, n INTEGER, name TEXT, kind TEXT, size INTEGER, "
	          "access TEXT, address INTEGER, before, after)",
	.cursor_size = sizeof(struct cursor),
	.push = push,
	.npush = 1,
	.order_col = COL_ID,
	.plan = plan,
	.filter = filter,
	.next = next,
	.column = column,
};
