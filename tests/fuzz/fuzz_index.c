/*
 * Fuzz target: an index (docs/index-format.md) is untrusted input like a
 * trace. At start the target writes a small trace whose accesses make every
 * kind of list (fine lists, page lists, lists of many blocks with skip
 * entries) and builds its index; each input then stands for the index's
 * mem.dir, mem.skip and mem.post files and its counts:
 *
 *   u32 dir_len, u32 skip_len, u64 pages, u64 skip_entries, dir, skip, post
 *
 * A header is made for them (the trace's identity, their sizes, the counts,
 * its checksum; the BuildID in each file's header is set to the header's,
 * so that inputs stay valid across runs), so that open gets past the header
 * and the checks under test are those of the directory, the footers, the
 * lists, the blocks and the postings. Invariant: open, history, mem and
 * verify return a status; nothing crashes, reads out of bounds or hangs.
 *
 * UMT_FUZZ_INDEX_SEED=FILE writes the real index in this format (the seed).
 */
#include <string.h>

#include "fuzz_ix.h"

static struct fuzz_ix built;
static const uint64_t probes[] = {0x10000, 0x10008, 0x1003c, 0x10ffc, 0x20000, 0x21000,
                                  0x7ff0, 0x7fffffffff00};

/* ---- the trace ------------------------------------------------------------------------- */

static int64_t add_row(umt_writer *w, uint16_t size, int store)
{
	umt_decoded_ins d;
	umt_lc_slot s[2];
	memset(&d, 0, sizeof d);
	memset(s, 0, sizeof s);
	d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	d.LCCount = store ? 2 : 1;
	d.FirstOutSlot = store ? 0 : 1;
	d.FirstAfterSlot = 1;
	d.LCSize = (uint16_t)(d.LCCount * (8 + size));
	for (unsigned i = 0; i < d.LCCount; i++) {
		s[i].RegName = (int16_t)UMT_REG_MEM0;
		s[i].ValueSize = (int16_t)size;
		s[i].Offset = (uint16_t)(i * (8 + size));
		s[i].AddrWidth = 8;
	}
	return fuzz_ix_add_row(w, &d, s);
}

static int add_access(umt_writer *w, int64_t row, uint16_t size, int store, uint64_t address,
                      uint8_t flags)
{
	static uint8_t lc[2 * (8 + 600)];
	unsigned slots = store ? 2 : 1;
	for (unsigned i = 0; i < slots; i++) {
		memcpy(lc + i * (8u + size), &address, 8);
		memset(lc + i * (8u + size) + 8, (int)(address + i), size);
	}
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_INSTRUCTION;
	e.flags = flags;
	e.ins_id = row;
	e.lc = lc;
	e.lc_size = slots * (8u + size);
	e.thread_id = (int32_t)(address & 1);
	return umt_writer_add_exec(w, &e, NULL);
}

static int write_trace(const char *dir)
{
	umt_writer *w;
	int32_t tid;
	if (umt_writer_open(dir, NULL, &w) < 0)
		return -1;
	int rc = umt_writer_add_thread(w, 1, 0x7000, &tid);
	if (rc == 0)
		rc = umt_writer_add_thread(w, 2, 0x8000, &tid);
	int64_t load = add_row(w, 8, 0), store = add_row(w, 8, 1), big = add_row(w, 600, 1);
	for (uint64_t i = 0; rc == 0 && i < 400; i++) /* one granule: lists of several blocks */
		rc = add_access(w, i % 3 ? store : load, 8, i % 3 != 0, 0x10008 + (i % 2) * 0x34,
		                i % 50 == 7 ? 0x21 : 0x01);
	for (uint64_t i = 0; rc == 0 && i < 40; i++)
		rc = add_access(w, big, 600, 1, 0x20000 + i * 0x80, 0x01);
	for (uint64_t i = 0; rc == 0 && i < 40; i++)
		rc = add_access(w, i % 2 ? store : load, 8, i % 2, 0x7fffffffff00 + i * 8, 0x01);
	uint8_t block[9000];
	memset(block, 0x5a, sizeof block);
	umt_mem_ref m = {0x10000, sizeof block, block};
	umt_context_desc c = {NULL, 0, &m, 1};
	umt_exec_desc e;
	memset(&e, 0, sizeof e);
	e.type = UMT_REC_SYSCALL_EXIT;
	e.flags = 1;
	e.syscall_id = -1;
	e.context = &c;
	if (rc == 0)
		rc = umt_writer_add_exec(w, &e, NULL);
	if (rc < 0 || load < 0 || store < 0 || big < 0) {
		umt_writer_abort(w);
		return -1;
	}
	return umt_writer_finish(w);
}

/* ---- setup ------------------------------------------------------------------------------ */

static void write_seed(const char *path, const char *idx)
{
	size_t n[3];
	uint8_t *dir = fuzz_ix_slurp(idx, "mem.dir", &n[0]);
	uint8_t *skip = fuzz_ix_slurp(idx, "mem.skip", &n[1]);
	uint8_t *post = fuzz_ix_slurp(idx, "mem.post", &n[2]);
	uint32_t lens[2] = {(uint32_t)n[0], (uint32_t)n[1]};
	uint64_t counts[2] = {built.header.Memory.Pages, built.header.Memory.SkipEntries};
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f != NULL);
	fwrite(lens, sizeof lens, 1, f);
	fwrite(counts, sizeof counts, 1, f);
	fwrite(dir, 1, n[0], f);
	fwrite(skip, 1, n[1], f);
	fwrite(post, 1, n[2], f);
	FUZZ_CHECK(fclose(f) == 0);
	free(dir), free(skip), free(post);
}

static void at_index(const char *idir)
{
	const char *seed = getenv("UMT_FUZZ_INDEX_SEED");
	if (seed)
		write_seed(seed, idir);
}

/* ---- one input ------------------------------------------------------------------------- */

static void queries(umt_index *ix)
{
	for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
		umt_history_query q;
		umt_history_query_init(&q, probes[i], i % 2 ? 8 : 700);
		q.kinds = UMT_ACCESS_ALL;
		q.reverse = (int)(i & 1);
		q.to = 300;
		if (i % 3 == 0)
			q.kinds = UMT_ACCESS_WRITE;
		umt_history *h;
		if (umt_history_open(ix, &q, &h) == 0) {
			umt_access a;
			for (int k = 0; k < 2000 && umt_history_next(h, &a) > 0; k++)
				fuzz_touch(a.data, a.size);
			umt_history_close(h);
		}
		uint8_t d[64], known[64];
		uint64_t src[64];
		uint64_t at = umt_exec_count(built.trace) - 1 - i;
		umt_mem_at(ix, at, probes[i], sizeof d, d, known, src);
	}
	umt_index_verify(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (built.trace == NULL)
		fuzz_ix_setup(&built, "index", write_trace, UMT_INDEX_SECTIONS_ALL, at_index);
	uint32_t lens[2];
	uint64_t counts[2];
	if (size < sizeof lens + sizeof counts)
		return 0;
	memcpy(lens, data, sizeof lens);
	memcpy(counts, data + sizeof lens, sizeof counts);
	size_t at = sizeof lens + sizeof counts;
	if (lens[0] > size - at || lens[1] > size - at - lens[0])
		return 0;
	umt_buffer files[IX_F_COUNT];
	uint8_t *copy[IX_F_COUNT];
	size_t sizes[IX_F_COUNT] = {lens[0], size - at - lens[0] - lens[1], lens[1]};
	size_t offs[IX_F_COUNT] = {at, at + lens[0] + lens[1], at + lens[0]};
	umt_ix_header h = built.header;
	h.Sections = UMT_IX_SECTION_MEMORY; /* the memory section only: fuzz_regs has the others */
	h.Memory.Pages = counts[0];
	h.Memory.TopCount = counts[0] / UMT_IX_TOP_STRIDE + (counts[0] % UMT_IX_TOP_STRIDE != 0);
	h.Memory.SkipEntries = counts[1];
	for (int f = 0; f < IX_F_COUNT; f++) {
		copy[f] = fuzz_ix_file(data + offs[f], sizes[f], &h);
		files[f] = (umt_buffer){copy[f], sizes[f]};
		h.Files[f].Size = sizes[f];
	}
	fuzz_ix_run(&built, &h, files, NULL, 0, queries);
	for (int f = 0; f < IX_F_COUNT; f++)
		free(copy[f]);
	return 0;
}
