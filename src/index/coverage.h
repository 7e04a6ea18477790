/*
 * libumtrace - the coverage section of the index (bit 3): which instruction
 * addresses each module executed and how often (docs/index-format.md,
 * "Coverage"; index.h section 10).
 *
 * One file, cov.table: its 64-byte header (magic UMTIXCOV), one entry per
 * module row of the trace and one for code outside modules (last), then
 * the executed addresses of every entry, entry by entry, each entry's in
 * increasing order. Layouts are asserted here like ixformat.h's.
 *
 * Which module a record executed in: its instruction row's ModuleID when
 * it names one (the tracer set it when it instrumented the code: it holds
 * for every record of the row, umtrace.h section 11); for a row of
 * floating code (ModuleID -1), the module umt_module_find() gives for the
 * row's address at the record (code written into a module's memory, guide
 * section 7), else the floating entry.
 */
#ifndef UMTRACE_IX_COVERAGE_H
#define UMTRACE_IX_COVERAGE_H

#include "section.h"

#define UMT_IX_COV_BIT 3u
#define UMT_IX_COV_FILE "cov.table"
#define UMT_IX_COV_MAGIC "UMTIXCOV"

#pragma pack(push, 1)

/** An entry of cov.table: one module row, or code outside modules (48 bytes). */
typedef struct umt_ix_cov_module {
	int64_t ModuleID;    /* the row; -1 for the last entry (code outside modules) */
	uint64_t Base;       /* the row's StartAddr; 0 for code outside modules */
	uint64_t First;      /* index of its first address entry */
	uint64_t Addresses;  /* its address entries */
	uint64_t Executions; /* instruction records executed in it */
	uint64_t Zero;
} umt_ix_cov_module;
UMT_ASSERT_OFFSET(umt_ix_cov_module, First, 16);
UMT_ASSERT_OFFSET(umt_ix_cov_module, Executions, 32);
UMT_ASSERT_SIZE(umt_ix_cov_module, 48);

/** An executed instruction address of cov.table (24 bytes). */
typedef struct umt_ix_cov_address {
	uint64_t Address;    /* the instruction row's Address */
	uint64_t Executions; /* instruction records of this entry at this address */
	uint8_t Size;        /* CodeSize of the rows there (the largest when they differ) */
	uint8_t Zero[7];
} umt_ix_cov_address;
UMT_ASSERT_OFFSET(umt_ix_cov_address, Executions, 8);
UMT_ASSERT_OFFSET(umt_ix_cov_address, Size, 16);
UMT_ASSERT_SIZE(umt_ix_cov_address, 24);

#pragma pack(pop)

/* The info block's words (SectionInfo[2]). */
enum { COV_INFO_ENTRIES = 0, COV_INFO_ADDRESSES = 1, COV_INFO_EXECUTIONS = 2 };

/** The section, for section.c's registry. */
UMT_HIDDEN extern const struct ix_section umt__ix_coverage_section;

/** What an open index keeps of the section (ix->section_data[UMT_IX_COV_BIT]). */
struct cov_data {
	struct umt_map map;
	const umt_ix_cov_module *modules; /* entries (unaligned access through memcpy) */
	uint64_t entries;
	const umt_ix_cov_address *addresses;
	uint64_t addresses_count;
};

/* covquery.c: the section of an open index (its open, close and verify hooks) */
UMT_HIDDEN int umt__cov_open(umt_index *ix, const struct ix_source *src,
                             const uint64_t info[UMT_IX_INFO_WORDS]);
UMT_HIDDEN void umt__cov_close(umt_index *ix);
UMT_HIDDEN int umt__cov_verify(const umt_index *ix);

/** The section of an open index: 0 and *out, or UMT_E_INVAL / UMT_E_MISSING. */
UMT_HIDDEN int umt__cov_data(const umt_index *ix, const char *fn, const struct cov_data **out);

/**
 * The coverage entry of instruction record @p r (an instruction record):
 * its row, and the module it executed in (-1 outside modules); the rule
 * is this file's preamble's. @return 0; the trace's errors for a bad
 * InsID or ModuleID, UMT_E_NOMEM (the module index).
 */
UMT_HIDDEN int umt__cov_attribute(const umt_trace *t, const umt_rec *r, uint64_t *row,
                                  int64_t *module);

/** Counts of executions per row and per (row, module) pair, as the build composes them. */
struct cov_counts {
	uint64_t *rows;  /* executions per row attributed to the row's own ModuleID */
	uint64_t nrows;
	struct cov_moved {
		uint64_t row;
		int64_t module;
		uint64_t count;
	} *moved;        /* floating rows attributed to a module at some records */
	size_t nmoved, moved_cap;
};

/** Adds one (row, module) count to @p c (the row's own module or a moved one). */
UMT_HIDDEN int umt__cov_add(const umt_trace *t, struct cov_counts *c, uint64_t row,
                            int64_t module, uint64_t count);

/**
 * Turns counts into the section's tables: *modules (module rows + 1
 * entries) and *addresses (*naddr entries), malloc'd, as the file holds
 * them. @return 0; UMT_E_NOMEM, the trace's errors.
 */
UMT_HIDDEN int umt__cov_tables(const umt_trace *t, const struct cov_counts *c,
                               umt_ix_cov_module **modules, umt_ix_cov_address **addresses,
                               uint64_t *naddr);

#endif
