/*
 * libumtrace - syscall.vtable and syscall.offsets: syscall records, arguments, extras.
 */
#include "internal.h"
