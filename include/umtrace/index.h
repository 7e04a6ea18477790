/*
 * libumtrace - the analysis layer: an on-disk index of a trace that answers
 * state questions without scanning the trace.
 *
 * Map of this header:
 *   1. What "value at record N" means (one definition for every query)
 *   2. Building an index: umt_index_build(), in parts: umt_index_build_part()
 *   3. Opening an index: umt_index_open(), where indexes live
 *   4. Memory history: who touched [A, A + L), when
 *   5. Memory contents at a record: umt_mem_at()
 *   6. Checking an index against its trace: umt_index_verify()
 *   7. Registers of a thread at a record: umt_state_at()
 *   8. A register's history: umt_reg_history_open()
 *   9. Where a value came from: umt_origin_open()
 *  10. Coverage: executed instructions per module
 *  11. Calls: how calls and returns are matched, umt_calls_open()
 *  12. The call stack at a record: umt_stack_at()
 *  13. Arguments and return values of a call: umt_call_args()
 *
 * Conventions are those of umtrace.h (its preamble): 0 or positive on
 * success, a negative UMT_E_* code with a message naming the file and the
 * byte offset on failure. The index is a file format of this project
 * (docs/index-format.md), untrusted like a trace: every offset is checked
 * before it is followed. An index belongs to one trace: opening it with
 * another trace, or after the trace's files changed, fails with
 * UMT_E_STALE. Values (register and memory bytes) are read from the trace,
 * which must stay open while the index is used.
 */
#ifndef UMTRACE_INDEX_H
#define UMTRACE_INDEX_H

#include "umtrace/umtrace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. Value at record N =============================================== */

/*
 * The state "at record N" is the state just before N executes, and the
 * value of a byte (of memory, or of a thread's register) at N is its LATEST
 * OBSERVATION at or before N:
 *   - every access of an earlier record observes memory: a read (the value
 *     read), a peek (the old content of a write-only operand), a write (the
 *     value written; within one record a write comes after its reads), a
 *     context block (memory as it was at that record);
 *   - of N itself only what describes the state before it: its reads and
 *     peeks (before values) and its context blocks; N's writes are the
 *     state after N;
 *   - what umtrace.h section 8b says about incomplete records applies: an
 *     untrusted before value observes nothing; a write with a trusted
 *     address but an untrusted value makes its bytes UNKNOWN (the write
 *     may or may not have happened), with that record as their source; an
 *     access with an untrusted address observes nothing anywhere;
 *   - a byte no record observed is unknown, with no source;
 *   - within one record and phase, accesses are ordered by locator (LC
 *     slot or context block index): the last one that covers a byte wins.
 * Memory is shared by the threads: the latest observation of any thread
 * counts. Instrumentation gaps (exec flag 0x02) are not applied to memory:
 * untraced code may have written memory where the trace cannot tell.
 *
 * Registers belong to a thread (a row of thread.itable). A thread's
 * register file is the context map's dump: DumpSize bytes, in which every
 * register sits at its Offset for Size bytes of RegMap64 or RegMap32 (by
 * the 64-bit flag 0x01 of the record that observes or writes it), so al,
 * ah, ax, eax and rax cover exactly the bytes they share. The value of a
 * byte of thread T's register file at record N is its latest observation
 * in T at or before N, applying T's records in order, each in two phases:
 *   - phase 0, what holds AT the record: with exec flag 0x02
 *     (instrumentation was off before it) every byte becomes unknown,
 *     with the record as its source (untraced code ran); then the register
 *     dump of a context record (thread begin, syscall entry and exit,
 *     context changes: the state the thread goes on with, umtrace.h
 *     section 5); then the before values of its register slots (LC slots
 *     with AddrWidth 0 whose RegName the map places; read, read-write and
 *     write-only operands alike; their first min(ValueSize, Size) bytes);
 *   - phase 1, what the record LEAVES: the after values of its register
 *     slots, and for a 4-byte output of a 64-bit record with decodedIns
 *     flag 0x08 (32-bit operands in 64-bit code) the upper 4 bytes of its
 *     8-byte largest enclosing register, zero;
 *   - umtrace.h section 8b: before values of a record whose inputs are
 *     not trusted observe nothing; a register slot of a record whose
 *     outputs are not trusted makes its bytes (for a zero-extended output,
 *     its whole 8-byte register) UNKNOWN from that record on, with that
 *     record as their source; a false condition (exec flag 0x04) writes
 *     nothing: its after values observe the unchanged registers;
 *   - within a record and phase, slots apply in slot order;
 *   - the state at N is after phase 1 of T's earlier records and phase 0
 *     of N itself when N is T's; when N is another thread's, it is the
 *     state after T's last record before N.
 * A record WRITES a byte of its thread's register file when its gap, its
 * dump or one of its register outputs covers it (phase 1 of a false
 * condition writes nothing), and CHANGES it when it writes it and the
 * byte was unknown before, or held another value, or the write leaves it
 * unknown. A register's writes and changes are those of the bytes of its
 * largest enclosing register (the map's EffLargest) in the record's map.
 * Records whose ThreadID is not a row of thread.itable have no register
 * file and change none.
 */

/** "No record": a source of a byte never observed. */
#define UMT_NO_RECORD UINT64_MAX

/* ==== 2. Building an index =============================================== */

/** An index of a trace, open for queries. */
typedef struct umt_index umt_index;

/** Phases of a build, for the progress callback. */
enum umt_index_phase {
	UMT_INDEX_PHASE_SCAN = 0,  /**< reading the records: units are records */
	UMT_INDEX_PHASE_MERGE = 1, /**< merging sorted runs: units are postings */
	UMT_INDEX_PHASE_WRITE = 2  /**< assembling and committing the files: units are bytes */
};

/** The parts of an index, for umt_index_build_options.sections. */
enum umt_index_section {
	UMT_INDEX_SECTION_MEMORY = 1u << 0,    /**< memory history and contents (always built) */
	UMT_INDEX_SECTION_REGISTERS = 1u << 1, /**< register checkpoints: sections 7-9 */
	UMT_INDEX_SECTION_CALLS = 1u << 2,     /**< calls and their returns: sections 11-13 */
	UMT_INDEX_SECTION_COVERAGE = 1u << 3   /**< executed instructions per module: section 10 */
};
/** Every part this library builds. */
#define UMT_INDEX_SECTIONS_ALL                                                          \
	(UMT_INDEX_SECTION_MEMORY | UMT_INDEX_SECTION_REGISTERS | UMT_INDEX_SECTION_CALLS | \
	 UMT_INDEX_SECTION_COVERAGE)

/** Options of umt_index_build(); start from umt_index_build_options_init(). */
typedef struct umt_index_build_options {
	unsigned threads; /**< worker threads; 0: the online processors (at most 64) */
	uint64_t memory;  /**< budget in bytes for the build's buffers (default 256 MiB, at
	                       least 1 MiB): peak memory is this plus a small constant, whatever
	                       the trace size; the runs that do not fit go to temporary files */
	/**
	 * Called from the calling thread with the phase, the work done and the
	 * total of that phase, at the start and end of each phase and about
	 * every 1% in between. May be NULL.
	 */
	void (*on_progress)(int phase, uint64_t done, uint64_t total, void *ctx);
	void *ctx; /**< passed to on_progress */
	uint64_t sections; /**< UMT_INDEX_SECTION_* to build (default UMT_INDEX_SECTIONS_ALL; the
	                        memory section is always built): an index without a part answers
	                        its queries with UMT_E_MISSING */
} umt_index_build_options;

/** Defaults: all processors, 256 MiB, every section, no progress. NULL is allowed. */
UMT_API void umt_index_build_options_init(umt_index_build_options *o);

/** What a build did. */
typedef struct umt_index_build_stats {
	uint64_t records;      /**< records scanned */
	uint64_t accesses;     /**< accesses indexed */
	uint64_t postings;     /**< postings written (an access split over granules counts per list) */
	uint64_t pages;        /**< memory pages with postings */
	uint64_t runs;         /**< sorted runs spilled to temporary files (0: all fit the budget) */
	uint64_t merge_passes; /**< passes that merged groups of runs before the final merge
	                            (0 unless the runs were too many for the budget) */
	uint64_t temp_bytes;   /**< peak bytes of temporary files */
	uint64_t index_bytes;  /**< bytes of the index's files */
	unsigned threads;      /**< worker threads used */
} umt_index_build_stats;

/**
 * Builds the index of @p t into directory @p dir (created with its parents if missing):
 * one streaming pass over the records on o->threads threads, sorted runs
 * within o->memory, merged in parallel, committed atomically (a killed
 * build leaves no index that opens; an index already in @p dir stays
 * usable until the new one is complete). The output depends only on the
 * trace: the same bytes for any number of threads and any budget.
 * Records that cannot be read (corrupt) stop the build with their error.
 * @p o may be NULL for the defaults; @p stats may be NULL.
 * @return 0; UMT_E_INVAL (also: o->sections with bits this library does
 *   not know), UMT_E_NOMEM, UMT_E_IO, and the errors of the trace's
 *   accessors for a corrupt record.
 */
UMT_API int umt_index_build(const umt_trace *t, const char *dir,
                            const umt_index_build_options *o, umt_index_build_stats *stats);

/**
 * Builds part @p part of @p parts of the index of @p t, for a build shared
 * by several processes or machines that see @p dir at the same path: the
 * postings of the part's share of the trace's record ranges (the ranges
 * depend only on the trace; part K has ranges [K*R/N, (K+1)*R/N)), sorted
 * into one run and committed atomically as DIR/parts/K-of-N/part
 * (docs/index-format.md, "Building in parts"). Building a part again
 * replaces it. Parts need not run at the same time nor in order; then
 * umt_index_build_merge() makes the index. o->sections is not used here
 * (the merge builds the sections other than memory); threads and memory
 * are this process's. stats: records and accesses of the part, postings
 * of its run, index_bytes the part file's size.
 * @return 0; UMT_E_INVAL (@p part >= @p parts, @p parts 0 or above 65536,
 *   a NULL argument), UMT_E_NOMEM, UMT_E_IO, and the errors of the
 *   trace's accessors for a corrupt record.
 */
UMT_API int umt_index_build_part(const umt_trace *t, const char *dir, unsigned part,
                                 unsigned parts, const umt_index_build_options *o,
                                 umt_index_build_stats *stats);

/**
 * Makes the index of @p t in @p dir from the @p parts parts that
 * umt_index_build_part() wrote there: each is checked as untrusted data
 * (its header and its sum, the trace it was built from, its ranges, every
 * entry decoded in order), their runs merged, the sections of o->sections
 * other than memory built by a scan here, and the index committed
 * atomically; then the parts are removed. The index has the same bytes as
 * umt_index_build() would write. @p stats as umt_index_build's (records
 * and accesses those of the parts).
 * @return 0; UMT_E_INVAL; UMT_E_MISSING (a part was not built: the message
 *   names its file), UMT_E_INCOMPLETE (a part's build did not finish),
 *   UMT_E_STALE (a part built from another trace or before it changed),
 *   UMT_E_CORRUPT (a damaged part: file and byte offset), UMT_E_NOMEM,
 *   UMT_E_IO, and the trace's errors as umt_index_build().
 */
UMT_API int umt_index_build_merge(const umt_trace *t, const char *dir, unsigned parts,
                                  const umt_index_build_options *o,
                                  umt_index_build_stats *stats);

/* ==== 3. Opening an index ================================================= */

/**
 * Opens the index in @p dir for trace @p t (which must stay open until
 * umt_index_close()). O(1): maps the files and checks their headers, the
 * index's identity and that it was built from this trace as it is now
 * (file sizes, modification times, record count, a checksum of the
 * headers).
 * @return 0; UMT_E_INVAL, UMT_E_NOMEM, UMT_E_MISSING (no index in @p dir),
 *   UMT_E_INCOMPLETE (a build did not finish), UMT_E_STALE (built from
 *   another trace, or the trace changed since: rebuild it), UMT_E_VERSION,
 *   UMT_E_TRUNCATED, UMT_E_BOUNDS, UMT_E_CORRUPT, UMT_E_IO.
 */
UMT_API int umt_index_open(const umt_trace *t, const char *dir, umt_index **out);

/** Releases @p ix (NULL allowed). */
UMT_API void umt_index_close(umt_index *ix);

/** Counts of an open index. */
typedef struct umt_index_info {
	uint32_t version;        /**< format version */
	uint64_t pages;          /**< memory pages with postings */
	uint64_t postings;       /**< memory postings */
	uint64_t accesses;       /**< accesses indexed */
	uint64_t bytes;          /**< bytes of the index's files */
} umt_index_info;

/** Fills @p out. @return 0; UMT_E_INVAL. */
UMT_API int umt_index_get_info(const umt_index *ix, umt_index_info *out);

/**
 * The directory where tools keep the index of the trace in @p trace_dir
 * when the user names none: TRACE/umtindex when that exists or the trace
 * directory is writable; else $XDG_CACHE_HOME/umtrace/KEY (or
 * ~/.cache/umtrace/KEY), KEY the FNV-1a hash of the trace's real path.
 * Nothing is created. @return 0 with the path in @p buf; UMT_E_INVAL,
 *   UMT_E_RANGE (@p cap too small), UMT_E_IO (no real path, no home).
 */
UMT_API int umt_index_default_dir(const char *trace_dir, char *buf, size_t cap);

/* ==== 4. Memory history =================================================== */

/** What to look for; start from umt_history_query_init(). */
typedef struct umt_history_query {
	uint64_t address; /**< first byte of the range */
	uint64_t length;  /**< bytes (at least 1); address + length may not wrap */
	uint64_t from;    /**< first record (default 0) */
	uint64_t to;      /**< one past the last record (default UINT64_MAX: to the end) */
	unsigned kinds;   /**< UMT_ACCESS_* bits (default read | write | context: the
	                       program's accesses and the context blocks, not peeks) */
	int64_t thread;   /**< only this thread-table row; -1 (default) for every thread */
	int reverse;      /**< 1: newest first */
	uint64_t limit;   /**< at most this many accesses; 0 (default): all */
} umt_history_query;

/** Fills @p q for [address, address + length), everything else by default. */
UMT_API void umt_history_query_init(umt_history_query *q, uint64_t address, uint64_t length);

/** A history being read (opaque; it allocates). */
typedef struct umt_history umt_history;

/**
 * Starts the history of the query: every access overlapping the range,
 * whole (not clipped to it), in record order, then reads before writes
 * (phase 0 before phase 1), then by address (all reversed with
 * q->reverse). "Who last wrote A before N" is { A, 1, .to = N, .kinds =
 * write, .reverse = 1, .limit = 1 }; "next access after N" is { .from = N
 * + 1, .limit = 1 }. Writes whose value is not trusted are included, their
 * umt_access.trust without UMT_TRUST_VALUE.
 * @return 0 and *out; UMT_E_INVAL (NULL, length 0 or wrapping, kinds 0 or
 *   unknown), UMT_E_NOMEM, and index errors (UMT_E_BOUNDS, UMT_E_CORRUPT,
 *   naming the index file and offset).
 */
UMT_API int umt_history_open(const umt_index *ix, const umt_history_query *q,
                             umt_history **out);

/**
 * The next access; its bytes point into the trace's mapping.
 * @return 1 with *out; 0 at the end (or the limit); UMT_E_INVAL; index
 *   errors; the trace's errors for the record read (UMT_E_CORRUPT when a
 *   posting names an access its record does not have).
 */
UMT_API int umt_history_next(umt_history *h, umt_access *out);

/** Releases @p h (NULL allowed). */
UMT_API void umt_history_close(umt_history *h);

/* ==== 5. Memory contents at a record ====================================== */

/**
 * The bytes [address, address + length) at record @p at (section 1): for
 * each byte its value in data[i], 1 in known[i] when it is known, and in
 * sources[i] the record that gave it (or made it unknown), UMT_NO_RECORD
 * when no record observed it. Unknown bytes have data[i] = 0. Any of the
 * three arrays may be NULL. Cost: a few index pages per 64-byte granule.
 * @return 0; UMT_E_INVAL (NULL index, length 0 or wrapping), UMT_E_RANGE
 *   (@p at beyond the last record), index and trace errors.
 */
UMT_API int umt_mem_at(const umt_index *ix, uint64_t at, uint64_t address, uint64_t length,
                       uint8_t *data, uint8_t *known, uint64_t *sources);

/* ==== 6. Checking an index =============================================== */

/**
 * The full O(n) check of @p ix against its trace: every page, list, block
 * and posting decodes inside its file, keys increase, counts and masks
 * match, every posting names an access its record has (kind, clipped
 * range, thread), and the postings are exactly those a fresh extraction
 * of the trace gives; the coverage section (when built) is byte for byte
 * what a fresh scan of the trace gives.
 * @return 0; UMT_E_CORRUPT (the first problem in umt_errmsg()), the errors
 *   of the queries.
 */
UMT_API int umt_index_verify(const umt_index *ix);

/* ==== 7. Registers of a thread at a record ================================= */

/**
 * The register file of a thread at a record (section 1), filled by
 * umt_state_at(): the context map's dump with, per byte, its value, whether
 * it is known and the record that gave it. Made by umt_state_init() for one
 * index, reused by any number of queries (one thread at a time), released
 * by umt_state_release().
 */
typedef struct umt_state {
	uint64_t at;       /**< the record */
	uint64_t thread;   /**< the thread-table row */
	int is_64bit;      /**< 1: RegMap64 places the registers (the mode of record at when it
	                        is the thread's, else of the thread's last record before it, or
	                        of record at when the thread has none yet) */
	uint32_t size;     /**< bytes of the dump (the context map's DumpSize) */
	const uint8_t *data;     /**< size bytes; unknown bytes are 0 */
	const uint8_t *known;    /**< size flags: 1 when the byte is known */
	const uint64_t *sources; /**< size records: the byte's latest observation (or the record
	                              that made it unknown); UMT_NO_RECORD when none */
	void *internal;    /**< private */
} umt_state;

/**
 * Prepares @p s for queries of @p ix (allocates DumpSize-sized arrays).
 * @return 0; UMT_E_INVAL, UMT_E_NOMEM, UMT_E_MISSING (the index has no
 *   register section: built by an older library).
 */
UMT_API int umt_state_init(const umt_index *ix, umt_state *s);

/** Releases what umt_state_init() allocated (NULL and released states allowed). */
UMT_API void umt_state_release(umt_state *s);

/**
 * Fills @p s with the registers of thread @p thread (a thread-table row;
 * -1: the thread of record @p at) at record @p at, as section 1 defines
 * them: the thread's latest checkpoint before @p at, then at most 2K - 1 of
 * its records (K the checkpoint interval, docs/index-format.md).
 * @return 0; UMT_E_INVAL (NULL, a state of another index), UMT_E_RANGE
 *   (@p at or @p thread out of range), UMT_E_CORRUPT (@p thread -1 and
 *   record @p at has a ThreadID outside the thread table), index errors
 *   (UMT_E_CORRUPT naming regs.dir or regs.ckpt and the offset) and the
 *   trace's errors for the records replayed.
 */
UMT_API int umt_state_at(const umt_index *ix, uint64_t at, int64_t thread, umt_state *s);

/** One register of a state. */
typedef struct umt_reg_value {
	int reg;              /**< register ID (context map) */
	int largest;          /**< its largest enclosing register in the state's map (EffLargest
	                           when the map names a present one that encloses it, else reg):
	                           a register with largest == reg is a whole register */
	uint32_t offset;      /**< in the dump */
	uint32_t size;        /**< bytes */
	const uint8_t *data;  /**< size bytes, in the state (unknown bytes 0) */
	const uint8_t *known; /**< size flags, in the state */
	uint32_t known_bytes; /**< how many are known */
	uint64_t source;      /**< the latest source of its bytes; UMT_NO_RECORD when none */
} umt_reg_value;

/**
 * Register @p reg of state @p s, placed by the state's map (s->is_64bit).
 * Valid until the next umt_state_at() with @p s.
 * @return 0; UMT_E_INVAL, UMT_E_RANGE (@p reg >= ElemCount),
 *   UMT_E_NOT_FOUND (not in this map's dump).
 */
UMT_API int umt_state_reg(const umt_state *s, int reg, umt_reg_value *out);

/* ==== 8. A register's history =============================================== */

/** Bytes a register can have (a regInfo Size is 8-bit). */
#define UMT_REG_MAX_SIZE 255

/** What to look for; start from umt_reg_history_query_init(). */
typedef struct umt_reg_history_query {
	int reg;          /**< any part of the register (eax, ah): the history is its largest
	                       enclosing register's (section 1) */
	int64_t thread;   /**< a thread-table row; -1 (default): every thread, merged by record */
	uint64_t from;    /**< first record (default 0) */
	uint64_t to;      /**< one past the last record (default UINT64_MAX: to the end) */
	int reverse;      /**< 1: newest first */
	uint64_t limit;   /**< at most this many writes; 0 (default): all */
	int changes;      /**< 1: only the writes that changed the register */
} umt_reg_history_query;

/** Fills @p q for register @p reg, everything else by default. */
UMT_API void umt_reg_history_query_init(umt_reg_history_query *q, int reg);

/** One write of a register. */
typedef struct umt_reg_write {
	uint64_t id;      /**< the record */
	uint64_t thread;  /**< its thread */
	int reg;          /**< the whole register written, in the record's map */
	uint32_t size;    /**< its bytes */
	uint8_t value[UMT_REG_MAX_SIZE]; /**< its value after the record (unknown bytes 0) */
	uint8_t known[UMT_REG_MAX_SIZE]; /**< per byte, 1 when known */
	int changed;      /**< 1 when the record changed it (section 1) */
} umt_reg_write;

/** A history being read (opaque; it allocates). */
typedef struct umt_reg_history umt_reg_history;

/**
 * Starts the history of the query: every record of the thread(s) in
 * [from, to) that writes the register (section 1), in record order or
 * reversed. "Previous change of rax before N" is { rax, thread, .to = N,
 * .reverse = 1, .limit = 1, .changes = 1 }. Each step replays at most 2K - 1
 * records of a thread; stretches of the thread without a write (or change)
 * are skipped from checkpoint to checkpoint.
 * @return 0 and *out; UMT_E_INVAL (NULL), UMT_E_RANGE (@p reg or the thread
 *   out of range), UMT_E_NOT_FOUND (the register is in neither map),
 *   UMT_E_NOMEM, UMT_E_MISSING (no register section).
 */
UMT_API int umt_reg_history_open(const umt_index *ix, const umt_reg_history_query *q,
                                 umt_reg_history **out);

/**
 * The next write. @return 1 with *out; 0 at the end (or the limit);
 * UMT_E_INVAL; index and trace errors as umt_state_at().
 */
UMT_API int umt_reg_history_next(umt_reg_history *h, umt_reg_write *out);

/** Releases @p h (NULL allowed). */
UMT_API void umt_reg_history_close(umt_reg_history *h);

/* ==== 9. Where a value came from ============================================ */

/** What defined a value. */
enum umt_origin_kind {
	UMT_ORIGIN_INSTRUCTION = 0, /**< an instruction record wrote it */
	UMT_ORIGIN_CONTEXT = 1,     /**< a context record gave it (a dump, a memory block: the
	                                 kernel, the tracer): the chain ends */
	UMT_ORIGIN_UNKNOWN = 2      /**< no record of the trace defined it (never written, or
	                                 written by untraced code: id is then the record of
	                                 the gap, flag 0x02): the chain ends */
};

/** How a node's value was used by its parent's defining record. */
enum umt_origin_role {
	UMT_ORIGIN_ROOT = 0,    /**< the value asked about */
	UMT_ORIGIN_VALUE = 1,   /**< a value input: a read operand, explicit or implicit */
	UMT_ORIGIN_ADDRESS = 2  /**< an address-only input: a register of a memory phrase
	                             (base, index, segment) that only computed where memory
	                             was, or the stack pointer of a push, pop, call or ret
	                             when the value traced is not the stack pointer; listed,
	                             not followed */
};

/** What to trace back; start from umt_origin_query_init(). */
typedef struct umt_origin_query {
	uint64_t at;      /**< the record: the value just before it executes (section 1) */
	int reg;          /**< a register (any part), or -1 for the memory range below */
	uint64_t address; /**< memory: first byte */
	uint64_t length;  /**< memory: bytes, 1 to UMT_ORIGIN_MAX_LENGTH */
	unsigned depth;   /**< how many defining records to go back (default 10) */
	uint64_t max_nodes; /**< stop after this many nodes (default 10000; 0: no limit) */
} umt_origin_query;

/** The largest memory range an origin query takes. */
#define UMT_ORIGIN_MAX_LENGTH 4096u

/** Fills @p q for register @p reg at record @p at (reg -1: set address and length). */
UMT_API void umt_origin_query_init(umt_origin_query *q, uint64_t at, int reg);

/** One node of an origin tree. */
typedef struct umt_origin_node {
	unsigned depth;     /**< 0 for the root; a node's inputs are at depth + 1 */
	int role;           /**< enum umt_origin_role */
	int kind;           /**< enum umt_origin_kind of id */
	uint64_t id;        /**< the record that defined the value (its last writer before
	                         at); UMT_NO_RECORD when none */
	uint64_t at;        /**< the record that used the value (the root's: the query's) */
	uint64_t thread;    /**< the thread of at */
	int reg;            /**< the register (as the slot or the query names it), or -1 */
	uint64_t address;   /**< memory nodes: the first byte */
	uint64_t length;    /**< memory nodes: bytes */
	uint32_t size;      /**< bytes of the value */
	const uint8_t *value; /**< size bytes as at saw them (unknown bytes 0); valid until
	                           the next umt_origin_next() */
	const uint8_t *known; /**< size flags */
} umt_origin_node;

/** An origin tree being read (opaque; it allocates). */
typedef struct umt_origin umt_origin;

/**
 * Starts the origin tree of a register or a memory range at record
 * q->at: the record that last wrote it (the register history of its
 * thread; the memory history: writes and context blocks), then that
 * record's inputs, each with its own defining record, recursively, in
 * depth-first order. A chain ends at a context record, at the first
 * record of a thread, at an unknown value (or an input whose value is not
 * trusted), or at q->depth. Address-only inputs are listed, not followed.
 * Each node costs a few index lookups and at most 2K - 1 records replayed.
 * @return 0 and *out; UMT_E_INVAL (NULL, length 0 or above the maximum,
 *   wrapping), UMT_E_RANGE (at or reg out of range), UMT_E_NOT_FOUND (the
 *   register is not in the dump of record at's map), UMT_E_NOMEM,
 *   UMT_E_MISSING (no register section).
 */
UMT_API int umt_origin_open(const umt_index *ix, const umt_origin_query *q, umt_origin **out);

/**
 * The next node in depth-first order. @return 1 with *out; 0 at the end (or
 * max_nodes); UMT_E_INVAL; index and trace errors as umt_state_at() and
 * umt_history_next().
 */
UMT_API int umt_origin_next(umt_origin *o, umt_origin_node *out);

/** Releases @p o (NULL allowed). */
UMT_API void umt_origin_close(umt_origin *o);
/* ==== 10. Coverage ========================================================= */

/*
 * Which instruction addresses each module executed, and how often, from the
 * index's coverage section (UMT_INDEX_SECTION_COVERAGE, built by default;
 * docs/index-format.md "Coverage").
 *
 * Entries: one per module row, in module-table order (entry i is row i: a
 * module loaded twice has two rows, and two entries with their own bases),
 * then one for code outside modules: umt_coverage_count() is
 * umt_module_count() + 1 and the last entry has module_id -1.
 *
 * Which module an instruction record executed in: its instruction row's
 * ModuleID when the row names one (umt_ins_module(): the tracer set it when
 * it instrumented the code, so it holds for every record of the row); for
 * a row of floating code (ModuleID -1), the module umt_module_find() gives
 * for the row's address at that record (code written into a module's
 * memory; guide section 7), else the entry for code outside modules. Every
 * instruction record counts, those whose condition was false (flag 0x04)
 * and those that faulted (0x10-0x80) included: the instruction was
 * fetched and began.
 *
 * Addresses are the rows' Address fields (zero-extended in 32-bit code);
 * several rows may share one (code instrumented again): an address counts
 * once per entry, with the executions of all its rows.
 */

/** One coverage entry: a module row, or code outside modules. */
typedef struct umt_coverage_module {
	int64_t module_id;   /**< the module row; -1 for code outside modules */
	uint64_t base;       /**< the row's StartAddr; 0 for code outside modules */
	uint64_t addresses;  /**< distinct instruction addresses executed */
	uint64_t executions; /**< instruction records executed */
} umt_coverage_module;

/** One executed instruction address of an entry. */
typedef struct umt_coverage_address {
	uint64_t address;    /**< the instruction's address */
	uint64_t executions; /**< instruction records of the entry at this address */
	uint32_t size;       /**< its length: the rows' CodeSize (the largest when they differ) */
} umt_coverage_address;

/** Entries of the coverage section: umt_module_count() + 1; 0 without the section. */
UMT_API uint64_t umt_coverage_count(const umt_index *ix);

/**
 * Entry @p entry (a module row, or umt_coverage_count() - 1 for code
 * outside modules).
 * @return 0 and *out; UMT_E_INVAL (NULL), UMT_E_MISSING (an index built
 *   without the section), UMT_E_RANGE (@p entry >= umt_coverage_count()),
 *   UMT_E_CORRUPT (the entry's addresses lie outside the address table;
 *   the message names cov.table and the entry's offset).
 */
UMT_API int umt_coverage_get(const umt_index *ix, uint64_t entry, umt_coverage_module *out);

/**
 * The @p k-th executed address of entry @p entry, in increasing address
 * order (k < the entry's addresses). O(1).
 * @return 0 and *out; the errors of umt_coverage_get(); UMT_E_RANGE (@p k).
 */
UMT_API int umt_coverage_address_get(const umt_index *ix, uint64_t entry, uint64_t k,
                                     umt_coverage_address *out);

/**
 * Whether entry @p entry executed an instruction at @p address: a binary
 * search of its addresses (O(log n)).
 * @return 1 with *out (may be NULL); 0 when it did not; the errors of
 *   umt_coverage_get().
 */
UMT_API int umt_coverage_find(const umt_index *ix, uint64_t entry, uint64_t address,
                              umt_coverage_address *out);

/** One address executed in one of two traces and not in the other (umt_coverage_diff()). */
typedef struct umt_coverage_delta {
	int side;           /**< 0: executed in the first index's trace only; 1: the second's */
	uint64_t group;     /**< the module group, counted from 0 over the groups that executed
	                         something, in the order they come */
	int64_t module_id;  /**< the module row in that side's trace; -1 outside modules */
	uint64_t offset;    /**< address - base of that row (the address outside modules) */
	uint64_t address;   /**< the address in that side's trace */
	uint64_t executions; /**< records at the address in that side's trace */
} umt_coverage_delta;

/** Called once per delta; a nonzero return stops umt_coverage_diff() with that value. */
typedef int (*umt_coverage_diff_fn)(const umt_coverage_delta *d, void *ctx);

/**
 * Compares the coverage of two traces (two indexes, each with its trace).
 * Modules are matched by file name: the last component of the Windows path,
 * compared ASCII-case-insensitively (as Windows does, and as Lighthouse
 * matches drcov modules to a database), and addresses by their offset from
 * the module's base, so that a module loaded at other bases in the two runs
 * still matches; rows of one name in one trace (a module loaded again) form
 * one group. Code outside modules is matched by address and forms the last
 * group. Calls @p fn for every (group, offset) executed in one trace and not
 * in the other: by group (in the order of their names' first rows, the
 * first trace's groups first), then by offset, side 0 before side 1; where
 * several rows of one side hold an offset, the first row's address.
 * Memory: O(addresses of both).
 * @return 0, or what @p fn returned to stop; UMT_E_INVAL, UMT_E_MISSING,
 *   UMT_E_NOMEM, UMT_E_CORRUPT, and the module name errors of the traces.
 */
UMT_API int umt_coverage_diff(const umt_index *a, const umt_index *b, umt_coverage_diff_fn fn,
                              void *ctx);

/* ==== 11. Calls ============================================================ */
/* (section owner: src/index/calls*.c) */

/*
 * The calls section of the index (built with the memory postings, in the
 * same scan): every call of every thread, with the ret that returned to it,
 * its depth and its parent. A call or a ret is an instruction record whose
 * row's semantics (umt_sem_get(), section 7b of umtrace.h) are UMT_SEM_CALL
 * or UMT_SEM_RET.
 *
 * THE MATCHING RULE. Frames are matched by their stack slot, never by
 * counting:
 *   - a call pushes its return address to a stack slot: the lowest address
 *     of its memory writes (the STACKPUSH access of umt_access_iter; a far
 *     call's return offset is its lowest pushed word). It opens a frame on
 *     its thread's stack with that slot;
 *   - a ret pops a slot: the lowest address of its memory reads (STACKPOP;
 *     ret, ret imm16, far ret and iret alike). It returns to the open frame
 *     of that slot, if any;
 *   - the stack pointer only grows toward higher addresses when frames go
 *     away, so an open frame whose slot is below a stack pointer the trace
 *     shows was left without a ret: it is ABANDONED (an exception unwound
 *     past it, longjmp, a thread switching to a handler's context). The
 *     stack pointers the trace shows: a call's (its slot + the push: frames
 *     at or below its slot are abandoned before it opens its own), a ret's
 *     (frames below its slot are abandoned; then the frame of its slot
 *     returns), and the register dump of a syscall exit or a context change
 *     (types 5, 8-11; frames below its rsp/esp are abandoned);
 *   - a tail jump (jmp to another function after undoing the frame) keeps
 *     the frame open: the callee's ret pops its slot and returns to it;
 *   - a ret whose slot holds no open frame (the thread started inside a
 *     function, a return address pushed by hand) is UNMATCHED: it only
 *     abandons the frames below its slot;
 *   - frames still open at their thread's last record (a thread that ended
 *     inside calls, an aborted process, a trace cut short) are OPEN: they
 *     have no return.
 * So a thread's open frames always have strictly decreasing slots, from the
 * outermost to the innermost, and the stack at a record is what these
 * events left. The depth of a call is the number of frames open in its
 * thread when it is made (0 for the outermost call the trace shows in the
 * thread: the trace may start inside calls it never saw), its parent the
 * innermost of them.
 *
 * Which records count. A call or ret is matched only when its stack slot's
 * address is trusted and its outputs are reliable (umt_exec_reliability():
 * a faulting call pushed nothing, a faulting ret did not return; an
 * aborted record, flag 0x80, is neither) and its ThreadID is a row of the
 * thread table; others are counted as ignored (umt_calls_info()). Far
 * calls and far rets are matched by their return offset's slot like near
 * ones; iret pops like a ret (it returns to a frame only when one has its
 * slot); syscall, sysenter and int n are not calls (the kernel's stack is
 * not traced), and their exit's register dump only abandons frames below
 * the stack pointer it restores.
 *
 * Limits. One stack per thread: a thread that switches stacks (fibers, a
 * stack pivot, WOW64's 64-bit stack beside the 32-bit one) has its frames
 * on the other stack abandoned at the next call, ret or context whose
 * stack pointer is above them. A stack pointer moved up by a plain
 * instruction (mov rsp, add rsp of a longjmp) is seen only at the next
 * call, ret or context of the thread: between the two, the abandoned frames
 * are still on the stack umt_stack_at() gives. Code the tracer did not
 * record (exec flag 0x02: instrumentation off) may have called and
 * returned unseen: its rets then match nothing, or unwind as above.
 *
 * The target of a call is where its thread went next: the address of the
 * thread's next record when it is an instruction record; else the target
 * decoded from the code bytes (a relative call), or the value of the call's
 * operand (a call through a register or memory), or unknown
 * (umt_call.target_source says which).
 */

/** How a frame ended. */
enum umt_call_end {
	UMT_CALL_RETURNED = 0,  /**< a ret popped its slot: return_id is that ret */
	UMT_CALL_ABANDONED = 1, /**< the stack went above it without a ret; end_id shows it */
	UMT_CALL_OPEN = 2       /**< still open at its thread's last record: no return */
};

/** Where umt_call.target comes from. */
enum umt_call_target {
	UMT_CALL_TARGET_NEXT = 0,    /**< the address of the thread's next record */
	UMT_CALL_TARGET_DECODED = 1, /**< decoded from a relative call's code bytes */
	UMT_CALL_TARGET_OPERAND = 2, /**< the value of the call's register or memory operand */
	UMT_CALL_TARGET_UNKNOWN = 3  /**< none of them: target is 0 */
};

/** One call. */
typedef struct umt_call {
	uint64_t id;             /**< the call instruction's record */
	int32_t thread_id;       /**< its thread-table row */
	uint32_t depth;          /**< frames open in the thread when it was made */
	uint64_t caller;         /**< address of the call instruction */
	uint64_t target;         /**< where it went (target_source) */
	uint64_t return_address; /**< caller + length: where its ret goes back to */
	uint64_t return_id;      /**< the ret record that returned to it; UMT_NO_RECORD when none */
	uint64_t end_id;         /**< the record that ended the frame: return_id, or the record
	                              that showed it abandoned; UMT_NO_RECORD when open. The
	                              frame is open at records N with id < N <= end_id */
	uint64_t parent;         /**< the call record of the enclosing frame; UMT_NO_RECORD */
	int64_t module;          /**< module row of target at the call (umt_module_find()), -1 */
	uint64_t module_offset;  /**< target - the module's StartAddr (0 without a module) */
	uint8_t end;             /**< enum umt_call_end */
	uint8_t target_source;   /**< enum umt_call_target */
	uint8_t length;          /**< bytes of the call instruction */
} umt_call;

/** Counts of the calls section. */
typedef struct umt_calls_info {
	uint64_t calls;     /**< calls indexed */
	uint64_t threads;   /**< threads that made calls */
	uint64_t targets;   /**< distinct targets */
	uint64_t returned;  /**< frames a ret returned to */
	uint64_t abandoned; /**< frames left without a ret */
	uint64_t open;      /**< frames open at their thread's last record */
	uint64_t unmatched; /**< rets that returned to no open frame */
	uint64_t ignored;   /**< call and ret records not matched (untrusted, see above) */
} umt_calls_info;

/**
 * The counts of the calls section of @p ix.
 * @return 0; UMT_E_INVAL; UMT_E_MISSING (the index has no calls section:
 *   built by a library without it).
 */
UMT_API int umt_calls_info_get(const umt_index *ix, umt_calls_info *out);

/** Which calls; start from umt_calls_query_init(). */
typedef struct umt_calls_query {
	int64_t thread;       /**< only this thread-table row; -1 (default): every thread */
	uint64_t target_first; /**< only targets in [target_first, target_last] (default: all) */
	uint64_t target_last;
	int64_t module;       /**< only targets in this module row at the call (umt_module_find())
	                           and at offsets [offset_first, offset_last] of it; -1 (default):
	                           any */
	uint64_t offset_first, offset_last;
	uint64_t from;        /**< only calls made at records >= from (default 0) */
	uint64_t to;          /**< and < to (default UINT64_MAX) */
	uint64_t limit;       /**< at most this many; 0 (default): all */
} umt_calls_query;

/** Fills @p q: every call. */
UMT_API void umt_calls_query_init(umt_calls_query *q);

/** Calls being read (opaque; it allocates). */
typedef struct umt_calls umt_calls;

/**
 * Starts reading the calls of the query in record order. Cost: a binary
 * search per thread (or per target of the range, with a target or module),
 * then a few loads per call.
 * @return 0 and *out; UMT_E_INVAL (NULL, target_first > target_last,
 *   offset_first > offset_last), UMT_E_RANGE (module >= umt_module_count()),
 *   UMT_E_MISSING (no calls section), UMT_E_NOMEM, UMT_E_CORRUPT (a damaged
 *   section file, named with the offset).
 */
UMT_API int umt_calls_open(const umt_index *ix, const umt_calls_query *q, umt_calls **out);

/**
 * The next call. @return 1 with *out; 0 at the end (or the limit);
 *   UMT_E_INVAL; UMT_E_CORRUPT.
 */
UMT_API int umt_calls_next(umt_calls *c, umt_call *out);

/** Releases @p c (NULL allowed). */
UMT_API void umt_calls_close(umt_calls *c);

/**
 * The call made by record @p id. @return 0 and *out; UMT_E_INVAL,
 *   UMT_E_RANGE (id >= the record count), UMT_E_NOT_FOUND (not a call the
 *   index holds), UMT_E_MISSING, UMT_E_CORRUPT, the trace's errors for the
 *   record.
 */
UMT_API int umt_call_find(const umt_index *ix, uint64_t id, umt_call *out);

/* ==== 12. The call stack at a record ====================================== */

/** A frame of a call stack. */
typedef struct umt_frame {
	umt_call call;          /**< the open call */
	int64_t module;         /**< module row of call.return_address at the record, -1 */
	uint64_t module_offset; /**< return_address - the module's StartAddr (0 without) */
} umt_frame;

/**
 * The call stack of thread @p thread just before record @p at executes
 * (section 11: the calls with id < at <= end_id), innermost first: frames
 * [0, min(cap, *depth)) into @p frames (NULL when cap is 0), their number
 * in *depth. @p thread -1 takes the thread of record @p at; for another
 * thread, its stack after its last record before @p at. Cost: a binary
 * search in the thread's calls and a walk up the parents.
 * @return 0; UMT_E_INVAL (NULL), UMT_E_RANGE (at >= the record count),
 *   UMT_E_MISSING, UMT_E_CORRUPT, the trace's errors for record @p at.
 */
UMT_API int umt_stack_at(const umt_index *ix, uint64_t at, int64_t thread, umt_frame *frames,
                         size_t cap, size_t *depth);

/* ==== 13. Arguments and return values ====================================== */

/** The most arguments umt_call_args() reads. */
#define UMT_CALL_MAX_ARGS 64

/**
 * The first @p n arguments of call @p c (from umt_calls_next(),
 * umt_call_find() or umt_stack_at()) by the calling convention of its code,
 * the mode of the call record (umt_state.is_64bit):
 *   - 64-bit code, x64 Windows: arguments 0-3 are rcx, rdx, r8 and r9 at
 *     the call record (umt_state_at(): their values just before the call);
 *     argument i >= 4 is the 8-byte word at rsp + 8 * i, rsp the stack
 *     pointer at the call record (at the callee's first record, after the
 *     push of the return address, that is [rsp + 0x28 + 8 * (i - 4)]);
 *   - 32-bit code (cdecl, stdcall): argument i is the 4-byte word at esp +
 *     4 * i, esp at the call record ([esp + 4 + 4 * i] at the callee).
 * Stack words are read with umt_mem_at() at the callee's first record (the
 * thread's record after the call). values[i] receives the value and
 * known[i] 1 when every byte of it is known; an unknown argument (a
 * register or a stack word with an unknown byte, a thread with no record
 * after the call, a stack pointer unknown) has value 0 and known 0: never
 * guessed. Limits: the convention is assumed, never checked (a fastcall,
 * thiscall or vectorcall callee, floating-point arguments in xmm registers,
 * and arguments passed by reference are not told apart; a callee with
 * fewer arguments shows whatever the registers and stack hold); a far
 * call's stack arguments are read as a near call's. @p s is a state of
 * umt_state_init() for @p ix, reused by the calls (it holds the call
 * record's registers afterwards). Cost: one umt_state_at() and, beyond the
 * register arguments, one umt_mem_at() per stack argument.
 * @return 0; UMT_E_INVAL (NULL, n > UMT_CALL_MAX_ARGS, a state of another
 *   index), UMT_E_MISSING (the index has no register section), and the
 *   errors of umt_state_at() and umt_mem_at().
 */
UMT_API int umt_call_args(const umt_index *ix, const umt_call *c, umt_state *s, unsigned n,
                          uint64_t *values, uint8_t *known);

/**
 * The return value of call @p c: rax (64-bit code) or eax (32-bit code) at
 * its ret record (c->return_id: umt_state_at(), the value just before the
 * ret, which the callee left there). A call that did not return (abandoned
 * or open) has none. @p s as for umt_call_args().
 * @return 1 with *value; 0 when there is none or a byte of it is unknown
 *   (*value 0); UMT_E_INVAL, UMT_E_MISSING, the errors of umt_state_at().
 */
UMT_API int umt_call_return_value(const umt_index *ix, const umt_call *c, umt_state *s,
                                  uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* UMTRACE_INDEX_H */
