/*
 * umtdump - shared declarations of the command files and the output module.
 */
#ifndef UMTDUMP_H
#define UMTDUMP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "umtrace/umtrace.h"

/* Exit statuses. */
enum { EXIT_OK = 0, EXIT_BAD_TRACE = 1, EXIT_USAGE = 2 };

/** Options shared by every command, and the per-command ones. */
struct opts {
	bool json;        /* --json: JSON Lines */
	bool quiet;       /* --quiet: no progress, no notes */
	bool keep_going;  /* --keep-going: report a bad record and continue */
	const char *xed_dir;
	const char *trace_dir;
	/* exec */
	uint64_t from, to, count;
	bool has_to, has_count;
	int64_t thread;   /* -1: all */
	uint32_t types;   /* bit per record type; 0: all */
	bool operands, context;
	/* ins */
	int64_t ins_id;   /* -1: all */
};

/* ---- output module (out.c) ------------------------------------------------ */

/** A JSON object being written to stdout as one line. */
struct jw {
	int fields;
	int depth;
};

void jw_begin(struct jw *j);
void jw_end(struct jw *j);                  /* closes the object and ends the line */
void jw_key(struct jw *j, const char *key); /* writes "key": for the next value */
void jw_u64(struct jw *j, const char *key, uint64_t v);
void jw_i64(struct jw *j, const char *key, int64_t v);
void jw_hex(struct jw *j, const char *key, uint64_t v);    /* "0x..." string */
void jw_str(struct jw *j, const char *key, const char *s); /* escaped; null when NULL */
void jw_bool(struct jw *j, const char *key, bool v);
void jw_null(struct jw *j, const char *key);
void jw_bytes(struct jw *j, const char *key, const uint8_t *p, uint64_t n); /* hex string */
void jw_open(struct jw *j, const char *key, char bracket);  /* nested { or [ */
void jw_close(struct jw *j, char bracket);

/** Writes @p s as a JSON string literal (quotes included). */
void json_string(FILE *f, const char *s);

/** Reports an error of the library: "umtdump: <message>". */
void report_error(int rc);

/** Reports a usage or other error with a format. */
void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/** true once stdout was closed by its reader (EPIPE): stop quietly. */
bool out_closed(void);

/* ---- commands --------------------------------------------------------------- */

int cmd_info(umt_trace *t, const struct opts *o);
int cmd_exec(umt_trace *t, const struct opts *o);

#endif
