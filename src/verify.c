/*
 * libumtrace - umt_verify(): the deep O(n) consistency check.
 * (Placeholder until the check lands: reports nothing.)
 */
#include "internal.h"

void umt_verify_options_init(umt_verify_options *o)
{
	memset(o, 0, sizeof *o);
	o->checks = UMT_CHECK_ALL;
	o->max_problems = 1000;
}

int umt_verify(const umt_trace *t, const umt_verify_options *o, umt_verify_result *out)
{
	(void)o;
	if (t == NULL)
		return umt__failf(UMT_E_INVAL, "umt_verify: invalid argument");
	if (out)
		memset(out, 0, sizeof *out);
	return 0;
}
