/*
 * insmix: the instruction mix of a trace, by mnemonic and by category.
 *
 *   insmix TRACE_DIR [XED_DIR]
 *
 * With XED_DIR (the XED enum headers of the format documentation), numbers
 * are shown with their names.
 */
#include <stdio.h>
#include <stdlib.h>

#include <umtrace/umtrace.h>

#define VALUES 65536 /* Mnemonic and Category are 16-bit */

struct count {
	int value;
	uint64_t n;
};

static int by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n ? 1 : -1) : x->value - y->value;
}

/* Prints the non-zero entries of @p n, most frequent first. */
static void print(const char *title, uint64_t *n, uint64_t total, const umt_names *names,
                  const char *(*name)(const umt_names *, int))
{
	struct count *c = malloc(VALUES * sizeof *c);
	int k = 0;
	for (int v = 0; v < VALUES; v++)
		if (n[v])
			c[k++] = (struct count){v - 32768, n[v]};
	qsort(c, (size_t)k, sizeof *c, by_count);
	printf("%s\n", title);
	for (int i = 0; i < k; i++) {
		const char *s = names ? name(names, c[i].value) : NULL;
		printf("  %10llu %6.2f%%  %-6d %s\n", (unsigned long long)c[i].n,
		       100.0 * (double)c[i].n / (double)total, c[i].value, s ? s : "");
	}
	free(c);
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: insmix TRACE_DIR [XED_DIR]\n");
		return 2;
	}
	umt_trace *t;
	umt_names *names = NULL;
	if (umt_trace_open(argv[1], 0, &t) < 0 ||
	    (argc == 3 && umt_names_load_dir(argv[2], &names) < 0)) {
		fprintf(stderr, "insmix: %s\n", umt_errmsg());
		return 1;
	}
	uint64_t *mnemonic = calloc(VALUES, sizeof *mnemonic);
	uint64_t *category = calloc(VALUES, sizeof *category);
	if (mnemonic == NULL || category == NULL) {
		fprintf(stderr, "insmix: out of memory\n");
		return 1;
	}
	uint64_t total = 0, bad = 0;
	umt_exec_iter it;
	umt_rec r;
	int rc;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		int64_t ins_id;
		umt_decoded d;
		if (rc < 0 || r.type != UMT_REC_INSTRUCTION ||
		    umt_rec_ins(&r, &ins_id, NULL, NULL) < 0 || ins_id < 0 ||
		    umt_ins_decoded(t, (uint64_t)ins_id, &d) < 0) {
			if (rc < 0 || r.type == UMT_REC_INSTRUCTION) {
				fprintf(stderr, "insmix: %s\n", umt_errmsg());
				bad++;
			}
			continue;
		}
		mnemonic[d.ins->Mnemonic + 32768]++;
		category[d.ins->Category + 32768]++;
		total++;
	}
	printf("%llu instruction records\n", (unsigned long long)total);
	print("by mnemonic:", mnemonic, total, names, umt_names_mnemonic);
	print("by category:", category, total, names, umt_names_category);
	free(mnemonic);
	free(category);
	umt_names_free(names);
	umt_trace_close(t);
	return bad ? 1 : 0;
}
