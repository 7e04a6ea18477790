/*
 * umtdump address-space: the used address ranges.
 */
#include "umtdump.h"

int cmd_address_space(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_address_range_count(t);
	if (!o->json)
		out_str("    ID  FIRST               LAST                     PAGES\n");
	int status = EXIT_OK;
	for (uint64_t id = 0; id < n && !out_closed(); id++) {
		const umt_address_range *r;
		int rc = umt_address_range_get(t, id, &r);
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
			continue;
		}
		uint64_t first = (uint64_t)r->First, last = (uint64_t)r->Last;
		if (o->json) {
			struct jw j;
			jw_begin(&j);
			jw_u64(&j, "id", id);
			jw_hex(&j, "first", first);
			jw_hex(&j, "last", last);
			jw_end(&j);
			continue;
		}
		out_u64_pad(id, 6);
		out_printf("  0x%-16llx  0x%-16llx ", (unsigned long long)first,
		           (unsigned long long)last);
		/* whole 4 KiB pages in [first, last]; "-" for a range that is not one */
		if (last >= first && (first & 0xfff) == 0 && (last & 0xfff) == 0xfff)
			out_u64_pad((last - first) / 4096 + 1, 8);
		else
			out_str("       -");
		out_char('\n');
	}
	return status;
}
