/*
 * umtdump coverage: executed instructions per module from the index's
 * coverage section (index.h section 10): one object per module row and one
 * for code outside modules; --module keeps the rows of one module, --drcov
 * writes the coverage for Lighthouse (drcov.c), --diff compares with
 * another trace (umt_coverage_diff()).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "umtdump.h"

/* The module's Windows name (UTF-8) into @p buf; "" when unreadable (reported). */
const char *entry_name(const umt_trace *t, int64_t module, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (module >= 0 && umt_module_name(t, (uint64_t)module, UMT_MODULE_WIN_NAME, buf, cap) < 0)
		report_error(-1);
	return buf;
}

/* Whether @p name (a Windows path) is @p want: the whole path or its file name, any case. */
bool module_name_matches(const char *name, const char *want)
{
	const char *base = name;
	for (const char *p = name; *p; p++)
		if (*p == '\\' || *p == '/')
			base = p + 1;
	return strcasecmp(name, want) == 0 || strcasecmp(base, want) == 0;
}

static void print_entry(const umt_trace *t, const struct opts *o, const umt_coverage_module *m)
{
	char name[1024];
	entry_name(t, m->module_id, name, sizeof name);
	if (o->json) {
		struct jw j;
		jw_begin(&j);
		if (m->module_id >= 0) {
			jw_str(&j, "module", name);
			jw_i64(&j, "module_id", m->module_id);
			jw_hex(&j, "base", m->base);
		} else {
			jw_null(&j, "module");
			jw_null(&j, "module_id");
			jw_null(&j, "base");
		}
		jw_u64(&j, "addresses", m->addresses);
		jw_u64(&j, "executions", m->executions);
		jw_end(&j);
		return;
	}
	if (m->module_id >= 0)
		out_i64_pad(m->module_id, 6);
	else
		out_str("     -");
	out_char(' ');
	if (m->module_id >= 0)
		out_hex_left(m->base, 19);
	else
		out_str_pad("-", 19);
	out_u64_pad(m->addresses, 10);
	out_u64_pad(m->executions, 14);
	out_spaces(2);
	out_textz(m->module_id >= 0 ? name : "(outside modules)");
	out_char('\n');
}

/* Lists the entries (those of --module NAME only); EXIT_USAGE when NAME matches none. */
static int list_entries(const umt_trace *t, const umt_index *ix, const struct opts *o)
{
	uint64_t n = umt_coverage_count(ix), shown = 0;
	if (!o->json)
		out_str("MODULE BASE                ADDRESSES    EXECUTIONS  NAME\n");
	for (uint64_t e = 0; e < n && !out_closed(); e++) {
		umt_coverage_module m;
		char name[1024];
		int rc = umt_coverage_get(ix, e, &m);
		if (rc < 0) {
			report_error(rc);
			return EXIT_BAD_TRACE;
		}
		if (o->module_name &&
		    (m.module_id < 0 ||
		     !module_name_matches(entry_name(t, m.module_id, name, sizeof name), o->module_name)))
			continue;
		print_entry(t, o, &m);
		shown++;
	}
	if (o->module_name && shown == 0) {
		report("--module %s: no such module in the trace", o->module_name);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* ---- --diff ----------------------------------------------------------------------------- */

/* The deltas of one side of the group being gathered. */
struct side_buf {
	umt_coverage_delta first; /* its first delta: module row, base */
	uint64_t *addr, *off;
	size_t n, cap;
};

/* Deltas arrive group by group, both sides interleaved by offset: gathered per side. */
struct diff_out {
	const struct opts *o;
	const umt_trace *t[2];
	bool open;
	uint64_t group;
	struct side_buf side[2];
};

static void print_side(const struct diff_out *d, int s)
{
	const struct side_buf *b = &d->side[s];
	const umt_coverage_delta *f = &b->first;
	bool in_module = f->module_id >= 0;
	char name[1024];
	entry_name(d->t[s], f->module_id, name, sizeof name);
	const char *which = s == 0 ? "this" : "other";
	if (!d->o->json) {
		out_printf("only in %-5s  %s  %zu address%s\n", which,
		           in_module ? name : "(outside modules)", b->n, b->n == 1 ? "" : "es");
		for (size_t i = 0; i < b->n; i++) {
			out_str("  ");
			out_hex(b->addr[i]);
			if (in_module)
				out_printf("  +0x%llx", (unsigned long long)b->off[i]);
			out_char('\n');
		}
		return;
	}
	struct jw j;
	jw_begin(&j);
	jw_str(&j, "module", in_module ? name : NULL);
	jw_str(&j, "only_in", which);
	if (in_module) {
		jw_i64(&j, "module_id", f->module_id);
		jw_hex(&j, "base", f->address - f->offset);
	} else {
		jw_null(&j, "module_id");
		jw_null(&j, "base");
	}
	jw_open(&j, "addresses", '[');
	for (size_t i = 0; i < b->n; i++)
		jw_hex(&j, NULL, b->addr[i]);
	jw_close(&j, ']');
	jw_open(&j, "offsets", '[');
	for (size_t i = 0; i < b->n; i++)
		jw_hex(&j, NULL, b->off[i]);
	jw_close(&j, ']');
	jw_end(&j);
}

/* Prints the group gathered: this trace's side, then the other's. */
static void flush_group(struct diff_out *d)
{
	for (int s = 0; s < 2; s++) {
		if (d->side[s].n > 0)
			print_side(d, s);
		d->side[s].n = 0;
	}
	d->open = false;
}

static bool push(struct side_buf *b, const umt_coverage_delta *x)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 256;
		uint64_t *a = realloc(b->addr, cap * sizeof *a);
		if (a == NULL)
			return false;
		b->addr = a;
		uint64_t *f = realloc(b->off, cap * sizeof *f);
		if (f == NULL)
			return false;
		b->off = f;
		b->cap = cap;
	}
	if (b->n == 0)
		b->first = *x;
	b->addr[b->n] = x->address;
	b->off[b->n++] = x->offset;
	return true;
}

/* A stop without an error: the reader of the output went away. */
#define DIFF_STOP 1000

static int on_delta(const umt_coverage_delta *x, void *ctx)
{
	struct diff_out *d = ctx;
	if (d->open && x->group != d->group)
		flush_group(d);
	d->open = true;
	d->group = x->group;
	if (!push(&d->side[x->side], x)) {
		report("out of memory");
		return EXIT_BAD_TRACE;
	}
	return out_closed() ? DIFF_STOP : 0;
}

static int diff_traces(const umt_trace *t, const umt_index *ix, const struct opts *o)
{
	struct opts other = *o;
	other.trace_dir = o->diff_trace;
	other.index_dir = NULL;
	umt_trace *t2;
	umt_index *ix2 = NULL;
	int lost = EXIT_OK, status;
	if (open_trace(&other, &t2, &lost) < 0)
		return EXIT_BAD_TRACE;
	if ((status = open_index(t2, &other, &ix2)) == EXIT_OK) {
		struct diff_out d = {.o = o, .t = {t, t2}};
		int rc = umt_coverage_diff(ix, ix2, on_delta, &d);
		flush_group(&d);
		if (rc < 0) {
			report_error(rc);
			status = EXIT_BAD_TRACE;
		} else if (rc != DIFF_STOP) {
			status = rc;
		}
		for (int s = 0; s < 2; s++) {
			free(d.side[s].addr);
			free(d.side[s].off);
		}
	}
	umt_index_close(ix2);
	umt_trace_close(t2);
	return status ? status : lost;
}

int cmd_coverage(umt_trace *t, const struct opts *o)
{
	umt_index *ix;
	int status = open_index(t, o, &ix);
	if (status != EXIT_OK)
		return status;
	if (umt_coverage_count(ix) == 0) {
		report("the index has no coverage section: rebuild it (umtdump index %s)",
		       o->trace_dir);
		umt_index_close(ix);
		return EXIT_BAD_TRACE;
	}
	if (o->diff_trace)
		status = diff_traces(t, ix, o);
	else
		status = list_entries(t, ix, o);
	if (status == EXIT_OK && o->drcov_path)
		status = write_drcov(t, ix, o);
	umt_index_close(ix);
	return status;
}
