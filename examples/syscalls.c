/*
 * syscalls: a timeline of the system calls of each thread, with their
 * arguments, results, duration in records and how they ended.
 *
 *   syscalls TRACE_DIR [NAMES_DIR]
 *
 * With NAMES_DIR (holding syscall_unified_id_v*.h), calls are named.
 */
#include <inttypes.h>
#include <stdio.h>

#include <umtrace/umtrace.h>

/* One call, from its entry record. */
static int print_call(const umt_trace *t, const umt_rec *entry, const umt_names *names,
                      int ids_version)
{
	umt_syscall s;
	int rc = umt_rec_syscall(t, entry, &s);
	if (rc < 0)
		return rc;
	const char *name = names ? umt_names_syscall(names, ids_version, s.rec->UniformID) : NULL;
	printf("  %8" PRIu64 "  ", entry->id);
	if (name)
		printf("%s(", name);
	else
		printf("syscall#%d(", s.rec->UniformID);
	for (unsigned i = 0; i < s.rec->ArgCount; i++) {
		uint64_t v;
		umt_syscall_arg(&s, i, &v);
		printf("%s0x%" PRIx64, i ? ", " : "", v);
	}
	printf(")");
	if (s.rec->EndEID < 0)
		printf(" still running when the trace ends\n");
	else if (s.rec->Completed)
		printf(" = 0x%" PRIx64 "  [%" PRId64 " records]\n", (uint64_t)s.rec->Result,
		       s.rec->EndEID - s.rec->BeginEID);
	else
		printf(" skipped at record %" PRId64 "  [%" PRId64 " records]\n", s.rec->EndEID,
		       s.rec->EndEID - s.rec->BeginEID);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: syscalls TRACE_DIR [NAMES_DIR]\n");
		return 2;
	}
	umt_trace *t;
	umt_names *names = NULL;
	if (umt_trace_open(argv[1], 0, &t) < 0 ||
	    (argc == 3 && umt_names_load_dir(argv[2], &names) < 0)) {
		fprintf(stderr, "syscalls: %s\n", umt_errmsg());
		return 1;
	}
	umt_trace_info info;
	umt_trace_get_info(t, &info);
	int status = 0;
	for (uint64_t th = 0; th < umt_thread_count(t); th++) {
		const umt_thread_rec *row;
		umt_thread_get(t, th, &row);
		printf("thread %" PRIu64 " (Windows TID %d)\n", th, row->WinTID);
		umt_thread_iter it;
		umt_rec r;
		int rc;
		if (umt_thread_iter_init_thread(&it, t, th) < 0) {
			fprintf(stderr, "syscalls: %s\n", umt_errmsg());
			status = 1;
			continue;
		}
		while ((rc = umt_thread_iter_next(&it, &r)) == 1)
			if (r.type == UMT_REC_SYSCALL_ENTRY &&
			    print_call(t, &r, names, info.unified_ids_version) < 0) {
				fprintf(stderr, "syscalls: %s\n", umt_errmsg());
				status = 1;
			}
		if (rc < 0) {
			fprintf(stderr, "syscalls: %s\n", umt_errmsg());
			status = 1;
		}
	}
	umt_names_free(names);
	umt_trace_close(t);
	return status;
}
