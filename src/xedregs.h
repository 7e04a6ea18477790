/*
 * libumtrace - XED 20150121 register numbers used inside the library.
 */
#ifndef UMTRACE_XEDREGS_H
#define UMTRACE_XEDREGS_H

#include "internal.h"

enum umt_xed2015 {
	X15_INVALID = 0,
	X15_FLAGS = 39,
	X15_EFLAGS = 40,
	X15_RFLAGS = 41,
	X15_AX = 42,
	X15_EAX = 58,
	X15_RAX = 74,
	X15_R8W = 50,
	X15_R8D = 66,
	X15_R8 = 82,
	X15_AL = 90,
	X15_R8B = 98,
	X15_AH = 106,
	X15_RIP = 111,
	X15_EIP = 112,
	X15_IP = 113,
	X15_MMX0 = 122,
	X15_MXCSR = 130,
	X15_STACKPUSH = 131,
	X15_STACKPOP = 132,
	X15_FSBASE = 140,
	X15_GSBASE = 141,
	X15_CS = 153,
	X15_DS = 154,
	X15_ES = 155,
	X15_SS = 156,
	X15_FS = 157,
	X15_GS = 158,
	X15_ST0 = 175,
	X15_XMM0 = 184,
	X15_YMM0 = 216,
	X15_ZMM0 = 248,
	UMT_XED2015_REG_LAST = 280
};

/** Lowercase names of XED 20150121 registers 0..279. */
UMT_HIDDEN extern const char *const umt__xed2015_reg_names[UMT_XED2015_REG_LAST];

#endif
