/*
 * umtdump - finding and opening the trace's index, for the commands that
 * answer from it (history, mem), and the address operands they take.
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
