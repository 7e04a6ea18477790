/*
 * libumtrace SQLite module - one sqlite3_module for every table: connecting
 * (eponymous tables read the connection's current trace; a table created
 * with CREATE VIRTUAL TABLE x USING name('/trace', ...) reads its own),
 * cursors that hold a reference to the trace they read, the row counters,
 * and errors. What differs between tables is in their struct usql_table.
 */
#include <stdarg.h>
#include <string.h>

#include "usql.h"

/* A table's registration on a connection: the module's client data. */
struct modaux {
	struct usql_conn *conn;
	const struct usql_table *def;
};

static void modaux_free(void *p)
{
	struct modaux *m = p;
	usql_conn_unref(m->conn);
	sqlite3_free(m);
}

/* An argument of CREATE VIRTUAL TABLE as written: '...' or "..." unquoted. */
static char *unquote(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || (s[0] != '\'' && s[0] != '"') || s[n - 1] != s[0])
		return sqlite3_mprintf("%s", s);
	char *d = sqlite3_malloc64(n);
	if (d == NULL)
		return NULL;
	size_t k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		d[k++] = s[i];
		if (s[i] == s[0] && s[i + 1] == s[0])
			i++; /* a doubled quote stands for one */
	}
	d[k] = '\0';
	return d;
}

/* The trace of CREATE VIRTUAL TABLE x USING name('/trace' [, 'index=DIR', ...]). */
static int open_own(struct usql_vtab *vt, int argc, const char *const *argv, char **err)
{
	char *arg[8] = {NULL};
	int n = argc - 3, rc = SQLITE_OK;
	if (n > 8) {
		*err = sqlite3_mprintf("%s: at most 8 arguments", vt->def->name);
		return SQLITE_ERROR;
	}
	struct usql_open_options o = {NULL, NULL, 0};
	for (int i = 0; i < n && rc == SQLITE_OK; i++)
		if ((arg[i] = unquote(argv[3 + i])) == NULL)
			rc = SQLITE_NOMEM;
	for (int i = 1; i < n && rc == SQLITE_OK; i++) {
		if (!strncmp(arg[i], "index=", 6))
			o.index_dir = arg[i] + 6;
		else if (!strncmp(arg[i], "xed=", 4))
			o.xed_dir = arg[i] + 4;
		else if (!strcmp(arg[i], "salvage"))
			o.flags |= UMT_OPEN_SALVAGE;
		else {
			*err = sqlite3_mprintf("%s: unknown option '%s' (index=DIR, xed=DIR, salvage)",
			                       vt->def->name, arg[i]);
			rc = SQLITE_ERROR;
		}
	}
	if (rc == SQLITE_OK)
		rc = usql_source_open(arg[0], &o, &vt->own, err);
	for (int i = 0; i < n; i++)
		sqlite3_free(arg[i]);
	return rc;
}

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                      sqlite3_vtab **out, char **err)
{
	struct modaux *m = aux;
	int rc = sqlite3_declare_vtab(db, m->def->schema);
	if (rc != SQLITE_OK)
		return rc;
	struct usql_vtab *vt = sqlite3_malloc(sizeof *vt);
	if (vt == NULL)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof *vt);
	vt->conn = m->conn;
	vt->def = m->def;
	if (argc > 3 && (rc = open_own(vt, argc, argv, err)) != SQLITE_OK) {
		sqlite3_free(vt);
		return rc;
	}
	m->conn->refs++;
	*out = &vt->base;
	return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *tab)
{
	struct usql_vtab *vt = (struct usql_vtab *)tab;
	usql_source_unref(vt->own);
	usql_conn_unref(vt->conn);
	sqlite3_free(vt);
	return SQLITE_OK;
}

const umt_trace *usql_vtab_trace(const struct usql_vtab *vt)
{
	if (vt->own)
		return vt->own->t;
	return vt->conn->current ? vt->conn->current->t : NULL;
}

static int vt_best_index(sqlite3_vtab *tab, sqlite3_index_info *info)
{
	return usql_best_index((struct usql_vtab *)tab, info);
}

static int vt_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out)
{
	struct usql_vtab *vt = (struct usql_vtab *)tab;
	struct usql_cursor *c = sqlite3_malloc64(vt->def->cursor_size);
	if (c == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, vt->def->cursor_size);
	c->vt = vt;
	c->eof = 1;
	*out = &c->base;
	return SQLITE_OK;
}

static int vt_close(sqlite3_vtab_cursor *cur)
{
	struct usql_cursor *c = (struct usql_cursor *)cur;
	if (c->vt->def->close)
		c->vt->def->close(c);
	usql_source_unref(c->src);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Holds the trace the table reads now (a new one after umtrace_open()). */
static int take_source(struct usql_cursor *c)
{
	struct usql_source *s = c->vt->own ? c->vt->own : c->vt->conn->current;
	if (s == NULL)
		return usql_failf(c, "%s: no trace: SELECT umtrace_open('/path/to/trace') first",
		                  c->vt->def->name);
	if (s != c->src) {
		usql_source_ref(s);
		usql_source_unref(c->src);
		c->src = s;
		c->t = s->t;
		c->mods = NULL; /* the other trace's */
		c->nmods = 0;
	}
	return SQLITE_OK;
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx_num, const char *idx_str, int argc,
                     sqlite3_value **argv)
{
	(void)idx_str;
	struct usql_cursor *c = (struct usql_cursor *)cur;
	const struct usql_table *def = c->vt->def;
	c->eof = 1;
	if (def->close)
		def->close(c); /* what the previous filter of this cursor left */
	int rc = take_source(c);
	if (rc != SQLITE_OK)
		return rc;
	struct usql_args a;
	usql_decode_args(def, idx_num, argc, argv, &a);
	if (a.empty && !def->strict_args)
		return SQLITE_OK;
	c->eof = 0;
	rc = def->filter(c, &a);
	if (rc == SQLITE_OK && !c->eof)
		c->vt->conn->returned++;
	return rc;
}

static int vt_next(sqlite3_vtab_cursor *cur)
{
	struct usql_cursor *c = (struct usql_cursor *)cur;
	int rc = c->vt->def->next(c);
	if (rc == SQLITE_OK && !c->eof)
		c->vt->conn->returned++;
	return rc;
}

static int vt_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct usql_cursor *)cur)->eof;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct usql_cursor *c = (struct usql_cursor *)cur;
	return c->vt->def->column(c, ctx, col);
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct usql_cursor *)cur)->rowid;
	return SQLITE_OK;
}

/* xCreate = xConnect: every table is eponymous and can be created with a trace of its own. */
static const sqlite3_module module = {
	.iVersion = 0,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
};

int usql_register_table(struct usql_conn *conn, const struct usql_table *def)
{
	struct modaux *m = sqlite3_malloc(sizeof *m);
	if (m == NULL)
		return SQLITE_NOMEM;
	m->conn = conn;
	m->def = def;
	conn->refs++; /* released by modaux_free, also when the call fails */
	return sqlite3_create_module_v2(conn->db, def->name, &module, m, modaux_free);
}

/* ---- errors and values --------------------------------------------------------------- */

int usql_cursor_index(struct usql_cursor *c, const umt_index **out)
{
	char *err = NULL;
	int rc = usql_source_index(c->src, out, &err);
	if (rc != SQLITE_OK)
		usql_fail_msg(c, err ? sqlite3_mprintf("%s: %s", c->vt->def->name, err) : NULL);
	sqlite3_free(err);
	return rc;
}

int usql_fail_msg(struct usql_cursor *c, char *msg)
{
	sqlite3_free(c->vt->base.zErrMsg);
	c->vt->base.zErrMsg = msg;
	return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int usql_fail(struct usql_cursor *c, int umt_rc)
{
	const char *m = umt_errmsg();
	return usql_fail_msg(c, sqlite3_mprintf("%s: %s", c->vt->def->name,
	                                         *m ? m : umt_strerror(umt_rc)));
}

int usql_failf(struct usql_cursor *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = sqlite3_vmprintf(fmt, ap);
	va_end(ap);
	return usql_fail_msg(c, msg);
}

int usql_result_fail(struct usql_cursor *c, sqlite3_context *ctx, int umt_rc)
{
	const char *m = umt_errmsg();
	char *msg = sqlite3_mprintf("%s: %s", c->vt->def->name, *m ? m : umt_strerror(umt_rc));
	if (msg == NULL)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_error(ctx, msg, -1);
	sqlite3_free(msg);
	return SQLITE_OK;
}

void usql_result_text(sqlite3_context *ctx, const char *s, size_t n)
{
	sqlite3_result_text64(ctx, s, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}

void usql_result_static(sqlite3_context *ctx, const char *s)
{
	if (s)
		sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
	else
		sqlite3_result_null(ctx);
}

void usql_result_blob(sqlite3_context *ctx, const void *p, uint64_t n)
{
	sqlite3_result_blob64(ctx, p, n, SQLITE_TRANSIENT);
}

void usql_result_id(sqlite3_context *ctx, int64_t v)
{
	if (v == -1)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
}

void usql_result_value(sqlite3_context *ctx, const uint8_t *p, uint64_t n)
{
	if (n == 0 || n > 8) {
		usql_result_blob(ctx, p, n);
		return;
	}
	uint64_t v = 0;
	for (uint64_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	sqlite3_result_int64(ctx, (sqlite3_int64)v);
}
