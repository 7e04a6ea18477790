/*
 * libumtrace - the calls section's events as the scan spills them (calls.h):
 * each a tag byte and varints of the differences from the stream's
 * previous event. Records, slots and code addresses move by small steps
 * within a thread, so an event takes about ten bytes where its struct
 * takes forty.
 *
 *   tag: bits 0-1 kind, bits 2-3 source (CALL, NEXT), bit 4 final (CALL)
 *   varint  id - previous id
 *   varint  zigzag(thread - previous thread), 32-bit
 *   CALL:   varint zigzag(slot - previous value), varint zigzag(caller -
 *           previous address), varint zigzag(target - caller), u8 length
 *   RET, SP: varint zigzag(value - previous value)
 *   NEXT:   with source UMT_CALL_TARGET_NEXT, varint zigzag(address -
 *           previous address)
 * "Previous value" is the slot or stack pointer of the last CALL, RET or
 * SP, "previous address" the caller of the last CALL or the address of the
 * last NEXT.
 */
#include "calls.h"

static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* Threads differ by 32 bits: at most 5 bytes of varint. */
static uint32_t zigzag32(uint32_t delta)
{
	return (delta << 1) ^ (uint32_t)-(int32_t)(delta >> 31);
}

size_t umt__ix_call_encode(struct call_coder *c, const struct call_event *e, uint8_t *out)
{
	size_t n = 0;
	out[n++] = (uint8_t)(e->kind | e->source << 2 | (e->final ? 0x10 : 0));
	n += umt__put_varint(out + n, e->id - c->id);
	n += umt__put_varint(out + n, zigzag32((uint32_t)e->thread - (uint32_t)c->thread));
	c->id = e->id;
	c->thread = e->thread;
	if (e->kind == CEV_CALL) {
		n += umt__put_varint(out + n, zigzag(e->value - c->value));
		n += umt__put_varint(out + n, zigzag(e->caller - c->address));
		n += umt__put_varint(out + n, zigzag(e->target - e->caller));
		out[n++] = e->length;
		c->value = e->value;
		c->address = e->caller;
	} else if (e->kind == CEV_NEXT) {
		if (e->source == UMT_CALL_TARGET_NEXT) {
			n += umt__put_varint(out + n, zigzag(e->value - c->address));
			c->address = e->value;
		}
	} else {
		n += umt__put_varint(out + n, zigzag(e->value - c->value));
		c->value = e->value;
	}
	return n;
}

/* The CALL fields after the thread. */
static int decode_call(struct call_coder *c, const uint8_t **p, const uint8_t *end,
                       struct call_event *e)
{
	uint64_t slot, caller, target;
	if (!umt__get_varint(p, end, &slot) || !umt__get_varint(p, end, &caller) ||
	    !umt__get_varint(p, end, &target) || *p >= end)
		return 0;
	e->value = c->value + unzigzag(slot);
	e->caller = c->address + unzigzag(caller);
	e->target = e->caller + unzigzag(target);
	e->length = *(*p)++;
	c->value = e->value;
	c->address = e->caller;
	return 1;
}

int umt__ix_call_decode(struct call_coder *c, const uint8_t **p, const uint8_t *end,
                        struct call_event *e)
{
	const uint8_t *q = *p;
	uint64_t did, dthread, v;
	if (q >= end)
		return 0;
	unsigned tag = *q++;
	if (tag > 0x1f || (tag & 0x10 && (tag & 3) != CEV_CALL))
		return -1;
	memset(e, 0, sizeof *e);
	e->kind = (uint8_t)(tag & 3);
	e->source = (uint8_t)(tag >> 2 & 3);
	e->final = (uint8_t)(tag >> 4 & 1);
	if (!umt__get_varint(&q, end, &did) || !umt__get_varint(&q, end, &dthread))
		return 0;
	if (dthread > UINT32_MAX)
		return -1;
	struct call_coder next = *c;
	next.id = c->id + did;
	next.thread = (int32_t)((uint32_t)c->thread + (uint32_t)unzigzag(dthread));
	e->id = next.id;
	e->thread = next.thread;
	int ok = 1;
	if (e->kind == CEV_CALL) {
		ok = decode_call(&next, &q, end, e);
	} else if (e->kind == CEV_NEXT) {
		if (e->source == UMT_CALL_TARGET_NEXT && (ok = umt__get_varint(&q, end, &v)) != 0)
			e->value = next.address = next.address + unzigzag(v);
	} else if ((ok = umt__get_varint(&q, end, &v)) != 0) {
		e->value = next.value = next.value + unzigzag(v);
	}
	if (!ok)
		return 0;
	*c = next;
	*p = q;
	return 1;
}
