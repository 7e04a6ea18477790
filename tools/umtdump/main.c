/*
 * umtdump - inspect every part of a UMTracer indexed trace.
 *
 *   umtdump [GLOBAL OPTIONS] COMMAND [OPTIONS] TRACE_DIR
 *
 * main.c parses the command line (options may come before or after the
 * command), loads the name tables of --xed-dir, opens the trace and
 * dispatches to one file per command; out.c writes the output and errors;
 * common.c holds what several commands share. The help texts here are the
 * man page's (docs/umtdump.1): change both together.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "umtdump.h"

/* Options of the commands, as bits of struct command.accepts. */
enum {
	OPT_FROM = 1 << 0,
	OPT_TO = 1 << 1,
	OPT_COUNT = 1 << 2,
	OPT_THREAD = 1 << 3,
	OPT_TYPE = 1 << 4,
	OPT_OPERANDS = 1 << 5,
	OPT_CONTEXT = 1 << 6,
	OPT_ID = 1 << 7,
	OPT_MAX_PROBLEMS = 1 << 8,
	OPT_ACCESSES = 1 << 9,
	OPT_KIND = 1 << 10,
	OPT_REVERSE = 1 << 11,
	OPT_AT = 1 << 12,
	OPT_OUT = 1 << 13,
	OPT_THREADS = 1 << 14,
	OPT_MEMORY = 1 << 15,
	OPT_DEPTH = 1 << 16,
	OPT_CHANGES = 1 << 17,
	OPT_MODULE = 1 << 18,
	OPT_DRCOV = 1 << 19,
	OPT_DIFF = 1 << 20,
	OPT_TARGET = 1 << 21,
	OPT_ARGS = 1 << 22,
	OPT_CSV = 1 << 23,
	OPT_PART = 1 << 24,
	OPT_MERGE = 1 << 25
};

struct command {
	const char *name;
	int (*run)(umt_trace *t, const struct opts *o);
	unsigned accepts;
	const char *summary;
	const char *help; /* the command's description and options */
	int min_args, max_args; /* operands after TRACE_DIR */
	const char *operands;   /* their synopsis */
};

static const struct command commands[] = {
	{"info", cmd_info, 0, "counts of every table, format versions, trace.xml essentials, file sizes",
	 "Shows the record and row count of every table, the format versions, the\n"
	 "essentials of trace.xml (XED version, process ID, bitness, OS name,\n"
	 "command line) and the size of every file.\n", 0, 0, NULL},
	{"exec", cmd_exec,
	 OPT_FROM | OPT_TO | OPT_COUNT | OPT_THREAD | OPT_TYPE | OPT_OPERANDS | OPT_CONTEXT |
	         OPT_ACCESSES,
	 "execution records, one per line",
	 "Shows execution records, one per line: ID, thread, type, flags, prev and\n"
	 "next, and per type the instruction (InsID, address, disassembly), the\n"
	 "syscall (SyscallID, unified ID) or the exit code.\n"
	 "\n"
	 "options:\n"
	 "  --from ID            start at record ID (default 0)\n"
	 "  --to ID              stop after record ID\n"
	 "  --count N            show at most N records\n"
	 "  --thread TID         follow the prev/next chain of thread-table row TID\n"
	 "  --type NAME[,NAME]   only these types: instruction, thread-begin, thread-end,\n"
	 "                       app-end, syscall-entry, syscall-exit, syscall-skipped,\n"
	 "                       ctx-apc, ctx-exception, ctx-callback, ctx-unknown\n"
	 "  --operands           each explicit operand: register, kind, size, flags,\n"
	 "                       memory address, before and after values\n"
	 "  --context            register dump and memory references of the records\n"
	 "                       that carry a context\n"
	 "  --accesses           every memory access of the record: the memory slots of\n"
	 "                       an instruction, explicit and implicit (push, call, movs),\n"
	 "                       as read, write or peek (old content of a write-only\n"
	 "                       operand), and the memory blocks of a context\n", 0, 0, NULL},
	{"ins", cmd_ins, OPT_ID, "instruction table rows with their decoded instruction",
	 "Shows the rows of the instruction table with their decoded instruction:\n"
	 "every field, the explicit operands and the local-context slots, and what\n"
	 "Zydis makes of the code bytes (text, category, branch target). Without\n"
	 "--xed-dir, mnemonics and categories are named by Zydis.\n"
	 "\n"
	 "options:\n"
	 "  --id ID              only row ID\n", 0, 0, NULL},
	{"syscalls", cmd_syscalls, 0, "syscall records with arguments and results",
	 "Shows the system call records with their arguments and results; the\n"
	 "unified IDs are named when --xed-dir holds syscall_unified_id_vN.h.\n", 0, 0, NULL},
	{"modules", cmd_modules, 0, "module records",
	 "Shows the module records: load and unload records, address range, Windows\n"
	 "and device names (UTF-8), and in 2015 traces the file time and version.\n", 0, 0, NULL},
	{"threads", cmd_threads, 0, "thread records",
	 "Shows the thread records: Windows thread ID, TIB address, first and last\n"
	 "record, record count.\n", 0, 0, NULL},
	{"context-map", cmd_context_map, 0, "registers of the context map",
	 "Shows the registers present in the context map (in the 32-bit or the\n"
	 "64-bit dump) with their offsets, sizes, common names and largest\n"
	 "enclosing registers.\n", 0, 0, NULL},
	{"address-space", cmd_address_space, 0, "used address ranges",
	 "Shows the used address ranges of the address space table.\n", 0, 0, NULL},
	{"xml", cmd_xml, 0, "trace.xml: the essentials and every leaf element",
	 "Shows trace.xml: its layout, the essentials and every leaf element with\n"
	 "its path.\n", 0, 0, NULL},
	{"verify", cmd_verify, OPT_MAX_PROBLEMS, "the full consistency check",
	 "Runs the library's full consistency check (umt_verify) and reads every\n"
	 "record, row, operand and context through the library's accessors. Each\n"
	 "problem goes to stderr (to stdout with --json), then a summary. The exit\n"
	 "status is 0 only for a consistent trace.\n"
	 "\n"
	 "options:\n"
	 "  --max-problems N     stop after N problems (default 1000, 0: no limit)\n", 0, 0, NULL},
	{"stats", cmd_stats, 0, "records per type and thread, instruction mix, syscalls, memory",
	 "Shows records per type and per thread, the instruction mix by mnemonic\n"
	 "and by category (named by Zydis from the code bytes without --xed-dir)\n"
	 "and by control flow, syscall counts by unified ID, and the bytes of\n"
	 "memory read and written by the instruction records.\n", 0, 0, NULL},
	{"index", cmd_index, OPT_OUT | OPT_THREADS | OPT_MEMORY | OPT_PART | OPT_MERGE,
	 "build the index the commands below answer from",
	 "Builds the index of the trace: every memory access of every record, sorted\n"
	 "by address, so that history and mem answer in microseconds, every\n"
	 "thread's registers every 1024 of its records, so that state, reg-history\n"
	 "and origin do, and the instructions each module executed, for coverage.\n"
	 "One pass over\n"
	 "the records on all processors, within a memory budget; temporary files go\n"
	 "into the index directory. The index goes to --out DIR, --index DIR, or\n"
	 "the default place: TRACE_DIR/umtindex when the trace directory is\n"
	 "writable, else ~/.cache/umtrace/KEY.\n"
	 "\n"
	 "options:\n"
	 "  --out DIR            write the index into DIR\n"
	 "  --threads N          worker threads (default: every processor)\n"
	 "  --memory SIZE        memory budget, bytes or with K, M, G (default 256M)\n"
	 "  --part K/N           build part K (0 to N-1) of N only, for a build shared by\n"
	 "                       several machines that see the index directory\n"
	 "  --merge N            make the index from the N parts built there\n", 0, 0, NULL},
	{"history", cmd_history,
	 OPT_FROM | OPT_TO | OPT_COUNT | OPT_THREAD | OPT_KIND | OPT_REVERSE,
	 "every access to an address range, from the index",
	 "Shows every memory access overlapping ADDR (LEN bytes, default 1), whole:\n"
	 "record ID, thread, kind, address, size and value, in record order, reads\n"
	 "before writes within a record, then by address. Needs the index\n"
	 "(umtdump index). ADDR and LEN are decimal or 0x hex.\n"
	 "\n"
	 "options:\n"
	 "  --from ID            from record ID\n"
	 "  --to ID              before record ID (exclusive)\n"
	 "  --kind K[,K]         read, write, context (default: all three)\n"
	 "  --thread TID         only thread-table row TID\n"
	 "  --count N            at most N accesses\n"
	 "  --reverse            newest first\n",
	 1, 1, "ADDR[:LEN]"},
	{"mem", cmd_mem, OPT_AT, "memory contents at a record, from the index",
	 "Shows LEN bytes of memory at ADDR as they were just before record ID\n"
	 "executed: each byte from its latest observation at or before it (a read,\n"
	 "write or context block of an earlier record, or a read of the record\n"
	 "itself), ?? where no record observed it, with the record that gave each\n"
	 "byte. Needs the index (umtdump index).\n"
	 "\n"
	 "options:\n"
	 "  --at ID              the record (required)\n",
	 2, 2, "ADDR LEN"},
	{"state", cmd_state, OPT_AT | OPT_THREAD, "the registers of a thread at a record, from the index",
	 "Shows the registers of a thread just before record ID executed: every\n"
	 "whole register of the context map (rax, rflags, rip, segments, fsbase,\n"
	 "xmm0...) from its latest observation in the thread (an after value of an\n"
	 "earlier record, a before value of the record itself, the register dump of\n"
	 "a context record), ?? where unknown, with the record that gave it; then\n"
	 "the decoded flags, the instruction at rip with its module and offset, and\n"
	 "the top of the stack from memory. Needs the index (umtdump index).\n"
	 "\n"
	 "options:\n"
	 "  --at ID              the record (required)\n"
	 "  --thread TID         thread-table row TID (default: the record's thread; for\n"
	 "                       another thread, its state after its last record before ID)\n",
	 0, 0, NULL},
	{"reg-history", cmd_reg_history,
	 OPT_FROM | OPT_TO | OPT_COUNT | OPT_THREAD | OPT_REVERSE | OPT_CHANGES,
	 "every write of a register, from the index",
	 "Shows every record that wrote REG (any part of it: eax, ah and rax are one\n"
	 "register) in record order: record ID, thread, the whole register's name and\n"
	 "value after the record (?? where unknown), and whether the record changed\n"
	 "it. A context record's dump and an instrumentation gap count as writes.\n"
	 "Needs the index (umtdump index).\n"
	 "\n"
	 "options:\n"
	 "  --thread TID         only thread-table row TID (default: every thread)\n"
	 "  --from ID            from record ID\n"
	 "  --to ID              before record ID (exclusive)\n"
	 "  --count N            at most N writes\n"
	 "  --reverse            newest first (--reverse --changes --count 1 --to ID:\n"
	 "                       the previous change before ID)\n"
	 "  --changes            only the writes that changed the register\n",
	 1, 1, "REG"},
	{"origin", cmd_origin, OPT_AT | OPT_DEPTH, "where a value came from, from the index",
	 "Shows where the value of REG, or of ADDR[:LEN] in memory (LEN 1 to 4096,\n"
	 "default 1), just before record ID came from: the record that last wrote\n"
	 "it, then that record's inputs (its read operands, explicit and implicit),\n"
	 "each with the record that wrote it, recursively, as a tree in depth-first\n"
	 "order. A chain ends at a context record (the kernel, the tracer), at the\n"
	 "first record of a thread, at an unknown value, or at the depth. Registers\n"
	 "that only address memory (a phrase's base, index, segment) are listed and\n"
	 "not followed. Needs the index (umtdump index).\n"
	 "\n"
	 "options:\n"
	 "  --at ID              the record (required)\n"
	 "  --depth D            follow at most D defining records (default 10)\n",
	 1, 1, "REG|ADDR[:LEN]"},
	{"calls", cmd_calls, OPT_FROM | OPT_TO | OPT_COUNT | OPT_THREAD | OPT_TARGET | OPT_ARGS,
	 "every call with its return, depth and parent, from the index",
	 "Shows the calls of the trace in record order, from the index: the call\n"
	 "record, thread, depth, the call's address, its target, the ret that\n"
	 "returned to it (\"abandoned@ID\" when the stack left it at record ID, \"open\"\n"
	 "when it never returned) and the module of the target. Calls and rets are\n"
	 "matched by their stack slot (umtdump(1), calls). Needs the index (umtdump\n"
	 "index).\n"
	 "\n"
	 "options:\n"
	 "  --thread TID         only thread-table row TID\n"
	 "  --target ADDR        only calls to ADDR (decimal or 0x hex)\n"
	 "  --from ID            calls made at record ID or later\n"
	 "  --to ID              before record ID (exclusive)\n"
	 "  --count N            at most N calls\n"
	 "  --args N             also the first N arguments (0 to 64) by the calling\n"
	 "                       convention and the return value, from the registers\n"
	 "                       and memory in the index (?? when unknown)\n",
	 0, 0, NULL},
	{"stack", cmd_stack, OPT_AT | OPT_THREAD, "the call stack at a record, from the index",
	 "Shows the call stack of a thread just before record ID executes, innermost\n"
	 "frame first: the call record, the call's address, its target and the\n"
	 "return address with its module and offset. Needs the index (umtdump\n"
	 "index).\n"
	 "\n"
	 "options:\n"
	 "  --at ID              the record (required)\n"
	 "  --thread TID         the stack of thread-table row TID (default: the\n"
	 "                       thread of record ID)\n",
	 0, 0, NULL},
	{"coverage", cmd_coverage, OPT_MODULE | OPT_DRCOV | OPT_DIFF,
	 "executed instructions per module, from the index; drcov export, diff",
	 "Shows, per module row of the trace and for the code outside modules, the\n"
	 "base, the distinct instruction addresses executed and the instruction\n"
	 "records executed. Needs the index (umtdump index).\n"
	 "\n"
	 "options:\n"
	 "  --module NAME        only the rows of this module (its path or file name,\n"
	 "                       any case)\n"
	 "  --drcov FILE         also write the coverage in drcov format (Lighthouse,\n"
	 "                       bncov): one block per executed instruction\n"
	 "  --diff OTHER_TRACE   instead, the addresses executed in one trace and not\n"
	 "                       the other, per module (matched by file name, compared\n"
	 "                       by offset from the base); OTHER_TRACE's index is in\n"
	 "                       its default place\n", 0, 0, NULL},
	{"tenet", cmd_tenet, OPT_THREAD, "one thread's execution as a Tenet trace",
	 "Writes the execution of thread-table row TID into OUT in Tenet's trace\n"
	 "format (IDA's Tenet plugin): one line per instruction, the registers that\n"
	 "changed, the instruction pointer, the memory read (mr) and written (mw).\n"
	 "\n"
	 "options:\n"
	 "  --thread TID         the thread (required)\n", 1, 1, "OUT"},
	{"sql", cmd_sql, OPT_CSV, "SQL queries over the trace's tables",
	 "Runs the SQL statements of QUERY, or of standard input when QUERY is absent\n"
	 "or -, with the trace's tables attached (records, instructions, operands,\n"
	 "accesses, threads, modules, syscalls, address_space, metadata, calls, mem,\n"
	 "state, stack: see docs/sql.md), and prints the rows of each statement as an\n"
	 "aligned table. accesses by address, calls, mem, state and stack need the\n"
	 "index (umtdump index); --index and --xed-dir (names of mnemonics and\n"
	 "syscalls) apply. Exit status 2 for SQL that does not compile, 1 for a\n"
	 "statement that fails while it runs.\n"
	 "\n"
	 "options:\n"
	 "  --csv                CSV (RFC 4180) instead of a table\n"
	 "  --json               JSON Lines: one object per row, the columns as keys\n",
	 0, 1, "[QUERY]"},
};
#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static const char global_help[] =
	"global options (before or after the command):\n"
	"  --json               JSON Lines on stdout, one object per record or row\n"
	"  --xed-dir DIR        name tables: XED and syscall enum headers (default:\n"
	"                       the UMT_XED_DIR environment variable)\n"
	"  --index DIR          the trace's index is in DIR (history, mem, state,\n"
	"                       reg-history, origin, coverage, calls, stack, the sql\n"
	"                       tables; index writes it there)\n"
	"  --keep-going         report a bad record on stderr and continue; a trace that\n"
	"                       does not open is then read as with --salvage\n"
	"  --salvage            open a damaged trace (truncated files, lost tables) and\n"
	"                       read what it still holds; what was lost goes to stderr\n"
	"  --quiet              no progress bar, no notes\n"
	"  --help               this help, or the command's: umtdump COMMAND --help\n"
	"  --version            the version\n"
	"\n"
	"Exit status: 0 success, 1 the trace is inconsistent or unreadable,\n"
	"2 usage error. See umtdump(1).\n";

static void usage(FILE *f)
{
	fprintf(f, "usage: umtdump [GLOBAL OPTIONS] COMMAND [OPTIONS] TRACE_DIR\n\ncommands:\n");
	for (size_t i = 0; i < COMMAND_COUNT; i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n%s", global_help);
}

static void command_help(const struct command *c)
{
	printf("usage: umtdump [GLOBAL OPTIONS] %s%s TRACE_DIR%s%s\n\n%s\n%s", c->name,
	       c->accepts ? " [OPTIONS]" : "", c->operands ? " " : "",
	       c->operands ? c->operands : "", c->help, global_help);
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (s == NULL || *s == '\0' || *s == '-' || *s == '+' || *s == ' ')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* A record type by name, or by number. */
static int type_by_name(const char *tok)
{
	uint64_t n;
	int type = umt_rec_type_from_name(tok);
	if (type < 0 && parse_u64(tok, &n) && n < UMT_REC_TYPE_LIMIT && umt_rec_type_name((int)n))
		type = (int)n;
	return type;
}

static bool parse_types(const char *list, uint32_t *mask)
{
	const char *p = list;
	while (*p) {
		char tok[64];
		size_t n = strcspn(p, ",");
		if (n == 0 || n >= sizeof tok)
			return false;
		memcpy(tok, p, n);
		tok[n] = '\0';
		int type = type_by_name(tok);
		if (type < 0)
			return false;
		*mask |= 1u << type;
		p += n;
		if (*p == ',' && *++p == '\0')
			return false;
	}
	return *mask != 0;
}

/* State of the command line parse. */
struct parse {
	struct opts o;
	const struct command *cmd;
	unsigned used; /* OPT_* given */
	bool help, version;
};

/* An option that takes a value: its name and OPT_* bit (0 for global ones). */
static const struct {
	const char *name;
	unsigned bit;
} valued[] = {
	{"--xed-dir", 0},  {"--from", OPT_FROM},     {"--to", OPT_TO},
	{"--count", OPT_COUNT}, {"--thread", OPT_THREAD}, {"--type", OPT_TYPE},
	{"--id", OPT_ID},  {"--max-problems", OPT_MAX_PROBLEMS}, {"--index", 0},
	{"--kind", OPT_KIND}, {"--at", OPT_AT}, {"--out", OPT_OUT}, {"--threads", OPT_THREADS},
	{"--memory", OPT_MEMORY}, {"--depth", OPT_DEPTH}, {"--module", OPT_MODULE},
	{"--drcov", OPT_DRCOV}, {"--diff", OPT_DIFF}, {"--target", OPT_TARGET},
	{"--args", OPT_ARGS}, {"--part", OPT_PART}, {"--merge", OPT_MERGE},
};

static bool parse_kinds(const char *list, unsigned *mask)
{
	static const struct { const char *name; unsigned kind; } names[] = {
		{"read", UMT_ACCESS_READ}, {"write", UMT_ACCESS_WRITE},
		{"context", UMT_ACCESS_CONTEXT}, {"peek", UMT_ACCESS_PEEK}};
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ","), k = 0;
		while (k < sizeof names / sizeof names[0] &&
		       (strlen(names[k].name) != n || strncmp(names[k].name, p, n) != 0))
			k++;
		if (k == sizeof names / sizeof names[0])
			return false;
		*mask |= names[k].kind;
		p += n;
		if (*p == ',' && *++p == '\0')
			return false;
	}
	return *mask != 0;
}

/* K/N, a part of a build in parts: K < N <= 65536. */
static bool parse_part(const char *s, unsigned *part, unsigned *parts)
{
	char num[32];
	const char *slash = strchr(s, '/');
	uint64_t k, n;
	if (slash == NULL || (size_t)(slash - s) >= sizeof num)
		return false;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = '\0';
	if (!parse_u64(num, &k) || !parse_u64(slash + 1, &n) || n == 0 || n > 65536 || k >= n)
		return false;
	*part = (unsigned)k;
	*parts = (unsigned)n;
	return true;
}

/* A byte count with an optional K, M or G (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
	char num[32];
	size_t n = strlen(s);
	uint64_t mul = 1;
	if (n > 0 && strchr("kKmMgG", s[n - 1])) {
		mul = (s[n - 1] == 'k' || s[n - 1] == 'K') ? 1u << 10
		      : (s[n - 1] == 'm' || s[n - 1] == 'M') ? 1u << 20 : 1u << 30;
		n--;
	}
	if (n == 0 || n >= sizeof num)
		return false;
	memcpy(num, s, n);
	num[n] = '\0';
	uint64_t v;
	if (!parse_u64(num, &v) || v > UINT64_MAX / mul)
		return false;
	*out = v * mul;
	return true;
}

/* Sets a value that is not a number: NULL when @p name takes a number. */
static int set_text(struct parse *p, const char *name, unsigned bit, const char *v)
{
	if (!strcmp(name, "--xed-dir"))
		p->o.xed_dir = v;
	else if (!strcmp(name, "--index"))
		p->o.index_dir = v;
	else if (bit == OPT_OUT)
		p->o.index_dir = v;
	else if (bit == OPT_MODULE)
		p->o.module_name = v;
	else if (bit == OPT_DRCOV)
		p->o.drcov_path = v;
	else if (bit == OPT_DIFF)
		p->o.diff_trace = v;
	else if (bit == OPT_KIND && !parse_kinds(v, &p->o.kinds))
		return report("--kind: not read, write, context or peek: %s", v), EXIT_USAGE;
	else if (bit == OPT_MEMORY && !parse_size(v, &p->o.memory))
		return report("--memory: not a size: %s", v), EXIT_USAGE;
	else if (bit == OPT_TYPE && !parse_types(v, &p->o.types))
		return report("--type: unknown record type in %s", v), EXIT_USAGE;
	else if (bit == OPT_TARGET && !(p->o.has_target = parse_address(v, &p->o.target)))
		return report("--target: not an address: %s", v), EXIT_USAGE;
	else if (bit == OPT_PART && !parse_part(v, &p->o.part, &p->o.parts))
		return report("--part: not K/N with K < N <= 65536: %s", v), EXIT_USAGE;
	p->used |= bit;
	return 0;
}

/* Sets the value of option @p name; returns 0 or EXIT_USAGE. */
static int set_value(struct parse *p, const char *name, unsigned bit, const char *v)
{
	uint64_t n = 0;
	if (bit == 0 || bit == OPT_OUT || bit == OPT_KIND || bit == OPT_MEMORY || bit == OPT_TYPE ||
	    bit == OPT_MODULE || bit == OPT_DRCOV || bit == OPT_DIFF || bit == OPT_TARGET ||
	    bit == OPT_PART)
		return set_text(p, name, bit, v);
	if (!parse_u64(v, &n) || (bit == OPT_ID && n > INT64_MAX) ||
	    (bit == OPT_THREAD && n > INT64_MAX) || (bit == OPT_THREADS && (n == 0 || n > 64)) ||
	    (bit == OPT_DEPTH && n > 1000) || (bit == OPT_ARGS && n > UMT_CALL_MAX_ARGS) ||
	    (bit == OPT_MERGE && (n == 0 || n > 65536))) {
		report("%s: not a number: %s", name, v);
		return EXIT_USAGE;
	}
	switch (bit) {
	case OPT_FROM: p->o.from = n, p->o.has_from = true; break;
	case OPT_TO: p->o.to = n, p->o.has_to = true; break;
	case OPT_COUNT: p->o.count = n, p->o.has_count = true; break;
	case OPT_THREAD: p->o.thread = (int64_t)n; break;
	case OPT_ID: p->o.ins_id = (int64_t)n; break;
	case OPT_MAX_PROBLEMS: p->o.max_problems = n; break;
	case OPT_AT: p->o.at = n, p->o.has_at = true; break;
	case OPT_THREADS: p->o.threads = (unsigned)n; break;
	case OPT_DEPTH: p->o.depth = (unsigned)n, p->o.has_depth = true; break;
	case OPT_ARGS: p->o.call_args = (unsigned)n, p->o.has_call_args = true; break;
	case OPT_MERGE: p->o.merge_parts = (unsigned)n; break;
	default: break;
	}
	p->used |= bit;
	return 0;
}

/* Parses the option at argv[*i] (--name, --name=value, --name value). */
static int parse_option(int argc, char **argv, int *i, struct parse *p)
{
	const char *a = argv[*i];
	const char *eq = strchr(a, '=');
	size_t len = eq ? (size_t)(eq - a) : strlen(a);
	for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
		if (strlen(valued[k].name) != len || strncmp(a, valued[k].name, len) != 0)
			continue;
		const char *v = eq ? eq + 1 : NULL;
		if (v == NULL) {
			if (*i + 1 >= argc) {
				report("option %s needs a value", valued[k].name);
				return EXIT_USAGE;
			}
			v = argv[++*i];
		}
		return set_value(p, valued[k].name, valued[k].bit, v);
	}
	if (eq == NULL) {
		if (!strcmp(a, "--json"))
			return p->o.json = true, 0;
		if (!strcmp(a, "--quiet") || !strcmp(a, "-q"))
			return p->o.quiet = true, 0;
		if (!strcmp(a, "--keep-going") || !strcmp(a, "-k"))
			return p->o.keep_going = true, 0;
		if (!strcmp(a, "--salvage"))
			return p->o.salvage = true, 0;
		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			return p->help = true, 0;
		if (!strcmp(a, "--version"))
			return p->version = true, 0;
		if (!strcmp(a, "--operands"))
			return p->o.operands = true, p->used |= OPT_OPERANDS, 0;
		if (!strcmp(a, "--context"))
			return p->o.context = true, p->used |= OPT_CONTEXT, 0;
		if (!strcmp(a, "--accesses"))
			return p->o.accesses = true, p->used |= OPT_ACCESSES, 0;
		if (!strcmp(a, "--reverse"))
			return p->o.reverse = true, p->used |= OPT_REVERSE, 0;
		if (!strcmp(a, "--changes"))
			return p->o.changes = true, p->used |= OPT_CHANGES, 0;
		if (!strcmp(a, "--csv"))
			return p->o.csv = true, p->used |= OPT_CSV, 0;
	}
	report("unknown option %s (see umtdump --help)", a);
	return EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct parse *p)
{
	bool options_end = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!options_end && !strcmp(a, "--")) {
			options_end = true;
		} else if (!options_end && a[0] == '-' && a[1] != '\0') {
			int rc = parse_option(argc, argv, &i, p);
			if (rc)
				return rc;
		} else if (p->cmd == NULL) {
			for (size_t c = 0; c < COMMAND_COUNT; c++)
				if (!strcmp(commands[c].name, a))
					p->cmd = &commands[c];
			if (p->cmd == NULL) {
				report("unknown command %s (see umtdump --help)", a);
				return EXIT_USAGE;
			}
		} else if (p->o.trace_dir == NULL) {
			p->o.trace_dir = a;
		} else if (p->o.nargs < (p->cmd ? p->cmd->max_args : 0)) {
			p->o.args[p->o.nargs++] = a;
		} else {
			report("unexpected argument %s", a);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/* The name of the first option in @p bits, for messages. */
static const char *option_name(unsigned bits)
{
	if (bits & OPT_OPERANDS)
		return "--operands";
	if (bits & OPT_CONTEXT)
		return "--context";
	if (bits & OPT_ACCESSES)
		return "--accesses";
	if (bits & OPT_REVERSE)
		return "--reverse";
	if (bits & OPT_CHANGES)
		return "--changes";
	if (bits & OPT_CSV)
		return "--csv";
	for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
		if (valued[k].bit & bits)
			return valued[k].name;
	return "?";
}

/* Loads --xed-dir and checks it against the trace; a mismatch is a note. */
static int load_names(struct opts *o)
{
	if (o->xed_dir == NULL || *o->xed_dir == '\0')
		return 0;
	int rc = umt_names_load_dir(o->xed_dir, &o->names);
	if (rc < 0) {
		report("--xed-dir: %s", *umt_errmsg() ? umt_errmsg() : umt_strerror(rc));
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN); /* a closed pipe shows up as EPIPE: end quietly */
	struct parse p = {.o = {.thread = -1, .ins_id = -1, .max_problems = 1000}};
	p.o.xed_dir = getenv("UMT_XED_DIR");
	int rc = parse_args(argc, argv, &p);
	if (rc)
		return rc;
	if (p.help) {
		if (p.cmd)
			command_help(p.cmd);
		else
			usage(stdout);
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_BAD_TRACE;
	}
	if (p.version) {
		printf("umtdump (libumtrace) %s\n", umt_version());
		return fflush(stdout) == 0 ? EXIT_OK : EXIT_BAD_TRACE;
	}
	if (p.cmd == NULL || p.o.trace_dir == NULL) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (p.o.nargs < p.cmd->min_args) {
		report("%s needs %s after the trace directory (see umtdump %s --help)", p.cmd->name,
		       p.cmd->operands, p.cmd->name);
		return EXIT_USAGE;
	}
	if (p.used & ~p.cmd->accepts) {
		report("%s does not apply to %s (see umtdump %s --help)",
		       option_name(p.used & ~p.cmd->accepts), p.cmd->name, p.cmd->name);
		return EXIT_USAGE;
	}
	if ((rc = load_names(&p.o)) != 0)
		return rc;
	umt_trace *t;
	int lost = EXIT_OK; /* EXIT_BAD_TRACE when the trace was salvaged */
	if (open_trace(&p.o, &t, &lost) < 0) {
		umt_names_free(p.o.names);
		return EXIT_BAD_TRACE;
	}
	if (p.o.names && umt_names_check(p.o.names, t) < 0)
		note(&p.o, "--xed-dir %s: %s", p.o.xed_dir, umt_errmsg());
	int status = p.cmd->run(t, &p.o);
	if (status == EXIT_OK)
		status = lost;
	umt_trace_close(t);
	umt_names_free(p.o.names);
	if (!out_flush() && !out_closed()) {
		report("cannot write the output: %s", strerror(out_error()));
		return EXIT_BAD_TRACE;
	}
	return status;
}
