/*
 * libumtrace - the register section of the index (docs/index-format.md,
 * "The registers section"; index.h sections 1, 7-9): a thread's register
 * file as index.h section 1 defines it, how records change it
 * (regapply.c), its checkpoints' encoding (regcodec.c), the build
 * (regbuild.c), the open section (regopen.c) and the replay from a
 * checkpoint that every query starts with (regwalk.c).
 *
 * The register file is the context map's dump: DumpSize bytes, each with
 * a value, a known flag, the record that gave it (its latest observation),
 * the record that last wrote it and the record that last changed it.
 * Registers are byte ranges of it, placed by the map of the record's mode
 * (RegMap64 or RegMap32, by exec flag 0x01), so al, ah, ax, eax and rax
 * update exactly the bytes they cover.
 */
#ifndef UMTRACE_IX_REGS_H
#define UMTRACE_IX_REGS_H

#include "section.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/*
 * The checkpoint interval K: a checkpoint of a thread after every K-th of
 * its records within a range of the build, and after a range's last record
 * of the thread when K or more of its records went by since its previous
 * checkpoint. So at most 2K - 1 records of a thread lie between two of its
 * checkpoints (or before its first), and a query replays at most that
 * many. Chosen by measurement (docs/index-format.md, "Why 1024";
 * bench/ixbench.c): 1024 keeps the section near 7% of the index on umtgen
 * traces while a forward replay from a checkpoint takes about 50 us.
 */
#ifndef UMT_IX_REGS_INTERVAL
#define UMT_IX_REGS_INTERVAL 1024u
#endif

#define UMT_IX_REGS_BIT 1u
#define UMT_IX_REGS_DIR "regs.dir"
#define UMT_IX_REGS_CKPT "regs.ckpt"
#define UMT_IX_REGS_DIR_MAGIC "UMTIXRGD"
#define UMT_IX_REGS_CKPT_MAGIC "UMTIXRGC"

/* The words of the section's info block (SectionInfo[0]). */
enum { RI_THREADS = 0, RI_ENTRIES, RI_INTERVAL, RI_DUMP_SIZE };

/** "Not set in this range" (range-relative states of the build only). */
#define RS_UNSET (UINT64_MAX - 1)

/** A thread's register file (one allocation; see the file comment). */
struct rstate {
	uint32_t size;       /* DumpSize */
	bool mode64;         /* the map of the thread's last record */
	bool rel;            /* range-relative: fields RS_UNSET until the range sets them */
	bool track;          /* lw and lc kept */
	uint8_t *val, *known;
	uint64_t *src, *lw, *lc;
	uint64_t fsrc, flw, flc; /* floors (see umt__rs_eff); RS_UNSET or none when unset */
	/* range-relative only: the first write of a byte the range had not seen
	 * yet, whose "changed" depends on the state at the range's start */
	uint64_t *pend;
	uint8_t *pval;
	/* range-relative only: seen8[g] = 1 once every byte of the aligned group
	 * [8g, 8g + 8) is known to be set (src not RS_UNSET). Within a range a
	 * byte once set stays set, so a flag stays true until the bytes are
	 * replaced (umt__rs_clear(), umt__rs_copy(), umt__rs_decode() reset it). */
	uint8_t *seen8;
};

/** Allocates @p s for @p size bytes. @return 0; UMT_E_NOMEM. */
UMT_HIDDEN int umt__rs_alloc(struct rstate *s, uint32_t size, bool rel, bool track);
UMT_HIDDEN void umt__rs_free(struct rstate *s);
/** Forgets which groups of a relative state were seen (after its src changed wholesale). */
UMT_HIDDEN void umt__rs_forget_seen(struct rstate *s);
/** The empty state: nothing known, no source (or, relative, nothing set). */
UMT_HIDDEN void umt__rs_clear(struct rstate *s);
/** Writes the floors into the bytes' records (then src, lw, lc hold them all). */
UMT_HIDDEN void umt__rs_flatten(struct rstate *s);
/** Copies @p from into @p to (same size; the fields both keep). */
UMT_HIDDEN void umt__rs_copy(struct rstate *to, const struct rstate *from);
/** Into @p out, the state after a range: @p abs (absolute) followed by @p rel (relative
 * to it, flat: decoded). @p out may be @p abs; else it is of the same size and fields. */
UMT_HIDDEN void umt__rs_compose(struct rstate *out, struct rstate *abs, const struct rstate *rel);

/* ---- how records change the register file (regapply.c) ------------------------ */

/**
 * The register slots of an instruction row in one mode (regapply.c), worked
 * out once per row and mode: where each before and after value goes in the
 * dump, and which outputs zero-extend.
 */
struct reg_plan_slot {
	uint16_t lc_off;   /* of the value in the LC */
	uint16_t dump_off; /* in the dump */
	uint16_t len;      /* bytes */
	uint8_t zext;      /* an output whose 64-bit register's upper half is zeroed */
	uint8_t fused;     /* a before value whose effect its after slot's pair takes */
	uint16_t pair;     /* an after value: the LC offset of the before value of the
	                    * same bytes it replaces (REG_NO_PAIR: none); see regapply.c */
};
#define REG_NO_PAIR 0xffffu

struct reg_plan {
	uint16_t lc_size;  /* LCSize: a record's LC must be at least this long */
	uint16_t nbefore, nafter;
	struct reg_plan_slot slot[]; /* nbefore before values, then nafter after values */
};

/**
 * What the register code needs of the trace, taken once, and the plans of
 * the rows met so far: one pointer per row and mode, published atomically,
 * so that every thread of a build or of queries shares them.
 */
struct regctx {
	const umt_trace *t;
	const umt_context_map *map;
	uint32_t dump;    /* DumpSize */
	int exec_version;
	uint64_t rows;    /* of ins.itable */
	/* the exec flags of a record whose effects are not simply its plan's: a gap, a false
	 * condition, untrusted inputs or outputs (umt_exec_reliability() for exec_version) */
	uint8_t slow_flags;
	_Atomic(struct reg_plan *) *plans; /* 2 * rows: [row * 2 + mode64] */
};

UMT_HIDDEN int umt__regctx_init(struct regctx *c, const umt_trace *t);
UMT_HIDDEN void umt__regctx_free(struct regctx *c);

/** One effect of a record on the register file. */
enum reg_effect_kind {
	RE_GAP = 0,     /* instrumentation was off before the record: everything unknown */
	RE_OBSERVE = 1, /* a before value (or the unchanged after value of a false condition) */
	RE_WRITE = 2,   /* an after value, a zero-extension, a context record's dump */
	RE_CLOBBER = 3  /* an after value not trusted: unknown from here on */
};

struct reg_effect {
	uint8_t kind;
	uint32_t off, len;   /* bytes of the dump (the whole dump for RE_GAP) */
	const uint8_t *data; /* len bytes (RE_OBSERVE, RE_WRITE) */
};

/** Receives the effects of a record in order; nonzero stops. */
typedef int (*reg_sink)(void *arg, const struct reg_effect *e);

/**
 * The effects of record @p r in order (index.h section 1): phase 0, what
 * holds "at" the record (the gap of exec flag 0x02, the dump of a context
 * record, the trusted before values of an instruction's register slots);
 * phase 1, what it leaves (after values, zero-extensions of 32-bit outputs
 * in 64-bit code, clobbers of untrusted outputs). Records of other types
 * have none.
 * @return 0, the sink's nonzero result, or the trace's error for the record.
 */
UMT_HIDDEN int umt__regs_effects(const struct regctx *c, const umt_rec *r, int phase,
                                 reg_sink sink, void *arg);

/** Applies phase @p phase of record @p r to @p s (its mode too). */
UMT_HIDDEN int umt__regs_apply(const struct regctx *c, struct rstate *s, const umt_rec *r,
                               int phase);

/* ---- applying an effect (inline: the build's and the replays' inner loop) ---- */

/*
 * A write of the whole file (a dump, a gap) sets floors instead of every
 * byte's records: a byte's source (last write, last change) is the larger
 * of its own and the floor, "none" and "not set" (RS_UNSET and above)
 * being the smallest. umt__rs_flatten() writes the floors into the bytes.
 */
static inline uint64_t umt__rs_eff(uint64_t x, uint64_t floor)
{
	return floor >= RS_UNSET ? x : (x >= RS_UNSET || x < floor) ? floor : x;
}
static inline uint64_t umt__rs_src(const struct rstate *s, uint32_t b)
{
	return umt__rs_eff(s->src[b], s->fsrc);
}
static inline uint64_t umt__rs_lw(const struct rstate *s, uint32_t b)
{
	return umt__rs_eff(s->lw[b], s->flw);
}
static inline uint64_t umt__rs_lc(const struct rstate *s, uint32_t b)
{
	return umt__rs_eff(s->lc[b], s->flc);
}

static inline void umt__rs_fill(uint64_t *p, uint64_t v, uint32_t n)
{
	if (n == 8) { /* the common register: a fixed count the compiler unrolls */
		for (int i = 0; i < 8; i++)
			p[i] = v;
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		p[i] = v;
}

/* Copies @p n value bytes and marks them known (or unknown, @p v NULL). */
static inline void umt__rs_values(struct rstate *s, uint32_t off, uint32_t n, const uint8_t *v)
{
	if (n == 8 && v) {
		memcpy(s->val + off, v, 8);
		memcpy(s->known + off, "\1\1\1\1\1\1\1\1", 8);
	} else if (v) {
		memcpy(s->val + off, v, n);
		memset(s->known + off, 1, n);
	} else {
		memset(s->val + off, 0, n);
		memset(s->known + off, 0, n);
	}
}

/*
 * Sets lc[j] = @p id for every nonzero byte j of @p diff. With SSE2 (every
 * x86-64) without a branch per byte: the bytes that did not change keep
 * their record through a mask, so the store count is fixed and the loop
 * over changed bytes, whose trip count the processor cannot predict, goes.
 */
static inline void umt__rs_mark8(uint64_t *lc, uint64_t diff, uint64_t id)
{
#if defined(__SSE2__)
	if (diff == 0)
		return;
	__m128i same = _mm_cmpeq_epi8(_mm_cvtsi64_si128((long long)diff), _mm_setzero_si128());
	__m128i s16 = _mm_unpacklo_epi8(same, same);
	__m128i lo = _mm_unpacklo_epi16(s16, s16), hi = _mm_unpackhi_epi16(s16, s16);
	__m128i keep[4] = {_mm_unpacklo_epi32(lo, lo), _mm_unpackhi_epi32(lo, lo),
	                   _mm_unpacklo_epi32(hi, hi), _mm_unpackhi_epi32(hi, hi)};
	__m128i v = _mm_set1_epi64x((long long)id);
	for (int k = 0; k < 4; k++) {
		__m128i old = _mm_loadu_si128((const __m128i *)(lc + 2 * k));
		__m128i now = _mm_or_si128(_mm_and_si128(keep[k], old), _mm_andnot_si128(keep[k], v));
		_mm_storeu_si128((__m128i *)(lc + 2 * k), now);
	}
#elif defined(__GNUC__)
	while (diff) {
		unsigned j = (unsigned)__builtin_ctzll(diff) >> 3;
		lc[j] = id;
		diff &= ~(0xffull << (j * 8));
	}
#else
	for (uint32_t j = 0; diff && j < 8; j++, diff >>= 8)
		if (diff & 0xff)
			lc[j] = id;
#endif
}

/* Whether a relative state has not seen one of the 8 bytes at @p b yet (an
 * aligned group found all seen is remembered: one load the next time). */
static inline bool umt__rs_unseen8(struct rstate *s, uint32_t b)
{
	if (!s->rel || s->fsrc != RS_UNSET)
		return false;
	bool aligned = (b & 7) == 0;
	if (aligned && s->seen8[b >> 3])
		return false;
	bool unseen = false;
	for (uint32_t i = 0; i < 8; i++)
		unseen |= s->src[b + i] == RS_UNSET;
	if (aligned && !unseen)
		s->seen8[b >> 3] = 1;
	return unseen;
}

/*
 * The last changes of a write of [off, off + len) with values @p v (a
 * clobber: NULL): 8 bytes at a time where the state has seen them (a byte
 * changes when it was unknown or differs), byte by byte otherwise.
 */
static inline void umt__rs_changes(struct rstate *s, uint32_t off, uint32_t len, const uint8_t *v,
                                   uint64_t id)
{
	uint32_t i = 0;
	for (; v && i + 8 <= len && !umt__rs_unseen8(s, off + i); i += 8) {
		uint64_t k, x, y;
		memcpy(&k, s->known + off + i, 8);
		memcpy(&x, s->val + off + i, 8);
		memcpy(&y, v + i, 8);
		umt__rs_mark8(s->lc + off + i, (x ^ y) | (k ^ 0x0101010101010101ull), id);
	}
	for (; i < len; i++) {
		uint32_t b = off + i;
		if (v && s->rel && umt__rs_src(s, b) == RS_UNSET) /* the range's first sight of it */
			s->pend[b] = id, s->pval[b] = v[i];
		else if (!v || !s->known[b] || s->val[b] != v[i])
			s->lc[b] = id;
	}
}

/* A write of @p v (or a clobber when @p v is NULL) to [off, off + len) by record @p id. */
static inline void umt__rs_write(struct rstate *s, uint32_t off, uint32_t len, const uint8_t *v,
                                 uint64_t id)
{
	bool whole = off == 0 && len == s->size;
	if (s->track) {
		if (whole && v == NULL)
			s->flc = id; /* a gap: everything changed */
		else
			umt__rs_changes(s, off, len, v, id);
		if (whole)
			s->flw = id;
		else
			umt__rs_fill(s->lw + off, id, len);
	}
	umt__rs_values(s, off, len, v);
	if (whole)
		s->fsrc = id;
	else
		umt__rs_fill(s->src + off, id, len);
}

/*
 * A write of @p after to [off, off + len) by record @p id that directly
 * follows the same record's observation of @p before there: the two effects
 * in one. The bytes are known and seen (the observation), so a byte changes
 * exactly where @p before and @p after differ.
 */
static inline void umt__rs_rewrite(struct rstate *s, uint32_t off, uint32_t len,
                                   const uint8_t *before, const uint8_t *after, uint64_t id)
{
	if (s->track) {
		uint32_t i = 0;
		for (; i + 8 <= len; i += 8) {
			uint64_t x, y;
			memcpy(&x, before + i, 8);
			memcpy(&y, after + i, 8);
			umt__rs_mark8(s->lc + off + i, x ^ y, id);
		}
		for (; i < len; i++)
			if (before[i] != after[i])
				s->lc[off + i] = id;
		umt__rs_fill(s->lw + off, id, len);
	}
	umt__rs_values(s, off, len, after);
	umt__rs_fill(s->src + off, id, len);
}

/** One effect applied to @p s by record @p id (regstate.c). */
static inline void umt__rs_effect_inline(struct rstate *s, const struct reg_effect *e, uint64_t id)
{
	switch (e->kind) {
	case RE_GAP:
		umt__rs_write(s, 0, s->size, NULL, id);
		break;
	case RE_OBSERVE:
		umt__rs_values(s, e->off, e->len, e->data);
		umt__rs_fill(s->src + e->off, id, e->len);
		break;
	case RE_WRITE:
		umt__rs_write(s, e->off, e->len, e->data, id);
		break;
	default: /* RE_CLOBBER */
		umt__rs_write(s, e->off, e->len, NULL, id);
		break;
	}
}

/** The same, out of line. */
UMT_HIDDEN void umt__rs_effect(struct rstate *s, const struct reg_effect *e, uint64_t id);

/**
 * Where register @p reg sits in the dump in mode @p mode64: *off, *len,
 * and in *largest its effective largest enclosing register (itself when
 * the map names no present one). @return true when present and inside
 * the dump.
 */
UMT_HIDDEN bool umt__regs_place(const struct regctx *c, int reg, bool mode64, uint32_t *off,
                                uint32_t *len, int *largest);

/* ---- checkpoints (regcodec.c) ------------------------------------------------------- */

/** The buffer umt__rs_encode() needs for a state of @p size bytes: the largest encoding,
 * then the scratch it uses past it. */
UMT_HIDDEN size_t umt__rs_encoded_max(uint32_t size);

/**
 * Encodes @p s after record @p record into @p out (umt__rs_encoded_max
 * bytes); returns its length. Flattens @p s first (umt__rs_flatten()).
 */
UMT_HIDDEN size_t umt__rs_encode(struct rstate *s, uint64_t record, uint8_t *out);

/**
 * Decodes a state after record @p record from [@p p, @p p + @p n) into
 * @p s (its rel flag says which encoding). Every count and record is
 * checked: it must cover exactly s->size bytes and end at p + n.
 * @return 0; UMT_E_CORRUPT (the caller names the file and offset).
 */
UMT_HIDDEN int umt__rs_decode(const uint8_t *p, uint64_t n, uint64_t record, struct rstate *s);

/* ---- the build (regbuild.c: the ranges; regassemble.c: their composition) ---------- */

/** A thread seen in a range of the build. */
struct rb_thread {
	struct rstate s;       /* absolute, or relative to the range's start */
	uint64_t count;        /* its records in the range */
	uint64_t first, last;  /* its first and last record in the range */
};

/** Where a part of a range's output went in the spill file. */
struct rb_chunk {
	uint64_t at, len;
};

/*
 * What a range keeps once scanned: its checkpoint items (varint thread,
 * varint record, varint length, a state) in spill chunks, and its
 * summary: u64 thread count n, n rows of u64 (thread, count, first, last)
 * in first-appearance order, then per row varint length and its state at
 * the range's end (after its last record). A state is absolute or relative
 * to the range's start (regbuild.c): its encoding's flags say which.
 */
struct rb_range {
	struct ix_build *b;
	const struct regctx *ctx;  /* the build's (umt__regs_build_begin) */
	uint64_t nthreads;         /* rows of the thread table */
	uint64_t end;              /* the range's end record */
	bool absolute;             /* states absolute, not relative to the range's start */
	struct rb_thread **by_thread;
	uint64_t *alive;           /* the threads with a state in by_thread */
	size_t nalive, alive_cap;
	uint64_t *order;           /* threads seen in the range, in first-appearance order */
	size_t norder, order_cap;
	uint8_t *buf, *enc;        /* pending items; one encoding */
	size_t len, cap;
	struct rb_chunk *chunks;
	size_t nchunks, chunks_cap;
	struct rb_chunk summary;
};

UMT_HIDDEN int umt__regs_build_begin(struct ix_build *b, void **global);
UMT_HIDDEN void umt__regs_build_end(void *global);
UMT_HIDDEN int umt__regs_range_begin(struct ix_build *b, unsigned range, uint64_t first,
                                     uint64_t end, void **state);
UMT_HIDDEN int umt__regs_record(void *state, const umt_rec *r);
UMT_HIDDEN int umt__regs_range_end(struct ix_build *b, void *state);
UMT_HIDDEN void umt__regs_free_state(void *state);
UMT_HIDDEN int umt__regs_assemble(struct ix_build *b, void *const *states, unsigned nranges,
                                  uint64_t info[UMT_IX_INFO_WORDS]);

/**
 * The checkpoint rule, after a range in which a thread had @p count
 * records: *since (its records since its last checkpoint) is updated, and
 * the result is the number of checkpoints every K records inside the
 * range, plus UINT64_MAX's top bit set when one follows the range's last
 * record of the thread. The build, its assembly and verify share it.
 */
UMT_HIDDEN uint64_t umt__regs_rule(uint64_t count, uint64_t interval, uint64_t *since);
#define RB_AT_END (1ull << 63)

/* ---- the open section (regopen.c) --------------------------------------------------- */

/** What the open section keeps: its mapped files, checked. */
struct regs_data {
	struct umt_map dir, ckpt;
	const umt_ix_regs_thread *threads; /* thread_count entries (unaligned reads: packed) */
	const umt_ix_regs_entry *entries;
	uint64_t thread_count, entry_count, interval;
	struct regctx ctx;
};

UMT_HIDDEN extern const struct ix_section umt__ix_regs_section; /* regsection.c */

/** The section's open and close (section.h's hooks). */
UMT_HIDDEN int umt__regs_open(umt_index *ix, const struct ix_source *src,
                              const uint64_t info[UMT_IX_INFO_WORDS]);
UMT_HIDDEN void umt__regs_close(umt_index *ix);

/** The section's full check (regverify.c): umt_index_verify() calls it. */
UMT_HIDDEN int umt__regs_verify(const umt_index *ix);

/** The section of @p ix, or NULL with UMT_E_MISSING reported. */
static inline const struct regs_data *umt__regs_of(const umt_index *ix)
{
	return umt__ix_section_of(ix, UMT_IX_REGS_BIT, "registers");
}

/** Reports a corrupt structure of a regs file at @p offset. */
#define umt__regs_corrupt umt__ix_section_corrupt

/* ---- replays (regwalk.c) --------------------------------------------------------------- */

/**
 * The latest checkpoint of @p thread after a record before @p before:
 * @return 1 with *entry (its index); 0 when there is none; < 0 corrupt.
 */
UMT_HIDDEN int umt__regs_find(const struct regs_data *d, uint64_t thread, uint64_t before,
                              uint64_t *entry);

/** The first checkpoint of @p thread after record @p cur (UMT_NO_RECORD: its first): as above. */
UMT_HIDDEN int umt__regs_next_entry(const struct regs_data *d, uint64_t thread, uint64_t cur,
                                    uint64_t *entry);

/** Loads checkpoint @p entry into @p s (absolute); *record receives its record. */
UMT_HIDDEN int umt__regs_load(const struct regs_data *d, uint64_t entry, struct rstate *s,
                              uint64_t *record);

/** Called after each record a replay applied, with the state after it. */
typedef int (*regs_visit)(void *arg, const umt_rec *r, const struct rstate *s);

/**
 * Applies the records of @p thread after record @p cur (UMT_NO_RECORD: from
 * its first) and before @p end to @p s, which holds the state after @p cur;
 * @p visit (may be NULL) sees each, with the state after it, and stops the
 * walk by returning nonzero (returned). *last receives the last record
 * applied (@p cur when none).
 * @return 0; the visit's result; index errors; the trace's errors
 *   (UMT_E_CORRUPT for a chain that leaves the thread).
 */
UMT_HIDDEN int umt__regs_advance(const struct regs_data *d, uint64_t thread, uint64_t cur,
                                 uint64_t end, struct rstate *s, regs_visit visit, void *arg,
                                 uint64_t *last);

/**
 * The state of @p thread after its last record before @p before, into @p s
 * (absolute; s->track decides whether lw and lc are kept): its latest
 * checkpoint, then its records up to there (umt__regs_advance()).
 */
UMT_HIDDEN int umt__regs_replay(const struct regs_data *d, uint64_t thread, uint64_t before,
                                struct rstate *s, regs_visit visit, void *arg, uint64_t *last);

/* ---- reading backwards (regsettle.c) ------------------------------------------------- */

/** What a backward settle works with (one per query object). */
struct settle {
	const struct regs_data *d;
	uint8_t *done;           /* per byte: settled */
	uint32_t lo, hi, left;
	struct reg_effect *fx;   /* the effects of the record being read */
	size_t nfx;
	struct rstate ck;        /* a checkpoint */
};

UMT_HIDDEN int umt__settle_init(struct settle *w, const struct regs_data *d);
UMT_HIDDEN void umt__settle_free(struct settle *w);

/** How much of the record itself a settle takes. */
enum { SETTLE_BEFORE = 0, /* nothing: the state after the thread's previous record */
       SETTLE_AT = 1,     /* its phase 0: the state at it (section 1) */
       SETTLE_AFTER = 2   /* both phases: the state after it */ };

/**
 * Bytes [lo, hi) of the register file of @p thread at its record @p at
 * (@p upto: SETTLE_*) into @p s (values, known flags, sources; s->mode64 is
 * at's map), read backwards from @p at to the first observation of each
 * byte, or to the thread's latest checkpoint before @p at. Bytes outside
 * [lo, hi) are left alone.
 * @return 0; UMT_E_INVAL (@p at is not of @p thread); index and trace errors.
 */
UMT_HIDDEN int umt__regs_settle(struct settle *w, uint64_t thread, uint64_t at, int upto,
                                uint32_t lo, uint32_t hi, struct rstate *s);

/** The thread-table row of record @p at (checked against the section). */
UMT_HIDDEN int umt__regs_thread_of(const umt_index *ix, const struct regs_data *d, uint64_t at,
                                   uint64_t *thread);

#endif
