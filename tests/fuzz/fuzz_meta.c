/*
 * Fuzz target: trace.xml. The input is the file; umt_meta_parse() reads
 * it (either layout), then every leaf, lookup and derived value is walked.
 * Invariants: the leaf count equals the length of the leaf iteration; each
 * leaf's path finds a leaf at or before it; umt_meta_get_info()'s strings
 * are those of umt_meta_get(); the layout is one of the two real ones; a
 * second parse gives the same leaves; a failure is UMT_E_XML (or
 * UMT_E_NOMEM) with a message naming the input.
 */
#include <string.h>

#include "fuzz.h"
#include "fuzz_xml.h"
#include "umtrace/umtrace.h"

/* The index of @p text among the leaves' texts, or the count when none. */
static size_t leaf_of_text(const umt_meta *m, const char *text)
{
	size_t n = umt_meta_leaf_count(m);
	for (size_t i = 0; i < n; i++) {
		const char *tx;
		FUZZ_CHECK(umt_meta_leaf(m, i, NULL, &tx) == 0);
		if (tx == text)
			return i;
	}
	return n;
}

/* @p s is NULL or the text umt_meta_get() gives for @p path. */
static void same_as_get(const umt_meta *m, const char *s, const char *path)
{
	FUZZ_CHECK(s == NULL || s == umt_meta_get(m, path));
}

static void check_info(const umt_meta *m)
{
	umt_meta_info i;
	FUZZ_CHECK(umt_meta_get_info(m, &i) == 0);
	FUZZ_CHECK(i.layout == umt_meta_layout(m));
	FUZZ_CHECK(i.xed_version == umt_meta_get(m, "Xed/Version"));
	same_as_get(m, i.process_id, "App/ProcessID");
	same_as_get(m, i.app_command_line, "App/CommandLine");
	same_as_get(m, i.pin_version, "Pin/Version");
	same_as_get(m, i.os_name, "OS/Name");
	FUZZ_CHECK(i.bitness == -1 || i.bitness == 32 || i.bitness == 64);
	FUZZ_CHECK(i.has_xmm >= -1 && i.has_xmm <= 1 && i.has_ymm >= -1 && i.has_ymm <= 1 &&
	           i.has_zmm >= -1 && i.has_zmm <= 1);
	FUZZ_CHECK(i.pid >= -1);
	if (i.xed_date != -1)
		FUZZ_CHECK(i.xed_date >= 19000000 && i.xed_number == i.xed_date && !i.xed_is_pin_build);
	if (i.xed_is_pin_build)
		FUZZ_CHECK(i.xed_number >= 0 && i.xed_number < 19000000 && i.xed_date == -1);
	if (i.xed_version == NULL)
		FUZZ_CHECK(i.xed_number == -1);
	/* the version-dependent registers follow the version */
	for (int which = UMT_SPECIAL_STACKPUSH; which <= UMT_SPECIAL_GSBASE; which++)
		FUZZ_CHECK(umt_xed_reg_name(i.xed_number, umt_xed_special_reg(i.xed_number, which)));
}

static void walk(const umt_meta *m)
{
	int layout = umt_meta_layout(m);
	FUZZ_CHECK(layout == UMT_META_ROOTLESS || layout == UMT_META_2015);
	size_t n = umt_meta_leaf_count(m);
	for (size_t i = 0; i < n; i++) {
		const char *path, *text;
		FUZZ_CHECK(umt_meta_leaf(m, i, &path, &text) == 0);
		FUZZ_CHECK(path != NULL && text != NULL && path[0] == '/');
		/* the first leaf at this path, which may be this one */
		const char *got = umt_meta_get(m, path);
		FUZZ_CHECK(got != NULL && leaf_of_text(m, got) <= i);
		FUZZ_CHECK(umt_meta_get(m, path + 1) == got);
	}
	FUZZ_CHECK(umt_meta_leaf(m, n, NULL, NULL) == UMT_E_RANGE);
	FUZZ_CHECK(umt_meta_get(m, NULL) == NULL);
	check_info(m);
}

/* Two parses of one input give the same leaves. */
static void same_leaves(const umt_meta *a, const umt_meta *b)
{
	size_t n = umt_meta_leaf_count(a);
	FUZZ_CHECK(umt_meta_leaf_count(b) == n && umt_meta_layout(a) == umt_meta_layout(b));
	for (size_t i = 0; i < n; i++) {
		const char *pa, *ta, *pb, *tb;
		FUZZ_CHECK(umt_meta_leaf(a, i, &pa, &ta) == 0 && umt_meta_leaf(b, i, &pb, &tb) == 0);
		FUZZ_CHECK(strcmp(pa, pb) == 0 && strcmp(ta, tb) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_forbid_xml_print();
	/* an exact-size copy: a read past its end is caught by AddressSanitizer,
	 * and freeing it before the walk catches a leaf left pointing into it */
	char *xml = malloc(size ? size : 1);
	FUZZ_CHECK(xml != NULL);
	memcpy(xml, data, size);
	umt_meta *m = NULL, *again = NULL;
	int rc = umt_meta_parse(xml, size, "fuzz.xml", &m);
	if (rc < 0) {
		FUZZ_CHECK(m == NULL);
		FUZZ_CHECK(rc == UMT_E_XML || rc == UMT_E_NOMEM);
		if (rc == UMT_E_XML)
			FUZZ_CHECK(strncmp(umt_errmsg(), "fuzz.xml: ", 10) == 0);
		free(xml);
		return 0;
	}
	int rc2 = umt_meta_parse(xml, size, NULL, &again);
	FUZZ_CHECK(rc2 == 0 || rc2 == UMT_E_NOMEM);
	free(xml);
	walk(m);
	if (rc2 == 0)
		same_leaves(m, again);
	umt_meta_free(again);
	umt_meta_free(m);
	return 0;
}
