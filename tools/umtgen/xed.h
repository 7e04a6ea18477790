/*
 * umtgen: XED enum values for the generated traces, one numbering per
 * flavour (XED 20150121 for 2015, XED 20140106 for 2014), and the enum
 * headers that name them (--xed-headers).
 *
 * Registers use XED's real numbers (ERRATA 17: 20150121, and 6 lower up to
 * GSBASE for 20140106). Mnemonics (iclass), forms (iform) and categories
 * use XED's names and XED's layout (one alphabetical enum each, values
 * growing with the name), numbered by this generator over the names it can
 * emit: they are consistent within a flavour and between a trace and the
 * headers written beside it, not Intel's values.
 */
#ifndef UMTGEN_XED_H
#define UMTGEN_XED_H

#include <stdint.h>

#include "x86.h"

/* XED 20150121 register numbers (ERRATA 17). */
enum {
	X_RFLAGS = 41, X_EFLAGS = 40, X_AX = 42, X_EAX = 58, X_RAX = 74, X_AL = 90,
	X_AH = 106, X_RIP = 111, X_EIP = 112, X_STACKPUSH = 131, X_STACKPOP = 132,
	X_FSBASE = 140, X_GSBASE = 141, X_XMM0 = 184, X_YMM0 = 216
};

/* Names used by a trace, for the headers; one per generator. */
struct xed_used {
	uint8_t reg[512];
	uint8_t iclass[64];
	uint8_t category[32];
	uint8_t iform[256];
};

/* The trace's number of XED 20150121 register @p x15 (-1: none in 2014). */
int xed_reg(int old, int x15);

/* The XED 20150121 number of an operand register (size and hi pick the part). */
int xed_reg_of(uint8_t reg, uint8_t size, uint8_t hi, int mode64);

/* The iclass, category and iform names of an encoded instruction. */
const char *xed_iclass_name(const struct insn *in);
const char *xed_category_name(const struct insn *in);

/*
 * Values of a name in the flavour's numbering (@p old: XED 20140106), and
 * marks it used. @return the value, or -1 for a name outside the tables (a
 * generator bug).
 */
int xed_iclass(int old, const char *name, struct xed_used *u);
int xed_category(int old, const char *name, struct xed_used *u);
int xed_iform(int old, const char *name, struct xed_used *u);

/*
 * Writes xed-reg-enum.h, xed-iclass-enum.h, xed-iform-enum.h and
 * xed-category-enum.h into @p dir (created if missing) in XED's generated
 * syntax, naming exactly the values of @p u (registers: also INVALID,
 * GSBASE, which tells the loader the XED version, and LAST).
 * @return 0, or -1 after printing why.
 */
int xed_write_headers(const char *dir, int old, const struct xed_used *u);

/* Writes one enum header: "typedef enum { PREFIX_NAME=value, ... } TYPE;". */
int xed_write_enum(const char *dir, const char *file, const char *type, const char *guard,
                   const char *const *names, const int *values, int count);

#endif
