/*
 * umtdump - finding and opening the trace's index, for the commands that
 * answer from it (history, mem, state...), and checking the operands and
 * options they take (addresses, --at, --thread).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "umtdump.h"

bool parse_address(const char *s, uint64_t *out)
{
	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end || (s[0] == '0' && s[1] != 'x' && s[1] != 'X' && s[1] != '\0'))
		return false; /* a leading 0 would be octal to strtoull: refuse it */
	*out = v;
	return true;
}

bool parse_range(const char *arg, uint64_t *address, uint64_t *length)
{
	char buf[64];
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	*length = 1;
	if (!parse_address(buf, address) || (colon && !parse_address(colon + 1, length)))
		return false;
	return *length > 0 && *address + (*length - 1) >= *address;
}

int open_index(const umt_trace *t, const struct opts *o, umt_index **out)
{
	char dir[PATH_MAX];
	const char *where = o->index_dir;
	if (where == NULL) {
		if (umt_index_default_dir(o->trace_dir, dir, sizeof dir) < 0) {
			report_error(-1);
			return EXIT_BAD_TRACE;
		}
		where = dir;
	}
	int rc = umt_index_open(t, where, out);
	if (rc == 0)
		return 0;
	report_error(rc);
	if (rc == UMT_E_MISSING || rc == UMT_E_INCOMPLETE || rc == UMT_E_STALE)
		report("build the index first: umtdump index%s%s %s", o->index_dir ? " --out " : "",
		       o->index_dir ? o->index_dir : "", o->trace_dir);
	return EXIT_BAD_TRACE;
}

int open_list_index(const umt_trace *t, const struct opts *o, umt_index **out)
{
	*out = NULL;
	return o->has_count && o->count == 0 ? EXIT_OK : open_index(t, o, out);
}

bool at_given(const struct opts *o, const char *cmd)
{
	if (!o->has_at)
		report("%s needs --at ID", cmd);
	return o->has_at;
}

bool at_exists(const umt_trace *t, const struct opts *o)
{
	if (o->at < umt_exec_count(t))
		return true;
	report("--at %llu: no such record (%llu records)", (unsigned long long)o->at,
	       (unsigned long long)umt_exec_count(t));
	return false;
}

int thread_status(const umt_trace *t, const struct opts *o)
{
	const umt_thread_rec *row;
	int rc = o->thread >= 0 ? umt_thread_get(t, (uint64_t)o->thread, &row) : 0;
	if (rc == UMT_E_RANGE) {
		report("--thread %lld: no such thread (%llu threads)", (long long)o->thread,
		       (unsigned long long)umt_thread_count(t));
		return EXIT_USAGE;
	}
	if (rc < 0) { /* its row was lost at open (--salvage) */
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	return EXIT_OK;
}

int query_failed(umt_index *ix, int rc)
{
	report_error(rc);
	umt_index_close(ix);
	return rc == UMT_E_NOT_FOUND ? EXIT_USAGE : EXIT_BAD_TRACE;
}
