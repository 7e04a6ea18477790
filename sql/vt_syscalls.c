/*
 * libumtrace SQLite module - the syscalls table: one row per syscall
 * record, with its thread (that of its entry record), its name (from the
 * syscall_unified_id_vN.h header of xed=DIR, else NULL), its result when it
 * completed, its first twelve arguments as columns and all of them as a JSON
 * array of integers.
 */
#include "usql.h"

enum {
	COL_ID, COL_THREAD_ID, COL_RAW_ID, COL_UNIFORM_ID, COL_NAME, COL_CONVENTION, COL_COMPLETED,
	COL_BEGIN_ID, COL_END_ID, COL_BEFORE_SP, COL_RESULT, COL_ARG_COUNT, COL_ARG0,
	COL_ARGS = COL_ARG0 + 12
};

static int count(const umt_trace *t, uint64_t *n)
{
	*n = umt_syscall_count(t);
	return 0;
}

/* thread_id: the ThreadID of the entry record. */
static int thread_column(struct usql_cursor *c, sqlite3_context *ctx, const umt_syscall *s)
{
	umt_rec r;
	int rc = s->rec->BeginEID < 0 ? UMT_E_RANGE : umt_exec_get(c->t, (uint64_t)s->rec->BeginEID, &r);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	sqlite3_result_int(ctx, r.thread_id);
	return SQLITE_OK;
}

/* args: "[a0, a1, ...]". */
static int args_column(sqlite3_context *ctx, const umt_syscall *s)
{
	sqlite3_str *str = sqlite3_str_new(NULL);
	sqlite3_str_appendchar(str, 1, '[');
	for (unsigned i = 0; i < s->rec->ArgCount; i++) {
		uint64_t v = 0;
		umt_syscall_arg(s, i, &v);
		sqlite3_str_appendf(str, "%s%lld", i ? "," : "", (long long)v);
	}
	sqlite3_str_appendchar(str, 1, ']');
	int len = sqlite3_str_length(str);
	char *text = sqlite3_str_finish(str);
	if (text == NULL)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, text, len, sqlite3_free);
	return SQLITE_OK;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	uint64_t id = ((struct usql_rows *)c)->id, arg;
	umt_syscall s;
	int rc = umt_syscall_get(c->t, id, &s);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	const umt_syscall_rec *r = s.rec;
	const char *name;
	switch (col) {
	case COL_ID: sqlite3_result_int64(ctx, (sqlite3_int64)id); break;
	case COL_THREAD_ID: return thread_column(c, ctx, &s);
	case COL_RAW_ID: sqlite3_result_int(ctx, r->RawID); break;
	case COL_UNIFORM_ID: sqlite3_result_int(ctx, r->UniformID); break;
	case COL_NAME:
		name = umt_names_syscall(c->src->names, c->src->unified_ids, r->UniformID);
		if (name)
			sqlite3_result_text(ctx, name, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		break;
	case COL_CONVENTION: sqlite3_result_int(ctx, r->Convention); break;
	case COL_COMPLETED: sqlite3_result_int(ctx, r->Completed); break;
	case COL_BEGIN_ID: sqlite3_result_int64(ctx, r->BeginEID); break;
	case COL_END_ID: usql_result_id(ctx, r->EndEID); break;
	case COL_BEFORE_SP: sqlite3_result_int64(ctx, r->BeforeSP); break;
	case COL_RESULT: /* garbage unless the call completed */
		if (r->Completed)
			sqlite3_result_int64(ctx, r->Result);
		else
			sqlite3_result_null(ctx);
		break;
	case COL_ARG_COUNT: sqlite3_result_int(ctx, r->ArgCount); break;
	case COL_ARGS: return args_column(ctx, &s);
	default:
		if (umt_syscall_arg(&s, (unsigned)(col - COL_ARG0), &arg) == 0)
			sqlite3_result_int64(ctx, (sqlite3_int64)arg);
		else
			sqlite3_result_null(ctx); /* fewer arguments */
		break;
	}
	return SQLITE_OK;
}

const struct usql_table usql_syscalls = USQL_ROWS_TABLE(
	"syscalls",
	"CREATE TABLE x(id INTEGER, thread_id INTEGER, raw_id INTEGER, uniform_id INTEGER, "
	"name TEXT, convention INTEGER, completed INTEGER, begin_id INTEGER, end_id INTEGER, "
	"before_sp INTEGER, result INTEGER, arg_count INTEGER, arg0 INTEGER, arg1 INTEGER, "
	"arg2 INTEGER, arg3 INTEGER, arg4 INTEGER, arg5 INTEGER, arg6 INTEGER, arg7 INTEGER, "
	"arg8 INTEGER, arg9 INTEGER, arg10 INTEGER, arg11 INTEGER, args TEXT)",
	column, count);
