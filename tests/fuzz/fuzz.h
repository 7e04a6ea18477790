/*
 * Shared by the fuzz targets, the replay driver and the corpus generator.
 *
 * Each target (fuzz_trace.c, fuzz_meta.c, fuzz_enum.c) defines
 * LLVMFuzzerTestOneInput(). Linked with libFuzzer it is a fuzzer; linked
 * with replay.c it is an ordinary program that runs the committed corpus
 * and every past crash input (ctest). A broken invariant aborts, which both
 * libFuzzer and ctest report as a failure.
 */
#ifndef UMT_FUZZ_H
#define UMT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with the broken invariant and where it is checked. */
#define FUZZ_CHECK(cond)                                                              \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, \
			        #cond);                                               \
			abort();                                                      \
		}                                                                     \
	} while (0)

/* Where fuzz_touch() leaves its result, so that its reads are not optimised out. */
static volatile uint8_t fuzz_sink;

/* Reads every byte of [p, p + n) so that AddressSanitizer checks the whole range. */
static inline void fuzz_touch(const void *p, uint64_t n)
{
	const uint8_t *b = p;
	uint8_t x = 0;
	for (uint64_t i = 0; i < n; i++)
		x ^= b[i];
	fuzz_sink = x;
}

/* 1 when [p, p + n) lies inside [base, base + size). */
static inline int fuzz_inside(const void *p, uint64_t n, const void *base, uint64_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;
	return a >= b && a - b <= size && n <= size - (a - b);
}

/*
 * The whole-trace input (fuzz_trace.c): one byte of options, then
 * FUZZ_TRACE_FILES little-endian uint32 file sizes in umt_file_id order
 * (FUZZ_MISSING: the file is absent), then the files' bytes in the same
 * order. A size larger than what is left is clamped to it, so every input
 * is a trace. Options:
 *   bits 0-2  every buffer starts at this offset (0-7) of its allocation,
 *             so that misaligned reads of packed fields are caught by UBSan;
 *   bits 3-4  context_map.itable: 0 the given bytes as they are;
 *             otherwise the given bytes overlay the start of a 17424-byte
 *             base map: 1 zeros, 2 umt_context_map_default(1, "20150121"),
 *             3 umt_context_map_default(0, "20140106"). Seeds then carry
 *             only the bytes that differ from a default map.
 *   bits 5-7  ignored.
 * Each file is copied into an allocation of exactly its size (plus the
 * offset), so that AddressSanitizer catches a read one byte past its end.
 */
#define FUZZ_TRACE_FILES 11
#define FUZZ_TRACE_HEADER (1 + 4 * FUZZ_TRACE_FILES)
#define FUZZ_MISSING 0xffffffffu
#define FUZZ_OPT_MISALIGN(o) ((o) & 7u)
#define FUZZ_OPT_CMAP(o) (((o) >> 3) & 3u)
enum { FUZZ_CMAP_RAW = 0, FUZZ_CMAP_ZERO = 1, FUZZ_CMAP_DEFAULT_V1 = 2,
       FUZZ_CMAP_DEFAULT_V0 = 3 };

/*
 * The enum header input (fuzz_enum.c): byte 0 selects the type name asked
 * for (byte % FUZZ_ENUM_TYPES; see the table there, 0 is NULL: the first
 * enum), the rest is the header text.
 */
#define FUZZ_ENUM_TYPES 8

#endif
