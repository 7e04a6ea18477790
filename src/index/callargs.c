/*
 * libumtrace - the arguments and the return value of a call (index.h
 * section 13), from the registers section (umt_state_at) and memory
 * (umt_mem_at). A value is known only when every one of its bytes is: a
 * partly known value is unknown, never completed with guesses.
 */
#include "calls.h"

/* Where the calling convention puts the first arguments of x64 Windows code. */
static const char *const x64_arg_regs[4] = {"rcx", "rdx", "r8", "r9"};

/* The value of register @p name in @p s: 1 when all of its bytes are known, 0 when not (or
 * the map has no such register), else an error. */
static int state_value(const umt_trace *t, const umt_state *s, const char *name, uint64_t *v)
{
	umt_reg_value rv;
	int reg = umt_reg_by_name(t, name);
	if (reg == UMT_E_NOT_FOUND)
		return 0;
	int rc = reg < 0 ? reg : umt_state_reg(s, reg, &rv);
	if (rc == UMT_E_NOT_FOUND)
		return 0;
	if (rc < 0)
		return rc;
	if (rv.known_bytes != rv.size || rv.size == 0 || rv.size > 8)
		return 0;
	uint64_t x = 0;
	for (uint32_t i = rv.size; i-- > 0;) /* little-endian, as the dump holds it */
		x = x << 8 | rv.data[i];
	*v = x;
	return 1;
}

/* The thread's record after @p id, where the callee starts; UMT_NO_RECORD when there is none. */
static int callee_first(const umt_trace *t, uint64_t id, uint64_t *out)
{
	umt_thread_iter it;
	umt_rec r;
	*out = UMT_NO_RECORD;
	int rc = umt_thread_iter_init(&it, t, id, UMT_FORWARD);
	if (rc == 0 && (rc = umt_thread_iter_next(&it, &r)) > 0 &&
	    (rc = umt_thread_iter_next(&it, &r)) > 0)
		*out = r.id;
	return rc < 0 ? rc : 0;
}

/* A little-endian word of @p width bytes of memory at record @p at: 1 when all known. */
static int mem_value(const umt_index *ix, uint64_t at, uint64_t address, unsigned width,
                     uint64_t *v)
{
	uint8_t data[8], known[8];
	if (address > UINT64_MAX - width)
		return 0;
	int rc = umt_mem_at(ix, at, address, width, data, known, NULL);
	if (rc < 0)
		return rc;
	uint64_t x = 0;
	for (unsigned i = width; i-- > 0;) {
		if (!known[i])
			return 0;
		x = x << 8 | data[i];
	}
	*v = x;
	return 1;
}

/* Arguments [first, n) from the stack: word i at sp + width * i, sp the stack pointer before
 * the call (after its push the return address is below them), read at the callee's first
 * record. */
static int stack_args(const umt_index *ix, const umt_call *c, uint64_t sp, unsigned width,
                      unsigned first, unsigned n, uint64_t *values, uint8_t *known)
{
	uint64_t at;
	int rc = callee_first(ix->trace, c->id, &at);
	for (unsigned i = first; rc >= 0 && at != UMT_NO_RECORD && i < n; i++) {
		uint64_t off = (uint64_t)width * i;
		rc = sp > UINT64_MAX - off ? 0 : mem_value(ix, at, sp + off, width, &values[i]);
		known[i] = rc > 0;
	}
	return rc < 0 ? rc : 0;
}

int umt_call_args(const umt_index *ix, const umt_call *c, umt_state *s, unsigned n,
                  uint64_t *values, uint8_t *known)
{
	if (ix == NULL || c == NULL || s == NULL || n > UMT_CALL_MAX_ARGS ||
	    (n > 0 && (values == NULL || known == NULL)))
		return umt__failf(UMT_E_INVAL, "umt_call_args: NULL argument or more than %u arguments",
		                  UMT_CALL_MAX_ARGS);
	for (unsigned i = 0; i < n; i++)
		values[i] = known[i] = 0;
	if (n == 0)
		return 0;
	int rc = umt_state_at(ix, c->id, c->thread_id, s);
	if (rc < 0)
		return rc;
	unsigned nregs = s->is_64bit ? 4 : 0, width = s->is_64bit ? 8 : 4;
	for (unsigned i = 0; i < nregs && i < n; i++) {
		if ((rc = state_value(ix->trace, s, x64_arg_regs[i], &values[i])) < 0)
			return rc;
		known[i] = rc > 0;
	}
	uint64_t sp;
	if (n <= nregs || (rc = state_value(ix->trace, s, s->is_64bit ? "rsp" : "esp", &sp)) <= 0)
		return rc < 0 ? rc : 0;
	return stack_args(ix, c, sp, width, nregs, n, values, known);
}

int umt_call_return_value(const umt_index *ix, const umt_call *c, umt_state *s, uint64_t *value)
{
	if (ix == NULL || c == NULL || s == NULL || value == NULL)
		return umt__failf(UMT_E_INVAL, "umt_call_return_value: NULL argument");
	*value = 0;
	if (c->end != UMT_CALL_RETURNED || c->return_id == UMT_NO_RECORD)
		return 0;
	int rc = umt_state_at(ix, c->return_id, c->thread_id, s);
	if (rc < 0)
		return rc;
	return state_value(ix->trace, s, s->is_64bit ? "rax" : "eax", value);
}
