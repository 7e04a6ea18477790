/* What the Python side needs to know about the library it was built with. */
#include "umtpy.h"

const uint8_t *umtpy_records_base(const umt_trace *t)
{
	umt_exec_iter it;
	if (umt_exec_iter_init(&it, t, 0, 0) < 0)
		return NULL;
	return it.records;
}
