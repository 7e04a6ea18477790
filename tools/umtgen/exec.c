/*
 * umtgen: the semantics of every instruction the generator emits, with the
 * status flags as x86 computes them (CF PF AF ZF SF OF). Flags the manuals
 * leave undefined get one fixed choice: AF is cleared by logic operations,
 * shifts and imul; OF after a shift by more than one is computed as for a
 * shift by one; SF, ZF and PF after imul follow the truncated result.
 *
 * The local context is filled from the decoded instruction's plan: before
 * slots before the instruction runs, after slots once it has, so every LC
 * value is read from the state it describes.
 */
#include "exec.h"
#include "util.h"

static uint64_t mask_of(unsigned size)
{
	return size >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
}

static uint64_t sign_bit(unsigned size)
{
	return (uint64_t)1 << (8 * (size >= 8 ? 8 : size) - 1);
}

static int64_t sext(uint64_t v, unsigned size)
{
	if (size >= 8)
		return (int64_t)v;
	uint64_t s = sign_bit(size);
	v &= mask_of(size);
	return (int64_t)((v ^ s) - s);
}

/* ---- registers ------------------------------------------------------------------ */

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A copy of a value's bytes: inline for the sizes of registers and most
 * operands (memcpy with a variable size is a library call). */
static inline void copy_value(void *dst, const void *src, size_t n)
{
	switch (n) {
	case 8: memcpy(dst, src, 8); break;
	case 4: memcpy(dst, src, 4); break;
	case 2: memcpy(dst, src, 2); break;
	case 1: memcpy(dst, src, 1); break;
	default: memcpy(dst, src, n); break;
	}
}

/* copy_value() of at most 8 bytes (into or out of a 64-bit variable). */
static inline void copy_small(void *dst, const void *src, size_t n)
{
	switch (n) {
	case 8: memcpy(dst, src, 8); break;
	case 4: memcpy(dst, src, 4); break;
	case 2: memcpy(dst, src, 2); break;
	default: memcpy(dst, src, 1); break;
	}
}

static uint64_t gpr(const uint8_t *regs, unsigned g)
{
	return get64(regs + RF_GPR(g));
}

static void set_gpr(uint8_t *regs, unsigned g, uint64_t v, int mode64)
{
	put64(regs + RF_GPR(g), mode64 ? v : (uint32_t)v);
}

static uint64_t get_reg(const uint8_t *regs, const struct opnd *o)
{
	uint64_t v = gpr(regs, o->reg);
	return o->hi ? (v >> 8) & 0xff : v & mask_of(o->size);
}

/* A general register write: 8- and 16-bit writes keep the other bytes,
 * 32-bit writes zero the upper half in 64-bit code. */
static void set_reg(uint8_t *regs, const struct opnd *o, uint64_t v)
{
	uint8_t *p = regs + RF_GPR(o->reg);
	switch (o->size) {
	case 1: p[o->hi ? 1 : 0] = (uint8_t)v; break;
	case 2: p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); break;
	case 4: put64(p, (uint32_t)v); break;
	default: put64(p, v); break;
	}
}

/* ---- flags ------------------------------------------------------------------------ */

static uint64_t parity(uint64_t r)
{
	uint8_t b = (uint8_t)r;
	b ^= (uint8_t)(b >> 4);
	b ^= (uint8_t)(b >> 2);
	b ^= (uint8_t)(b >> 1);
	return (b & 1) ? 0 : F_PF;
}

/* ZF, SF and PF of result @p r of @p size bytes. */
static uint64_t szp(uint64_t r, unsigned size)
{
	r &= mask_of(size);
	return (r == 0 ? F_ZF : 0) | ((r & sign_bit(size)) ? F_SF : 0) | parity(r);
}

static uint64_t flags_add(uint64_t a, uint64_t b, uint64_t cin, unsigned size, uint64_t *out)
{
	uint64_t m = mask_of(size);
	a &= m;
	b &= m;
	uint64_t r = (a + b + cin) & m;
	int carry = size >= 8 ? (r < a || (cin && r == a)) : ((a + b + cin) >> (8 * size)) & 1;
	*out = r;
	return szp(r, size) | (carry ? F_CF : 0) | ((((a ^ r) & (b ^ r)) & sign_bit(size)) ? F_OF : 0) |
	       (((a ^ b ^ r) & 0x10) ? F_AF : 0);
}

static uint64_t flags_sub(uint64_t a, uint64_t b, uint64_t bin, unsigned size, uint64_t *out)
{
	uint64_t m = mask_of(size);
	a &= m;
	b &= m;
	uint64_t r = (a - b - bin) & m;
	int borrow = b > a || (bin && b == a);
	*out = r;
	return szp(r, size) | (borrow ? F_CF : 0) |
	       ((((a ^ b) & (a ^ r)) & sign_bit(size)) ? F_OF : 0) | (((a ^ b ^ r) & 0x10) ? F_AF : 0);
}

static void set_status(uint8_t *regs, uint64_t status, uint64_t keep)
{
	uint64_t f = get64(regs + RF_RFLAGS);
	put64(regs + RF_RFLAGS, (f & ~(uint64_t)F_STATUS) | (f & keep) | (status & ~keep & F_STATUS));
}

int cc_holds(unsigned cc, uint64_t f)
{
	int cf = (f & F_CF) != 0, zf = (f & F_ZF) != 0, sf = (f & F_SF) != 0, of = (f & F_OF) != 0,
	    pf = (f & F_PF) != 0, r;
	switch (cc >> 1) {
	case 0: r = of; break;
	case 1: r = cf; break;
	case 2: r = zf; break;
	case 3: r = cf || zf; break;
	case 4: r = sf; break;
	case 5: r = pf; break;
	case 6: r = sf != of; break;
	default: r = zf || sf != of; break;
	}
	return (cc & 1) ? !r : r;
}

/* ---- operands ----------------------------------------------------------------------- */

struct run {
	struct mem *mem;
	uint8_t *regs;
	int mode64;
	const struct insn *in;
	struct exec_result *r;
	uint64_t next; /* address of the next instruction */
	/* each memory operand's bytes when they lie in one page, and the
	 * permissions every page of the operand has */
	uint8_t *ptr[MO_COUNT];
	uint8_t perm[MO_COUNT];
};

static uint64_t addr_mask(const struct run *x, uint64_t a)
{
	return x->mode64 ? a : (uint32_t)a;
}

/* seg:[base + index * scale + disp]; a RIP-relative disp is already absolute. */
static uint64_t ea_of(const struct run *x, const struct opnd *o)
{
	uint64_t a = (uint64_t)o->val;
	if (o->base != REG_NONE && o->base != REG_RIP)
		a += gpr(x->regs, o->base);
	if (o->index != REG_NONE)
		a += gpr(x->regs, o->index) * o->scale;
	if (o->seg == SEG_FS)
		a += get64(x->regs + RF_FSBASE);
	else if (o->seg == SEG_GS)
		a += get64(x->regs + RF_GSBASE);
	return addr_mask(x, a);
}

/* A write to memory operand @p k: in place, or through mem_put() where it
 * spans pages or lands on code (whose generation it changes). */
static void store(const struct run *x, int k, const void *v, unsigned size)
{
	if (x->ptr[k] && !(x->perm[k] & PERM_X))
		copy_small(x->ptr[k], v, size);
	else
		mem_put(x->mem, x->r->ea[k], v, size);
}

static uint64_t rd(const struct run *x, const struct opnd *o)
{
	switch (o->kind) {
	case O_REG: return get_reg(x->regs, o);
	case O_MEM:
		if (x->ptr[MO_MEM0]) {
			uint64_t v = 0;
			copy_small(&v, x->ptr[MO_MEM0], o->size);
			return v;
		}
		return mem_get64(x->mem, x->r->ea[MO_MEM0], o->size);
	default: return (uint64_t)o->val & mask_of(o->size);
	}
}

static void wr(const struct run *x, const struct opnd *o, uint64_t v)
{
	if (o->kind == O_REG) {
		set_reg(x->regs, o, v);
		return;
	}
	store(x, MO_MEM0, &v, o->size);
}

/* ---- semantics ------------------------------------------------------------------------ */

static void do_alu(struct run *x)
{
	const struct opnd *a = &x->in->o[0], *b = &x->in->o[1];
	unsigned s = a->size;
	uint64_t va = rd(x, a), vb = rd(x, b) & mask_of(s), res = 0, fl;
	uint64_t cf = get64(x->regs + RF_RFLAGS) & F_CF;
	switch (x->in->op) {
	case OP_ADD: fl = flags_add(va, vb, 0, s, &res); break;
	case OP_ADC: fl = flags_add(va, vb, cf, s, &res); break;
	case OP_SUB:
	case OP_CMP: fl = flags_sub(va, vb, 0, s, &res); break;
	case OP_SBB: fl = flags_sub(va, vb, cf, s, &res); break;
	case OP_AND:
	case OP_TEST: res = va & vb; fl = szp(res, s); break;
	case OP_OR: res = va | vb; fl = szp(res, s); break;
	default: res = va ^ vb; fl = szp(res, s); break; /* OP_XOR */
	}
	if (x->in->op != OP_CMP && x->in->op != OP_TEST)
		wr(x, a, res);
	set_status(x->regs, fl, 0);
}

static void do_shift(struct run *x)
{
	const struct opnd *a = &x->in->o[0], *b = &x->in->o[1];
	unsigned s = a->size, bits = 8 * s;
	unsigned n = (unsigned)rd(x, b) & (s == 8 ? 63u : 31u);
	uint64_t va = rd(x, a), res, cf;
	if (n == 0) { /* flags unchanged; a 32-bit register still loses its upper half */
		wr(x, a, va);
		return;
	}
	if (x->in->op == OP_SHL) {
		res = n >= bits ? 0 : (va << n) & mask_of(s);
		cf = n <= bits ? (va >> (bits - n)) & 1 : 0;
		cf = cf ? F_CF : 0;
		uint64_t of = ((res & sign_bit(s)) != 0) != (cf != 0) ? F_OF : 0;
		set_status(x->regs, szp(res, s) | cf | of, 0);
	} else {
		res = n >= bits ? 0 : va >> n;
		cf = n <= bits && ((va >> (n - 1)) & 1) ? F_CF : 0;
		uint64_t of = (va & sign_bit(s)) ? F_OF : 0;
		set_status(x->regs, szp(res, s) | cf | of, 0);
	}
	wr(x, a, res);
}

static void do_imul(struct run *x)
{
	const struct opnd *a = &x->in->o[0];
	const struct opnd *b = x->in->nops == 2 ? &x->in->o[0] : &x->in->o[1];
	const struct opnd *c = &x->in->o[x->in->nops == 2 ? 1 : 2];
	unsigned s = a->size;
	int64_t u = sext(rd(x, b), s), v = sext(rd(x, c), s), p;
	int overflow;
	if (s == 8) {
		overflow = __builtin_mul_overflow(u, v, &p);
		p = (int64_t)((uint64_t)u * (uint64_t)v);
	} else {
		p = u * v;
		overflow = p != sext((uint64_t)p, s);
	}
	uint64_t res = (uint64_t)p & mask_of(s);
	wr(x, a, res);
	set_status(x->regs, szp(res, s) | (overflow ? F_CF | F_OF : 0), 0);
}

static unsigned word(const struct run *x)
{
	return x->mode64 ? 8 : 4;
}

static void push_value(struct run *x, uint64_t v)
{
	unsigned w = word(x);
	store(x, MO_PUSH, &v, w);
	set_gpr(x->regs, G_SP, gpr(x->regs, G_SP) - w, x->mode64);
}

static uint64_t pop_value(struct run *x)
{
	unsigned w = word(x);
	uint64_t v = 0;
	if (x->ptr[MO_POP])
		copy_small(&v, x->ptr[MO_POP], w);
	else
		v = mem_get64(x->mem, x->r->ea[MO_POP], w);
	set_gpr(x->regs, G_SP, gpr(x->regs, G_SP) + w, x->mode64);
	return v;
}

static void set_rip(struct run *x, uint64_t v)
{
	put64(x->regs + RF_RIP, addr_mask(x, v));
}

static void do_flow(struct run *x)
{
	const struct opnd *a = &x->in->o[0];
	uint64_t target = a->kind == O_REL ? (uint64_t)a->val : rd(x, a);
	switch (x->in->op) {
	case OP_PUSH:
		push_value(x, a->kind == O_IMM ? (uint64_t)a->val : rd(x, a));
		break;
	case OP_POP:
		wr(x, a, pop_value(x));
		break;
	case OP_CALL:
		push_value(x, x->next);
		set_rip(x, target);
		x->r->call = 1;
		break;
	case OP_RET:
		set_rip(x, pop_value(x));
		x->r->ret = 1;
		break;
	case OP_JMP:
		set_rip(x, target);
		break;
	default: /* OP_JCC */
		if (cc_holds(x->in->cc, get64(x->regs + RF_RFLAGS)))
			set_rip(x, target);
		else
			x->r->not_taken = 1;
		break;
	}
}

static void do_cmpxchg(struct run *x)
{
	const struct opnd *a = &x->in->o[0], *b = &x->in->o[1];
	unsigned s = a->size;
	struct opnd acc = r_(G_AX, (uint8_t)s);
	uint64_t dest = rd(x, a), res;
	set_status(x->regs, flags_sub(get_reg(x->regs, &acc), dest, 0, s, &res), 0);
	if (res == 0) {
		wr(x, a, rd(x, b));
	} else {
		if (a->kind == O_MEM) /* memory: the locked write-back of the old value */
			wr(x, a, dest);
		set_reg(x->regs, &acc, dest); /* a register destination is left alone */
	}
}

/* movsb / stosb, repeated: rcx must hold the count the decoded row was built
 * for. Out of line: its buffer would make every instruction's frame large. */
static __attribute__((noinline)) int do_string(struct run *x)
{
	static _Thread_local uint8_t buf[1 << 16];
	unsigned n = (x->in->pfx & P_REP) ? rep_count(x->in) : 1;
	if ((x->in->pfx & P_REP) && gpr(x->regs, G_CX) != n)
		return EX_BAD;
	uint64_t di = x->r->ea[MO_MEM0], si = x->r->ea[MO_MEM1];
	if (x->in->op == OP_MOVSB) {
		if (di > si && di < si + n) { /* forward byte copy replicates */
			for (unsigned i = 0; i < n; i++) {
				uint8_t c;
				mem_get(x->mem, si + i, &c, 1);
				mem_put(x->mem, di + i, &c, 1);
			}
		} else {
			mem_get(x->mem, si, buf, n);
			mem_put(x->mem, di, buf, n);
		}
		set_gpr(x->regs, G_SI, si + n, x->mode64);
	} else {
		memset(buf, x->regs[RF_GPR(G_AX)], n);
		mem_put(x->mem, di, buf, n);
	}
	set_gpr(x->regs, G_DI, di + n, x->mode64);
	if (x->in->pfx & P_REP)
		set_gpr(x->regs, G_CX, 0, x->mode64);
	return EX_OK;
}

static void do_vector(struct run *x)
{
	const struct opnd *a = &x->in->o[0], *b = &x->in->o[1];
	uint8_t v[32];
	if (b->kind == O_REG)
		memcpy(v, x->regs + RF_VECTOR(b->reg - V_0), b->size);
	else
		mem_get(x->mem, x->r->ea[MO_MEM0], v, b->size);
	if (a->kind == O_REG)
		memcpy(x->regs + RF_VECTOR(a->reg - V_0), v, a->size);
	else
		mem_put(x->mem, x->r->ea[MO_MEM0], v, a->size);
}

static int semantics(struct run *x)
{
	const struct insn *in = x->in;
	const struct opnd *a = &in->o[0], *b = &in->o[1];
	switch (in->op) {
	case OP_MOV: wr(x, a, rd(x, b)); break;
	case OP_MOVZX: wr(x, a, rd(x, b)); break;
	case OP_MOVSX: wr(x, a, (uint64_t)sext(rd(x, b), b->size) & mask_of(a->size)); break;
	case OP_LEA: wr(x, a, x->r->agen & mask_of(a->size)); break;
	case OP_INC:
	case OP_DEC: {
		uint64_t res, va = rd(x, a);
		uint64_t fl = in->op == OP_INC ? flags_add(va, 1, 0, a->size, &res)
		                               : flags_sub(va, 1, 0, a->size, &res);
		wr(x, a, res);
		set_status(x->regs, fl, F_CF);
		break;
	}
	case OP_SHL: case OP_SHR: do_shift(x); break;
	case OP_IMUL: do_imul(x); break;
	case OP_PUSH: case OP_POP: case OP_CALL: case OP_RET: case OP_JMP: case OP_JCC:
		do_flow(x);
		break;
	case OP_XCHG: {
		uint64_t va = rd(x, a), vb = rd(x, b);
		wr(x, a, vb);
		wr(x, b, va);
		break;
	}
	case OP_CMPXCHG: do_cmpxchg(x); break;
	case OP_MOVSB: case OP_STOSB: return do_string(x);
	case OP_MOVDQU: case OP_MOVAPS: case OP_VMOVDQU: do_vector(x); break;
	case OP_SYSCALL:
		set_gpr(x->regs, G_CX, x->next, x->mode64);
		set_gpr(x->regs, G_11, get64(x->regs + RF_RFLAGS), x->mode64);
		break;
	case OP_INT: case OP_NOP: break;
	default: do_alu(x); break;
	}
	return EX_OK;
}

/* ---- addresses, access checks, the local context ------------------------------------ */

static void addresses(struct run *x, const struct decoded *d)
{
	struct exec_result *r = x->r;
	if (d->mem_opnd >= 0)
		r->agen = r->ea[MO_MEM0] = ea_of(x, &x->in->o[d->mem_opnd]);
	if (!d->mem_any)
		return;
	uint64_t sp = gpr(x->regs, G_SP);
	if (x->in->op == OP_MOVSB || x->in->op == OP_STOSB) {
		r->ea[MO_MEM0] = addr_mask(x, gpr(x->regs, G_DI));
		r->ea[MO_MEM1] = addr_mask(x, gpr(x->regs, G_SI));
	}
	if (d->mem_any & (1u << MO_PUSH))
		r->ea[MO_PUSH] = addr_mask(x, sp - word(x));
	if (d->mem_any & (1u << MO_POP))
		r->ea[MO_POP] = addr_mask(x, sp);
}

/* Each memory operand's page (when it fits one) and permissions. */
static void resolve_memory(struct run *x, const struct decoded *d)
{
	for (unsigned k = 0, any = d->mem_any; any; k++, any >>= 1) {
		if (!(any & 1))
			continue;
		uint64_t a = x->r->ea[k], size = d->mem_size[k];
		if ((a & PAGE_MASK) + size <= PAGE_SIZE) {
			struct page *p = mem_page(x->mem, a);
			if (p != NULL && p->perm) {
				x->ptr[k] = p->data + (a & PAGE_MASK);
				x->perm[k] = p->perm;
			}
			continue;
		}
		for (uint8_t perm = PERM_R; perm <= PERM_X; perm = (uint8_t)(perm << 1))
			if (mem_ok(x->mem, a, size, perm))
				x->perm[k] |= perm;
	}
}

/* EX_FAULT_READ when a memory value read is not readable, EX_FAULT_WRITE when
 * one written is not writable (the first inaccessible address in fault_addr). */
static int check_access(struct run *x, const struct decoded *d)
{
	unsigned readable = 0, writable = 0;
	for (unsigned k = 0, any = d->mem_any; any; k++, any >>= 1) {
		readable |= (x->perm[k] & PERM_R) ? 1u << k : 0;
		writable |= (x->perm[k] & PERM_W) ? 1u << k : 0;
	}
	unsigned bad_read = d->mem_read & ~readable, bad_write = d->mem_write & ~writable;
	if (!(bad_read | bad_write))
		return EX_OK;
	unsigned k = (unsigned)__builtin_ctz(bad_read ? bad_read : bad_write);
	uint8_t perm = bad_read ? PERM_R : PERM_W;
	uint64_t a = x->r->ea[k], i = 0;
	while (i < d->mem_size[k] && mem_ok(x->mem, a + i, 1, perm))
		i++;
	x->r->fault_addr = a + i;
	return bad_read ? EX_FAULT_READ : EX_FAULT_WRITE;
}

/* xorshift64*: deterministic garbage for values a faulting instruction lost. */
static void fill_garbage(uint8_t *p, size_t n, uint64_t *g)
{
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if ((i & 7) == 0)
			x = xorshift64s(g);
		p[i] = (uint8_t)(x >> (8 * (i & 7)));
	}
}

/* Slots [from, to) from the current state; unreadable memory becomes garbage. */
static void fill_slots(struct run *x, const struct decoded *d, uint8_t *lc, int from, int to,
                       uint64_t *garbage)
{
	for (int k = from; k < to; k++) {
		const struct lc_src *s = &d->src[k];
		uint8_t *p = lc + s->lc;
		if (s->kind == SRC_REG && s->size == 8) { /* most slots: a 64-bit register */
			memcpy(p, x->regs + s->off, 8);
		} else if (s->kind == SRC_REG) {
			copy_value(p, x->regs + s->off, s->size);
		} else if (s->kind == SRC_AGEN) {
			uint64_t a = x->r->agen;
			copy_small(p, &a, s->size);
		} else {
			uint64_t a = x->r->ea[s->memop];
			put64(p, a);
			if (!(x->perm[s->memop] & PERM_R))
				fill_garbage(p + 8, s->size, garbage);
			else if (x->ptr[s->memop])
				copy_value(p + 8, x->ptr[s->memop], s->size);
			else
				mem_get(x->mem, a, p + 8, s->size);
		}
	}
}

void exec_insn(struct mem *mem, uint8_t *regs, int mode64, const struct insn *in, uint64_t addr,
               uint8_t len, const struct decoded *d, uint8_t *lc, uint64_t garbage,
               struct exec_result *r)
{
	struct run x = {.mem = mem, .regs = regs, .mode64 = mode64, .in = in, .r = r};
	x.next = addr_mask(&x, addr + len);
	memset(r, 0, sizeof *r); /* the memory operands' addresses start at 0 */
	addresses(&x, d);
	resolve_memory(&x, d);
	r->status = check_access(&x, d);
	uint64_t g = garbage | 1;
	fill_slots(&x, d, lc, 0, d->first_after, &g);
	if (r->status != EX_OK) { /* nothing happens; output values are garbage */
		for (int k = d->first_after; k < d->count; k++) {
			const umt_lc_slot *s = &d->slots[k];
			uint8_t *p = lc + s->Offset;
			if (s->AddrWidth) { /* the address was computed before the fault */
				put64(p, r->ea[d->src[k].memop]);
				p += 8;
			}
			fill_garbage(p, (size_t)s->ValueSize, &g);
		}
		return;
	}
	set_rip(&x, x.next);
	r->status = semantics(&x);
	fill_slots(&x, d, lc, d->first_after, d->count, &g);
}
