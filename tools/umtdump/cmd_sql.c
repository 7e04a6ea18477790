/*
 * umtdump sql: SQL over the trace with the SQLite module (sql/, docs/sql.md)
 * attached: the statements of QUERY (or of standard input when QUERY is
 * absent or "-") run one after the other, and the rows of each one that
 * returns rows are printed as an aligned text table (widths from its
 * first 1000 rows; longer values overflow), CSV (--csv) or JSON Lines
 * (--json: one object per row, the column names as keys).
 *
 * Exit status: 2 when a statement does not compile (bad SQL), 1 when one
 * fails while it runs (a corrupt record, a missing index, bad arguments to
 * a table-valued function), as the other commands' usage and trace errors.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "umtdump.h"

#ifdef UMT_HAVE_SQLITE

#include "umtrace/sqlite.h"

/* Rows of a text table whose widths are measured before printing. */
#define MEASURED_ROWS 1000
/* The widest a column gets from its values; longer ones overflow. */
#define MAX_WIDTH 80
/* The largest query read from standard input. */
#define MAX_QUERY (64u << 20)

/* One cell of a text table: its text made safe for a terminal. */
struct cell {
	char *text;
	int width; /* characters on screen */
	bool right; /* numbers are right-aligned */
};

/* A statement's text table while its first rows are measured. */
struct table {
	int ncol;
	int *width;
	struct cell *cells; /* rows * ncol */
	size_t rows;
};

static int text_width(const char *s)
{
	int w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80; /* UTF-8 lead bytes */
	return w;
}

static char *hex_of(const unsigned char *p, int n)
{
	static const char hex[] = "0123456789abcdef";
	char *s = malloc((size_t)n * 2 + 1);
	if (s == NULL)
		return NULL;
	for (int i = 0; i < n; i++) {
		s[2 * i] = hex[p[i] >> 4];
		s[2 * i + 1] = hex[p[i] & 15];
	}
	s[2 * n] = '\0';
	return s;
}

/* Column @p i of the current row as the text table shows it (NULL when out of memory). */
static char *cell_text(sqlite3_stmt *st, int i, bool *right)
{
	int type = sqlite3_column_type(st, i);
	*right = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
	if (type == SQLITE_NULL)
		return strdup("NULL");
	if (type == SQLITE_BLOB)
		return hex_of(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
	const char *s = (const char *)sqlite3_column_text(st, i);
	size_t n = s ? strlen(s) : 0, cap = 4 * n + 1; /* an escape is 4 bytes */
	char *safe = malloc(cap);
	if (safe)
		text_sanitize(s ? s : "", safe, cap);
	return safe;
}

static void print_cell(const char *s, int width, int col_width, bool right, bool last)
{
	int pad = col_width > width ? col_width - width : 0;
	if (right)
		out_spaces(pad);
	out_str(s);
	if (!last)
		out_spaces((right ? 0 : pad) + 2);
}

static void print_row(const struct table *tb, const struct cell *row)
{
	for (int i = 0; i < tb->ncol; i++)
		print_cell(row[i].text, row[i].width, tb->width[i], row[i].right, i == tb->ncol - 1);
	out_char('\n');
}

/* Prints the header and the measured rows, and frees them. */
static void print_measured(sqlite3_stmt *st, struct table *tb)
{
	for (int i = 0; i < tb->ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		print_cell(name, text_width(name), tb->width[i], false, i == tb->ncol - 1);
	}
	out_char('\n');
	for (int i = 0; i < tb->ncol; i++) {
		for (int k = 0; k < tb->width[i]; k++)
			out_char('-');
		if (i < tb->ncol - 1)
			out_spaces(2);
	}
	out_char('\n');
	for (size_t r = 0; r < tb->rows * (size_t)tb->ncol; r += (size_t)tb->ncol)
		print_row(tb, &tb->cells[r]);
	for (size_t r = 0; r < tb->rows * (size_t)tb->ncol; r++)
		free(tb->cells[r].text);
	tb->rows = 0;
}

/* Adds the current row to @p row (ncol cells), widening the columns. */
static bool take_row(sqlite3_stmt *st, struct table *tb, struct cell *row, bool measure)
{
	for (int i = 0; i < tb->ncol; i++) {
		row[i].text = cell_text(st, i, &row[i].right);
		if (row[i].text == NULL) {
			while (i-- > 0)
				free(row[i].text);
			return false;
		}
		row[i].width = text_width(row[i].text);
		if (measure && row[i].width > tb->width[i])
			tb->width[i] = row[i].width < MAX_WIDTH ? row[i].width : MAX_WIDTH;
	}
	return true;
}

/* One statement's rows as a text table. @return sqlite3_step()'s last code. */
static int run_text(sqlite3_stmt *st)
{
	struct table tb = {sqlite3_column_count(st), NULL, NULL, 0};
	tb.width = calloc((size_t)tb.ncol, sizeof *tb.width);
	tb.cells = calloc((size_t)tb.ncol * MEASURED_ROWS, sizeof *tb.cells);
	int rc = tb.width && tb.cells ? SQLITE_ROW : SQLITE_NOMEM;
	for (int i = 0; tb.width && i < tb.ncol; i++)
		tb.width[i] = text_width(sqlite3_column_name(st, i));
	while (rc == SQLITE_ROW && tb.rows < MEASURED_ROWS && (rc = sqlite3_step(st)) == SQLITE_ROW)
		if (take_row(st, &tb, &tb.cells[tb.rows * (size_t)tb.ncol], true))
			tb.rows++;
		else
			rc = SQLITE_NOMEM;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE || tb.rows > 0)
		print_measured(st, &tb); /* the rows before an error too */
	while (rc == SQLITE_ROW && !out_closed() && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!take_row(st, &tb, tb.cells, false)) {
			rc = SQLITE_NOMEM;
			break;
		}
		print_row(&tb, tb.cells);
		for (int i = 0; i < tb.ncol; i++)
			free(tb.cells[i].text);
	}
	for (size_t r = 0; r < tb.rows * (size_t)tb.ncol; r++)
		free(tb.cells[r].text);
	free(tb.width);
	free(tb.cells);
	return rc;
}

/* A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
static void csv_field(const char *s, size_t n)
{
	if (strcspn(s, ",\"\r\n") >= n) {
		out_write(s, n);
		return;
	}
	out_char('"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			out_char('"');
		out_char(s[i]);
	}
	out_char('"');
}

/* A row of CSV; NULL is an empty field, a blob its bytes in hex. */
static void csv_row(sqlite3_stmt *st, int ncol, bool header)
{
	for (int i = 0; i < ncol; i++) {
		if (i)
			out_char(',');
		if (header) {
			const char *name = sqlite3_column_name(st, i);
			csv_field(name, strlen(name));
		} else if (sqlite3_column_type(st, i) == SQLITE_BLOB) {
			char *h = hex_of(sqlite3_column_blob(st, i), sqlite3_column_bytes(st, i));
			if (h)
				out_str(h);
			free(h);
		} else if (sqlite3_column_type(st, i) != SQLITE_NULL) {
			const char *s = (const char *)sqlite3_column_text(st, i);
			csv_field(s ? s : "", s ? (size_t)sqlite3_column_bytes(st, i) : 0);
		}
	}
	out_str("\r\n");
}

/*
 * The JSON keys of the columns: their names, a repeated one suffixed with
 * _2, _3... (SELECT a.id, b.id) so that every object has distinct keys.
 */
static char **json_keys(sqlite3_stmt *st, int ncol)
{
	char **keys = calloc((size_t)ncol, sizeof *keys);
	for (int i = 0; keys && i < ncol; i++) {
		const char *name = sqlite3_column_name(st, i);
		int seen = 1;
		for (int k = 0; k < i; k++)
			seen += !strcmp(sqlite3_column_name(st, k), name);
		size_t n = strlen(name) + 16;
		if ((keys[i] = malloc(n)) == NULL)
			break;
		if (seen > 1)
			snprintf(keys[i], n, "%s_%d", name, seen);
		else
			snprintf(keys[i], n, "%s", name);
	}
	return keys;
}

static void json_row(sqlite3_stmt *st, int ncol, char **keys)
{
	struct jw j;
	jw_begin(&j);
	for (int i = 0; i < ncol; i++) {
		const char *key = keys[i] ? keys[i] : "?";
		int type = sqlite3_column_type(st, i);
		const char *s;
		switch (type) {
		case SQLITE_INTEGER: jw_i64(&j, key, sqlite3_column_int64(st, i)); break;
		case SQLITE_FLOAT: /* SQLite's rendering of a real is a JSON number, but inf */
			s = (const char *)sqlite3_column_text(st, i);
			if (s && strspn(s, "0123456789.-+eE") == strlen(s)) {
				jw_key(&j, key);
				out_str(s);
			} else {
				jw_null(&j, key);
			}
			break;
		case SQLITE_TEXT:
			jw_strn(&j, key, (const char *)sqlite3_column_text(st, i),
			        (size_t)sqlite3_column_bytes(st, i));
			break;
		case SQLITE_BLOB:
			jw_bytes(&j, key, sqlite3_column_blob(st, i), (uint64_t)sqlite3_column_bytes(st, i));
			break;
		default: jw_null(&j, key); break;
		}
	}
	jw_end(&j);
}

/* One statement's rows as CSV or JSON Lines. @return sqlite3_step()'s last code. */
static int run_lines(sqlite3_stmt *st, const struct opts *o)
{
	int ncol = sqlite3_column_count(st), rc = SQLITE_DONE;
	char **keys = o->json ? json_keys(st, ncol) : NULL;
	if (o->json && keys == NULL)
		return SQLITE_NOMEM;
	if (!o->json)
		csv_row(st, ncol, true);
	while (!out_closed() && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (o->json)
			json_row(st, ncol, keys);
		else
			csv_row(st, ncol, false);
	}
	if (out_closed())
		rc = SQLITE_DONE;
	for (int i = 0; keys && i < ncol; i++)
		free(keys[i]);
	free(keys);
	return rc;
}

/* The progress bar, moved by the module's row count and SQLite's instruction count. */
struct sql_progress {
	struct progress bar;
	uint64_t visited;
};

static void on_rows(uint64_t visited, void *ctx)
{
	struct sql_progress *p = ctx;
	p->visited = visited;
	progress_tick(&p->bar, visited < p->bar.total ? visited : p->bar.total);
}

/* SQLite's progress handler: redraws, and ends the query when the reader went away. */
static int on_steps(void *ctx)
{
	struct sql_progress *p = ctx;
	if (p->bar.on)
		progress_draw(&p->bar, p->visited < p->bar.total ? p->visited : p->bar.total);
	return out_closed();
}

/* The query: the operand, or standard input (NULL when it cannot be read). */
static char *read_query(const struct opts *o)
{
	if (o->nargs > 0 && strcmp(o->args[0], "-") != 0)
		return strdup(o->args[0]);
	size_t n = 0, cap = 4096;
	char *q = malloc(cap);
	ssize_t got;
	while (q && (got = read(STDIN_FILENO, q + n, cap - n - 1)) != 0) {
		if (got < 0) {
			free(q);
			return NULL;
		}
		n += (size_t)got;
		if (n + 1 == cap) {
			char *bigger = cap < MAX_QUERY ? realloc(q, cap *= 2) : NULL;
			if (bigger == NULL)
				free(q);
			q = bigger;
		}
	}
	if (q)
		q[n] = '\0';
	return q;
}

/* Runs every statement of @p sql; prints each one's rows. */
static int run_all(sqlite3 *db, const char *sql, const struct opts *o)
{
	int shown = 0;
	while (*sql && !out_closed()) {
		sqlite3_stmt *st;
		const char *tail;
		if (sqlite3_prepare_v2(db, sql, -1, &st, &tail) != SQLITE_OK) {
			report("sql: %s", sqlite3_errmsg(db));
			return EXIT_USAGE;
		}
		sql = tail;
		if (st == NULL)
			continue; /* a comment or white space */
		int rc;
		if (sqlite3_column_count(st) == 0) {
			rc = sqlite3_step(st); /* CREATE TEMP TABLE, SELECT-less statements */
		} else {
			if (!o->json && shown++ > 0)
				out_char('\n'); /* a blank line between two tables */
			rc = o->json || o->csv ? run_lines(st, o) : run_text(st);
		}
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			report("sql: %s", rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
			sqlite3_finalize(st);
			return EXIT_BAD_TRACE;
		}
		sqlite3_finalize(st);
	}
	return EXIT_OK;
}

int cmd_sql(umt_trace *t, const struct opts *o)
{
	if (o->csv && o->json) {
		report("sql: --csv and --json exclude each other");
		return EXIT_USAGE;
	}
	char *sql = read_query(o);
	if (sql == NULL) {
		report("sql: cannot read the query from standard input");
		return EXIT_USAGE;
	}
	sqlite3 *db = NULL;
	umt_sqlite_source src = {t, o->trace_dir, o->index_dir, o->names};
	int status = EXIT_BAD_TRACE;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK || umt_sqlite_register(db) != SQLITE_OK ||
	    umt_sqlite_attach(db, &src) != SQLITE_OK) {
		report("sql: %s", db ? sqlite3_errmsg(db) : "out of memory");
	} else {
		struct sql_progress p = {.visited = 0};
		progress_start(&p.bar, o, "sql", umt_exec_count(t), true);
		umt_sqlite_set_progress(db, on_rows, &p);
		sqlite3_progress_handler(db, 100000, on_steps, &p);
		status = run_all(db, sql, o);
		progress_end(&p.bar);
	}
	sqlite3_close(db);
	free(sql);
	return status;
}

#else

int cmd_sql(umt_trace *t, const struct opts *o)
{
	(void)t, (void)o;
	report("sql: this umtdump was built without SQLite (install libsqlite3-dev, then build "
	       "again)");
	return EXIT_USAGE;
}

#endif
