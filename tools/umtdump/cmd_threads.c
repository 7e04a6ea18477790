/*
 * umtdump threads: thread records.
 */
#include "umtdump.h"

static void text_row(uint64_t id, const umt_thread_rec *r)
{
	out_u64_pad(id, 4);
	out_i64_pad(r->WinTID, 9);
	out_printf("  0x%-16llx", (unsigned long long)r->TIBAddr);
	out_i64_pad(r->FirstEID, 11);
	out_i64_pad(r->LastEID, 11);
	out_i64_pad(r->RecCount, 11);
	out_char('\n');
}

static void json_row(uint64_t id, const umt_thread_rec *r)
{
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "id", id);
	jw_i64(&j, "win_tid", r->WinTID);
	jw_hex(&j, "tib_addr", (uint64_t)r->TIBAddr);
	jw_i64(&j, "first_eid", r->FirstEID);
	jw_i64(&j, "last_eid", r->LastEID);
	jw_i64(&j, "rec_count", r->RecCount);
	jw_end(&j);
}

int cmd_threads(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_thread_count(t);
	if (!o->json)
		out_str("  ID   WIN_TID  TIB_ADDR            FIRST_EID   LAST_EID  REC_COUNT\n");
	int status = EXIT_OK;
	for (uint64_t id = 0; id < n && !out_closed(); id++) {
		const umt_thread_rec *r;
		int rc = umt_thread_get(t, id, &r);
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
			continue;
		}
		if (o->json)
			json_row(id, r);
		else
			text_row(id, r);
	}
	return status;
}
