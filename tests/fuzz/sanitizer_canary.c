/*
 * Does something the sanitizer build must report, so that a test can check
 * the report appears (tests/fuzz/CMakeLists.txt):
 *   sanitizer_canary alignment   a 4-byte load from an odd address (UBSan)
 *   sanitizer_canary heap        a read one byte past a heap block (ASan)
 * Without the sanitizers it prints the value read and exits 0, which fails
 * the tests since they expect the sanitizer's message.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static uint32_t words[4] = {0x01020304, 0x05060708, 0, 0};
	if (argc == 2 && strcmp(argv[1], "alignment") == 0) {
		/* volatile: the compiler cannot prove the address odd and fold the load */
		volatile uintptr_t odd = (uintptr_t)words + 1;
		const uint32_t *p = (const uint32_t *)odd;
		printf("%u\n", (unsigned)*p);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "heap") == 0) {
		volatile size_t n = 16;
		char *b = calloc(n, 1);
		if (b == NULL)
			return 1;
		printf("%d\n", b[n]);
		free(b);
		return 0;
	}
	fprintf(stderr, "usage: sanitizer_canary alignment|heap\n");
	return 2;
}
