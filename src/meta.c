/*
 * libumtrace - trace.xml through libxml2: both real layouts, lookups by path.
 *
 * trace.xml is small (kilobytes) and read once, so this file favours
 * simplicity over speed: libxml2 builds a tree, two walks over it count and
 * then copy every leaf (path and text) into one allocation, and the tree is
 * freed. Lookups are linear scans of the leaves, case-insensitive.
 *
 * The older root-less files (ERRATA 18) are rejected by any XML parser with
 * "Extra content at the end of the document"; on exactly that error the
 * bytes after the XML declaration are wrapped in a synthetic element and
 * parsed again. The wrapper is inserted on the declaration's own line, so
 * line numbers are unchanged, and columns on that line are corrected.
 *
 * libxml2 is shared with the application: nothing global is changed. Options
 * are per context (recovery, entity substitution and DTD loading off, no
 * network), and errors reach a structured handler of the context, which
 * keeps the first one; nothing is printed (the thread's generic handler,
 * which encoding errors bypass the context for, is silenced during a parse
 * and restored after it).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "internal.h"

#define WRAP_OPEN "<umtrace-root>"
#define WRAP_CLOSE "</umtrace-root>"
#define WRAP_OPEN_LEN (sizeof WRAP_OPEN - 1)
#define WRAP_CLOSE_LEN (sizeof WRAP_CLOSE - 1)

/* Strict and closed: no recovery, no entity substitution, no DTD loading. */
#define PARSE_OPTIONS \
	(XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES)

struct meta_leaf {
	const char *path;
	const char *text;
};

struct umt_meta {
	int layout;
	int64_t xed_number; /* cached for umt__trace_xed_date(), called per register name */
	size_t count;
	struct meta_leaf leaf[]; /* then the strings */
};

/* ---- libxml2 ------------------------------------------------------------- */

static pthread_once_t xml_once = PTHREAD_ONCE_INIT;

static void xml_init(void)
{
	xmlInitParser();
}

/** The first error of a parse, as libxml2 reported it. */
struct xml_err {
	bool have;      /* a fatal error (or, failing that, an error) was kept */
	bool fatal;
	bool nomem;
	int code;       /* xmlParserErrors */
	int line, col;  /* 1-based; 0 when unknown */
	char msg[256];
};

#if LIBXML_VERSION >= 21200
static void on_error(void *data, const xmlError *e)
#else
static void on_error(void *data, xmlErrorPtr e)
#endif
{
	const xmlParserCtxt *c = data;
	struct xml_err *st = c != NULL ? c->_private : NULL;
	if (st == NULL || e == NULL || e->level < XML_ERR_ERROR)
		return;
	if (e->code == XML_ERR_NO_MEMORY)
		st->nomem = true;
	bool fatal = e->level == XML_ERR_FATAL;
	if (st->fatal || (st->have && !fatal))
		return; /* keep the first fatal error: later ones are consequences */
	st->have = true;
	st->fatal = fatal;
	st->code = e->code;
	st->line = e->line;
	st->col = e->int2;
	snprintf(st->msg, sizeof st->msg, "%s", e->message ? e->message : "error");
	size_t n = strlen(st->msg);
	while (n > 0 && (st->msg[n - 1] == '\n' || st->msg[n - 1] == ' '))
		st->msg[--n] = '\0';
}

/* libxml2's generic handler during a parse: the failure is reported by the context. */
static void discard(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* One strict parse of @p len bytes; NULL with *err filled on failure. */
static xmlDocPtr parse_once(const char *buf, size_t len, struct xml_err *err)
{
	memset(err, 0, sizeof *err);
	xmlParserCtxtPtr c = xmlNewParserCtxt();
	if (c == NULL) {
		err->nomem = true;
		return NULL;
	}
	/*
	 * The context starts from the thread's global defaults: an application's
	 * xmlSubstituteEntitiesDefault(1) or xmlLoadExtDtdDefaultValue leaves
	 * XML_PARSE_NOENT or _DTDLOAD in c->options, which xmlCtxtReadMemory()
	 * only adds to, and libxml2 2.9 then loads external entities (without
	 * substituting them). Start from nothing instead.
	 */
	c->options = 0;
	c->replaceEntities = 0;
	c->loadsubset = 0;
	c->validate = 0;
	c->_private = err;
	c->sax->serror = on_error;
	/*
	 * Encoding and I/O errors (an undecodable byte in a declared encoding)
	 * reach no context handler: libxml2 prints them through its generic
	 * handler. Silence that for this parse only; it is per thread, and the
	 * caller's handler is restored.
	 */
	xmlGenericErrorFunc saved = xmlGenericError;
	void *saved_ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, discard);
	xmlDocPtr doc = xmlCtxtReadMemory(c, buf, (int)len, NULL, NULL, PARSE_OPTIONS);
	xmlSetGenericErrorFunc(saved_ctx, saved);
	if (doc == NULL && !err->have && !err->nomem) {
		/* Not reported through the handler: take what the context kept. */
		const xmlError *e = xmlCtxtGetLastError(c);
		err->have = true;
		err->code = e ? e->code : XML_ERR_INTERNAL_ERROR;
		err->line = e ? e->line : 0;
		err->col = e ? e->int2 : 0;
		err->nomem = err->code == XML_ERR_NO_MEMORY;
		snprintf(err->msg, sizeof err->msg, "%s",
		         e && e->message ? e->message : "libxml2 failed without a message");
	}
	xmlFreeParserCtxt(c);
	return doc;
}

static int xml_fail(const char *name, const struct xml_err *e)
{
	if (e->nomem)
		return umt__failf(UMT_E_NOMEM, "%s: out of memory while parsing", name);
	if (e->line <= 0)
		return umt__failf(UMT_E_XML, "%s: %s", name, e->msg);
	if (e->col <= 0)
		return umt__failf(UMT_E_XML, "%s: line %d: %s", name, e->line, e->msg);
	return umt__failf(UMT_E_XML, "%s: line %d, column %d: %s", name, e->line, e->col,
	                  e->msg);
}

/* ---- the root-less form (ERRATA 18) -------------------------------------- */

/** Where the synthetic root goes, and what that does to positions. */
struct wrap {
	size_t at;          /* byte offset: after the BOM and XML declaration */
	int line, col;      /* libxml2's position at that offset */
	int eof_line, eof_col; /* libxml2's position at the end of the input */
};

static bool is_xml_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Advances a libxml2-style position over [p, end): LF starts a line, columns count characters. */
static void advance(const char *p, const char *end, int *line, int *col)
{
	for (; p < end; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)*p & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

/*
 * Finds the insertion point. Only ASCII-compatible input can be wrapped with
 * ASCII bytes: a UTF-16 or UTF-32 file (BOM or NUL in the first bytes) is not.
 */
static bool wrap_plan(const char *buf, size_t size, struct wrap *w)
{
	if (size < 4 || memchr(buf, 0, 4) != NULL || (uint8_t)buf[0] == 0xfe ||
	    (uint8_t)buf[0] == 0xff)
		return false;
	size_t p = 0;
	if (memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		p = 3; /* libxml2 does not count the BOM in columns */
	size_t start = p;
	if (size - p >= 6 && memcmp(buf + p, "<?xml", 5) == 0 && is_xml_space(buf[p + 5])) {
		size_t e = p + 5;
		while (e + 1 < size && !(buf[e] == '?' && buf[e + 1] == '>'))
			e++;
		if (e + 1 >= size)
			return false;
		p = e + 2;
	}
	w->at = p;
	w->line = w->col = 1;
	advance(buf + start, buf + p, &w->line, &w->col);
	w->eof_line = w->line;
	w->eof_col = w->col;
	advance(buf + p, buf + size, &w->eof_line, &w->eof_col);
	return true;
}

/* Maps a position in the wrapped buffer back to the file's. */
static void unwrap_position(const struct wrap *w, struct xml_err *e)
{
	if (e->line == w->line && e->col >= w->col)
		e->col = e->col >= w->col + (int)WRAP_OPEN_LEN ? e->col - (int)WRAP_OPEN_LEN : w->col;
	/* An error inside the closing wrapper is at the end of the file. */
	if (e->line > w->eof_line || (e->line == w->eof_line && e->col > w->eof_col)) {
		e->line = w->eof_line;
		e->col = w->eof_col;
	}
}

static xmlDocPtr parse_wrapped(const char *buf, size_t size, const struct wrap *w,
                               struct xml_err *err)
{
	size_t len = size + WRAP_OPEN_LEN + WRAP_CLOSE_LEN;
	char *wb = malloc(len);
	if (wb == NULL) {
		memset(err, 0, sizeof *err);
		err->nomem = true;
		return NULL;
	}
	memcpy(wb, buf, w->at);
	memcpy(wb + w->at, WRAP_OPEN, WRAP_OPEN_LEN);
	memcpy(wb + w->at + WRAP_OPEN_LEN, buf + w->at, size - w->at);
	memcpy(wb + size + WRAP_OPEN_LEN, WRAP_CLOSE, WRAP_CLOSE_LEN);
	xmlDocPtr doc = parse_once(wb, len, err);
	free(wb);
	if (doc == NULL)
		unwrap_position(w, err);
	return doc;
}

/* ---- copying the leaves --------------------------------------------------- */

/** One walk over the elements: pass 1 counts (m == NULL), pass 2 copies. */
struct walk {
	const char *name;   /* of the input, for messages */
	char *path;         /* path of the current element */
	size_t len, cap;
	size_t leaves;      /* leaves seen */
	size_t bytes;       /* string bytes needed (pass 1) */
	struct umt_meta *m; /* pass 2: output */
	char *out;          /* pass 2: next free string byte */
};

static const xmlNode *first_element(const xmlNode *n)
{
	while (n != NULL && n->type != XML_ELEMENT_NODE)
		n = n->next;
	return n;
}

static size_t qname_len(const xmlNode *n)
{
	size_t len = strlen((const char *)n->name);
	if (n->ns != NULL && n->ns->prefix != NULL)
		len += strlen((const char *)n->ns->prefix) + 1;
	return len;
}

static int copy_limit(const struct walk *w)
{
	return umt__failf(UMT_E_XML,
	                  "%s: element paths and texts need more than %u bytes "
	                  "(UMT_META_MAX_COPY): too deeply nested",
	                  w->name, (unsigned)UMT_META_MAX_COPY);
}

static int path_push(struct walk *w, const xmlNode *n)
{
	size_t add = 1 + qname_len(n);
	if (add > UMT_META_MAX_COPY - w->len)
		return copy_limit(w);
	if (w->len + add + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + add + 1)
			cap *= 2;
		char *p = realloc(w->path, cap);
		if (p == NULL)
			return umt__failf(UMT_E_NOMEM, "%s: out of memory", w->name);
		w->path = p;
		w->cap = cap;
	}
	char *d = w->path + w->len;
	*d++ = '/';
	if (n->ns != NULL && n->ns->prefix != NULL) {
		size_t k = strlen((const char *)n->ns->prefix);
		memcpy(d, n->ns->prefix, k);
		d += k;
		*d++ = ':';
	}
	size_t k = strlen((const char *)n->name);
	memcpy(d, n->name, k);
	w->len += add;
	w->path[w->len] = '\0';
	return 0;
}

static void path_pop(struct walk *w, const xmlNode *n)
{
	w->len -= 1 + qname_len(n);
	w->path[w->len] = '\0';
}

/*
 * The text of a leaf: its text and CDATA children; an entity reference (never
 * substituted) as "&name;". Writes to @p dst when not NULL; returns the length.
 */
static size_t leaf_text(const xmlNode *leaf, char *dst)
{
	size_t len = 0;
	for (const xmlNode *c = leaf->children; c != NULL; c = c->next) {
		if ((c->type == XML_TEXT_NODE || c->type == XML_CDATA_SECTION_NODE) &&
		    c->content != NULL) {
			size_t k = strlen((const char *)c->content);
			if (dst != NULL)
				memcpy(dst + len, c->content, k);
			len += k;
		} else if (c->type == XML_ENTITY_REF_NODE) {
			size_t k = strlen((const char *)c->name);
			if (dst != NULL) {
				dst[len] = '&';
				memcpy(dst + len + 1, c->name, k);
				dst[len + 1 + k] = ';';
			}
			len += k + 2;
		}
	}
	return len;
}

static int visit_leaf(struct walk *w, const xmlNode *n)
{
	size_t tlen = leaf_text(n, NULL);
	if (w->m == NULL) {
		/* Bounded by the limit, so no sum below can overflow. */
		if (tlen > UMT_META_MAX_COPY || w->len + tlen + 2 > UMT_META_MAX_COPY - w->bytes)
			return copy_limit(w);
		w->bytes += w->len + tlen + 2;
		w->leaves++;
		return 0;
	}
	struct meta_leaf *l = &w->m->leaf[w->leaves++];
	memcpy(w->out, w->path, w->len + 1);
	l->path = w->out;
	w->out += w->len + 1;
	leaf_text(n, w->out);
	w->out[tlen] = '\0';
	l->text = w->out;
	w->out += tlen + 1;
	return 0;
}

/* Visits the leaves under @p top's element children in document order, without recursion. */
static int walk_leaves(struct walk *w, const xmlNode *top)
{
	const xmlNode *n = first_element(top->children);
	while (n != NULL) {
		int rc = path_push(w, n);
		if (rc < 0)
			return rc;
		const xmlNode *c = first_element(n->children);
		if (c != NULL) {
			n = c;
			continue;
		}
		if ((rc = visit_leaf(w, n)) < 0)
			return rc;
		for (;;) {
			path_pop(w, n);
			const xmlNode *s = first_element(n->next);
			if (s != NULL) {
				n = s;
				break;
			}
			n = n->parent;
			if (n == top) {
				n = NULL;
				break;
			}
		}
	}
	return 0;
}

/* A root-less file holds elements, comments and PIs at the top, never text. */
static int check_top_level(const char *name, const xmlNode *root)
{
	for (const xmlNode *c = root->children; c != NULL; c = c->next) {
		bool bad = c->type == XML_ENTITY_REF_NODE || c->type == XML_CDATA_SECTION_NODE;
		if (c->type == XML_TEXT_NODE && c->content != NULL)
			for (const xmlChar *p = c->content; *p && !bad; p++)
				bad = !is_xml_space((char)*p);
		if (!bad)
			continue;
		long line = xmlGetLineNo(c);
		if (line > 0)
			return umt__failf(UMT_E_XML, "%s: line %ld: text outside the top-level elements",
			                  name, line);
		return umt__failf(UMT_E_XML, "%s: text outside the top-level elements", name);
	}
	return 0;
}

static unsigned char ascii_lower(char c)
{
	unsigned char x = (unsigned char)c;
	return x >= 'A' && x <= 'Z' ? (unsigned char)(x + 32) : x;
}

/* ASCII case-insensitive comparison: deterministic whatever the locale. */
static bool ascii_ieq(const char *a, const char *b)
{
	for (; *a && ascii_lower(*a) == ascii_lower(*b); a++, b++)
		;
	return *a == *b;
}

/* Whether the first @p n bytes of @p a and @p b match (neither shorter). */
static bool ascii_ieqn(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] == '\0' || ascii_lower(a[i]) != ascii_lower(b[i]))
			return false;
	return true;
}

static umt_meta *meta_alloc(size_t leaves, size_t bytes)
{
	size_t size = sizeof(umt_meta) + leaves * sizeof(struct meta_leaf) + bytes;
	umt_meta *m = malloc(size); /* no overflow: leaves and bytes are bounded by the limit */
	if (m == NULL)
		return NULL;
	m->layout = UMT_META_NONE;
	m->xed_number = -1;
	m->count = leaves;
	return m;
}

static void classify_xed(const char *s, int64_t *date, int64_t *number, int *pin_build);

/* Copies the leaves of the document under @p top (the root's parent, or the synthetic root). */
static int build(const char *name, const xmlNode *top, int layout, umt_meta **out)
{
	struct walk w = {.name = name};
	int rc = walk_leaves(&w, top);
	umt_meta *m = NULL;
	if (rc == 0 && (m = meta_alloc(w.leaves, w.bytes)) == NULL)
		rc = umt__failf(UMT_E_NOMEM, "%s: out of memory", name);
	if (rc == 0) {
		w.m = m;
		w.out = (char *)&m->leaf[w.leaves];
		w.leaves = 0;
		rc = walk_leaves(&w, top); /* same tree, same limits: cannot fail */
	}
	free(w.path);
	if (rc != 0) { /* the walks return 0 or a negative status */
		free(m);
		return rc;
	}
	m->layout = layout;
	int64_t date;
	int pin;
	classify_xed(umt_meta_get(m, "Xed/Version"), &date, &m->xed_number, &pin);
	*out = m;
	return 0;
}

/* ---- parsing --------------------------------------------------------------- */

int umt_meta_parse(const void *xml, size_t size, const char *name, umt_meta **out)
{
	if (xml == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_meta_parse: invalid argument");
	*out = NULL;
	if (name == NULL)
		name = "trace.xml";
	if (size > UMT_META_MAX_SIZE)
		return umt__failf(UMT_E_XML, "%s: %zu bytes, more than the %u-byte limit "
		                  "(UMT_META_MAX_SIZE)", name, size, (unsigned)UMT_META_MAX_SIZE);
	pthread_once(&xml_once, xml_init);
	struct xml_err err;
	struct wrap w;
	bool wrapped = false;
	xmlDocPtr doc = parse_once(xml, size, &err);
	if (doc == NULL && err.code == XML_ERR_DOCUMENT_END && !err.nomem &&
	    wrap_plan(xml, size, &w)) {
		/* Several top-level elements: the root-less layout. */
		doc = parse_wrapped(xml, size, &w, &err);
		wrapped = true;
	}
	if (doc == NULL)
		return xml_fail(name, &err);
	const xmlNode *root = xmlDocGetRootElement(doc);
	int rc;
	if (root == NULL) { /* not well-formed XML: libxml2 cannot return this */
		rc = umt__failf(UMT_E_XML, "%s: no element", name);
	} else if (wrapped) {
		rc = check_top_level(name, root);
		if (rc == 0)
			rc = build(name, root, UMT_META_ROOTLESS, out);
	} else {
		/* One top element: 2015's TraceMetaData, or a root-less file of one element. */
		bool prefixed = root->ns != NULL && root->ns->prefix != NULL;
		int layout = ascii_ieq((const char *)root->name, "TraceMetaData") && !prefixed
		                     ? UMT_META_2015
		                     : UMT_META_ROOTLESS;
		rc = build(name, (const xmlNode *)doc, layout, out);
	}
	xmlFreeDoc(doc);
	return rc;
}

void umt_meta_free(umt_meta *m)
{
	free(m);
}

/* ---- lookups ---------------------------------------------------------------- */

int umt_meta_layout(const umt_meta *m)
{
	if (m == NULL)
		return umt__failf(UMT_E_INVAL, "umt_meta_layout: invalid argument");
	return m->layout;
}

size_t umt_meta_leaf_count(const umt_meta *m)
{
	return m ? m->count : 0;
}

int umt_meta_leaf(const umt_meta *m, size_t i, const char **path, const char **text)
{
	if (m == NULL)
		return umt__failf(UMT_E_INVAL, "umt_meta_leaf: invalid argument");
	if (i >= m->count)
		return umt__failf(UMT_E_RANGE, "umt_meta_leaf: index %zu, but %zu leaves", i,
		                  m->count);
	if (path != NULL)
		*path = m->leaf[i].path;
	if (text != NULL)
		*text = m->leaf[i].text;
	return 0;
}

/* The first leaf at @p path (see umt_meta_get()), or NULL. */
static const struct meta_leaf *find(const umt_meta *m, const char *path)
{
	if (m == NULL || path == NULL)
		return NULL;
	if (*path == '/')
		path++;
	static const char root[] = "TraceMetaData/";
	for (size_t i = 0; i < m->count; i++) {
		const char *p = m->leaf[i].path + 1; /* every path starts with '/' */
		if (ascii_ieq(p, path) ||
		    (ascii_ieqn(p, root, sizeof root - 1) && ascii_ieq(p + sizeof root - 1, path)))
			return &m->leaf[i];
	}
	return NULL;
}

const char *umt_meta_get(const umt_meta *m, const char *path)
{
	const struct meta_leaf *l = find(m, path);
	return l ? l->text : NULL;
}

/* ---- values ----------------------------------------------------------------- */

/* A decimal integer with optional surrounding whitespace; digits counts its digits. */
static bool parse_int(const char *s, int64_t *v, int *digits)
{
	if (s == NULL)
		return false;
	while (is_xml_space(*s))
		s++;
	bool neg = *s == '-', sign = neg || *s == '+';
	s += sign;
	int64_t x = 0;
	int n = 0;
	for (; *s >= '0' && *s <= '9'; s++, n++)
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *s - '0', &x))
			return false;
	while (is_xml_space(*s))
		s++;
	if (n == 0 || *s != '\0')
		return false;
	*v = neg ? -x : x;
	if (digits != NULL)
		*digits = sign ? -1 : n; /* a signed number is not a XED version */
	return true;
}

/*
 * XED versions are 8-digit dates (20150121); early traces hold the Pin build
 * number there (56759), told apart by being below 19000000 (ERRATA 17).
 */
static void classify_xed(const char *s, int64_t *date, int64_t *number, int *pin_build)
{
	int64_t v;
	int digits;
	*date = *number = -1;
	*pin_build = 0;
	if (!parse_int(s, &v, &digits) || digits < 0)
		return;
	if (digits == 8 && v >= 19000000) {
		*date = *number = v;
	} else if (v < 19000000) {
		*number = v;
		*pin_build = 1;
	}
}

static int version_value(const char *s)
{
	int64_t v;
	return parse_int(s, &v, NULL) && v >= INT_MIN && v <= INT_MAX ? (int)v : -1;
}

/* Whether @p s is @p word, in any case, with optional surrounding whitespace. */
static bool word_ieq(const char *s, const char *word)
{
	while (is_xml_space(*s))
		s++;
	size_t n = strlen(word);
	if (!ascii_ieqn(s, word, n))
		return false;
	for (s += n; is_xml_space(*s); s++)
		;
	return *s == '\0';
}

static int flag_value(const char *s)
{
	int64_t v;
	if (s == NULL)
		return -1;
	if (parse_int(s, &v, NULL))
		return v == 0 || v == 1 ? (int)v : -1;
	if (word_ieq(s, "true"))
		return 1;
	if (word_ieq(s, "false"))
		return 0;
	return -1;
}

/* A UMTracer value in either layout: UMTracer/... (pre-2015), RawTrace/UMTracer/... (2015). */
static const struct meta_leaf *find_umtracer(const umt_meta *m, const char *rest)
{
	char path[96];
	snprintf(path, sizeof path, "UMTracer/%s", rest);
	const struct meta_leaf *l = find(m, path);
	if (l == NULL) {
		snprintf(path, sizeof path, "RawTrace/UMTracer/%s", rest);
		l = find(m, path);
	}
	return l;
}

static int umtracer_version(const umt_meta *m, const char *rest)
{
	const struct meta_leaf *l = find_umtracer(m, rest);
	return l ? version_value(l->text) : -1;
}

int umt_meta_get_info(const umt_meta *m, umt_meta_info *out)
{
	if (m == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_meta_get_info: invalid argument");
	memset(out, 0, sizeof *out);
	out->layout = m->layout;
	out->xed_version = umt_meta_get(m, "Xed/Version");
	classify_xed(out->xed_version, &out->xed_date, &out->xed_number, &out->xed_is_pin_build);
	out->process_id = umt_meta_get(m, "App/ProcessID");
	if (!parse_int(out->process_id, &out->pid, NULL) || out->pid < 0)
		out->pid = -1;
	int bits = version_value(umt_meta_get(m, "App/Bitness"));
	out->bitness = bits == 32 || bits == 64 ? bits : -1;
	out->app_command_line = umt_meta_get(m, "App/CommandLine");
	out->pin_version = umt_meta_get(m, "Pin/Version");
	out->pin_command_line = umt_meta_get(m, "Pin/CommandLine");
	out->pin_working_directory = umt_meta_get(m, "Pin/WorkingDirectory");
	out->os_id = umt_meta_get(m, "OS/Id");
	out->os_name = umt_meta_get(m, "OS/Name");
	out->has_xmm = flag_value(umt_meta_get(m, "CPU/HasXMM"));
	out->has_ymm = flag_value(umt_meta_get(m, "CPU/HasYMM"));
	out->has_zmm = flag_value(umt_meta_get(m, "CPU/HasZMM"));
	out->raw_trace_date = umt_meta_get(m, "RawTrace/DateTime");
	out->umtracer_version = umt_meta_get(m, "RawTrace/UMTracer/Version");
	if (out->umtracer_version == NULL)
		out->umtracer_version = umt_meta_get(m, "UMTracer/Version");
	out->ins_format_version = umtracer_version(m, "Ins/Format/Version");
	out->ins_begin_record_version = umtracer_version(m, "Ins/BeginRecord/Version");
	out->exec_format_version = umtracer_version(m, "Exec/Format/Version");
	out->syscall_table_version = umtracer_version(m, "Exec/SyscallTable/Version");
	return 0;
}

/* ---- the trace's metadata, parsed on first use ------------------------------- */

/* Parses trace.xml: built once per trace through the registry of lazy.c,
 * which remembers a UMT_E_XML failure (the file does not change) and not
 * an allocation failure. */
static int load(const umt_trace *t, void **out)
{
	const struct umt_map *f = &t->files[UMT_FILE_TRACE_XML];
	int rc = umt__lost(t, UMT_FILE_TRACE_XML, UMT_LOC_NONE, 0, 0);
	if (rc < 0)
		return rc;
	if (f->present) {
		umt_meta *m = NULL;
		rc = umt_meta_parse(f->data, f->size, umt_file_name(UMT_FILE_TRACE_XML), &m);
		*out = m;
		return rc;
	}
	*out = meta_alloc(0, 0);
	if (*out == NULL)
		return umt__failf(UMT_E_NOMEM, "trace.xml: out of memory");
	return 0;
}

static void release(void *m)
{
	umt_meta_free(m);
}

static const struct umt_lazy_kind meta_kind = {UMT_LAZY_META, load, release};

int umt_trace_meta(const umt_trace *t, const umt_meta **out)
{
	if (t == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_trace_meta: invalid argument");
	void *m;
	int rc = umt__lazy_get(t, &meta_kind, &m);
	*out = m;
	return rc;
}

int64_t umt__trace_xed_date(const umt_trace *t)
{
	if (t == NULL)
		return -1;
	const umt_meta *m = umt__lazy_peek(t, &meta_kind);
	if (UMT_LIKELY(m != NULL))
		return m->xed_number;
	/* A failed parse must not replace the caller's message: this is a lookup. */
	char saved[512];
	struct umt_loc loc;
	snprintf(saved, sizeof saved, "%s", umt_errmsg());
	umt__last_loc(&loc);
	if (umt_trace_meta(t, &m) < 0 || m == NULL) { /* built, it is never NULL */
		umt__fail_replay(&loc, saved);
		return -1;
	}
	return m->xed_number;
}

/* ---- cross-checks ------------------------------------------------------------ */

/* Compares one version of trace.xml, when present, with a binary header's. */
static int check_version(const umt_meta *m, const char *rest, int32_t have, int file,
                         const char *field)
{
	const struct meta_leaf *l = find_umtracer(m, rest);
	if (l == NULL)
		return 0;
	int64_t v;
	if (!parse_int(l->text, &v, NULL))
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_TRACE_XML, UMT_LOC_NONE, 0, 0,
		                 "%s \"%.64s\" is not a number (%s %s is %d)", l->path, l->text,
		                 umt_file_name(file), field, (int)have);
	if (v != have)
		return umt__fail(UMT_E_CORRUPT, UMT_FILE_TRACE_XML, UMT_LOC_NONE, 0, 0,
		                 "%s is %lld but %s %s is %d", l->path, (long long)v,
		                 umt_file_name(file), field, (int)have);
	return 0;
}

int umt_trace_meta_check(const umt_trace *t)
{
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_trace_meta_check: invalid argument");
	const umt_meta *m;
	int rc = umt_trace_meta(t, &m);
	if (rc < 0)
		return rc;
	if ((rc = check_version(m, "Exec/SyscallTable/Version", t->unified_ids_version,
	                        UMT_FILE_SYSCALL_VTABLE, "UnifiedIDsVer")) < 0 ||
	    (rc = check_version(m, "Exec/Format/Version", t->exec_version, UMT_FILE_EXEC_VTABLE,
	                        "Version")) < 0 ||
	    (rc = check_version(m, "Ins/Format/Version", t->ins.record_ver, UMT_FILE_INS,
	                        "RecordVer")) < 0)
		return rc;
	return 0;
}
