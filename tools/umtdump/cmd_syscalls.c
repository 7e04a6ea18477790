/*
 * umtdump syscalls: system call records with their arguments and results,
 * named when the syscall table of the trace's UnifiedIDsVer is loaded.
 */
#include "umtdump.h"

static void text_row(const umt_trace *t, const struct opts *o, const umt_syscall *s)
{
	const umt_syscall_rec *r = s->rec;
	out_u64_pad(s->id, 6);
	out_printf("  0x%04x ", (unsigned)(uint16_t)r->RawID);
	out_i64_pad(r->UniformID, 7);
	out_char(' ');
	const char *conv = convention_name(r->Convention);
	if (conv)
		out_str_pad(conv, 9);
	else
		out_printf("%-9u", r->Convention);
	out_u64_pad(r->Completed, 4);
	out_i64_pad(r->BeginEID, 11);
	out_i64_pad(r->EndEID, 11);
	out_printf("  0x%-16llx 0x%-16llx ", (unsigned long long)r->BeforeSP,
	           (unsigned long long)r->Result);
	const char *name = syscall_name(o, t, r->UniformID);
	out_textz(name ? name : "-");
	out_str("\n        args");
	for (unsigned i = 0; i < r->ArgCount; i++) {
		uint64_t v = 0;
		umt_syscall_arg(s, i, &v);
		out_char(' ');
		out_hex(v);
	}
	if (s->args_fp_absolute)
		out_str("  (ArgsFP read as an absolute offset)");
	out_char('\n');
	if (r->ExtraCount || s->extras_size) {
		out_printf("        extras %u, %llu bytes ", r->ExtraCount,
		           (unsigned long long)s->extras_size);
		out_hexbytes(s->extras, s->extras_size < 32 ? (size_t)s->extras_size : 32);
		if (s->extras_size > 32)
			out_str("...");
		out_char('\n');
	}
}

static void json_row(const umt_trace *t, const struct opts *o, const umt_syscall *s)
{
	const umt_syscall_rec *r = s->rec;
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "id", s->id);
	jw_i64(&j, "raw_id", r->RawID);
	jw_named(&j, "uniform_id", r->UniformID, syscall_name(o, t, r->UniformID));
	jw_named(&j, "convention", r->Convention, convention_name(r->Convention));
	jw_u64(&j, "completed", r->Completed);
	jw_u64(&j, "arg_count", r->ArgCount);
	jw_u64(&j, "extra_count", r->ExtraCount);
	jw_i64(&j, "begin_eid", r->BeginEID);
	jw_i64(&j, "end_eid", r->EndEID);
	jw_hex(&j, "before_sp", (uint64_t)r->BeforeSP);
	jw_hex(&j, "result", (uint64_t)r->Result);
	jw_open(&j, "args", '[');
	for (unsigned i = 0; i < r->ArgCount; i++) {
		uint64_t v = 0;
		umt_syscall_arg(s, i, &v);
		jw_hex(&j, NULL, v);
	}
	jw_close(&j, ']');
	jw_bool(&j, "args_fp_absolute", s->args_fp_absolute);
	jw_bytes(&j, "extras", s->extras, s->extras_size);
	jw_end(&j);
}

int cmd_syscalls(umt_trace *t, const struct opts *o)
{
	uint64_t n = umt_syscall_count(t);
	if (!o->json)
		out_str("    ID     RAW UNIFORM CONV     DONE      BEGIN        END  BEFORE_SP"
		        "          RESULT             NAME\n");
	int status = EXIT_OK;
	for (uint64_t id = 0; id < n && !out_closed(); id++) {
		umt_syscall s;
		int rc = umt_syscall_get(t, id, &s);
		if (rc < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
			continue;
		}
		if (o->json)
			json_row(t, o, &s);
		else
			text_row(t, o, &s);
	}
	return status;
}
