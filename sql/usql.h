/*
 * libumtrace SQLite module - declarations shared by its files (internal).
 *
 * The module is a front end (DESIGN.md, "The analysis layer"): every
 * answer comes from the reader (umtrace.h) or the index (index.h); the
 * files here map them onto SQLite's virtual-table interface:
 *   ext.c        entry points: the loadable extension's and the C API's
 *   conn.c       the state of one connection, the SQL functions umtrace_*()
 *   source.c     a trace as the tables see it: reference counted, shared by
 *                connections, its index and module names found on first use
 *   vtab.c       one generic sqlite3_module for every table (struct usql_table)
 *   plan.c       constraints: which ones a table takes (xBestIndex), their
 *                values in xFilter as SQLite compares them
 *   recscan.c    records by ID range, along a thread's chain, of one type
 *   rows.c       the tables of numbered rows (instructions, threads...)
 *   vt_*.c       one file per table
 * docs/sql.md documents the tables, their columns and the pushdowns.
 */
#ifndef UMT_SQL_USQL_H
#define UMT_SQL_USQL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "sqlite_api.h"
#include "umtrace/index.h"

#define USQL_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- a trace as the tables see it (source.c) -------------------------------------- */

/** The names of one module row, converted to UTF-8 once. */
struct usql_module {
	char *path;   /* the Windows name; NULL when it cannot be read (then err) */
	char *name;   /* its last path component, inside path */
	char *device; /* the device name, or NULL (then err) */
	char *err;    /* why a name cannot be read, or NULL */
};

/**
 * A trace and what the tables need of it: reference counted, so that a
 * cursor keeps it alive while the connection moves on to another trace,
 * and so that connections (in any threads: the reader is thread-safe) can
 * share one. What is found on first use (the index, the module names) is
 * found under the lock.
 */
struct usql_source {
	atomic_int refs;
	const umt_trace *t;
	umt_trace *owned_trace;    /* closed with the last reference; NULL when borrowed */
	umt_names *owned_names;
	const umt_names *names;    /* XED and syscall names, or NULL */
	char *dir;                 /* the trace directory, or NULL (attached from C without one) */
	char *index_dir;           /* where the index is; NULL: umt_index_default_dir(dir) */
	int exec_version;          /* exec.vtable Version, for flag names */
	int unified_ids;           /* syscall.vtable UnifiedIDsVer, for syscall names */
	pthread_mutex_t lock;
	umt_index *ix;             /* opened on first use */
	struct usql_module *mods;  /* built on first use */
	uint64_t nmods;
};

/** Options of usql_source_open(): what umtrace_open() takes after the path. */
struct usql_open_options {
	const char *index_dir; /* NULL: the default place */
	const char *xed_dir;   /* NULL: none (umtrace_open() falls back on $UMT_XED_DIR) */
	unsigned flags;        /* umt_trace_open() flags: UMT_OPEN_SALVAGE */
};

/** Opens the trace in @p dir. @return SQLITE_OK; else an error with *err (sqlite3_malloc'd). */
int usql_source_open(const char *dir, const struct usql_open_options *o,
                     struct usql_source **out, char **err);

/** Wraps a trace the caller keeps open (names may be NULL). @return NULL when out of memory. */
struct usql_source *usql_source_borrow(const umt_trace *t, const char *dir, const char *index_dir,
                                       const umt_names *names);

void usql_source_ref(struct usql_source *s);
void usql_source_unref(struct usql_source *s);

/**
 * The trace's index, opened on first use. @return SQLITE_OK; else an error
 * with *err saying how to build it when it is missing or stale.
 */
int usql_source_index(struct usql_source *s, const umt_index **out, char **err);

/** The module rows' names, converted on first use; NULL when out of memory. */
const struct usql_module *usql_source_modules(struct usql_source *s, uint64_t *count);

/** The index of the cursor's trace; else the table's error. @return an SQLite code. */
struct usql_cursor;
int usql_cursor_index(struct usql_cursor *c, const umt_index **out);

/* ---- the connection (conn.c) ------------------------------------------------------ */

/** What one connection holds: its current trace and its counters. */
struct usql_conn {
	sqlite3 *db;
	int refs;                       /* registrations and tables holding it */
	struct usql_source *current;    /* umtrace_open()'s trace, or NULL */
	uint64_t visited;               /* rows the tables read from the trace or the index */
	uint64_t returned;              /* rows they handed to SQLite */
	void (*on_rows)(uint64_t visited, void *ctx); /* progress (umt_sqlite_set_progress) */
	void *on_rows_ctx;
	uint64_t next_report;           /* visited count of the next call of on_rows */
};

void usql_conn_unref(struct usql_conn *c);

/** What umt_sqlite_set_progress() passes to umtrace__progress(). */
struct usql_progress {
	void (*on_rows)(uint64_t visited, void *ctx);
	void *ctx;
};

/** Registers the SQL functions umtrace_*() on conn->db. @return an SQLite code. */
int usql_conn_functions(struct usql_conn *conn);

/** Makes @p s (a new reference given) the connection's current trace. */
void usql_conn_set_current(struct usql_conn *conn, struct usql_source *s);

/** Reports progress: called every 2^20 rows visited. */
void usql_conn_progress(struct usql_conn *conn);

/* ---- tables: one generic module (vtab.c) and the constraints (plan.c) -------------- */

/** Most columns of a table with pushdowns. */
#define USQL_MAX_PUSH 6

/** What a pushable column takes. */
enum {
	USQL_EQ = 1,       /* col = value (and IN lists, one value at a time) */
	USQL_RANGE = 2,    /* col > >= < <= value */
	USQL_TEXT = 4,     /* compared as text: the table reads the value itself (EQ only) */
	USQL_REQUIRED = 8  /* an argument of a table-valued function: EQ must be given */
};

/** Classes of a used constraint, as bits of struct usql_shape.used. */
enum { USQL_C_EQ = 1, USQL_C_LO = 2, USQL_C_HI = 4 };

/** One pushable column: its index in the table and what it takes. */
struct usql_pushable {
	int col;
	unsigned ops;
};

/**
 * What xBestIndex found usable, per pushable column (in the table's order):
 * the classes, and their values when SQLite knows them already
 * (sqlite3_vtab_rhs_value(): literals), for honest estimates. The table's
 * plan function may drop classes it would not use.
 */
struct usql_shape {
	unsigned used[USQL_MAX_PUSH];
	int known[USQL_MAX_PUSH];     /* USQL_C_* bits whose value is known */
	int64_t eq[USQL_MAX_PUSH], lo[USQL_MAX_PUSH], hi[USQL_MAX_PUSH];
};

/** The constraints' values in xFilter: per pushable column, an inclusive range. */
struct usql_args {
	int empty;                     /* no row can match (id = NULL, id > 5 AND id < 3...) */
	unsigned used[USQL_MAX_PUSH];  /* USQL_C_* bits given */
	int64_t lo[USQL_MAX_PUSH];     /* INT64_MIN when not bounded below */
	int64_t hi[USQL_MAX_PUSH];     /* INT64_MAX when not bounded above */
	sqlite3_value *text[USQL_MAX_PUSH]; /* the value of a USQL_TEXT column's EQ */
};

struct usql_cursor;
struct usql_vtab;

/** A table: its schema, its pushdowns and its callbacks. */
struct usql_table {
	const char *name;   /* module name, also the eponymous table's */
	const char *schema; /* "CREATE TABLE x(...)" */
	size_t cursor_size; /* bytes of the table's cursor (a struct usql_cursor first) */
	const struct usql_pushable *push;
	unsigned npush;
	int order_col;      /* rows come out in ascending order of this column; -1: no order */
	/**
	 * Estimates the plan of @p s (after dropping what it would not use):
	 * *cost in rows visited plus rows returned, *rows returned. Returns
	 * SQLITE_CONSTRAINT when the plan cannot run (a required argument is
	 * missing), else SQLITE_OK.
	 */
	int (*plan)(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows);
	/** Starts the rows of @p a; sets c->eof. @return an SQLite code (with zErrMsg set). */
	int (*filter)(struct usql_cursor *c, const struct usql_args *a);
	/** Moves to the next row; sets c->eof. */
	int (*next)(struct usql_cursor *c);
	/** Column @p col of the current row. */
	int (*column)(struct usql_cursor *c, sqlite3_context *ctx, int col);
	/** Releases what filter allocated (may be NULL). */
	void (*close)(struct usql_cursor *c);
	/**
	 * 1: filter is also called when the constraints admit no row (a->empty):
	 * the arguments of a table-valued function that are not integers are an
	 * error, not an empty result.
	 */
	int strict_args;
	/** Numbered-row tables (rows.c): the row count. @return 0 or a UMT_E_* code. */
	int (*count)(const umt_trace *t, uint64_t *n);
};

/** A table of one connection: the module's client data. */
struct usql_vtab {
	sqlite3_vtab base;
	struct usql_conn *conn;
	const struct usql_table *def;
	struct usql_source *own; /* CREATE VIRTUAL TABLE x USING name('/trace'): its own trace */
};

/** The part of every table's cursor that vtab.c manages. */
struct usql_cursor {
	sqlite3_vtab_cursor base;
	struct usql_vtab *vt;
	struct usql_source *src; /* the trace of the current filter (a reference) */
	const umt_trace *t;      /* src->t */
	sqlite3_int64 rowid;
	int eof;
	const struct usql_module *mods; /* src's module names, once asked (usql_cursor_module) */
	uint64_t nmods;
};

/** Registers table @p def on the connection. @return an SQLite code. */
int usql_register_table(struct usql_conn *conn, const struct usql_table *def);

/** Every table of the module, NULL-terminated (ext.c). */
extern const struct usql_table *const usql_tables[];

/** The trace the plan of @p vt is for (its own, or the connection's current), or NULL. */
const umt_trace *usql_vtab_trace(const struct usql_vtab *vt);

/**
 * Fills the plan of @p info for table @p def (vtab.c's xBestIndex): picks
 * the usable constraints, lets def->plan estimate, assigns argvIndex and
 * encodes what was used in idxNum.
 */
int usql_best_index(struct usql_vtab *vt, sqlite3_index_info *info);

/** Decodes the values of xFilter's argv by idxNum into @p a. */
void usql_decode_args(const struct usql_table *def, int idx_num, int argc, sqlite3_value **argv,
                      struct usql_args *a);

/**
 * The range [*lo, *hi] of pushable column @p k, clipped to [0, count):
 * IDs and row numbers. @return 0 when it holds no ID.
 */
int usql_id_range(const struct usql_args *a, unsigned k, uint64_t count, uint64_t *lo,
                  uint64_t *hi);

/**
 * The arguments of a table-valued function (at [, thread]) (pushable
 * columns 0 and 1: state(), stack()): record at, and *thread the thread
 * given or -1. @return SQLITE_OK, or an error naming the function and the
 * bad argument set on the cursor.
 */
int usql_at_thread_args(struct usql_cursor *c, const struct usql_args *a, int64_t *thread);

/**
 * The definition of a table-valued function (at [, thread]) whose hidden
 * columns at and thread are @p COL_AT and @p COL_THREAD: both pushed as
 * arguments (=, at required, in usql_at_thread_args()'s order), rows in no
 * column's order, arguments that are not integers an error (strict_args).
 */
#define USQL_AT_THREAD_TABLE(NAME, SCHEMA, CURSOR, COL_AT, COL_THREAD, PLAN, FILTER, NEXT,     \
                             COLUMN, CLOSE)                                                   \
	{                                                                                     \
		.name = NAME, .schema = SCHEMA, .cursor_size = sizeof(CURSOR),                \
		.push = (const struct usql_pushable[]){{COL_AT, USQL_EQ | USQL_REQUIRED},     \
		                                       {COL_THREAD, USQL_EQ}},                \
		.npush = 2, .order_col = -1, .plan = PLAN, .filter = FILTER, .next = NEXT,    \
		.column = COLUMN, .close = CLOSE, .strict_args = 1                            \
	}

/** The rows an ID plan of @p s on pushable column @p k visits, of @p count. */
double usql_id_rows(const struct usql_shape *s, unsigned k, double count);

/* ---- errors and values ------------------------------------------------------------- */

/** Sets the table's error from the library's last failure (umt_errmsg()). @return SQLITE_ERROR. */
int usql_fail(struct usql_cursor *c, int umt_rc);

/** Sets the table's error from a format. @return SQLITE_ERROR. */
int usql_failf(struct usql_cursor *c, const char *fmt, ...) USQL_PRINTF(2, 3);

/** Sets the table's error to @p msg (sqlite3_malloc'd, taken). @return SQLITE_ERROR. */
int usql_fail_msg(struct usql_cursor *c, char *msg);

/**
 * Makes the column's value the library's last failure, named as the
 * table's errors are ("records: exec.vtable: record 7 ..."). @return
 * SQLITE_OK (the error is the value's).
 */
int usql_result_fail(struct usql_cursor *c, sqlite3_context *ctx, int umt_rc);

/** Text of @p n bytes (copied: values never point into the mapping). */
void usql_result_text(sqlite3_context *ctx, const char *s, size_t n);

/**
 * Text with static storage in the library (record type names, Zydis names):
 * not copied, which saves a malloc and a free per value.
 */
void usql_result_static(sqlite3_context *ctx, const char *s);

/** Bytes (copied). */
void usql_result_blob(sqlite3_context *ctx, const void *p, uint64_t n);

/** An integer, or NULL when it is -1 ("none" in the format's fields). */
void usql_result_id(sqlite3_context *ctx, int64_t v);

/** A value of 1 to 8 bytes as an INTEGER (little-endian, as signed 64 bits), else a BLOB. */
void usql_result_value(sqlite3_context *ctx, const uint8_t *p, uint64_t n);

/** Counts @p n rows read from the trace or the index. */
static inline void usql_visit(struct usql_cursor *c, uint64_t n)
{
	struct usql_conn *conn = c->vt->conn;
	conn->visited += n;
	if (conn->visited >= conn->next_report)
		usql_conn_progress(conn);
}

/* ---- instruction rows (ins.c) -------------------------------------------------------- */

/** Fields of an instruction row, for the records and instructions tables. */
enum usql_ins_field {
	USQL_INS_ADDRESS,     /* insRec Address */
	USQL_INS_SIZE,        /* CodeSize */
	USQL_INS_CODE,        /* the code bytes */
	USQL_INS_DISASM,      /* the disassembly text */
	USQL_INS_IS_64BIT,    /* CSis64Bits */
	USQL_INS_TYPE,        /* insRec Type */
	USQL_INS_MODULE_ID,   /* ModuleID, NULL for floating code */
	USQL_INS_MODULE,      /* that module's file name */
	USQL_INS_MNEMONIC_ID, /* decodedIns Mnemonic */
	USQL_INS_MNEMONIC,    /* its name from the XED headers, or NULL */
	USQL_INS_CATEGORY_ID, /* Category */
	USQL_INS_CATEGORY,    /* its name */
	USQL_INS_FORM_ID,     /* Form */
	USQL_INS_FORM,        /* its name */
	USQL_INS_OPERANDS,    /* ExpCount */
	USQL_INS_LC_SIZE,     /* LCSize */
	USQL_INS_FLAGS,       /* decodedIns Flags */
	USQL_INS_ZYDIS_MNEMONIC, /* umt_sem_get(): Zydis's mnemonic name */
	USQL_INS_SEM_CATEGORY,   /* its umt_sem_category name (call, ret, jmp...) */
	USQL_INS_ZYDIS_CATEGORY, /* Zydis's category name */
	USQL_INS_TARGET          /* a relative branch's destination, else NULL */
};

/** Field @p field of instruction row @p ins_id as the column's value (errors as the value's). */
int usql_ins_column(struct usql_cursor *c, sqlite3_context *ctx, uint64_t ins_id, int field);

/** The file name of module row @p module as the column's value; NULL when -1 or unknown. */
void usql_result_module_name(struct usql_cursor *c, sqlite3_context *ctx, int64_t module);

/** An offset in module row @p module; NULL when -1 (no module). */
void usql_result_module_offset(sqlite3_context *ctx, int64_t module, uint64_t offset);

/** The names of module row @p id (NULL when out of range or out of memory). */
const struct usql_module *usql_cursor_module(struct usql_cursor *c, uint64_t id);

/* ---- records by ID range, thread chain and type (recscan.c) ------------------------- */

/** The thread of a walk over every thread's records. */
#define USQL_ANY_THREAD INT64_MIN

/** A walk over records: [lo, hi] in ID order, optionally one thread's and one type's. */
struct usql_recscan {
	struct usql_cursor *c;
	umt_exec_iter it;
	umt_thread_iter th;
	uint64_t hi;      /* last ID */
	int64_t thread;   /* USQL_ANY_THREAD: every thread */
	int type;         /* -1: every type */
	int chain;        /* 1: along the thread's chain */
};

/**
 * Starts a walk of records [lo, hi] of thread @p thread (USQL_ANY_THREAD: all) and type
 * @p type (-1: all): along the thread's chain when the trace has several
 * threads and the thread has a row, else a scan of the range.
 * @return SQLITE_OK, or an error set on the cursor.
 */
int usql_recscan_init(struct usql_recscan *s, struct usql_cursor *c, uint64_t lo, uint64_t hi,
                      int64_t thread, int type);

/** The next record. @return 1 with *r; 0 at the end; SQLITE_ERROR negated (-1) after setting the error. */
int usql_recscan_next(struct usql_recscan *s, umt_rec *r);

/**
 * The records a walk with the ID constraints of pushable column @p k_id and
 * the thread constraint of @p k_thread (-1: none) visits, estimated (@p t
 * may be NULL when no trace is open yet).
 */
double usql_recscan_rows(const umt_trace *t, const struct usql_shape *s, unsigned k_id,
                         int k_thread);

/* ---- numbered rows (rows.c) --------------------------------------------------------- */

/** The cursor of a numbered-row table: rows [id, end) in order. */
struct usql_rows {
	struct usql_cursor c;
	uint64_t id, end;
};

int usql_rows_plan(struct usql_vtab *vt, struct usql_shape *s, double *cost, double *rows);
int usql_rows_filter(struct usql_cursor *c, const struct usql_args *a);
int usql_rows_next(struct usql_cursor *c);

/** Their one pushable column: id (column 0), = and ranges. */
extern const struct usql_pushable usql_rows_push[1];

/** The definition of a numbered-row table: its column 0 is id. */
#define USQL_ROWS_TABLE(NAME, SCHEMA, COLUMN, COUNT)                                          \
	{                                                                                     \
		.name = NAME, .schema = SCHEMA, .cursor_size = sizeof(struct usql_rows),      \
		.push = usql_rows_push, .npush = 1, .order_col = 0, .plan = usql_rows_plan,   \
		.filter = usql_rows_filter, .next = usql_rows_next, .column = COLUMN,         \
		.count = COUNT                                                                \
	}

/* ---- calls (vt_calls.c), shared with stack() (vt_stack.c) ---------------------------- */

/** The columns of a call, first in the calls table (in this order: usql_call_column's). */
#define USQL_CALL_COLUMNS                                                                     \
	"id INTEGER, thread_id INTEGER, depth INTEGER, caller INTEGER, target INTEGER, "     \
	"target_source TEXT, return_address INTEGER, return_id INTEGER, end_id INTEGER, "    \
	"end_kind TEXT, parent INTEGER, module_id INTEGER, module TEXT, module_offset INTEGER, "  \
	"length INTEGER"

/** How many they are. */
#define USQL_CALL_NCOLS 15

/** Column @p col (of USQL_CALL_COLUMNS) of @p call. @return SQLITE_OK. */
int usql_call_column(struct usql_cursor *c, sqlite3_context *ctx, const umt_call *call, int col);

/* The tables (vt_*.c). */
extern const struct usql_table usql_records, usql_instructions, usql_operands, usql_accesses,
	usql_threads, usql_modules, usql_syscalls, usql_address_space, usql_metadata, usql_mem,
	usql_state, usql_calls, usql_stack;

#endif
