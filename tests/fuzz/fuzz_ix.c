/*
 * The setup and the per-input plumbing of the index fuzz targets (fuzz_ix.h).
 */
#include <string.h>
#include <unistd.h>

#include "fuzz_ix.h"

uint8_t *fuzz_ix_slurp(const char *dir, const char *name, size_t *n)
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

void fuzz_ix_setup(struct fuzz_ix *x, const char *name, int (*write_trace)(const char *dir),
                   uint64_t sections, void (*at_index)(const char *idir))
{
	char dir[64], tdir[80], idir[80];
	snprintf(dir, sizeof dir, "/tmp/umt-fuzz-%s-XXXXXX", name);
	FUZZ_CHECK(mkdtemp(dir) != NULL);
	snprintf(tdir, sizeof tdir, "%s/t", dir);
	snprintf(idir, sizeof idir, "%s/i", dir);
	FUZZ_CHECK(write_trace(tdir) == 0);
	FUZZ_CHECK(umt_trace_open(tdir, 0, &x->trace) == 0);
	umt_index_build_options o;
	umt_index_build_options_init(&o);
	o.threads = 1;
	o.sections = sections;
	FUZZ_CHECK(umt_index_build(x->trace, idir, &o, NULL) == 0);
	size_t n;
	uint8_t *h = fuzz_ix_slurp(idir, "index.umti", &n);
	FUZZ_CHECK(n == sizeof x->header);
	memcpy(&x->header, h, sizeof x->header);
	free(h);
	for (int f = 0; f < IX_F_COUNT; f++)
		x->mem[f] = fuzz_ix_slurp(idir, umt__ix_file_names[f], &x->mem_size[f]);
	if (at_index)
		at_index(idir);
	/* the trace stays mapped: its files may go */
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	FUZZ_CHECK(system(cmd) == 0);
}

int64_t fuzz_ix_add_row(umt_writer *w, const umt_decoded_ins *d, const umt_lc_slot *s)
{
	int64_t dfp, tfp, id;
	umt_ins_rec r;
	memset(&r, 0, sizeof r);
	r.ModuleID = -1;
	if (umt_writer_add_decoded(w, d, s, &dfp) < 0 || umt_writer_add_disasm(w, "x", &tfp) < 0)
		return -1;
	r.DecodedFP = dfp;
	r.DisasmFP = tfp;
	return umt_writer_add_ins(w, &r, &id) < 0 ? -1 : id;
}

uint8_t *fuzz_ix_file(const uint8_t *data, size_t n, const umt_ix_header *h)
{
	uint8_t *copy = malloc(n ? n : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, data, n);
	if (n >= 24)
		memcpy(copy + 16, &h->BuildID, 8);
	return copy;
}

umt_ix_file_entry *fuzz_ix_entry(umt_ix_header *h, const char *name)
{
	for (unsigned i = 0; i < UMT_IX_MAX_FILES; i++)
		if (strncmp(h->Files[i].Name, name, sizeof h->Files[i].Name) == 0)
			return &h->Files[i];
	FUZZ_CHECK(0);
	return NULL;
}

void fuzz_ix_run(const struct fuzz_ix *x, umt_ix_header *h, const umt_buffer *mem,
                 const umt_ix_named_buffer *named, unsigned nnamed,
                 void (*queries)(umt_index *ix))
{
	umt_buffer files[IX_F_COUNT];
	for (int f = 0; f < IX_F_COUNT; f++)
		files[f] = mem ? mem[f] : (umt_buffer){x->mem[f], x->mem_size[f]};
	h->HeaderSum = umt__ix_header_sum(h);
	umt_index *ix;
	if (umt__ix_open_buffers(x->trace, h, sizeof *h, files, named, nnamed, &ix) == 0) {
		queries(ix);
		umt_index_close(ix);
	}
}
