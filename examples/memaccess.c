/*
 * memaccess: every memory read and write of every thread, as CSV.
 *
 *   memaccess TRACE_DIR
 *
 * Columns: thread, record, instruction, access (read or write), address,
 * size, value (hex bytes in memory order). Reads are the memory slots of the
 * before group of an instruction's local context, writes those of the after
 * group (spec 7.2.1); implicit operands such as push's stack slot included.
 */
#include <inttypes.h>
#include <stdio.h>

#include <umtrace/umtrace.h>

static int print_accesses(const umt_trace *t, const umt_rec *r)
{
	umt_ins_exec x;
	int rc = umt_rec_ins_exec(t, r, &x);
	if (rc < 0)
		return rc;
	for (unsigned s = 0; s < x.dec.ins->LCCount; s++) {
		int group = umt_decoded_slot_group(&x.dec, s);
		const umt_lc_slot *slot = umt_decoded_slot(&x.dec, s);
		/* write-only operands' before values are not accesses */
		if (slot->AddrWidth == 0 || group == UMT_SLOT_GROUP_BEFORE_WRITE_ONLY)
			continue;
		umt_value v;
		uint64_t address;
		if ((rc = umt_lc_slot_value(&x, s, &v, &address)) < 0)
			return rc;
		printf("%d,%" PRIu64 ",%" PRId64 ",%s,0x%" PRIx64 ",%u,", r->thread_id, r->id,
		       x.ins_id, group == UMT_SLOT_GROUP_AFTER ? "write" : "read", address, v.size);
		for (uint32_t i = 0; i < v.size; i++)
			printf("%02x", v.data[i]);
		putchar('\n');
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: memaccess TRACE_DIR\n");
		return 2;
	}
	umt_trace *t;
	if (umt_trace_open(argv[1], 0, &t) < 0) {
		fprintf(stderr, "memaccess: %s\n", umt_errmsg());
		return 1;
	}
	int status = 0;
	printf("thread,record,instruction,access,address,size,value\n");
	for (uint64_t th = 0; th < umt_thread_count(t); th++) {
		umt_thread_iter it;
		umt_rec r;
		int rc = umt_thread_iter_init_thread(&it, t, th);
		while (rc >= 0 && (rc = umt_thread_iter_next(&it, &r)) == 1)
			if (r.type == UMT_REC_INSTRUCTION && print_accesses(t, &r) < 0) {
				fprintf(stderr, "memaccess: %s\n", umt_errmsg());
				status = 1;
			}
		if (rc < 0) {
			fprintf(stderr, "memaccess: %s\n", umt_errmsg());
			status = 1;
		}
	}
	umt_trace_close(t);
	return status;
}
