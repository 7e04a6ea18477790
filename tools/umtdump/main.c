/*
 * umtdump - inspect every part of a UMTracer indexed trace.
 *
 *   umtdump [GLOBAL OPTIONS] COMMAND [OPTIONS] TRACE_DIR
 *
 * main.c parses the command line and dispatches to one file per command;
 * out.c writes JSON Lines and errors.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

struct command {
	const char *name;
	int (*run)(umt_trace *t, const struct opts *o);
	const char *summary;
};

static const struct command commands[] = {
	{"info", cmd_info, "counts of every table, format versions, file sizes"},
	{"exec", cmd_exec, "execution records, one per line"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
	fprintf(f, "usage: umtdump [--json] [--quiet] [--keep-going] [--xed-dir DIR] COMMAND "
	           "[OPTIONS] TRACE_DIR\n\ncommands:\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nexec options: --from ID, --to ID, --count N, --thread TID, "
	           "--type NAME[,NAME]\n\nglobal options:\n"
	           "  --json          JSON Lines on stdout, one object per record or row\n"
	           "  --keep-going    report a bad record on stderr and continue\n"
	           "  --quiet         no progress or notes\n"
	           "  --xed-dir DIR   XED and syscall enum headers (or UMT_XED_DIR)\n"
	           "  --help, --version\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (s == NULL || *s == '\0' || *s == '-')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

static bool parse_types(const char *list, uint32_t *mask)
{
	char buf[256];
	if (strlen(list) >= sizeof buf)
		return false;
	strcpy(buf, list);
	for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		int type = umt_rec_type_from_name(tok);
		if (type < 0)
			return false;
		*mask |= 1u << type;
	}
	return *mask != 0;
}

/* Consumes the value of option argv[*i]; NULL (and an error) when missing. */
static const char *value_of(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc) {
		report("option %s needs a value", argv[*i]);
		return NULL;
	}
	return argv[++*i];
}

/* Parses one option at argv[*i]; returns 0, or EXIT_USAGE. */
static int parse_option(int argc, char **argv, int *i, struct opts *o)
{
	const char *a = argv[*i], *v;
	uint64_t n;
	if (!strcmp(a, "--json")) {
		o->json = true;
	} else if (!strcmp(a, "--quiet")) {
		o->quiet = true;
	} else if (!strcmp(a, "--keep-going")) {
		o->keep_going = true;
	} else if (!strcmp(a, "--xed-dir")) {
		if ((o->xed_dir = value_of(argc, argv, i)) == NULL)
			return EXIT_USAGE;
	} else if (!strcmp(a, "--from") || !strcmp(a, "--to") || !strcmp(a, "--count") ||
	           !strcmp(a, "--thread") || !strcmp(a, "--id")) {
		if ((v = value_of(argc, argv, i)) == NULL)
			return EXIT_USAGE;
		if (!parse_u64(v, &n)) {
			report("%s: not a number: %s", a, v);
			return EXIT_USAGE;
		}
		if (!strcmp(a, "--from"))
			o->from = n;
		else if (!strcmp(a, "--to"))
			o->to = n, o->has_to = true;
		else if (!strcmp(a, "--count"))
			o->count = n, o->has_count = true;
		else if (!strcmp(a, "--thread"))
			o->thread = (int64_t)n;
		else
			o->ins_id = (int64_t)n;
	} else if (!strcmp(a, "--type")) {
		if ((v = value_of(argc, argv, i)) == NULL)
			return EXIT_USAGE;
		if (!parse_types(v, &o->types)) {
			report("--type: unknown record type in %s", v);
			return EXIT_USAGE;
		}
	} else if (!strcmp(a, "--operands")) {
		o->operands = true;
	} else if (!strcmp(a, "--context")) {
		o->context = true;
	} else {
		report("unknown option %s (see umtdump --help)", a);
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {.thread = -1, .ins_id = -1, .xed_dir = getenv("UMT_XED_DIR")};
	const struct command *cmd = NULL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return EXIT_OK;
		}
		if (!strcmp(a, "--version")) {
			printf("umtdump (libumtrace) %s\n", umt_version());
			return EXIT_OK;
		}
		if (a[0] == '-' && a[1] != '\0') {
			int rc = parse_option(argc, argv, &i, &o);
			if (rc)
				return rc;
		} else if (cmd == NULL) {
			for (size_t c = 0; c < COMMAND_COUNT; c++)
				if (!strcmp(commands[c].name, a))
					cmd = &commands[c];
			if (cmd == NULL) {
				report("unknown command %s (see umtdump --help)", a);
				return EXIT_USAGE;
			}
		} else if (o.trace_dir == NULL) {
			o.trace_dir = a;
		} else {
			report("unexpected argument %s", a);
			return EXIT_USAGE;
		}
	}
	if (cmd == NULL || o.trace_dir == NULL) {
		usage(stderr);
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE: end quietly */
	umt_trace *t;
	int rc = umt_trace_open(o.trace_dir, 0, &t);
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	int status = cmd->run(t, &o);
	umt_trace_close(t);
	if (fflush(stdout) != 0 && !out_closed()) {
		report("cannot write the output: %s", strerror(errno));
		return EXIT_BAD_TRACE;
	}
	return status;
}
