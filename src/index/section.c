/*
 * libumtrace - the registry of the index's sections (section.h). Only the
 * registry: it refers to every section, so what the sections use of the
 * build (umt__ixb_create(), umt__ixb_file_header()) lives in workers.c,
 * and no section depends back on this file.
 */
#include "coverage.h"

/* Sections are added here, one line each, in bit order. */
const struct ix_section *const umt__ix_sections[] = {
	&umt__ix_coverage_section, /* bit 3: executed instructions per module (coverage.h) */
	NULL,
};
