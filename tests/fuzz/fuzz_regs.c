/*
 * Fuzz target: the register section of an index (regs.dir, regs.ckpt;
 * docs/index-format.md) is untrusted input like a trace. At start the target
 * writes a small trace of two threads (a 64-bit one and a 32-bit one) whose
 * records write partial registers, zero-extend, carry register dumps, gaps
 * and clobbers, with enough records for several checkpoints, and builds its
 * index; each input then stands for the section's two files and its
 * checkpoint count:
 *
 *   u32 dir_len, u64 entries, regs.dir (dir_len bytes), regs.ckpt (the rest)
 *
 * The header is the real one with the section's file sizes and count set
 * from the input (the BuildID in each file's header set to the header's),
 * the memory files are the real ones. Invariant: open, the states at
 * records of both threads, register histories both ways, origins and verify
 * return a status; nothing crashes, reads out of bounds or hangs.
 *
 * UMT_FUZZ_REGS_SEED=FILE writes the real section in this format (the seed).
 */
#include <string.h>

#include "fuzz_ix.h"

static struct fuzz_ix built;
static int rax_reg, ah_reg;

/* ---- the trace ------------------------------------------------------------------------- */

static int16_t reg_of(const umt_context_map *m, const char *name)
{
	for (int r = 0; r < m->ElemCount; r++)
		if (strncmp(m->StrName[r], name, UMT_REG_NAME_SIZE) == 0)
			return (int16_t)r;
	return 0;
}

/* A row: before slot @p in (or none), after slot @p out, flags; slots are 8 or 4 bytes. */
static int64_t add_row(umt_writer *w, const umt_context_map *m, const char *in, const char *out,
                       uint8_t flags)
{
	umt_decoded_ins d;
	umt_lc_slot s[2];
	memset(&d, 0, sizeof d);
	memset(s, 0, sizeof s);
	d.Flags = flags;
	d.Mem0SegSlot = d.Mem0BaseSlot = d.Mem0IndexSlot = d.Mem1BaseSlot = UMT_SLOT_NA;
	const char *names[2] = {in, out};
	for (int i = 0; i < 2; i++) {
		if (names[i] == NULL)
			continue;
		umt_lc_slot *x = &s[d.LCCount++];
		x->RegName = reg_of(m, names[i]);
		x->ValueSize = 8;
		x->Offset = (uint16_t)(8 * (d.LCCount - 1));
	}
	d.FirstOutSlot = d.FirstAfterSlot = in ? 1 : 0;
	d.LCSize = (uint16_t)(8 * d.LCCount);
	return fuzz_ix_add_row(w, &d, s);
}

static int add_record(umt_writer *w, int64_t row, int32_t thread, uint8_t flags, uint64_t v)
{
	uint8_t lc[16];
	memcpy(lc, &v, 8);
	v = v * 0x9e3779b97f4a7c15ull + 1;
	memcpy(lc + 8, &v, 8);
	umt_exec_desc e = {.type = UMT_REC_INSTRUCTION, .flags = flags, .thread_id = thread,
	                   .ins_id = row, .lc = lc, .lc_size = 16};
	return umt_writer_add_exec(w, &e, NULL);
}

static int add_dump(umt_writer *w, int32_t thread, uint8_t type, uint8_t flags, uint64_t v)
{
	uint8_t regs[512];
	for (size_t i = 0; i < sizeof regs; i++)
		regs[i] = (uint8_t)(i % 16 == 0 ? v + i : 0);
	umt_context_desc c = {regs, sizeof regs, NULL, 0};
	umt_exec_desc e = {.type = type, .flags = flags, .thread_id = thread, .syscall_id = -1,
	                   .context = &c};
	return umt_writer_add_exec(w, &e, NULL);
}

static int write_trace(const char *dir)
{
	umt_writer *w;
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	umt_context_map m;
	umt_context_map_default(&m, o.ins_record_version, o.xml.xed_version);
	if (umt_writer_open(dir, &o, &w) < 0)
		return -1;
	int rc = umt_writer_add_thread(w, 1, 0x7000, NULL);
	if (rc == 0)
		rc = umt_writer_add_thread(w, 2, 0x8000, NULL);
	int64_t rows[4] = {add_row(w, &m, "rax", "rax", 0), add_row(w, &m, "eax", "eax", 0x08),
	                   add_row(w, &m, NULL, "ah", 0), add_row(w, &m, "rbx", "rcx", 0)};
	for (int t = 0; rc == 0 && t < 2; t++)
		rc = add_dump(w, t, UMT_REC_THREAD_BEGIN, (uint8_t)(t == 0), 7);
	static const uint8_t flags[8] = {0, 0, 0, 0x02, 0x04, 0x20, 0x10, 0};
	for (uint64_t i = 0; rc == 0 && i < 5000; i++) {
		int32_t t = (int32_t)(i % 3 == 0);
		uint8_t f = (uint8_t)((t == 0) | (i % 37 == 0 ? flags[(i / 37) % 8] : 0));
		if (i % 97 == 0)
			rc = add_dump(w, t, UMT_REC_SYSCALL_EXIT, f & 1, i);
		else
			rc = add_record(w, rows[i % 4], t, f, i * 31);
	}
	if (rc < 0 || rows[0] < 0 || rows[1] < 0 || rows[2] < 0 || rows[3] < 0) {
		umt_writer_abort(w);
		return -1;
	}
	return umt_writer_finish(w);
}

/* ---- setup ------------------------------------------------------------------------------ */

static void write_seed(const char *path, const char *idx)
{
	size_t nd, nc;
	uint8_t *dir = fuzz_ix_slurp(idx, "regs.dir", &nd);
	uint8_t *ckpt = fuzz_ix_slurp(idx, "regs.ckpt", &nc);
	uint32_t len = (uint32_t)nd;
	uint64_t entries = built.header.SectionInfo[0][1];
	FILE *f = fopen(path, "wb");
	FUZZ_CHECK(f != NULL);
	fwrite(&len, sizeof len, 1, f);
	fwrite(&entries, sizeof entries, 1, f);
	fwrite(dir, 1, nd, f);
	fwrite(ckpt, 1, nc, f);
	FUZZ_CHECK(fclose(f) == 0);
	free(dir), free(ckpt);
}

static void at_index(const char *idir)
{
	rax_reg = umt_reg_by_name(built.trace, "rax");
	ah_reg = umt_reg_by_name(built.trace, "ah");
	const char *seed = getenv("UMT_FUZZ_REGS_SEED");
	if (seed)
		write_seed(seed, idir);
}

/* ---- one input ------------------------------------------------------------------------- */

static void histories(umt_index *ix)
{
	for (int k = 0; k < 4; k++) {
		umt_reg_history_query q;
		umt_reg_history_query_init(&q, k % 2 ? ah_reg : rax_reg);
		q.thread = k < 2 ? k : -1;
		q.reverse = k & 1;
		q.changes = k == 3;
		q.to = umt_exec_count(built.trace) - 1 - (uint64_t)k * 100;
		umt_reg_history *h;
		if (umt_reg_history_open(ix, &q, &h) == 0) {
			umt_reg_write w;
			for (int i = 0; i < 300 && umt_reg_history_next(h, &w) > 0; i++)
				FUZZ_CHECK(w.size <= UMT_REG_MAX_SIZE);
			umt_reg_history_close(h);
		}
	}
}

static void queries(umt_index *ix)
{
	umt_state st;
	uint64_t n = umt_exec_count(built.trace);
	if (umt_state_init(ix, &st) == 0) {
		for (uint64_t at = 0; at < n; at += n / 13 + 1)
			for (int64_t t = -1; t < 2; t++)
				if (umt_state_at(ix, at, t, &st) == 0) {
					fuzz_touch(st.data, st.size);
					fuzz_touch(st.sources, st.size * 8);
				}
		umt_state_release(&st);
	}
	histories(ix);
	umt_origin_query q;
	umt_origin_query_init(&q, n - 2, rax_reg);
	umt_origin *o;
	if (umt_origin_open(ix, &q, &o) == 0) {
		umt_origin_node node;
		for (int i = 0; i < 200 && umt_origin_next(o, &node) > 0; i++)
			fuzz_touch(node.value, node.size);
		umt_origin_close(o);
	}
	umt_index_verify(ix);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the memory and register sections only: an input stands for the register files,
	 * and an index listing other sections would not open without theirs */
	if (built.trace == NULL)
		fuzz_ix_setup(&built, "regs", write_trace,
		              UMT_INDEX_SECTION_MEMORY | UMT_INDEX_SECTION_REGISTERS, at_index);
	uint32_t dlen;
	uint64_t entries;
	if (size < sizeof dlen + sizeof entries)
		return 0;
	memcpy(&dlen, data, sizeof dlen);
	memcpy(&entries, data + sizeof dlen, sizeof entries);
	size_t at = sizeof dlen + sizeof entries;
	if (dlen > size - at)
		return 0;
	size_t sizes[2] = {dlen, size - at - dlen};
	uint8_t *copy[2];
	umt_ix_named_buffer named[2] = {{"regs.dir", {NULL, 0}}, {"regs.ckpt", {NULL, 0}}};
	umt_ix_header h = built.header;
	h.SectionInfo[0][1] = entries;
	for (int f = 0; f < 2; f++) {
		copy[f] = fuzz_ix_file(data + at + (f ? dlen : 0), sizes[f], &h);
		named[f].buffer = (umt_buffer){copy[f], sizes[f]};
		fuzz_ix_entry(&h, named[f].name)->Size = sizes[f];
	}
	fuzz_ix_run(&built, &h, NULL, named, 2, queries);
	free(copy[0]);
	free(copy[1]);
	return 0;
}
