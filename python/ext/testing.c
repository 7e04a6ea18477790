/* A helper of the tests: proof that Python threads run C code at the same time. */
#include <time.h>

#include "umtpy.h"

int umtpy_test_rendezvous(int *arrived, int parties, int timeout_ms)
{
	struct timespec nap = {0, 1000000}; /* 1 ms */
	__atomic_add_fetch(arrived, 1, __ATOMIC_SEQ_CST);
	for (int waited = 0; waited < timeout_ms; waited++) {
		if (__atomic_load_n(arrived, __ATOMIC_SEQ_CST) >= parties)
			return 1;
		nanosleep(&nap, NULL);
	}
	return __atomic_load_n(arrived, __ATOMIC_SEQ_CST) >= parties;
}
