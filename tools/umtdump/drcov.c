/*
 * umtdump coverage --drcov FILE: the coverage in DynamoRIO's drcov format,
 * version 2, as Lighthouse (IDA, Binary Ninja) and bncov load it:
 *
 *   DRCOV VERSION: 2
 *   DRCOV FLAVOR: drcov
 *   Module Table: version 2, count N
 *   Columns: id, base, end, entry, checksum, timestamp, path
 *    ID, 0xBASE, 0xEND, 0x0, 0x0, 0x0, PATH          (one line per module row)
 *   BB Table: M bbs
 *   M binary entries of 8 bytes: u32 offset from the module's base, u16 size,
 *   u16 module ID (little-endian)
 *
 * One entry per executed instruction (its address and length), not per
 * basic block: the trace knows instructions exactly, and the tools mark
 * what a block covers instruction by instruction anyway. The module table
 * is every module row of the trace (ID = row, end exclusive). Code outside
 * modules has no module to be relative to: it is left out, and counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

/* A path on one line of the module table: no line breaks. */
static void one_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = '?';
}

static void module_table(FILE *f, const umt_trace *t, uint64_t n)
{
	fprintf(f, "DRCOV VERSION: 2\nDRCOV FLAVOR: drcov\n");
	fprintf(f, "Module Table: version 2, count %llu\n", (unsigned long long)n);
	fprintf(f, "Columns: id, base, end, entry, checksum, timestamp, path\n");
	for (uint64_t m = 0; m < n; m++) {
		const umt_module_rec *r;
		char name[1024];
		uint64_t base = 0, end = 0;
		if (umt_module_get(t, m, &r) == 0) {
			base = (uint64_t)r->StartAddr;
			end = (uint64_t)r->EndAddr + 1; /* drcov's end is exclusive */
		}
		entry_name(t, (int64_t)m, name, sizeof name);
		one_line(name);
		fprintf(f, "%3llu, 0x%016llx, 0x%016llx, 0x%016llx, 0x%08x, 0x%08x, %s\n",
		        (unsigned long long)m, (unsigned long long)base, (unsigned long long)end, 0ull,
		        0u, 0u, name);
	}
}

/* Whether entry @p m goes into the file: a module, of --module NAME when given. */
static bool wanted(const umt_trace *t, const struct opts *o, const umt_coverage_module *m)
{
	char name[1024];
	return m->module_id >= 0 &&
	       (o->module_name == NULL ||
	        module_name_matches(entry_name(t, m->module_id, name, sizeof name), o->module_name));
}

/*
 * The blocks: one per executed address of the wanted entries, written to
 * @p f (NULL: only counted); counts what is left out.
 */
static int blocks(FILE *f, const umt_trace *t, const umt_index *ix, const struct opts *o,
                  uint64_t *written, uint64_t *left_out)
{
	for (uint64_t e = 0; e < umt_coverage_count(ix); e++) {
		umt_coverage_module m;
		int rc = umt_coverage_get(ix, e, &m);
		if (rc < 0)
			return rc;
		if (!wanted(t, o, &m)) {
			*left_out += m.module_id < 0 ? m.addresses : 0;
			continue;
		}
		for (uint64_t k = 0; k < m.addresses; k++) {
			umt_coverage_address a;
			if ((rc = umt_coverage_address_get(ix, e, k, &a)) < 0)
				return rc;
			uint64_t off = a.address - m.base;
			if (a.address < m.base || off > UINT32_MAX) { /* outside its module's range */
				(*left_out)++;
				continue;
			}
			uint8_t b[8] = {(uint8_t)off, (uint8_t)(off >> 8), (uint8_t)(off >> 16),
			                (uint8_t)(off >> 24), (uint8_t)a.size, (uint8_t)(a.size >> 8),
			                (uint8_t)e, (uint8_t)(e >> 8)};
			if (f != NULL)
				fwrite(b, 1, sizeof b, f);
			(*written)++;
		}
	}
	return 0;
}

int write_drcov(const umt_trace *t, const umt_index *ix, const struct opts *o)
{
	uint64_t modules = umt_module_count(t), written = 0, left_out = 0, count = 0;
	if (modules > 65536) {
		report("--drcov: %llu module rows, a drcov file holds 65536",
		       (unsigned long long)modules);
		return EXIT_BAD_TRACE;
	}
	/* the count comes first in the file: a first pass counts the blocks */
	int rc = blocks(NULL, t, ix, o, &count, &left_out);
	left_out = 0;
	FILE *f = fopen(o->drcov_path, "wb");
	if (f == NULL) {
		report("--drcov %s: %s", o->drcov_path, strerror(errno));
		return EXIT_BAD_TRACE;
	}
	module_table(f, t, modules);
	fprintf(f, "BB Table: %llu bbs\n", (unsigned long long)count);
	if (rc == 0)
		rc = blocks(f, t, ix, o, &written, &left_out);
	if (rc < 0)
		report_error(rc);
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad || (rc == 0 && written != count)) {
		report("--drcov %s: cannot write the file", o->drcov_path);
		return EXIT_BAD_TRACE;
	}
	if (rc < 0)
		return EXIT_BAD_TRACE;
	note(o, "--drcov %s: %llu instructions, %llu module rows; %llu executed addresses outside "
	     "modules (or their ranges) left out", o->drcov_path, (unsigned long long)written,
	     (unsigned long long)modules, (unsigned long long)left_out);
	return EXIT_OK;
}
