/*
 * libumtrace - address_space.itable: used page ranges and lookup by address.
 */
#include "internal.h"
