/*
 * regtrack: the value history of one register along one thread, from
 * instruction operand values and register contexts.
 *
 *   regtrack TRACE_DIR THREAD REGISTER
 *
 * Prints a line each time the value of REGISTER (a context-map name such as
 * rsp, eax or al) is seen to change: the record, where the value came from
 * (an instruction's local context before or after it ran, or a register
 * context) and the value.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <umtrace/umtrace.h>

struct seen {
	uint8_t value[64];
	uint32_t size;
	int known;
};

static void show(struct seen *last, uint64_t id, const char *from, const umt_value *v)
{
	if (last->known && last->size == v->size && !memcmp(last->value, v->data, v->size))
		return;
	printf("%10" PRIu64 "  %-7s 0x", id, from);
	for (uint32_t i = v->size; i-- > 0;) /* little-endian: most significant byte first */
		printf("%02x", v->data[i]);
	putchar('\n');
	last->size = v->size < sizeof last->value ? v->size : sizeof last->value;
	memcpy(last->value, v->data, last->size);
	last->known = 1;
}

/* The register's values in one record, if it holds any. */
static int track(const umt_trace *t, const umt_rec *r, int reg, struct seen *last)
{
	umt_value v;
	if (r->type == UMT_REC_INSTRUCTION) {
		umt_ins_exec x;
		int rc = umt_rec_ins_exec(t, r, &x);
		if (rc < 0)
			return rc;
		if (umt_lc_find_reg(t, &x, reg, UMT_BEFORE, &v) == 0)
			show(last, r->id, "before", &v);
		if (umt_lc_find_reg(t, &x, reg, UMT_AFTER, &v) == 0)
			show(last, r->id, "after", &v);
	} else if (umt_rec_type_has_context(r->type)) {
		umt_context c;
		int rc = umt_rec_context(t, r, &c);
		if (rc < 0)
			return rc;
		if (umt_context_reg(t, &c, reg, &v) == 0)
			show(last, r->id, "context", &v);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: regtrack TRACE_DIR THREAD REGISTER\n");
		return 2;
	}
	umt_trace *t;
	if (umt_trace_open(argv[1], 0, &t) < 0) {
		fprintf(stderr, "regtrack: %s\n", umt_errmsg());
		return 1;
	}
	int reg = umt_reg_by_name(t, argv[3]);
	umt_thread_iter it;
	if (reg < 0 || umt_thread_iter_init_thread(&it, t, strtoull(argv[2], NULL, 0)) < 0) {
		fprintf(stderr, "regtrack: %s\n", reg < 0 ? "no such register" : umt_errmsg());
		umt_trace_close(t);
		return 1;
	}
	struct seen last = {.known = 0};
	umt_rec r;
	int rc, status = 0;
	while ((rc = umt_thread_iter_next(&it, &r)) == 1)
		if (track(t, &r, reg, &last) < 0) {
			fprintf(stderr, "regtrack: %s\n", umt_errmsg());
			status = 1;
		}
	if (rc < 0) {
		fprintf(stderr, "regtrack: %s\n", umt_errmsg());
		status = 1;
	}
	umt_trace_close(t);
	return status;
}
