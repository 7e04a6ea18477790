/*
 * libumtrace - names for numeric IDs: built-in XED registers, enum headers loaded at run time.
 *
 * Three layers:
 *   - registers without any external file: the special operand names, the
 *     version-dependent XED registers (ERRATA 17), the trace's own context
 *     map and the built-in XED 20150121 table (xedregs.c);
 *   - a loader for the C enum headers that come with the format
 *     documentation (xed-*-enum.h, syscall_unified_id_v*.h): a small lexer
 *     that skips comments and preprocessor lines, and a strict parser of the
 *     enum body;
 *   - umt_names: the tables of one documentation directory and their XED
 *     version, checked against a trace.
 *
 * Headers are untrusted text: every error names the file and the line, and
 * no input can make the loader crash, recurse without bound or take more
 * than time linear in its size (plus the sorts).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "xedregs.h"

/* ==== Registers without external files ================================= */

#define XED_DATE_2015 20150121
#define XED_DATE_2014 20140106
#define XED_OLD_SHIFT 6 /* registers up to GSBASE sit 6 lower before 20150121 */

/*
 * Whether XED version @p d numbers its registers the old way (ERRATA 17):
 * every known date before 20150121 (20131119, 20140106) and every Pin build
 * number (56759: early traces, older still). Unknown versions (-1, 0) and
 * later dates use the 20150121 numbering, the newest the spec supports.
 */
static bool xed_old_numbering(int64_t d)
{
	return d > 0 && d < XED_DATE_2015;
}

static const char *const special_names[4] = {"stackpush", "stackpop", "fsbase", "gsbase"};
static const int special_2015[4] = {X15_STACKPUSH, X15_STACKPOP, X15_FSBASE, X15_GSBASE};

int umt_xed_special_reg(int64_t xed_date, int which)
{
	if (which < UMT_SPECIAL_STACKPUSH || which > UMT_SPECIAL_GSBASE)
		return umt__failf(UMT_E_INVAL, "umt_xed_special_reg: invalid register %d", which);
	return special_2015[which] - (xed_old_numbering(xed_date) ? XED_OLD_SHIFT : 0);
}

/* "mem0", "mem1", "agen" for their 16-bit values, stored or sign-extended. */
static const char *operand_special_name(int reg)
{
	switch (reg) {
	case UMT_REG_MEM0: case -1: return "mem0";
	case UMT_REG_MEM1: case -2: return "mem1";
	case UMT_REG_AGEN: case -3: return "agen";
	default: return NULL;
	}
}

/* STACKPUSH, STACKPOP, FSBASE, GSBASE under XED version @p d. */
static const char *versioned_special_name(int64_t d, int reg)
{
	int shift = xed_old_numbering(d) ? XED_OLD_SHIFT : 0;
	for (int i = 0; i < 4; i++)
		if (reg == special_2015[i] - shift)
			return special_names[i];
	return NULL;
}

/*
 * The built-in name of @p reg under XED version @p d. For older versions the
 * errata vouch only for the registers up to GSBASE, renumbered by 6; the
 * 20150121 registers 1-6 (BNDCFGU..BND3) did not exist yet.
 */
static const char *builtin_reg_name(int64_t d, int reg)
{
	if (xed_old_numbering(d)) {
		if (reg == X15_INVALID)
			return umt__xed2015_reg_names[X15_INVALID];
		if (reg < 1 || reg > X15_GSBASE - XED_OLD_SHIFT)
			return NULL;
		return umt__xed2015_reg_names[reg + XED_OLD_SHIFT];
	}
	if (reg < 0 || reg >= UMT_XED2015_REG_LAST)
		return NULL;
	return umt__xed2015_reg_names[reg];
}

const char *umt_xed_reg_name(int64_t xed_date, int reg)
{
	const char *s = operand_special_name(reg);
	return s ? s : builtin_reg_name(xed_date, reg);
}

/*
 * Copies context-map name @p p (16 bytes, NUL-terminated within them or 16
 * characters long) into @p buf; bytes outside printable ASCII become '?' so
 * that a corrupt map cannot put control characters on a terminal.
 * @return false when the name is empty.
 */
static bool copy_map_name(const char *p, char *buf, size_t size)
{
	size_t n = 0;
	while (n < UMT_REG_NAME_SIZE && p[n] != '\0')
		n++;
	if (n == 0)
		return false;
	if (n > size - 1)
		n = size - 1;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		buf[i] = c > 0x20 && c < 0x7f ? (char)c : '?';
	}
	buf[n] = '\0';
	return true;
}

const char *umt_reg_name(const umt_trace *t, int reg, char *buf, size_t size)
{
	if (t == NULL || buf == NULL || size == 0)
		return NULL;
	const char *s = operand_special_name(reg);
	int64_t d = -1;
	if (s == NULL) {
		d = umt__trace_xed_date(t);
		s = versioned_special_name(d, reg);
	}
	if (s == NULL && t->cmap != NULL && reg >= 0 && reg < UMT_CONTEXT_MAP_REGS &&
	    copy_map_name(t->cmap->StrName[reg], buf, size))
		return buf;
	if (s == NULL)
		s = builtin_reg_name(d, reg);
	if (s != NULL)
		snprintf(buf, size, "%s", s);
	else
		snprintf(buf, size, "reg%d", reg);
	return buf;
}

/* ==== Enum headers: the lexer =========================================== */

/*
 * Limits: a header is at most 64 MiB (XED's largest, the iform enum, is
 * about 200 KB); an expression nests at most 64 levels, that is 63 nested
 * parentheses or unary operators around a value, which bounds the
 * parser's recursion.
 */
#define ENUM_MAX_BYTES ((size_t)64 << 20)
#define EXPR_MAX_DEPTH 64

enum tok_kind { TOK_EOF, TOK_IDENT, TOK_NUMBER, TOK_STRING, TOK_PUNCT };

struct tok {
	enum tok_kind kind;
	const char *s;
	size_t len;
	uint32_t line;
};

struct lexer {
	const char *p, *end;
	const char *file;
	uint32_t line;
	bool bol; /* only blanks and comments so far on this line: '#' starts a directive */
};

static void __attribute__((noinline, cold, format(printf, 3, 4)))
lex_fail_record(const struct lexer *lx, uint32_t line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	umt__failf_record("%s: line %u: %s", lx->file, line, msg);
}

/* lex_fail(code, lx, line, fmt, ...): records the failure, evaluates to @p code (as umt__fail()). */
#define lex_fail(code, lx, line, ...) (lex_fail_record((lx), (line), __VA_ARGS__), (code))

static bool is_ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Bytes of a backslash-newline line splice at @p p, or 0. */
static size_t splice_len(const char *p, const char *end)
{
	if (*p != '\\' || end - p < 2)
		return 0;
	if (p[1] == '\n')
		return 2;
	if (p[1] == '\r' && end - p >= 3 && p[2] == '\n')
		return 3;
	return 0;
}

/* Skips a block comment starting at lx->p ("/" "*"), counting its lines. */
static int skip_block_comment(struct lexer *lx)
{
	uint32_t start = lx->line;
	for (const char *p = lx->p + 2; p < lx->end; p++) {
		if (*p == '\n') {
			lx->line++;
		} else if (*p == '*' && p + 1 < lx->end && p[1] == '/') {
			lx->p = p + 2;
			return 0;
		}
	}
	return lex_fail(UMT_E_CORRUPT, lx, start, "unterminated /* comment");
}

/* Moves lx->p to the newline ending the logical line (not consumed). */
static void skip_to_eol(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n') {
		size_t n = splice_len(lx->p, lx->end);
		if (n) {
			lx->p += n;
			lx->line++;
		} else {
			lx->p++;
		}
	}
}

/* Skips a string or character literal; an unterminated one ends at the newline. */
static void skip_quoted(struct lexer *lx)
{
	char q = *lx->p++;
	while (lx->p < lx->end && *lx->p != '\n') {
		size_t n = splice_len(lx->p, lx->end);
		if (n) {
			lx->p += n;
			lx->line++;
		} else if (*lx->p == '\\' && lx->end - lx->p >= 2 && lx->p[1] != '\n') {
			lx->p += 2;
		} else if (*lx->p++ == q) {
			return;
		}
	}
}

/*
 * Skips a preprocessor directive (the '#' already consumed): to the end of
 * its logical line, through block comments that may span lines. Directives
 * are not evaluated: both branches of an #if are read.
 */
static int skip_directive(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n') {
		const char *p = lx->p;
		size_t n = splice_len(p, lx->end);
		if (n) {
			lx->p += n;
			lx->line++;
		} else if (*p == '/' && lx->end - p >= 2 && p[1] == '*') {
			int rc = skip_block_comment(lx);
			if (rc < 0)
				return rc;
		} else if (*p == '/' && lx->end - p >= 2 && p[1] == '/') {
			skip_to_eol(lx);
		} else if (*p == '"' || *p == '\'') {
			skip_quoted(lx);
		} else {
			lx->p++;
		}
	}
	return 0;
}

/* Reads the next token, skipping blanks, comments and directives. */
static int lex_next(struct lexer *lx, struct tok *t)
{
	for (;;) {
		if (lx->p >= lx->end) {
			t->kind = TOK_EOF;
			t->s = lx->end;
			t->len = 0;
			t->line = lx->line;
			return 0;
		}
		const char *p = lx->p;
		size_t n;
		int rc;
		if (*p == '\n') {
			lx->line++;
			lx->bol = true;
			lx->p++;
		} else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
			lx->p++;
		} else if ((n = splice_len(p, lx->end)) != 0) {
			lx->p += n;
			lx->line++;
		} else if (*p == '/' && lx->end - p >= 2 && p[1] == '/') {
			skip_to_eol(lx);
		} else if (*p == '/' && lx->end - p >= 2 && p[1] == '*') {
			if ((rc = skip_block_comment(lx)) < 0)
				return rc;
		} else if (*p == '#' && lx->bol) {
			lx->p++;
			if ((rc = skip_directive(lx)) < 0)
				return rc;
		} else {
			break;
		}
	}
	lx->bol = false;
	t->s = lx->p;
	t->line = lx->line;
	unsigned char c = (unsigned char)*lx->p;
	if (is_ident_start(c)) {
		t->kind = TOK_IDENT;
		while (lx->p < lx->end &&
		       (is_ident_start((unsigned char)*lx->p) || is_digit((unsigned char)*lx->p)))
			lx->p++;
	} else if (is_digit(c)) {
		t->kind = TOK_NUMBER; /* a pp-number: validated by parse_number() */
		while (lx->p < lx->end && (is_ident_start((unsigned char)*lx->p) ||
		                           is_digit((unsigned char)*lx->p) || *lx->p == '.'))
			lx->p++;
	} else if (c == '"' || c == '\'') {
		t->kind = TOK_STRING;
		skip_quoted(lx);
	} else {
		t->kind = TOK_PUNCT;
		lx->p++;
	}
	t->len = (size_t)(lx->p - t->s);
	return 0;
}

/* ==== Enum headers: the parser ========================================== */

#define ENT_SENTINEL 0x01 /* name ends in _LAST: loses to any other name of its value */
#define ENT_ALIAS 0x02    /* defined as another constant's name */

struct enum_entry {
	int64_t value;
	uint32_t name; /* offset in the names arena */
	uint32_t len;
	uint32_t line;
	uint8_t flags;
};

struct name_ref {
	const char *name; /* full name */
	uint32_t ent;
};

struct value_ref {
	int64_t value;
	uint32_t ent;
};

struct umt_enum {
	char *names;              /* every name, NUL-terminated */
	struct enum_entry *ent;   /* definition order */
	size_t count;
	char *prefix;             /* common prefix hidden by umt_enum_name() */
	size_t prefix_len;
	/* value -> entry: dense (dense != NULL) or sorted */
	int64_t min;
	uint32_t *dense;          /* [value - min] = entry + 1, 0 for none */
	size_t dense_len;
	struct value_ref *by_value;
	size_t nvalues;
	struct name_ref *by_name; /* sorted by name, for O(log n) lookups */
};

struct parser {
	struct lexer lx;
	struct tok tok; /* the current token */
	unsigned depth;
	umt_enum *e;
	size_t ent_cap, names_size, names_cap;
	uint32_t *hash; /* open addressing: entry + 1, 0 empty; only while parsing */
	size_t hash_cap;
};

static int advance(struct parser *ps)
{
	return lex_next(&ps->lx, &ps->tok);
}

static bool tok_is(const struct tok *t, const char *word)
{
	size_t n = strlen(word);
	return t->len == n && memcmp(t->s, word, n) == 0;
}

static bool tok_punct(const struct tok *t, char c)
{
	return t->kind == TOK_PUNCT && t->s[0] == c;
}

/* The token quoted for a message, shortened and with unprintable bytes escaped. */
static const char *tok_desc(const struct tok *t, char *buf, size_t size)
{
	if (t->kind == TOK_EOF)
		return "end of file";
	size_t o = 0;
	buf[o++] = '\'';
	for (size_t i = 0; i < t->len && o + 8 < size; i++) {
		unsigned char c = (unsigned char)t->s[i];
		if (i == 32) {
			o += (size_t)snprintf(buf + o, size - o, "...");
			break;
		}
		if (c >= 0x20 && c < 0x7f)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", c);
	}
	snprintf(buf + o, size - o, "'");
	return buf;
}

static int __attribute__((noinline, cold)) nomem(const struct parser *ps)
{
	return umt__failf(UMT_E_NOMEM, "%s: out of memory", ps->lx.file);
}

static int __attribute__((noinline, cold)) unexpected(const struct parser *ps, const char *what)
{
	char d[64];
	return lex_fail(UMT_E_CORRUPT, &ps->lx, ps->tok.line, "expected %s, found %s", what,
	                tok_desc(&ps->tok, d, sizeof d));
}

static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static const char *ent_name(const umt_enum *e, const struct enum_entry *x)
{
	return e->names + x->name;
}

/* The slot of @p name in the hash table: holding it, or the empty one it would take. */
static size_t hash_slot(const struct parser *ps, const char *name, size_t len)
{
	size_t mask = ps->hash_cap - 1, i = (size_t)hash_name(name, len) & mask;
	for (;; i = (i + 1) & mask) {
		uint32_t h = ps->hash[i];
		if (h == 0)
			return i;
		const struct enum_entry *x = &ps->e->ent[h - 1];
		if (x->len == len && memcmp(ent_name(ps->e, x), name, len) == 0)
			return i;
	}
}

static int hash_grow(struct parser *ps)
{
	size_t cap = ps->hash_cap ? ps->hash_cap * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof *h);
	if (h == NULL)
		return nomem(ps);
	free(ps->hash);
	ps->hash = h;
	ps->hash_cap = cap;
	for (size_t i = 0; i < ps->e->count; i++) {
		const struct enum_entry *x = &ps->e->ent[i];
		ps->hash[hash_slot(ps, ent_name(ps->e, x), x->len)] = (uint32_t)i + 1;
	}
	return 0;
}

/* The entry named by identifier token @p t, or NULL. */
static const struct enum_entry *find_constant(const struct parser *ps, const struct tok *t)
{
	uint32_t h = ps->hash[hash_slot(ps, t->s, t->len)];
	return h ? &ps->e->ent[h - 1] : NULL;
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);
	return len >= n && memcmp(s + len - n, tail, n) == 0;
}

static int add_entry(struct parser *ps, const struct tok *name, int64_t value, bool alias)
{
	umt_enum *e = ps->e;
	if ((e->count + 1) * 2 > ps->hash_cap && hash_grow(ps) < 0)
		return UMT_E_NOMEM;
	size_t slot = hash_slot(ps, name->s, name->len);
	if (ps->hash[slot] != 0)
		return lex_fail(UMT_E_CORRUPT, &ps->lx, name->line,
		                "%.*s is defined twice (first at line %u)", (int)name->len, name->s,
		                e->ent[ps->hash[slot] - 1].line);
	if (e->count == ps->ent_cap) {
		size_t cap = ps->ent_cap ? ps->ent_cap * 2 : 256;
		struct enum_entry *n = realloc(e->ent, cap * sizeof *n);
		if (n == NULL)
			return nomem(ps);
		e->ent = n;
		ps->ent_cap = cap;
	}
	/* names fit: their total is below the 64 MiB input */
	if (ps->names_cap - ps->names_size < name->len + 1) {
		size_t cap = ps->names_cap ? ps->names_cap : 4096;
		while (cap - ps->names_size < name->len + 1)
			cap *= 2;
		char *n = realloc(e->names, cap);
		if (n == NULL)
			return nomem(ps);
		e->names = n;
		ps->names_cap = cap;
	}
	struct enum_entry *x = &e->ent[e->count];
	x->value = value;
	x->name = (uint32_t)ps->names_size;
	x->len = (uint32_t)name->len;
	x->line = name->line;
	x->flags = (uint8_t)((alias ? ENT_ALIAS : 0) |
	                     (ends_with(name->s, name->len, "_LAST") ? ENT_SENTINEL : 0));
	memcpy(e->names + ps->names_size, name->s, name->len);
	e->names[ps->names_size + name->len] = '\0';
	ps->names_size += name->len + 1;
	ps->hash[slot] = (uint32_t)++e->count;
	return 0;
}

static int digit_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* A C integer literal: decimal, 0x hex or 0 octal, with any u/l suffix; at most INT64_MAX. */
static int parse_number(const struct parser *ps, int64_t *out)
{
	const struct tok *t = &ps->tok;
	const char *s = t->s, *e = s + t->len;
	unsigned base = 10;
	char d[64];
	while (e > s && (e[-1] == 'u' || e[-1] == 'U' || e[-1] == 'l' || e[-1] == 'L'))
		e--;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s > 1 && s[0] == '0') {
		base = 8;
		s++;
	}
	if (s == e)
		return lex_fail(UMT_E_CORRUPT, &ps->lx, t->line, "bad number %s",
		                tok_desc(t, d, sizeof d));
	uint64_t v = 0;
	for (; s < e; s++) {
		unsigned dv = (unsigned)digit_value((unsigned char)*s);
		if (dv >= base)
			return lex_fail(UMT_E_CORRUPT, &ps->lx, t->line, "bad number %s",
			                tok_desc(t, d, sizeof d));
		if (v > ((uint64_t)INT64_MAX - dv) / base)
			return lex_fail(UMT_E_CORRUPT, &ps->lx, t->line,
			                "number %s overflows 64-bit signed integers",
			                tok_desc(t, d, sizeof d));
		v = v * base + dv;
	}
	*out = (int64_t)v;
	return 0;
}

static int __attribute__((noinline, cold)) overflow(const struct parser *ps, uint32_t line)
{
	return lex_fail(UMT_E_CORRUPT, &ps->lx, line, "value overflows 64-bit signed integers");
}

static int parse_expr(struct parser *ps, int64_t *out, bool *alias);

/*
 * unary := '-' unary | '+' unary | '~' unary | '(' expr ')' | number | constant
 * @p ident is set when the operand is a bare constant name (an alias).
 */
static int parse_unary(struct parser *ps, int64_t *out, bool *ident)
{
	int rc;
	uint32_t line = ps->tok.line;
	bool id;
	*ident = false;
	if (++ps->depth > EXPR_MAX_DEPTH)
		return lex_fail(UMT_E_CORRUPT, &ps->lx, line, "expression nested too deeply");
	if (tok_punct(&ps->tok, '-') || tok_punct(&ps->tok, '+') || tok_punct(&ps->tok, '~')) {
		char op = ps->tok.s[0];
		if ((rc = advance(ps)) < 0 || (rc = parse_unary(ps, out, &id)) < 0)
			return rc;
		if (op == '-') {
			if (*out == INT64_MIN)
				return overflow(ps, line);
			*out = -*out;
		} else if (op == '~') {
			*out = ~*out;
		}
	} else {
		if (tok_punct(&ps->tok, '(')) {
			if ((rc = advance(ps)) < 0 || (rc = parse_expr(ps, out, &id)) < 0)
				return rc;
			if (!tok_punct(&ps->tok, ')'))
				return unexpected(ps, "')'");
		} else if (ps->tok.kind == TOK_NUMBER) {
			if ((rc = parse_number(ps, out)) < 0)
				return rc;
		} else if (ps->tok.kind == TOK_IDENT) {
			const struct enum_entry *x = find_constant(ps, &ps->tok);
			if (x == NULL)
				return lex_fail(UMT_E_CORRUPT, &ps->lx, line, "unknown constant %.*s",
				                (int)(ps->tok.len > 64 ? 64 : ps->tok.len), ps->tok.s);
			*out = x->value;
			*ident = true;
		} else {
			return unexpected(ps, "a value");
		}
		if ((rc = advance(ps)) < 0) /* past the value or the ')' */
			return rc;
	}
	ps->depth--;
	return 0;
}

/* expr := unary (('+' | '-') unary)*: what enum initializers use (NAME + 1, -1, 0x7b). */
static int parse_expr(struct parser *ps, int64_t *out, bool *alias)
{
	int64_t v, r;
	bool id;
	int rc = parse_unary(ps, &v, alias);
	if (rc < 0)
		return rc;
	while (tok_punct(&ps->tok, '+') || tok_punct(&ps->tok, '-')) {
		char op = ps->tok.s[0];
		uint32_t line = ps->tok.line;
		if ((rc = advance(ps)) < 0 || (rc = parse_unary(ps, &r, &id)) < 0)
			return rc;
		if (op == '+' ? __builtin_add_overflow(v, r, &v) : __builtin_sub_overflow(v, r, &v))
			return overflow(ps, line);
		*alias = false;
	}
	*out = v;
	return 0;
}

/* The body of an enum, from the token after '{' to its '}'. */
static int parse_body(struct parser *ps)
{
	int rc;
	if (tok_punct(&ps->tok, '}'))
		return lex_fail(UMT_E_CORRUPT, &ps->lx, ps->tok.line, "empty enum");
	for (;;) {
		if (ps->tok.kind != TOK_IDENT)
			return unexpected(ps, "a constant name");
		struct tok name = ps->tok;
		int64_t v = 0;
		bool alias = false;
		if ((rc = advance(ps)) < 0)
			return rc;
		if (tok_punct(&ps->tok, '=')) {
			if ((rc = advance(ps)) < 0 || (rc = parse_expr(ps, &v, &alias)) < 0)
				return rc;
		} else if (ps->e->count > 0 &&
		           __builtin_add_overflow(ps->e->ent[ps->e->count - 1].value, 1, &v)) {
			return overflow(ps, name.line);
		}
		if ((rc = add_entry(ps, &name, v, alias)) < 0)
			return rc;
		if (tok_punct(&ps->tok, ',')) {
			if ((rc = advance(ps)) < 0)
				return rc;
			if (tok_punct(&ps->tok, '}'))
				return 0;
		} else if (tok_punct(&ps->tok, '}')) {
			return 0;
		} else {
			char d[64];
			return lex_fail(UMT_E_CORRUPT, &ps->lx, ps->tok.line,
			                "expected ',' or '}' after %.*s, found %s", (int)name.len,
			                name.s, tok_desc(&ps->tok, d, sizeof d));
		}
	}
}

static bool tok_names(const struct tok *t, const char *type_name)
{
	return t->kind == TOK_IDENT && tok_is(t, type_name);
}

/*
 * From the token after an enum's '{': skips to its '}' and reads the
 * declarators up to ';', telling whether the tag or a declarator is
 * @p type_name (NULL matches any enum).
 */
static int skip_enum(struct parser *ps, uint32_t enum_line, bool tag_match,
                     const char *type_name, bool *match)
{
	int rc;
	while (!tok_punct(&ps->tok, '}')) {
		if (ps->tok.kind == TOK_EOF)
			return lex_fail(UMT_E_CORRUPT, &ps->lx, enum_line,
			                "enum never closes (no '}' before the end of the file)");
		if ((rc = advance(ps)) < 0)
			return rc;
	}
	*match = type_name == NULL || tag_match;
	for (;;) {
		if ((rc = advance(ps)) < 0)
			return rc;
		if (tok_punct(&ps->tok, ';'))
			return 0;
		if (ps->tok.kind == TOK_EOF || tok_punct(&ps->tok, '{') || tok_punct(&ps->tok, '}'))
			return unexpected(ps, "';' after the enum");
		if (type_name != NULL && tok_names(&ps->tok, type_name))
			*match = true;
	}
}

/*
 * Finds the wanted enum and parses its body. Accepts "typedef enum [tag] {
 * ... } name;", "enum tag { ... };", and C++'s "enum class tag : type".
 * Anything else in the file (prototypes, other declarations) is skipped.
 */
static int find_enum(struct parser *ps, const char *type_name)
{
	int rc;
	while (ps->tok.kind != TOK_EOF) {
		if (ps->tok.kind != TOK_IDENT || !tok_is(&ps->tok, "enum")) {
			if ((rc = advance(ps)) < 0)
				return rc;
			continue;
		}
		uint32_t line = ps->tok.line;
		bool tag_match = false;
		if ((rc = advance(ps)) < 0)
			return rc;
		if (tok_is(&ps->tok, "class") || tok_is(&ps->tok, "struct"))
			if ((rc = advance(ps)) < 0)
				return rc;
		if (ps->tok.kind == TOK_IDENT && !tok_is(&ps->tok, "enum")) {
			tag_match = type_name != NULL && tok_names(&ps->tok, type_name);
			if ((rc = advance(ps)) < 0)
				return rc;
		}
		if (tok_punct(&ps->tok, ':')) /* underlying type */
			while (ps->tok.kind != TOK_EOF && !tok_punct(&ps->tok, '{') &&
			       !tok_punct(&ps->tok, ';'))
				if ((rc = advance(ps)) < 0)
					return rc;
		if (!tok_punct(&ps->tok, '{'))
			continue; /* "enum tag x;" and the like: a use, not a definition */
		struct lexer body = ps->lx;
		bool match = false; /* set by skip_enum() on success; -O2 cannot see it */
		if ((rc = advance(ps)) < 0 || (rc = skip_enum(ps, line, tag_match, type_name, &match)) < 0)
			return rc;
		if (match) {
			ps->lx = body;
			if ((rc = advance(ps)) < 0)
				return rc;
			return parse_body(ps);
		}
		if ((rc = advance(ps)) < 0)
			return rc;
	}
	if (type_name != NULL)
		return umt__failf(UMT_E_NOT_FOUND, "%s: no enum %s", ps->lx.file, type_name);
	return umt__failf(UMT_E_NOT_FOUND, "%s: no enum", ps->lx.file);
}

/* ==== Enum headers: the lookup indexes ================================== */

/*
 * The longest prefix ending in '_' common to every name, shorter than each
 * (no name becomes empty). Names starting "SYSCALL_" (the unified syscall
 * IDs, whose pattern is SYSCALL_ExportedName_MMmm_N) are kept whole.
 */
static size_t common_prefix(const umt_enum *e)
{
	const char *first = ent_name(e, &e->ent[0]);
	size_t lcp = e->ent[0].len, min_len = e->ent[0].len;
	for (size_t i = 1; i < e->count && lcp > 0; i++) {
		const char *s = ent_name(e, &e->ent[i]);
		size_t j = 0;
		while (j < lcp && s[j] == first[j])
			j++;
		lcp = j;
		if (e->ent[i].len < min_len)
			min_len = e->ent[i].len;
	}
	while (lcp > 0 && (first[lcp - 1] != '_' || lcp >= min_len))
		lcp--;
	if (lcp >= 8 && memcmp(first, "SYSCALL_", 8) == 0)
		return 0;
	return lcp;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct name_ref *)a)->name, ((const struct name_ref *)b)->name);
}

static int cmp_value(const void *a, const void *b)
{
	const struct value_ref *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->ent < y->ent ? -1 : x->ent > y->ent;
}

/*
 * Whether entry @p cand should name its value instead of @p cur, defined
 * earlier: the first definition wins, except that a _LAST sentinel gives
 * way to a later real constant (not to an alias, which names an earlier one).
 */
static bool better_name(const umt_enum *e, uint32_t cur, uint32_t cand)
{
	return (e->ent[cur].flags & ENT_SENTINEL) &&
	       !(e->ent[cand].flags & (ENT_SENTINEL | ENT_ALIAS));
}

/*
 * value -> name: a dense array indexed by value - min when the values span
 * at most 4 slots per constant (every XED and syscall enum: they are
 * sequential), else the distinct values sorted, searched in O(log n).
 */
static int build_value_index(umt_enum *e)
{
	int64_t min = e->ent[0].value, max = min;
	for (size_t i = 1; i < e->count; i++) {
		if (e->ent[i].value < min)
			min = e->ent[i].value;
		if (e->ent[i].value > max)
			max = e->ent[i].value;
	}
	uint64_t span = (uint64_t)max - (uint64_t)min;
	e->min = min;
	if (span <= 4 * (uint64_t)e->count + 1024) {
		e->dense_len = (size_t)span + 1;
		e->dense = calloc(e->dense_len, sizeof *e->dense);
		if (e->dense == NULL)
			return UMT_E_NOMEM;
		for (size_t i = 0; i < e->count; i++) {
			uint32_t *d = &e->dense[(uint64_t)e->ent[i].value - (uint64_t)min];
			if (*d == 0 || better_name(e, *d - 1, (uint32_t)i))
				*d = (uint32_t)i + 1;
		}
		return 0;
	}
	e->by_value = malloc(e->count * sizeof *e->by_value);
	if (e->by_value == NULL)
		return UMT_E_NOMEM;
	for (size_t i = 0; i < e->count; i++)
		e->by_value[i] = (struct value_ref){e->ent[i].value, (uint32_t)i};
	qsort(e->by_value, e->count, sizeof *e->by_value, cmp_value);
	size_t n = 0;
	for (size_t i = 0; i < e->count; i++) {
		if (n > 0 && e->by_value[n - 1].value == e->by_value[i].value) {
			if (better_name(e, e->by_value[n - 1].ent, e->by_value[i].ent))
				e->by_value[n - 1].ent = e->by_value[i].ent;
		} else {
			e->by_value[n++] = e->by_value[i];
		}
	}
	e->nvalues = n;
	return 0;
}

static int build_indexes(struct parser *ps)
{
	umt_enum *e = ps->e;
	e->prefix_len = common_prefix(e);
	e->prefix = malloc(e->prefix_len + 1);
	e->by_name = malloc(e->count * sizeof *e->by_name);
	if (e->prefix == NULL || e->by_name == NULL || build_value_index(e) < 0)
		return nomem(ps);
	memcpy(e->prefix, e->names, e->prefix_len); /* every name starts with it */
	e->prefix[e->prefix_len] = '\0';
	for (size_t i = 0; i < e->count; i++)
		e->by_name[i] = (struct name_ref){ent_name(e, &e->ent[i]), (uint32_t)i};
	qsort(e->by_name, e->count, sizeof *e->by_name, cmp_name);
	return 0;
}

/* ==== Enum headers: the API ============================================= */

/* Line of the first NUL byte of a text, or 0 when it has none. */
static uint32_t nul_line(const char *text, size_t size)
{
	uint32_t line = 1;
	for (size_t i = 0; i < size; i++) { /* one pass, never past size */
		if (text[i] == '\0')
			return line;
		line += text[i] == '\n';
	}
	return 0;
}

int umt_enum_parse(const char *text, size_t size, const char *file, const char *type_name,
                   umt_enum **out)
{
	if (out != NULL)
		*out = NULL;
	if ((text == NULL && size > 0) || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_enum_parse: invalid argument");
	if (file == NULL)
		file = "<memory>";
	if (size > ENUM_MAX_BYTES)
		return umt__failf(UMT_E_CORRUPT, "%s: %zu bytes, more than the %zu MiB limit", file,
		                  size, ENUM_MAX_BYTES >> 20);
	if (text == NULL)
		text = "";
	struct parser ps = {.lx = {text, text + size, file, 1, true}};
	if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		ps.lx.p += 3; /* a UTF-8 byte order mark: line 1 may still start a directive */
	uint32_t z = nul_line(text, size);
	if (z != 0)
		return lex_fail(UMT_E_CORRUPT, &ps.lx, z, "NUL byte in a text file");
	ps.e = calloc(1, sizeof *ps.e);
	if (ps.e == NULL)
		return nomem(&ps);
	int rc = hash_grow(&ps);
	if (rc == 0)
		rc = advance(&ps);
	if (rc == 0)
		rc = find_enum(&ps, type_name);
	if (rc == 0)
		rc = build_indexes(&ps);
	free(ps.hash);
	if (rc < 0) {
		umt_enum_free(ps.e);
		return rc;
	}
	*out = ps.e;
	return 0;
}

/*
 * Reads file @p path whole (at most ENUM_MAX_BYTES). A missing file returns
 * UMT_E_NOT_FOUND (the directory loader skips it), other failures UMT_E_IO.
 */
static int read_text(const char *path, char **buf, size_t *size)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		int err = errno; /* umt__failf() evaluates its code after formatting */
		return umt__failf(err == ENOENT ? UMT_E_NOT_FOUND : UMT_E_IO, "%s: %s", path,
		                  strerror(err));
	}
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0) {
		rc = umt__failf(UMT_E_IO, "%s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		rc = umt__failf(UMT_E_IO, "%s: not a regular file", path);
	} else if ((uint64_t)st.st_size > ENUM_MAX_BYTES) {
		rc = umt__failf(UMT_E_CORRUPT, "%s: %llu bytes, more than the %zu MiB limit", path,
		                (unsigned long long)st.st_size, ENUM_MAX_BYTES >> 20);
	} else if ((*buf = malloc((size_t)st.st_size + 1)) == NULL) {
		rc = umt__failf(UMT_E_NOMEM, "%s: out of memory", path);
	} else {
		size_t n = 0, want = (size_t)st.st_size;
		while (n < want) { /* a file shrinking meanwhile yields what was there */
			ssize_t r = read(fd, *buf + n, want - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0) {
				rc = umt__failf(UMT_E_IO, "%s: %s", path, strerror(errno));
				free(*buf);
				*buf = NULL;
				break;
			}
			if (r == 0)
				break;
			n += (size_t)r;
		}
		*size = n;
	}
	close(fd);
	return rc;
}

int umt_enum_load(const char *path, const char *type_name, umt_enum **out)
{
	if (out != NULL)
		*out = NULL;
	if (path == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_enum_load: invalid argument");
	char *text = NULL;
	size_t size = 0;
	int rc = read_text(path, &text, &size);
	if (rc == UMT_E_NOT_FOUND)
		rc = UMT_E_IO;
	if (rc == 0)
		rc = umt_enum_parse(text, size, path, type_name, out);
	free(text);
	return rc;
}

void umt_enum_free(umt_enum *e)
{
	if (e == NULL)
		return;
	free(e->names);
	free(e->prefix);
	free(e->ent);
	free(e->dense);
	free(e->by_value);
	free(e->by_name);
	free(e);
}

size_t umt_enum_count(const umt_enum *e)
{
	return e ? e->count : 0;
}

const char *umt_enum_prefix(const umt_enum *e)
{
	return e ? e->prefix : NULL;
}

int umt_enum_entry(const umt_enum *e, size_t index, const char **name, int64_t *value)
{
	if (e == NULL)
		return umt__failf(UMT_E_INVAL, "umt_enum_entry: invalid argument");
	if (index >= e->count)
		return umt__failf(UMT_E_RANGE, "enum constant %zu is out of range (%zu constants)",
		                  index, e->count);
	if (name)
		*name = ent_name(e, &e->ent[index]) + e->prefix_len;
	if (value)
		*value = e->ent[index].value;
	return 0;
}

const char *umt_enum_name(const umt_enum *e, int64_t value)
{
	if (e == NULL || e->count == 0)
		return NULL;
	uint32_t ent;
	if (e->dense != NULL) {
		uint64_t i = (uint64_t)value - (uint64_t)e->min;
		if (value < e->min || i >= e->dense_len || e->dense[i] == 0)
			return NULL;
		ent = e->dense[i] - 1;
	} else {
		size_t lo = 0, hi = e->nvalues;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (e->by_value[mid].value < value)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == e->nvalues || e->by_value[lo].value != value)
			return NULL;
		ent = e->by_value[lo].ent;
	}
	return ent_name(e, &e->ent[ent]) + e->prefix_len;
}

/* Binary search of @p name among the names, each compared from offset @p skip. */
static const struct name_ref *search_name(const umt_enum *e, const char *name, size_t skip)
{
	size_t lo = 0, hi = e->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(e->by_name[mid].name + skip, name);
		if (c == 0)
			return &e->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int umt_enum_value(const umt_enum *e, const char *name, int64_t *value)
{
	if (e == NULL || name == NULL || value == NULL)
		return umt__failf(UMT_E_INVAL, "umt_enum_value: invalid argument");
	/*
	 * Every name starts with the prefix, so the order by full name is also
	 * the order by name without it: one index serves both searches.
	 */
	const struct name_ref *r = search_name(e, name, 0);
	if (r == NULL && e->prefix_len > 0)
		r = search_name(e, name, e->prefix_len);
	if (r == NULL)
		return umt__failf(UMT_E_NOT_FOUND, "no enum constant named %.64s", name);
	*value = e->ent[r->ent].value;
	return 0;
}

/* ==== A documentation directory's tables ================================ */

struct umt_names {
	umt_enum *table[UMT_NAMES_COUNT];
	int64_t xed_date;
};

/* Where each table is found, and the enum's type name (NULL: the file's first enum). */
static const struct {
	const char *files[2];
	const char *type;
} table_files[UMT_NAMES_COUNT] = {
	[UMT_NAMES_REG] = {{"xed-reg-enum.h", NULL}, "xed_reg_enum_t"},
	[UMT_NAMES_ICLASS] = {{"xed-iclass-enum.h", NULL}, "xed_iclass_enum_t"},
	[UMT_NAMES_IFORM] = {{"xed-iform-enum.h", NULL}, "xed_iform_enum_t"},
	/* XED's own name, then the one spec 14.1 uses */
	[UMT_NAMES_CATEGORY] = {{"xed-category-enum.h", "xed-icategory-enum.h"},
	                        "xed_category_enum_t"},
	[UMT_NAMES_SYSCALL0] = {{"syscall_unified_id_v0.h", NULL}, NULL},
	[UMT_NAMES_SYSCALL1] = {{"syscall_unified_id_v1.h", NULL}, NULL},
};

static char *join_path(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);
	if (p != NULL) {
		memcpy(p, dir, a);
		p[a] = '/';
		memcpy(p + a + 1, name, b + 1);
	}
	return p;
}

/*
 * The 8-digit date in the last component of @p path ("XED v20150121" ->
 * 20150121), or -1. A run of more or fewer digits is not a date.
 */
static int64_t date_in_name(const char *path)
{
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	for (size_t i = start; i < end;) {
		if (!is_digit((unsigned char)path[i])) {
			i++;
			continue;
		}
		size_t j = i;
		int64_t v = 0;
		for (; j < end && is_digit((unsigned char)path[j]); j++)
			if (j - i < 8)
				v = v * 10 + (path[j] - '0');
		if (j - i == 8)
			return v;
		i = j;
	}
	return -1;
}

/*
 * Loads table @p which from @p dir. A missing file leaves it absent;
 * a file without the XED type name falls back to its first enum.
 */
static int load_table(umt_names *n, const char *dir, int which, bool *found)
{
	for (int f = 0; f < 2 && table_files[which].files[f] != NULL; f++) {
		char *path = join_path(dir, table_files[which].files[f]);
		if (path == NULL)
			return umt__failf(UMT_E_NOMEM, "%s: out of memory", dir);
		char *text = NULL;
		size_t size = 0;
		int rc = read_text(path, &text, &size);
		if (rc == UMT_E_NOT_FOUND) {
			free(path);
			continue;
		}
		const char *type = table_files[which].type;
		if (rc == 0)
			rc = umt_enum_parse(text, size, path, type, &n->table[which]);
		if (rc == UMT_E_NOT_FOUND && type != NULL)
			rc = umt_enum_parse(text, size, path, NULL, &n->table[which]);
		if (rc == UMT_E_NOT_FOUND) /* the file is there but is not an enum header */
			rc = umt__failf(UMT_E_CORRUPT, "%s: no enum", path);
		free(text);
		free(path);
		*found = rc == 0;
		return rc;
	}
	*found = false;
	return 0;
}

/*
 * The subdirectory of @p dir holding XED headers as the documentation ships
 * them ("XED v20150121"): the one starting "XED" whose name has the latest
 * 8-digit date. NULL when none (or out of memory: the caller then just
 * finds no XED table there).
 */
static char *find_xed_subdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (d == NULL)
		return NULL;
	char *best = NULL;
	int64_t best_date = -1;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		int64_t date = date_in_name(de->d_name);
		if (strncmp(de->d_name, "XED", 3) != 0 || date <= best_date)
			continue;
		char *path = join_path(dir, de->d_name);
		struct stat st;
		if (path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			free(best);
			best = path;
			best_date = date;
		} else {
			free(path);
		}
	}
	closedir(d);
	return best;
}

/* XED version from the register enum: where XED_REG_GSBASE sits (ERRATA 17). */
static int64_t date_from_regs(const umt_enum *regs)
{
	int64_t gsbase;
	if (regs == NULL || umt_enum_value(regs, "XED_REG_GSBASE", &gsbase) != 0)
		return -1;
	if (gsbase == X15_GSBASE)
		return XED_DATE_2015;
	if (gsbase == X15_GSBASE - XED_OLD_SHIFT)
		return XED_DATE_2014;
	return -1;
}

/* Loads the four XED tables from @p dir; *any is set when one was there. */
static int load_xed_tables(umt_names *n, const char *dir, bool *any)
{
	*any = false;
	for (int w = UMT_NAMES_REG; w <= UMT_NAMES_CATEGORY; w++) {
		bool found;
		int rc = load_table(n, dir, w, &found);
		if (rc < 0)
			return rc;
		*any |= found;
	}
	return 0;
}

int umt_names_load_dir(const char *dir, umt_names **out)
{
	if (out != NULL)
		*out = NULL;
	if (dir == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_names_load_dir: invalid argument");
	struct stat st;
	if (stat(dir, &st) != 0) {
		int err = errno; /* umt__failf() evaluates its code after formatting */
		return umt__failf(err == ENOENT ? UMT_E_NOT_FOUND : UMT_E_IO, "%s: %s", dir,
		                  strerror(err));
	}
	if (!S_ISDIR(st.st_mode))
		return umt__failf(UMT_E_IO, "%s: not a directory", dir);
	umt_names *n = calloc(1, sizeof *n);
	if (n == NULL)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory", dir);
	bool any_xed, found;
	char *xed_dir = NULL;
	int rc = load_xed_tables(n, dir, &any_xed);
	if (rc == 0 && !any_xed && (xed_dir = find_xed_subdir(dir)) != NULL)
		rc = load_xed_tables(n, xed_dir, &any_xed);
	for (int w = UMT_NAMES_SYSCALL0; rc == 0 && w <= UMT_NAMES_SYSCALL1; w++)
		rc = load_table(n, dir, w, &found);
	if (rc == 0) {
		n->xed_date = any_xed ? date_in_name(xed_dir ? xed_dir : dir) : -1;
		if (n->xed_date < 0)
			n->xed_date = date_from_regs(n->table[UMT_NAMES_REG]);
	}
	free(xed_dir);
	bool none = true;
	for (int w = 0; w < UMT_NAMES_COUNT; w++)
		none &= n->table[w] == NULL;
	if (rc == 0 && none)
		rc = umt__failf(UMT_E_NOT_FOUND,
		                "%s: no name table (xed-reg-enum.h, xed-iclass-enum.h, "
		                "xed-iform-enum.h, xed-category-enum.h, syscall_unified_id_v0.h, "
		                "syscall_unified_id_v1.h)", dir);
	if (rc < 0) {
		umt_names_free(n);
		return rc;
	}
	*out = n;
	return 0;
}

void umt_names_free(umt_names *n)
{
	if (n == NULL)
		return;
	for (int w = 0; w < UMT_NAMES_COUNT; w++)
		umt_enum_free(n->table[w]);
	free(n);
}

const umt_enum *umt_names_table(const umt_names *n, int which)
{
	if (n == NULL || which < 0 || which >= UMT_NAMES_COUNT)
		return NULL;
	return n->table[which];
}

int64_t umt_names_xed_date(const umt_names *n)
{
	return n ? n->xed_date : -1;
}

/* A Pin build number (< 19000000) stands for an XED older than any dated one. */
static bool xed_newer(int64_t trace, int64_t tables)
{
	return trace >= 19000000 && trace > tables;
}

int umt_names_check(const umt_names *n, const umt_trace *t)
{
	if (n == NULL || t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_names_check: invalid argument");
	int64_t td = umt__trace_xed_date(t);
	if (td >= 0 && n->xed_date >= 0 && xed_newer(td, n->xed_date))
		return umt__fail(UMT_E_VERSION, UMT_FILE_TRACE_XML, UMT_LOC_NONE, 0, 0,
		                 "trace made with XED %lld, newer than the name tables' XED %lld: "
		                 "their values may be wrong (spec 13)",
		                 (long long)td, (long long)n->xed_date);
	int32_t v = t->unified_ids_version;
	if (v < 0 || v > 1 || n->table[UMT_NAMES_SYSCALL0 + v] == NULL)
		return umt__fail(UMT_E_NOT_FOUND, UMT_FILE_SYSCALL_VTABLE, UMT_LOC_NONE, 0, 0,
		                 "UnifiedIDsVer %d: syscall_unified_id_v%d.h is not loaded", (int)v,
		                 (int)v);
	return 0;
}

const char *umt_names_mnemonic(const umt_names *n, int value)
{
	return umt_enum_name(umt_names_table(n, UMT_NAMES_ICLASS), value);
}

const char *umt_names_form(const umt_names *n, int value)
{
	return umt_enum_name(umt_names_table(n, UMT_NAMES_IFORM), value);
}

const char *umt_names_category(const umt_names *n, int value)
{
	return umt_enum_name(umt_names_table(n, UMT_NAMES_CATEGORY), value);
}

const char *umt_names_syscall(const umt_names *n, int ids_version, int value)
{
	if (ids_version < 0 || ids_version > 1)
		return NULL;
	return umt_enum_name(umt_names_table(n, UMT_NAMES_SYSCALL0 + ids_version), value);
}
