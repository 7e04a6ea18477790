/*
 * umtgen: two small helpers every part uses: the xorshift64* sequence
 * behind each deterministic choice, and the growth of an array by doubling.
 */
#ifndef UMTGEN_UTIL_H
#define UMTGEN_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* xorshift64*: advances *state (never 0) and returns the next number. */
static inline uint64_t xorshift64s(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* The array @p arr of *cap elements of @p elem bytes, @p used of them in use,
 * with room for one more: @p arr itself, or a copy of twice the capacity
 * (@p first when empty) with *cap updated; NULL when out of memory (@p arr
 * still valid). */
static inline void *grow(void *arr, size_t *cap, size_t used, size_t elem, size_t first)
{
	if (used < *cap)
		return arr;
	size_t n = *cap ? 2 * *cap : first;
	void *q = n > SIZE_MAX / elem ? NULL : realloc(arr, n * elem);
	if (q != NULL)
		*cap = n;
	return q;
}

#endif
