/*
 * mksample: writes the bundled sample trace (examples/sample-trace) with
 * the library's writer.
 *
 *   mksample OUT_DIR
 *
 * The sample is a tiny consistent run of a 64-bit process: two threads,
 * ten instructions (sub with an immediate, mov with a MEM0 phrase into a
 * 32-bit register, lea with AGEN, mov to ah, push with STACKPUSH, movsb
 * with MEM0 and MEM1, syscall, two nops sharing one body, ret with
 * STACKPOP), 23 records of every type, two syscalls (stored out of
 * order), two modules, six address ranges and a 2015 trace.xml. Register
 * numbers are XED 20150121; Category, Mnemonic and Form numbers are
 * illustrative only (they are not taken from XED tables).
 */
#include <stdio.h>
#include <string.h>

#include "umtrace/umtrace.h"

enum { RAX = 74, RCX = 75, RDX = 76, RBX = 77, RSP = 78, RBP = 79, RSI = 80, RDI = 81,
       R11 = 85, EAX = 58, AH = 106, RIP = 111, RFLAGS = 41, STACKPUSH = 131, STACKPOP = 132 };
#define MEM0 ((int16_t)UMT_REG_MEM0)
#define MEM1 ((int16_t)UMT_REG_MEM1)
#define AGEN ((int16_t)UMT_REG_AGEN)
#define IMM0 UMT_SLOT_IMM0
#define NA UMT_SLOT_NA

#define TIB0 0x7fffffde000ull
#define TIB1 0x7fffffdc000ull
#define NTDLL 0x7ffd00000000ull

static int check(int rc, const char *what)
{
	if (rc < 0)
		fprintf(stderr, "mksample: %s: %s\n", what, umt_errmsg());
	return rc;
}

/* ---- instructions ----------------------------------------------------------- */

struct ins_def {
	int64_t address;
	const char *disasm;
	uint8_t code[15], code_size, type;
	int32_t module;
	int share_with; /* -1, or an earlier instruction whose body and string it reuses */
	int16_t mnemonic, category;
	uint8_t flags, eff_oper, first_out, first_after, lc_count, exp_count;
	uint8_t mem0_base, mem0_index, mem0_scale, mem1_base;
	int64_t const0;
	struct { int16_t reg; int16_t size; uint8_t aw; } slots[8];
	struct { int16_t reg, size; uint8_t flags, before, after, boff, aoff; } ops[2];
};

#define R UMT_OPER_F_READ
#define W UMT_OPER_F_WRITE
static const struct ins_def ins[] = {
	/* 0 */ {0x140001000, "sub rsp, 0x28", {0x48, 0x83, 0xec, 0x28}, 4, 0, 0, -1, 0x27c, 2,
	         0, 8, 1, 1, 3, 2, NA, NA, 0, NA, 0x28,
	         {{RSP, 8, 0}, {RSP, 8, 0}, {RFLAGS, 8, 0}},
	         {{RSP, 8, R | W, 0, 1, 0, 0}, {0, 8, R, IMM0, NA, 0, 0}}},
	/* 1 */ {0x140001004, "mov eax, dword ptr [rbx+rcx*4+0x10]", {0x8b, 0x44, 0x8b, 0x10}, 4, 0,
	         0, -1, 0x1b1, 3, UMT_DEC_F_READS_MEM, 4, 3, 4, 5, 2, 0, 1, 4, NA, 0x10,
	         {{RBX, 8, 0}, {RCX, 8, 0}, {MEM0, 4, 8}, {RAX, 8, 0}, {RAX, 8, 0}},
	         {{EAX, 4, W, 3, 4, 0, 0}, {MEM0, 4, R, 2, NA, 8, 0}}},
	/* 2 */ {0x140001008, "lea rdx, ptr [rax+0x8]", {0x48, 0x8d, 0x50, 0x08}, 4, 0, 0, -1,
	         0x17e, 3, 0, 8, 2, 3, 4, 2, 0, NA, 0, NA, 0x8,
	         {{RAX, 8, 0}, {AGEN, 8, 0}, {RDX, 8, 0}, {RDX, 8, 0}},
	         {{RDX, 8, W, 2, 3, 0, 0}, {AGEN, 8, R, 1, NA, 0, 0}}},
	/* 3 */ {0x14000100c, "mov ah, 0x7f", {0xb4, 0x7f}, 2, 0, 0, -1, 0x1b1, 3, 0, 4, 0, 1, 2, 2,
	         NA, NA, 0, NA, 0x7f,
	         {{RAX, 8, 0}, {RAX, 8, 0}},
	         {{AH, 1, W, 0, 1, 1, 1}, {0, 1, R, IMM0, NA, 0, 0}}},
	/* 4 */ {0x140002000, "push rbp", {0x55}, 1, 0, 0, -1, 0x2a3, 6, UMT_DEC_F_WRITES_MEM, 8, 2,
	         2, 4, 1, NA, NA, 0, NA, 0,
	         {{RBP, 8, 0}, {RSP, 8, 0}, {STACKPUSH, 8, 8}, {RSP, 8, 0}},
	         {{RBP, 8, R, 0, NA, 0, 0}}},
	/* 5 */ {0x140002001, "movsb byte ptr [rdi], byte ptr [rsi]", {0xa4}, 1, 0, 0, -1, 0x1c7, 5,
	         UMT_DEC_F_READS_MEM | UMT_DEC_F_WRITES_MEM, 4, 3, 4, 7, 2, 1, NA, 0, 0, 0,
	         {{RSI, 8, 0}, {RDI, 8, 0}, {MEM1, 1, 8}, {MEM0, 1, 8}, {MEM0, 1, 8}, {RSI, 8, 0},
	          {RDI, 8, 0}},
	         {{MEM0, 1, W, 3, 4, 8, 8}, {MEM1, 1, R, 2, NA, 8, 0}}},
	/* 6 */ {0x7ffd00001012, "syscall", {0x0f, 0x05}, 2, UMT_INS_FAST_SYSCALL64, 1, -1, 0x2f6,
	         7, 0, 4, 1, 1, 3, 0, NA, NA, 0, NA, 0,
	         {{RAX, 8, 0}, {RCX, 8, 0}, {R11, 8, 0}}, {{0}}},
	/* 7 */ {0x140002002, "nop", {0x90}, 1, UMT_INS_NOP, 0, -1, 0x1f0, 9, 0, 4, 0, 0, 0, 0, NA,
	         NA, 0, NA, 0, {{0}}, {{0}}},
	/* 8 */ {0x140001014, "nop", {0x90}, 1, UMT_INS_NOP, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	         0, 0, {{0}}, {{0}}},
	/* 9 */ {0x140001015, "ret", {0xc3}, 1, 0, 0, -1, 0x2c1, 4, UMT_DEC_F_READS_MEM, 8, 2, 2, 4,
	         0, NA, NA, 0, NA, 0,
	         {{RSP, 8, 0}, {STACKPOP, 8, 8}, {RSP, 8, 0}, {RIP, 8, 0}}, {{0}}},
};
#define INS_COUNT (sizeof ins / sizeof ins[0])

/* Fills a decodedIns and its slots from a definition; returns LCSize. */
static uint16_t build_decoded(const struct ins_def *d, umt_decoded_ins *dec, umt_lc_slot *slots)
{
	memset(dec, 0, sizeof *dec);
	dec->Category = d->category;
	dec->Mnemonic = d->mnemonic;
	dec->Form = (int16_t)(d->mnemonic * 3 + 1);
	dec->Flags = d->flags;
	dec->ExpCount = d->exp_count;
	dec->EffOperSize = d->eff_oper;
	dec->EffAddrSize = 8;
	dec->FirstOutSlot = d->first_out;
	dec->FirstAfterSlot = d->first_after;
	dec->LCCount = d->lc_count;
	dec->Mem0SegSlot = NA;
	dec->Mem0BaseSlot = d->mem0_base;
	dec->Mem0IndexSlot = d->mem0_index;
	dec->Mem0Scale = d->mem0_scale;
	dec->Mem1BaseSlot = d->mem1_base;
	dec->ConstSlot[0] = d->const0;
	uint16_t off = 0;
	for (int i = 0; i < d->lc_count; i++) {
		memset(&slots[i], 0, sizeof slots[i]);
		slots[i].RegName = d->slots[i].reg;
		slots[i].CommonRegName = d->slots[i].reg; /* the map's common names are set below */
		slots[i].ValueSize = d->slots[i].size;
		slots[i].Offset = off;
		slots[i].AddrWidth = d->slots[i].aw;
		off = (uint16_t)(off + d->slots[i].size + (d->slots[i].aw ? 8 : 0));
	}
	for (int i = 0; i < d->exp_count; i++) {
		umt_exp_oper *o = &dec->ExpOper[i];
		o->RegName = d->ops[i].reg;
		o->Size = d->ops[i].size;
		o->Flags = d->ops[i].flags;
		o->BeforeSlot = d->ops[i].before;
		o->AfterSlot = d->ops[i].after;
		o->BeforeOffset = d->ops[i].boff;
		o->AfterOffset = d->ops[i].aoff;
	}
	for (int i = d->exp_count; i < 4; i++)
		dec->ExpOper[i].BeforeSlot = dec->ExpOper[i].AfterSlot = NA;
	dec->LCSize = off;
	return off;
}

static uint16_t lc_size[INS_COUNT];

static int write_instructions(umt_writer *w, const umt_context_map *map)
{
	int64_t dec_fp[INS_COUNT], str_fp[INS_COUNT];
	for (size_t i = 0; i < INS_COUNT; i++) {
		const struct ins_def *d = &ins[i];
		if (d->share_with >= 0) {
			dec_fp[i] = dec_fp[d->share_with];
			str_fp[i] = str_fp[d->share_with];
			lc_size[i] = lc_size[d->share_with];
		} else {
			umt_decoded_ins dec;
			umt_lc_slot slots[8];
			lc_size[i] = build_decoded(d, &dec, slots);
			for (int s = 0; s < dec.LCCount; s++)
				if (slots[s].RegName > 0 && slots[s].RegName < UMT_CONTEXT_MAP_REGS)
					slots[s].CommonRegName = map->CommonName[slots[s].RegName];
			if (check(umt_writer_add_decoded(w, &dec, slots, &dec_fp[i]), "decoded") < 0 ||
			    check(umt_writer_add_disasm(w, d->disasm, &str_fp[i]), "disasm") < 0)
				return -1;
		}
		umt_ins_rec r;
		memset(&r, 0, sizeof r);
		r.Type = d->type;
		r.CSis64Bits = 1;
		r.CodeSize = d->code_size;
		memcpy(r.CodeBytes, d->code, sizeof r.CodeBytes);
		r.ModuleID = d->module;
		r.Address = d->address;
		r.DisasmFP = str_fp[i];
		r.DecodedFP = dec_fp[i];
		if (check(umt_writer_add_ins(w, &r, NULL), "instruction") < 0)
			return -1;
	}
	return 0;
}

/* ---- local contexts: the operand values of each instruction record -------- */

static void put(uint8_t *lc, size_t *at, uint64_t v, int size)
{
	memcpy(lc + *at, &v, (size_t)size);
	*at += (size_t)size;
}

/* The LC of instruction @p i as executed in the sample (slot order of ins[i]). */
static size_t build_lc(int i, uint8_t *lc)
{
	size_t n = 0;
	switch (i) {
	case 0: /* sub rsp, 0x28 */
		put(lc, &n, 0x14fe58, 8);
		put(lc, &n, 0x14fe30, 8);
		put(lc, &n, 0x206, 8);
		break;
	case 1: /* mov eax, [rbx+rcx*4+0x10]: 0x140020000 + 3*4 + 0x10 */
		put(lc, &n, 0x140020000, 8);
		put(lc, &n, 3, 8);
		put(lc, &n, 0x14002001c, 8);
		put(lc, &n, 0x1234, 4);
		put(lc, &n, 0xdeadbeefcafebabeull, 8);
		put(lc, &n, 0x1234, 8);
		break;
	case 2: /* lea rdx, [rax+8] */
		put(lc, &n, 0x1234, 8);
		put(lc, &n, 0x123c, 8);
		put(lc, &n, 0, 8);
		put(lc, &n, 0x123c, 8);
		break;
	case 3: /* mov ah, 0x7f */
		put(lc, &n, 0x1234, 8);
		put(lc, &n, 0x7f34, 8);
		break;
	case 4: /* push rbp */
		put(lc, &n, 0, 8);
		put(lc, &n, 0x24fe58, 8);
		put(lc, &n, 0x24fe50, 8);
		put(lc, &n, 0, 8);
		put(lc, &n, 0x24fe50, 8);
		break;
	case 5: /* movsb [rdi], [rsi] */
		put(lc, &n, 0x140020100, 8);
		put(lc, &n, 0x24fd00, 8);
		put(lc, &n, 0x140020100, 8);
		put(lc, &n, 0x41, 1);
		put(lc, &n, 0x24fd00, 8);
		put(lc, &n, 0x00, 1);
		put(lc, &n, 0x24fd00, 8);
		put(lc, &n, 0x41, 1);
		put(lc, &n, 0x140020101, 8);
		put(lc, &n, 0x24fd01, 8);
		break;
	case 6: /* syscall: rax = service number; rcx, r11 after */
		put(lc, &n, 0x52, 8);
		put(lc, &n, NTDLL + 0x1014, 8);
		put(lc, &n, 0x246, 8);
		break;
	case 9: /* ret */
		put(lc, &n, 0x14fe30, 8);
		put(lc, &n, 0x14fe30, 8);
		put(lc, &n, 0x140001100, 8);
		put(lc, &n, 0x14fe38, 8);
		put(lc, &n, 0x140001100, 8);
		break;
	default: /* nops */
		break;
	}
	return n;
}

/* ---- register contexts ------------------------------------------------------- */

struct regs { uint64_t rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, rip, gsbase; };

static void fill_dump(uint8_t dump[512], const struct regs *r)
{
	/* offsets of umt_context_map_default(): GPR i at 8 * i, rflags 128, rip 136,
	 * cs ds es ss fs gs at 144.., fsbase 156, gsbase 164 */
	const uint64_t gpr[8] = {r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi};
	memset(dump, 0, 512);
	memcpy(dump, gpr, sizeof gpr);
	uint64_t rflags = 0x246;
	memcpy(dump + 128, &rflags, 8);
	memcpy(dump + 136, &r->rip, 8);
	const uint16_t seg[6] = {0x33, 0x2b, 0x2b, 0x2b, 0x53, 0x2b};
	memcpy(dump + 144, seg, sizeof seg);
	memcpy(dump + 164, &r->gsbase, 8);
}

/* ---- the records -------------------------------------------------------------- */

enum { I = UMT_REC_INSTRUCTION, TB = UMT_REC_THREAD_BEGIN, TE = UMT_REC_THREAD_END,
       AE = UMT_REC_APP_END, SE = UMT_REC_SYSCALL_ENTRY, SX = UMT_REC_SYSCALL_EXIT,
       SK = UMT_REC_SYSCALL_SKIPPED, CA = UMT_REC_CTX_APC, CE = UMT_REC_CTX_EXCEPTION,
       CC = UMT_REC_CTX_CALLBACK, CU = UMT_REC_CTX_UNKNOWN };

static const struct {
	uint8_t type;
	int32_t thread;
	int64_t arg; /* instruction, syscall ID or exit code */
	struct regs r;
} records[] = {
	/*  0 */ {TB, 0, 0, {0, 0, 0, 0x140020000, 0x14fe58, 0, 0, 0, 0x140001000, TIB0}},
	/*  1 */ {I, 0, 0, {0}},
	/*  2 */ {I, 0, 1, {0}},
	/*  3 */ {TB, 1, 0, {0, 0, 0, 0, 0x24fe58, 0, 0x140020100, 0x24fd00, 0x140002000, TIB1}},
	/*  4 */ {I, 1, 4, {0}},
	/*  5 */ {I, 0, 2, {0}},
	/*  6 */ {I, 1, 5, {0}},
	/*  7 */ {I, 0, 3, {0}},
	/*  8 */ {I, 0, 6, {0}},
	/*  9 */ {SE, 0, 0, {0x52, NTDLL + 0x1014, 0x14fea0, 0x140020000, 0x14fe28, 0, 0, 0,
	                     NTDLL + 0x1014, TIB0}},
	/* 10 */ {I, 1, 7, {0}},
	/* 11 */ {SE, 1, 1, {0x1b, 0, 1, 0, 0x24fe40, 0x24fe50, 0x140020101, 0x24fd01,
	                     NTDLL + 0x1014, TIB1}},
	/* 12 */ {SX, 0, 0, {0, NTDLL + 0x1014, 0x14fea0, 0x140020000, 0x14fe28, 0, 0, 0,
	                     NTDLL + 0x1014, TIB0}},
	/* 13 */ {CA, 1, 0, {0, 0, 0, 0, 0x24f9c0, 0x24fe50, 0, 0, NTDLL + 0x3000, TIB1}},
	/* 14 */ {SK, 1, 1, {0}},
	/* 15 */ {I, 0, 8, {0}},
	/* 16 */ {CE, 0, 0, {0x7f34, 0, 0x123c, 0x140020000, 0x14f4d0, 0, 0, 0, NTDLL + 0x4000, TIB0}},
	/* 17 */ {CC, 1, 0, {0, 0, 0, 0, 0x24f800, 0, 0, 0, NTDLL + 0x5000, TIB1}},
	/* 18 */ {CU, 0, 0, {0x7f34, 0, 0x123c, 0x140020000, 0x14fe30, 0, 0, 0, 0x140001015, TIB0}},
	/* 19 */ {I, 0, 9, {0}},
	/* 20 */ {TE, 1, 0, {0}},
	/* 21 */ {SX, 0, -1, {0, 0, 0, 0x140020000, 0x14fe38, 0, 0, 0, 0x140001100, TIB0}},
	/* 22 */ {AE, 0, 0, {0}},
};
#define RECORD_COUNT (sizeof records / sizeof records[0])

static int write_records(umt_writer *w)
{
	uint8_t tib[64], exception[32], dump[512], lc[128];
	for (size_t j = 0; j < sizeof tib; j++)
		tib[j] = (uint8_t)(j * 3);
	for (size_t j = 0; j < sizeof exception; j++)
		exception[j] = (uint8_t)(0xc0 + j); /* an EXCEPTION_RECORD's first bytes */
	for (size_t id = 0; id < RECORD_COUNT; id++) {
		umt_exec_desc d;
		memset(&d, 0, sizeof d);
		d.type = records[id].type;
		d.flags = UMT_EXEC_F_64BIT;
		d.thread_id = records[id].thread;
		fill_dump(dump, &records[id].r);
		umt_mem_ref mem = {0, 0, NULL};
		umt_context_desc ctx = {dump, sizeof dump, &mem, 0};
		if (d.type == TB) { /* the TIB, at the thread's TIBAddr (ERRATA 15) */
			mem = (umt_mem_ref){records[id].r.gsbase, sizeof tib, tib};
			ctx.mem_count = 1;
		} else if (d.type == CE) {
			mem = (umt_mem_ref){0x14f4f0, sizeof exception, exception};
			ctx.mem_count = 1;
		}
		switch (d.type) {
		case I:
			d.ins_id = records[id].arg;
			d.lc = lc;
			d.lc_size = build_lc((int)d.ins_id, lc);
			if (d.lc_size != lc_size[d.ins_id]) {
				fprintf(stderr, "mksample: record %zu: LC of %llu bytes, LCSize %u\n", id,
				        (unsigned long long)d.lc_size, lc_size[d.ins_id]);
				return -1;
			}
			break;
		case TE:
		case AE:
			d.exit_code = (int32_t)records[id].arg;
			break;
		case SK:
			d.syscall_id = records[id].arg;
			break;
		case SE:
		case SX:
			d.syscall_id = records[id].arg;
			d.context = &ctx;
			break;
		default:
			d.context = &ctx;
			break;
		}
		if (check(umt_writer_add_exec(w, &d, NULL), "record") < 0)
			return -1;
	}
	return 0;
}

/* ---- small tables --------------------------------------------------------------- */

static int write_syscalls(umt_writer *w)
{
	/* NtCreateFile(FileHandle, DesiredAccess, ObjectAttributes, IoStatusBlock,
	 * AllocationSize, FileAttributes, ShareAccess, CreateDisposition,
	 * CreateOptions, EaBuffer, EaLength) */
	static const int64_t create_args[11] = {0x14fe70, 0x80100080, 0x14fea0, 0x14fe90, 0,
	                                        0x80, 1, 1, 0x60, 0, 0};
	static const int64_t wait_args[3] = {0x44, 1, 0};
	umt_syscall_desc wait = {
		.raw_id = 0x1, .uniform_id = 0x1a2, .convention = UMT_SYSCALL_CONV_FAST64,
		.completed = 0, .begin_eid = 11, .end_eid = 14, .before_sp = 0x24fe40, .result = 0,
		.args = wait_args, .arg_count = 3,
	};
	umt_syscall_desc create = {
		.raw_id = 0x52, .uniform_id = 0x0d0, .convention = UMT_SYSCALL_CONV_FAST64,
		.completed = 1, .begin_eid = 9, .end_eid = 12, .before_sp = 0x14fe28, .result = 0,
		.args = create_args, .arg_count = 11,
	};
	/* stored out of ID order, as UMTIndex does */
	if (check(umt_writer_add_syscall(w, 1, &wait), "syscall 1") < 0 ||
	    check(umt_writer_add_syscall(w, 0, &create), "syscall 0") < 0)
		return -1;
	return 0;
}

static int write_tables(umt_writer *w)
{
	umt_module_desc notepad = {
		.load_eid = 0, .unload_eid = -1, .start_addr = 0x140000000, .end_addr = 0x14003ffff,
		.win_name = "C:\\Windows\\System32\\notepad.exe",
		.device_name = "\\Device\\HarddiskVolume2\\Windows\\System32\\notepad.exe",
		.last_file_write_time = 129363952331250000ull, .version_info = {6, 1, 7600, 16385},
	};
	umt_module_desc ntdll = {
		.load_eid = 0, .unload_eid = -1, .start_addr = (int64_t)NTDLL,
		.end_addr = (int64_t)NTDLL + 0x1fffff,
		.win_name = "C:\\Windows\\System32\\ntdll.dll",
		.device_name = "\\Device\\HarddiskVolume2\\Windows\\System32\\ntdll.dll",
		.last_file_write_time = 129341357280000000ull, .version_info = {6, 1, 7601, 17514},
	};
	/* sorted by address (TEBs at 0x7ff'fffd'c000 lie below ntdll at 0x7ffd'0000'0000) */
	static const int64_t ranges[][2] = {
		{0x14b000, 0x14ffff},         {0x24f000, 0x24ffff},
		{0x140001000, 0x140002fff},   {0x140020000, 0x140020fff},
		{TIB1, TIB0 + 0xfff},         {NTDLL + 0x1000, NTDLL + 0x5fff},
	};
	int rc = umt_writer_add_thread(w, 0x1a2c, (int64_t)TIB0, NULL);
	if (rc == 0)
		rc = umt_writer_add_thread(w, 0x0f44, (int64_t)TIB1, NULL);
	if (rc == 0)
		rc = umt_writer_add_module(w, &notepad, NULL);
	if (rc == 0)
		rc = umt_writer_add_module(w, &ntdll, NULL);
	for (size_t i = 0; rc == 0 && i < sizeof ranges / sizeof ranges[0]; i++)
		rc = umt_writer_add_address_range(w, ranges[i][0], ranges[i][1]);
	return check(rc, "tables");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mksample OUT_DIR\n");
		return 2;
	}
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2015);
	o.xml.process_id = "7472";
	o.xml.app_command_line = "\"C:\\Windows\\System32\\notepad.exe\" C:\\Users\\analyst\\notes.txt";
	o.xml.pin_command_line = "pin.exe -t UMTracer.dll -- C:\\Windows\\System32\\notepad.exe";
	umt_context_map map;
	umt_context_map_default(&map, o.ins_record_version, o.xml.xed_version);
	umt_writer *w;
	if (check(umt_writer_open(argv[1], &o, &w), argv[1]) < 0)
		return 1;
	if (write_tables(w) < 0 || write_instructions(w, &map) < 0 || write_syscalls(w) < 0 ||
	    write_records(w) < 0) {
		umt_writer_abort(w);
		return 1;
	}
	return check(umt_writer_finish(w), "finish") < 0 ? 1 : 0;
}
