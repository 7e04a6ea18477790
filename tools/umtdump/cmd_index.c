/*
 * umtdump index: builds the trace's index (umt_index_build) where history
 * and mem look for it, with a progress bar on a terminal; or one part of a
 * build shared by several machines (--part K/N: umt_index_build_part), or
 * the index from those parts (--merge N: umt_index_build_merge).
 */
#include <limits.h>
#include <time.h>

#include "umtdump.h"

struct build_progress {
	const struct opts *o;
	struct progress bar;
	int phase;
};

static void on_progress(int phase, uint64_t done, uint64_t total, void *ctx)
{
	static const char *const labels[] = {"index: scan", "index: merge", "index: write"};
	struct build_progress *p = ctx;
	if (phase != p->phase) {
		progress_end(&p->bar);
		progress_start(&p->bar, p->o, labels[phase < 3 ? phase : 2], total, true);
		p->phase = phase;
	}
	if (p->bar.on)
		progress_draw(&p->bar, done);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Bytes of the exec files, the index's yardstick. */
static uint64_t exec_bytes(const umt_trace *t)
{
	return umt_trace_file_size(t, UMT_FILE_EXEC_VTABLE) +
	       umt_trace_file_size(t, UMT_FILE_EXEC_OFFSETS) +
	       umt_trace_file_size(t, UMT_FILE_EXEC_PREV_NEXT);
}

static void print(const struct opts *o, const char *dir, const umt_index_build_stats *s,
                  const umt_trace *t, double secs)
{
	uint64_t exec = exec_bytes(t);
	if (o->json) {
		struct jw j;
		jw_begin(&j);
		jw_str(&j, "index", dir);
		if (o->parts) {
			jw_u64(&j, "part", o->part);
			jw_u64(&j, "parts", o->parts);
		} else if (o->merge_parts) {
			jw_u64(&j, "merged_parts", o->merge_parts);
		}
		jw_u64(&j, "records", s->records);
		jw_u64(&j, "accesses", s->accesses);
		jw_u64(&j, "postings", s->postings);
		jw_u64(&j, "pages", s->pages);
		jw_u64(&j, "bytes", s->index_bytes);
		jw_u64(&j, "exec_bytes", exec);
		jw_u64(&j, "runs", s->runs);
		jw_u64(&j, "merge_passes", s->merge_passes);
		jw_u64(&j, "temp_bytes", s->temp_bytes);
		jw_u64(&j, "threads", s->threads);
		out_printf(",\"seconds\":%.3f", secs);
		index_calls_summary(t, dir, &j);
		jw_end(&j);
		return;
	}
	if (o->parts)
		out_printf("index %s, part %u of %u (parts/%u-of-%u/part)\n", dir, o->part, o->parts,
		           o->part, o->parts);
	else if (o->merge_parts)
		out_printf("index %s, merged from %u parts\n", dir, o->merge_parts);
	else
		out_printf("index %s\n", dir);
	out_printf("  records   %llu\n  accesses  %llu\n  postings  %llu in %llu pages\n",
	           (unsigned long long)s->records, (unsigned long long)s->accesses,
	           (unsigned long long)s->postings, (unsigned long long)s->pages);
	out_printf("  size      %llu bytes (%.3f of the exec files, %.2f bytes per access)\n",
	           (unsigned long long)s->index_bytes, exec ? (double)s->index_bytes / (double)exec : 0.0,
	           s->accesses ? (double)s->index_bytes / (double)s->accesses : 0.0);
	out_printf("  built in  %.3f s on %u thread%s, %llu sorted runs on disk (%llu temporary bytes)\n",
	           secs, s->threads, s->threads == 1 ? "" : "s", (unsigned long long)s->runs,
	           (unsigned long long)s->temp_bytes);
	index_calls_summary(t, dir, NULL);
}

int cmd_index(umt_trace *t, const struct opts *o)
{
	if (o->parts && o->merge_parts) {
		report("index: --part and --merge go to separate runs");
		return EXIT_USAGE;
	}
	char dir[PATH_MAX];
	const char *where = o->index_dir;
	if (where == NULL) {
		if (umt_index_default_dir(o->trace_dir, dir, sizeof dir) < 0) {
			report_error(-1);
			return EXIT_BAD_TRACE;
		}
		where = dir;
	}
	umt_index_build_options bo;
	umt_index_build_options_init(&bo);
	bo.threads = o->threads;
	if (o->memory)
		bo.memory = o->memory;
	struct build_progress p = {.o = o, .phase = -1};
	bo.on_progress = on_progress;
	bo.ctx = &p;
	umt_index_build_stats s;
	double t0 = seconds();
	int rc = o->parts ? umt_index_build_part(t, where, o->part, o->parts, &bo, &s)
	         : o->merge_parts ? umt_index_build_merge(t, where, o->merge_parts, &bo, &s)
	                          : umt_index_build(t, where, &bo, &s);
	progress_end(&p.bar);
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	print(o, where, &s, t, seconds() - t0);
	return EXIT_OK;
}
