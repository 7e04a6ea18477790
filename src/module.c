/*
 * libumtrace - module.itable: module rows, UTF-16 names, lookup by address and time.
 */
#include "internal.h"

void umt__module_release(umt_trace *t)
{
	(void)t;
}
