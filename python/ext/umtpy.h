/*
 * The Python extension's own C helpers: loops that fill numpy arrays from a
 * trace, so that Python pays its per-call cost once per array, not once per
 * record. They use only the public API of umtrace.h and index.h. cffi
 * calls them with the GIL released, so Python threads run them in
 * parallel.
 *
 * Every array argument is caller-owned (numpy) memory of at least the
 * stated number of entries; a NULL column is not wanted and not written.
 */
#ifndef UMTPY_H
#define UMTPY_H

#include <stdint.h>

#include "umtrace/index.h"
#include "umtrace/umtrace.h"

/* ---- records per instruction row (counts.c) ---------------------------- */

/**
 * Adds the instruction records of [@p begin, @p end) to @p counts (@p rows
 * entries, by InsID); those whose InsID has no row go to *@p without.
 * @return the instruction records, or an error (the bad record's ID in
 * *@p failed).
 */
int64_t umtpy_row_counts(const umt_trace *t, uint64_t begin, uint64_t end, int64_t *counts,
                         uint64_t rows, uint64_t *without, uint64_t *failed);

/* ---- per-record columns (columns.c) ------------------------------------ */

/** Per-row facts of the instruction table, looked up by InsID while filling columns. */
typedef struct umtpy_ins_cache {
	uint64_t count;           /**< rows */
	const uint64_t *address;  /**< insRec Address */
	const int16_t *mnemonic;  /**< decodedIns Mnemonic, -1 when the row does not decode */
	const int16_t *category;  /**< decodedIns Category, -1 likewise */
	const int16_t *form;      /**< decodedIns Form, -1 likewise */
	const int32_t *module;    /**< insRec ModuleID as stored */
} umtpy_ins_cache;

/**
 * Fills the cache's arrays (count entries each, writable) from the
 * instruction table: rows that cannot be read get address 0, module -1,
 * and rows whose decodedIns is refused get -1 mnemonic, category, form.
 * @p status receives per row 0 (good), or the negative error of the row
 * (umt_ins_get) or of its decoded body (umt_ins_decoded).
 */
void umtpy_ins_cache_fill(const umt_trace *t, uint64_t count, uint64_t *address,
                          int16_t *mnemonic, int16_t *category, int16_t *form, int32_t *module,
                          int32_t *status);

/** Output columns; each non-NULL one has room for every row filled. */
typedef struct umtpy_cols {
	uint64_t *id;         /**< record ID */
	int32_t *thread;      /**< execRec ThreadID */
	uint8_t *type;        /**< execRec Type */
	uint8_t *flags;       /**< execRec Flags */
	uint64_t *offset;     /**< offset of the record in exec.vtable */
	uint64_t *size;       /**< bytes of the record */
	int64_t *ins_id;      /**< InsID of instruction records, -1 for other types */
	uint64_t *address;    /**< the instruction row's Address, 0 without a row */
	int16_t *mnemonic;    /**< the row's decoded Mnemonic, -1 without one */
	int16_t *category;    /**< the row's decoded Category, -1 without one */
	int16_t *form;        /**< the row's decoded Form, -1 without one */
	int32_t *module;      /**< the row's ModuleID, -1 without a row */
	int64_t *syscall_id;  /**< SyscallID of syscall entry, exit, skipped-exit records, else -1 */
	int32_t *exit_code;   /**< ExitCode of thread-end and app-end records, else 0 */
	uint8_t *ok;          /**< 1 for a record read, 0 for a bad one skipped */
} umtpy_cols;

/**
 * Fills row i of @p out from record begin + i, for the records [begin,
 * end) (end clamped to the record count), through the block iterator.
 * A bad record: with @p skip_bad its row has ok 0, type 255, thread -1
 * and the other columns as for a record of no type; else the fill stops
 * there and *failed receives its ID.
 * @return the rows filled (end - begin); a negative error (umt_errmsg()
 *   names the record) when a bad record stopped it.
 */
int64_t umtpy_columns(const umt_trace *t, uint64_t begin, uint64_t end,
                      const umtpy_ins_cache *cache, const umtpy_cols *out, int skip_bad,
                      uint64_t *failed);

/**
 * Fills up to @p cap rows of @p out with the next records of a thread
 * iterator (its chain order), as umtpy_columns() fills a row. A bad
 * record or link ends the chain: *status receives its error (0 when none)
 * and the rows before it are returned.
 * @return rows filled (fewer than cap at the end of the chain).
 */
int64_t umtpy_chain_fill(umt_thread_iter *it, const umtpy_ins_cache *cache,
                         const umtpy_cols *out, uint64_t cap, int *status);

/* ---- memory accesses (accesses.c, history.c) ---------------------------- */

/** One memory access, the row type of numpy's access arrays (48 bytes). */
typedef struct umtpy_access_row {
	uint64_t id;          /**< record */
	uint64_t address;     /**< first byte */
	uint64_t size;        /**< bytes */
	uint64_t data_offset; /**< offset of the value bytes in exec.vtable */
	int32_t thread;       /**< the record's ThreadID */
	uint32_t locator;     /**< LC slot index, or context block index */
	uint16_t reg_name;    /**< slot RegName as unsigned (MEM0 is 0xffff); 0 for context blocks */
	uint8_t kind;         /**< enum umt_access_kind */
	uint8_t phase;        /**< 0 before execution, 1 after */
	uint8_t trust;        /**< enum umt_trust bits */
	uint8_t addr_width;   /**< AddrWidth of the slot; 8 for context blocks */
	uint8_t pad[2];       /**< zero */
} umtpy_access_row;

/** Copies @p a into @p row; @p records is exec.vtable's first byte. */
void umtpy_access_put(umtpy_access_row *row, const umt_access *a, const uint8_t *records);

/** The accesses of a range of records, in record order then access order. */
typedef struct umtpy_access_scan {
	umt_exec_iter recs;  /**< records not started yet */
	umt_access_iter acc; /**< the current record's accesses, when in_record */
	uint64_t current;    /**< the record of acc */
	unsigned kinds;      /**< UMT_ACCESS_* wanted */
	int in_record;       /**< 1 while acc has accesses left */
	int skip_bad;        /**< 1: a record whose accesses cannot be read is passed over */
} umtpy_access_scan;

/**
 * Prepares @p s for records [begin, end) and access kinds @p kinds.
 * @return 0; the errors of umt_exec_iter_init(); UMT_E_INVAL for kinds 0
 *   or unknown bits.
 */
int umtpy_access_scan_init(umtpy_access_scan *s, const umt_trace *t, uint64_t begin,
                           uint64_t end, unsigned kinds, int skip_bad);

/**
 * Fills up to @p cap rows with the next accesses. A bad record (it cannot
 * be read, or its accesses cannot: a bad instruction row, a context block
 * outside its record) stops the scan with its error and *failed set to its
 * ID, unless skip_bad. Calling again goes on after it.
 * @return rows filled (0 at the end); a negative error.
 */
int64_t umtpy_access_scan_next(umtpy_access_scan *s, umtpy_access_row *rows, uint64_t cap,
                               uint64_t *failed);

/**
 * Fills up to @p cap rows with the next accesses of history @p h.
 * @return rows filled (0 at the end or the query's limit); a negative
 *   error of umt_history_next().
 */
int64_t umtpy_history_fill(umt_history *h, const uint8_t *records, umtpy_access_row *rows,
                           uint64_t cap);

/**
 * Opens the history of the query (as umt_history_query's fields say) and
 * fills up to @p cap rows. When more may follow, *more receives the open
 * history (continue with umtpy_history_fill(), then umt_history_close());
 * else *more is NULL and nothing is left open.
 * @return rows filled; a negative error of umt_history_open() or
 *   umt_history_next().
 */
int64_t umtpy_history_first(const umt_index *ix, uint64_t address, uint64_t length,
                            uint64_t from, uint64_t to, unsigned kinds, int64_t thread,
                            int reverse, uint64_t limit, const uint8_t *records,
                            umtpy_access_row *rows, uint64_t cap, umt_history **more);

/* ---- support (support.c) ------------------------------------------------ */

/** The first byte of exec.vtable in the mapping (offsets are from here). */
const uint8_t *umtpy_records_base(const umt_trace *t);

/* ---- references for the benchmark (reference.c) -------------------------- */

/** umtbench's block scan ("scan"): thread, type, flags and InsID of every record, summed. */
uint64_t umtpy_ref_block_scan(const umt_trace *t, uint64_t begin, uint64_t end);

/**
 * The loop Python's history() runs, in C: for each i < @p n, the accesses
 * of [addresses[i], addresses[i] + length) before record to[i], of @p kinds,
 * newest first when @p reverse, at most @p limit (0: all).
 * @return the accesses found in all; a negative error.
 */
int64_t umtpy_ref_history(const umt_index *ix, const uint64_t *addresses, const uint64_t *to,
                          uint64_t n, uint64_t length, unsigned kinds, int reverse, uint64_t limit);

/**
 * The loop Python's mem() runs, in C: memory at record at[i] of the
 * @p length bytes at addresses[i], for each i < @p n, into the same
 * buffers (length entries each).
 * @return 0; the first error of umt_mem_at().
 */
int umtpy_ref_mem(const umt_index *ix, const uint64_t *at, const uint64_t *addresses,
                  uint64_t n, uint64_t length, uint8_t *data, uint8_t *known, uint64_t *sources);

/* ---- tests (testing.c) -------------------------------------------------- */

/**
 * A barrier in C: adds one to *arrived and waits until @p parties callers
 * have arrived or @p timeout_ms passed. Called from several Python threads
 * at once, it returns 1 in each only if their calls overlapped in time,
 * which they cannot if a call held the GIL.
 * @return 1 when all arrived; 0 on timeout.
 */
int umtpy_test_rendezvous(int *arrived, int parties, int timeout_ms);

/**
 * The Zydis semantics (umt_sem_get()) of instruction rows [begin, end) into
 * the arrays (end - begin entries each). @return the rows; a negative status
 * with *failed the row that failed.
 */
int64_t umtpy_sem_rows(const umt_trace *t, uint64_t begin, uint64_t end, uint16_t *mnemonic,
                       uint8_t *category, uint8_t *zydis_category, uint8_t *flags,
                       uint8_t *length, uint64_t *target, uint64_t *failed);

/**
 * The semantics of the @p n instruction rows listed in @p rows, each on its
 * own: status[k] is 0, or the error of row rows[k] (code bytes that do not
 * decode, a row that does not exist), and then its fields are 0. Counting
 * instruction records by mnemonic needs only the rows they executed.
 */
int64_t umtpy_sem_pick(const umt_trace *t, const int64_t *rows, uint64_t n, uint16_t *mnemonic,
                       uint8_t *zydis_category, uint8_t *category, int32_t *status);

#endif /* UMTPY_H */
