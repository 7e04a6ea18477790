/*
 * umtdump - shared declarations of the command files, the output module
 * (out.c) and the pieces the commands share (common.c).
 */
#ifndef UMTDUMP_H
#define UMTDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "umtrace/umtrace.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_BAD_TRACE = 1, EXIT_USAGE = 2 };

/** Options shared by every command, and the per-command ones. */
struct opts {
	bool json;        /* --json: JSON Lines */
	bool quiet;       /* --quiet: no progress, no notes */
	bool keep_going;  /* --keep-going: report a bad record and continue */
	bool salvage;     /* --salvage: open a damaged trace for what it holds */
	const char *xed_dir;
	const char *trace_dir;
	umt_names *names; /* loaded from xed_dir, or NULL */
	/* exec */
	uint64_t from, to, count;
	bool has_from, has_to, has_count;
	int64_t thread;   /* -1: all */
	uint32_t types;   /* bit per record type; 0: all */
	bool operands, context, accesses;
	/* ins */
	int64_t ins_id;   /* -1: all */
	/* verify */
	uint64_t max_problems; /* 0: no cap */
	/* the index and its queries */
	const char *index_dir; /* --index DIR (or --out DIR of the index command) */
	unsigned kinds;        /* --kind: UMT_ACCESS_* bits; 0: the command's default */
	bool reverse;
	uint64_t at;
	bool has_at;
	unsigned threads;      /* --threads, 0: all processors */
	uint64_t memory;       /* --memory, 0: the library's default */
	bool changes;          /* reg-history --changes */
	unsigned depth;        /* origin --depth */
	bool has_depth;
	/* coverage */
	const char *module_name; /* --module NAME */
	const char *drcov_path;  /* --drcov FILE */
	const char *diff_trace;  /* --diff OTHER_TRACE */
	const char *args[2];   /* operands after TRACE_DIR (history ADDR[:LEN], mem ADDR LEN,
	                          tenet OUT, sql QUERY) */
	/* calls */
	uint64_t target;
	bool has_target;
	unsigned call_args;    /* --args N: arguments per call */
	bool has_call_args;
	bool csv;              /* sql --csv */
	unsigned part, parts;  /* index --part K/N (parts 0: not given) */
	unsigned merge_parts;  /* index --merge N (0: not given) */
	int nargs;
};

/* ---- output module (out.c) ------------------------------------------------ */

/*
 * Everything written to stdout goes through one buffer flushed with
 * write(2). Once the reader has gone (EPIPE) the output is dropped and
 * out_closed() is true: commands check it and stop quietly.
 */
#define OUT_SIZE (64u * 1024u)
extern char out_buf[OUT_SIZE];
extern size_t out_len;
void out_write_slow(const void *p, size_t n);

/* The fast paths are inline: output is made of many short pieces. */
static inline void out_write(const void *p, size_t n)
{
	if (n <= OUT_SIZE - out_len) {
		memcpy(out_buf + out_len, p, n);
		out_len += n;
	} else {
		out_write_slow(p, n);
	}
}

static inline void out_char(char c)
{
	if (out_len == OUT_SIZE)
		out_write_slow(&c, 1);
	else
		out_buf[out_len++] = c;
}

static inline void out_str(const char *s)
{
	out_write(s, strlen(s));
}

void out_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void out_u64(uint64_t v);
void out_i64(int64_t v);
void out_hex(uint64_t v);                      /* 0x1f */
void out_u64_pad(uint64_t v, int width);       /* right-aligned */
void out_i64_pad(int64_t v, int width);        /* right-aligned */
void out_str_pad(const char *s, int width);    /* left-aligned, at least one space after */
void out_hex_left(uint64_t v, int width);      /* 0x1f, left-aligned like out_str_pad() */
void out_i64_left(int64_t v, int width);       /* left-aligned like out_str_pad() */
void out_spaces(int n);
void out_hexbytes(const uint8_t *p, size_t n); /* "0a1b..." in memory order */
void out_text(const char *s, size_t n);        /* trace text made safe for a terminal */
void out_textz(const char *s);                 /* out_text() of a C string */
void out_json_string(const char *s, size_t n); /* quoted, escaped, valid UTF-8 */
bool out_flush(void);                          /* false when the output failed */
bool out_closed(void);                         /* the reader went away (EPIPE) */
int out_error(void);                           /* errno of a failed write, 0 if none */

/** A JSON object being written to stdout as one line. */
struct jw {
	int fields;
};

void jw_begin(struct jw *j);
void jw_end(struct jw *j);                  /* closes the object and ends the line */
void jw_key(struct jw *j, const char *key); /* "key": for the next value; NULL in arrays */
void jw_tkey(struct jw *j, const char *key); /* a key from the trace, escaped; then a
                                                value with a NULL key */
void jw_u64(struct jw *j, const char *key, uint64_t v);
void jw_i64(struct jw *j, const char *key, int64_t v);
void jw_hex(struct jw *j, const char *key, uint64_t v);    /* "0x..." string */
void jw_str(struct jw *j, const char *key, const char *s); /* escaped; null when NULL */
void jw_strn(struct jw *j, const char *key, const char *s, size_t n);
void jw_bool(struct jw *j, const char *key, bool v);
void jw_null(struct jw *j, const char *key);
void jw_bytes(struct jw *j, const char *key, const uint8_t *p, uint64_t n); /* hex string */
void jw_open(struct jw *j, const char *key, char bracket);  /* nested { or [ */
void jw_close(struct jw *j, char bracket);

/** Reports the library's last error: "umtdump: <umt_errmsg()>". */
void report_error(int rc);

/**
 * A record or row could not be read or printed (already reported): marks the
 * run as failed and says whether to stop, which is unless --keep-going.
 */
bool failed_row(const struct opts *o, int *status);

/** Reports an error with a format: "umtdump: ...". */
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * Errors met while a record or row is being printed, reported after it so
 * that the output reads in order. Holds the first few messages.
 */
struct errlist {
	int n;        /* errors added */
	int first_rc; /* code of the first */
	char msg[4][512];
};

void errlist_add(struct errlist *e, int rc); /* adds umt_errmsg() */
void errlist_addf(struct errlist *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int errlist_report(struct errlist *e); /* reports and empties; the first code or 0 */

/**
 * Opens o->trace_dir: with --salvage for what a damaged trace still holds;
 * with --keep-going, a trace that a strict open refuses is reported and then
 * opened as with --salvage. What was lost is reported on stderr and makes
 * *status EXIT_BAD_TRACE. Returns 0, or the open's error (reported).
 */
int open_trace(const struct opts *o, umt_trace **t, int *status);

/** A note on stderr ("umtdump: note: ..."), unless --quiet. */
void note(const struct opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * Writes @p s to @p dst (capacity @p cap, NUL-terminated) with control
 * characters and invalid UTF-8 escaped as \xNN, as out_text() does.
 */
void text_sanitize(const char *s, char *dst, size_t cap);

/** A progress bar on stderr; drawn only when stderr is a terminal. */
struct progress {
	bool on;
	const char *label;
	uint64_t total;
	uint64_t next_check;
	uint64_t last_ns;
};

/** Starts a bar for @p total units of work when @p wanted, not --quiet and stderr a tty. */
void progress_start(struct progress *p, const struct opts *o, const char *label, uint64_t total,
                    bool wanted);
void progress_draw(struct progress *p, uint64_t done);
static inline void progress_tick(struct progress *p, uint64_t done)
{
	if (p->on && done >= p->next_check)
		progress_draw(p, done);
}
void progress_end(struct progress *p); /* erases the bar */

/* ---- shared pieces of the commands (common.c) ------------------------------ */

/**
 * Name of register @p reg (as a 16-bit value: MEM0 is 0xffff) in the trace,
 * always known (umt_reg_name()); computed once per value.
 */
const char *reg_name(const umt_trace *t, int reg);

/** Names of small codes; NULL when unknown. */
const char *ins_type_name(int type);
const char *convention_name(int convention);
const char *operand_kind_name(int kind);
const char *slot_group_name(int group);
const char *meta_layout_name(int layout);

/** Operand flags as text: "r", "w", "rw" or "-". */
const char *oper_flags_text(unsigned flags);

/** Names from --xed-dir, NULL when unknown or not loaded. */
const char *mnemonic_name(const struct opts *o, int v);
const char *category_name(const struct opts *o, int v);
const char *form_name(const struct opts *o, int v);
const char *syscall_name(const struct opts *o, const umt_trace *t, int v);

/* ---- instruction semantics (sem.c) ------------------------------------------ */

/**
 * The name to show for the XED mnemonic (category) @p xed of row
 * @p ins_id: XED's from --xed-dir when loaded and known, else Zydis's from
 * the row's code bytes; NULL when neither.
 */
const char *row_mnemonic(const struct opts *o, const umt_trace *t, int64_t ins_id, int xed);
const char *row_category(const struct opts *o, const umt_trace *t, int64_t ins_id, int xed);

/** The "zydis" line of ins: text, category, target, flags; errors go to @p e. */
void text_semantics(const umt_trace *t, uint64_t ins_id, struct errlist *e);

/** The "semantics" key of ins --json (null when the bytes do not decode: error in @p e). */
void json_semantics(struct jw *j, const umt_trace *t, uint64_t ins_id, struct errlist *e);

/** "zydis_mnemonic" and "semantic_category" of a row (null when its bytes do not decode). */
void jw_sem_names(struct jw *j, const umt_trace *t, int64_t ins_id);

/** A value: 1 to 8 bytes as "0x..." (little-endian), else hex bytes in memory order. */
void out_value(const uint8_t *p, uint64_t n);
void jw_value(struct jw *j, const char *key, const uint8_t *p, uint64_t n);

/** Writes "<key>": number and, when @p name is known, "<key>_name": name. */
void jw_named(struct jw *j, const char *key, int64_t v, const char *name);

/** Text "N (NAME)" or "N". */
void out_named(int64_t v, const char *name);

/** The record's explicit operands (exec --operands), text or JSON; errors go to @p e. */
void show_operands(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                   struct errlist *e);

/** Column where the indented lines of exec --operands, --context, --accesses start. */
#define INDENT 12

/** The record's memory accesses (exec --accesses), text or JSON; errors go to @p e. */
void show_accesses(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                   struct errlist *e);

/** The record's register dump and memory references (exec --context). */
void show_context(const umt_trace *t, const umt_rec *r, const struct opts *o, struct jw *j,
                  struct errlist *e);

/* ---- commands --------------------------------------------------------------- */

int cmd_info(umt_trace *t, const struct opts *o);
int cmd_exec(umt_trace *t, const struct opts *o);
int cmd_ins(umt_trace *t, const struct opts *o);
int cmd_syscalls(umt_trace *t, const struct opts *o);
int cmd_modules(umt_trace *t, const struct opts *o);
int cmd_threads(umt_trace *t, const struct opts *o);
int cmd_context_map(umt_trace *t, const struct opts *o);
int cmd_address_space(umt_trace *t, const struct opts *o);
int cmd_xml(umt_trace *t, const struct opts *o);
int cmd_verify(umt_trace *t, const struct opts *o);
int cmd_stats(umt_trace *t, const struct opts *o);
int cmd_index(umt_trace *t, const struct opts *o);
int cmd_history(umt_trace *t, const struct opts *o);
int cmd_mem(umt_trace *t, const struct opts *o);
int cmd_state(umt_trace *t, const struct opts *o);
int cmd_reg_history(umt_trace *t, const struct opts *o);
int cmd_origin(umt_trace *t, const struct opts *o);
int cmd_coverage(umt_trace *t, const struct opts *o);
int cmd_tenet(umt_trace *t, const struct opts *o);
int cmd_calls(umt_trace *t, const struct opts *o);
int cmd_stack(umt_trace *t, const struct opts *o);
int cmd_sql(umt_trace *t, const struct opts *o);

/* ---- the index (index.c) --------------------------------------------------------- */

#include "umtrace/index.h"

/**
 * Opens the index of the trace: --index DIR, or the default place
 * (umt_index_default_dir()). A missing, incomplete or stale index is
 * reported with the command that builds it. @return 0; EXIT_BAD_TRACE.
 */
int open_index(const umt_trace *t, const struct opts *o, umt_index **out);

/**
 * open_index() for a command that lists at most --count items: with
 * --count 0 there is nothing to list, *out is NULL and no index is needed.
 * @return 0; EXIT_BAD_TRACE.
 */
int open_list_index(const umt_trace *t, const struct opts *o, umt_index **out);

/** Parses ADDR (decimal or 0x hex); false when it is not one. */
bool parse_address(const char *s, uint64_t *out);

/** Parses ADDR[:LEN] (LEN 1 when absent); false unless 1 <= LEN and the range does not wrap. */
bool parse_range(const char *arg, uint64_t *address, uint64_t *length);

/*
 * Checks of the options the query commands share: each returns true when
 * the option is good, else reports why ("umtdump: state needs --at ID",
 * "umtdump: --at N: no such record (M records)") and returns false: a usage
 * error (EXIT_USAGE).
 */
bool at_given(const struct opts *o, const char *cmd);     /* --at was given to @p cmd */
bool at_exists(const umt_trace *t, const struct opts *o); /* --at is a record */

/**
 * Whether --thread is -1 or a thread of the table: EXIT_OK; else reports why
 * and returns EXIT_USAGE ("--thread N: no such thread (M threads)") or, when
 * the thread's row was lost at open (--salvage), EXIT_BAD_TRACE with the
 * library's message. Every command taking --thread checks it so.
 */
int thread_status(const umt_trace *t, const struct opts *o);

/*
 * Sets the record window that the listing queries of index.h name alike
 * (thread, from, to, limit) from --thread, --from, --to and --count. A
 * macro: the query structs are of different types.
 */
#define SET_QUERY_WINDOW(q, o)                                                     \
	((q).thread = (o)->thread, (q).from = (o)->from,                           \
	 (q).to = (o)->has_to ? (o)->to : UINT64_MAX,                              \
	 (q).limit = (o)->has_count ? (o)->count : 0)

/**
 * A query of @p ix could not start (@p rc): reports it and closes @p ix.
 * @return the exit status: EXIT_USAGE when the query names what the trace
 * does not have (UMT_E_NOT_FOUND: a register in no map), else EXIT_BAD_TRACE.
 */
int query_failed(umt_index *ix, int rc);

/* ---- register values (cmd_state.c) ------------------------------------------------ */

/**
 * A register's (or memory's) @p n bytes as the register commands show them:
 * all known and at most 8 bytes, "0x..." as a number; else two hex digits a
 * byte with ?? for unknown ones (most significant first up to 8 bytes, as
 * "0x??..", memory order beyond). Writes into @p buf (2n + 3 bytes).
 * @return the length written; 0 when no byte is known (nothing written).
 */
size_t reg_value_text(const uint8_t *data, const uint8_t *known, uint32_t n, char *buf);

/** The context map's name of @p reg in lower case (a static buffer). */
const char *reg_lower_name(const umt_trace *t, int reg);
/* ---- coverage (cmd_coverage.c, drcov.c) -------------------------------------------- */

/** Module row @p module's Windows name, UTF-8, in @p buf ("" for -1 or unreadable). */
const char *entry_name(const umt_trace *t, int64_t module, char *buf, size_t cap);

/** Whether Windows path @p name is @p want: the whole path or its file name, any case. */
bool module_name_matches(const char *name, const char *want);

/** --drcov FILE: the coverage of @p ix in drcov format. @return an exit status. */
int write_drcov(const umt_trace *t, const umt_index *ix, const struct opts *o);

/* ---- calls and stacks (cmd_calls.c) ------------------------------------------------------ */

/** "returned", "abandoned", "open": an enum umt_call_end. */
const char *call_end_name(unsigned end);
/** The Windows name of module row @p module into @p buf, or NULL (no module, unreadable). */
const char *call_module_name(const umt_trace *t, int64_t module, char *buf, size_t cap);
/** Text "file.dll+0x1f" of an address in a module, "-" outside modules. */
void out_module_offset(const umt_trace *t, int64_t module, uint64_t offset);
/** The counts of the calls section of the index in @p dir (index command): text, or in @p j. */
void index_calls_summary(const umt_trace *t, const char *dir, struct jw *j);
/** "<key>": the module's name and "<key>_offset": the offset ("0x..."), or nulls. */
void jw_module(struct jw *j, const umt_trace *t, const char *key, int64_t module, uint64_t offset);

#endif
