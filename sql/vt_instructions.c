/*
 * libumtrace SQLite module - the instructions table: one row per row of
 * ins.itable, with its decoded instruction, its module and the names of its
 * numbers (XED headers given to umtrace_open() as xed=DIR, else NULL), and
 * its semantics decoded from its code bytes (Zydis: umt_sem_get()).
 */
#include "usql.h"

enum {
	COL_ID, COL_ADDRESS, COL_SIZE, COL_CODE, COL_DISASM, COL_IS_64BIT, COL_TYPE, COL_MODULE_ID,
	COL_MODULE, COL_MNEMONIC_ID, COL_MNEMONIC, COL_CATEGORY_ID, COL_CATEGORY, COL_FORM_ID,
	COL_FORM, COL_OPERANDS, COL_LC_SIZE, COL_FLAGS, COL_ZYDIS_MNEMONIC, COL_SEM_CATEGORY,
	COL_ZYDIS_CATEGORY, COL_TARGET
};

static int count(const umt_trace *t, uint64_t *n)
{
	*n = umt_ins_count(t);
	return 0;
}

static int column(struct usql_cursor *c, sqlite3_context *ctx, int col)
{
	/* the columns after id are the fields of usql_ins_column(), in its order */
	static const int field[] = {
		[COL_ADDRESS] = USQL_INS_ADDRESS, [COL_SIZE] = USQL_INS_SIZE,
		[COL_CODE] = USQL_INS_CODE, [COL_DISASM] = USQL_INS_DISASM,
		[COL_IS_64BIT] = USQL_INS_IS_64BIT, [COL_TYPE] = USQL_INS_TYPE,
		[COL_MODULE_ID] = USQL_INS_MODULE_ID, [COL_MODULE] = USQL_INS_MODULE,
		[COL_MNEMONIC_ID] = USQL_INS_MNEMONIC_ID, [COL_MNEMONIC] = USQL_INS_MNEMONIC,
		[COL_CATEGORY_ID] = USQL_INS_CATEGORY_ID, [COL_CATEGORY] = USQL_INS_CATEGORY,
		[COL_FORM_ID] = USQL_INS_FORM_ID, [COL_FORM] = USQL_INS_FORM,
		[COL_OPERANDS] = USQL_INS_OPERANDS, [COL_LC_SIZE] = USQL_INS_LC_SIZE,
		[COL_FLAGS] = USQL_INS_FLAGS, [COL_ZYDIS_MNEMONIC] = USQL_INS_ZYDIS_MNEMONIC,
		[COL_SEM_CATEGORY] = USQL_INS_SEM_CATEGORY,
		[COL_ZYDIS_CATEGORY] = USQL_INS_ZYDIS_CATEGORY, [COL_TARGET] = USQL_INS_TARGET};
	uint64_t id = ((struct usql_rows *)c)->id;
	if (col == COL_ID) {
		sqlite3_result_int64(ctx, (sqlite3_int64)id);
		return SQLITE_OK;
	}
	return usql_ins_column(c, ctx, id, field[col]);
}

const struct usql_table usql_instructions = USQL_ROWS_TABLE(
	"instructions",
	"CREATE TABLE x(id INTEGER, address INTEGER, size INTEGER, code BLOB, disasm TEXT, "
	"is_64bit INTEGER, type INTEGER, module_id INTEGER, module TEXT, "
	"mnemonic_id INTEGER, mnemonic TEXT, category_id INTEGER, category TEXT, "
	"form_id INTEGER, form TEXT, operands INTEGER, lc_size INTEGER, flags INTEGER, "
	"zydis_mnemonic TEXT, sem_category TEXT, zydis_category TEXT, target INTEGER)",
	column, count);
