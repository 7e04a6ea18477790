/*
 * umtdump mem: memory contents at a record, from the index (umt_mem_at),
 * as a hex dump with ?? for unknown bytes, or the JSON contract of
 * umtdump(1).
 */
#include <stdlib.h>

#include "umtdump.h"

/* The largest range mem shows at once. */
#define MAX_LENGTH (64u << 20)

static void print_json(uint64_t at, uint64_t address, uint64_t length, const uint8_t *data,
                       const uint8_t *known, const uint64_t *sources)
{
	static const char hex[] = "0123456789abcdef";
	struct jw j;
	jw_begin(&j);
	jw_u64(&j, "at", at);
	jw_hex(&j, "address", address);
	jw_u64(&j, "length", length);
	jw_key(&j, "data");
	out_char('"');
	for (uint64_t i = 0; i < length; i++) {
		out_char(known[i] ? hex[data[i] >> 4] : '?');
		out_char(known[i] ? hex[data[i] & 15] : '?');
	}
	out_char('"');
	jw_open(&j, "sources", '[');
	for (uint64_t i = 0; i < length; i++) {
		if (sources[i] == UMT_NO_RECORD)
			jw_null(&j, NULL);
		else
			jw_u64(&j, NULL, sources[i]);
	}
	jw_close(&j, ']');
	jw_end(&j);
}

/* 16 bytes a line: address, bytes (?? unknown), printable characters. */
static void print_text(uint64_t address, uint64_t length, const uint8_t *data,
                       const uint8_t *known)
{
	for (uint64_t line = 0; line < length; line += 16) {
		out_hex_left(address + line, 18);
		for (uint64_t i = line; i < line + 16; i++) {
			if (i == line + 8)
				out_char(' ');
			if (i >= length)
				out_str("   ");
			else if (known[i])
				out_printf(" %02x", data[i]);
			else
				out_str(" ??");
		}
		out_str("  |");
		for (uint64_t i = line; i < line + 16 && i < length; i++)
			out_char(known[i] && data[i] >= 0x20 && data[i] < 0x7f ? (char)data[i] : '.');
		out_str("|\n");
	}
}

int cmd_mem(umt_trace *t, const struct opts *o)
{
	uint64_t address, length;
	if (!at_given(o, "mem"))
		return EXIT_USAGE;
	if (!parse_address(o->args[0], &address) || !parse_address(o->args[1], &length) ||
	    length == 0 || length > MAX_LENGTH || address + (length - 1) < address) {
		report("mem: ADDR LEN must be numbers, 1 <= LEN <= %u, not past the top: %s %s",
		       MAX_LENGTH, o->args[0], o->args[1]);
		return EXIT_USAGE;
	}
	if (!at_exists(t, o))
		return EXIT_USAGE;
	umt_index *ix;
	int rc = open_index(t, o, &ix);
	if (rc)
		return rc;
	uint8_t *data = malloc(length), *known = malloc(length);
	uint64_t *sources = malloc(length * sizeof *sources);
	if (data == NULL || known == NULL || sources == NULL)
		rc = -1, report("mem: out of memory for %llu bytes", (unsigned long long)length);
	else if ((rc = umt_mem_at(ix, o->at, address, length, data, known, sources)) < 0)
		report_error(rc);
	else if (o->json)
		print_json(o->at, address, length, data, known, sources);
	else
		print_text(address, length, data, known);
	free(data);
	free(known);
	free(sources);
	umt_index_close(ix);
	return rc < 0 ? EXIT_BAD_TRACE : EXIT_OK;
}
