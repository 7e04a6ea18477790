/*
 * libumtrace - an index built in parts, by several processes or machines
 * (docs/index-format.md, "Building in parts").
 *
 * Part K of N scans its share of the trace's record ranges (the ranges
 * umt__ix_range_count() fixes from the trace alone, so every process cuts
 * the same ones), sorts the postings it extracts into one run and commits
 * it as DIR/parts/K-of-N/part. The merge checks every part as data from
 * another process (header sum, identity of the trace, its ranges, every
 * entry decoded in order, a sum of the entries' bytes), merges their runs
 * like runs spilled by its own scan, builds the other sections with a scan
 * of its own, and commits the index. Since the entries are totally ordered
 * and the encoding depends only on them, the index has the same bytes as
 * one built by umt_index_build().
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "encode.h"

#define PART_MAGIC "UMTIXPRT"
#define PART_VERSION 1u
#define PART_MAX 65536u /* parts of one build, at most */
#define PART_WRITE_BUFFER (1u << 20)

/* The header of a part file, at offset 0, little-endian; the run follows it. */
typedef struct part_header {
	char Magic[8];          /* "UMTIXPRT" */
	uint32_t Version;       /* PART_VERSION */
	uint32_t HeaderSize;    /* sizeof(part_header): where the run starts */
	uint64_t BuildID;       /* the index's BuildID: the identity of the trace */
	uint32_t Part, Parts;   /* K of N */
	uint32_t Ranges;        /* the trace's record ranges */
	uint32_t FirstRange;    /* this part's: [FirstRange, EndRange) = [K*R/N, (K+1)*R/N) */
	uint32_t EndRange;
	uint32_t Reserved;      /* 0 */
	uint64_t FirstRecord;   /* the records of those ranges: [FirstRecord, EndRecord) */
	uint64_t EndRecord;
	uint64_t Entries;       /* entries of the run */
	uint64_t RunBytes;      /* bytes of the run, from HeaderSize */
	uint64_t RunSum;        /* FNV-1a 64 of those bytes */
	uint64_t Records;       /* records scanned */
	uint64_t Accesses;      /* accesses indexed */
	uint64_t Spare[2];      /* 0 */
	uint64_t HeaderSum;     /* FNV-1a 64 of the bytes before it */
} part_header;

_Static_assert(sizeof(part_header) == 128, "part_header is 128 bytes");

/* DIR/parts/K-of-N, in @p out. */
static int part_dir(const char *dir, unsigned part, unsigned parts, char out[PATH_MAX])
{
	int n = snprintf(out, PATH_MAX, "%s/parts/%u-of-%u", dir, part, parts);
	if (n < 0 || n >= PATH_MAX)
		return umt__failf(UMT_E_INVAL, "%s: index directory name too long", dir);
	return 0;
}

static int check_parts(const umt_trace *t, const char *dir, unsigned part, unsigned parts)
{
	if (t == NULL || dir == NULL || parts == 0 || parts > PART_MAX || part >= parts)
		return umt__failf(UMT_E_INVAL, "index build in parts: invalid argument (part %u of %u)",
		                  part, parts);
	return 0;
}

/* ---- a part ------------------------------------------------------------------------ */

/* Merges every run of the scan into the part file, after its header. */
static int write_part(struct ix_build *b, unsigned part, unsigned parts)
{
	int fd = -1, rc = umt__ixb_reduce_runs(b);
	if (rc == 0)
		rc = umt__commit_create(b->commit, "part", &fd);
	struct ix_run_writer w = {0};
	if (rc == 0)
		rc = umt__ix_runw_init(&w, fd, PART_WRITE_BUFFER);
	if (rc < 0)
		return rc;
	w.offset = sizeof(part_header);
	w.summed = true;
	size_t files = 0;
	for (size_t i = 0; i < b->nruns; i++)
		files += b->runs[i].mem == NULL;
	size_t cap = (size_t)(umt__ixb_read_budget(b) / (files + 1));
	rc = umt__ixb_merge_runs(b, b->runs, b->nruns, cap, &w);
	struct ix_run run = {0};
	uint64_t sum = 0;
	if (rc == 0) {
		rc = umt__ix_runw_finish(&w, &run);
		sum = w.sum; /* finish flushed and summed the last bytes */
	} else {
		umt__ix_runw_free(&w);
	}
	if (rc < 0)
		return rc;
	part_header h = {0};
	memcpy(h.Magic, PART_MAGIC, 8);
	h.Version = PART_VERSION;
	h.HeaderSize = sizeof h;
	h.BuildID = b->build_id;
	h.Part = part;
	h.Parts = parts;
	h.Ranges = b->nranges;
	h.FirstRange = b->first_range;
	h.EndRange = b->end_range;
	h.FirstRecord = b->bounds[b->first_range];
	h.EndRecord = b->bounds[b->end_range];
	h.Entries = run.count;
	h.RunBytes = run.end - sizeof h;
	h.RunSum = sum;
	h.Records = atomic_load(&b->records_done);
	h.Accesses = atomic_load(&b->accesses);
	h.HeaderSum = umt__fnv(UMT_FNV_SEED, &h, offsetof(part_header, HeaderSum));
	umt__ix_run_free(&run);
	b->stats.postings = h.Entries;
	b->stats.index_bytes = run.end;
	return umt__ix_pwrite_all(fd, &h, sizeof h, 0);
}

int umt_index_build_part(const umt_trace *t, const char *dir, unsigned part, unsigned parts,
                         const umt_index_build_options *o, umt_index_build_stats *stats)
{
	struct ix_build b;
	char path[PATH_MAX];
	int rc = umt__ixb_init(&b, t, dir, o);
	if (rc == 0)
		rc = check_parts(t, dir, part, parts);
	if (rc == 0)
		rc = part_dir(dir, part, parts, path);
	if (rc < 0)
		return umt__ixb_done(&b, rc, stats);
	b.dir = path;
	b.o.sections = UMT_INDEX_SECTION_MEMORY; /* the merge builds the others */
	rc = umt__ixb_open_dir(&b, "part");
	if (rc == 0)
		rc = umt__ixb_plan(&b);
	if (rc == 0) {
		b.first_range = (unsigned)((uint64_t)part * b.nranges / parts);
		b.end_range = (unsigned)((uint64_t)(part + 1) * b.nranges / parts);
		rc = umt__ixb_scan(&b);
	}
	if (rc == 0)
		rc = write_part(&b, part, parts);
	if (rc == 0) {
		rc = umt__commit_finish(b.commit);
		b.commit = NULL;
	}
	return umt__ixb_done(&b, rc, stats);
}

/* ---- the merge ------------------------------------------------------------------------- */

static int bad_part(const char *name, uint64_t at, const char *what)
{
	return umt__failf(UMT_E_CORRUPT, "%s: not a valid index part: %s (byte %llu)", name, what,
	                  (unsigned long long)at);
}

/* Checks a part's header against the build: the same trace, part and ranges. */
static int check_header(const struct ix_build *b, const part_header *h, const char *name,
                        unsigned part, unsigned parts, uint64_t size)
{
	uint32_t first = (uint32_t)((uint64_t)part * b->nranges / parts);
	uint32_t end = (uint32_t)((uint64_t)(part + 1) * b->nranges / parts);
	if (memcmp(h->Magic, PART_MAGIC, 8) != 0)
		return bad_part(name, 0, "bad magic");
	if (h->HeaderSum != umt__fnv(UMT_FNV_SEED, h, offsetof(part_header, HeaderSum)))
		return bad_part(name, offsetof(part_header, HeaderSum), "header sum mismatch");
	if (h->Version != PART_VERSION || h->HeaderSize != sizeof *h)
		return bad_part(name, offsetof(part_header, Version), "unknown version");
	if (h->BuildID != b->build_id)
		return umt__failf(UMT_E_STALE, "%s: index part built from another trace, or the trace "
		                  "changed (BuildID at byte %zu)", name, offsetof(part_header, BuildID));
	if (h->Part != part || h->Parts != parts || h->Ranges != b->nranges ||
	    h->FirstRange != first || h->EndRange != end ||
	    h->FirstRecord != b->bounds[first] || h->EndRecord != b->bounds[end])
		return bad_part(name, offsetof(part_header, Part), "another part, or other ranges");
	if (h->RunBytes != size - sizeof *h)
		return bad_part(name, offsetof(part_header, RunBytes), "run size is not the file's");
	return 0;
}

/* Says why part K's file cannot be opened: never built, or its build did not finish. */
static int missing_part(const char *pdir, const char *name, unsigned part, unsigned parts)
{
	static const char *const none[] = {"part"};
	int dfd = open(pdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool started = dfd >= 0 && umt__commit_leftovers(dfd, none, 0);
	if (dfd >= 0)
		close(dfd);
	if (started)
		return umt__failf(UMT_E_INCOMPLETE, "%s: incomplete: the build of part %u of %u did "
		                  "not finish", name, part, parts);
	return umt__failf(UMT_E_MISSING, "%s: missing: part %u of %u was not built", name, part,
	                  parts);
}

/* Opens, checks and adds part K's run to the build's runs. */
static int load_part(struct ix_build *b, unsigned part, unsigned parts)
{
	char pdir[PATH_MAX], name[PATH_MAX + 8];
	int rc = part_dir(b->dir, part, parts, pdir);
	if (rc < 0)
		return rc;
	snprintf(name, sizeof name, "%s/part", pdir);
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? missing_part(pdir, name, part, parts)
		                       : umt__failf(UMT_E_IO, "%s: %s", name, strerror(errno));
	unsigned k = b->ninputs++;
	b->input_fds[k] = fd;
	if ((b->input_names[k] = strdup(name)) == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	struct stat st;
	part_header h;
	if (fstat(fd, &st) != 0)
		return umt__failf(UMT_E_IO, "%s: %s", name, strerror(errno));
	if ((uint64_t)st.st_size < sizeof h || pread(fd, &h, sizeof h, 0) != (ssize_t)sizeof h)
		return bad_part(name, 0, "shorter than its header");
	if ((rc = check_header(b, &h, name, part, parts, (uint64_t)st.st_size)) < 0)
		return rc;
	struct ix_run run = {.fd = fd, .count = h.Entries, .end = (uint64_t)st.st_size,
	                     .name = b->input_names[k]};
	uint64_t sum;
	if ((rc = umt__ix_run_load(&run, sizeof h, &sum)) < 0)
		return rc;
	if (sum != h.RunSum) {
		umt__ix_run_free(&run);
		return bad_part(name, sizeof h, "the run's sum does not match its bytes");
	}
	atomic_fetch_add(&b->accesses, h.Accesses);
	atomic_fetch_add(&b->records_done, h.Records);
	b->entries += h.Entries;
	if ((rc = umt__ixb_add_run(b, run)) < 0)
		umt__ix_run_free(&run);
	return rc;
}

static int load_parts(struct ix_build *b, unsigned parts)
{
	b->input_fds = malloc(parts * sizeof *b->input_fds);
	b->input_names = calloc(parts, sizeof *b->input_names);
	if (b->input_fds == NULL || b->input_names == NULL)
		return umt__failf(UMT_E_NOMEM, "index build: out of memory");
	int rc = 0;
	for (unsigned k = 0; rc == 0 && k < parts; k++)
		rc = load_part(b, k, parts);
	return rc;
}

/* After the commit: the parts are in the index now; a failure here only leaves files. */
static void remove_parts(const char *dir, unsigned parts)
{
	char pdir[PATH_MAX], name[PATH_MAX + 8];
	for (unsigned k = 0; k < parts; k++) {
		if (part_dir(dir, k, parts, pdir) < 0)
			return;
		snprintf(name, sizeof name, "%s/part", pdir);
		unlink(name);
		rmdir(pdir);
	}
	snprintf(name, sizeof name, "%s/parts", dir);
	rmdir(name); /* only when no other build's parts are left */
}

int umt_index_build_merge(const umt_trace *t, const char *dir, unsigned parts,
                          const umt_index_build_options *o, umt_index_build_stats *stats)
{
	struct ix_build b;
	int rc = umt__ixb_init(&b, t, dir, o);
	if (rc == 0)
		rc = check_parts(t, dir, 0, parts);
	if (rc == 0)
		rc = umt__ixb_open_dir(&b, "index.umti");
	if (rc == 0)
		rc = umt__ixb_plan(&b);
	if (rc == 0)
		rc = load_parts(&b, parts);
	if (rc == 0 && b.nsections > 0) { /* the other sections: a scan of their own */
		uint64_t records = atomic_exchange(&b.records_done, 0);
		b.no_postings = true;
		b.entries = 0; /* the scan counts the entries of every run */
		rc = umt__ixb_scan(&b);
		atomic_store(&b.records_done, records);
	}
	if (rc == 0)
		rc = umt__ixb_merge(&b);
	if (rc == 0)
		rc = umt__ixb_assemble(&b); /* commits: b.commit is NULL after */
	if (rc == 0)
		remove_parts(dir, parts);
	return umt__ixb_done(&b, rc, stats);
}
