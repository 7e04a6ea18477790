/*
 * umtdump info: counts of every table, format versions, file sizes.
 */
#include "umtdump.h"

static void info_json(umt_trace *t, const umt_trace_info *i, const struct opts *o)
{
	struct jw j;
	jw_begin(&j);
	jw_str(&j, "trace", o->trace_dir);
	jw_u64(&j, "exec_count", i->exec_count);
	jw_i64(&j, "exec_version", i->exec_version);
	jw_u64(&j, "ins_count", i->ins_count);
	jw_i64(&j, "ins_record_version", i->ins_record_version);
	jw_u64(&j, "syscall_count", i->syscall_count);
	jw_i64(&j, "syscall_version", i->syscall_version);
	jw_i64(&j, "unified_ids_version", i->unified_ids_version);
	jw_u64(&j, "module_count", i->module_count);
	jw_u64(&j, "module_row_size", i->module_row_size);
	jw_u64(&j, "thread_count", i->thread_count);
	jw_u64(&j, "thread_row_size", i->thread_row_size);
	jw_u64(&j, "address_range_count", i->address_range_count);
	jw_u64(&j, "dump_size", i->dump_size);
	jw_u64(&j, "context_map_elems", i->context_map_elems);
	jw_open(&j, "files", '{');
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (f == UMT_FILE_TRACE_XML && !i->has_trace_xml)
			jw_null(&j, umt_file_name(f));
		else
			jw_u64(&j, umt_file_name(f), umt_trace_file_size(t, f));
	}
	jw_close(&j, '}');
	jw_end(&j);
}

static void info_text(umt_trace *t, const umt_trace_info *i, const struct opts *o)
{
	printf("trace             %s\n", o->trace_dir);
	printf("exec records      %llu (exec.vtable version %d)\n",
	       (unsigned long long)i->exec_count, i->exec_version);
	printf("instructions      %llu (insRec version %d: lcSlot offset 2 is %s)\n",
	       (unsigned long long)i->ins_count, i->ins_record_version,
	       i->ins_record_version >= 1 ? "CommonRegName" : "LargestEnclosing");
	printf("syscalls          %llu (unified IDs version %d)\n",
	       (unsigned long long)i->syscall_count, i->unified_ids_version);
	printf("modules           %llu (%llu-byte rows)\n", (unsigned long long)i->module_count,
	       (unsigned long long)i->module_row_size);
	printf("threads           %llu (%llu-byte rows)\n", (unsigned long long)i->thread_count,
	       (unsigned long long)i->thread_row_size);
	printf("address ranges    %llu\n", (unsigned long long)i->address_range_count);
	printf("context map       %u-byte register dumps, %u register entries\n", i->dump_size,
	       i->context_map_elems);
	printf("files\n");
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		if (f == UMT_FILE_TRACE_XML && !i->has_trace_xml)
			printf("  %-22s missing\n", umt_file_name(f));
		else
			printf("  %-22s %12llu bytes\n", umt_file_name(f),
			       (unsigned long long)umt_trace_file_size(t, f));
	}
}

int cmd_info(umt_trace *t, const struct opts *o)
{
	umt_trace_info i;
	int rc = umt_trace_get_info(t, &i);
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	if (o->json)
		info_json(t, &i, o);
	else
		info_text(t, &i, o);
	return EXIT_OK;
}
