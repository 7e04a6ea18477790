/*
 * libumtrace - zero-copy reader and writer of UMTracer indexed traces.
 *
 * Map of this header:
 *   1. Version and export macros
 *   2. Errors: status codes, umt_strerror(), umt_errmsg()
 *   3. Opening a trace: umt_trace_open(), umt_trace_open_mem(), file names,
 *      salvaging damaged traces (UMT_OPEN_SALVAGE), umt_trace_get_info()
 *   4. Execution records: umt_rec, umt_exec_get(), typed accessors
 *   5. Register contexts of records: umt_context, memory references
 *   6. Iterators: record order (umt_exec_iter) and thread order (umt_thread_iter)
 *   7. Instructions: insRec, decodedIns, LC slots
 *  7b. Instruction semantics from the code bytes (Zydis): umt_sem_get()
 *   8. Operand values of instruction records, memory phrases
 *  8b. Memory accesses of a record: umt_access_iter, what incomplete records mean
 *   9. Context map and registers
 *  10. System calls
 *  11. Modules, UTF-16 names
 *  12. Thread table
 *  13. Address space
 *  14. trace.xml metadata
 *  15. Names for numeric IDs (registers, XED enums, syscalls)
 *  16. Consistency check: umt_verify()
 *  17. Writer: producing traces
 *  18. Caveats
 *
 * Conventions (apply to every function below):
 *   - Functions returning int return 0 (or a documented positive value) on
 *     success and a negative UMT_E_* code on failure. On failure the calling
 *     thread's detailed message is available from umt_errmsg(); output
 *     parameters are then unspecified.
 *   - Caller misuse returns UMT_E_INVAL (NULL pointer, bad flag, accessor
 *     used on a record of another type); an ID or index outside its table
 *     returns UMT_E_RANGE. Both are independent of the file content.
 *   - File content is never trusted: every offset, count, size and FP is
 *     checked before it is followed, and a failure on content returns one of
 *     UMT_E_TRUNCATED, UMT_E_BOUNDS, UMT_E_TYPE, UMT_E_VERSION, UMT_E_CORRUPT
 *     with a message naming the file, the record or row and the byte offset.
 *   - Pointers into the trace (const uint8_t *, const umt_*_rec *) point into
 *     the read-only mapping and stay valid until umt_trace_close().
 *   - IDs, counts and offsets are 64-bit everywhere.
 *   - A umt_trace is safe to share between threads for reading; iterators and
 *     other caller-owned structs belong to one thread at a time. What is
 *     built on first use (the exec.prev_next.column mapping, the module
 *     index, parsed trace.xml, the bitmaps of checked records and rows) is
 *     built once under the trace's lock and then read without one.
 *   - In a trace opened with UMT_OPEN_SALVAGE, every accessor of a table
 *     lost at open, or of an item past its readable count but within the
 *     count its header declared, also returns the failure that lost it
 *     (UMT_E_MISSING, UMT_E_IO, UMT_E_TRUNCATED, UMT_E_BOUNDS or
 *     UMT_E_VERSION) with a message "FILE: unavailable, lost at open: why"
 *     or "FILE: row N lost at open: why" (see UMT_OPEN_SALVAGE).
 */
#ifndef UMTRACE_UMTRACE_H
#define UMTRACE_UMTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "umtrace/format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. Version and export macros ====================================== */

#define UMT_VERSION_MAJOR 0
#define UMT_VERSION_MINOR 1
#define UMT_VERSION_PATCH 0
/** The version as a string literal, "MAJOR.MINOR.PATCH". */
#define UMT_VERSION_STRING "0.1.0"

#if defined(_WIN32)
#define UMT_API
#else
#define UMT_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__)
#define UMT_INLINE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UMT_INLINE_UNLIKELY(x) (x)
#endif

/** The library's run-time version, "MAJOR.MINOR.PATCH". */
UMT_API const char *umt_version(void);

/* ==== 2. Errors ========================================================== */

/**
 * Status codes. Values are stable and only ever appended.
 */
enum umt_status {
	UMT_OK = 0,
	UMT_E_INVAL = -1,      /**< caller misuse: NULL pointer, bad argument, wrong record type */
	UMT_E_RANGE = -2,      /**< ID or index outside its table */
	UMT_E_NOMEM = -3,      /**< allocation failed */
	UMT_E_IO = -4,         /**< a system call failed (open, stat, mmap, write...) */
	UMT_E_MISSING = -5,    /**< a required file of the trace is missing */
	UMT_E_VERSION = -6,    /**< unsupported version number in a header */
	UMT_E_TRUNCATED = -7,  /**< file or record shorter than its header or type requires */
	UMT_E_BOUNDS = -8,     /**< offset, FP, count or size outside its file or record, or overflowing */
	UMT_E_TYPE = -9,       /**< unknown execution record type */
	UMT_E_CORRUPT = -10,   /**< other inconsistent content: order, links, values */
	UMT_E_XML = -11,       /**< trace.xml is malformed or too large */
	UMT_E_NOT_FOUND = -12, /**< a lookup found nothing */
	UMT_E_NO_VALUE = -13,  /**< the item exists but has no such value */
	UMT_E_INCOMPLETE = -14, /**< a writer did not finish: its commit record (a trace's exec.vtable,
	                             an index's index.umti) is missing next to its other files */
	UMT_E_STALE = -15      /**< an index was built from another trace, or the trace changed */
};

/** A static description of a status code ("out of bounds"); never NULL. */
UMT_API const char *umt_strerror(int status);

/**
 * The detailed message of the last failure in the calling thread, such as
 * "exec.vtable: record 1234 at offset 0x5a10: rmContext RegsFP points past
 * the record". Content errors name the file, the record or row and the byte
 * offset. The string is thread-local and valid until the thread's next
 * failing call; "" when there was none.
 */
UMT_API const char *umt_errmsg(void);

/* ==== 3. Opening a trace ================================================= */

/** An open trace: the mapped files and their validated headers. */
typedef struct umt_trace umt_trace;

/** The files of a trace, in umt_trace_open_mem()'s array order. */
enum umt_file_id {
	UMT_FILE_EXEC_VTABLE = 0,
	UMT_FILE_EXEC_OFFSETS,
	UMT_FILE_EXEC_PREV_NEXT,
	UMT_FILE_INS,
	UMT_FILE_SYSCALL_VTABLE,
	UMT_FILE_SYSCALL_OFFSETS,
	UMT_FILE_MODULE,
	UMT_FILE_THREAD,
	UMT_FILE_CONTEXT_MAP,
	UMT_FILE_ADDRESS_SPACE,
	UMT_FILE_TRACE_XML,
	UMT_FILE_COUNT
};

/** The file name of a umt_file_id ("exec.vtable"), or "?" when out of range. */
UMT_API const char *umt_file_name(int file);

/**
 * Flags of umt_trace_open() and umt_trace_open_mem(): a bit set. At most one
 * access hint (for exec.vtable, exec.offsets, exec.prev_next.column; the
 * hints are mutually exclusive), and UMT_OPEN_SALVAGE.
 */
enum umt_open_flag {
	UMT_OPEN_SEQUENTIAL = 1u << 0, /**< hint: scans, aggressive read-ahead */
	UMT_OPEN_RANDOM = 1u << 1,     /**< hint: lookups by ID on cold data, no read-around */
	/**
	 * Open a damaged or partial trace (a crashed tracer, a full disk, an
	 * interrupted copy) for what it still holds, instead of failing:
	 *   - the execution records are readable up to the last one that lies
	 *     wholly inside exec.vtable and whose two exec.offsets entries exist
	 *     (found by binary search over the offsets, never by a scan, and never
	 *     past the data): umt_exec_count() is that count. A short exec.vtable
	 *     header (< 16 bytes) leaves no record readable; the count declared is
	 *     then taken from exec.offsets when its size is a whole number of
	 *     entries, else open fails. exec.vtable itself is required;
	 *   - each side table that is missing or whose header cannot be used
	 *     (thread.itable, module.itable, address_space.itable, ins.itable,
	 *     syscall.vtable or syscall.offsets, context_map.itable, trace.xml,
	 *     exec.prev_next.column) is unavailable: its count is 0 and every
	 *     accessor of it returns the failure open met (UMT_E_MISSING,
	 *     UMT_E_IO, UMT_E_TRUNCATED, UMT_E_BOUNDS, UMT_E_VERSION) with a
	 *     message "FILE: unavailable, lost at open: why". umt_context_map_get()
	 *     then returns an empty map (ElemCount 0, DumpSize 0): contexts still
	 *     give their memory references, not their registers;
	 *   - a truncated *.itable keeps the rows wholly inside the file (and the
	 *     part of its extra area inside it); a truncated syscall.offsets or
	 *     exec.offsets keeps the entries that exist. An item between the
	 *     readable count and the count declared returns the same failure
	 *     ("FILE: row N lost at open: why"); one past the declared count is
	 *     UMT_E_RANGE as usual;
	 *   - exec.prev_next.column stays usable when it holds an entry for every
	 *     readable record, else it is unavailable (thread iterators and
	 *     umt_exec_links() return its failure).
	 * umt_trace_get_info() says what was salvaged and lost. Everything that
	 * opens is then read with the usual per-access checks. Without this flag
	 * open fails on the first problem.
	 */
	UMT_OPEN_SALVAGE = 1u << 2
};

/** What open made of one file of the trace (umt_trace_info.file_status). */
enum umt_file_status {
	UMT_FILE_INTACT = 0,     /**< passed open's checks (also: an absent trace.xml) */
	UMT_FILE_REDUCED = 1,    /**< damaged; what lies inside it is readable (the counts say how much) */
	UMT_FILE_UNAVAILABLE = 2 /**< missing or unusable: its table reads as lost at open */
};

/** A caller-owned byte buffer standing for one file of a trace. */
typedef struct umt_buffer {
	const void *data; /**< NULL for a missing file */
	size_t size; /**< bytes at data */
} umt_buffer;

/**
 * Opens the trace in directory @p dir: maps every file read-only and checks
 * every header in O(1) (no scan of the records). exec.prev_next.column is
 * checked for size here and mapped on first use. trace.xml is optional.
 *
 * Checks: exec Version 0 or 1; table HeaderVer 0; insRec RecordVer 0 or 1,
 * other tables' RecordVer 0; syscall Version 0, UnifiedIDsVer 0 or 1; RowSize
 * at least the fields read; TableFP, ExtraFP and ExtraSize inside the file;
 * RowCount * RowSize without overflow and inside the file; exec.offsets of
 * exactly (RecordCount + 1) * 8 bytes, its first and last entries inside
 * exec.vtable; exec.prev_next.column and syscall.offsets of exactly
 * RecordCount * 16 bytes; context_map.itable at least 17424 bytes.
 *
 * Files named like the writer's temporaries (".NAME.tmp-XXXXXX") are
 * ignored. A directory without exec.vtable (the writer's commit record) but
 * with other files of a trace or with temporaries is a trace whose writer
 * did not finish: UMT_E_INCOMPLETE ("DIR: incomplete trace: the writer did
 * not finish"), not UMT_E_MISSING.
 *
 * A file of the trace that is a FIFO, a device or a directory fails open
 * (UMT_E_IO, "not a regular file") without blocking.
 *
 * @param flags 0, or a bit set of enum umt_open_flag: at most one access
 *   hint for the execution table's files (UMT_OPEN_SEQUENTIAL or
 *   UMT_OPEN_RANDOM, see umt_exec_advise()), and UMT_OPEN_SALVAGE to open a
 *   damaged trace for what it still holds.
 * @return 0 and *out set; UMT_E_INVAL (NULL argument, unknown flag bits,
 *   both hints), UMT_E_NOMEM, UMT_E_IO, UMT_E_MISSING, UMT_E_INCOMPLETE,
 *   UMT_E_VERSION, UMT_E_TRUNCATED, UMT_E_BOUNDS. With UMT_OPEN_SALVAGE,
 *   content errors remain only for what cannot be salvaged: exec.vtable missing or
 *   unreadable, its Version or RecordCount out of range, or a header shorter
 *   than 16 bytes without a usable exec.offsets.
 */
UMT_API int umt_trace_open(const char *dir, unsigned flags, umt_trace **out);

/**
 * Opens a trace whose files are the caller's buffers, indexed by
 * umt_file_id (files[UMT_FILE_COUNT]); a buffer with data NULL is a missing
 * file. Nothing is copied: the buffers must stay valid and unchanged until
 * umt_trace_close(). Flags, checks and errors as umt_trace_open(), except
 * UMT_E_INCOMPLETE (a missing exec.vtable is UMT_E_MISSING here).
 */
UMT_API int umt_trace_open_mem(const umt_buffer files[UMT_FILE_COUNT],
                               unsigned flags, umt_trace **out);

/** Releases everything of @p t; NULL is allowed. */
UMT_API void umt_trace_close(umt_trace *t);

/**
 * Whether any file of the trace changed on disk since umt_trace_open():
 * its size, modification time, inode or device differ, or it disappeared
 * (see Caveats: a truncated mapped file raises SIGBUS when read). Traces
 * opened from memory never change.
 * @return 1 changed, 0 unchanged; UMT_E_INVAL.
 */
UMT_API int umt_trace_changed(const umt_trace *t);

/** Size in bytes of one file of the trace (0 for a missing trace.xml). */
UMT_API uint64_t umt_trace_file_size(const umt_trace *t, int file);

/** What identifies one file of an open trace, for caches built from it (indexes). */
typedef struct umt_file_stamp {
	uint64_t size;         /**< bytes at open */
	int64_t mtime_sec;     /**< modification time at open (0 for traces in memory) */
	int64_t mtime_nsec;    /**< nanoseconds of it */
	int present;           /**< 0 for a missing optional file (trace.xml) */
	const uint8_t *head;   /**< its first head_size bytes, in the mapping (NULL: none) */
	size_t head_size;      /**< min(size, 64); 0 for exec.prev_next.column (no header,
	                            mapped on first use) and files lost or missing */
} umt_file_stamp;

/**
 * The stamp of file @p file (an umt_file_id) of @p t: size and modification
 * time recorded at open, and its first bytes (which hold the headers).
 * @return 0; UMT_E_INVAL (NULL, bad file).
 */
UMT_API int umt_trace_file_stamp(const umt_trace *t, int file, umt_file_stamp *out);

/**
 * Header values of an open trace, all validated at open, and what a salvage
 * open (UMT_OPEN_SALVAGE) kept. Counts are what can be read; the declared
 * counts are the headers' (equal unless salvaged). A table lost at open has
 * count 0 and its versions and row sizes -1 or 0.
 */
typedef struct umt_trace_info {
	uint64_t exec_count;          /**< execution records readable */
	int32_t exec_version;         /**< exec.vtable Version (0 or 1; -1 when its header was lost) */
	int32_t ins_record_version;   /**< insRec RecordVer (0 or 1; -1 when lost) */
	uint64_t ins_count;           /**< rows of ins.itable readable */
	uint64_t syscall_count;       /**< syscall records reachable (pairs of syscall.offsets read) */
	int32_t syscall_version;      /**< syscall.vtable Version (-1 when lost) */
	int32_t unified_ids_version;  /**< syscall.vtable UnifiedIDsVer (0 or 1; -1 when lost) */
	uint64_t module_count; /**< rows of module.itable readable */
	uint64_t module_row_size;     /**< 48, or 64 with the 2015 fields (0 when lost) */
	uint64_t thread_count; /**< rows of thread.itable readable */
	uint64_t thread_row_size;     /**< 40 in real traces, 48 per the spec (0 when lost) */
	uint64_t address_range_count; /**< rows of address_space.itable readable */
	uint32_t dump_size;           /**< context map DumpSize: bytes of a register dump */
	uint32_t context_map_elems;   /**< context map ElemCount */
	int has_trace_xml;            /**< 1 when trace.xml is present (and readable) */
	/**
	 * 1 when the trace was opened with UMT_OPEN_SALVAGE and some file is not
	 * UMT_FILE_INTACT: something was lost. 0 otherwise (a salvage open of an
	 * intact trace included).
	 */
	int salvaged;
	uint64_t exec_declared;       /**< exec.vtable RecordCount (or exec.offsets' when its header was lost) */
	uint64_t ins_declared;        /**< ins.itable RowCount (0 when its header was lost) */
	uint64_t syscall_declared;    /**< syscall.vtable RecordCount (0 when its header was lost) */
	uint64_t module_declared;     /**< module.itable RowCount (0 when its header was lost) */
	uint64_t thread_declared;     /**< thread.itable RowCount (0 when its header was lost) */
	uint64_t address_range_declared; /**< address_space.itable RowCount (0 when lost) */
	/** enum umt_file_status of each file, by umt_file_id (all UMT_FILE_INTACT unless salvaged). */
	int file_status[UMT_FILE_COUNT];
	/**
	 * Why each file that is not intact was reduced or lost ("file of 812 bytes
	 * holds 20 of the 41 entries..."), without the file name; NULL for intact
	 * files. Valid until umt_trace_close().
	 */
	const char *file_problem[UMT_FILE_COUNT];
} umt_trace_info;

/** Fills @p out with the header values of @p t. @return 0, UMT_E_INVAL. */
UMT_API int umt_trace_get_info(const umt_trace *t, umt_trace_info *out);

/** Number of execution records (0 for NULL). */
UMT_API uint64_t umt_exec_count(const umt_trace *t);

/* ==== 4. Execution records =============================================== */

/**
 * A view of one execution record. Filled by umt_exec_get() and the
 * iterators, after checking the record's extent and that it is at least the
 * minimum size of its type; the type-specific accessors below read from it
 * without further bounds checks of the fixed fields.
 */
typedef struct umt_rec {
	const uint8_t *data; /**< the record: an umt_exec_rec_hdr then type data */
	uint64_t size;       /**< bytes of the record */
	uint64_t id;         /**< record ID */
	uint64_t offset;     /**< offset of the record in exec.vtable */
	int32_t thread_id;   /**< execRec.ThreadID: row in thread.itable (not checked) */
	uint8_t type;        /**< enum umt_rec_type */
	uint8_t flags;       /**< UMT_EXEC_F_* */
} umt_rec;

/**
 * The record with ID @p id, in O(1): exec.offsets[id] and [id + 1] are
 * checked (inside exec.vtable, increasing, at least the type's minimum size).
 * @return 0; UMT_E_INVAL, UMT_E_RANGE (id >= count), UMT_E_BOUNDS,
 *   UMT_E_CORRUPT (offsets not increasing), UMT_E_TRUNCATED (record shorter
 *   than its type), UMT_E_TYPE (unknown type).
 */
UMT_API int umt_exec_get(const umt_trace *t, uint64_t id, umt_rec *out);

/**
 * The execution table's geometry, copied out of a trace for inline lookups
 * by ID (umt_exec_view_get()). A plain caller-owned struct, valid while the
 * trace is open; any number of threads may share one.
 *
 * Initialize it (or copy it) into a local variable of the function that
 * does the lookups: the compiler then keeps its fields in registers.
 * Through a pointer, it must read them again after every call that might
 * change them, the error path of each lookup included, and lookups run
 * about 30% slower (docs/performance.md).
 */
typedef struct umt_exec_view {
	const umt_trace *trace; /**< the trace */
	const uint8_t *offsets; /**< exec.offsets */
	const uint8_t *records; /**< exec.vtable */
	uint64_t records_size;  /**< bytes of exec.vtable */
	uint64_t count;         /**< records */
	const uint8_t *checked; /**< the trace's map of checked chunks (internal, see umt__chunk_checked()) */
} umt_exec_view;

/** umt_exec_view_init() out of line (internal). */
UMT_API int umt__exec_view_init(umt_exec_view *v, const umt_trace *t);

/**
 * Fills @p v from @p t. Allocates the trace's map of checked chunks on
 * first use (one byte per 4096 records).
 * @return 0; UMT_E_INVAL, UMT_E_NOMEM.
 */
static inline int umt_exec_view_init(umt_exec_view *v, const umt_trace *t)
{
	/* The caller's view never escapes, so its fields can stay in registers;
	 * after a failure it is empty (count 0), never uninitialized. */
	umt_exec_view tmp = {0};
	int rc = umt__exec_view_init(v ? &tmp : NULL, t);
	if (v)
		*v = tmp;
	return rc;
}

/**
 * Reports why record @p id is bad, or out of range (out of line; internal):
 * the error path of the inline record accessors. It takes no umt_rec, so
 * that a caller's record view never escapes and the compiler can drop the
 * stores of fields the caller does not read.
 */
UMT_API int umt__exec_bad(const umt_trace *t, uint64_t id);

/* umt__exec_bad() for inline callers: visibly negative, so that compilers see
 * that a record view is filled whenever the status is not an error. */
static inline int umt__exec_bad_status(const umt_trace *t, uint64_t id)
{
	int rc = umt__exec_bad(t, id);
	return rc < 0 ? rc : UMT_E_CORRUPT;
}

/** The name of a record type ("instruction", "thread-begin"...), or NULL if unknown. */
UMT_API const char *umt_rec_type_name(int type);

/** The record type whose umt_rec_type_name() is @p name, or -1. */
UMT_API int umt_rec_type_from_name(const char *name);

/**
 * The name of exec flag bit @p bit (one of 0x01..0x80) under exec.vtable
 * version @p exec_version ("64bit", "instr-off", "not-executed",
 * "rep-first"; version 0: "exc-input", "exc-execute", "exc-output",
 * "internal-error"; version 1: "bad-inputs", "bad-outputs", "fault",
 * "aborted"), or NULL.
 */
UMT_API const char *umt_exec_flag_name(int exec_version, unsigned bit);

/** 1 when the record ran in a 64-bit code segment (flag 0x01). */
static inline int umt_rec_is_64bit(const umt_rec *r)
{
	return (r->flags & UMT_EXEC_F_64BIT) != 0;
}

/** 1 when any of the flags 0x10-0x80 says the record was not completely traced. */
static inline int umt_rec_is_incomplete(const umt_rec *r)
{
	return (r->flags & UMT_EXEC_F_INCOMPLETE_MASK) != 0;
}

/**
 * Minimum size of a record of each type byte: its header and fixed fields
 * (instruction 14; thread-begin and context changes 22; thread and
 * application end 10; syscall entry and exit 30; skipped exit 14), and
 * UINT64_MAX for undefined types (7 and above 11, ERRATA 9), so that one
 * compare rejects both short records and unknown types. Read-only.
 */
UMT_API extern const uint64_t umt_rec_min_size_table[256];

/** Minimum size of a record of type @p type, UINT64_MAX when undefined. */
static inline uint64_t umt_rec_min_size(unsigned type)
{
	return type < 256 ? umt_rec_min_size_table[type] : UINT64_MAX;
}

/**
 * THE record check, used by every path that hands out a record (lookups,
 * both iterators, batches, thread chains; internal), in two parts. This
 * one: whether record [@p begin, @p end) of an exec.vtable of @p size bytes
 * (size >= 16, which open checks), whose begin is known to lie in [16, size],
 * ends inside the file, holds the 6-byte execRec header, and is at least the
 * minimum size of its type, which also rejects undefined types: begin + 6 <=
 * end <= size (begin + 6 cannot wrap: file sizes are below 2^63), then the
 * type byte, read only after them. A scan checks the begin of its first
 * record with umt__rec_ok() and then only this part: each record begins
 * where the previous one, checked, ends.
 */
static inline int umt__rec_end_ok(const uint8_t *records, uint64_t size, uint64_t begin,
                                  uint64_t end)
{
	if (UMT_INLINE_UNLIKELY(end > size || end < begin + UMT_EXEC_MIN_HDR))
		return 0;
	return end - begin >= umt_rec_min_size_table[records[begin + 4]];
}

/**
 * THE record check, whole (internal): the begin of record [@p begin, @p end)
 * lies after the 16-byte file header and inside the file, and
 * umt__rec_end_ok(). umt__exec_bad() says which test failed.
 */
static inline int umt__rec_ok(const uint8_t *records, uint64_t size, uint64_t begin,
                              uint64_t end)
{
	return begin - sizeof(umt_exec_vtable_header) <= size - sizeof(umt_exec_vtable_header) &&
	       umt__rec_end_ok(records, size, begin, end);
}

/**
 * Fills @p out with the record [@p begin, @p end) without checking it
 * (internal: callers have checked it with umt__rec_ok(), or know from the
 * map of checked chunks that it is good). Inline, the compiler drops the
 * loads and stores of the fields a caller does not read.
 */
static inline void umt__rec_fill(const uint8_t *records, uint64_t id, uint64_t begin,
                                 uint64_t end, umt_rec *__restrict out)
{
	const uint8_t *p = records + begin;
	int32_t thread;
	memcpy(&thread, p, sizeof thread);
	out->data = p;
	out->size = end - begin;
	out->id = id;
	out->offset = begin;
	out->thread_id = thread;
	out->type = p[offsetof(umt_exec_rec_hdr, Type)];
	out->flags = p[offsetof(umt_exec_rec_hdr, Flags)];
}

/** Records per chunk of the map of checked chunks: 1 << UMT__EXEC_CHUNK_SHIFT (internal). */
#define UMT__EXEC_CHUNK_SHIFT 12

/**
 * Whether the chunk of record @p id (id < the record count) is marked in the
 * trace's map of checked chunks @p map (internal): then every record of
 * the chunk passed umt__rec_ok() before, and the mapping is read-only, so
 * it still does (see Caveats for files changed under a mapping). One byte
 * per 4096 records, set by scans and read by lookups in any thread.
 */
static inline int umt__chunk_checked(const uint8_t *map, uint64_t id)
{
#if defined(__GNUC__)
	return __atomic_load_n(&map[id >> UMT__EXEC_CHUNK_SHIFT], __ATOMIC_RELAXED) != 0;
#else
	return map[id >> UMT__EXEC_CHUNK_SHIFT] != 0;
#endif
}

/**
 * Reports an accessor used on a record of another type, or on NULL (out of
 * line; internal). Takes values, not the view, so the view never escapes.
 */
UMT_API int umt__rec_wrong_type(int is_null, uint64_t id, uint64_t offset, unsigned type,
                                const char *want);

/**
 * Instruction record (type 0): its InsID and local context bytes. Inline:
 * a type test and two loads.
 * @param ins_id receives execRec InsID as stored (checked by the instruction
 *   accessors; may be NULL).
 * @param lc receives a pointer to the local context (may be NULL).
 * @param lc_size receives its length (may be NULL).
 * @return 0; UMT_E_INVAL for NULL or another type.
 */
static inline int umt_rec_ins(const umt_rec *r, int64_t *ins_id, const uint8_t **lc,
                              uint64_t *lc_size)
{
	if (UMT_INLINE_UNLIKELY(r == NULL || r->type != UMT_REC_INSTRUCTION))
		return r == NULL ? umt__rec_wrong_type(1, 0, 0, 0, "an instruction")
		                 : umt__rec_wrong_type(0, r->id, r->offset, r->type, "an instruction");
	if (ins_id)
		memcpy(ins_id, r->data + offsetof(umt_exec_ins, InsID), sizeof *ins_id);
	if (lc)
		*lc = r->data + sizeof(umt_exec_ins);
	if (lc_size)
		*lc_size = r->size - sizeof(umt_exec_ins);
	return 0;
}

/**
 * SyscallID of a syscall entry, exit or skipped-exit record (types 4, 5, 6);
 * -1 is possible on exits with no matching entry.
 * @return 0; UMT_E_INVAL for another type.
 */
UMT_API int umt_rec_syscall_id(const umt_rec *r, int64_t *syscall_id);

/** ExitCode of a thread-end or application-end record. @return 0; UMT_E_INVAL. */
UMT_API int umt_rec_exit_code(const umt_rec *r, int32_t *exit_code);

/** 1 when records of type @p type carry an rmContext (1, 4, 5, 8-11). */
UMT_API int umt_rec_type_has_context(int type);

/* ==== 5. Register contexts of records ==================================== */

/**
 * A checked view of an rmContext: a register dump and memory blocks.
 *
 * The state they hold is taken at a point that depends on the record's type
 * (spec 6.4):
 *   - thread begin: at the thread's start point, before its first user-mode
 *     instruction; one memory block is the thread information block, at
 *     the thread table's TIBAddr (ERRATA 15);
 *   - syscall entry: just before the call: the kernel has not run;
 *   - syscall exit: right after the call: rax/eax holds the result;
 *   - context changes (types 8-11): right after the change, before the next
 *     instruction runs: the registers the thread goes on with, not those of
 *     the code it left (those are the after values of the thread's previous
 *     record).
 * Memory blocks are observations of memory at that point, not program
 * writes (umt_access_iter gives them as UMT_ACCESS_CONTEXT). At a syscall
 * exit they are memory as the tracer dumped it right after the call, such
 * as a buffer the call filled or, when the tracer dumps mapped files, the
 * initial content of a file the call mapped (spec 9); the trace does not
 * say which of their bytes the call changed.
 */
typedef struct umt_context {
	const uint8_t *base;  /**< the rmContext (umt_rm_context) */
	const uint8_t *regs;  /**< register dump: regs_size bytes, layout from the context map */
	uint64_t avail;       /**< bytes from base to the end of the record */
	uint64_t record_id;   /**< record it belongs to */
	uint64_t offset;      /**< offset of base in exec.vtable */
	uint32_t regs_size;   /**< context map DumpSize */
	uint32_t mem_count;   /**< memory references (MemCount) */
	int is_64bit;         /**< the record's 64-bit flag: which register map applies */
} umt_context;

/** One memory block of a context (or a block given to the writer). */
typedef struct umt_mem_ref {
	uint64_t address; /**< first byte's address in the traced process */
	uint64_t size; /**< bytes at data */
	const uint8_t *data; /**< size bytes */
} umt_mem_ref;

/**
 * The rmContext of a thread-begin, syscall entry/exit or context-change
 * record. Checks MemCount (non-negative, its array inside the record) and
 * that RegsFP + DumpSize stays inside the record.
 * @return 0; UMT_E_INVAL (record type without a context), UMT_E_BOUNDS.
 */
UMT_API int umt_rec_context(const umt_trace *t, const umt_rec *r, umt_context *out);

/**
 * Memory reference @p index of a context (0 <= index < mem_count): its
 * Size and DataFP are checked to stay inside the record. Blocks can be
 * many megabytes: the data is not copied.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS.
 */
UMT_API int umt_context_mem_get(const umt_context *c, uint32_t index, umt_mem_ref *out);

/* ==== 6. Iterators ======================================================= */

/**
 * Iterator over a range of record IDs, in record order. A plain
 * caller-owned struct: split [0, count) into ranges to scan in parallel,
 * one iterator per thread. Keep it in a local variable of the scanning
 * function (as for umt_exec_view): its fields then stay in registers.
 */
typedef struct umt_exec_iter {
	const umt_trace *trace; /**< the trace iterated */
	const uint8_t *offsets; /**< exec.offsets */
	const uint8_t *records; /**< exec.vtable */
	uint64_t records_size; /**< bytes of exec.vtable */
	uint64_t next_id;       /**< next record to return */
	uint64_t end_id;        /**< one past the last record to return */
	uint64_t checked_end;   /**< records [next_id, checked_end) are known good (internal) */
} umt_exec_iter;

/** umt_exec_iter_init() out of line (internal). */
UMT_API int umt__exec_iter_init(umt_exec_iter *it, const umt_trace *t, uint64_t begin,
                                uint64_t end);

/**
 * Prepares @p it to return records [begin, end); end is clamped to the
 * record count. @return 0; UMT_E_INVAL, UMT_E_RANGE (begin > count).
 */
static inline int umt_exec_iter_init(umt_exec_iter *it, const umt_trace *t, uint64_t begin,
                                     uint64_t end)
{
	/* as umt_exec_view_init(): after a failure the iterator is empty */
	umt_exec_iter tmp = {0};
	int rc = umt__exec_iter_init(it ? &tmp : NULL, t, begin, end);
	if (it)
		*it = tmp;
	return rc;
}

/**
 * Checks the records from @p id on (id < end), up to @p end or the end of
 * id's chunk of 4096 records, whichever comes first, with umt__rec_ok() in
 * one tight loop; a chunk whose records were all checked before is not
 * checked again, and one checked whole now is marked (internal).
 * @return one past the last good record of the run (> id); or, when record
 *   @p id itself is bad, its error, as umt_exec_get() reports it.
 */
UMT_API int64_t umt__exec_check_run(const umt_trace *t, uint64_t id, uint64_t end);

/**
 * The next record. @return 1 with *out filled; 0 at the end of the range;
 * a negative error for a bad record, as umt_exec_get(). After an error the
 * iterator has moved past the bad record, so a caller may report it and
 * call again to continue.
 *
 * Inline, because a scan's cost per record is a few loads: the records are
 * checked a run at a time (umt__exec_check_run(), out of line, once per
 * 4096 records), and each one is then filled with no further test.
 */
static inline int umt_exec_iter_next(umt_exec_iter *__restrict it, umt_rec *__restrict out)
{
	uint64_t id = it->next_id;
	if (UMT_INLINE_UNLIKELY(id >= it->checked_end)) {
		if (id >= it->end_id)
			return 0;
		int64_t good = umt__exec_check_run(it->trace, id, it->end_id);
		if (good < 0) {
			it->next_id = id + 1;
			return good >= INT32_MIN ? (int)good : UMT_E_CORRUPT; /* visibly negative */
		}
		it->checked_end = (uint64_t)good;
	}
	it->next_id = id + 1;
	uint64_t begin, end;
	memcpy(&begin, it->offsets + id * 8, sizeof begin);
	memcpy(&end, it->offsets + id * 8 + 8, sizeof end);
	umt__rec_fill(it->records, id, begin, end, out);
	return 1;
}

/**
 * The record with ID @p id, as umt_exec_get() gives it, inline: a lookup by
 * ID costs two dependent cache misses, and a short inline path lets the
 * processor overlap those of consecutive lookups. Same checks and errors as
 * umt_exec_get() (UMT_E_RANGE for id >= count). A record whose chunk a scan
 * already checked is not checked again: one byte of the map replaces the
 * extent and type tests, which would wait for both cache misses.
 */
static inline int umt_exec_view_get(const umt_exec_view *__restrict v, uint64_t id,
                                    umt_rec *__restrict out)
{
	if (UMT_INLINE_UNLIKELY(id >= v->count))
		return umt__exec_bad_status(v->trace, id);
	uint64_t begin, end;
	memcpy(&begin, v->offsets + id * 8, sizeof begin);
	memcpy(&end, v->offsets + id * 8 + 8, sizeof end);
	if (UMT_INLINE_UNLIKELY(!umt__chunk_checked(v->checked, id)) &&
	    !umt__rec_ok(v->records, v->records_size, begin, end))
		return umt__exec_bad_status(v->trace, id);
	umt__rec_fill(v->records, id, begin, end, out);
	return 0;
}

/**
 * A run of consecutive records, each checked as umt_exec_iter_next() checks
 * a record: the fastest way to scan. Read record i (0 <= i < count) in
 * place through umt_block_data() and the overlay structs of format.h
 * (umt_exec_rec_hdr, umt_exec_ins, ...), or fill a umt_rec with
 * umt_block_rec(); every fixed field of its type is inside the record.
 */
typedef struct umt_exec_block {
	const uint8_t *records; /**< exec.vtable */
	const uint8_t *offsets; /**< exec.offsets entry of the first record (count + 1 entries) */
	uint64_t first;         /**< ID of the first record */
	uint32_t count;         /**< records in the block */
} umt_exec_block;

/**
 * The next run of up to @p max records of the iterator's range, checked in
 * one tight loop. A bad record ends the run before it; the next call
 * returns its error and moves past it (as umt_exec_iter_next() does).
 * @return the number of records in *b (> 0); 0 at the end of the range; a
 *   negative error for a bad record; UMT_E_INVAL for NULL or max 0.
 */
UMT_API int umt_exec_iter_next_block(umt_exec_iter *it, umt_exec_block *b, uint32_t max);

/** Bytes of record @p i of a block (its execRec header first). */
static inline const uint8_t *umt_block_data(const umt_exec_block *b, uint32_t i)
{
	uint64_t off;
	memcpy(&off, b->offsets + (uint64_t)i * 8, sizeof off);
	return b->records + off;
}

/** Size in bytes of record @p i of a block. */
static inline uint64_t umt_block_size(const umt_exec_block *b, uint32_t i)
{
	uint64_t from, to;
	memcpy(&from, b->offsets + (uint64_t)i * 8, sizeof from);
	memcpy(&to, b->offsets + (uint64_t)i * 8 + 8, sizeof to);
	return to - from;
}

/** Fills a record view of record @p i of a block (no further check needed). */
static inline void umt_block_rec(const umt_exec_block *b, uint32_t i, umt_rec *out)
{
	uint64_t from, to;
	memcpy(&from, b->offsets + (uint64_t)i * 8, sizeof from);
	memcpy(&to, b->offsets + (uint64_t)i * 8 + 8, sizeof to);
	umt__rec_fill(b->records, b->first + i, from, to, out);
}

/** Direction of a thread iterator. */
enum umt_direction {
	UMT_FORWARD = 1,  /**< along Next links */
	UMT_BACKWARD = -1 /**< along Prev links */
};

/**
 * Iterator along one thread's prev/next chain (exec.prev_next.column).
 * Links are checked: inside [0, count), strictly increasing forward (IDs are
 * sequence numbers), and to a record of the same thread; so iteration always
 * terminates, even on a corrupt cyclic chain.
 *
 * Which to use for one thread's records: this iterator reads only that
 * thread's records (and their links), but as a chain of dependent loads; a
 * scan of every record filtered by umt_rec.thread_id (umt_exec_iter) reads
 * them all, in order, at memory speed. Where threads run thousands of
 * records at a time (the OS scheduler's quanta, as in real traces), this
 * iterator is faster from two threads on (1.5x with two, 4x with eight);
 * where they switch every few dozen records, the scan is, up to four
 * threads. On a trace of one thread, scan (figures in docs/performance.md
 * and docs/guide.md, section 5). To visit every thread's records in any
 * order, scan once instead of walking each chain.
 *
 * A plain caller-owned struct: keep it in a local variable of the walking
 * function, so that its fields stay in registers (as for umt_exec_view).
 */
typedef struct umt_thread_iter {
	const umt_trace *trace; /**< the trace iterated */
	int64_t next_id;        /**< next record to return, -1 at the end */
	/* internal from here, but for thread_id, prev_id and direction, in an
	 * order that keeps apart the fields the inline path changes (compilers
	 * keep neighbours in vector registers otherwise) */
	const uint8_t *offsets; /**< exec.offsets */
	int64_t thread_id;      /**< thread of the chain; INT64_MIN until the first record */
	const uint8_t *records; /**< exec.vtable */
	int64_t prev_id;        /**< record returned last, -1 before the first */
	const uint8_t *links;   /**< exec.prev_next.column, at the link followed (Next or Prev) */
	uint64_t good_lo;       /**< the window [good_lo, good_hi) of records known good */
	int direction;          /**< UMT_FORWARD or UMT_BACKWARD */
	uint64_t good_hi;       /**< 0 unless next_id is a checked link into the window */
	uint64_t prefetched;    /**< links and offsets are prefetched up to this record */
	int sparse;             /**< the thread holds few records: prefetch along its chain */
} umt_thread_iter;

/** umt_thread_iter_init() out of line (internal). */
UMT_API int umt__thread_iter_init(umt_thread_iter *it, const umt_trace *t, uint64_t start_id,
                                  int direction);

/** umt_thread_iter_init_thread() out of line (internal). */
UMT_API int umt__thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t,
                                         uint64_t thread);

/**
 * Prepares @p it to follow the chain of record @p start_id (included) in
 * @p direction. Maps exec.prev_next.column on first use.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_IO (mapping failed).
 */
static inline int umt_thread_iter_init(umt_thread_iter *it, const umt_trace *t,
                                       uint64_t start_id, int direction)
{
	/* as umt_exec_view_init(): the caller's iterator never escapes, and
	 * after a failure it is at its end */
	umt_thread_iter tmp = {0};
	tmp.next_id = -1;
	int rc = umt__thread_iter_init(it ? &tmp : NULL, t, start_id, direction);
	if (it)
		*it = tmp;
	return rc;
}

/**
 * Prepares @p it to follow thread-table row @p thread forward from its
 * FirstEID. A thread with no records (FirstEID -1) yields nothing.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS (FirstEID outside the
 *   exec table), UMT_E_IO.
 */
static inline int umt_thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t,
                                              uint64_t thread)
{
	umt_thread_iter tmp = {0}; /* as umt_thread_iter_init() */
	tmp.next_id = -1;
	int rc = umt__thread_iter_init_thread(it ? &tmp : NULL, t, thread);
	if (it)
		*it = tmp;
	return rc;
}

/**
 * umt_thread_iter_next() out of line (internal): the first record of the
 * chain, the first one in each chunk of 4096 records, every one in a chunk
 * with a bad record, and the end and the errors.
 */
UMT_API int umt__thread_iter_step(umt_thread_iter *it, umt_rec *out);

/*
 * Prefetches the links and offsets of the records up to 512 ahead of @p id
 * in the iterator's direction that are not yet (internal): a chain walk is
 * a chain of dependent loads, and on a sparse chain each link is in a line
 * of its own, at distances no prefetcher of the processor foresees. A
 * prefetch never faults: the addresses may pass the ends of the files.
 */
static inline void umt__thread_iter_prefetch(umt_thread_iter *it, uint64_t id)
{
	enum { AHEAD = 512, LINE = 4 /* links per 64-byte line */ };
	uint64_t at = it->prefetched;
	if (it->direction == UMT_FORWARD) {
		if (at < id)
			at = id;
		for (; at < id + AHEAD; at += LINE) {
#if defined(__GNUC__)
			__builtin_prefetch((const void *)((uintptr_t)it->links + at * 16));
			__builtin_prefetch((const void *)((uintptr_t)it->offsets + at * 8));
#endif
		}
	} else {
		if (at > id || at < LINE)
			at = id;
		for (; at >= LINE && at + AHEAD > id; at -= LINE) {
#if defined(__GNUC__)
			__builtin_prefetch((const void *)((uintptr_t)it->links + at * 16));
			__builtin_prefetch((const void *)((uintptr_t)it->offsets + at * 8));
#endif
		}
	}
	it->prefetched = at;
}

/*
 * umt__thread_iter_step() on copies of the iterator and the record view
 * (internal), so that the caller's never escape: the compiler can then keep
 * their fields in registers, and drop the stores of the fields not read.
 */
static inline int umt__thread_iter_slow(umt_thread_iter *it, umt_rec *out)
{
	umt_thread_iter tmp = *it;
	umt_rec rec;
	int rc = umt__thread_iter_step(&tmp, &rec);
	/* only what the step changes: whole-struct copies make compilers keep
	 * pairs of fields in vector registers */
	it->next_id = tmp.next_id;
	it->thread_id = tmp.thread_id;
	it->prev_id = tmp.prev_id;
	it->good_lo = tmp.good_lo;
	it->good_hi = tmp.good_hi;
	it->prefetched = tmp.prefetched;
	it->sparse = tmp.sparse;
	if (rc > 0)
		*out = rec;
	return rc;
}

/**
 * The next record of the chain. @return 1 with *out filled; 0 at the end;
 * a negative error for a bad record or a bad link (UMT_E_CORRUPT: link
 * not increasing, to another thread; UMT_E_BOUNDS: outside the table), after
 * which the iterator is at its end.
 *
 * Inline: within a chunk of 4096 records that is known good (a scan, or
 * this iterator on a dense chain, checked it), a record costs its offsets
 * and header, the test of its thread and the link to the next one, whose
 * range and direction are tested here, before it is followed. On the
 * chains of threads that hold few records (under 1/6) the links and offsets
 * ahead are prefetched: a chain walk is a chain of dependent loads.
 */
static inline int umt_thread_iter_next(umt_thread_iter *__restrict it, umt_rec *__restrict out)
{
	if (UMT_INLINE_UNLIKELY(it->good_hi == 0))
		return umt__thread_iter_slow(it, out);
	uint64_t id = (uint64_t)it->next_id; /* a checked link, to a record known good */
	uint64_t begin, end;
	memcpy(&begin, it->offsets + id * 8, sizeof begin);
	memcpy(&end, it->offsets + id * 8 + 8, sizeof end);
	int32_t thread;
	memcpy(&thread, it->records + begin, sizeof thread);
	if (UMT_INLINE_UNLIKELY(thread != it->thread_id)) { /* the step reports it */
		it->good_hi = 0;
		return umt__thread_iter_slow(it, out);
	}
	int64_t link;
	memcpy(&link, it->links + id * 16, sizeof link);
	umt__rec_fill(it->records, id, begin, end, out);
	it->prev_id = (int64_t)id;
	it->next_id = link;
	/* The next call stays here when the link leads ahead (forward or
	 * backward) to a record of the window known good; else (the end, -1,
	 * included) it takes the step, which checks the link and tells why. */
	if (it->direction == UMT_FORWARD) {
		if (UMT_INLINE_UNLIKELY((uint64_t)link <= id || (uint64_t)link >= it->good_hi))
			it->good_hi = 0; /* not in (id, good_hi) */
	} else {
		if (UMT_INLINE_UNLIKELY((uint64_t)link >= id || (uint64_t)link < it->good_lo))
			it->good_hi = 0; /* not in [good_lo, id) */
	}
	if (it->sparse) /* keep the links and offsets ahead coming */
		umt__thread_iter_prefetch(it, id);
	return 1;
}

/**
 * The Prev and Next links of record @p id as stored (-1 for none; not
 * otherwise checked). @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_IO.
 */
UMT_API int umt_exec_links(const umt_trace *t, uint64_t id, int64_t *prev, int64_t *next);

/* ---- Parallel ranges, batched lookups, access hints ---- */

/**
 * Cuts the records [0, count) into @p n ranges of about equal bytes of
 * exec.vtable (not of records): range k is [bounds[k], bounds[k + 1]),
 * bounds[0] = 0 and bounds[n] = count. Give each range to a thread
 * (umt_exec_iter_init() with its bounds), a process or a machine: every
 * record belongs to exactly one range. O(n log count), by binary search
 * over exec.offsets; on corrupt (non-increasing) offsets the ranges are
 * uneven but still cover every record once.
 * @param bounds n + 1 entries.
 * @return 0; UMT_E_INVAL (NULL, n == 0).
 */
UMT_API int umt_exec_split(const umt_trace *t, unsigned n, uint64_t *bounds);

/**
 * The records @p ids[0..n) into out[0..n), each as umt_exec_get() would,
 * through a software-prefetching pipeline: a lookup by ID costs two
 * dependent cache misses (the offset, then the record), and the pipeline
 * overlaps those of consecutive lookups. A failed lookup leaves
 * out[i].data NULL. Allocates the trace's map of checked chunks on first
 * use, as umt_exec_view_init() does (without it, looks up one by one).
 * @return 0 when every lookup succeeded; else the status of the first
 *   failure (its message set); UMT_E_INVAL for NULL arguments.
 */
UMT_API int umt_exec_get_batch(const umt_trace *t, const uint64_t *ids, size_t n,
                               umt_rec *out);

/** Access hints (madvise()). */
enum umt_advice {
	UMT_ADVISE_NORMAL = 0,     /**< the kernel's default read-around */
	UMT_ADVISE_SEQUENTIAL = 1, /**< read ahead aggressively, drop behind */
	UMT_ADVISE_RANDOM = 2,     /**< no read-around: cold lookups fault one page each */
	UMT_ADVISE_WILLNEED = 3,   /**< start reading the pages now */
	UMT_ADVISE_DONTNEED = 4    /**< drop the pages from this mapping (not from the page cache) */
};

/**
 * Advises the kernel how the records [begin, end) will be read: madvise()
 * on exactly the pages of exec.offsets, exec.vtable and (once mapped)
 * exec.prev_next.column that hold them. On data colder than RAM,
 * UMT_ADVISE_RANDOM is what makes lookups by ID fast (without it every
 * fault reads megabytes around it). Traces opened from memory: no-op.
 * @return 0; UMT_E_INVAL (bad advice), UMT_E_RANGE (begin > end or end >
 *   count), UMT_E_IO (madvise failed).
 */
UMT_API int umt_exec_advise(const umt_trace *t, uint64_t begin, uint64_t end, int advice);

/** umt_exec_advise() for an iterator's remaining range [next_id, end_id). */
UMT_API int umt_exec_iter_advise(const umt_exec_iter *it, int advice);

/**
 * Advises on the whole of one file of the trace (any umt_file_id;
 * exec.prev_next.column only once mapped: before, nothing). Errors as
 * umt_exec_advise().
 */
UMT_API int umt_trace_advise(const umt_trace *t, int file, int advice);

/* ==== 7. Instructions: insRec, decodedIns ================================= */
/* (section owner: src/ins.c) */

/** Rows of ins.itable (0 for NULL). */
UMT_API uint64_t umt_ins_count(const umt_trace *t);

/** What lcSlot offset 2 holds in this trace (insRec RecordVer, spec 7.3.2). */
enum umt_slot_name_kind {
	UMT_SLOT_LARGEST_ENCLOSING = 0, /**< RecordVer 0: lcSlot.LargestEnclosing */
	UMT_SLOT_COMMON_REG_NAME = 1    /**< RecordVer 1: lcSlot.CommonRegName */
};

/**
 * The umt_slot_name_kind of @p t's instruction table. Either way the value
 * agrees with the context map's CommonName table of the same trace
 * (ERRATA 23). @return the kind; UMT_E_INVAL for NULL.
 */
UMT_API int umt_ins_slot_name_kind(const umt_trace *t);

/**
 * Row @p id of ins.itable, stepping by the header's RowSize. The row's
 * fields are returned as stored (ID is not compared with @p id); RowSize
 * may be 56, so the 8 padding bytes at 56 must not be read.
 * @return 0 and *row; UMT_E_INVAL, UMT_E_RANGE (id >= umt_ins_count()).
 */
UMT_API int umt_ins_get(const umt_trace *t, uint64_t id, const umt_ins_rec **row);

/**
 * The code bytes of instruction @p id: *bytes points to CodeBytes and *size
 * is CodeSize (at most 15).
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS (CodeSize > 15).
 */
UMT_API int umt_ins_code(const umt_trace *t, uint64_t id, const uint8_t **bytes,
                         unsigned *size);

/**
 * The disassembly of instruction @p id: the cStr at ExtraFP + DisasmFP,
 * checked to lie inside the extra area (Length + 3 bytes) and to be Length
 * characters followed by a NUL, so *text is a C string of *len characters.
 * Strings may be shared by instructions.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS (DisasmFP negative or
 *   outside the area, Length negative or running past it), UMT_E_CORRUPT
 *   (no NUL after Length characters, or a NUL among them).
 */
UMT_API int umt_ins_disasm(const umt_trace *t, uint64_t id, const char **text, size_t *len);

/** A checked view of the decoded instruction of one insRec. */
typedef struct umt_decoded {
	const umt_decoded_ins *ins; /**< fixed part, in the mapping: every field */
	const umt_lc_slot *slots;   /**< ins->LCCount slots */
	uint64_t ins_id;            /**< instruction row it was reached from */
	uint64_t offset;            /**< file offset of ins in ins.itable */
} umt_decoded;

/**
 * The decodedIns of instruction @p ins_id, checked:
 *   - UMT_E_BOUNDS: DecodedFP negative, DecodedFP + 88 + 12 * LCCount
 *     outside the extra area; ExpCount > 4; a slot index (operands'
 *     Before/AfterSlot, Mem0Seg/Base/IndexSlot, Mem1BaseSlot) neither below
 *     LCCount nor 0xfd/0xfe/0xff; FirstAfterSlot > LCCount; a slot's Offset
 *     + width (ValueSize, plus 8 address bytes when AddrWidth > 0) past
 *     LCSize, or ValueSize negative; an operand's bytes (slot Offset +
 *     Before/AfterOffset + Size) past LCSize, or Size negative;
 *   - UMT_E_CORRUPT: FirstOutSlot > FirstAfterSlot; AddrWidth > 8;
 *     Mem0Scale other than 0, 1, 2, 4, 8.
 * Messages name ins.itable, the instruction ID and the file offset of the
 * bad field. Only the first ExpCount operands are checked (all four are
 * present, ERRATA 2). Several instructions may share one body: that is
 * normal. A row is fully checked once (a bitmap of checked rows is
 * allocated on first use); later calls for it are O(1).
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS, UMT_E_CORRUPT.
 */
UMT_API int umt_ins_decoded(const umt_trace *t, uint64_t ins_id, umt_decoded *out);

/** Group of an LC slot, from FirstOutSlot and FirstAfterSlot (spec 7.2.1). */
enum umt_slot_group {
	UMT_SLOT_GROUP_BEFORE = 0,            /**< before value of a read or read-write operand */
	UMT_SLOT_GROUP_BEFORE_WRITE_ONLY = 1, /**< before value of a write-only operand */
	UMT_SLOT_GROUP_AFTER = 2              /**< after value */
};

/**
 * The umt_slot_group of slot @p slot: below FirstOutSlot, below
 * FirstAfterSlot, or after. @return the group; UMT_E_INVAL, UMT_E_RANGE
 * (slot >= LCCount).
 */
UMT_API int umt_decoded_slot_group(const umt_decoded *d, unsigned slot);

/** Explicit operand @p i (i < ExpCount), or NULL. */
UMT_API const umt_exp_oper *umt_decoded_operand(const umt_decoded *d, unsigned i);

/** LC slot @p slot (slot < LCCount), or NULL. */
UMT_API const umt_lc_slot *umt_decoded_slot(const umt_decoded *d, unsigned slot);

/** decodedIns.Flags helpers: 1 when the bit is set, else 0. */
static inline int umt_decoded_is_rep(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_REP) != 0;
}
static inline int umt_decoded_is_repne(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_REPNE) != 0;
}
static inline int umt_decoded_is_lock(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_LOCK) != 0;
}
/** 32-bit operands in 64-bit code: outputs have their high 32 bits zeroed. */
static inline int umt_decoded_is_32in64(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_32IN64) != 0;
}
static inline int umt_decoded_reads_memory(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_READS_MEM) != 0;
}
static inline int umt_decoded_writes_memory(const umt_decoded *d)
{
	return (d->ins->Flags & UMT_DEC_F_WRITES_MEM) != 0;
}

/* ==== 7b. Instruction semantics (Zydis) =================================== */
/* (section owner: src/semantics.c) */

/*
 * What an instruction row's code bytes mean, decoded with Zydis (the
 * decoder x64dbg uses) without any external table: the mnemonic, a
 * category of this library (call, ret, jump...), the length, the operands
 * and the target of relative branches. XED's numbers in decodedIns need
 * the XED headers of the trace's version to be named (section 15); these
 * do not.
 *
 * Mode. A row is decoded in the mode it was instrumented in: 64-bit when
 * its CSis64Bits is not 0, else 32-bit protected mode (the decoding of
 * user-mode instructions is the same in compatibility mode, where 32-bit
 * code runs under 64-bit Windows). The spec's 64-bit exec flag of the
 * records that execute a row says the same thing per record; the row's
 * flag is used because semantics are remembered per row (and a record
 * whose flag disagrees with its row's is a corrupt trace, not another
 * decoding).
 *
 * Cost. umt_sem_get() decodes a row on its first call and remembers the
 * result in the trace handle (16 bytes per row, allocated on first use,
 * like the access plans of section 8b): every later call for that row,
 * from any thread, is two loads. Scans ask it per record (is this record a
 * call, where does it go) and never decode per record. umt_sem_decode()
 * (operands and text) decodes every time: it is for display.
 *
 * Names and numbers. Mnemonic and Zydis category numbers are those of the
 * Zydis library this one was built with (Debian 12: Zydis 4.0.0); names
 * (umt_sem_mnemonic_name()) are stable across Zydis versions, numbers are
 * not: keep names, not numbers.
 */

/** Categories of instructions (umt_sem.category). */
enum umt_sem_category {
	UMT_SEM_OTHER = 0,       /**< anything below */
	UMT_SEM_CALL = 1,        /**< call: near or far, relative or through a register or memory */
	UMT_SEM_RET = 2,         /**< ret, ret far, iret */
	UMT_SEM_JMP = 3,         /**< unconditional jump */
	UMT_SEM_COND_BRANCH = 4, /**< jcc, jcxz/jecxz/jrcxz, loop, loope, loopne */
	UMT_SEM_SYSCALL = 5,     /**< enters or leaves the kernel: syscall, sysenter, int n, int3,
	                              int1, into; sysret, sysexit */
	UMT_SEM_NOP = 6,         /**< nop, including the multi-byte forms (0f 1f /0) */
	UMT_SEM_CATEGORY_COUNT = 7
};

/** Flags of a row's semantics (umt_sem.flags). */
enum umt_sem_flag {
	UMT_SEM_F_64BIT = 0x01,    /**< decoded in 64-bit mode (the row's CSis64Bits) */
	UMT_SEM_F_TARGET = 0x02,   /**< target holds the destination of a relative branch */
	UMT_SEM_F_INDIRECT = 0x04, /**< a call or jump through a register or memory: its target
	                                is in the record's operand values, not in the code */
	UMT_SEM_F_FAR = 0x08,      /**< a far call, jump or return (another code segment) */
	UMT_SEM_F_REP = 0x10,      /**< a rep, repe or repne prefix that applies */
	UMT_SEM_F_LOCK = 0x20      /**< a lock prefix */
};

/** The semantics of one instruction row: 16 bytes, remembered per row. */
typedef struct umt_sem {
	uint64_t target;        /**< with UMT_SEM_F_TARGET: address + length + displacement,
	                             wrapped to the operand size (2^32 in 32-bit code); else 0 */
	uint16_t mnemonic;      /**< Zydis mnemonic number: umt_sem_mnemonic_name() */
	uint8_t category;       /**< enum umt_sem_category */
	uint8_t length;         /**< bytes decoded: always the row's CodeSize */
	uint8_t flags;          /**< enum umt_sem_flag bits */
	uint8_t operand_count;  /**< visible (explicit) operands, as umt_sem_decode() lists them */
	uint8_t zydis_category; /**< Zydis's finer category: umt_sem_zydis_category_name() */
	uint8_t reserved;       /**< 0 */
} umt_sem;

/**
 * The semantics of instruction row @p ins_id: its first CodeSize code bytes
 * decoded as one instruction in the row's mode (see the preamble). Decoded
 * on the first call for the row and remembered; a row whose bytes do not
 * decode is decoded again, and reported with the same message, by every
 * call (an error path: it costs one decode).
 * @return 0 and *out; UMT_E_INVAL (NULL argument), UMT_E_RANGE (ins_id >=
 *   umt_ins_count()), UMT_E_BOUNDS (CodeSize > 15), UMT_E_CORRUPT (the
 *   bytes do not decode, or decode to an instruction of another length than
 *   CodeSize: the message names ins.itable, the row, the file offset of its
 *   CodeBytes, the bytes and what Zydis said), and a loss at open of a
 *   salvaged instruction table (see the header's preamble).
 */
UMT_API int umt_sem_get(const umt_trace *t, uint64_t ins_id, umt_sem *out);

/** 1 when @p s is a call, ret, jump or conditional branch (it may change the flow). */
static inline int umt_sem_is_branch(const umt_sem *s)
{
	return s->category >= UMT_SEM_CALL && s->category <= UMT_SEM_COND_BRANCH;
}

/**
 * The name of Zydis mnemonic @p mnemonic, lower case ("mov", "call",
 * "jnz", "movsb": prefixes are flags, not part of the name), or NULL when
 * it is not one.
 */
UMT_API const char *umt_sem_mnemonic_name(unsigned mnemonic);

/**
 * The name of a umt_sem_category ("other", "call", "ret", "jmp",
 * "cond_branch", "syscall", "nop"), or NULL.
 */
UMT_API const char *umt_sem_category_name(int category);

/** The name of a Zydis category, upper case as XED names them ("DATAXFER"), or NULL. */
UMT_API const char *umt_sem_zydis_category_name(unsigned category);

/** Operand kinds of umt_sem_decode(). */
enum umt_sem_operand_kind {
	UMT_SEM_OP_REGISTER = 1,  /**< a register */
	UMT_SEM_OP_MEMORY = 2,    /**< memory at seg:[base + index * scale + disp] */
	UMT_SEM_OP_AGEN = 3,      /**< the address of such a phrase, no access (lea) */
	UMT_SEM_OP_POINTER = 4,   /**< a far pointer selector:offset in the code */
	UMT_SEM_OP_IMMEDIATE = 5  /**< a constant in the code, or a relative branch offset */
};

/** What an operand does (umt_sem_operand.access); conditional accesses included. */
enum umt_sem_access { UMT_SEM_READ = 1, UMT_SEM_WRITE = 2 };

/** Most visible operands of an x86 instruction. */
#define UMT_SEM_MAX_OPERANDS 5

/** One explicit operand, as Zydis decodes it. Names are static strings ("rax"). */
typedef struct umt_sem_operand {
	uint8_t kind;          /**< enum umt_sem_operand_kind */
	uint8_t access;        /**< enum umt_sem_access bits (0 for AGEN, pointers, immediates) */
	uint16_t bits;         /**< operand size in bits */
	const char *reg;       /**< REGISTER: its name; else NULL */
	const char *segment;   /**< MEMORY, AGEN: the segment register ("ds", "fs"...) */
	const char *base;      /**< MEMORY, AGEN: base register or NULL ("rip" for RIP-relative) */
	const char *index;     /**< MEMORY, AGEN: index register or NULL */
	uint8_t scale;         /**< MEMORY, AGEN: 1, 2, 4 or 8 with an index, else 0 */
	int64_t disp;          /**< MEMORY, AGEN: displacement (0 when none) */
	uint64_t value;        /**< IMMEDIATE: the value, sign-extended to 64 bits when it is
	                            signed; POINTER: the offset */
	uint16_t selector;     /**< POINTER: the segment selector */
	uint8_t has_absolute;  /**< 1 when absolute is known: a RIP-relative phrase, a relative
	                            branch offset, a far pointer's offset */
	uint64_t absolute;     /**< the address the operand designates */
} umt_sem_operand;

/** Everything umt_sem_decode() finds in a row. */
typedef struct umt_sem_detail {
	umt_sem sem;                   /**< what umt_sem_get() gives */
	unsigned operand_count;        /**< entries of operands */
	umt_sem_operand operands[UMT_SEM_MAX_OPERANDS]; /**< explicit operands, in Intel order */
	char text[160];                /**< Intel syntax as Zydis writes it, branch targets and
	                                    RIP-relative addresses absolute ("call 0x140001020") */
} umt_sem_detail;

/**
 * Decodes row @p ins_id fully: its semantics (as umt_sem_get()), its
 * explicit operands and its text. Decodes every time (a few hundred
 * nanoseconds): for display, not for scans.
 * @return 0 and *out; the errors of umt_sem_get().
 */
UMT_API int umt_sem_decode(const umt_trace *t, uint64_t ins_id, umt_sem_detail *out);

/* ==== 8. Operand values of instruction records =========================== */
/* (section owner: src/operand.c) */

/** A value in a local context or a constant slot: little-endian bytes. */
typedef struct umt_value {
	const uint8_t *data; /**< size bytes, in the mapping (or in the ConstSlot) */
	uint32_t size; /**< bytes at data */
	int is_const;        /**< 1 when it comes from decodedIns.ConstSlot */
} umt_value;

/** Zero-extends the first min(size, 8) bytes of @p v to 64 bits (0 for NULL). */
UMT_API uint64_t umt_value_u64(const umt_value *v);

/** An instruction record bound to its decoded instruction. */
typedef struct umt_ins_exec {
	umt_decoded dec; /**< the decoded instruction */
	const uint8_t *lc;   /**< local context of the record */
	uint64_t lc_size;    /**< at least dec.ins->LCSize (checked) */
	uint64_t record_id; /**< ID of the instruction record */
	uint64_t lc_offset;  /**< offset of lc in exec.vtable */
	int64_t ins_id; /**< its InsID */
	int is_64bit;        /**< the record's 64-bit flag */
} umt_ins_exec;

/**
 * Binds instruction record @p r to its decoded instruction: InsID inside
 * the instruction table, decodedIns checked (umt_ins_decoded()), LC length
 * at least LCSize. No allocation; O(1) once the row has been checked.
 * @return 0; UMT_E_INVAL (not an instruction record), UMT_E_BOUNDS (InsID
 *   outside the table; the message names the exec.vtable record),
 *   UMT_E_TRUNCATED (LC shorter than LCSize), errors of umt_ins_decoded().
 */
UMT_API int umt_rec_ins_exec(const umt_trace *t, const umt_rec *r, umt_ins_exec *out);

/** When: before or after execution. */
enum umt_when { UMT_BEFORE = 0, UMT_AFTER = 1 };

/** What an explicit operand or a slot designates. */
enum umt_operand_kind {
	UMT_KIND_REGISTER = 0,  /**< a register value */
	UMT_KIND_MEMORY = 1,    /**< MEM0, MEM1, STACKPUSH, STACKPOP: address then value */
	UMT_KIND_AGEN = 2,      /**< computed address, no memory access */
	UMT_KIND_IMMEDIATE = 3  /**< constant from ConstSlot (slot 0xfd/0xfe) */
};

/**
 * The umt_operand_kind of explicit operand @p i: IMMEDIATE when its slot
 * is 0xfd/0xfe, AGEN when RegName is AGEN, MEMORY when its LC slot has
 * AddrWidth > 0 (ERRATA 11: STACKPUSH/STACKPOP numbers depend on the XED
 * version, so the register number is not used), else REGISTER. The slot is
 * BeforeSlot, or AfterSlot when BeforeSlot is 0xff.
 * @return the kind; UMT_E_INVAL, UMT_E_RANGE (i >= ExpCount).
 */
UMT_API int umt_operand_kind(const umt_ins_exec *x, unsigned i);

/**
 * Value of explicit operand @p i before or after execution:
 * LC + LCSlots[slot].Offset + Before/AfterOffset, expOper.Size bytes (the
 * slot may name an enclosing register: edx in rdx, ah at offset 1 of rax;
 * a memory operand's offset 8 skips its address). For slot 0xfd/0xfe, the
 * bytes of ConstSlot[0]/[1], min(Size, 8) of them, offset ignored. Every
 * access is checked against the LC length.
 * @return 0; UMT_E_INVAL (bad @p when), UMT_E_RANGE (i >= ExpCount),
 *   UMT_E_NO_VALUE (slot 0xff: no after value of a read-only operand),
 *   UMT_E_BOUNDS.
 */
UMT_API int umt_operand_value(const umt_ins_exec *x, unsigned i, int when, umt_value *out);

/**
 * Memory address of explicit operand @p i: for memory operands the 64-bit
 * address stored at its slot's Offset, before the value, masked to
 * AddrWidth bytes; for AGEN the computed address (its value, zero-extended).
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_NO_VALUE (register or
 *   immediate operand), UMT_E_BOUNDS.
 */
UMT_API int umt_operand_address(const umt_ins_exec *x, unsigned i, uint64_t *address);

/** A memory phrase seg:[base + index * scale + disp] and its effective address. */
typedef struct umt_mem_phrase {
	int16_t seg_reg;   /**< RegName of the segment-base slot, 0 (INVALID) when absent */
	int16_t base_reg;  /**< RegName of the base slot, 0 when absent */
	int16_t index_reg; /**< RegName of the index slot, 0 when absent */
	uint64_t seg;   /**< FS/GS base value (4 or 8 bytes, ERRATA 14), 0 when absent */
	uint64_t base;  /**< base register value, 0 when absent */
	uint64_t index; /**< index register value, 0 when absent or scale 0 */
	uint8_t scale;  /**< 0 (no index), 1, 2, 4, 8 */
	int64_t disp;   /**< ConstSlot[0], sign-extended (MEM0/AGEN only) */
	uint64_t ea;    /**< seg + base + index * scale + disp, modulo 2^32 in 32-bit code */
} umt_mem_phrase;

/**
 * The memory phrase of MEM0/AGEN (@p which 0: Mem0SegSlot, Mem0BaseSlot,
 * Mem0IndexSlot, Mem0Scale, ConstSlot[0]) or MEM1 (@p which 1: Mem1BaseSlot
 * only), from the before values of its slots (the first min(ValueSize, 8)
 * bytes, zero-extended), and its effective address (ERRATA 13): modulo
 * 2^32 when the record's 64-bit flag is clear, 2^64 otherwise. A slot of
 * 0xff contributes nothing; scale 0 means no index. In real traces ea
 * equals the stored MEM0 address (umt_operand_address()).
 * @return 0; UMT_E_INVAL, UMT_E_NO_VALUE (no such phrase: all its slots
 *   0xff and no operand or slot named MEM0/AGEN, or MEM1), UMT_E_BOUNDS.
 */
UMT_API int umt_ins_exec_phrase(const umt_ins_exec *x, int which, umt_mem_phrase *out);

/**
 * Value of LC slot @p slot: ValueSize bytes (after the 8-byte address for
 * memory slots) and, for memory slots, the address masked to AddrWidth
 * bytes in *address (may be NULL; 0 for other slots). With
 * umt_decoded_slot_group() this iterates over every value of the LC.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE (slot >= LCCount), UMT_E_BOUNDS.
 */
UMT_API int umt_lc_slot_value(const umt_ins_exec *x, unsigned slot, umt_value *value,
                              uint64_t *address);

/**
 * The first register slot (AddrWidth 0) of the before group (slots below
 * FirstAfterSlot) or the after group whose lcSlot offset 2 equals
 * @p common and whose ValueSize is at least @p min_size: the spec's way to
 * look for a register of a group (7.3.3). @p common must come from the
 * trace's own tables (umt_reg_desc.common; ERRATA 23).
 * @return the slot index (>= 0); UMT_E_INVAL, UMT_E_NOT_FOUND.
 */
UMT_API int umt_lc_find_common(const umt_ins_exec *x, int common, unsigned min_size, int when);

/**
 * Finds register @p reg in the before (slots below FirstAfterSlot) or
 * after group of the LC: first a register slot naming it (its ValueSize
 * bytes); else a register slot of the same group (lcSlot offset 2, or the
 * CommonName of the slot's register, equals the context map's
 * CommonName[reg]) that encloses it: the offset of @p reg inside the slot's
 * register and its size come from the context map (32- or 64-bit by the
 * record's flag), so al is found in eax, ah at byte 1 of eax/rax. *out is
 * the register's own bytes. Works for insRec version 0 and 1 alike.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE (reg >= ElemCount), UMT_E_NOT_FOUND,
 *   UMT_E_BOUNDS.
 */
UMT_API int umt_lc_find_reg(const umt_trace *t, const umt_ins_exec *x, int reg, int when,
                            umt_value *out);

/* ==== 8b. Memory accesses of a record ===================================== */
/* (section owner: src/access.c) */

/**
 * What a memory access of a record is. A record's accesses are everything
 * it tells about memory: the memory slots of an instruction's local
 * context (MEM0, MEM1, STACKPUSH, STACKPOP: every slot with AddrWidth > 0,
 * explicit and implicit operands alike; AGEN is an address, not an access)
 * and the memory blocks of a register context.
 */
enum umt_access_kind {
	UMT_ACCESS_READ = 1,    /**< before value of a read or read-write operand: a program read */
	UMT_ACCESS_WRITE = 2,   /**< after value of a written operand: a program write */
	UMT_ACCESS_PEEK = 4,    /**< old content seen, not a program access: the before value of
	                             a write-only operand, or the unchanged after value of an
	                             instruction whose condition was false (flag 0x04) */
	UMT_ACCESS_CONTEXT = 8  /**< a memory block of a register context: memory as it was at
	                             that record (TIB at thread begin, buffers at syscall exit) */
};
/** Every access kind, for umt_access_iter_init()'s @p kinds. */
#define UMT_ACCESS_ALL 15u

/**
 * Which values of a record can be believed, from its exec flags
 * (spec 6.4, flags 0x10-0x80). Decided here once; every query of the
 * library (memory history and contents, register state, origins) applies
 * it the same way:
 *   - exec.vtable version 1: 0x10 (inputs not reliable) and 0x80 (aborted)
 *     make the inputs unreliable; 0x20 (outputs not reliable), 0x40 (fault)
 *     and 0x80 make the outputs unreliable.
 *   - version 0: 0x10 (fault recording inputs: all values garbage) and
 *     0x80 (internal error) make inputs and outputs unreliable; 0x20 (fault
 *     executing) and 0x40 (fault reading back outputs) make the outputs
 *     unreliable.
 * Memory addresses are computed from input registers before execution, so
 * an access's address is trusted exactly when the inputs are. A before
 * value (read, peek) is trusted with the inputs, an after value (write)
 * with the outputs. Context blocks are always trusted.
 *
 * Consequences, applied everywhere: an access with an untrusted address is
 * shown by umt_access_iter_next() but indexed nowhere (where it went is not
 * known). A write with a trusted address and an untrusted value may or may
 * not have happened: memory there is UNKNOWN from that record on, until
 * the next observation (not "the previous value"). Untrusted before values
 * are not observations.
 */
enum umt_trust {
	UMT_TRUST_ADDRESS = 1, /**< the address is reliable */
	UMT_TRUST_VALUE = 2    /**< the value bytes are reliable */
};

/** Reliability of a record's inputs and outputs (see enum umt_trust). */
enum umt_rec_reliability {
	UMT_RELIABLE_INPUTS = 1,  /**< before values and addresses can be believed */
	UMT_RELIABLE_OUTPUTS = 2  /**< after values can be believed (and the writes happened) */
};

/**
 * UMT_RELIABLE_INPUTS | UMT_RELIABLE_OUTPUTS for a record with exec flags
 * @p flags in an exec.vtable of version @p exec_version (0 or 1; other
 * versions are treated as 1), as decided above.
 */
static inline unsigned umt_exec_reliability(int exec_version, unsigned flags)
{
	unsigned bad_in = UMT_EXEC_V1_F_BAD_INPUTS | UMT_EXEC_V1_F_ABORTED;
	unsigned bad_out = exec_version == 0
	                           ? UMT_EXEC_F_INCOMPLETE_MASK
	                           : (unsigned)(UMT_EXEC_V1_F_BAD_OUTPUTS | UMT_EXEC_V1_F_FAULT |
	                                        UMT_EXEC_V1_F_ABORTED);
	return ((flags & bad_in) ? 0u : (unsigned)UMT_RELIABLE_INPUTS) |
	       ((flags & bad_out) ? 0u : (unsigned)UMT_RELIABLE_OUTPUTS);
}

/** One memory access of a record. Its bytes are in the mapping. */
typedef struct umt_access {
	uint64_t record_id; /**< the record */
	int32_t thread_id;  /**< the record's ThreadID */
	uint64_t address;   /**< first byte: AddrWidth significant bytes (ERRATA 11) */
	uint64_t size;      /**< bytes (ValueSize; a context block's Size) */
	const uint8_t *data; /**< size bytes, valid until umt_trace_close() */
	uint32_t locator;   /**< LC slot index, or the context block index */
	int16_t reg_name;   /**< slot RegName (MEM0, MEM1, STACKPUSH...); 0 for context blocks */
	uint8_t kind;       /**< enum umt_access_kind */
	uint8_t trust;      /**< enum umt_trust bits */
	uint8_t phase;      /**< 0: before execution (read, peek, context); 1: after (write) */
	uint8_t addr_width; /**< AddrWidth of the slot; 8 for context blocks */
} umt_access;

/**
 * Iterator over the memory accesses of one record. A plain caller-owned
 * struct; its fields are private. No allocation: the memory slots of an
 * instruction row are found once per row and remembered in the trace
 * handle (4 bytes per row, allocated on first use).
 */
typedef struct umt_access_iter {
	const umt_trace *trace;        /**< private */
	const uint8_t *lc;             /**< private: the record's local context */
	const umt_decoded_ins *ins;    /**< private: its decodedIns */
	const umt_lc_slot *slots;      /**< private: its slots */
	umt_context ctx;               /**< private: context records */
	uint64_t record_id;            /**< private */
	int32_t thread_id;             /**< private */
	uint32_t next;                 /**< private: next slot list entry or block */
	uint32_t count;                /**< private: entries or blocks */
	uint32_t plan;                 /**< private: packed memory slots of the row */
	unsigned kinds;                /**< private: kinds wanted */
	uint8_t reliable;              /**< private: umt_exec_reliability() of the record */
	uint8_t not_executed;          /**< private: flag 0x04 */
	uint8_t is_context;            /**< private */
} umt_access_iter;

/**
 * Prepares @p it to yield the accesses of record @p r whose kind is in
 * @p kinds (UMT_ACCESS_* bits; UMT_ACCESS_ALL). Instruction records yield
 * their memory slots in slot order, context records their blocks in order,
 * other records nothing.
 * @return 0; UMT_E_INVAL (NULL, kinds 0 or unknown bits), the errors of
 *   umt_rec_ins_exec() (instruction records) and umt_rec_context()
 *   (records with a context).
 */
UMT_API int umt_access_iter_init(umt_access_iter *it, const umt_trace *t, const umt_rec *r,
                                 unsigned kinds);

/**
 * The next access. @return 1 with *out filled; 0 at the end; UMT_E_INVAL;
 *   UMT_E_BOUNDS (a context block outside its record, as
 *   umt_context_mem_get() says; the iterator moves past it).
 */
UMT_API int umt_access_iter_next(umt_access_iter *it, umt_access *out);

/** Name of an access kind ("read", "write", "peek", "context"), or NULL. */
UMT_API const char *umt_access_kind_name(unsigned kind);

/* ==== 9. Context map and registers ======================================== */
/* (section owner: src/context.c) */

/**
 * The trace's context map, in the mapping (17424 bytes, no table header,
 * ERRATA 5): DumpSize, ElemCount and the four arrays. NULL for NULL. When
 * context_map.itable was lost at open (UMT_OPEN_SALVAGE), an empty map
 * (DumpSize 0, ElemCount 0), never NULL.
 */
UMT_API const umt_context_map *umt_context_map_get(const umt_trace *t);

/** One register of the context map. */
typedef struct umt_reg_desc {
	int reg;               /**< register ID (XED enum of the trace) */
	char name[UMT_REG_NAME_SIZE + 1]; /**< StrName, NUL-terminated ("" when empty) */
	int common;            /**< CommonName[reg] */
	umt_reg_info map32;    /**< placement in 32-bit dumps (Offset, Size, EffLargest) */
	umt_reg_info map64;    /**< placement in 64-bit dumps */
	int in32;              /**< 1 when present in 32-bit dumps (Offset != 0xffff, Size > 0) */
	int in64;              /**< 1 when present in 64-bit dumps */
} umt_reg_desc;

/**
 * Describes register @p reg (< ElemCount) as stored: a 16-byte StrName
 * without NUL gives a 16-character name (ERRATA 16). Offsets are not
 * checked against DumpSize here (umt_context_reg() does).
 * @return 0; UMT_E_INVAL, UMT_E_RANGE.
 */
UMT_API int umt_context_map_reg(const umt_trace *t, int reg, umt_reg_desc *out);

/**
 * The register whose StrName is @p name, case-insensitively (first match
 * below ElemCount). O(ElemCount).
 * @return the register ID (>= 0); UMT_E_INVAL (NULL or empty name),
 *   UMT_E_NOT_FOUND.
 */
UMT_API int umt_reg_by_name(const umt_trace *t, const char *name);

/**
 * Value of register @p reg in the dump of context @p c, using the 64-bit
 * or 32-bit map by the record's 64-bit flag (c->is_64bit); Offset + Size is
 * checked against DumpSize.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE (reg >= ElemCount), UMT_E_NOT_FOUND
 *   (absent from this map), UMT_E_BOUNDS (past DumpSize; the message names
 *   context_map.itable and the regInfo's offset).
 */
UMT_API int umt_context_reg(const umt_trace *t, const umt_context *c, int reg, umt_value *out);

/* ==== 10. System calls ===================================================== */
/* (section owner: src/syscall.c) */

/*
 * syscall.vtable holds variable-size records in any order, each reached
 * through its (Offset, Size) pair in syscall.offsets (RecordCount pairs,
 * ERRATA 8). A record is the 56 bytes of syscallRec fields (ERRATA 6)
 * followed by its data; its extent is its Size, and the arrays its FPs
 * point to must lie in the data area [56, Size) after the fields (an FP
 * equal to Size is an empty array at the end). The execution records of
 * a call are rec->BeginEID (entry) and rec->EndEID (exit or skipped exit,
 * -1 when the call never returned): pass them to umt_exec_get().
 */

/** Syscall records (0 for NULL). */
UMT_API uint64_t umt_syscall_count(const umt_trace *t);

/** A checked view of one syscall record. */
typedef struct umt_syscall {
	const umt_syscall_rec *rec; /**< fixed fields, in the mapping */
	uint64_t id; /**< syscall record ID */
	uint64_t offset;            /**< of the record in syscall.vtable */
	uint64_t size;              /**< Size of its (Offset, Size) pair */
	const uint8_t *args;        /**< rec->ArgCount little-endian i64 values (unaligned) */
	const uint8_t *extras;      /**< raw extras bytes (undocumented format, spec 8.3) */
	uint64_t extras_size;       /**< from ExtrasFP to the end of the record */
	int args_fp_absolute;       /**< 1 when ArgsFP had to be read as absolute (ERRATA 7) */
} umt_syscall;

/**
 * Syscall record @p id through its (Offset, Size) pair, in O(1).
 *
 * Checks: Offset and Size non-negative, Offset + Size without overflow,
 * the record after the 16-byte header and inside syscall.vtable, Size at
 * least 56; ArgsFP + 8 * ArgCount inside the data area, ArgsFP read
 * relative to the record (spec 8.4) or, when only that reading fits, as an
 * absolute offset (ERRATA 7; out->args_fp_absolute is then 1); ExtrasFP
 * inside the data area. ExtraCount is not checked (the extras format is
 * undocumented).
 * @return 0; UMT_E_INVAL (NULL argument); UMT_E_RANGE (id >= count);
 *   UMT_E_BOUNDS (bad Offset or Size, ArgsFP or ExtrasFP outside the
 *   record, ArgCount too large for the record); UMT_E_TRUNCATED (Size < 56).
 */
UMT_API int umt_syscall_get(const umt_trace *t, uint64_t id, umt_syscall *out);

/**
 * Argument @p i of @p s (0 <= i < ArgCount), zero-extended for 32-bit
 * calls. @return 0; UMT_E_INVAL (NULL argument), UMT_E_RANGE.
 */
UMT_API int umt_syscall_arg(const umt_syscall *s, unsigned i, uint64_t *value);

/**
 * The syscall record of an entry, exit or skipped-exit record (types 4, 5,
 * 6), through its SyscallID.
 * @return 0; UMT_E_INVAL (NULL argument, other record type); UMT_E_NO_VALUE
 *   (SyscallID -1 on an exit: no matching entry); UMT_E_BOUNDS (SyscallID
 *   outside the syscall table, -1 on an entry or skipped exit included);
 *   errors of umt_syscall_get().
 */
UMT_API int umt_rec_syscall(const umt_trace *t, const umt_rec *r, umt_syscall *out);

/* ==== 11. Modules ========================================================== */
/* (section owner: src/module.c) */

/** Rows of module.itable (0 for NULL). */
UMT_API uint64_t umt_module_count(const umt_trace *t);

/**
 * Row @p id of module.itable, stepping by the header's RowSize (48, or 64
 * with the 2015 fields). Its name FPs are checked by the name functions.
 * @return 0 and *row pointing into the mapping; UMT_E_INVAL; UMT_E_RANGE
 *   (id >= count).
 */
UMT_API int umt_module_get(const umt_trace *t, uint64_t id, const umt_module_rec **row);

/**
 * Row @p id with the 2015 fields (LastFileWriteTime, VersionInfo; ERRATA 4).
 * @return 0; UMT_E_INVAL; UMT_E_RANGE; UMT_E_NO_VALUE when RowSize < 64
 *   (pre-2015 48-byte rows have no such fields).
 */
UMT_API int umt_module_get_2015(const umt_trace *t, uint64_t id,
                                const umt_module_rec_2015 **row);

/** Which name of a module. */
enum umt_module_name { UMT_MODULE_WIN_NAME = 0, UMT_MODULE_DEVICE_NAME = 1 };

/**
 * A module name as a checked uStr: its FP is absolute (spec 9) and its
 * Length field, Length units and terminating unit all lie inside the extra
 * area [ExtraFP, ExtraFP + ExtraSize); Length is at least 0. The value of
 * the terminating unit is not checked: Length is authoritative.
 * @param units receives the Length code units: 2 * Length bytes of
 *   UTF-16LE at any alignment (read them bytewise, or convert them with
 *   umt_utf16_to_utf8()); valid until umt_trace_close().
 * @param count receives Length.
 * @return 0; UMT_E_INVAL (NULL argument, bad @p which); UMT_E_RANGE (id >=
 *   count); UMT_E_BOUNDS (FP outside the area, negative Length, Length
 *   running past the area).
 */
UMT_API int umt_module_name_utf16(const umt_trace *t, uint64_t id, int which,
                                  const uint8_t **units, size_t *count);

/**
 * A module name converted to UTF-8 into @p buf as umt_utf16_to_utf8() does
 * (always NUL-terminated when @p size > 0, "" on error).
 * @return the UTF-8 length it needs without the NUL (like snprintf), or a
 *   negative error as umt_module_name_utf16().
 */
UMT_API long umt_module_name(const umt_trace *t, uint64_t id, int which, char *buf, size_t size);

/**
 * Converts @p n UTF-16LE code units (any uStr) at @p units to UTF-8 in
 * @p out. Units are read bytewise (no alignment needed). Surrogate pairs
 * are combined; unpaired surrogates (a lone low one, a high one not
 * followed by a low one, a high one at the end) become U+FFFD. A unit 0
 * becomes a NUL byte. When @p cap is too small, only whole characters are
 * written, as many as fit before the NUL. @p out may be NULL when @p cap is 0.
 * @return the UTF-8 length needed without the NUL (like snprintf); @p out
 *   receives as much as fits, NUL-terminated when @p cap > 0.
 */
UMT_API size_t umt_utf16_to_utf8(const void *units, size_t n, char *out, size_t cap);

/**
 * FILETIME (100 ns ticks since 1601-01-01 UTC) to Unix time: whole seconds
 * since 1970 (negative before 1970, rounded down) and nanoseconds in
 * [0, 1e9). Either output may be NULL.
 */
UMT_API void umt_filetime_to_unix(uint64_t filetime, int64_t *sec, uint32_t *nsec);

/**
 * The module containing @p address at record @p eid: StartAddr <= address
 * <= EndAddr and LoadEID <= eid < UnloadEID (UnloadEID -1: never
 * unloaded). Addresses and EIDs are compared as unsigned 64-bit values.
 * Modules load and unload over time and can reuse addresses.
 *
 * Which to use: for the code an instruction record executed,
 * umt_ins_module() of its row, exact and without a lookup; this function
 * for any other address (memory operands and context blocks, pointers in
 * registers, syscall arguments, return addresses, branch targets). LoadEID
 * and UnloadEID are approximate ("the approximate ID of the execution record
 * about to be recorded at that point", spec 9): within a few records of a
 * load or an unload the answer can be the module before or after. For the
 * address of floating code (ModuleID -1) it may still find a module whose
 * range holds it (code written into a module's memory).
 *
 * The first call
 * builds an index (O(n log n) time and memory, under the trace's lock,
 * thread-safe); every lookup then takes O(log n). When several modules
 * match (overlapping rows of a corrupt table), one of them is returned.
 * @return 0 and *module_id; UMT_E_INVAL; UMT_E_NOT_FOUND; UMT_E_NOMEM (the
 *   index could not be built; a later call tries again).
 */
UMT_API int umt_module_find(const umt_trace *t, uint64_t address, uint64_t eid,
                            uint64_t *module_id);

/**
 * The module of instruction @p ins_id: its insRec.ModuleID, checked. The
 * tracer sets it when it instruments the code, and a row is one
 * instrumentation of code at an address (spec 7.1): code instrumented
 * again (instrumentation turned off and on, code that changed, a module
 * loaded again at the same address) gets new rows. So this is the module
 * of every record that executes the row, whenever it runs; use
 * umt_module_find() for addresses that are not the row's own.
 * @return 0 and *module_id; UMT_E_INVAL; UMT_E_RANGE (ins_id >= count);
 *   UMT_E_NOT_FOUND (ModuleID -1: floating code); UMT_E_BOUNDS (ModuleID
 *   outside the module table).
 */
UMT_API int umt_ins_module(const umt_trace *t, uint64_t ins_id, uint64_t *module_id);

/* ==== 12. Thread table ===================================================== */
/* (section owner: src/thread.c) */

/** Rows of thread.itable (0 for NULL). */
UMT_API uint64_t umt_thread_count(const umt_trace *t);

/**
 * Row @p id of thread.itable, stepping by the header's RowSize (40 or 48).
 * @return 0 and *row pointing into the mapping; UMT_E_INVAL, UMT_E_RANGE.
 */
UMT_API int umt_thread_get(const umt_trace *t, uint64_t id, const umt_thread_rec **row);

/**
 * The first thread row whose WinTID is @p win_tid (Windows reuses TIDs:
 * later rows may share it). A linear scan: thread tables are small.
 * @return 0 and *id; UMT_E_INVAL, UMT_E_NOT_FOUND.
 */
UMT_API int umt_thread_find_win_tid(const umt_trace *t, int32_t win_tid, uint64_t *id);

/* ==== 13. Address space ==================================================== */
/* (section owner: src/address_space.c) */

/** Rows of address_space.itable (0 for NULL). */
UMT_API uint64_t umt_address_range_count(const umt_trace *t);

/** Row @p id of address_space.itable. @return 0; UMT_E_INVAL, UMT_E_RANGE. */
UMT_API int umt_address_range_get(const umt_trace *t, uint64_t id,
                                  const umt_address_range **row);

/**
 * Whether @p address lies in a used range [First, Last], by binary search
 * over the ranges in O(log n), comparing as unsigned 64-bit values. Valid
 * tables are sorted and disjoint (umt_verify() checks it); on a corrupt
 * table the answer may be wrong, but the search never reads outside the
 * table and always ends.
 * @return 1 with *id (may be NULL) the range; 0 when not; UMT_E_INVAL.
 */
UMT_API int umt_address_space_find(const umt_trace *t, uint64_t address, uint64_t *id);

/* ==== 14. trace.xml metadata =============================================== */
/* (section owner: src/meta.c) */

/*
 * trace.xml is parsed lazily, on the first umt_trace_meta() call, not by
 * umt_trace_open(): opening stays O(1), and a broken trace.xml never blocks
 * the binary tables. The parse keeps a copy of every leaf element (path and
 * text) and frees the libxml2 document at once.
 *
 * Parsing is strict and closed: libxml2 with recovery off, no network
 * (XML_PARSE_NONET), no entity substitution, no DTD loading. An external
 * entity is never read and an entity reference stays "&name;" in the text;
 * internal entity loops (billion laughs) are libxml2 errors, never expanded.
 * Input is limited to UMT_META_MAX_SIZE bytes, the copied paths and texts to
 * UMT_META_MAX_COPY bytes. libxml2's global settings are left alone (an
 * application may use libxml2 too) and do not apply: options are set per
 * parser context (an application's xmlSubstituteEntitiesDefault(1) or
 * xmlLoadExtDtdDefaultValue changes nothing here), errors go to a handler of
 * that context and nothing is printed; xmlInitParser() is called once.
 *
 * Both real layouts are read (ERRATA 18, 19): the 2015 file under one
 * TraceMetaData root, and the older root-less file (several top-level
 * elements after the XML declaration, sometimes on one line). The root-less
 * form is detected by libxml2's "Extra content at the end of the document"
 * and parsed again with its content wrapped in a synthetic element
 * "umtrace-root" (which a message about an element left open at the end of
 * the file names); line and column numbers in messages stay the file's own.
 * The wrapped form must be in an ASCII-compatible encoding (UTF-8 in real
 * traces) and cannot hold a DOCTYPE.
 *
 * Element names are matched case-insensitively (real files have HasXMM and
 * hasYMM); unknown elements are kept and appear among the leaves.
 * Attributes, comments, processing instructions and the text of elements
 * that have child elements are ignored. Texts are returned as written
 * (predefined and character references decoded by libxml2, whitespace kept);
 * the numbers of umt_meta_get_info() allow surrounding whitespace.
 */

/** Parsed trace.xml: its leaf elements by path. */
typedef struct umt_meta umt_meta;

/** Layout of a trace.xml (ERRATA 18, 19). */
enum umt_meta_layout {
	UMT_META_NONE = 0,     /**< no trace.xml */
	UMT_META_ROOTLESS = 1, /**< pre-2015: top-level elements without a common root */
	UMT_META_2015 = 2      /**< one TraceMetaData root (any case) */
};

/** Largest trace.xml parsed (4 MiB); a larger one is UMT_E_XML, not an allocation. */
#define UMT_META_MAX_SIZE (4u << 20)
/** Largest total of copied leaf paths and texts (16 MiB), against deep nesting. */
#define UMT_META_MAX_COPY (4u * UMT_META_MAX_SIZE)

/**
 * Parses a trace.xml held in memory (either layout, as described above);
 * used by umt_trace_meta(), and usable on its own (fuzzing, tools). @p name
 * names the input in messages (NULL: "trace.xml"). Nothing is kept pointing
 * into @p xml.
 * @return 0 and *out set (free it with umt_meta_free());
 *   UMT_E_XML: malformed ("trace.xml: line 3, column 7: <libxml2's
 *   message>"; an empty input is "Document is empty"), larger than
 *   UMT_META_MAX_SIZE, text outside the top-level elements of a root-less
 *   file, or leaves needing more than UMT_META_MAX_COPY bytes;
 *   UMT_E_NOMEM; UMT_E_INVAL (xml or out NULL).
 */
UMT_API int umt_meta_parse(const void *xml, size_t size, const char *name, umt_meta **out);

/** Frees what umt_meta_parse() returned; NULL is allowed. */
UMT_API void umt_meta_free(umt_meta *m);

/**
 * The metadata of trace @p t, parsed on the first call (thread-safe: one
 * parse under the trace's lock, then a lock-free pointer load) and kept until
 * umt_trace_close(); every successful call returns the same pointer. Without
 * a trace.xml this succeeds with an empty metadata (layout UMT_META_NONE,
 * no leaves) whose lookups all say unknown.
 * @return 0 and *out set; UMT_E_XML as umt_meta_parse() for a malformed or
 *   oversized trace.xml: the failure is remembered, and every later call
 *   returns UMT_E_XML with the same message (the binary tables stay
 *   readable); UMT_E_NOMEM (not remembered: a later call retries);
 *   UMT_E_INVAL.
 */
UMT_API int umt_trace_meta(const umt_trace *t, const umt_meta **out);

/** The layout of @p m (enum umt_meta_layout), or UMT_E_INVAL for NULL. */
UMT_API int umt_meta_layout(const umt_meta *m);

/**
 * Text of the first leaf, in document order, at @p path ("Xed/Version"),
 * compared case-insensitively, in either layout: "Xed/Version" finds
 * /Xed/Version and /TraceMetaData/Xed/Version; a leading '/' is allowed, and
 * a full 2015 path ("TraceMetaData/Xed/Version") works too. The text is owned
 * by @p m. @return the text ("" for an empty element); NULL when absent,
 * when the element is not a leaf, or for NULL arguments.
 */
UMT_API const char *umt_meta_get(const umt_meta *m, const char *path);

/** Number of leaf elements (elements without child elements); 0 for NULL. */
UMT_API size_t umt_meta_leaf_count(const umt_meta *m);

/**
 * Leaf @p i in document order: its path from the top of the document
 * ("/TraceMetaData/Xed/Version" in a 2015 file, "/Xed/Version" in a
 * root-less one; elements with a namespace prefix as "prefix:name") and its
 * text, both owned by @p m. @p path and @p text may be NULL.
 * @return 0; UMT_E_RANGE (i >= umt_meta_leaf_count()); UMT_E_INVAL.
 */
UMT_API int umt_meta_leaf(const umt_meta *m, size_t i, const char **path, const char **text);

/**
 * The essentials of trace.xml, looked up with umt_meta_get(); strings NULL
 * and numbers -1 when absent or not a number. The format versions are looked
 * up under UMTracer/... (pre-2015) and then RawTrace/UMTracer/... (2015).
 */
typedef struct umt_meta_info {
	int layout;                  /**< enum umt_meta_layout */
	const char *xed_version;     /**< Xed/Version as written */
	int64_t xed_date;            /**< 20150121 when it is an 8-digit date (>= 19000000), else -1 */
	int xed_is_pin_build;        /**< 1 when it is a Pin build number (56759): digits, < 19000000 */
	int64_t xed_number;          /**< the date or the Pin build number, else -1: what
	                                  umt_xed_special_reg() and umt_xed_reg_name() take */
	const char *process_id;      /**< App/ProcessID */
	int64_t pid;                 /**< its value (non-negative) */
	int bitness;                 /**< App/Bitness: 32 or 64, else -1 */
	const char *app_command_line; /**< App/CommandLine (&quot; already decoded) */
	const char *pin_version;     /**< Pin/Version ("2.12.56759") */
	const char *pin_command_line; /**< Pin/CommandLine */
	const char *pin_working_directory; /**< Pin/WorkingDirectory (2015) */
	const char *os_id;           /**< OS/Id ("06010110") */
	const char *os_name;         /**< OS/Name */
	int has_xmm; /**< CPU/HasXMM: 1 ("1", "true"), 0 ("0", "false"), -1 unknown */
	int has_ymm; /**< CPU/hasYMM, as has_xmm */
	int has_zmm; /**< CPU/hasZMM, as has_xmm */
	const char *raw_trace_date;  /**< RawTrace/DateTime (2015) */
	const char *umtracer_version; /**< RawTrace/UMTracer/Version, or UMTracer/Version */
	int ins_format_version;      /**< UMTracer/Ins/Format/Version (insRec RecordVer) */
	int ins_begin_record_version; /**< UMTracer/Ins/BeginRecord/Version (pre-2015) */
	int exec_format_version;     /**< UMTracer/Exec/Format/Version (exec.vtable Version) */
	int syscall_table_version;   /**< UMTracer/Exec/SyscallTable/Version (pre-2015) */
} umt_meta_info;

/** Fills @p out from @p m (pointers owned by @p m). @return 0; UMT_E_INVAL. */
UMT_API int umt_meta_get_info(const umt_meta *m, umt_meta_info *out);

/**
 * Cross-checks trace.xml against the binary headers, for each value present
 * in trace.xml: UMTracer/Exec/SyscallTable/Version against syscall.vtable
 * UnifiedIDsVer (the header is authoritative, ERRATA 21), Exec/Format/Version
 * against exec.vtable Version, Ins/Format/Version against ins.itable
 * RecordVer (under UMTracer/ or RawTrace/UMTracer/). Parses trace.xml on
 * first use, as umt_trace_meta().
 * @return 0 when consistent, or when trace.xml or the value is absent;
 *   UMT_E_CORRUPT for the first disagreement, or a value that is not a
 *   number, with a message naming both files, the element and both values
 *   ("trace.xml: /UMTracer/Exec/SyscallTable/Version is 1 but syscall.vtable
 *   UnifiedIDsVer is 0"); UMT_E_XML, UMT_E_NOMEM as umt_trace_meta();
 *   UMT_E_INVAL.
 */
UMT_API int umt_trace_meta_check(const umt_trace *t);

/* ==== 15. Names for numeric IDs ============================================ */
/* (section owner: src/names.c) */

/*
 * Registers are always named, without any external file: the operand names
 * MEM0, MEM1, AGEN; STACKPUSH, STACKPOP, FSBASE, GSBASE at their value for
 * the trace's XED version; the trace's context map; a built-in copy of the
 * XED 20150121 register enum.
 *
 * XED versions (ERRATA 17): a version is a date (20150121) or, in early
 * traces, a Pin build number (56759, anything below 19000000). Registers up
 * to GSBASE sit 6 lower in XED 20140106 than in 20150121 (GSBASE 135, not
 * 141). This library uses the older numbering for every date before
 * 20150121 (20131119 and 20140106 are those seen) and every Pin build
 * number, and the 20150121 numbering for later dates and unknown versions
 * (-1). Under the older numbering the built-in table names only registers
 * 0 to GSBASE: the errata vouch for nothing above.
 *
 * Mnemonics, forms, categories, registers of any XED version and syscall
 * unified IDs come from the C headers shipped with the format documentation,
 * loaded at run time (umt_names_load_dir(), umt_enum_load()).
 */

/** Longest register name umt_reg_name() writes, with its NUL. */
#define UMT_REG_NAME_MAX 24

/** Version-dependent register names (ERRATA 17). */
enum umt_special_reg {
	UMT_SPECIAL_STACKPUSH = 0,
	UMT_SPECIAL_STACKPOP = 1,
	UMT_SPECIAL_FSBASE = 2,
	UMT_SPECIAL_GSBASE = 3
};

/**
 * Value of version-dependent register @p which (enum umt_special_reg) for
 * XED version @p xed_date: STACKPUSH 131, STACKPOP 132, FSBASE 140, GSBASE
 * 141 for 20150121, later dates and unknown versions (-1); 6 less for
 * earlier dates (20140106, 20131119) and Pin build numbers.
 * @return the value; UMT_E_INVAL for an unknown @p which.
 */
UMT_API int umt_xed_special_reg(int64_t xed_date, int which);

/**
 * Name of register @p reg for XED version @p xed_date, without a trace:
 * "mem0", "mem1", "agen" for UMT_REG_MEM0/MEM1/AGEN (the int16 RegName
 * values 0xffff, 0xfffe, 0xfffd, also accepted sign-extended as -1, -2,
 * -3); otherwise the built-in XED 20150121 table in lowercase ("rax" 74,
 * "stackpush" 131, "zmm31" 279), renumbered for older versions (see the
 * section preamble: "rax" is 68 there, nothing above GSBASE 135 is named).
 * @return a static string, or NULL when the register is unknown.
 */
UMT_API const char *umt_xed_reg_name(int64_t xed_date, int reg);

/**
 * Name of register @p reg in trace @p t, always available. In order:
 * "mem0", "mem1", "agen" (as umt_xed_reg_name()); "stackpush", "stackpop",
 * "fsbase", "gsbase" at their value for the trace's XED version (trace.xml
 * Xed/Version; unknown when absent, see the preamble); the context map's
 * StrName[reg] when not empty (16 bytes without NUL are 16 characters;
 * bytes outside printable ASCII are written as '?'); the built-in table for
 * the trace's XED version; "reg<N>" as a last resort. Writes into @p buf,
 * truncated to @p size bytes (UMT_REG_NAME_MAX always suffices).
 * @return @p buf; NULL when @p t or @p buf is NULL or @p size is 0.
 */
UMT_API const char *umt_reg_name(const umt_trace *t, int reg, char *buf, size_t size);

/** One loaded enumeration: values to names and back. */
typedef struct umt_enum umt_enum;

/**
 * Loads an enum from C header text in memory: the first enum defined in
 * it, or the one whose tag or typedef name is @p type_name (such as
 * "xed_iclass_enum_t"; NULL: the first). Accepts "typedef enum [tag] {...}
 * name;", "enum tag {...};" and C++ "enum class tag : type {...};";
 * skips // and block comments and preprocessor lines (not evaluated: both
 * branches of an #if are read) and everything outside the enum
 * (prototypes, other declarations). Constants take implicit sequential
 * values or "= expr" where expr combines decimal, 0x hex and 0 octal
 * literals (u/l suffixes allowed), constants defined earlier in the same
 * enum (aliases), unary - + ~, binary + -, and parentheses. Values are
 * 64-bit signed. At most 64 MiB of text (a UTF-8 byte order mark is
 * skipped); at most 63 nested parentheses or unary operators.
 * @p file names the text in messages (NULL: "<memory>").
 * @return 0 and *out set; UMT_E_CORRUPT with "FILE: line N: ..." for what
 *   cannot be parsed (unterminated comment, enum without '}' or ';', empty
 *   enum, bad or overflowing number or value, unknown constant, duplicate
 *   name, unsupported operator, NUL byte, more than 64 MiB); UMT_E_NOT_FOUND
 *   (no such enum); UMT_E_NOMEM; UMT_E_INVAL (NULL @p out, or NULL @p text
 *   with a non-zero size).
 */
UMT_API int umt_enum_parse(const char *text, size_t size, const char *file,
                           const char *type_name, umt_enum **out);

/**
 * Loads an enum from header file @p path, as umt_enum_parse() (messages
 * name the path). @return 0; the errors of umt_enum_parse(), plus UMT_E_IO
 * (missing or unreadable file, not a regular file) and UMT_E_CORRUPT for a
 * file over 64 MiB (checked before reading it).
 */
UMT_API int umt_enum_load(const char *path, const char *type_name, umt_enum **out);

/** Frees an enum; NULL is allowed. */
UMT_API void umt_enum_free(umt_enum *e);

/** Number of constants, aliases included (0 for NULL). */
UMT_API size_t umt_enum_count(const umt_enum *e);

/**
 * The common prefix umt_enum_name() leaves out: the longest prefix ending
 * in '_' shared by every constant and shorter than each ("XED_ICLASS_");
 * "" when there is none or the names start "SYSCALL_" (syscall unified IDs
 * are kept whole). NULL for NULL. Valid until umt_enum_free().
 */
UMT_API const char *umt_enum_prefix(const umt_enum *e);

/**
 * Constant @p index in definition order (0 <= index < umt_enum_count()):
 * its name without the prefix and its value; @p name and @p value may be
 * NULL. The name is valid until umt_enum_free().
 * @return 0; UMT_E_INVAL (NULL @p e), UMT_E_RANGE.
 */
UMT_API int umt_enum_entry(const umt_enum *e, size_t index, const char **name,
                           int64_t *value);

/**
 * Name of @p value without the common prefix ("MOV" for XED_ICLASS_MOV;
 * syscall names are kept whole). When several constants share the value,
 * the first defined wins (XED_REG_RAX, not the later alias
 * XED_REG_GPR64_FIRST), except that a name ending in "_LAST" gives way to
 * a later constant that is neither a sentinel nor an alias. O(1): a dense
 * array indexed by value - min when the values span at most 4 slots per
 * constant (+1024), as every XED and syscall enum does; otherwise a binary
 * search of the sorted values, O(log n).
 * @return the name, valid until umt_enum_free(); NULL when no constant has
 *   that value or @p e is NULL.
 */
UMT_API const char *umt_enum_name(const umt_enum *e, int64_t value);

/**
 * Value of constant @p name, given whole ("XED_ICLASS_MOV") or without the
 * prefix ("MOV"); case-sensitive; a whole name is tried first. O(log n)
 * (binary search of the names sorted once at load).
 * @return 0 and *value set; UMT_E_NOT_FOUND; UMT_E_INVAL (NULL argument).
 */
UMT_API int umt_enum_value(const umt_enum *e, const char *name, int64_t *value);

/** The name tables of a format-documentation directory. */
typedef struct umt_names umt_names;

/** Tables held by umt_names. */
enum umt_names_table {
	UMT_NAMES_REG = 0,      /**< xed-reg-enum.h: xed_reg_enum_t */
	UMT_NAMES_ICLASS = 1,   /**< xed-iclass-enum.h: xed_iclass_enum_t, mnemonics */
	UMT_NAMES_IFORM = 2,    /**< xed-iform-enum.h: xed_iform_enum_t, forms */
	UMT_NAMES_CATEGORY = 3, /**< xed-category-enum.h, else xed-icategory-enum.h (spec 14.1) */
	UMT_NAMES_SYSCALL0 = 4, /**< syscall_unified_id_v0.h: its first enum */
	UMT_NAMES_SYSCALL1 = 5, /**< syscall_unified_id_v1.h: its first enum */
	UMT_NAMES_COUNT
};

/**
 * Loads every table found in directory @p dir; missing files leave their
 * table absent, but at least one must load. The XED headers are read from
 * @p dir itself, or, when it holds none of them, from its subdirectory
 * named "XED..." with the latest 8-digit date ("XED v20150121", the
 * documentation's layout). An XED header whose enum does not carry the
 * XED type name gives its first enum. The XED version of the tables is the
 * 8-digit date in the name of the directory they came from, else deduced
 * from the register enum (XED_REG_GSBASE 141: 20150121, 135: 20140106),
 * else unknown (-1).
 * @return 0 and *out set; UMT_E_NOT_FOUND (no such directory, or no table
 *   in it); UMT_E_CORRUPT (a header that cannot be parsed, or holds no
 *   enum: the message names the file and line); UMT_E_IO (not a directory,
 *   unreadable file); UMT_E_NOMEM; UMT_E_INVAL (NULL argument).
 */
UMT_API int umt_names_load_dir(const char *dir, umt_names **out);

/** Frees @p n; NULL is allowed. */
UMT_API void umt_names_free(umt_names *n);

/** The table @p which (enum umt_names_table), or NULL when it was not loaded. */
UMT_API const umt_enum *umt_names_table(const umt_names *n, int which);

/** XED version of the loaded tables (20150121), or -1 when unknown or for NULL. */
UMT_API int64_t umt_names_xed_date(const umt_names *n);

/**
 * Checks the tables against trace @p t. The trace's XED version (trace.xml
 * Xed/Version) must not be newer than the tables' (spec 13: their
 * constants would be wrong); an older one is accepted (newer XED tables are
 * supersets, though values may have moved: see the preamble for
 * registers). Not checked when either version is unknown; a Pin build
 * number counts as older than any date. Then the syscall table of the
 * trace's UnifiedIDsVer must be loaded.
 * @return 0; UMT_E_VERSION (trace XED newer, the message names both
 *   versions); UMT_E_NOT_FOUND (syscall_unified_id_vN.h of the trace's
 *   version not loaded); UMT_E_INVAL (NULL argument).
 */
UMT_API int umt_names_check(const umt_names *n, const umt_trace *t);

/**
 * Names of insRec Mnemonic (xed_iclass), Form (xed_iform) and Category
 * (xed_category) values, without the XED_ICLASS_ / XED_IFORM_ /
 * XED_CATEGORY_ prefix ("MOV", "MOV_GPRv_MEMv", "DATAXFER"), valid until
 * umt_names_free(); NULL when the table is absent or the value unknown.
 */
UMT_API const char *umt_names_mnemonic(const umt_names *n, int value);
UMT_API const char *umt_names_form(const umt_names *n, int value);
UMT_API const char *umt_names_category(const umt_names *n, int value);
/**
 * Name of syscall unified ID @p value in table version @p ids_version (0 or
 * 1, the trace's UnifiedIDsVer), whole ("SYSCALL_NtClose_0500_1"); NULL
 * when the table is absent, the version is not 0 or 1, or the ID unknown.
 */
UMT_API const char *umt_names_syscall(const umt_names *n, int ids_version, int value);

/* ==== 16. Consistency check: umt_verify() ================================ */
/* (section owner: src/verify.c) */

/*
 * umt_verify() checks what open and the accessors leave out because it
 * needs a whole pass: order, cross references between tables, thread
 * chains, the rules of decoded instructions and MEM0 addresses.
 * docs/verify.md lists every check with its class, file and severity.
 * Problems an accessor would also refuse are reported with the accessor's
 * own message and location; a trace verify passes without errors has no
 * record, chain, row or name that an accessor refuses.
 */

/** Classes of checks, to select them and to classify problems. */
enum umt_check {
	UMT_CHECK_EXEC = 1u << 0,        /**< records: extents, types, thread and instruction
	                                      IDs, LC lengths, contexts, syscall IDs,
	                                      thread-begin first, application end last */
	UMT_CHECK_LINKS = 1u << 1,       /**< exec.prev_next.column and the threads' chains
	                                      against their rows (FirstEID, LastEID, RecCount) */
	UMT_CHECK_INS = 1u << 2,         /**< instruction rows, strings, decoded bodies */
	UMT_CHECK_MEM0 = 1u << 3,        /**< stored MEM0 addresses against their phrase
	                                      (warnings, ERRATA 13) */
	UMT_CHECK_SYSCALLS = 1u << 4,    /**< syscall records and their entry/exit records */
	UMT_CHECK_MODULES = 1u << 5,     /**< module rows and names */
	UMT_CHECK_THREADS = 1u << 6,     /**< thread rows on their own */
	UMT_CHECK_ADDRESS_SPACE = 1u << 7, /**< ranges page-aligned, sorted, disjoint */
	UMT_CHECK_XML = 1u << 8,         /**< trace.xml well-formed, consistent with the headers */
	UMT_CHECK_CONTEXT_MAP = 1u << 9, /**< context map: regInfo inside DumpSize, registers
	                                      inside their largest, names inside the map */
	UMT_CHECK_ALL = (1u << 10) - 1
};

/** How serious a problem is. */
enum umt_severity {
	UMT_SEVERITY_ERROR = 0,  /**< the trace is inconsistent */
	UMT_SEVERITY_WARNING = 1 /**< suspicious but possible in real traces (tracer races) */
};

/** One problem found by umt_verify(). */
typedef struct umt_problem {
	int status;          /**< UMT_E_* code of the problem */
	int severity;        /**< enum umt_severity */
	unsigned check;      /**< the UMT_CHECK_* class (one bit) */
	int file;            /**< umt_file_id of the file at fault */
	int64_t id;          /**< record or row ID, -1 when none (a header, trace.xml) */
	uint64_t offset;     /**< byte offset in that file (0 for trace.xml) */
	const char *message; /**< "FILE: record N at offset 0x..: what", as umt_errmsg() words
	                          it; valid during the callback */
} umt_problem;

/** Options of umt_verify(); start from umt_verify_options_init(). */
typedef struct umt_verify_options {
	unsigned checks;       /**< UMT_CHECK_* to run (default UMT_CHECK_ALL) */
	uint64_t max_problems; /**< stop after this many problems (default 1000; 0: no cap) */
	/** Called for each problem; a nonzero return stops the check. May be NULL. */
	int (*on_problem)(const umt_problem *p, void *ctx);
	/**
	 * Called with work done and total, in units of one table row or one
	 * execution record of the selected checks: (0, total) first, then about
	 * every 2^20 units, then (total, total) unless the check stopped early.
	 * May be NULL.
	 */
	void (*on_progress)(uint64_t done, uint64_t total, void *ctx);
	void *ctx;             /**< passed to both callbacks */
} umt_verify_options;

/** What umt_verify() found. */
typedef struct umt_verify_result {
	uint64_t errors;   /**< problems of severity error */
	uint64_t warnings; /**< problems of severity warning */
	uint64_t records;  /**< execution records checked */
	int stopped;       /**< 1 when the max_problems-th problem or on_problem ended the check */
} umt_verify_result;

/** Sets @p o to the defaults: every check, at most 1000 problems, no callbacks. NULL is allowed. */
UMT_API void umt_verify_options_init(umt_verify_options *o);

/**
 * The full O(n) consistency check of @p t (docs/verify.md lists the checks).
 * Reports every problem through o->on_problem with file, record or row and
 * offset. One sequential pass over the execution records; memory is
 * O(threads) plus a fixed cache, independent of the record count. Tables
 * are checked first (trace.xml, context map, threads, modules, address
 * space, instructions, syscalls), the execution records last. In a trace
 * opened with UMT_OPEN_SALVAGE, each file reduced or lost at open is first
 * reported as an error of its class ("FILE: reduced at open: why"), and
 * what it lost is not reported again record by record (a lost thread row, a
 * lost exec.prev_next.column: the chains are then not checked).
 * @p o may be NULL for the defaults; @p out may be NULL.
 * @return 0 when no error was found (warnings allowed; also when the check
 *   stopped early before any error); UMT_E_CORRUPT when errors were found
 *   (umt_errmsg() counts them and quotes the first); UMT_E_INVAL (NULL
 *   @p t, an unknown bit in o->checks), UMT_E_NOMEM, UMT_E_IO (mapping
 *   exec.prev_next.column failed) when the check itself could not run.
 */
UMT_API int umt_verify(const umt_trace *t, const umt_verify_options *o, umt_verify_result *out);

/* ==== 17. Writer ========================================================== */

/*
 * The writer produces a complete trace directory from calls in any order
 * (records, instruction rows, syscalls, tables), streaming the big files;
 * memory use is independent of the record count.
 *
 * Committing. Every file is written under a temporary name in the trace
 * directory (".NAME.tmp-XXXXXX"; the instruction table's two spill files
 * are unlinked as soon as they are created) and nothing under a final name
 * changes before umt_writer_finish() commits:
 *   1. fsync every temporary;
 *   2. unlink the old exec.vtable (the commit record: from here on the
 *      directory opens as UMT_E_INCOMPLETE); 3. fsync the directory;
 *   4. rename every other temporary over its final name (an old trace.xml
 *      the new trace does not have is unlinked); 5. fsync the directory;
 *   6. rename exec.vtable into place (the new trace is complete);
 *   7. fsync the directory.
 * Whatever moment a writer dies at, the directory opens as the complete old
 * trace (before step 2), as the complete new one (from step 6), or in
 * between fails with UMT_E_INCOMPLETE; never as a mix. Final names are
 * replaced by rename, never rewritten: a process that has the old trace
 * open keeps its files and reads the old trace unchanged (its
 * umt_trace_changed() says 1). Leftover temporaries of a killed writer are
 * ignored by umt_trace_open() and removed by the next umt_writer_open() of
 * that directory. While a writer is open it holds an exclusive flock() on
 * the directory: a second writer of the same directory fails with UMT_E_IO.
 *
 * Failures. Every call checks all its arguments (sizes, counts and IDs with
 * overflow-checked arithmetic against the limits below) before it changes
 * anything: a call that fails with UMT_E_INVAL or UMT_E_NOMEM leaves the
 * writer exactly as it was, and the trace is finished as if the call had not
 * been made. An UMT_E_IO during an append (a full disk) cannot
 * be taken back: the writer is then failed, every later call returns that
 * UMT_E_IO again (message "FN: an earlier call failed, the writer must be
 * aborted: ..."), and umt_writer_finish() returns it and commits nothing.
 * umt_writer_finish() and umt_writer_abort() release the writer in all
 * cases; neither leaves a temporary behind, and unless finish succeeds the
 * directory holds the old trace (or nothing), unchanged.
 *
 * Strings for trace.xml (umt_writer_xml, xml_text) must be UTF-8 holding
 * only characters XML 1.0 allows: umt_writer_open() refuses C0 control
 * characters other than TAB, LF and CR, U+FFFE, U+FFFF and invalid UTF-8
 * (overlong forms, surrogates, stray continuation bytes) with UMT_E_INVAL
 * rather than altering them, since XML 1.0 cannot represent them even as
 * character references. The other characters are written so that
 * umt_trace_meta() returns each string unchanged ('&', '<', '>', '"' and
 * CR as references; TAB, LF, DEL as they are). xml_text is written verbatim:
 * its characters are checked, its well-formedness is the caller's.
 */

/** A trace being written. Memory use is independent of the record count. */
typedef struct umt_writer umt_writer;

/** Syscall IDs the writer accepts are below this (2^32). The syscall index is
 *  kept in memory, 16 bytes per ID up to the largest ID written. */
#define UMT_WRITER_SYSCALL_ID_LIMIT ((int64_t)1 << 32)
/** Largest local context of an instruction record: decodedIns LCSize is 16-bit. */
#define UMT_WRITER_MAX_LC 65535u
/** Largest umt_writer_options.buffer_size (1 GiB). */
#define UMT_WRITER_MAX_BUFFER ((size_t)1 << 30)

/** Trace flavours the writer produces. */
enum umt_flavour {
	UMT_FLAVOUR_2015 = 0, /**< exec v1, insRec v1, 64-byte modules, TraceMetaData trace.xml */
	UMT_FLAVOUR_2014 = 1  /**< exec v0, insRec v0, 48-byte modules, root-less trace.xml */
};

/** trace.xml metadata written by the writer; NULL strings are omitted. */
typedef struct umt_writer_xml {
	const char *xed_version;      /**< e.g. "20150121" */
	const char *process_id; /**< App/ProcessID */
	const char *bitness;          /**< "32" or "64" */
	const char *app_command_line; /**< App/CommandLine */
	const char *os_id; /**< OS/Id */
	const char *os_name; /**< OS/Name */
	const char *pin_version; /**< Pin/Version */
	const char *pin_command_line; /**< Pin/CommandLine */
	const char *has_xmm; /**< CPU/HasXMM, "1" or "0" */
	const char *has_ymm; /**< CPU/hasYMM */
	const char *has_zmm; /**< CPU/hasZMM */
	const char *raw_trace_date;   /**< 2015 layout only */
	const char *umtracer_version; /**< 2015 layout only */
} umt_writer_xml;

/** Writer options; start from umt_writer_options_init(). */
typedef struct umt_writer_options {
	int flavour;                 /**< enum umt_flavour */
	int32_t exec_version;        /**< exec.vtable Version: 0 or 1 */
	int32_t ins_record_version;  /**< insRec RecordVer: 0 or 1 */
	int32_t unified_ids_version; /**< syscall.vtable UnifiedIDsVer: 0 or 1 */
	uint32_t module_row_size;    /**< 48 or 64 */
	uint32_t thread_row_size;    /**< 40 or 48 */
	int write_trace_xml;         /**< 1: write trace.xml from xml (or xml_text); 0: none */
	int xml_root;                /**< 1: TraceMetaData root (2015); 0: root-less */
	umt_writer_xml xml;          /**< metadata for trace.xml */
	const char *xml_text;        /**< if not NULL, written verbatim as trace.xml (UTF-8) */
	size_t buffer_size;          /**< write chunk size (default 4 MiB, at least 64 KiB,
	                                  at most UMT_WRITER_MAX_BUFFER) */
} umt_writer_options;

/** Sets @p o to the defaults of @p flavour (a enum umt_flavour). */
UMT_API void umt_writer_options_init(umt_writer_options *o, int flavour);

/**
 * Starts writing a trace into directory @p dir (created if missing). A
 * trace already there stays intact until umt_writer_finish() replaces it
 * (see Committing above); leftover temporaries of a killed writer are
 * removed. @p o may be NULL for the 2015 defaults. Options are checked
 * before anything happens on disk.
 * @return 0 and *out; UMT_E_INVAL (NULL dir or out, a version or row size
 *   not listed in umt_writer_options, buffer_size above
 *   UMT_WRITER_MAX_BUFFER, a trace.xml string refused as described above:
 *   the message names the field and the byte); UMT_E_NOMEM; UMT_E_IO (the
 *   directory cannot be created or opened, another writer holds it, a
 *   temporary cannot be created, the I/O thread cannot start). On failure
 *   *out is NULL and the directory's trace is unchanged.
 */
UMT_API int umt_writer_open(const char *dir, const umt_writer_options *o, umt_writer **out);

/**
 * Checks the trace is complete (every syscall ID in [0, max] written),
 * writes the remaining tables and commits (see Committing above). Releases
 * @p w in all cases.
 * @return 0: the directory holds the new trace, durably. UMT_E_INVAL (NULL
 *   @p w); UMT_E_CORRUPT (a syscall ID below the largest was never written:
 *   nothing is committed, the old trace stays); UMT_E_IO: the sticky error
 *   of an earlier call, or a write, fsync or rename of finish itself failed
 *   - before step 2 the old trace stays, from step 2 on the directory opens
 *   as UMT_E_INCOMPLETE until a writer finishes there; UMT_E_NOMEM (nothing
 *   committed).
 */
UMT_API int umt_writer_finish(umt_writer *w);

/**
 * Releases @p w without committing: its temporaries are removed and the
 * directory keeps the trace it had before umt_writer_open(). NULL allowed.
 */
UMT_API void umt_writer_abort(umt_writer *w);

/**
 * Declares thread-table row *id (assigned in order from 0; @p id may be
 * NULL). FirstEID, LastEID and RecCount are computed from the records
 * written; LastEID is -1 unless the thread's last record is a thread-end or
 * application-end.
 * @return 0; UMT_E_INVAL (NULL @p w); UMT_E_NOMEM (also past 2^30 threads);
 *   UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_thread(umt_writer *w, int32_t win_tid, int64_t tib_addr,
                                  int32_t *id);

/** A register context for the writer: dump (DumpSize bytes) and memory blocks. */
typedef struct umt_context_desc {
	const void *regs;          /**< register dump; NULL writes zeros */
	uint32_t regs_size;        /**< must be the context map's DumpSize, or 0 with regs NULL */
	const umt_mem_ref *mem;    /**< memory references (NULL only when mem_count is 0) */
	uint32_t mem_count; /**< entries of mem, at most INT32_MAX (MemCount is int32) */
} umt_context_desc;

/** One execution record for the writer. */
typedef struct umt_exec_desc {
	uint8_t type;                   /**< enum umt_rec_type */
	uint8_t flags;                  /**< UMT_EXEC_F_* */
	int32_t thread_id;              /**< declared thread row */
	int64_t ins_id;                 /**< type 0 */
	const void *lc;                 /**< type 0: local context bytes */
	uint64_t lc_size; /**< bytes at lc, at most UMT_WRITER_MAX_LC */
	int64_t syscall_id;             /**< types 4, 5, 6 */
	int32_t exit_code;              /**< types 2, 3 */
	const umt_context_desc *context; /**< types 1, 4, 5, 8-11; NULL: empty context */
} umt_exec_desc;

/**
 * Appends an execution record; its ID is the number of records before it.
 * Prev/next links and thread statistics are maintained automatically. The
 * whole record is checked before its first byte is written; field values
 * (ins_id, syscall_id, addresses) are stored as given, umt_verify() judges
 * them. Memory blocks may be of any size, the record up to 2^63 - 1 bytes.
 * @return 0 and *id (may be NULL); UMT_E_INVAL (NULL @p w or @p d, unknown
 *   type, undeclared thread, lc_size above UMT_WRITER_MAX_LC or lc NULL
 *   with lc_size > 0, regs_size not the context map's DumpSize, mem NULL
 *   with mem_count > 0, mem_count above INT32_MAX, a memory block with
 *   data NULL and size > 0, sizes whose sum overflows or ends past 2^63 in
 *   exec.vtable); UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_exec(umt_writer *w, const umt_exec_desc *d, uint64_t *id);

/**
 * Appends the bytes of one record verbatim (for converters and corrupt test
 * fixtures). Its thread chain is maintained when it has a 6-byte header
 * with a declared ThreadID.
 * @return 0 and *id (may be NULL); UMT_E_INVAL (NULL @p w, @p bytes NULL
 *   with @p size > 0, the record would end past 2^63 in exec.vtable);
 *   UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_exec_raw(umt_writer *w, const void *bytes, uint64_t size,
                                    uint64_t *id);

/**
 * Adds a disassembly cStr to the instruction extra area; *fp receives its
 * FP relative to ExtraFP, for umt_ins_rec.DisasmFP (strings may be shared).
 * @return 0; UMT_E_INVAL (NULL argument, longer than 32767 bytes);
 *   UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_disasm(umt_writer *w, const char *text, int64_t *fp);

/**
 * Adds a decodedIns and its d->LCCount slots to the extra area; *fp
 * receives its FP for umt_ins_rec.DecodedFP (bodies may be shared).
 * @return 0; UMT_E_INVAL (NULL @p w, @p d or @p fp, @p slots NULL with
 *   LCCount > 0); UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_decoded(umt_writer *w, const umt_decoded_ins *d,
                                   const umt_lc_slot *slots, int64_t *fp);

/**
 * Appends an instruction row: the 56 bytes of @p row, with its ID set to the
 * row number (returned in *id, which may be NULL), and 8 zero bytes (rows
 * are written 64 bytes long, as in real traces).
 * @return 0; UMT_E_INVAL (NULL @p w or @p row); UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_ins(umt_writer *w, const umt_ins_rec *row, int64_t *id);

/** One system call record for the writer. */
typedef struct umt_syscall_desc {
	int16_t raw_id; /**< RawID: OS-specific ordinal */
	int16_t uniform_id; /**< UniformID */
	uint8_t convention; /**< enum umt_syscall_convention */
	uint8_t completed; /**< 1 when the call returned normally */
	int64_t begin_eid; /**< entry record ID */
	int64_t end_eid; /**< exit or skipped-exit record ID, or -1 */
	int64_t before_sp; /**< stack pointer before the call */
	int64_t result; /**< return value (when completed) */
	const int64_t *args;   /**< arg_count values */
	uint8_t arg_count; /**< entries of args */
	const void *extras;    /**< extras_size raw bytes */
	uint64_t extras_size; /**< bytes at extras */
	uint8_t extra_count; /**< ExtraCount stored in the record */
	int args_fp_absolute;  /**< 1: store ArgsFP as an absolute offset (old readers, ERRATA 7) */
} umt_syscall_desc;

/**
 * Writes syscall record @p id. Records may be written in any order; the
 * table holds max(id) + 1 records and finish fails if one is missing.
 * @return 0; UMT_E_INVAL (NULL @p w or @p d, @p id negative or not below
 *   UMT_WRITER_SYSCALL_ID_LIMIT, @p id written before, args or extras NULL
 *   with a count or size, a record ending past 2^63 in syscall.vtable);
 *   UMT_E_NOMEM (the index of IDs); UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_syscall(umt_writer *w, int64_t id, const umt_syscall_desc *d);

/** One module for the writer. Names are UTF-8, or UTF-16 when *_utf16 is set. */
typedef struct umt_module_desc {
	int64_t load_eid; /**< LoadEID */
	int64_t unload_eid; /**< UnloadEID, -1 when never unloaded */
	int64_t start_addr; /**< StartAddr */
	int64_t end_addr; /**< EndAddr, inclusive */
	const char *win_name; /**< Windows path, UTF-8 (NULL: empty) */
	const char *device_name; /**< device path, UTF-8 (NULL: empty) */
	const uint16_t *win_name_utf16;    /**< if not NULL, used as is (win_name_utf16_len units) */
	size_t win_name_utf16_len; /**< units at win_name_utf16 */
	const uint16_t *device_name_utf16; /**< if not NULL, used as is (device_name_utf16_len units) */
	size_t device_name_utf16_len; /**< units at device_name_utf16 */
	uint64_t last_file_write_time;     /**< 64-byte rows only */
	uint16_t version_info[4];          /**< 64-byte rows only */
} umt_module_desc;

/**
 * Appends a module row; *id (may be NULL) receives its ID.
 * @return 0; UMT_E_INVAL (NULL @p w or @p m, a name that is not valid UTF-8
 *   or longer than 32767 UTF-16 units); UMT_E_NOMEM; UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_module(umt_writer *w, const umt_module_desc *m, int64_t *id);

/**
 * Appends an address range [first, last] (page-aligned, sorted and disjoint
 * by the caller; umt_verify() checks it).
 * @return 0; UMT_E_INVAL (NULL @p w); UMT_E_NOMEM; UMT_E_IO (sticky).
 */
UMT_API int umt_writer_add_address_range(umt_writer *w, int64_t first, int64_t last);

/**
 * Sets the context map (copied). The default is umt_context_map_default()
 * for the options' insRec and XED versions. Set it before the first record
 * with a context.
 * @return 0; UMT_E_INVAL (NULL argument, ElemCount above
 *   UMT_CONTEXT_MAP_REGS, DumpSize changed after a record with a context);
 *   UMT_E_IO (sticky).
 */
UMT_API int umt_writer_set_context_map(umt_writer *w, const umt_context_map *map);

/**
 * Fills @p m with a standard x86/x64 context map: GPRs and their parts,
 * flags, instruction pointer, segment registers, FS/GS bases, MXCSR, x87,
 * MMX and XMM0-15 in a 512-byte dump, with StrName for every register of
 * the XED enum. Register numbers follow XED 20150121, or for an older
 * @p xed_version ("20140106"; NULL means 20150121) the older numbering,
 * where only registers up to GSBASE are known (6 lower, ERRATA 17). Common
 * names follow the insRec version: 1, spec 11.1 (al -> ax, r8d -> r8,
 * mm7 -> st0, ymm3 -> xmm3); 0, the largest enclosing register (al -> rax).
 */
UMT_API void umt_context_map_default(umt_context_map *m, int ins_record_version,
                                     const char *xed_version);

/** Number of records written so far (the ID of the next one); 0 for NULL. */
UMT_API uint64_t umt_writer_exec_count(const umt_writer *w);

/* ==== 18. Caveats ========================================================= */

/*
 * - Files are mapped read-only (PROT_READ, MAP_PRIVATE). If another process
 *   truncates a file while it is mapped, touching the lost pages raises
 *   SIGBUS (the library cannot turn that into an error code); rewriting it
 *   in place changes what the mapping shows, under checks that were made on
 *   the old content. Traces are meant to be immutable once written: do not
 *   modify them while open. Open records each file's size, modification
 *   time, inode and device; umt_trace_changed() tells whether they moved.
 * - umt_writer replaces a trace by renaming new files over the old names
 *   (section 17): a handle opened before keeps reading the old trace from
 *   its mappings. exec.prev_next.column is mapped on first use, though: a
 *   handle that had not used it yet then finds the new file and its link
 *   accessors return UMT_E_IO ("file changed since the trace was opened").
 *   Each accessor loads every field it checks once and uses that value, so
 *   a file changed under the mapping gives wrong values or SIGBUS, never a
 *   pointer that the accessor did not check; pointers and views returned
 *   before the change describe the old content (a decoded instruction's
 *   slots, a syscall's arguments are read again by later calls: those calls
 *   check what they follow against the extents returned).
 * - A file that is not a regular file (a FIFO, a device) fails open with
 *   UMT_E_IO; it is opened without blocking, so a FIFO never hangs open.
 * - UMT_OPEN_SALVAGE reads a damaged trace for what is inside its files; it
 *   does not repair content: a record or row that is inside but corrupt
 *   fails when read, as in any trace. Whether a record's bytes are complete
 *   is told by its two exec.offsets entries only: a record cut short inside
 *   a file that was then extended with garbage is not detected at open.
 * - Validation is layered: open checks headers in O(1); each accessor checks
 *   the one record or row it reads. Whole-trace consistency (monotonic
 *   offsets, cross references, thread chains) is not checked by open.
 * - Values of the traced program (register and memory bytes) are returned
 *   as stored; the library does not interpret them.
 */

#ifdef __cplusplus
}
#endif

#endif /* UMTRACE_UMTRACE_H */
