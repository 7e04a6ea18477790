/*
 * modules: instructions executed per module.
 *
 *   modules TRACE_DIR
 */
#include <stdio.h>
#include <stdlib.h>

#include <umtrace/umtrace.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: modules TRACE_DIR\n");
		return 2;
	}
	umt_trace *t;
	if (umt_trace_open(argv[1], 0, &t) < 0) {
		fprintf(stderr, "modules: %s\n", umt_errmsg());
		return 1;
	}
	uint64_t count = umt_module_count(t), floating = 0, bad = 0;
	uint64_t *executed = calloc(count + 1, sizeof *executed);
	umt_exec_iter it;
	umt_rec r;
	int rc;
	umt_exec_iter_init(&it, t, 0, UINT64_MAX);
	while ((rc = umt_exec_iter_next(&it, &r)) != 0) {
		int64_t ins_id;
		uint64_t module;
		if (rc < 0 || r.type != UMT_REC_INSTRUCTION) {
			bad += rc < 0;
			continue;
		}
		umt_rec_ins(&r, &ins_id, NULL, NULL);
		int found = ins_id < 0 ? UMT_E_RANGE : umt_ins_module(t, (uint64_t)ins_id, &module);
		if (found == 0)
			executed[module]++;
		else if (found == UMT_E_NOT_FOUND) /* ModuleID -1: code outside any module */
			floating++;
		else
			bad++;
	}
	printf("%12s  %-8s %s\n", "INSTRUCTIONS", "MODULE", "NAME");
	for (uint64_t m = 0; m < count; m++) {
		char name[1024];
		if (umt_module_name(t, m, UMT_MODULE_WIN_NAME, name, sizeof name) < 0)
			snprintf(name, sizeof name, "(unreadable name: %s)", umt_errmsg());
		printf("%12llu  %-8llu %s\n", (unsigned long long)executed[m], (unsigned long long)m,
		       name);
	}
	printf("%12llu  %-8s %s\n", (unsigned long long)floating, "-", "(outside any module)");
	if (bad)
		fprintf(stderr, "modules: %llu records could not be read\n", (unsigned long long)bad);
	free(executed);
	umt_trace_close(t);
	return bad ? 1 : 0;
}
