/*
 * libumtrace - zero-copy reader and writer of UMTracer indexed traces.
 *
 * Map of this header:
 *   1. Version and export macros
 *   2. Errors: status codes, umt_strerror(), umt_errmsg()
 *   3. Opening a trace: umt_trace_open(), umt_trace_open_mem(), file names
 *   4. Execution records: umt_rec, umt_exec_get(), typed accessors
 *   5. Register contexts of records: umt_context, memory references
 *   6. Iterators: record order (umt_exec_iter) and thread order (umt_thread_iter)
 *   7. Thread table
 *   8. Writer: producing traces
 *   9. Caveats
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
 *     other caller-owned structs belong to one thread at a time.
 */
#ifndef UMTRACE_UMTRACE_H
#define UMTRACE_UMTRACE_H

#include <stddef.h>
#include <stdint.h>

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
	UMT_E_NO_VALUE = -13   /**< the item exists but has no such value */
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

/** A caller-owned byte buffer standing for one file of a trace. */
typedef struct umt_buffer {
	const void *data; /**< NULL for a missing file */
	size_t size;
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
 * @param flags 0 (reserved for access hints).
 * @return 0 and *out set; UMT_E_INVAL, UMT_E_NOMEM, UMT_E_IO, UMT_E_MISSING,
 *   UMT_E_VERSION, UMT_E_TRUNCATED, UMT_E_BOUNDS.
 */
UMT_API int umt_trace_open(const char *dir, unsigned flags, umt_trace **out);

/**
 * Opens a trace whose files are the caller's buffers, indexed by
 * umt_file_id (files[UMT_FILE_COUNT]); a buffer with data NULL is a missing
 * file. Nothing is copied: the buffers must stay valid and unchanged until
 * umt_trace_close(). Checks and errors as umt_trace_open().
 */
UMT_API int umt_trace_open_mem(const umt_buffer files[UMT_FILE_COUNT],
                               unsigned flags, umt_trace **out);

/** Releases everything of @p t; NULL is allowed. */
UMT_API void umt_trace_close(umt_trace *t);

/** Size in bytes of one file of the trace (0 for a missing trace.xml). */
UMT_API uint64_t umt_trace_file_size(const umt_trace *t, int file);

/** Header values of an open trace, all validated at open. */
typedef struct umt_trace_info {
	uint64_t exec_count;          /**< execution records */
	int32_t exec_version;         /**< exec.vtable Version (0 or 1) */
	int32_t ins_record_version;   /**< insRec RecordVer (0 or 1) */
	uint64_t ins_count;           /**< rows of ins.itable */
	uint64_t syscall_count;       /**< syscall records */
	int32_t syscall_version;      /**< syscall.vtable Version */
	int32_t unified_ids_version;  /**< syscall.vtable UnifiedIDsVer (0 or 1) */
	uint64_t module_count;
	uint64_t module_row_size;     /**< 48, or 64 with the 2015 fields */
	uint64_t thread_count;
	uint64_t thread_row_size;     /**< 40 in real traces, 48 per the spec */
	uint64_t address_range_count;
	uint32_t dump_size;           /**< context map DumpSize: bytes of a register dump */
	uint32_t context_map_elems;   /**< context map ElemCount */
	int has_trace_xml;            /**< 1 when trace.xml is present */
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
 * Instruction record (type 0): its InsID and local context bytes.
 * @param ins_id receives execRec InsID as stored (checked by the instruction accessors).
 * @param lc receives a pointer to the local context (may be NULL).
 * @param lc_size receives its length (may be NULL).
 * @return 0; UMT_E_INVAL for another type.
 */
UMT_API int umt_rec_ins(const umt_rec *r, int64_t *ins_id, const uint8_t **lc,
                        uint64_t *lc_size);

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

/** A checked view of an rmContext. */
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
	uint64_t address;
	uint64_t size;
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
 * one iterator per thread.
 */
typedef struct umt_exec_iter {
	const umt_trace *trace;
	const uint8_t *offsets; /**< exec.offsets */
	const uint8_t *records; /**< exec.vtable */
	uint64_t records_size;
	uint64_t next_id;       /**< next record to return */
	uint64_t end_id;        /**< one past the last record to return */
} umt_exec_iter;

/**
 * Prepares @p it to return records [begin, end); end is clamped to the
 * record count. @return 0; UMT_E_INVAL, UMT_E_RANGE (begin > count).
 */
UMT_API int umt_exec_iter_init(umt_exec_iter *it, const umt_trace *t,
                               uint64_t begin, uint64_t end);

/**
 * The next record. @return 1 with *out filled; 0 at the end of the range;
 * a negative error for a bad record, as umt_exec_get(). After an error the
 * iterator has moved past the bad record, so a caller may report it and
 * call again to continue.
 */
UMT_API int umt_exec_iter_next(umt_exec_iter *it, umt_rec *out);

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
 */
typedef struct umt_thread_iter {
	const umt_trace *trace;
	int64_t next_id;    /**< next record to return, -1 at the end */
	int64_t prev_id;    /**< record returned last, -1 before the first */
	int64_t thread_id;  /**< thread of the chain; INT64_MIN until the first record */
	int direction;      /**< UMT_FORWARD or UMT_BACKWARD */
} umt_thread_iter;

/**
 * Prepares @p it to follow the chain of record @p start_id (included) in
 * @p direction. Maps exec.prev_next.column on first use.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_IO (mapping failed).
 */
UMT_API int umt_thread_iter_init(umt_thread_iter *it, const umt_trace *t,
                                 uint64_t start_id, int direction);

/**
 * Prepares @p it to follow thread-table row @p thread forward from its
 * FirstEID. A thread with no records (FirstEID -1) yields nothing.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_BOUNDS (FirstEID outside the
 *   exec table), UMT_E_IO.
 */
UMT_API int umt_thread_iter_init_thread(umt_thread_iter *it, const umt_trace *t,
                                        uint64_t thread);

/**
 * The next record of the chain. @return 1 with *out filled; 0 at the end;
 * a negative error for a bad record or a bad link (UMT_E_CORRUPT: link
 * not increasing, to another thread; UMT_E_BOUNDS: outside the table), after
 * which the iterator is at its end.
 */
UMT_API int umt_thread_iter_next(umt_thread_iter *it, umt_rec *out);

/**
 * The Prev and Next links of record @p id as stored (-1 for none; not
 * otherwise checked). @return 0; UMT_E_INVAL, UMT_E_RANGE, UMT_E_IO.
 */
UMT_API int umt_exec_links(const umt_trace *t, uint64_t id, int64_t *prev, int64_t *next);

/* ==== 7. Thread table ==================================================== */

/** Rows of thread.itable (0 for NULL). */
UMT_API uint64_t umt_thread_count(const umt_trace *t);

/**
 * Row @p id of thread.itable, stepping by the header's RowSize (40 or 48).
 * @return 0 and *row pointing into the mapping; UMT_E_INVAL, UMT_E_RANGE.
 */
UMT_API int umt_thread_get(const umt_trace *t, uint64_t id, const umt_thread_rec **row);

/* ==== 8. Writer ========================================================== */

/** A trace being written. Memory use is independent of the record count. */
typedef struct umt_writer umt_writer;

/** Trace flavours the writer produces. */
enum umt_flavour {
	UMT_FLAVOUR_2015 = 0, /**< exec v1, insRec v1, 64-byte modules, TraceMetaData trace.xml */
	UMT_FLAVOUR_2014 = 1  /**< exec v0, insRec v0, 48-byte modules, root-less trace.xml */
};

/** trace.xml metadata written by the writer; NULL strings are omitted. */
typedef struct umt_writer_xml {
	const char *xed_version;      /**< e.g. "20150121" */
	const char *process_id;
	const char *bitness;          /**< "32" or "64" */
	const char *app_command_line;
	const char *os_id;
	const char *os_name;
	const char *pin_version;
	const char *pin_command_line;
	const char *has_xmm, *has_ymm, *has_zmm; /**< "1"/"0" */
	const char *raw_trace_date;   /**< 2015 layout only */
	const char *umtracer_version; /**< 2015 layout only */
} umt_writer_xml;

/** Writer options; start from umt_writer_options_init(). */
typedef struct umt_writer_options {
	int flavour;                 /**< enum umt_flavour */
	int32_t exec_version;        /**< exec.vtable Version */
	int32_t ins_record_version;  /**< insRec RecordVer */
	int32_t unified_ids_version; /**< syscall.vtable UnifiedIDsVer */
	uint32_t module_row_size;    /**< 48 or 64 */
	uint32_t thread_row_size;    /**< 40 or 48 */
	int write_trace_xml;         /**< 1: write trace.xml from xml (or xml_text) */
	int xml_root;                /**< 1: TraceMetaData root (2015); 0: root-less */
	umt_writer_xml xml;          /**< metadata for trace.xml */
	const char *xml_text;        /**< if not NULL, written verbatim as trace.xml */
	size_t buffer_size;          /**< write chunk size (default 4 MiB, at least 64 KiB) */
} umt_writer_options;

/** Sets @p o to the defaults of @p flavour (a enum umt_flavour). */
UMT_API void umt_writer_options_init(umt_writer_options *o, int flavour);

/**
 * Starts writing a trace into directory @p dir (created if missing; existing
 * trace files in it are replaced). @p o may be NULL for the 2015 defaults.
 * @return 0; UMT_E_INVAL, UMT_E_NOMEM, UMT_E_IO.
 */
UMT_API int umt_writer_open(const char *dir, const umt_writer_options *o, umt_writer **out);

/**
 * Writes the remaining tables, checks the trace is complete (every syscall
 * ID in [0, max] written, every thread ID used declared) and releases @p w
 * in all cases. @return 0; UMT_E_IO, UMT_E_CORRUPT (incomplete), UMT_E_NOMEM.
 */
UMT_API int umt_writer_finish(umt_writer *w);

/** Releases @p w without completing the trace (the files are left partial). */
UMT_API void umt_writer_abort(umt_writer *w);

/**
 * Declares thread-table row *id (assigned in order from 0). FirstEID,
 * LastEID and RecCount are computed from the records written; LastEID is
 * -1 unless the thread's last record is a thread-end or application-end.
 */
UMT_API int umt_writer_add_thread(umt_writer *w, int32_t win_tid, int64_t tib_addr,
                                  int32_t *id);

/** A register context for the writer: dump (DumpSize bytes) and memory blocks. */
typedef struct umt_context_desc {
	const void *regs;          /**< register dump; NULL writes zeros */
	uint32_t regs_size;        /**< must be the context map's DumpSize, or 0 with regs NULL */
	const umt_mem_ref *mem;    /**< memory references */
	uint32_t mem_count;
} umt_context_desc;

/** One execution record for the writer. */
typedef struct umt_exec_desc {
	uint8_t type;                   /**< enum umt_rec_type */
	uint8_t flags;                  /**< UMT_EXEC_F_* */
	int32_t thread_id;              /**< declared thread row */
	int64_t ins_id;                 /**< type 0 */
	const void *lc;                 /**< type 0: local context bytes */
	uint64_t lc_size;
	int64_t syscall_id;             /**< types 4, 5, 6 */
	int32_t exit_code;              /**< types 2, 3 */
	const umt_context_desc *context; /**< types 1, 4, 5, 8-11; NULL: empty context */
} umt_exec_desc;

/**
 * Appends an execution record; its ID is the number of records before it.
 * Prev/next links and thread statistics are maintained automatically.
 * @return 0 and *id (may be NULL); UMT_E_INVAL (unknown type, undeclared
 *   thread, wrong regs_size), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_API int umt_writer_add_exec(umt_writer *w, const umt_exec_desc *d, uint64_t *id);

/**
 * Appends the bytes of one record verbatim (for converters and corrupt test
 * fixtures). Its thread chain is maintained when it has a 6-byte header
 * with a declared ThreadID. @return 0; UMT_E_INVAL, UMT_E_IO.
 */
UMT_API int umt_writer_add_exec_raw(umt_writer *w, const void *bytes, uint64_t size,
                                    uint64_t *id);

/**
 * Adds a disassembly cStr to the instruction extra area; *fp receives its
 * FP relative to ExtraFP, for umt_ins_rec.DisasmFP (strings may be shared).
 * @return 0; UMT_E_INVAL (longer than 32767), UMT_E_IO.
 */
UMT_API int umt_writer_add_disasm(umt_writer *w, const char *text, int64_t *fp);

/**
 * Adds a decodedIns and its d->LCCount slots to the extra area; *fp
 * receives its FP for umt_ins_rec.DecodedFP (bodies may be shared).
 */
UMT_API int umt_writer_add_decoded(umt_writer *w, const umt_decoded_ins *d,
                                   const umt_lc_slot *slots, int64_t *fp);

/**
 * Appends an instruction row (64 bytes): @p row is copied with its ID set to
 * the row number, returned in *id.
 */
UMT_API int umt_writer_add_ins(umt_writer *w, const umt_ins_rec *row, int64_t *id);

/** One system call record for the writer. */
typedef struct umt_syscall_desc {
	int16_t raw_id;
	int16_t uniform_id;
	uint8_t convention;
	uint8_t completed;
	int64_t begin_eid;
	int64_t end_eid;
	int64_t before_sp;
	int64_t result;
	const int64_t *args;   /**< arg_count values */
	uint8_t arg_count;
	const void *extras;    /**< extras_size raw bytes */
	uint64_t extras_size;
	uint8_t extra_count;
	int args_fp_absolute;  /**< 1: store ArgsFP as an absolute offset (old readers, ERRATA 7) */
} umt_syscall_desc;

/**
 * Writes syscall record @p id. Records may be written in any order; the
 * table holds max(id) + 1 records and finish fails if one is missing.
 * @return 0; UMT_E_INVAL (negative or repeated id), UMT_E_IO, UMT_E_NOMEM.
 */
UMT_API int umt_writer_add_syscall(umt_writer *w, int64_t id, const umt_syscall_desc *d);

/** One module for the writer. Names are UTF-8, or UTF-16 when *_utf16 is set. */
typedef struct umt_module_desc {
	int64_t load_eid;
	int64_t unload_eid;
	int64_t start_addr;
	int64_t end_addr;
	const char *win_name;
	const char *device_name;
	const uint16_t *win_name_utf16;    /**< if not NULL, used as is (win_name_utf16_len units) */
	size_t win_name_utf16_len;
	const uint16_t *device_name_utf16;
	size_t device_name_utf16_len;
	uint64_t last_file_write_time;     /**< 64-byte rows only */
	uint16_t version_info[4];          /**< 64-byte rows only */
} umt_module_desc;

/** Appends a module row; *id (may be NULL) receives its ID. */
UMT_API int umt_writer_add_module(umt_writer *w, const umt_module_desc *m, int64_t *id);

/** Appends an address range [first, last] (page-aligned by the caller). */
UMT_API int umt_writer_add_address_range(umt_writer *w, int64_t first, int64_t last);

/**
 * Sets the context map (copied). The default is umt_context_map_default()
 * for the options' insRec and XED versions. Set it before the first record
 * with a context.
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

/** Number of records written so far (the ID of the next one). */
UMT_API uint64_t umt_writer_exec_count(const umt_writer *w);

/* ==== 9. Caveats ========================================================= */

/*
 * - Files are mapped read-only (PROT_READ, MAP_PRIVATE). If another process
 *   truncates a file while it is mapped, touching the lost pages raises
 *   SIGBUS; rewriting it in place changes what the mapping shows. Traces are
 *   meant to be immutable once written: do not modify them while open.
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
