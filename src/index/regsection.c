/*
 * libumtrace - the register section's table of hooks (section.h), which the
 * registry (sections.c) lists: its files, its part of the build (regbuild.c,
 * regassemble.c), its open (regopen.c) and its check (regverify.c).
 */
#include "regs.h"

static const char *const regs_files[] = {UMT_IX_REGS_DIR, UMT_IX_REGS_CKPT, NULL};

const struct ix_section umt__ix_regs_section = {
	.name = "registers",
	.bit = UMT_IX_REGS_BIT,
	.files = regs_files,
	.build_begin = umt__regs_build_begin,
	.build_end = umt__regs_build_end,
	.range_begin = umt__regs_range_begin,
	.record = umt__regs_record,
	.range_end = umt__regs_range_end,
	.assemble = umt__regs_assemble,
	.free_state = umt__regs_free_state,
	.open = umt__regs_open,
	.close = umt__regs_close,
	.verify = umt__regs_verify,
};
