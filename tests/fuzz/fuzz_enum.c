/*
 * Fuzz target: the enum header loader. Byte 0 of the input picks the type
 * name asked for, the rest is C header text for umt_enum_parse(). Every
 * constant is then looked up both ways. Invariants: at least one constant;
 * the prefix ends in '_' and is shorter than every name; each whole name
 * (prefix + name) maps back to its own value; the name found for a value
 * maps back to that value; values outside [min, max] have no name; a
 * failure is a documented code with a "file: line N: " message.
 */
#include <string.h>

#include "fuzz.h"
#include "umtrace/umtrace.h"

static const char *const type_names[FUZZ_ENUM_TYPES] = {
	NULL, "xed_reg_enum_t", "xed_iclass_enum_t", "xed_iform_enum_t",
	"xed_category_enum_t", "_SYSCALL_UNIFIED_ID_V0", "Mode", "shape_tag",
};

/* Value of @p prefix followed by @p name. */
static int whole_value(const umt_enum *e, const char *prefix, const char *name, int64_t *v)
{
	size_t np = strlen(prefix), nn = strlen(name);
	char *whole = malloc(np + nn + 1);
	FUZZ_CHECK(whole != NULL);
	memcpy(whole, prefix, np);
	memcpy(whole + np, name, nn + 1);
	int rc = umt_enum_value(e, whole, v);
	free(whole);
	return rc;
}

static void walk(const umt_enum *e)
{
	size_t n = umt_enum_count(e);
	FUZZ_CHECK(n > 0);
	const char *prefix = umt_enum_prefix(e);
	FUZZ_CHECK(prefix != NULL);
	size_t np = strlen(prefix);
	FUZZ_CHECK(np == 0 || prefix[np - 1] == '_');
	int64_t min = INT64_MAX, max = INT64_MIN;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		int64_t value, v;
		FUZZ_CHECK(umt_enum_entry(e, i, &name, &value) == 0);
		FUZZ_CHECK(name != NULL && name[0] != '\0');
		min = value < min ? value : min;
		max = value > max ? value : max;
		/* whole names are unique and tried first */
		FUZZ_CHECK(whole_value(e, prefix, name, &v) == 0 && v == value);
		FUZZ_CHECK(umt_enum_value(e, name, &v) == 0);
		/* a name found by value maps back to the value */
		const char *by_value = umt_enum_name(e, value);
		FUZZ_CHECK(by_value != NULL);
		FUZZ_CHECK(whole_value(e, prefix, by_value, &v) == 0 && v == value);
	}
	FUZZ_CHECK(umt_enum_entry(e, n, NULL, NULL) == UMT_E_RANGE);
	if (min > INT64_MIN)
		FUZZ_CHECK(umt_enum_name(e, min - 1) == NULL);
	if (max < INT64_MAX)
		FUZZ_CHECK(umt_enum_name(e, max + 1) == NULL);
	int64_t v;
	FUZZ_CHECK(umt_enum_value(e, NULL, &v) == UMT_E_INVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *type = type_names[data[0] % FUZZ_ENUM_TYPES];
	size--;
	/* an exact-size copy, freed before the walk: names must not point into it */
	char *text = malloc(size ? size : 1);
	FUZZ_CHECK(text != NULL);
	memcpy(text, data + 1, size);
	umt_enum *e = NULL;
	int rc = umt_enum_parse(text, size, "fuzz.h", type, &e);
	free(text);
	if (rc < 0) {
		FUZZ_CHECK(e == NULL);
		FUZZ_CHECK(rc == UMT_E_CORRUPT || rc == UMT_E_NOT_FOUND || rc == UMT_E_NOMEM);
		if (rc == UMT_E_CORRUPT)
			FUZZ_CHECK(strncmp(umt_errmsg(), "fuzz.h: line ", 13) == 0);
		return 0;
	}
	walk(e);
	umt_enum_free(e);
	return 0;
}
