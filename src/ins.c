/*
 * libumtrace - ins.itable: instruction rows, disassembly strings, decoded instructions and LC slots.
 */
#include "internal.h"

void umt__ins_release(umt_trace *t)
{
	(void)t;
}
