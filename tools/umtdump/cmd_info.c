/*
 * umtdump info: counts of every table, format versions, the essentials of
 * trace.xml, file sizes.
 */
#include "umtdump.h"

/* trace.xml essentials; ok is false when trace.xml is malformed. */
struct xml_info {
	bool ok;
	umt_meta_info m;
};

static void info_json(umt_trace *t, const umt_trace_info *i, const struct xml_info *x,
                      const struct opts *o)
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
	jw_str(&j, "xml_layout", x->ok ? meta_layout_name(x->m.layout) : NULL);
	jw_str(&j, "xed_version", x->ok ? x->m.xed_version : NULL);
	if (x->ok && x->m.process_id && x->m.pid >= 0)
		jw_i64(&j, "process_id", x->m.pid);
	else
		jw_null(&j, "process_id");
	if (x->ok && x->m.bitness > 0)
		jw_i64(&j, "bitness", x->m.bitness);
	else
		jw_null(&j, "bitness");
	jw_str(&j, "os_name", x->ok ? x->m.os_name : NULL);
	jw_str(&j, "app_command_line", x->ok ? x->m.app_command_line : NULL);
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

static void text_line(const char *label, const char *value)
{
	out_str_pad(label, 18);
	if (value)
		out_textz(value);
	else
		out_char('-');
	out_char('\n');
}

static void xml_text(const umt_trace_info *i, const struct xml_info *x)
{
	if (!i->has_trace_xml) {
		text_line("trace.xml", "missing");
		return;
	}
	if (!x->ok) {
		text_line("trace.xml", "malformed");
		return;
	}
	out_str_pad("trace.xml", 18);
	out_str(x->m.layout == UMT_META_2015 ? "2015 layout (TraceMetaData root)\n"
	                                     : "pre-2015 layout (no root element)\n");
	text_line("  XED version", x->m.xed_version);
	text_line("  process ID", x->m.process_id);
	char bits[16];
	snprintf(bits, sizeof bits, "%d", x->m.bitness);
	text_line("  bitness", x->m.bitness > 0 ? bits : NULL);
	text_line("  OS name", x->m.os_name);
	text_line("  command line", x->m.app_command_line);
}

static void info_text(umt_trace *t, const umt_trace_info *i, const struct xml_info *x,
                      const struct opts *o)
{
	text_line("trace", o->trace_dir);
	out_printf("exec records      %llu (exec.vtable version %d)\n",
	           (unsigned long long)i->exec_count, i->exec_version);
	out_printf("instructions      %llu (insRec version %d: lcSlot offset 2 is %s)\n",
	           (unsigned long long)i->ins_count, i->ins_record_version,
	           i->ins_record_version >= 1 ? "CommonRegName" : "LargestEnclosing");
	out_printf("syscalls          %llu (syscall.vtable version %d, unified IDs version %d)\n",
	           (unsigned long long)i->syscall_count, i->syscall_version,
	           i->unified_ids_version);
	out_printf("modules           %llu (%llu-byte rows)\n", (unsigned long long)i->module_count,
	           (unsigned long long)i->module_row_size);
	out_printf("threads           %llu (%llu-byte rows)\n", (unsigned long long)i->thread_count,
	           (unsigned long long)i->thread_row_size);
	out_printf("address ranges    %llu\n", (unsigned long long)i->address_range_count);
	out_printf("context map       %u-byte register dumps, %u register entries\n", i->dump_size,
	           i->context_map_elems);
	xml_text(i, x);
	out_str("files\n");
	for (int f = 0; f < UMT_FILE_COUNT; f++) {
		out_spaces(2);
		out_str_pad(umt_file_name(f), 22);
		if (f == UMT_FILE_TRACE_XML && !i->has_trace_xml)
			out_printf("%12s\n", "missing");
		else
			out_printf("%12llu bytes\n", (unsigned long long)umt_trace_file_size(t, f));
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
	/* a malformed trace.xml is reported; the binary tables are still shown */
	struct xml_info x = {false, {0}};
	const umt_meta *m;
	int status = EXIT_OK;
	if ((rc = umt_trace_meta(t, &m)) == 0 && (rc = umt_meta_get_info(m, &x.m)) == 0) {
		x.ok = true;
	} else {
		report_error(rc);
		status = EXIT_BAD_TRACE;
	}
	if (o->json)
		info_json(t, &i, &x, o);
	else
		info_text(t, &i, &x, o);
	return status;
}
