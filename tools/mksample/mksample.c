/*
 * mksample: writes the bundled sample trace (examples/sample-trace), its
 * ground truth and the enum headers that name its values, with umtgen's
 * machine running the sample's program (tools/umtgen/sampleprog.c).
 *
 *   mksample OUT_DIR TRUTH_FILE XED_DIR
 *
 * The sample: 220 records of a 64-bit process in the 2015 flavour, two
 * threads; fact(3) by recursion, a ReadFile whose 64 bytes come back as a
 * memory block of the syscall exit, the plugin mapped (a module load) and
 * called, a guarded call that faults (access violation, exception context,
 * handler), rep movsb, SSE and AVX moves, lock cmpxchg, mov ah.
 */
#include <stdio.h>

#include "gen.h"

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mksample OUT_DIR TRUTH_FILE XED_DIR\n");
		return 2;
	}
	struct umtgen_params p;
	umtgen_params_init(&p);
	p.sample = 1;
	p.records = 220;
	p.threads = 2;
	p.seed = 1;
	p.quiet = 1;
	p.truth = argv[2];
	p.truth_every = 16;
	p.xed_headers = argv[3];
	return umtgen_write(argv[1], &p) < 0 ? 1 : 0;
}
