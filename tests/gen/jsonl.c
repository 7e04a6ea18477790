/*
 * A minimal JSON parser for umtgen's truth files (see jsonl.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

struct parser {
	const char *p;
	int depth;
};

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static int value(struct parser *ps, struct jv *out);

static char *string(struct parser *ps)
{
	const char *s = ++ps->p; /* after the quote */
	size_t n = 0;
	char *buf = malloc(strlen(s) + 1);
	if (buf == NULL)
		return NULL;
	while (*s && *s != '"') {
		if (*s == '\\') {
			s++;
			char c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			if (*s == '\0' || *s == 'u') { /* \u escapes are not used by the truth */
				free(buf);
				return NULL;
			}
			buf[n++] = c;
			s++;
			continue;
		}
		buf[n++] = *s++;
	}
	if (*s != '"') {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	ps->p = s + 1;
	return buf;
}

static int grow(struct jv *v, int with_keys)
{
	struct jv *items = realloc(v->items, (size_t)(v->n + 1) * sizeof *items);
	if (items == NULL)
		return -1;
	v->items = items;
	if (with_keys) {
		char **keys = realloc(v->keys, (size_t)(v->n + 1) * sizeof *keys);
		if (keys == NULL)
			return -1;
		v->keys = keys;
	}
	return 0;
}

static int members(struct parser *ps, struct jv *out, int obj)
{
	char close = obj ? '}' : ']';
	ps->p++;
	skip_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (grow(out, obj) < 0)
			return -1;
		if (obj) {
			skip_ws(ps);
			if (*ps->p != '"' || (out->keys[out->n] = string(ps)) == NULL)
				return -1;
			skip_ws(ps);
			if (*ps->p++ != ':')
				return -1;
		}
		memset(&out->items[out->n], 0, sizeof out->items[0]);
		out->n++;
		if (value(ps, &out->items[out->n - 1]) < 0)
			return -1;
		skip_ws(ps);
		if (*ps->p == close) {
			ps->p++;
			return 0;
		}
		if (*ps->p++ != ',')
			return -1;
	}
}

static int value(struct parser *ps, struct jv *out)
{
	memset(out, 0, sizeof *out);
	skip_ws(ps);
	if (++ps->depth > 32)
		return -1;
	int rc = 0;
	char c = *ps->p;
	if (c == '{' || c == '[') {
		out->type = c == '{' ? J_OBJ : J_ARR;
		rc = members(ps, out, c == '{');
	} else if (c == '"') {
		out->type = J_STR;
		rc = (out->text = string(ps)) ? 0 : -1;
	} else if (!strncmp(ps->p, "null", 4)) {
		out->type = J_NULL;
		ps->p += 4;
	} else {
		const char *s = ps->p;
		while (*ps->p && strchr("-+.0123456789eEtruefals", *ps->p))
			ps->p++;
		out->type = (c == 't' || c == 'f') ? J_BOOL : J_NUM;
		out->text = strndup(s, (size_t)(ps->p - s));
		rc = ps->p > s && out->text ? 0 : -1;
	}
	ps->depth--;
	return rc;
}

int json_parse(const char *text, struct jv *out)
{
	struct parser ps = {text, 0};
	if (value(&ps, out) < 0) {
		json_free(out);
		return -1;
	}
	skip_ws(&ps);
	return *ps.p == '\0' ? 0 : (json_free(out), -1);
}

long json_each_line(const char *path, void (*fn)(const struct jv *v, void *arg), void *arg)
{
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	long n = 0;
	while (getline(&line, &cap, f) > 0) {
		struct jv v;
		if (json_parse(line, &v) < 0) {
			n = -1;
			break;
		}
		fn(&v, arg);
		json_free(&v);
		n++;
	}
	free(line);
	fclose(f);
	return n;
}

void json_free(struct jv *v)
{
	for (int i = 0; i < v->n; i++) {
		json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->text);
	memset(v, 0, sizeof *v);
}

const struct jv *json_get(const struct jv *obj, const char *key)
{
	if (obj == NULL || obj->type != J_OBJ)
		return NULL;
	for (int i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

int json_u64(const struct jv *obj, const char *key, uint64_t *out)
{
	const struct jv *v = json_get(obj, key);
	if (v == NULL || (v->type != J_NUM && v->type != J_STR) || v->text == NULL)
		return -1;
	char *end;
	*out = strtoull(v->text, &end, v->type == J_STR ? 16 : 10);
	return *end == '\0' && end != v->text ? 0 : -1;
}

static int nibble(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

long json_hex(const char *s, uint8_t *out, long cap)
{
	long n = 0;
	for (; s[0] && s[1]; s += 2) {
		int hi = nibble(s[0]), lo = nibble(s[1]);
		if (hi < 0 || lo < 0 || n == cap)
			return -1;
		out[n++] = (uint8_t)(hi << 4 | lo);
	}
	return *s ? -1 : n;
}
