/*
 * Fuzz target: the calls section of an index (calls.tab, calls.thr,
 * calls.tgt, calls.byt; docs/index-format.md) is untrusted input like a
 * trace. At start the target writes the hand-built trace of test_calls
 * (tests/fixtures/calltrace.c: every case of the matching rule, two
 * threads) and builds its index; each input then stands for the section's
 * four files and its eight counts:
 *
 *   u64 info[8], u32 tab_len, u32 thr_len, u32 tgt_len,
 *   calls.tab (tab_len bytes), calls.thr, calls.tgt, calls.byt (the rest)
 *
 * The header is the real one with the section's counts and file sizes set
 * from the input (the BuildID in each file's header set to the header's),
 * the other files are the real ones. Invariant: open, the calls by thread,
 * target, module and range, the stack and the call at every record, and
 * verify return a status; nothing crashes, reads out of bounds or hangs.
 *
 * UMT_FUZZ_CALLS_SEED=FILE writes the real section in this format (the seed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/calltrace.h"
#include "fuzz_ix.h"

#define CALLS_BIT 2
#define NFILES 4

static const char *const names[NFILES] = {"calls.tab", "calls.thr", "calls.tgt", "calls.byt"};
static struct fuzz_ix built;
static struct {
	uint8_t *data;
	size_t size;
} real[UMT_IX_MAX_FILES];
static unsigned nreal;
static const char *real_names[UMT_IX_MAX_FILES];

/* ---- setup ------------------------------------------------------------------------------ */

static void write_seed(const char *path, const char *idx)
{
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f != NULL);
	fwrite(built.header.SectionInfo[CALLS_BIT - 1], 8, 8, f);
	uint8_t *b[NFILES];
	size_t n[NFILES];
	for (int i = 0; i < NFILES; i++)
		b[i] = fuzz_ix_slurp(idx, names[i], &n[i]);
	for (int i = 0; i < NFILES - 1; i++) {
		uint32_t len = (uint32_t)n[i];
		fwrite(&len, sizeof len, 1, f);
	}
	for (int i = 0; i < NFILES; i++) {
		fwrite(b[i], 1, n[i], f);
		free(b[i]);
	}
	FUZZ_CHECK(fclose(f) == 0);
}

/* The other sections' files, as they are: listed by the header, not by the input. */
static void keep_other_files(const char *idir)
{
	for (unsigned i = 0; i < UMT_IX_MAX_FILES; i++) {
		const char *name = built.header.Files[i].Name;
		if (name[0] == '\0' || strncmp(name, "calls.", 6) == 0)
			continue;
		bool memory = false;
		for (int f = 0; f < IX_F_COUNT; f++)
			memory |= strncmp(name, umt__ix_file_names[f],
			                  sizeof built.header.Files[i].Name) == 0;
		if (memory)
			continue;
		real_names[nreal] = name;
		real[nreal].data = fuzz_ix_slurp(idir, name, &real[nreal].size);
		nreal++;
	}
}

static void at_index(const char *idir)
{
	keep_other_files(idir);
	const char *seed = getenv("UMT_FUZZ_CALLS_SEED");
	if (seed)
		write_seed(seed, idir);
}

/* ---- one input ------------------------------------------------------------------------- */

static void read_calls(umt_index *ix, const umt_calls_query *q)
{
	umt_calls *c;
	if (umt_calls_open(ix, q, &c) < 0)
		return;
	umt_call call;
	for (int i = 0; i < 200 && umt_calls_next(c, &call) > 0; i++)
		FUZZ_CHECK(call.end <= UMT_CALL_OPEN);
	umt_calls_close(c);
}

static void queries(umt_index *ix)
{
	umt_calls_query q;
	umt_calls_info info;
	(void)umt_calls_info_get(ix, &info);
	for (int k = 0; k < 5; k++) {
		umt_calls_query_init(&q);
		if (k == 1)
			q.thread = 0;
		if (k == 2)
			q.target_first = q.target_last = FX_NOP_AT;
		if (k == 3)
			q.module = 0, q.offset_first = 0, q.offset_last = 0x10000;
		if (k == 4)
			q.from = 3, q.to = 20, q.limit = 4;
		read_calls(ix, &q);
	}
	umt_frame frames[8];
	size_t depth;
	umt_call call;
	for (uint64_t at = 0; at < umt_exec_count(built.trace); at++) {
		for (int64_t t = -1; t < 2; t++)
			if (umt_stack_at(ix, at, t, frames, 8, &depth) == 0)
				FUZZ_CHECK(depth < (1u << 20));
		(void)umt_call_find(ix, at, &call);
	}
	umt_index_verify(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (built.trace == NULL)
		fuzz_ix_setup(&built, "calls", fx_write_call_trace, UMT_INDEX_SECTIONS_ALL,
		              at_index);
	umt_ix_header h = built.header;
	uint32_t len[NFILES];
	size_t at = 64 + 4 * (NFILES - 1);
	if (size < at)
		return 0;
	memcpy(h.SectionInfo[CALLS_BIT - 1], data, 64);
	size_t rest = size - at;
	for (int i = 0; i < NFILES - 1; i++) {
		memcpy(&len[i], data + 64 + 4 * i, 4);
		if (len[i] > rest)
			return 0;
		rest -= len[i];
	}
	len[NFILES - 1] = (uint32_t)rest;
	umt_ix_named_buffer named[NFILES + UMT_IX_MAX_FILES];
	uint8_t *copy[NFILES];
	for (int i = 0; i < NFILES; i++) {
		copy[i] = fuzz_ix_file(data + at, len[i], &h);
		at += len[i];
		named[i] = (umt_ix_named_buffer){names[i], {copy[i], len[i]}};
		fuzz_ix_entry(&h, names[i])->Size = len[i];
	}
	for (unsigned i = 0; i < nreal; i++)
		named[NFILES + i] = (umt_ix_named_buffer){real_names[i], {real[i].data, real[i].size}};
	fuzz_ix_run(&built, &h, NULL, named, NFILES + nreal, queries);
	for (int i = 0; i < NFILES; i++)
		free(copy[i]);
	return 0;
}
