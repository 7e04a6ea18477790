/*
 * A minimal JSON parser for the tests of umtgen's truth files: one value per
 * line (objects, arrays, strings without \u escapes beyond ASCII, numbers
 * kept as text, true, false, null).
 */
#ifndef UMT_TEST_JSONL_H
#define UMT_TEST_JSONL_H

#include <stdint.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	int type;
	char *text;       /* J_STR: the string; J_NUM, J_BOOL: the literal */
	struct jv *items; /* J_ARR, J_OBJ */
	char **keys;      /* J_OBJ */
	int n;
};

/* Parses @p text into @p out. @return 0, or -1 for bad JSON. */
int json_parse(const char *text, struct jv *out);
void json_free(struct jv *v);
/*
 * Calls @p fn with each line of the JSON Lines file @p path, parsed (freed after the call),
 * and @p arg. @return the number of lines; -1 when the file cannot be read or a line is not
 * JSON (the lines before it were passed to @p fn).
 */
long json_each_line(const char *path, void (*fn)(const struct jv *v, void *arg), void *arg);
/* Member @p key of an object, or NULL. */
const struct jv *json_get(const struct jv *obj, const char *key);
/* A number member (or a "0x..." string member) as an unsigned value; -1 on NULL or null. */
int json_u64(const struct jv *obj, const char *key, uint64_t *out);
/* Hex bytes "0a1b..." into @p out (at most @p cap); @return the count, or -1. */
long json_hex(const char *s, uint8_t *out, long cap);

#endif
