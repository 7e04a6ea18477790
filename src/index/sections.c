/*
 * libumtrace - the registry of the index's sections (section.h): the build,
 * the open and verify go through it. Sections are added here, one line
 * each, in bit order.
 */
#include "calls.h"
#include "coverage.h"
#include "regs.h"

const struct ix_section *const umt__ix_sections[] = {
	&umt__ix_regs_section,     /* bit 1: register checkpoints (regs.h) */
	&umt__ix_calls_section,    /* bit 2: calls and their returns (calls.h) */
	&umt__ix_coverage_section, /* bit 3: executed instructions per module (coverage.h) */
	NULL,
};
