/* A program built against an installed libumtrace: counts a trace's records. */
#include <stdio.h>

#include <umtrace/umtrace.h>

int main(int argc, char **argv)
{
	umt_trace *t;
	if (argc != 2 || umt_trace_open(argv[1], 0, &t) < 0) {
		fprintf(stderr, "consumer: %s\n", argc == 2 ? umt_errmsg() : "usage: consumer TRACE");
		return 1;
	}
	printf("libumtrace %s: %llu records\n", umt_version(), (unsigned long long)umt_exec_count(t));
	umt_trace_close(t);
	return 0;
}
