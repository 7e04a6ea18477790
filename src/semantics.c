/*
 * libumtrace - instruction semantics of a row from its code bytes, decoded
 * with Zydis (umtrace.h section 7b).
 *
 * A row's summary (mnemonic, category, length, flags, relative target) is
 * decoded once and kept in a lazily allocated table of two 64-bit words per
 * row: the target, then the packed fields with a "decoded" mark in the top
 * byte. Any thread may decode a row and store it: every thread stores the
 * same two words, the target first and the packed word last with a release
 * store, so a reader that sees the mark (acquire) sees the target. Rows
 * whose bytes do not decode are not stored: they are decoded (and reported)
 * again on each call, which costs one decode on a path that is an error.
 */
#include <Zydis/Zydis.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

/* ---- the table of decoded rows -------------------------------------------------- */

struct sem_slot {
	uint64_t target; /* umt_sem.target */
	uint64_t packed; /* the other fields, PACKED_DONE set once stored */
};

#define PACKED_DONE (1ull << 63)
#define PACKED_BAD (1ull << 62) /* the row does not decode: umt__sem_fast() says so at once */

/* One slot per row, zero until decoded; none when memory is short (decode each time). */
static int build_table(const umt_trace *t, void **out)
{
	*out = calloc(t->ins.count + 1, sizeof(struct sem_slot));
	return 0;
}

static const struct umt_lazy_kind table_kind = {UMT_LAZY_SEMANTICS, build_table, free};

static uint64_t pack(const umt_sem *s)
{
	return (uint64_t)s->mnemonic | (uint64_t)s->category << 16 | (uint64_t)s->length << 24 |
	       (uint64_t)s->flags << 32 | (uint64_t)s->operand_count << 40 |
	       (uint64_t)s->zydis_category << 48 | PACKED_DONE;
}

static void unpack(uint64_t p, uint64_t target, umt_sem *s)
{
	s->target = target;
	s->mnemonic = (uint16_t)p;
	s->category = (uint8_t)(p >> 16);
	s->length = (uint8_t)(p >> 24);
	s->flags = (uint8_t)(p >> 32);
	s->operand_count = (uint8_t)(p >> 40);
	s->zydis_category = (uint8_t)(p >> 48);
	s->reserved = 0;
}

/* ---- decoding ------------------------------------------------------------------ */

/* Zydis's reason for refusing bytes, in words. */
static const char *zydis_reason(ZyanStatus s)
{
	if (s == ZYDIS_STATUS_NO_MORE_DATA)
		return "the bytes end inside the instruction";
	if (s == ZYDIS_STATUS_INSTRUCTION_TOO_LONG)
		return "longer than 15 bytes";
	if (s == ZYDIS_STATUS_BAD_REGISTER)
		return "an invalid register";
	if (s == ZYDIS_STATUS_ILLEGAL_LOCK)
		return "a lock prefix where none is allowed";
	if (s == ZYDIS_STATUS_ILLEGAL_LEGACY_PFX || s == ZYDIS_STATUS_ILLEGAL_REX)
		return "a prefix where none is allowed";
	if (s == ZYDIS_STATUS_INVALID_MAP || s == ZYDIS_STATUS_MALFORMED_EVEX ||
	    s == ZYDIS_STATUS_MALFORMED_MVEX || s == ZYDIS_STATUS_INVALID_MASK)
		return "a malformed VEX/EVEX/MVEX encoding";
	return "no such instruction";
}

/* "0f 0b" for the message of a bad row. */
static void hex_bytes(const uint8_t *p, unsigned n, char *buf, size_t cap)
{
	size_t k = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && k + 4 <= cap; i++)
		k += (size_t)snprintf(buf + k, cap - k, i ? " %02x" : "%02x", p[i]);
	if (n == 0)
		snprintf(buf, cap, "(none)");
}

static int __attribute__((noinline, cold))
bad_bytes(const umt_trace *t, uint64_t id, const uint8_t *code, unsigned size, bool is64,
          const char *why)
{
	char hex[64];
	hex_bytes(code, size, hex, sizeof hex);
	uint64_t at = t->ins.table_fp + id * t->ins.row_size + offsetof(umt_ins_rec, CodeBytes);
	return umt__fail(UMT_E_CORRUPT, UMT_FILE_INS, UMT_LOC_ROW, id, at,
	                 "CodeBytes %s (CodeSize %u) are not one %s x86 instruction: %s", hex, size,
	                 is64 ? "64-bit" : "32-bit", why);
}

/*
 * A decoded row: Zydis's view and the row it came from. The operands are
 * decoded as far as asked (decoding them is most of Zydis's work): none,
 * the first only (a branch's target), or all of them (umt_sem_decode()).
 */
struct decoded {
	ZydisDecoder dec;
	ZydisDecoderContext ctx;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint8_t nops; /* operands decoded */
	uint64_t address;
	bool is64;
};

/* Decodes the first @p n operands of @p d (n at most its operand count). */
static void decode_operands(struct decoded *d, uint8_t n)
{
	if (n > d->in.operand_count)
		n = d->in.operand_count;
	if (n > d->nops &&
	    ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&d->dec, &d->ctx, &d->in, d->ops, n)))
		d->nops = n;
}

/* Decodes row @p id: exactly CodeSize bytes as one instruction, no operands yet. */
static int decode_row(const umt_trace *t, uint64_t id, struct decoded *d)
{
	const umt_ins_rec *row = NULL;
	const uint8_t *code = NULL;
	unsigned size = 0;
	int rc = umt_ins_get(t, id, &row);
	if (rc == 0)
		rc = umt_ins_code(t, id, &code, &size);
	if (rc != 0 || row == NULL || code == NULL)
		return rc < 0 ? rc : umt__failf(UMT_E_INVAL, "umt_sem: no row %llu",
		                                (unsigned long long)id);
	d->is64 = row->CSis64Bits != 0;
	d->address = (uint64_t)row->Address;
	d->nops = 0;
	ZydisDecoderInit(&d->dec,
	                 d->is64 ? ZYDIS_MACHINE_MODE_LONG_64 : ZYDIS_MACHINE_MODE_LEGACY_32,
	                 d->is64 ? ZYDIS_STACK_WIDTH_64 : ZYDIS_STACK_WIDTH_32);
	ZyanStatus s = ZydisDecoderDecodeInstruction(&d->dec, &d->ctx, code, size, &d->in);
	if (!ZYAN_SUCCESS(s))
		return bad_bytes(t, id, code, size, d->is64, zydis_reason(s));
	if (d->in.length != size) {
		char why[96];
		snprintf(why, sizeof why, "they start with a %u-byte %s", d->in.length,
		         ZydisMnemonicGetString(d->in.mnemonic));
		return bad_bytes(t, id, code, size, d->is64, why);
	}
	return 0;
}

static uint8_t category_of(ZydisInstructionCategory c)
{
	switch (c) {
	case ZYDIS_CATEGORY_CALL: return UMT_SEM_CALL;
	case ZYDIS_CATEGORY_RET: return UMT_SEM_RET;
	case ZYDIS_CATEGORY_UNCOND_BR: return UMT_SEM_JMP;
	case ZYDIS_CATEGORY_COND_BR: return UMT_SEM_COND_BRANCH;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT: return UMT_SEM_SYSCALL;
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP: return UMT_SEM_NOP;
	default: return UMT_SEM_OTHER;
	}
}

/*
 * The destination of relative operand @p op: Zydis computes it in 64 bits
 * (and wraps 16-bit operand sizes), so 32-bit code wraps it here, as the
 * processor does with EIP.
 */
static bool relative_target(const struct decoded *d, const ZydisDecodedOperand *op,
                            uint64_t *out)
{
	ZyanU64 target;
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&d->in, op, d->address, &target)))
		return false;
	*out = d->is64 ? target : target & 0xffffffffu;
	return true;
}

/* The branch flags and target of a call, jump or conditional branch. */
static void branch_of(struct decoded *d, umt_sem *s)
{
	if (d->in.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		s->flags |= UMT_SEM_F_FAR;
	if (s->category != UMT_SEM_CALL && s->category != UMT_SEM_JMP &&
	    s->category != UMT_SEM_COND_BRANCH)
		return;
	const ZydisDecodedOperand *op = &d->ops[0];
	decode_operands(d, 1);
	if (d->in.operand_count_visible == 0 || d->nops == 0)
		return;
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER || op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		s->flags |= UMT_SEM_F_INDIRECT;
	} else if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE && op->imm.is_relative &&
	           relative_target(d, op, &s->target)) {
		s->flags |= UMT_SEM_F_TARGET;
	}
}

static void summarize(struct decoded *d, umt_sem *s)
{
	memset(s, 0, sizeof *s);
	s->mnemonic = (uint16_t)d->in.mnemonic;
	s->zydis_category = (uint8_t)d->in.meta.category;
	s->category = category_of(d->in.meta.category);
	s->length = d->in.length;
	s->operand_count = d->in.operand_count_visible;
	if (d->is64)
		s->flags |= UMT_SEM_F_64BIT;
	if (d->in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))
		s->flags |= UMT_SEM_F_REP;
	if (d->in.attributes & ZYDIS_ATTRIB_HAS_LOCK)
		s->flags |= UMT_SEM_F_LOCK;
	branch_of(d, s);
}

/* ---- the public functions ----------------------------------------------------- */

int umt_sem_get(const umt_trace *t, uint64_t ins_id, umt_sem *out)
{
	if (UMT_UNLIKELY(t == NULL || out == NULL))
		return umt__failf(UMT_E_INVAL, "umt_sem_get: invalid argument");
	void *part = NULL;
	struct sem_slot *slot = NULL;
	if (ins_id < t->ins.count && umt__lazy_get(t, &table_kind, &part) == 0 && part != NULL) {
		slot = (struct sem_slot *)part + ins_id;
		uint64_t p = __atomic_load_n(&slot->packed, __ATOMIC_ACQUIRE);
		if (UMT_LIKELY(p & PACKED_DONE)) {
			unpack(p, __atomic_load_n(&slot->target, __ATOMIC_RELAXED), out);
			return 0;
		}
	}
	struct decoded d;
	int rc = decode_row(t, ins_id, &d);
	if (rc == UMT_E_CORRUPT && slot != NULL)
		__atomic_store_n(&slot->packed, PACKED_BAD, __ATOMIC_RELEASE);
	if (rc < 0)
		return rc;
	summarize(&d, out);
	if (slot != NULL) {
		__atomic_store_n(&slot->target, out->target, __ATOMIC_RELAXED);
		__atomic_store_n(&slot->packed, pack(out), __ATOMIC_RELEASE);
	}
	return 0;
}

int umt__sem_fast(const umt_trace *t, uint64_t ins_id, umt_sem *out)
{
	void *part = NULL;
	if (ins_id < t->ins.count && umt__lazy_get(t, &table_kind, &part) == 0 && part != NULL &&
	    (__atomic_load_n(&((struct sem_slot *)part)[ins_id].packed, __ATOMIC_ACQUIRE) &
	     PACKED_BAD))
		return UMT_E_CORRUPT;
	return umt_sem_get(t, ins_id, out);
}

const char *umt_sem_mnemonic_name(unsigned mnemonic)
{
	if (mnemonic == ZYDIS_MNEMONIC_INVALID || mnemonic > ZYDIS_MNEMONIC_MAX_VALUE)
		return NULL;
	return ZydisMnemonicGetString((ZydisMnemonic)mnemonic);
}

const char *umt_sem_category_name(int category)
{
	static const char *const names[UMT_SEM_CATEGORY_COUNT] = {
		"other", "call", "ret", "jmp", "cond_branch", "syscall", "nop"};
	return category >= 0 && category < UMT_SEM_CATEGORY_COUNT ? names[category] : NULL;
}

const char *umt_sem_zydis_category_name(unsigned category)
{
	if (category == ZYDIS_CATEGORY_INVALID || category > ZYDIS_CATEGORY_MAX_VALUE)
		return NULL;
	return ZydisCategoryGetString((ZydisInstructionCategory)category);
}

/* ---- full decoding: operands and text ------------------------------------------ */

static const char *reg_or_null(ZydisRegister r)
{
	return r == ZYDIS_REGISTER_NONE ? NULL : ZydisRegisterGetString(r);
}

static uint8_t access_of(ZydisOperandActions a)
{
	return (uint8_t)(((a & ZYDIS_OPERAND_ACTION_MASK_READ) ? UMT_SEM_READ : 0) |
	                 ((a & ZYDIS_OPERAND_ACTION_MASK_WRITE) ? UMT_SEM_WRITE : 0));
}

static void memory_operand(const struct decoded *d, const ZydisDecodedOperand *op,
                           umt_sem_operand *o)
{
	o->kind = op->mem.type == ZYDIS_MEMOP_TYPE_AGEN ? UMT_SEM_OP_AGEN : UMT_SEM_OP_MEMORY;
	if (o->kind == UMT_SEM_OP_AGEN)
		o->access = 0;
	o->segment = reg_or_null(op->mem.segment);
	o->base = reg_or_null(op->mem.base);
	o->index = reg_or_null(op->mem.index);
	o->scale = op->mem.index == ZYDIS_REGISTER_NONE ? 0 : op->mem.scale;
	o->disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
	ZyanU64 abs;
	if ((op->mem.base == ZYDIS_REGISTER_RIP || op->mem.base == ZYDIS_REGISTER_EIP) &&
	    ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(&d->in, op, d->address, &abs))) {
		o->has_absolute = 1;
		o->absolute = op->mem.base == ZYDIS_REGISTER_EIP ? abs & 0xffffffffu : abs;
	}
}

static void operand_of(const struct decoded *d, const ZydisDecodedOperand *op,
                       umt_sem_operand *o)
{
	memset(o, 0, sizeof *o);
	o->bits = op->size;
	o->access = access_of(op->actions);
	switch (op->type) {
	case ZYDIS_OPERAND_TYPE_REGISTER:
		o->kind = UMT_SEM_OP_REGISTER;
		o->reg = reg_or_null(op->reg.value);
		break;
	case ZYDIS_OPERAND_TYPE_MEMORY:
		memory_operand(d, op, o);
		break;
	case ZYDIS_OPERAND_TYPE_POINTER:
		o->kind = UMT_SEM_OP_POINTER;
		o->access = 0;
		o->selector = op->ptr.segment;
		o->value = op->ptr.offset;
		o->has_absolute = 1;
		o->absolute = op->ptr.offset;
		break;
	default: /* an immediate */
		o->kind = UMT_SEM_OP_IMMEDIATE;
		o->access = 0;
		o->value = op->imm.is_signed ? (uint64_t)op->imm.value.s : op->imm.value.u;
		if (op->imm.is_relative && relative_target(d, op, &o->absolute))
			o->has_absolute = 1;
		break;
	}
}

/* The formatter, set up once: XED's look (size casts, lower-case hex, no padding). */
static ZydisFormatter formatter;
static pthread_once_t formatter_once = PTHREAD_ONCE_INIT;

static void formatter_init(void)
{
	ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_INTEL);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE,
	                          ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_DISP_PADDING,
	                          ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(&formatter, ZYDIS_FORMATTER_PROP_IMM_PADDING,
	                          ZYDIS_PADDING_DISABLED);
}

int umt_sem_decode(const umt_trace *t, uint64_t ins_id, umt_sem_detail *out)
{
	if (t == NULL || out == NULL)
		return umt__failf(UMT_E_INVAL, "umt_sem_decode: invalid argument");
	struct decoded d;
	int rc = decode_row(t, ins_id, &d);
	if (rc < 0)
		return rc;
	memset(out, 0, sizeof *out);
	decode_operands(&d, d.in.operand_count);
	summarize(&d, &out->sem);
	unsigned n = d.in.operand_count_visible < d.nops ? d.in.operand_count_visible : d.nops;
	out->operand_count = n < UMT_SEM_MAX_OPERANDS ? n : UMT_SEM_MAX_OPERANDS;
	for (unsigned i = 0; i < out->operand_count; i++)
		operand_of(&d, &d.ops[i], &out->operands[i]);
	pthread_once(&formatter_once, formatter_init);
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, &d.in, d.ops, (uint8_t)n,
	                                                  out->text,
	                                                  sizeof out->text, d.address, NULL)))
		snprintf(out->text, sizeof out->text, "%s", ZydisMnemonicGetString(d.in.mnemonic));
	return 0;
}
