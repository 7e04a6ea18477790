/*
 * Prints umtgen's catalogue of instruction forms (tools/umtgen/catalog.c):
 * one JSON row per instruction as `umtdump --json ins` prints them (id,
 * address, code, cs_is_64_bits, disasm) plus its XED form and the form's
 * value in both numberings, for objdump_check.py. Exits 1 when an
 * instruction of the catalogue has no encoding or its form no number.
 *
 *   gen_forms
 */
#include <inttypes.h>
#include <stdio.h>

#include "x86.h"
#include "xed.h"

static int rows, failures;

static void row(const struct insn *in, int mode64, uint64_t at, void *arg)
{
	struct xed_used *used = arg;
	uint8_t code[15];
	struct enc_info e;
	int n = x86_encode(in, at, mode64, code, &e);
	if (n < 0) {
		fprintf(stderr, "gen_forms: op %d (%d operands) has no encoding in %d-bit code\n", in->op,
		        in->nops, mode64 ? 64 : 32);
		failures++;
		return;
	}
	char text[160], form[96], hex[40];
	x86_disasm(in, mode64, at + (uint64_t)n, text, sizeof text);
	x86_form(in, &e, form, sizeof form);
	int v15 = xed_iform(0, form, used), v14 = xed_iform(1, form, used);
	if (v15 <= 0 || v14 <= 0) {
		fprintf(stderr, "gen_forms: form %s has no number\n", form);
		failures++;
	}
	for (int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", code[i]);
	printf("{\"id\":%d,\"address\":\"0x%" PRIx64 "\",\"code\":\"%s\",\"cs_is_64_bits\":%d,"
	       "\"disasm\":\"%s\",\"form\":\"%s\",\"form_2015\":%d,\"form_2014\":%d}\n",
	       rows, at, hex, mode64, text, form, v15, v14);
	rows++;
}

int main(void)
{
	static struct xed_used used;
	x86_catalog(row, &used);
	fprintf(stderr, "gen_forms: %d instructions, %d failures\n", rows, failures);
	return failures ? 1 : 0;
}
