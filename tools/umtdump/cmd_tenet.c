/*
 * umtdump tenet TRACE --thread T OUT: one thread's execution as a Tenet
 * trace (the text format Tenet's reader loads: gaasedelen/tenet), so that
 * IDA users can step through a UMTracer trace.
 *
 * One line per instruction record of the thread, in its order, of
 * comma-separated NAME=VALUE items: the general registers whose value
 * changed since the previous line (all those known on the first line), the
 * instruction pointer always (rip=0x... or eip=0x...), then mr=ADDR:HEX for
 * each memory read of the instruction and mw=ADDR:HEX for each write (hex
 * bytes in memory order). A line's registers are the state just before
 * its instruction executes, which is what Tenet shows at that step.
 *
 * The state is the latest observation (index.h section 1), per register,
 * along the thread: a context (thread begin, system call entry and exit,
 * context changes) gives every register; an instruction record gives the
 * before values of the registers it reads or writes, and its after values
 * hold from the next record on (unless its outputs are not reliable, see
 * umtrace.h section 8b). Registers never observed yet are left out (Tenet
 * takes them as 0). Only accesses with trusted values are written; the old
 * content of write-only operands (peeks) and the memory blocks of contexts
 * are not instruction accesses and are left out.
 *
 * The architecture is the thread's first instruction's: AMD64 (rax...r15,
 * rip) for 64-bit code, x86 (eax...edi, eip) for 32-bit code. In an AMD64
 * file a 32-bit record's eax updates the low half of rax.
 */
#include <errno.h>
#include <string.h>

#include "umtdump.h"

#define NREGS 17 /* rax...r15 and rip; x86 uses the first 8 and the instruction pointer */
#define IP (NREGS - 1)

static const char *const names64[NREGS] = {"rax", "rbx", "rcx", "rdx", "rbp", "rsp",
                                           "rsi", "rdi", "r8",  "r9",  "r10", "r11",
                                           "r12", "r13", "r14", "r15", "rip"};
static const char *const names32[NREGS] = {"eax", "ebx", "ecx", "edx", "ebp", "esp",
                                           "esi", "edi", NULL, NULL, NULL, NULL,
                                           NULL,  NULL,  NULL,  NULL,  "eip"};

struct tenet {
	const umt_trace *t;
	FILE *f;
	bool wide;                /* AMD64 */
	int id64[NREGS], id32[NREGS]; /* the trace's register numbers, -1 when absent */
	uint64_t value[NREGS], emitted[NREGS];
	bool known[NREGS], emitted_known[NREGS];
	uint64_t lines;
};

/* The first (up to 8) bytes of @p v as register @p r's value; a narrower one: its low part. */
static void observe(struct tenet *x, int r, const umt_value *v)
{
	unsigned n = v->size < 8 ? v->size : 8;
	uint64_t bytes = 0;
	memcpy(&bytes, v->data, n);
	uint64_t mask = n == 8 ? UINT64_MAX : ((1ull << (8 * n)) - 1);
	x->value[r] = (x->known[r] ? x->value[r] & ~mask : 0) | (bytes & mask);
	if (!x->wide) /* x86: a 64-bit record's rax gives eax */
		x->value[r] &= 0xffffffffu;
	x->known[r] = true;
}

static int used(const struct tenet *x, int r)
{
	return x->wide || names32[r] != NULL;
}

static void from_context(struct tenet *x, const umt_context *c)
{
	for (int r = 0; r < NREGS; r++) {
		umt_value v;
		if (!used(x, r))
			continue;
		/* the wide register in 64-bit dumps, the 32-bit one in 32-bit dumps */
		if ((x->id64[r] >= 0 && umt_context_reg(x->t, c, x->id64[r], &v) == 0) ||
		    (x->id32[r] >= 0 && umt_context_reg(x->t, c, x->id32[r], &v) == 0))
			observe(x, r, &v);
	}
}

static void from_lc(struct tenet *x, const umt_ins_exec *e, int when)
{
	for (int r = 0; r < IP; r++) {
		umt_value v;
		if (!used(x, r))
			continue;
		int id = e->is_64bit ? x->id64[r] : x->id32[r];
		if (id >= 0 && umt_lc_find_reg(x->t, e, id, when, &v) == 0)
			observe(x, r, &v);
	}
}

static void put_hex_bytes(FILE *f, const uint8_t *p, uint64_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (uint64_t i = 0; i < n; i++) {
		putc(digits[p[i] >> 4], f);
		putc(digits[p[i] & 15], f);
	}
}

/* The line of instruction record @p r: changed registers, the instruction pointer, accesses. */
static int write_line(struct tenet *x, const umt_rec *r)
{
	const char *const *names = x->wide ? names64 : names32;
	for (int i = 0; i < IP; i++) {
		if (!used(x, i) || !x->known[i] ||
		    (x->emitted_known[i] && x->emitted[i] == x->value[i]))
			continue;
		fprintf(x->f, "%s=0x%llx,", names[i], (unsigned long long)x->value[i]);
		x->emitted[i] = x->value[i];
		x->emitted_known[i] = true;
	}
	fprintf(x->f, "%s=0x%llx", names[IP], (unsigned long long)x->value[IP]);
	umt_access_iter it;
	umt_access a;
	int rc = umt_access_iter_init(&it, x->t, r, UMT_ACCESS_READ | UMT_ACCESS_WRITE);
	while (rc == 0 && (rc = umt_access_iter_next(&it, &a)) > 0) {
		if (!(a.trust & UMT_TRUST_VALUE) || a.size == 0)
			continue;
		fprintf(x->f, ",%s=0x%llx:", a.kind == UMT_ACCESS_READ ? "mr" : "mw",
		        (unsigned long long)a.address);
		put_hex_bytes(x->f, a.data, a.size);
		rc = 0;
	}
	putc('\n', x->f);
	x->lines++;
	return rc < 0 ? rc : 0;
}

static int instruction(struct tenet *x, const umt_rec *r)
{
	umt_ins_exec e;
	const umt_ins_rec *row;
	int rc = umt_rec_ins_exec(x->t, r, &e);
	if (rc == 0)
		rc = umt_ins_get(x->t, (uint64_t)e.ins_id, &row);
	if (rc < 0)
		return rc;
	from_lc(x, &e, UMT_BEFORE);
	x->value[IP] = (uint64_t)row->Address;
	x->known[IP] = true;
	if ((rc = write_line(x, r)) < 0)
		return rc;
	int version = 1;
	umt_trace_info info;
	if (umt_trace_get_info(x->t, &info) == 0)
		version = info.exec_version;
	if (umt_exec_reliability(version, r->flags) & UMT_RELIABLE_OUTPUTS)
		from_lc(x, &e, UMT_AFTER);
	return 0;
}

static int one_record(struct tenet *x, const umt_rec *r)
{
	if (r->type == UMT_REC_INSTRUCTION)
		return instruction(x, r);
	if (!umt_rec_type_has_context(r->type))
		return 0;
	umt_context c;
	int rc = umt_rec_context(x->t, r, &c);
	if (rc == 0)
		from_context(x, &c);
	return rc;
}

/* The architecture: that of the thread's first instruction record (64-bit when none). */
static bool thread_is_wide(const umt_trace *t, uint64_t thread)
{
	umt_thread_iter it;
	umt_rec r;
	if (umt_thread_iter_init_thread(&it, t, thread) < 0)
		return true;
	while (umt_thread_iter_next(&it, &r) == 1)
		if (r.type == UMT_REC_INSTRUCTION)
			return (r.flags & UMT_EXEC_F_64BIT) != 0;
	return true;
}

static int walk(struct tenet *x, const struct opts *o)
{
	umt_thread_iter it;
	umt_rec r;
	int rc = umt_thread_iter_init_thread(&it, x->t, (uint64_t)o->thread), status = EXIT_OK;
	if (rc < 0) {
		report_error(rc);
		return EXIT_BAD_TRACE;
	}
	while ((rc = umt_thread_iter_next(&it, &r)) != 0) {
		if (rc < 0) { /* the chain cannot be followed further */
			report_error(rc);
			return EXIT_BAD_TRACE;
		}
		if ((rc = one_record(x, &r)) < 0) {
			report_error(rc);
			if (failed_row(o, &status))
				break;
		}
	}
	return status;
}

int cmd_tenet(umt_trace *t, const struct opts *o)
{
	if (o->thread < 0) {
		report("tenet needs --thread TID (see umtdump tenet --help)");
		return EXIT_USAGE;
	}
	int st = thread_status(t, o);
	if (st != EXIT_OK)
		return st;
	struct tenet x;
	memset(&x, 0, sizeof x);
	x.t = t;
	x.wide = thread_is_wide(t, (uint64_t)o->thread);
	for (int r = 0; r < NREGS; r++) {
		x.id64[r] = umt_reg_by_name(t, names64[r]);
		x.id32[r] = names32[r] ? umt_reg_by_name(t, names32[r]) : -1;
	}
	x.f = fopen(o->args[0], "w");
	if (x.f == NULL) {
		report("%s: %s", o->args[0], strerror(errno));
		return EXIT_BAD_TRACE;
	}
	int status = walk(&x, o);
	bool bad = ferror(x.f) != 0;
	if (fclose(x.f) != 0 || bad) {
		report("%s: cannot write the file", o->args[0]);
		return EXIT_BAD_TRACE;
	}
	note(o, "%s: %llu instructions of thread %lld (%s)", o->args[0],
	     (unsigned long long)x.lines, (long long)o->thread, x.wide ? "AMD64" : "x86");
	return status;
}
