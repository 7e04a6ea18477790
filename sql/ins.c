/*
 * libumtrace SQLite module - the fields of an instruction row, shared by
 * the records table (the row a record executed) and the instructions
 * table: the row itself, its decoded instruction, its module, and the
 * names of its numbers from the XED headers when umtrace_open() was given
 * them (xed=DIR).
 */
#include <string.h>

#include "usql.h"

const struct usql_module *usql_cursor_module(struct usql_cursor *c, uint64_t id)
{
	if (c->mods == NULL)
		c->mods = usql_source_modules(c->src, &c->nmods);
	return c->mods && id < c->nmods ? &c->mods[id] : NULL;
}

void usql_result_module_name(struct usql_cursor *c, sqlite3_context *ctx, int64_t module)
{
	const struct usql_module *m = module >= 0 ? usql_cursor_module(c, (uint64_t)module) : NULL;
	if (m && m->name)
		sqlite3_result_text(ctx, m->name, -1, SQLITE_TRANSIENT);
}

void usql_result_module_offset(sqlite3_context *ctx, int64_t module, uint64_t offset)
{
	if (module >= 0)
		sqlite3_result_int64(ctx, (sqlite3_int64)offset);
}

/* A name, or NULL when unknown. */
static void result_name(sqlite3_context *ctx, const char *name)
{
	if (name)
		usql_result_text(ctx, name, strlen(name));
	else
		sqlite3_result_null(ctx);
}

/* The module columns of row @p ins_id. */
static int module_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t ins_id, int field)
{
	uint64_t mod;
	int rc = umt_ins_module(c->t, ins_id, &mod);
	if (rc == UMT_E_NOT_FOUND) { /* floating code */
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	if (field == USQL_INS_MODULE_ID) {
		sqlite3_result_int64(ctx, (sqlite3_int64)mod);
		return SQLITE_OK;
	}
	const struct usql_module *m = usql_cursor_module(c, mod);
	if (m == NULL)
		sqlite3_result_error_nomem(ctx);
	else if (m->path == NULL)
		sqlite3_result_error(ctx, m->err ? m->err : "module name unreadable", -1);
	else
		result_name(ctx, m->name);
	return SQLITE_OK;
}

/* The decodedIns columns of row @p ins_id. */
static int decoded_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t ins_id, int field)
{
	umt_decoded d;
	int rc = umt_ins_decoded(c->t, ins_id, &d);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	const umt_names *n = c->src->names;
	const umt_decoded_ins *di = d.ins;
	switch (field) {
	case USQL_INS_MNEMONIC_ID: sqlite3_result_int(ctx, di->Mnemonic); break;
	case USQL_INS_MNEMONIC: result_name(ctx, umt_names_mnemonic(n, di->Mnemonic)); break;
	case USQL_INS_CATEGORY_ID: sqlite3_result_int(ctx, di->Category); break;
	case USQL_INS_CATEGORY: result_name(ctx, umt_names_category(n, di->Category)); break;
	case USQL_INS_FORM_ID: sqlite3_result_int(ctx, di->Form); break;
	case USQL_INS_FORM: result_name(ctx, umt_names_form(n, di->Form)); break;
	case USQL_INS_OPERANDS: sqlite3_result_int(ctx, di->ExpCount); break;
	case USQL_INS_LC_SIZE: sqlite3_result_int(ctx, di->LCSize); break;
	default: sqlite3_result_int(ctx, di->Flags); break;
	}
	return SQLITE_OK;
}

/* The fields of the row's semantics, decoded from its code bytes (Zydis, umt_sem_get). */
static int sem_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t ins_id, int field)
{
	umt_sem s;
	int rc = umt_sem_get(c->t, ins_id, &s);
	if (rc < 0)
		return usql_result_fail(c, ctx, rc);
	switch (field) {
	case USQL_INS_ZYDIS_MNEMONIC: usql_result_static(ctx, umt_sem_mnemonic_name(s.mnemonic)); break;
	case USQL_INS_SEM_CATEGORY: usql_result_static(ctx, umt_sem_category_name(s.category)); break;
	case USQL_INS_ZYDIS_CATEGORY:
		usql_result_static(ctx, umt_sem_zydis_category_name(s.zydis_category));
		break;
	default:
		if (s.flags & UMT_SEM_F_TARGET)
			sqlite3_result_int64(ctx, (sqlite3_int64)s.target);
		else
			sqlite3_result_null(ctx);
		break;
	}
	return SQLITE_OK;
}

int usql_ins_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t ins_id, int field)
{
	const umt_ins_rec *row;
	const uint8_t *code;
	const char *text;
	size_t len;
	unsigned size;
	int rc;
	switch (field) {
	case USQL_INS_MODULE_ID:
	case USQL_INS_MODULE:
		return module_column(c, ctx, ins_id, field);
	case USQL_INS_DISASM:
		if ((rc = umt_ins_disasm(c->t, ins_id, &text, &len)) < 0)
			return usql_result_fail(c, ctx, rc);
		usql_result_text(ctx, text, len);
		return SQLITE_OK;
	case USQL_INS_CODE:
		if ((rc = umt_ins_code(c->t, ins_id, &code, &size)) < 0)
			return usql_result_fail(c, ctx, rc);
		usql_result_blob(ctx, code, size);
		return SQLITE_OK;
	case USQL_INS_ADDRESS:
	case USQL_INS_SIZE:
	case USQL_INS_IS_64BIT:
	case USQL_INS_TYPE:
		if ((rc = umt_ins_get(c->t, ins_id, &row)) < 0)
			return usql_result_fail(c, ctx, rc);
		sqlite3_result_int64(ctx, field == USQL_INS_ADDRESS ? row->Address
		                          : field == USQL_INS_SIZE  ? row->CodeSize
		                          : field == USQL_INS_TYPE  ? row->Type
		                                                    : row->CSis64Bits);
		return SQLITE_OK;
	case USQL_INS_ZYDIS_MNEMONIC:
	case USQL_INS_SEM_CATEGORY:
	case USQL_INS_ZYDIS_CATEGORY:
	case USQL_INS_TARGET:
		return sem_column(c, ctx, ins_id, field);
	default:
		return decoded_column(c, ctx, ins_id, field);
	}
}
