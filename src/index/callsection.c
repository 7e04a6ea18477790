/*
 * libumtrace - the calls section's table of hooks (section.h), which the
 * registry (sections.c) lists: its files, its part of the build, its open
 * (callopen.c) and its check (callverify.c). Apart from them, so that the
 * files of the section do not depend on each other in a circle.
 */
#include "calls.h"

static const char *const calls_files[] = {UMT_IX_CALLS_TAB, UMT_IX_CALLS_THR, UMT_IX_CALLS_TGT,
                                           UMT_IX_CALLS_BYT, NULL};

const struct ix_section umt__ix_calls_section = {
	.name = "calls",
	.bit = UMT_IX_CALLS_BIT,
	.files = calls_files,
	.range_begin = umt__ix_calls_range_begin,
	.record = umt__ix_calls_record,
	.range_end = umt__ix_calls_range_end,
	.assemble = umt__ix_calls_assemble,
	.free_state = umt__ix_calls_free_state,
	.open = umt__ix_calls_open,
	.close = umt__ix_calls_close,
	.verify = umt__ix_calls_verify,
};
