/*
 * umtdump state: the registers of a thread at a record, from the index
 * (umt_state_at), with the JSON contract of umtdump(1); in text also the
 * decoded flags, the instruction at rip with its module and offset, and
 * the top of the stack from memory (umt_mem_at), ?? where unknown.
 */
#include <ctype.h>
#include <stdlib.h>

#include "umtdump.h"

/* Words of the stack shown in text. */
#define STACK_WORDS 8

size_t reg_value_text(const uint8_t *data, const uint8_t *known, uint32_t n, char *buf)
{
	static const char hex[] = "0123456789abcdef";
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += known[i] != 0;
	if (k == 0)
		return 0;
	size_t len = 0;
	if (n <= 8 && k == n) { /* a number, as exec --context shows registers */
		uint64_t v = 0;
		for (uint32_t i = n; i-- > 0;)
			v = v << 8 | data[i];
		return (size_t)snprintf(buf, 20, "0x%llx", (unsigned long long)v);
	}
	if (n <= 8)
		buf[len++] = '0', buf[len++] = 'x';
	for (uint32_t c = 0; c < n; c++) { /* most significant first up to 8 bytes, else memory order */
		uint32_t i = n <= 8 ? n - 1 - c : c;
		buf[len++] = known[i] ? hex[data[i] >> 4] : '?';
		buf[len++] = known[i] ? hex[data[i] & 15] : '?';
	}
	buf[len] = '\0';
	return len;
}

/* The context map's name of @p reg, in lower case. */
const char *reg_lower_name(const umt_trace *t, int reg)
{
	static char name[UMT_REG_NAME_MAX];
	snprintf(name, sizeof name, "%s", reg_name(t, reg));
	for (char *p = name; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return name;
}

static void print_json(const umt_trace *t, const umt_state *s)
{
	struct jw j;
	char buf[2 * UMT_REG_MAX_SIZE + 4];
	jw_begin(&j);
	jw_u64(&j, "at", s->at);
	jw_u64(&j, "thread_id", s->thread);
	for (int pass = 0; pass < 2; pass++) {
		jw_open(&j, pass ? "sources" : "registers", '{');
		for (int reg = 0; reg < umt_context_map_get(t)->ElemCount; reg++) {
			umt_reg_value v;
			if (umt_state_reg(s, reg, &v) < 0 || v.largest != reg)
				continue;
			jw_tkey(&j, reg_lower_name(t, reg));
			if (pass == 0 && reg_value_text(v.data, v.known, v.size, buf))
				jw_str(&j, NULL, buf);
			else if (pass == 1 && v.source != UMT_NO_RECORD)
				jw_u64(&j, NULL, v.source);
			else
				jw_null(&j, NULL);
		}
		jw_close(&j, '}');
	}
	jw_end(&j);
}

/* The first of @p names the state's map has, as a number (0 when unknown): *found set. */
static uint64_t known_reg(const umt_trace *t, const umt_state *s, const char *const *names,
                          const char **name, bool *found)
{
	*found = false;
	for (; *names; names++) {
		umt_reg_value v;
		int reg = umt_reg_by_name(t, *names);
		if (reg < 0 || umt_state_reg(s, reg, &v) < 0)
			continue;
		*name = *names;
		uint64_t x = 0;
		for (uint32_t i = v.size < 8 ? v.size : 8; i-- > 0;)
			x = x << 8 | v.data[i];
		*found = v.known_bytes == v.size;
		return x;
	}
	return 0;
}

static void print_flags(const umt_trace *t, const umt_state *s)
{
	static const char *const names[] = {"rflags", "eflags", NULL};
	static const struct { unsigned bit; const char *name; } bits[] = {
		{0, "CF"}, {2, "PF"}, {4, "AF"}, {6, "ZF"}, {7, "SF"}, {8, "TF"}, {9, "IF"},
		{10, "DF"}, {11, "OF"}};
	const char *name = "flags";
	bool found;
	uint64_t f = known_reg(t, s, names, &name, &found);
	if (!found)
		return;
	out_printf("%-8s 0x%llx [", name, (unsigned long long)f);
	for (size_t i = 0, n = 0; i < sizeof bits / sizeof bits[0]; i++)
		if (f >> bits[i].bit & 1)
			out_printf("%s%s", n++ ? " " : "", bits[i].name);
	out_str("]\n");
}

/*
 * The instruction at rip: the record's own when it is an instruction of the
 * thread (its address is where rip is, whatever rip's latest observation
 * says: instructions seldom record rip), else rip's value; with its module
 * and offset.
 */
static void print_rip(const umt_trace *t, const umt_state *s)
{
	static const char *const names[] = {"rip", "eip", NULL};
	const char *name = "rip", *text = NULL;
	bool found;
	uint64_t rip = known_reg(t, s, names, &name, &found), module;
	umt_rec r;
	int64_t ins = -1;
	const umt_ins_rec *row;
	size_t len = 0;
	if (umt_exec_get(t, s->at, &r) == 0 && r.thread_id >= 0 && (uint64_t)r.thread_id == s->thread &&
	    umt_rec_ins(&r, &ins, NULL, NULL) == 0 && ins >= 0 &&
	    umt_ins_get(t, (uint64_t)ins, &row) == 0) {
		rip = (uint64_t)row->Address, found = true;
		if (umt_ins_disasm(t, (uint64_t)ins, &text, &len) < 0)
			text = NULL;
	}
	if (!found)
		return;
	out_printf("%-8s 0x%llx", name, (unsigned long long)rip);
	const umt_module_rec *m;
	char path[1024];
	if (umt_module_find(t, rip, s->at, &module) == 0 && umt_module_get(t, module, &m) == 0 &&
	    umt_module_name(t, module, UMT_MODULE_WIN_NAME, path, sizeof path) >= 0) {
		const char *base = strrchr(path, '\\') ? strrchr(path, '\\') + 1 : path;
		out_str("  ");
		out_textz(base);
		out_printf("+0x%llx", (unsigned long long)(rip - (uint64_t)m->StartAddr));
	}
	if (text) {
		out_str("  ");
		out_text(text, len);
	}
	out_char('\n');
}

/* The top of the stack from memory at the record, a word a line. */
static int print_stack(const umt_trace *t, const umt_index *ix, const umt_state *s)
{
	static const char *const names[] = {"rsp", "esp", NULL};
	const char *name = "rsp";
	bool found;
	uint64_t sp = known_reg(t, s, names, &name, &found);
	unsigned word = s->is_64bit ? 8 : 4;
	uint8_t data[STACK_WORDS * 8], known[STACK_WORDS * 8];
	if (!found || sp + (STACK_WORDS * word - 1) < sp)
		return 0;
	int rc = umt_mem_at(ix, s->at, sp, STACK_WORDS * word, data, known, NULL);
	if (rc < 0)
		return rc;
	out_printf("stack at %s:\n", name);
	for (unsigned w = 0; w < STACK_WORDS; w++) {
		char buf[40];
		out_printf("  0x%llx  ", (unsigned long long)(sp + w * word));
		out_str(reg_value_text(data + w * word, known + w * word, word, buf) ? buf : "??");
		out_char('\n');
	}
	return 0;
}

static int print_text(const umt_trace *t, const umt_index *ix, const umt_state *s)
{
	char buf[2 * UMT_REG_MAX_SIZE + 4];
	out_printf("registers of thread %llu at record %llu (%d-bit map)\n",
	           (unsigned long long)s->thread, (unsigned long long)s->at, s->is_64bit ? 64 : 32);
	for (int reg = 0; reg < umt_context_map_get(t)->ElemCount; reg++) {
		umt_reg_value v;
		if (umt_state_reg(s, reg, &v) < 0 || v.largest != reg)
			continue;
		out_str_pad(reg_lower_name(t, reg), 9);
		const char *text = reg_value_text(v.data, v.known, v.size, buf) ? buf : "??";
		if (v.source == UMT_NO_RECORD)
			out_str(text);
		else
			out_str_pad(text, 20), out_printf("from record %llu", (unsigned long long)v.source);
		out_char('\n');
	}
	print_flags(t, s);
	print_rip(t, s);
	return print_stack(t, ix, s);
}

int cmd_state(umt_trace *t, const struct opts *o)
{
	if (!at_given(o, "state") || !at_exists(t, o))
		return EXIT_USAGE;
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	umt_index *ix;
	int rc = open_index(t, o, &ix);
	if (rc)
		return rc;
	umt_state s;
	if ((rc = umt_state_init(ix, &s)) == 0 && (rc = umt_state_at(ix, o->at, o->thread, &s)) == 0) {
		if (o->json)
			print_json(t, &s);
		else
			rc = print_text(t, ix, &s);
	}
	if (rc < 0)
		report_error(rc);
	umt_state_release(&s);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
