/*
 * libumtrace - operand values of instruction records: explicit operands, LC slots, memory phrases, register lookup in the LC.
 */
#include "internal.h"
