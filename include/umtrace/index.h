/*
 * libumtrace - the analysis layer: an on-disk index of a trace that answers
 * state questions without scanning the trace.
 *
 * Map of this header:
 *   1. What "value at record N" means (one definition for every query)
 *   2. Building an index: umt_index_build()
 *   3. Opening an index: umt_index_open(), where indexes live
 *   4. Memory history: who touched [A, A + L), when
 *   5. Memory contents at a record: umt_mem_at()
 *   6. Checking an index against its trace: umt_index_verify()
 *  10. Calls: how calls and returns are matched, umt_calls_open()
 *  11. The call stack at a record: umt_stack_at()
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
} umt_index_build_options;

/** Defaults: all processors, 256 MiB, no progress. NULL is allowed. */
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
 * @return 0; UMT_E_INVAL, UMT_E_NOMEM, UMT_E_IO, and the errors of the
 *   trace's accessors for a corrupt record.
 */
UMT_API int umt_index_build(const umt_trace *t, const char *dir,
                            const umt_index_build_options *o, umt_index_build_stats *stats);

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
 * of the trace gives.
 * @return 0; UMT_E_CORRUPT (the first problem in umt_errmsg()), the errors
 *   of the queries.
 */
UMT_API int umt_index_verify(const umt_index *ix);

/* ==== 10. Calls ============================================================ */
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

/* ==== 11. The call stack at a record ====================================== */

/** A frame of a call stack. */
typedef struct umt_frame {
	umt_call call;          /**< the open call */
	int64_t module;         /**< module row of call.return_address at the record, -1 */
	uint64_t module_offset; /**< return_address - the module's StartAddr (0 without) */
} umt_frame;

/**
 * The call stack of thread @p thread just before record @p at executes
 * (section 10: the calls with id < at <= end_id), innermost first: frames
 * [0, min(cap, *depth)) into @p frames (NULL when cap is 0), their number
 * in *depth. @p thread -1 takes the thread of record @p at; for another
 * thread, its stack after its last record before @p at. Cost: a binary
 * search in the thread's calls and a walk up the parents.
 * @return 0; UMT_E_INVAL (NULL), UMT_E_RANGE (at >= the record count),
 *   UMT_E_MISSING, UMT_E_CORRUPT, the trace's errors for record @p at.
 */
UMT_API int umt_stack_at(const umt_index *ix, uint64_t at, int64_t thread, umt_frame *frames,
                         size_t cap, size_t *depth);

#ifdef __cplusplus
}
#endif

#endif /* UMTRACE_INDEX_H */
