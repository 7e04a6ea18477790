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
#include <unistd.h>

#include "../../src/index/ixint.h"
#include "../fixtures/calltrace.h"
#include "fuzz.h"

#define CALLS_BIT 2
#define NFILES 4

static const char *const names[NFILES] = {"calls.tab", "calls.thr", "calls.tgt", "calls.byt"};
static umt_trace *trace;
static umt_ix_header header;
static struct {
	uint8_t *data;
	size_t size;
} real[UMT_IX_MAX_FILES];
static unsigned nreal;
static const char *real_names[UMT_IX_MAX_FILES];
static uint8_t *memfiles[IX_F_COUNT];
static size_t memsizes[IX_F_COUNT];

/* ---- setup ------------------------------------------------------------------------------ */

static uint8_t *slurp(const char *dir, const char *name, size_t *n)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "rb");
	FUZZ_CHECK(f != NULL);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *b = malloc(*n + 1);
	FUZZ_CHECK(b != NULL && fread(b, 1, *n, f) == *n);
	fclose(f);
	return b;
}

static void write_seed(const char *path, const char *idx)
{
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f != NULL);
	fwrite(header.SectionInfo[CALLS_BIT - 1], 8, 8, f);
	uint8_t *b[NFILES];
	size_t n[NFILES];
	for (int i = 0; i < NFILES; i++)
		b[i] = slurp(idx, names[i], &n[i]);
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
		const char *name = header.Files[i].Name;
		if (name[0] == '\0' || strncmp(name, "calls.", 6) == 0)
			continue;
		bool memory = false;
		for (int f = 0; f < IX_F_COUNT; f++)
			memory |= strncmp(name, umt__ix_file_names[f], sizeof header.Files[i].Name) == 0;
		if (memory)
			continue;
		real_names[nreal] = name;
		real[nreal].data = slurp(idir, name, &real[nreal].size);
		nreal++;
	}
}

static void setup(void)
{
	char dir[] = "/tmp/umt-fuzz-calls-XXXXXX", tdir[64], idir[64];
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(tdir, sizeof tdir, "%s/t", dir);
	snprintf(idir, sizeof idir, "%s/i", dir);
	FUZZ_CHECK(fx_write_call_trace(tdir) == 0);
	FUZZ_CHECK(umt_trace_open(tdir, 0, &trace) == 0);
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 1;
	FUZZ_CHECK(umt_index_build(trace, idir, &o, NULL) == 0);
	size_t n;
	uint8_t *h = slurp(idir, "index.umti", &n);
	FUZZ_CHECK(n == sizeof header);
	memcpy(&header, h, sizeof header);
	free(h);
	for (int f = 0; f < IX_F_COUNT; f++)
		memfiles[f] = slurp(idir, umt__ix_file_names[f], &memsizes[f]);
	keep_other_files(idir);
	const char *seed = getenv("UMT_FUZZ_CALLS_SEED");
	if (seed)
		write_seed(seed, idir);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	FUZZ_CHECK(system(cmd) == 0);
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
	for (uint64_t at = 0; at < umt_exec_count(trace); at++) {
		for (int64_t t = -1; t < 2; t++)
			if (umt_stack_at(ix, at, t, frames, 8, &depth) == 0)
				FUZZ_CHECK(depth < (1u << 20));
		(void)umt_call_find(ix, at, &call);
	}
	umt_index_verify(ix);
}

/* The header's file-table entry of @p name. */
static umt_ix_file_entry *entry_of(umt_ix_header *h, const char *name)
{
	for (unsigned i = 0; i < UMT_IX_MAX_FILES; i++)
		if (strncmp(h->Files[i].Name, name, sizeof h->Files[i].Name) == 0)
			return &h->Files[i];
	FUZZ_CHECK(0);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (trace == NULL)
		setup();
	umt_ix_header h = header;
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
		copy[i] = malloc(len[i] ? len[i] : 1); /* exact sizes: ASan sees every overrun */
		memcpy(copy[i], data + at, len[i]);
		at += len[i];
		if (len[i] >= 24)
			memcpy(copy[i] + 16, &h.BuildID, 8);
		named[i] = (umt_ix_named_buffer){names[i], {copy[i], len[i]}};
		entry_of(&h, names[i])->Size = len[i];
	}
	for (unsigned i = 0; i < nreal; i++)
		named[NFILES + i] = (umt_ix_named_buffer){real_names[i], {real[i].data, real[i].size}};
	h.HeaderSum = umt__ix_header_sum(&h);
	umt_buffer files[IX_F_COUNT];
	for (int f = 0; f < IX_F_COUNT; f++)
		files[f] = (umt_buffer){memfiles[f], memsizes[f]};
	umt_index *ix;
	if (umt__ix_open_buffers(trace, &h, sizeof h, files, named, NFILES + nreal, &ix) == 0) {
		queries(ix);
		umt_index_close(ix);
	}
	for (int i = 0; i < NFILES; i++)
		free(copy[i]);
	return 0;
}
