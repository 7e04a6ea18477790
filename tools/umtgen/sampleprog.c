/* placeholder until the sample program is written */
#include "randprog.h"

int sampleprog_build(struct program *p, const struct prog_params *pp)
{
	return randprog_build(p, pp);
}
