/*
 * libumtrace - what one record tells the calls section (calls.h): a call
 * and its stack slot, a ret and its slot, the stack pointer of a context,
 * the address that resolves the target of its thread's last call. Shared
 * by the build's scan and by umt_index_verify()'s fresh extraction, so
 * that both see the same events; the matching itself is callreplay.c's.
 */
#include "calls.h"

int umt__ix_call_extract_init(struct call_extract *x, const umt_trace *t)
{
	umt_trace_info info;
	memset(x, 0, sizeof *x);
	int rc = umt_trace_get_info(t, &info);
	if (rc < 0)
		return rc;
	x->t = t;
	x->exec_version = info.exec_version;
	x->rsp = umt_reg_by_name(t, "rsp");
	x->esp = umt_reg_by_name(t, "esp");
	x->rsp = x->rsp < 0 ? -1 : x->rsp;
	x->esp = x->esp < 0 ? -1 : x->esp;
	return 0;
}

/* The address of instruction record @p r (its row's), or -1. */
static int record_address(const umt_trace *t, const umt_rec *r, uint64_t *addr)
{
	int64_t ins = -1;
	const umt_ins_rec *row;
	if (umt_rec_ins(r, &ins, NULL, NULL) < 0 || ins < 0 || umt_ins_get(t, (uint64_t)ins, &row) < 0)
		return -1;
	*addr = (uint64_t)row->Address;
	return 0;
}

/* The stack slot of a call (its lowest write) or a ret (its lowest read). */
static bool stack_slot(const umt_trace *t, const umt_rec *r, unsigned kind, uint64_t *slot)
{
	umt_access_iter it;
	umt_access a;
	bool found = false;
	if (umt_access_iter_init(&it, t, r, kind) < 0)
		return false;
	while (umt_access_iter_next(&it, &a) > 0)
		if ((a.trust & UMT_TRUST_ADDRESS) && (!found || a.address < *slot)) {
			*slot = a.address;
			found = true;
		}
	return found;
}

/*
 * The target of a call before its thread's next record is seen: decoded
 * from a relative call's bytes, or the value its register or memory
 * operand held (the pointer it called through).
 */
static void fallback_target(const umt_trace *t, const umt_rec *r, const umt_sem *sem,
                            struct call_event *e)
{
	umt_ins_exec x;
	umt_value v;
	e->target = 0;
	e->source = UMT_CALL_TARGET_UNKNOWN;
	if (sem->flags & UMT_SEM_F_TARGET) {
		e->target = sem->target;
		e->source = UMT_CALL_TARGET_DECODED;
	} else if ((sem->flags & (UMT_SEM_F_INDIRECT | UMT_SEM_F_FAR)) == UMT_SEM_F_INDIRECT &&
	           umt_rec_ins_exec(t, r, &x) == 0 && x.dec.ins->ExpCount > 0) {
		int kind = umt_operand_kind(&x, 0);
		if ((kind == UMT_KIND_REGISTER || kind == UMT_KIND_MEMORY) &&
		    umt_operand_value(&x, 0, UMT_BEFORE, &v) == 0) {
			e->target = umt_value_u64(&v);
			e->source = UMT_CALL_TARGET_OPERAND;
		}
	}
}

/* A call or a ret (index.h section 11: which records count). */
static int extract_branch(struct call_extract *x, const umt_rec *r, struct call_thread_scan *th)
{
	int64_t ins;
	umt_sem sem;
	if (umt_rec_ins(r, &ins, NULL, NULL) < 0 || ins < 0 ||
	    umt__sem_fast(x->t, (uint64_t)ins, &sem) < 0 ||
	    (sem.category != UMT_SEM_CALL && sem.category != UMT_SEM_RET))
		return 0;
	bool call = sem.category == UMT_SEM_CALL;
	struct call_event e = {.id = r->id, .thread = r->thread_id, .kind = call ? CEV_CALL : CEV_RET};
	const unsigned both = UMT_RELIABLE_INPUTS | UMT_RELIABLE_OUTPUTS;
	if (th == NULL || umt_exec_reliability(x->exec_version, r->flags) != both ||
	    !stack_slot(x->t, r, call ? UMT_ACCESS_WRITE : UMT_ACCESS_READ, &e.value) ||
	    (call && record_address(x->t, r, &e.caller) < 0)) {
		x->ignored++;
		return 0;
	}
	if (call) {
		e.length = sem.length;
		fallback_target(x->t, r, &sem, &e);
		th->pending = 1;
	}
	return x->emit(x->ctx, &e, th);
}

/* The stack pointer a syscall exit or a context change sets. */
static int extract_sp(struct call_extract *x, const umt_rec *r, struct call_thread_scan *th)
{
	umt_context c;
	umt_value v;
	if (th == NULL || umt_rec_context(x->t, r, &c) < 0)
		return 0;
	int first = c.is_64bit ? x->rsp : x->esp, second = c.is_64bit ? x->esp : x->rsp;
	if ((first < 0 || umt_context_reg(x->t, &c, first, &v) < 0) &&
	    (second < 0 || umt_context_reg(x->t, &c, second, &v) < 0))
		return 0;
	struct call_event e = {.id = r->id, .thread = r->thread_id, .kind = CEV_SP,
	                       .value = umt_value_u64(&v)};
	return x->emit(x->ctx, &e, th);
}

int umt__ix_call_extract(struct call_extract *x, const umt_rec *r, struct call_thread_scan *th)
{
	/* the first record of the thread here may follow a call of an earlier range */
	if (th != NULL && (!th->seen || th->pending)) {
		struct call_event n = {.id = r->id, .thread = r->thread_id, .kind = CEV_NEXT,
		                       .source = UMT_CALL_TARGET_UNKNOWN};
		if (r->type == UMT_REC_INSTRUCTION && record_address(x->t, r, &n.value) == 0)
			n.source = UMT_CALL_TARGET_NEXT;
		int rc = th->pending ? x->resolve(x->ctx, th, &n) : x->emit(x->ctx, &n, th);
		th->seen = 1;
		th->pending = 0;
		if (rc < 0)
			return rc;
	}
	if (r->type == UMT_REC_INSTRUCTION)
		return extract_branch(x, r, th);
	if (r->type == UMT_REC_SYSCALL_EXIT ||
	    (r->type >= UMT_REC_CTX_APC && r->type <= UMT_REC_CTX_UNKNOWN))
		return extract_sp(x, r, th);
	return 0;
}
