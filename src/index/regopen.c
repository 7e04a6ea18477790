/*
 * libumtrace - the register section of an open index (regs.h): its files
 * mapped and checked in O(1) (sizes against the info block, which must
 * match the trace's thread table and dump size), closed with the index.
 * Its table of hooks is regsection.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "regs.h"

/* The info block against the trace and the sizes of the files. */
static int check_geometry(const umt_index *ix, struct regs_data *d,
                          const uint64_t info[UMT_IX_INFO_WORDS])
{
	uint64_t threads = info[RI_THREADS], entries = info[RI_ENTRIES];
	if (threads != umt_thread_count(ix->trace) || info[RI_DUMP_SIZE] != d->ctx.dump ||
	    info[RI_INTERVAL] == 0 || info[RI_INTERVAL] > UINT32_MAX)
		return umt__regs_corrupt("index.umti", 2112,
		                         "registers section: %llu threads, dump of %llu bytes, interval "
		                         "%llu; the trace has %llu threads and a %u-byte dump",
		                         (unsigned long long)threads,
		                         (unsigned long long)info[RI_DUMP_SIZE],
		                         (unsigned long long)info[RI_INTERVAL],
		                         (unsigned long long)umt_thread_count(ix->trace), d->ctx.dump);
	if (threads > (UINT64_MAX - 64) / 64 || entries > (UINT64_MAX - 64) / 64 ||
	    d->dir.size != 64 + threads * sizeof(umt_ix_regs_thread) + entries * sizeof(umt_ix_regs_entry))
		return umt__regs_corrupt(UMT_IX_REGS_DIR, 0, "%llu bytes for %llu threads and %llu "
		                         "checkpoints", (unsigned long long)d->dir.size,
		                         (unsigned long long)threads, (unsigned long long)entries);
	d->thread_count = threads;
	d->entry_count = entries;
	d->interval = info[RI_INTERVAL];
	d->threads = (const umt_ix_regs_thread *)(d->dir.data + 64);
	d->entries = (const umt_ix_regs_entry *)(d->dir.data + 64 + threads * sizeof *d->threads);
	return 0;
}

void umt__regs_close(umt_index *ix)
{
	struct regs_data *d = ix->section_data[UMT_IX_REGS_BIT];
	if (d == NULL)
		return;
	umt__unmap(&d->dir);
	umt__unmap(&d->ckpt);
	umt__regctx_free(&d->ctx);
	free(d);
	ix->section_data[UMT_IX_REGS_BIT] = NULL;
}

int umt__regs_open(umt_index *ix, const struct ix_source *src,
                   const uint64_t info[UMT_IX_INFO_WORDS])
{
	struct regs_data *d = calloc(1, sizeof *d);
	if (d == NULL)
		return umt__failf(UMT_E_NOMEM, "index: out of memory");
	ix->section_data[UMT_IX_REGS_BIT] = d;
	int rc = umt__regctx_init(&d->ctx, ix->trace);
	if (rc == 0)
		rc = umt__ix_map_section_file(ix, src, UMT_IX_REGS_DIR, UMT_IX_REGS_DIR_MAGIC, &d->dir);
	if (rc == 0)
		rc = umt__ix_map_section_file(ix, src, UMT_IX_REGS_CKPT, UMT_IX_REGS_CKPT_MAGIC, &d->ckpt);
	if (rc == 0)
		rc = check_geometry(ix, d, info);
	if (rc < 0)
		umt__regs_close(ix);
	return rc;
}
