/*
 * libumtrace - the calls section of the index (bit 2; docs/index-format.md,
 * "The calls section"; index.h sections 11 to 13): its on-disk layout, the
 * events the build extracts from the records, the replay that matches
 * calls with returns (the one place the matching rule of index.h is
 * implemented), and what an open index keeps of the section.
 *
 * The build. The scan's ranges (section.h) extract events in record order:
 * a call (its stack slot, caller, length, target), a ret (its slot), a
 * stack pointer a context record sets, and the address of the record that
 * follows a call in its thread. Extraction knows nothing of the calls open
 * at a range's start: the events are what the range saw, relative to any
 * start. assemble() replays every range's events in record order, which
 * composes them: the stack of each thread at the start of range k is the
 * one the replay of ranges 0 to k - 1 left. Events are varint-coded and
 * spilled to scratch files beyond a small buffer per range; the replay's
 * per-thread stacks spill their bottom blocks, the table is written
 * through per-thread windows (rows that leave a window open are patched
 * in place later), and the index by target is an external sort: memory
 * stays bounded whatever the trace size.
 */
#ifndef UMTRACE_IX_CALLS_H
#define UMTRACE_IX_CALLS_H

#include "encode.h"
#include "section.h"

/* ---- the files (docs/index-format.md) ----------------------------------------------------- */

#define UMT_IX_CALLS_BIT 2u

#define UMT_IX_CALLS_TAB "calls.tab" /* the calls, in (thread, call record) order */
#define UMT_IX_CALLS_THR "calls.thr" /* per thread: its rows of calls.tab */
#define UMT_IX_CALLS_TGT "calls.tgt" /* per distinct target: its entries of calls.byt */
#define UMT_IX_CALLS_BYT "calls.byt" /* rows of calls.tab by (target, call record) */

#pragma pack(push, 1)

/** A row of calls.tab: one call (48 bytes). */
typedef struct umt_ix_call_row {
	uint64_t CallID; /* the call instruction's record */
	uint64_t EndID;  /* the record that closed the frame; UINT64_MAX: open at the end */
	uint64_t Caller; /* address of the call instruction */
	uint64_t Target;
	uint64_t Parent; /* row of the enclosing call, UINT64_MAX: none */
	uint32_t Depth;
	uint8_t Length;  /* bytes of the call instruction */
	uint8_t Flags;   /* UMT_IX_CALL_END(): enum umt_call_end; UMT_IX_CALL_SOURCE(): umt_call_target */
	uint16_t Zero;
} umt_ix_call_row;
UMT_ASSERT_OFFSET(umt_ix_call_row, EndID, 8);
UMT_ASSERT_OFFSET(umt_ix_call_row, Target, 24);
UMT_ASSERT_OFFSET(umt_ix_call_row, Parent, 32);
UMT_ASSERT_OFFSET(umt_ix_call_row, Depth, 40);
UMT_ASSERT_OFFSET(umt_ix_call_row, Flags, 45);
UMT_ASSERT_SIZE(umt_ix_call_row, 48);

/** An entry of calls.thr (24 bytes). */
typedef struct umt_ix_call_thread {
	int32_t Thread;    /* thread-table row; strictly increasing */
	uint32_t Zero;
	uint64_t FirstRow; /* the sum of the earlier entries' counts */
	uint64_t Count;    /* at least 1 */
} umt_ix_call_thread;
UMT_ASSERT_OFFSET(umt_ix_call_thread, FirstRow, 8);
UMT_ASSERT_SIZE(umt_ix_call_thread, 24);

/** An entry of calls.tgt (24 bytes). */
typedef struct umt_ix_call_target {
	uint64_t Target; /* strictly increasing */
	uint64_t First;  /* its first entry of calls.byt: the sum of the earlier counts */
	uint64_t Count;  /* at least 1 */
} umt_ix_call_target;
UMT_ASSERT_OFFSET(umt_ix_call_target, First, 8);
UMT_ASSERT_SIZE(umt_ix_call_target, 24);

#pragma pack(pop)

#define UMT_IX_CALL_END(flags) ((unsigned)(flags) & 3u)
#define UMT_IX_CALL_SOURCE(flags) (((unsigned)(flags) >> 2) & 3u)
#define UMT_IX_CALL_FLAGS(end, source) ((uint8_t)((end) | (source) << 2))
#define UMT_IX_CALL_FLAGS_MASK 0x0fu

/* The section's eight counts (SectionInfo of bit 2). */
enum {
	CALLS_INFO_CALLS = 0,     /* rows of calls.tab and entries of calls.byt */
	CALLS_INFO_THREADS = 1,   /* entries of calls.thr */
	CALLS_INFO_TARGETS = 2,   /* entries of calls.tgt */
	CALLS_INFO_RETURNED = 3,  /* calls whose frame a ret popped */
	CALLS_INFO_ABANDONED = 4, /* frames the stack left without a ret */
	CALLS_INFO_OPEN = 5,      /* frames still open at their thread's last record */
	CALLS_INFO_UNMATCHED = 6, /* rets that popped no open frame */
	CALLS_INFO_IGNORED = 7    /* call and ret records not matched: untrusted stack slot or
	                             outputs, or a thread outside the thread table */
};

/* ---- events ------------------------------------------------------------------------------ */

enum { CEV_CALL = 0, CEV_RET = 1, CEV_SP = 2, CEV_NEXT = 3 };

/** One event of the scan, in record order. */
struct call_event {
	uint64_t id;     /* the record */
	uint64_t value;  /* CALL, RET: the stack slot; SP: the stack pointer; NEXT: the address */
	uint64_t caller; /* CALL: the call's address */
	uint64_t target; /* CALL: the target as known so far */
	int32_t thread;
	uint8_t kind;    /* CEV_* */
	uint8_t length;  /* CALL: bytes of the instruction */
	uint8_t source;  /* CALL: enum umt_call_target of target; NEXT: UMT_CALL_TARGET_NEXT
	                    (value is the record's address) or UMT_CALL_TARGET_UNKNOWN (the
	                    record is not an instruction) */
	uint8_t final;   /* CALL: the target is final (the next record of the thread was seen) */
};

/** The coding state of an event stream (deltas against the previous event). */
struct call_coder {
	uint64_t id, value, address;
	int32_t thread;
};

/** Bytes an encoded event takes at most. */
#define CALL_EVENT_MAX 48u

/** Encodes @p e into @p out (CALL_EVENT_MAX bytes); returns the bytes written. */
UMT_HIDDEN size_t umt__ix_call_encode(struct call_coder *c, const struct call_event *e,
                                      uint8_t *out);

/**
 * Decodes the event at [*p, end) into @p e. @return 1 with *p moved past
 * it; 0 when it runs past end (a truncated event); -1 when malformed.
 */
UMT_HIDDEN int umt__ix_call_decode(struct call_coder *c, const uint8_t **p, const uint8_t *end,
                                   struct call_event *e);

/* ---- sizes ----------------------------------------------------------------------------------- */

/**
 * The sizes of the section's buffers, each a constant of the build
 * (defined in callscan.c). Tests shrink them so that every spill path runs
 * on small traces; the files must come out the same bytes.
 */
struct calls_limits {
	uint32_t chunk;       /* events a range buffers before encoding them (<= CALL_CHUNK_MAX) */
	size_t tail_cap;      /* bytes of encoded events a range holds while it scans */
	size_t tail_keep;     /* ... and keeps after its scan when it spilled nothing */
	uint32_t stack_block; /* frames of a spilled block of a replay's stack */
	uint32_t window_min;  /* rows of a thread's window in calls.tab, at least */
	uint32_t window_max;  /* ... and at most */
	size_t window_bytes;  /* the windows together */
	size_t patch_max;     /* patches gathered before they are applied */
	size_t sort_entries;  /* entries the sorter holds in memory */
	unsigned sort_depth;  /* partitions of its sort per log2 of the entries before it
	                       * falls back to a heap sort (callsort.c; 0: at once) */
	size_t merge_bytes;   /* the merge's read buffers together */
	size_t merge_min;     /* entries of one run's read buffer, at least */
};

#define CALL_CHUNK_MAX 1024u

UMT_HIDDEN extern struct calls_limits umt__ix_calls_limits;

/* ---- the scan's per-range state (callscan.c) ----------------------------------------------- */

/** Calls of one thread in one range. */
struct call_count {
	int32_t thread;
	uint64_t calls;
};

/** A piece of a range's event stream in the build's spill file. */
struct call_segment {
	uint64_t at, bytes;
};

/** What a range leaves for assemble(). */
struct calls_range {
	struct ix_build *b;
	uint64_t first, end;        /* its records */
	/* the event stream: segments in the spill file, then the tail in memory */
	struct call_segment *segs;
	size_t nsegs, segs_cap;
	uint8_t *tail;
	size_t tail_len, tail_cap;
	struct call_coder coder;
	/* calls per thread */
	struct call_count *counts;
	size_t ncounts;
	uint64_t ignored;
	/* during the scan only (freed by range_end) */
	struct scan_threads *scan;
};

/** The range hooks (callscan.c). */
UMT_HIDDEN int umt__ix_calls_range_begin(struct ix_build *b, unsigned range, uint64_t first,
                                         uint64_t end, void **state);
UMT_HIDDEN int umt__ix_calls_record(void *state, const umt_rec *r);
UMT_HIDDEN int umt__ix_calls_range_end(struct ix_build *b, void *state);
UMT_HIDDEN void umt__ix_calls_free_state(void *state);

/**
 * Reads back the events of range @p s in order, calling @p fn for each.
 * @return 0; the first nonzero result of fn; UMT_E_IO, UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ix_calls_range_events(const struct calls_range *s,
                                          int (*fn)(void *ctx, const struct call_event *e),
                                          void *ctx);

/**
 * The events of record @p r in its thread's context: extraction shared by
 * the build's scan and the verification. @p th is the state of r's thread
 * (zeroed at a range's start), @p emit receives the events in order.
 */
struct call_thread_scan {
	uint8_t seen;     /* a record of the thread was seen in the range */
	uint8_t pending;  /* its last record was a call whose target awaits its next record */
	uint32_t chunk;   /* the build's buffer chunk holding that call event */
	uint32_t index;   /* its index there */
};

struct call_extract {
	const umt_trace *t;
	int exec_version;
	int rsp, esp;     /* registers of the context map (-1 when absent) */
	uint64_t ignored; /* call and ret records not matched */
	int (*emit)(void *ctx, const struct call_event *e, struct call_thread_scan *th);
	/* resolves th's pending call with the address of its thread's next record */
	int (*resolve)(void *ctx, struct call_thread_scan *th, const struct call_event *next);
	void *ctx;
};

/** Prepares @p x for trace @p t. @return 0; the trace's errors. */
UMT_HIDDEN int umt__ix_call_extract_init(struct call_extract *x, const umt_trace *t);

/** The events of @p r; @p th is NULL for a thread outside the thread table. */
UMT_HIDDEN int umt__ix_call_extract(struct call_extract *x, const umt_rec *r,
                                    struct call_thread_scan *th);

/* ---- the replay (callreplay.c) ------------------------------------------------------------- */

/** A call as the replay opens it. */
struct call_open {
	uint64_t row, id, caller, target, parent;
	uint32_t depth;
	int32_t thread;
	uint8_t length, source;
	uint8_t final; /* the target is final; else call_sink.target() comes later */
};

/** Where the replay's results go: the build's writer, or verify's checker. */
struct call_sink {
	int (*open)(void *ctx, const struct call_open *c);
	int (*target)(void *ctx, int32_t thread, uint64_t row, uint64_t id, uint64_t target,
	              unsigned source);
	int (*close)(void *ctx, int32_t thread, uint64_t row, uint64_t end_id, unsigned end);
	void *ctx;
};

/**
 * Scratch space for what does not fit memory: the build's spill file
 * (umt__ixb_spill()), or a temporary file for verify. write() appends and
 * says where, read() reads back.
 */
struct call_spill {
	int (*write)(void *ctx, const void *p, size_t n, uint64_t *at);
	int (*read)(void *ctx, void *p, size_t n, uint64_t at);
	void *ctx;
};

struct call_replay;

/**
 * A replay of @p nthreads threads (thread-table rows) whose calls start at
 * rows @p base[thread] (UINT64_MAX for a thread that must have none: its
 * first call is an error naming @p what). Frees nothing it is given.
 * @return 0; UMT_E_NOMEM.
 */
UMT_HIDDEN int umt__ix_replay_new(uint64_t nthreads, const uint64_t *base,
                                  const struct call_sink *sink, const struct call_spill *spill,
                                  const char *what, struct call_replay **out);

/** Applies one event (index.h's matching rule). @return 0; the sink's errors. */
UMT_HIDDEN int umt__ix_replay_event(struct call_replay *r, const struct call_event *e);

/**
 * Ends the replay: the frames still open are closed as UMT_CALL_OPEN, the
 * pending targets made final. Fills info[CALLS_INFO_RETURNED..UNMATCHED]
 * and, per thread, the rows used (calls[thread], may be NULL).
 * @return 0; the sink's errors.
 */
UMT_HIDDEN int umt__ix_replay_finish(struct call_replay *r, uint64_t info[UMT_IX_INFO_WORDS],
                                     uint64_t *calls);

UMT_HIDDEN void umt__ix_replay_free(struct call_replay *r);

/* ---- assembling the files (callwrite.c, callsort.c) ----------------------------------------- */

/** pread() of all of @p n bytes at @p at of @p fd (@p what names it). @return 0; UMT_E_IO. */
UMT_HIDDEN int umt__ix_calls_pread(int fd, void *p, size_t n, uint64_t at, const char *what);

/** The calls section's assemble hook. */
UMT_HIDDEN int umt__ix_calls_assemble(struct ix_build *b, void *const *states, unsigned nranges,
                                      uint64_t info[UMT_IX_INFO_WORDS]);

/** An entry of the index by target while it is sorted. */
struct call_key {
	uint64_t target, id, row;
};

struct call_sorter;

/** A sorter whose runs go to the build's spill file. @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_csort_new(struct ix_build *b, struct call_sorter **out);
/** Adds one entry. @return 0; UMT_E_IO, UMT_E_NOMEM. */
UMT_HIDDEN int umt__ix_csort_add(struct call_sorter *s, const struct call_key *k);
/**
 * Writes calls.tgt and calls.byt (created here) from the sorted entries;
 * *targets receives the number of distinct targets. @return 0; errors.
 */
UMT_HIDDEN int umt__ix_csort_finish(struct call_sorter *s, uint64_t *targets);
UMT_HIDDEN void umt__ix_csort_free(struct call_sorter *s);

/* ---- an open index (callopen.c) --------------------------------------------------------------- */

/** What an open index keeps of the section (ix->section_data[2]). */
struct calls_data {
	struct umt_map tab, thr, tgt, byt;
	uint64_t calls, threads, targets;
	uint64_t info[UMT_IX_INFO_WORDS];
	const umt_ix_call_thread *thread_dir;
	const umt_ix_call_target *target_dir;
	const uint8_t *rows;   /* calls.tab after its header */
	const uint8_t *by_target; /* calls.byt after its header: u64 rows */
};

UMT_HIDDEN extern const struct ix_section umt__ix_calls_section;
UMT_HIDDEN int umt__ix_calls_open(umt_index *ix, const struct ix_source *src,
                                  const uint64_t info[UMT_IX_INFO_WORDS]);
UMT_HIDDEN void umt__ix_calls_close(umt_index *ix);
UMT_HIDDEN int umt__ix_calls_verify(const umt_index *ix);

/** The section's data of @p ix, or NULL (with a message) when it has none. */
static inline const struct calls_data *umt__ix_calls(const umt_index *ix)
{
	return umt__ix_section_of(ix, UMT_IX_CALLS_BIT, "calls");
}

/**
 * Row @p row of calls.tab, checked: CallID < RecordCount, Flags, Zero,
 * Parent < row (or none), EndID after CallID (or none).
 * @return 0; UMT_E_CORRUPT naming calls.tab and the offset.
 */
UMT_HIDDEN int umt__ix_call_row(const umt_index *ix, const struct calls_data *d, uint64_t row,
                                umt_ix_call_row *out);

/**
 * Entry @p i (< d->threads) of calls.thr, checked (its rows inside calls.tab).
 * @return 0; UMT_E_CORRUPT.
 */
UMT_HIDDEN int umt__ix_call_thread_at(const struct calls_data *d, uint64_t i,
                                      umt_ix_call_thread *out);

/** The entry of calls.thr of @p thread. @return 1 with *out; 0 none; UMT_E_CORRUPT. */
UMT_HIDDEN int umt__ix_call_thread_find(const struct calls_data *d, int64_t thread,
                                        umt_ix_call_thread *out);

/** The thread of row @p row. @return 0; UMT_E_CORRUPT (no entry holds it). */
UMT_HIDDEN int umt__ix_call_thread_of(const struct calls_data *d, uint64_t row, int32_t *thread);

/** Fills the public view of row @p row of thread @p thread (parent's record, module). */
UMT_HIDDEN int umt__ix_call_fill(const umt_index *ix, const struct calls_data *d, uint64_t row,
                                 const umt_ix_call_row *cr, int32_t thread, umt_call *out);

/**
 * The first row of [lo, hi) (rows of one thread) whose CallID is >= @p id
 * (hi when none), by binary search. @return 0; UMT_E_CORRUPT.
 */
UMT_HIDDEN int umt__ix_call_lower_bound(const umt_index *ix, const struct calls_data *d,
                                        uint64_t lo, uint64_t hi, uint64_t id, uint64_t *out);

/** Reports a corrupt calls file: "calls.tab: at offset 0x...: ...". */
#define umt__ix_calls_corrupt umt__ix_section_corrupt

#endif
