/*
 * mkfixture: writes the CLI tests' trace in the older 2014 flavour with the
 * library's writer.
 *
 *   mkfixture OUT_DIR
 *
 * A consistent, interrupted run of a 32-bit process (execution flag 0x01
 * clear everywhere): exec.vtable version 0, insRec version 0 (lcSlot offset
 * 2 is LargestEnclosing), XED 20140106 register numbers (6 below 20150121),
 * 48-byte module rows, 48-byte thread rows, unified IDs version 0 and a
 * root-less trace.xml. Its strings test the output rules: a disassembly
 * string with a tab, a quote, a backslash, an escape character, an invalid
 * UTF-8 byte and an accent; module names in Spanish and Japanese and one
 * with an unpaired UTF-16 surrogate; a command line with a tab; a repeated
 * trace.xml element.
 *
 *   id type             thread flags  detail
 *    0 thread-begin     0      0x00   TIB 0x7ffdf000 (16 bytes) in the context
 *    1 instruction      0      0x00   ins 0  mov eax, dword ptr [esp+0x4]
 *    2 instruction      0      0x02   ins 1  push ebp
 *    3 thread-begin     1      0x00   TIB 0x7ffde000
 *    4 instruction      1      0x14   ins 2  the odd string, not executed, exc-input
 *    5 instruction      0      0x00   ins 3  int 0x2e
 *    6 syscall-entry    0      0x00   syscall 0
 *    7 syscall-exit     0      0x00   syscall 0
 *    8 ctx-exception    1      0x00   8 bytes at 0x12fd00
 *    9 thread-end       1      0x00   exit code 0xc0000005
 *   10 syscall-exit     0      0x00   syscall -1 (no entry)
 *   11 instruction      0      0x80   ins 0, internal-error
 * No application end: thread 0 never ends (LastEID -1).
 */
#include <stdio.h>
#include <string.h>

#include "umtrace/umtrace.h"

/* XED 20140106 register numbers (ERRATA 17: 6 below 20150121 up to GSBASE). */
enum { EAX = 52, EDX = 54, ESP = 56, EBP = 57, STACKPUSH = 125 };
#define MEM0 ((int16_t)UMT_REG_MEM0)
#define NA UMT_SLOT_NA
#define TIB0 0x7ffdf000
#define TIB1 0x7ffde000

static int check(int rc, const char *what)
{
	if (rc < 0)
		fprintf(stderr, "mkfixture: %s: %s\n", what, umt_errmsg());
	return rc;
}

static umt_context_map map;

static umt_lc_slot slot(int16_t reg, int16_t size, uint16_t offset, uint8_t addr_width)
{
	umt_lc_slot s;
	memset(&s, 0, sizeof s);
	s.RegName = reg;
	/* insRec version 0: the context map's CommonName, the largest enclosing register */
	s.LargestEnclosing = reg > 0 && reg < UMT_CONTEXT_MAP_REGS ? map.CommonName[reg] : reg;
	s.ValueSize = size;
	s.Offset = offset;
	s.AddrWidth = addr_width;
	return s;
}

static void operand(umt_decoded_ins *d, int i, int16_t reg, int16_t size, uint8_t flags,
                    uint8_t before, uint8_t after, uint8_t boff, uint8_t aoff)
{
	umt_exp_oper *o = &d->ExpOper[i];
	o->RegName = reg;
	o->Size = size;
	o->Flags = flags;
	o->BeforeSlot = before;
	o->AfterSlot = after;
	o->BeforeOffset = boff;
	o->AfterOffset = aoff;
}

static void decoded(umt_decoded_ins *d, int16_t category, int16_t mnemonic, uint8_t exp_count)
{
	memset(d, 0, sizeof *d);
	d->Category = category;
	d->Mnemonic = mnemonic;
	d->Form = (int16_t)(mnemonic * 3 + 1);
	d->ExpCount = exp_count;
	d->EffOperSize = 4;
	d->EffAddrSize = 4;
	d->Mem0SegSlot = d->Mem0BaseSlot = d->Mem0IndexSlot = d->Mem1BaseSlot = NA;
	for (int i = 0; i < 4; i++)
		d->ExpOper[i].BeforeSlot = d->ExpOper[i].AfterSlot = NA;
}

static int add_ins(umt_writer *w, uint32_t address, const uint8_t *code, uint8_t code_size,
                   uint8_t type, const char *text, const umt_decoded_ins *d,
                   const umt_lc_slot *slots)
{
	int64_t dec_fp, str_fp;
	umt_ins_rec r;
	memset(&r, 0, sizeof r);
	if (check(umt_writer_add_decoded(w, d, slots, &dec_fp), "decoded") < 0 ||
	    check(umt_writer_add_disasm(w, text, &str_fp), "disasm") < 0)
		return -1;
	r.Type = type;
	r.CSis64Bits = 0;
	r.CodeSize = code_size;
	memcpy(r.CodeBytes, code, code_size);
	r.ModuleID = 0;
	r.Address = address;
	r.DisasmFP = str_fp;
	r.DecodedFP = dec_fp;
	return check(umt_writer_add_ins(w, &r, NULL), "instruction");
}

static int write_instructions(umt_writer *w)
{
	umt_decoded_ins d;
	umt_lc_slot s[4];
	/* 0: mov eax, [esp+4]: esp, MEM0 (4-byte address), eax before (write-only), eax after */
	decoded(&d, 3, 433, 2);
	d.Flags = UMT_DEC_F_READS_MEM;
	d.FirstOutSlot = 2, d.FirstAfterSlot = 3, d.LCCount = 4, d.LCSize = 4 + 12 + 4 + 4;
	d.Mem0BaseSlot = 0;
	d.ConstSlot[0] = 4;
	s[0] = slot(ESP, 4, 0, 0);
	s[1] = slot(MEM0, 4, 4, 4);
	s[2] = slot(EAX, 4, 16, 0);
	s[3] = slot(EAX, 4, 20, 0);
	operand(&d, 0, EAX, 4, UMT_OPER_F_WRITE, 2, 3, 0, 0);
	operand(&d, 1, MEM0, 4, UMT_OPER_F_READ, 1, NA, 8, 0);
	static const uint8_t c0[] = {0x8b, 0x44, 0x24, 0x04};
	if (add_ins(w, 0x401000, c0, 4, UMT_INS_NORMAL, "mov eax, dword ptr [esp+0x4]", &d, s) < 0)
		return -1;
	/* 1: push ebp: ebp, esp before; STACKPUSH (4-byte address), esp after */
	decoded(&d, 6, 675, 1);
	d.Flags = UMT_DEC_F_WRITES_MEM;
	d.FirstOutSlot = 2, d.FirstAfterSlot = 2, d.LCCount = 4, d.LCSize = 4 + 4 + 12 + 4;
	s[0] = slot(EBP, 4, 0, 0);
	s[1] = slot(ESP, 4, 4, 0);
	s[2] = slot(STACKPUSH, 4, 8, 4);
	s[3] = slot(ESP, 4, 20, 0);
	operand(&d, 0, EBP, 4, UMT_OPER_F_READ, 0, NA, 0, 0);
	static const uint8_t c1[] = {0x55};
	if (add_ins(w, 0x401004, c1, 1, UMT_INS_NORMAL, "push ebp", &d, s) < 0)
		return -1;
	/* 2: an odd string: tab, quote, backslash, ESC, invalid byte, accent */
	decoded(&d, 9, 496, 0);
	static const uint8_t c2[] = {0x90};
	if (add_ins(w, 0x401005, c2, 1, UMT_INS_NORMAL, "odd\t\"q\" \\ \x1b[31m \xff caf\xc3\xa9",
	            &d, s) < 0)
		return -1;
	/* 3: int 0x2e: eax, edx before */
	decoded(&d, 7, 300, 0);
	d.FirstOutSlot = 2, d.FirstAfterSlot = 2, d.LCCount = 2, d.LCSize = 8;
	s[0] = slot(EAX, 4, 0, 0);
	s[1] = slot(EDX, 4, 4, 0);
	static const uint8_t c3[] = {0xcd, 0x2e};
	return add_ins(w, 0x401006, c3, 2, UMT_INS_ALT_SYSCALL, "int 0x2e", &d, s);
}

static size_t put(uint8_t *lc, size_t at, uint64_t v, size_t size)
{
	memcpy(lc + at, &v, size);
	return at + size;
}

/* The LC of an execution of instruction @p ins. */
static size_t build_lc(int ins, uint8_t *lc)
{
	size_t n = 0;
	switch (ins) {
	case 0: /* esp 0x12ff80, [0x12ff84] = 0x2a, eax 0x11223344 -> 0x2a */
		n = put(lc, n, 0x12ff80, 4);
		n = put(lc, n, 0x12ff84, 8);
		n = put(lc, n, 0x2a, 4);
		n = put(lc, n, 0x11223344, 4);
		n = put(lc, n, 0x2a, 4);
		break;
	case 1: /* ebp 0x12ffb0 pushed at 0x12ff7c */
		n = put(lc, n, 0x12ffb0, 4);
		n = put(lc, n, 0x12ff80, 4);
		n = put(lc, n, 0x12ff7c, 8);
		n = put(lc, n, 0x12ffb0, 4);
		n = put(lc, n, 0x12ff7c, 4);
		break;
	case 3: /* eax = service 0x42, edx = arguments */
		n = put(lc, n, 0x42, 4);
		n = put(lc, n, 0x12ff70, 4);
		break;
	default:
		break;
	}
	return n;
}

/* A 32-bit register dump of umt_context_map_default(0, "20140106"). */
static void fill_dump(uint8_t dump[512], uint32_t eax, uint32_t esp, uint32_t eip, uint32_t fs)
{
	memset(dump, 0, 512);
	memcpy(dump + 0, &eax, 4);
	memcpy(dump + 32, &esp, 4);
	uint32_t eflags = 0x202;
	memcpy(dump + 128, &eflags, 4);
	memcpy(dump + 136, &eip, 4);
	memcpy(dump + 156, &fs, 4);
}

enum { I = UMT_REC_INSTRUCTION, TB = UMT_REC_THREAD_BEGIN, TE = UMT_REC_THREAD_END,
       SE = UMT_REC_SYSCALL_ENTRY, SX = UMT_REC_SYSCALL_EXIT, CE = UMT_REC_CTX_EXCEPTION };

static const struct {
	uint8_t type, flags;
	int32_t thread;
	int64_t arg; /* instruction, syscall ID or exit code */
	uint32_t eax, esp, eip;
} records[] = {
	/*  0 */ {TB, 0x00, 0, 0, 0, 0x12ff88, 0x401000},
	/*  1 */ {I, 0x00, 0, 0, 0, 0, 0},
	/*  2 */ {I, 0x02, 0, 1, 0, 0, 0},
	/*  3 */ {TB, 0x00, 1, 0, 0, 0x22ff88, 0x401005},
	/*  4 */ {I, 0x14, 1, 2, 0, 0, 0},
	/*  5 */ {I, 0x00, 0, 3, 0, 0, 0},
	/*  6 */ {SE, 0x00, 0, 0, 0x42, 0x12ff6c, 0x401008},
	/*  7 */ {SX, 0x00, 0, 0, 0, 0x12ff6c, 0x401008},
	/*  8 */ {CE, 0x00, 1, 0, 0, 0x12fc00, 0x401005},
	/*  9 */ {TE, 0x00, 1, (int32_t)0xc0000005, 0, 0, 0},
	/* 10 */ {SX, 0x00, 0, -1, 0x103, 0x12ff70, 0x401008},
	/* 11 */ {I, 0x80, 0, 0, 0, 0, 0},
};
#define RECORD_COUNT (sizeof records / sizeof records[0])

static int write_records(umt_writer *w)
{
	uint8_t dump[512], lc[64], tib[16], exc[8];
	for (size_t j = 0; j < sizeof tib; j++)
		tib[j] = (uint8_t)(0xa0 + j);
	for (size_t j = 0; j < sizeof exc; j++)
		exc[j] = (uint8_t)(0xe0 + j);
	for (size_t id = 0; id < RECORD_COUNT; id++) {
		umt_exec_desc d;
		memset(&d, 0, sizeof d);
		d.type = records[id].type;
		d.flags = records[id].flags;
		d.thread_id = records[id].thread;
		uint32_t tib_addr = d.thread_id ? TIB1 : TIB0;
		fill_dump(dump, records[id].eax, records[id].esp, records[id].eip, tib_addr);
		umt_mem_ref mem = {0, 0, NULL};
		umt_context_desc ctx = {dump, sizeof dump, &mem, 0};
		if (d.type == TB) {
			mem = (umt_mem_ref){tib_addr, sizeof tib, tib};
			ctx.mem_count = 1;
		} else if (d.type == CE) {
			mem = (umt_mem_ref){0x12fd00, sizeof exc, exc};
			ctx.mem_count = 1;
		}
		switch (d.type) {
		case I:
			d.ins_id = records[id].arg;
			d.lc = lc;
			d.lc_size = build_lc((int)d.ins_id, lc);
			break;
		case TE:
			d.exit_code = (int32_t)records[id].arg;
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

static int write_tables(umt_writer *w)
{
	static const int64_t args[4] = {0xffffffff, 0x12345678, 0, 0x12ff70};
	static const uint8_t extras[5] = {1, 2, 3, 4, 5};
	umt_syscall_desc call = {
		.raw_id = 0x42, .uniform_id = 0x33, .convention = UMT_SYSCALL_CONV_ALT,
		.completed = 1, .begin_eid = 6, .end_eid = 7, .before_sp = 0x12ff6c,
		.result = 0xc0000034, .args = args, .arg_count = 4,
		.extras = extras, .extras_size = sizeof extras, .extra_count = 1,
	};
	static const uint16_t bad_name[] = {'b', 'a', 'd', 0xd800, '.', 'd', 'l', 'l'};
	umt_module_desc app = {
		.load_eid = 0, .unload_eid = -1, .start_addr = 0x400000, .end_addr = 0x40ffff,
		.win_name = "C:\\Users\\\xc3\x91" "and\xc3\xba" "\\app.exe",
		.device_name = "\\Device\\HarddiskVolume1\\Users\\\xc3\x91" "and\xc3\xba" "\\app.exe",
	};
	umt_module_desc jp = {
		.load_eid = 2, .unload_eid = 9, .start_addr = 0x10000000, .end_addr = 0x1000ffff,
		.win_name = "C:\\Windows\\SysWOW64\\\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.dll",
		.device_name = "\\Device\\HarddiskVolume1\\Windows\\SysWOW64\\"
		               "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e.dll",
	};
	umt_module_desc bad = {
		.load_eid = 5, .unload_eid = -1, .start_addr = 0x20000000, .end_addr = 0x20000fff,
		.win_name_utf16 = bad_name, .win_name_utf16_len = 8,
		.device_name = "\\Device\\HarddiskVolume1\\bad.dll",
	};
	int rc = umt_writer_add_thread(w, 0x9c4, TIB0, NULL);
	if (rc == 0)
		rc = umt_writer_add_thread(w, 0xa10, TIB1, NULL);
	if (rc == 0)
		rc = umt_writer_add_module(w, &app, NULL);
	if (rc == 0)
		rc = umt_writer_add_module(w, &jp, NULL);
	if (rc == 0)
		rc = umt_writer_add_module(w, &bad, NULL);
	if (rc == 0)
		rc = umt_writer_add_address_range(w, 0x12f000, 0x12ffff);
	if (rc == 0)
		rc = umt_writer_add_address_range(w, 0x7ffde000, 0x7ffdffff);
	if (rc == 0)
		rc = umt_writer_add_syscall(w, 0, &call);
	return check(rc, "tables");
}

static const char xml[] =
	"<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
	"<CPU><HasXMM>1</HasXMM><hasYMM>0</hasYMM><hasZMM>0</hasZMM></CPU>"
	"<OS><Id>06010110</Id><Name>Windows 7 SP1 32-bits</Name></OS>"
	"<Pin><Version>2.13.62732</Version><CommandLine>pin.exe -t UMTracer.dll -- app.exe"
	"</CommandLine></Pin><Xed><Version>20140106</Version></Xed>"
	"<App><CommandLine>&quot;C:\\Users\\\xc3\x91" "and\xc3\xba" "\\app.exe&quot; /t\tx</CommandLine>"
	"<Bitness>32</Bitness><ProcessID>4242</ProcessID></App><!-- converted -->"
	"<UMTracer><Ins><Format><Version>0</Version></Format><BeginRecord><Version>1</Version>"
	"</BeginRecord></Ins><Exec><Format><Version>0</Version></Format><SyscallTable>"
	"<Version>0</Version></SyscallTable></Exec></UMTracer>"
	"<Note>first</Note><Note>second</Note>\n";

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mkfixture OUT_DIR\n");
		return 2;
	}
	umt_writer_options o;
	umt_writer_options_init(&o, UMT_FLAVOUR_2014);
	o.thread_row_size = 48;
	o.xml_text = xml;
	umt_context_map_default(&map, 0, "20140106");
	umt_writer *w;
	if (check(umt_writer_open(argv[1], &o, &w), argv[1]) < 0)
		return 1;
	if (check(umt_writer_set_context_map(w, &map), "context map") < 0 || write_tables(w) < 0 ||
	    write_instructions(w) < 0 || write_records(w) < 0) {
		umt_writer_abort(w);
		return 1;
	}
	return check(umt_writer_finish(w), "finish") < 0 ? 1 : 0;
}
