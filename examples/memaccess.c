/*
 * memaccess: every memory read and write of every thread, as CSV.
 *
 *   memaccess TRACE_DIR
 *
 * Columns: thread, record, instruction, access (read or write), address,
 * size, value (hex bytes in memory order). The accesses are the library's
 * (umt_access_iter, umtrace.h section 8b): every memory slot of an
 * instruction's local context, implicit operands such as push's stack slot
 * included. Reads are before values of operands the instruction reads,
 * writes after values; the old contents of write-only operands are not
 * accesses. A record that was not completely traced (flags 0x10-0x80) may
 * have accesses that cannot be believed: one whose address is not reliable
 * is left out (where it went is not known), one whose value is not
 * reliable has the value "?".
 */
#include <inttypes.h>
#include <stdio.h>

#include <umtrace/umtrace.h>

static int print_accesses(const umt_trace *t, const umt_rec *r)
{
	int64_t ins_id;
	umt_access_iter it;
	umt_access a;
	int rc;
	if ((rc = umt_rec_ins(r, &ins_id, NULL, NULL)) < 0 ||
	    (rc = umt_access_iter_init(&it, t, r, UMT_ACCESS_READ | UMT_ACCESS_WRITE)) < 0)
		return rc;
	while ((rc = umt_access_iter_next(&it, &a)) > 0) {
		if (!(a.trust & UMT_TRUST_ADDRESS))
			continue;
		printf("%d,%" PRIu64 ",%" PRId64 ",%s,0x%" PRIx64 ",%" PRIu64 ",", r->thread_id, r->id,
		       ins_id, umt_access_kind_name(a.kind), a.address, a.size);
		if (!(a.trust & UMT_TRUST_VALUE))
			putchar('?');
		else
			for (uint64_t i = 0; i < a.size; i++)
				printf("%02x", a.data[i]);
		putchar('\n');
	}
	return rc;
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
