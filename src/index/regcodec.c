/*
 * libumtrace - the encoding of a register file after a record X
 * (docs/index-format.md, "regs.ckpt"): the checkpoints of the index and
 * the build's range-relative states in its spill file.
 *
 *   u8 Flags: bit 0 the 64-bit map, bit 1 range-relative, bit 2 lw/lc kept
 *   runs, until they cover DumpSize bytes: varint (Length << 1 | Known),
 *     varint Source, [varint LastWrite, varint LastChange], [varint Pending]
 *     where a record v is 0 for none, 1 for "not set" (relative states
 *     only), else X - v + 2 (v <= X: the state is after X);
 *   the values of the known bytes, in order: groups of varint Zeros,
 *     varint Literals, the literal bytes (zero bytes cost nothing);
 *   (relative) the pending value of every byte with a pending write.
 * Consecutive bytes with the same known flag and records share a run: a
 * register file is a few dozen runs, and its zero registers a few bytes.
 */
#include "regs.h"

size_t umt__rs_encoded_max(uint32_t size)
{
	/* a run per byte at worst (1 + 5 varints of 10 bytes), a group per byte, a
	 * value and a pending value per byte, the flags; then the values gathered
	 * (encode_values()'s scratch, past the encoding's end) */
	return (size_t)size * (51 + 20 + 2) + 16 + size;
}

static inline uint64_t enc_record(uint64_t v, uint64_t x)
{
	return v == UMT_NO_RECORD ? 0 : v == RS_UNSET ? 1 : x - v + 2;
}

static bool dec_record(uint64_t e, uint64_t x, bool rel, uint64_t *v)
{
	if (e == 0)
		*v = UMT_NO_RECORD;
	else if (e == 1 && rel)
		*v = RS_UNSET;
	else if (e >= 2 && e - 2 <= x)
		*v = x - (e - 2);
	else
		return false;
	return true;
}

/* Byte @p b continues the run of byte @p a (a flat state: no floors). */
static bool same_run(const struct rstate *s, uint32_t a, uint32_t b)
{
	return s->known[a] == s->known[b] && s->src[a] == s->src[b] &&
	       (!s->track || (s->lw[a] == s->lw[b] && s->lc[a] == s->lc[b])) &&
	       (!s->pend || s->pend[a] == s->pend[b]);
}

/* Whether the 8 records from @p p all equal @p v (no branch per record). */
static inline bool all8(const uint64_t *p, uint64_t v)
{
	uint64_t d = 0;
	for (int i = 0; i < 8; i++)
		d |= p[i] ^ v;
	return d == 0;
}

/* The end of the run of byte @p a, which continues from byte @p b on: eight
 * bytes at a time while whole groups continue it (registers are runs of 8
 * and more), then byte by byte. */
static uint32_t run_end(const struct rstate *s, uint32_t a, uint32_t b)
{
	uint64_t k;
	for (; b + 8 <= s->size; b += 8) {
		memcpy(&k, s->known + b, 8);
		if (k != s->known[a] * 0x0101010101010101ull || !all8(s->src + b, s->src[a]) ||
		    (s->track && (!all8(s->lw + b, s->lw[a]) || !all8(s->lc + b, s->lc[a]))) ||
		    (s->pend && !all8(s->pend + b, s->pend[a])))
			break;
	}
	while (b < s->size && same_run(s, a, b))
		b++;
	return b;
}

/* The values of the known bytes of @p s, in order, into @p out (8 bytes at a time where
 * all 8 are known: registers are). @return their number. */
static uint32_t gather_known(const struct rstate *s, uint8_t *out)
{
	uint32_t n = 0, b = 0;
	for (; b + 8 <= s->size; b += 8) {
		uint64_t k;
		memcpy(&k, s->known + b, 8);
		if (k == 0x0101010101010101ull) {
			memcpy(out + n, s->val + b, 8);
			n += 8;
		} else if (k != 0) {
			for (uint32_t i = b; i < b + 8; i++)
				if (s->known[i])
					out[n++] = s->val[i];
		}
	}
	for (; b < s->size; b++)
		if (s->known[b])
			out[n++] = s->val[b];
	return n;
}

/* The zero bytes of [p, p + n) from its start. */
static uint32_t zeros_at(const uint8_t *p, uint32_t n)
{
	uint32_t i = 0;
	uint64_t w;
	while (i + 8 <= n && (memcpy(&w, p + i, 8), w == 0))
		i += 8;
	while (i < n && p[i] == 0)
		i++;
	return i;
}

/* The known bytes' values (gathered in @p tmp, DumpSize bytes): zero runs counted, the
 * rest literal. */
static size_t encode_values(const struct rstate *s, uint8_t *tmp, uint8_t *out)
{
	size_t n = 0;
	uint32_t m = gather_known(s, tmp);
	for (uint32_t b = 0; b < m;) {
		uint32_t zeros = zeros_at(tmp + b, m - b), lits = 0, zrun = 0;
		b += zeros;
		/* literals run through fewer than 3 zeros in a row (a group costs 2 bytes),
		 * and end on a nonzero byte */
		for (uint32_t k = b; k < m && zrun < 3; k++) {
			zrun = tmp[k] == 0 ? zrun + 1 : 0;
			if (tmp[k] != 0)
				lits = k - b + 1;
		}
		n += umt__put_varint(out + n, zeros);
		n += umt__put_varint(out + n, lits);
		memcpy(out + n, tmp + b, lits);
		n += lits;
		b += lits;
	}
	return n;
}

size_t umt__rs_encode(struct rstate *s, uint64_t record, uint8_t *out)
{
	umt__rs_flatten(s); /* the same state, its floors written into the bytes */
	size_t n = 0;
	out[n++] = (uint8_t)(s->mode64 | s->rel << 1 | s->track << 2);
	for (uint32_t b = 0; b < s->size;) {
		uint32_t e = run_end(s, b, b + 1);
		n += umt__put_varint(out + n, (uint64_t)(e - b) << 1 | s->known[b]);
		n += umt__put_varint(out + n, enc_record(s->src[b], record));
		if (s->track) {
			n += umt__put_varint(out + n, enc_record(s->lw[b], record));
			n += umt__put_varint(out + n, enc_record(s->lc[b], record));
		}
		if (s->pend)
			n += umt__put_varint(out + n, enc_record(s->pend[b], record));
		b = e;
	}
	n += encode_values(s, out + umt__rs_encoded_max(s->size) - s->size, out + n);
	for (uint32_t b = 0; s->pend && b < s->size; b++)
		if (s->pend[b] != RS_UNSET)
			out[n++] = s->pval[b];
	return n;
}

/* The runs: known flags and records of every byte (lw and lc read when the
 * encoding has them, kept when @p s does). */
static bool decode_runs(const uint8_t **p, const uint8_t *end, uint64_t x, bool track,
                        struct rstate *s, uint64_t *known_count)
{
	uint64_t v[4] = {0, 0, 0, 0};
	for (uint32_t b = 0; b < s->size;) {
		uint64_t head;
		if (!umt__get_varint(p, end, &head) || head >> 1 == 0 || head >> 1 > s->size - b)
			return false;
		unsigned fields = 1 + (track ? 2 : 0) + (s->rel ? 1 : 0);
		for (unsigned f = 0; f < fields; f++) {
			uint64_t e;
			if (!umt__get_varint(p, end, &e) || !dec_record(e, x, s->rel, &v[f]))
				return false;
		}
		uint32_t len = (uint32_t)(head >> 1);
		uint8_t known = head & 1;
		if (known && (v[0] == UMT_NO_RECORD || v[0] == RS_UNSET))
			return false; /* a known byte has a source */
		memset(s->known + b, known, len);
		memset(s->val + b, 0, len);
		umt__rs_fill(s->src + b, v[0], len);
		if (s->track) {
			umt__rs_fill(s->lw + b, v[1], len);
			umt__rs_fill(s->lc + b, v[2], len);
		}
		if (s->pend)
			umt__rs_fill(s->pend + b, v[fields - 1], len);
		*known_count += known * (uint64_t)len;
		b += len;
	}
	return true;
}

static bool decode_values(const uint8_t **p, const uint8_t *end, struct rstate *s, uint64_t left)
{
	uint32_t b = 0;
	while (left > 0) {
		uint64_t zeros, lits;
		if (!umt__get_varint(p, end, &zeros) || !umt__get_varint(p, end, &lits) ||
		    zeros + lits == 0 || zeros > left || lits > left - zeros ||
		    lits > (uint64_t)(end - *p))
			return false;
		for (uint64_t z = 0; z < zeros; b++)
			z += s->known[b]; /* the known bytes are exactly left in number: stays inside */
		for (uint64_t l = 0; l < lits; b++)
			if (s->known[b])
				s->val[b] = *(*p)++, l++;
		left -= zeros + lits;
	}
	return true;
}

int umt__rs_decode(const uint8_t *p, uint64_t n, uint64_t record, struct rstate *s)
{
	const uint8_t *end = p + n;
	if (n == 0 || (*p >> 3) != 0 || ((*p >> 1) & 1) != s->rel || (s->track && !(*p & 4)))
		return umt__failf(UMT_E_CORRUPT, "register state: flags 0x%02x", n ? *p : 0u);
	bool track = (*p & 4) != 0;
	s->mode64 = *p & 1;
	s->fsrc = s->flw = s->flc = s->rel ? RS_UNSET : UMT_NO_RECORD; /* decoded flat */
	umt__rs_forget_seen(s);
	p++;
	uint64_t known = 0;
	if (!decode_runs(&p, end, record, track, s, &known) || !decode_values(&p, end, s, known))
		return umt__failf(UMT_E_CORRUPT, "register state: malformed runs or values");
	for (uint32_t b = 0; s->pend && b < s->size; b++) {
		if (s->pend[b] == RS_UNSET)
			continue;
		if (p == end)
			return umt__failf(UMT_E_CORRUPT, "register state: pending values missing");
		s->pval[b] = *p++;
	}
	if (p != end)
		return umt__failf(UMT_E_CORRUPT, "register state: %llu bytes past its end",
		                  (unsigned long long)(end - p));
	return 0;
}
