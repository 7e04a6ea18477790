/*
 * libumtrace - names for numeric IDs: built-in XED registers, enum headers loaded at run time.
 */
#include "internal.h"
