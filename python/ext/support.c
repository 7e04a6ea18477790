/* What the Python side needs to know about the library it was built with. */
#include "umtpy.h"

const uint8_t *umtpy_records_base(const umt_trace *t)
{
	umt_exec_iter it;
	if (umt_exec_iter_init(&it, t, 0, 0) < 0)
		return NULL;
	return it.records;
}

unsigned umtpy_open_salvage_flag(void)
{
/* The build defines UMTPY_HAVE_SALVAGE when umtrace.h declares the salvage
 * mode (issue 11, section 2): an enum constant cannot be tested with #ifdef. */
#ifdef UMTPY_HAVE_SALVAGE
	return UMT_OPEN_SALVAGE;
#else
	return 0;
#endif
}
