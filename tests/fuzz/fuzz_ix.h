/*
 * Shared by the index fuzz targets (fuzz_index.c, fuzz_regs.c,
 * fuzz_calls.c): each writes a small trace at start, builds its index and
 * keeps what it needs of it (fuzz_ix_setup); each input then stands for some
 * of the index's files, copied into allocations of their exact size
 * (fuzz_ix_file), and runs the target's queries over an index opened from
 * buffers (fuzz_ix_run).
 */
#ifndef UMT_FUZZ_IX_H
#define UMT_FUZZ_IX_H

#include "../../src/index/ixint.h"
#include "fuzz.h"

/** What a target keeps of the index it built at start. */
struct fuzz_ix {
	umt_trace *trace;             /* the trace, mapped (its files are gone) */
	umt_ix_header header;         /* index.umti as built */
	uint8_t *mem[IX_F_COUNT];     /* the memory files, umt__ix_file_names' order */
	size_t mem_size[IX_F_COUNT];
};

/**
 * Writes a trace with @p write_trace into a new directory /tmp/umt-fuzz-@p name-XXXXXX,
 * opens it into x->trace, builds its index with one thread and @p sections
 * (UMT_INDEX_SECTION_* bits) and reads its header and memory files into @p x; then calls
 * @p at_index (if not NULL) with the index's directory, for what else the target keeps
 * (its seed), and removes the directory: the trace stays mapped. Aborts on failure.
 */
void fuzz_ix_setup(struct fuzz_ix *x, const char *name, int (*write_trace)(const char *dir),
                   uint64_t sections, void (*at_index)(const char *idir));

/** The whole file @p dir/@p name (malloc'd, *n bytes); aborts when it cannot be read. */
uint8_t *fuzz_ix_slurp(const char *dir, const char *name, size_t *n);

/**
 * An instruction row for a target's trace: @p d with its slots @p s, disassembly "x", no
 * module. @return its ID, or -1 when the writer refuses it.
 */
int64_t fuzz_ix_add_row(umt_writer *w, const umt_decoded_ins *d, const umt_lc_slot *s);

/**
 * A copy of the @p n input bytes at @p data in an allocation of exactly that size (1 byte
 * for none: ASan sees every overrun), with the BuildID of @p h in its file header (bytes
 * 16-23) when it is long enough to have one, so that inputs stay valid across runs. Free it.
 */
uint8_t *fuzz_ix_file(const uint8_t *data, size_t n, const umt_ix_header *h);

/** The file-table entry of @p name in @p h; aborts when there is none. */
umt_ix_file_entry *fuzz_ix_entry(umt_ix_header *h, const char *name);

/**
 * Sets the checksum of @p h and opens the index it describes over memory files @p mem
 * (NULL: those of @p x) and the @p nnamed files @p named; when it opens, runs @p queries
 * on it and closes it.
 */
void fuzz_ix_run(const struct fuzz_ix *x, umt_ix_header *h, const umt_buffer *mem,
                 const umt_ix_named_buffer *named, unsigned nnamed,
                 void (*queries)(umt_index *ix));

#endif
