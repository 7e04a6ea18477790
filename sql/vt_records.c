/*
 * libumtrace SQLite module - the records table: one row per execution
 * record, with the instruction row a record executed (its address,
 * mnemonic, disassembly, module).
 *
 * Pushdowns: id = and ranges (a seek: O(1)), thread_id = (the thread's
 * chain), type = (filtered while reading, never handed to SQLite); rows come
 * out in ID order (ORDER BY id costs nothing).
 */
#include "usql.h"

enum {
	COL_ID, COL_THREAD_ID, COL_TYPE, COL_TYPE_NAME, COL_FLAGS, COL_SIZE, COL_INS_ID,
	COL_ADDRESS, COL_MNEMONIC, COL_DISASM, COL_MODULE_ID, COL_MODULE, COL_SYSCALL_ID,
	COL_EXIT_CODE, COL_PREV, COL_NEXT
};

/* Pushable columns, in this order: the K_ indexes of struct usql_args. */
enum { K_ID, K_THREAD, K_TYPE };

static const struct usql_pushable push[] = {
	{COL_ID, USQL_EQ | USQL_RANGE}, {COL_THREAD_ID, USQL_EQ}, {COL_TYPE, USQL_EQ}};

struct cursor {
	struct usql_cursor c;
	struct usql_recscan scan;
	umt_rec rec;
};

/* The share of the records of type @p type, for estimates: most are instructions. */
static double type_share(const struct usql_shape *s)
{
	if (!(s->used[K_TYPE] & USQL_C_EQ))
		return 1;
	if (!(s->known[K_TYPE] & USQL_C_EQ))
		return 0.5;
	return s->eq[K_TYPE] == UMT_REC_INSTRUCTION ? 0.9 : 0.02;
}

static int plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows)
{
	double visited = usql_recscan_rows(usql_vtab_trace(vt), s, K_ID, K_THREAD);
	*rows = visited * type_share(s);
	/* a record read and skipped costs a fifth of a row handed to SQLite */
	*cost = visited * 0.2 + *rows;
	return SQLITE_OK;
}

static int next(struct usql_cursor *c)
{
	struct cursor *k = (struct cursor *)c;
	int rc = usql_recscan_next(&k->scan, &k->rec);
	if (rc < 0)
		return SQLITE_ERROR;
	c->eof = rc == 0;
	c->rowid = (sqlite3_int64)k->rec.id;
	return SQLITE_OK;
}

static int filter(struct usql_cursor *c, const struct usql_args *a)
{
	struct cursor *k = (struct cursor *)c;
	uint64_t lo, hi;
	int64_t type = a->used[K_TYPE] ? a->lo[K_TYPE] : -1;
	if (!usql_id_range(a, K_ID, umt_exec_count(c->t), &lo, &hi) ||
	    (a->used[K_TYPE] && (type < 0 || type > 255)) ||
	    (a->used[K_THREAD] && (a->lo[K_THREAD] < INT32_MIN || a->lo[K_THREAD] > INT32_MAX))) {
		c->eof = 1; /* no such record, type or thread ID */
		return SQLITE_OK;
	}
	int rc = usql_recscan_init(&k->scan, c, lo, hi,
	                           a->used[K_THREAD] ? a->lo[K_THREAD] : USQL_ANY_THREAD, (int)type);
	return rc != SQLITE_OK ? rc : next(c);
}

/*
 * The InsID of an instruction record, or -1 (NULL columns) for other records.
 * The type is tested here: the library's own test would format an error
 * message for every record of another type (a fifth of a lookup's time).
 */
static int64_t ins_id(const umt_rec *r)
{
	int64_t id = -1;
	if (r->type == UMT_REC_INSTRUCTION)
		umt_rec_ins(r, &id, NULL, NULL);
	return id;
}

/* A column of the instruction row a record executed; NULL for other records. */
static int ins_column(struct usql_cursor *c, sqlite3_context *ctx, const umt_rec *r, int field)
{
	int64_t id = ins_id(r);
	umt_ins_exec x;
	if (id < 0 && r->type != UMT_REC_INSTRUCTION) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	if (id < 0 || (uint64_t)id >= umt_ins_count(c->t)) /* the library says which record */
		return usql_result_fail(c, ctx, umt_rec_ins_exec(c->t, r, &x));
	return usql_ins_column(c, ctx, (uint64_t)id, field);
}

/* prev or next: the thread's chain links as stored, NULL for none. */
static int link_column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	int64_t prev, nxt;
	int rc = umt_exec_links(c->t, ((struct cursor *)c)->rec.id, &prev, &nxt);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	int64_t v = col == COL_PREV ? prev : nxt;
	if (v < 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

/* syscall_id and exit_code: NULL for records of other types (tested here, as in ins_id()). */
static int typed_column(sqlite3_context *ctx, const umt_rec *r, int col)
{
	int64_t sid;
	int32_t code;
	int syscall = r->type >= UMT_REC_SYSCALL_ENTRY && r->type <= UMT_REC_SYSCALL_SKIPPED;
	int exit = r->type == UMT_REC_THREAD_END || r->type == UMT_REC_APP_END;
	if (col == COL_SYSCALL_ID && syscall && umt_rec_syscall_id(r, &sid) == 0)
		sqlite3_result_int64(ctx, sid);
	else if (col == COL_EXIT_CODE && exit && umt_rec_exit_code(r, &code) == 0)
		sqlite3_result_int(ctx, code);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	static const int ins_field[] = {
		[COL_ADDRESS] = USQL_INS_ADDRESS, [COL_MNEMONIC] = USQL_INS_MNEMONIC,
		[COL_DISASM] = USQL_INS_DISASM, [COL_MODULE_ID] = USQL_INS_MODULE_ID,
		[COL_MODULE] = USQL_INS_MODULE};
	const umt_rec *r = &((struct cursor *)c)->rec;
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)r->id); break;
	case COL_THREAD_ID: sqlite3_result_int(ctx, r->thread_id); break;
	case COL_TYPE: sqlite3_result_int(ctx, r->type); break;
	case COL_TYPE_NAME: usql_result_static(ctx, umt_rec_type_name(r->type)); break;
	case COL_FLAGS: sqlite3_result_int(ctx, r->flags); break;
	case COL_SIZE: sqlite3_result_int64(ctx, (sqlite3_int64)r->size); break;
	case COL_INS_ID: usql_result_id(ctx, ins_id(r)); break;
	case COL_ADDRESS:
	case COL_MNEMONIC:
	case COL_DISASM:
	case COL_MODULE_ID:
	case COL_MODULE:
		return ins_column(c, ctx, r, ins_field[col]);
	case COL_SYSCALL_ID:
	case COL_EXIT_CODE: return typed_column(ctx, r, col);
	default: return link_column(c, ctx, col);
	}
	return SQLITE_OK;
}

const struct usql_table usql_records = {
	.name = "records",
	.schema = "CREATE TABLE x(id INTEGER, thread_id INTEGER, type INTEGER, type_name TEXT, "
	          "flags INTEGER, size INTEGER, ins_id INTEGER, address INTEGER, mnemonic TEXT, "
	          "disasm TEXT, module_id INTEGER, module TEXT, syscall_id INTEGER, "
	          "exit_code INTEGER, prev INTEGER, next INTEGER)",
	.cursor_size = sizeof(struct cursor),
	.push = push,
	.npush = sizeof push / sizeof push[0],
	.order_col = COL_ID,
	.plan = plan,
	.filter = filter,
	.next = next,
	.column = column,
};
