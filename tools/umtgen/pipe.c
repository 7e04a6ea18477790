/*
 * umtgen: the pipeline between the simulation and the writer. The run loop
 * serialises every writer call (records, instruction rows, decoded bodies,
 * strings, syscall rows) into 1 MiB chunks; a second thread makes the calls
 * in the same order, while the writer's own thread writes the files. The
 * output is the same bytes as calling the writer directly; the simulation
 * only copies each record once, and runs while its predecessors are written.
 * Decoded bodies and strings are numbered here; the writer thread maps the
 * numbers to the writer's FPs when it writes the instruction rows.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pipe.h"
#include "util.h"

enum { CMD_EXEC = 1, CMD_CONTEXT, CMD_DECODED, CMD_DISASM, CMD_INS, CMD_SYSCALL, CMD_END };
#define CHUNK (1u << 20)
#define QUEUE 4

struct chunk {
	uint8_t *buf;
	size_t len, cap;
};

struct pipe {
	umt_writer *w;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t changed;
	struct chunk queue[QUEUE]; /* filled, waiting for the writer thread */
	int head, count;
	struct chunk spare[QUEUE + 1]; /* empty buffers for the simulation */
	int nspare;
	struct chunk cur; /* being filled */
	int failed;       /* the writer thread stopped on an error (message in err) */
	char err[256];
	/* writer thread: FPs of numbered bodies and strings */
	int64_t *fp[2];
	size_t nfp[2], fpcap[2];
};

/* ---- the simulation's side ---------------------------------------------------------------- */

static int hand_over(struct pipe *p)
{
	pthread_mutex_lock(&p->mu);
	while (p->count == QUEUE && !p->failed)
		pthread_cond_wait(&p->changed, &p->mu);
	int failed = p->failed;
	if (!failed) {
		p->queue[(p->head + p->count) % QUEUE] = p->cur;
		p->count++;
		pthread_cond_broadcast(&p->changed);
		while (p->nspare == 0 && !p->failed)
			pthread_cond_wait(&p->changed, &p->mu);
		failed = p->failed;
		if (!failed)
			p->cur = p->spare[--p->nspare];
	}
	pthread_mutex_unlock(&p->mu);
	p->cur.len = 0;
	return failed ? -1 : 0;
}

/* Room for @p n bytes in the current chunk (a larger one for a large record). */
static uint8_t *room(struct pipe *p, size_t n)
{
	if (p->cur.len + n > p->cur.cap && p->cur.len > 0 && hand_over(p) < 0)
		return NULL;
	if (n > p->cur.cap) {
		uint8_t *b = realloc(p->cur.buf, n);
		if (b == NULL)
			return NULL;
		p->cur.buf = b;
		p->cur.cap = n;
	}
	uint8_t *at = p->cur.buf + p->cur.len;
	p->cur.len += n;
	return at;
}

static uint8_t *put(uint8_t *at, const void *src, size_t n)
{
	memcpy(at, src, n);
	return at + n;
}

int pipe_exec(struct pipe *p, const umt_exec_desc *d)
{
	uint32_t lc = (uint32_t)d->lc_size;
	uint8_t *at = room(p, 1 + sizeof *d + lc);
	if (at == NULL)
		return -1;
	*at++ = CMD_EXEC;
	at = put(at, d, sizeof *d);
	if (lc)
		memcpy(at, d->lc, lc);
	return 0;
}

uint8_t *pipe_exec_room(struct pipe *p, uint64_t lc_size)
{
	uint8_t *at = room(p, 1 + sizeof(umt_exec_desc) + lc_size);
	if (at == NULL)
		return NULL;
	*at = CMD_EXEC;
	return at + 1 + sizeof(umt_exec_desc);
}

void pipe_exec_fields(uint8_t *lc, const umt_exec_desc *d)
{
	memcpy(lc - sizeof *d, d, sizeof *d);
}

int pipe_context(struct pipe *p, const umt_exec_desc *d)
{
	const umt_context_desc *c = d->context;
	size_t n = 1 + sizeof *d + sizeof *c + c->regs_size;
	for (uint32_t i = 0; i < c->mem_count; i++)
		n += sizeof c->mem[i] + c->mem[i].size;
	uint8_t *at = room(p, n);
	if (at == NULL)
		return -1;
	*at++ = CMD_CONTEXT;
	at = put(at, d, sizeof *d);
	at = put(at, c, sizeof *c);
	at = put(at, c->regs, c->regs_size);
	for (uint32_t i = 0; i < c->mem_count; i++) {
		at = put(at, &c->mem[i], sizeof c->mem[i]);
		at = put(at, c->mem[i].data, c->mem[i].size);
	}
	return 0;
}

int pipe_decoded(struct pipe *p, const umt_decoded_ins *d, const umt_lc_slot *slots)
{
	size_t n = sizeof *d + (size_t)d->LCCount * sizeof *slots;
	uint8_t *at = room(p, 1 + n);
	if (at == NULL)
		return -1;
	*at++ = CMD_DECODED;
	at = put(at, d, sizeof *d);
	put(at, slots, n - sizeof *d);
	return 0;
}

int pipe_disasm(struct pipe *p, const char *text)
{
	uint16_t len = (uint16_t)strlen(text);
	uint8_t *at = room(p, 1 + sizeof len + len + 1u);
	if (at == NULL)
		return -1;
	*at++ = CMD_DISASM;
	at = put(at, &len, sizeof len);
	put(at, text, len + 1u);
	return 0;
}

int pipe_ins(struct pipe *p, const umt_ins_rec *row)
{
	uint8_t *at = room(p, 1 + sizeof *row);
	if (at == NULL)
		return -1;
	*at++ = CMD_INS;
	put(at, row, sizeof *row);
	return 0;
}

int pipe_syscall(struct pipe *p, int64_t id, const umt_syscall_desc *d)
{
	size_t args = (size_t)d->arg_count * sizeof(int64_t);
	uint8_t *at = room(p, 1 + sizeof id + sizeof *d + args);
	if (at == NULL)
		return -1;
	*at++ = CMD_SYSCALL;
	at = put(at, &id, sizeof id);
	at = put(at, d, sizeof *d);
	put(at, d->args, args);
	return 0;
}

/* ---- the writer's side ----------------------------------------------------------------------- */

static int writer_failed(struct pipe *p, const char *what)
{
	snprintf(p->err, sizeof p->err, "%s: %s", what, umt_errmsg());
	return -1;
}

/* Remembers the FP of numbered body (kind 0) or string (kind 1). */
static int keep_fp(struct pipe *p, int kind, int64_t fp)
{
	int64_t *f = grow(p->fp[kind], &p->fpcap[kind], p->nfp[kind], sizeof *f, 1024);
	if (f == NULL) {
		snprintf(p->err, sizeof p->err, "out of memory");
		return -1;
	}
	p->fp[kind] = f;
	p->fp[kind][p->nfp[kind]++] = fp;
	return 0;
}

static const uint8_t *replay_context(struct pipe *p, const uint8_t *at, int *rc)
{
	umt_exec_desc d;
	umt_context_desc c;
	umt_mem_ref m[16];
	memcpy(&d, at, sizeof d);
	memcpy(&c, at + sizeof d, sizeof c);
	at += sizeof d + sizeof c;
	c.regs = at;
	at += c.regs_size;
	for (uint32_t i = 0; i < c.mem_count && i < 16; i++) {
		memcpy(&m[i], at, sizeof m[i]);
		m[i].data = at + sizeof m[i];
		at += sizeof m[i] + m[i].size;
	}
	c.mem = m;
	d.context = &c;
	*rc = umt_writer_add_exec(p->w, &d, NULL) < 0 ? writer_failed(p, "record") : 0;
	return at;
}

static const uint8_t *replay_one(struct pipe *p, const uint8_t *at, int *rc)
{
	int64_t fp, id;
	switch (*at++) {
	case CMD_EXEC: {
		umt_exec_desc d;
		memcpy(&d, at, sizeof d);
		d.lc = at + sizeof d;
		*rc = umt_writer_add_exec(p->w, &d, NULL) < 0 ? writer_failed(p, "record") : 0;
		return at + sizeof d + d.lc_size;
	}
	case CMD_CONTEXT:
		return replay_context(p, at, rc);
	case CMD_DECODED: {
		umt_decoded_ins d;
		umt_lc_slot slots[256]; /* aligned copies */
		memcpy(&d, at, sizeof d);
		memcpy(slots, at + sizeof d, (size_t)d.LCCount * sizeof slots[0]);
		*rc = umt_writer_add_decoded(p->w, &d, slots, &fp) < 0 ? writer_failed(p, "decoded")
		                                                        : keep_fp(p, 0, fp);
		return at + sizeof d + (size_t)d.LCCount * sizeof slots[0];
	}
	case CMD_DISASM: {
		uint16_t len;
		memcpy(&len, at, sizeof len);
		*rc = umt_writer_add_disasm(p->w, (const char *)at + 2, &fp) < 0
		              ? writer_failed(p, "disassembly") : keep_fp(p, 1, fp);
		return at + 2 + len + 1;
	}
	case CMD_INS: {
		umt_ins_rec r;
		memcpy(&r, at, sizeof r);
		r.DecodedFP = p->fp[0][r.DecodedFP]; /* numbers, as the simulation gave them */
		r.DisasmFP = p->fp[1][r.DisasmFP];
		*rc = umt_writer_add_ins(p->w, &r, NULL) < 0 ? writer_failed(p, "instruction") : 0;
		return at + sizeof r;
	}
	default: { /* CMD_SYSCALL */
		umt_syscall_desc d;
		int64_t args[256];
		memcpy(&id, at, sizeof id);
		memcpy(&d, at + sizeof id, sizeof d);
		memcpy(args, at + sizeof id + sizeof d, (size_t)d.arg_count * sizeof args[0]);
		d.args = args;
		*rc = umt_writer_add_syscall(p->w, id, &d) < 0 ? writer_failed(p, "syscall") : 0;
		return at + sizeof id + sizeof d + (size_t)d.arg_count * sizeof args[0];
	}
	}
}

static void *writer_main(void *arg)
{
	struct pipe *p = arg;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->count == 0)
			pthread_cond_wait(&p->changed, &p->mu);
		struct chunk c = p->queue[p->head];
		pthread_mutex_unlock(&p->mu);
		int rc = 0, end = 0;
		for (const uint8_t *at = c.buf; rc == 0 && at < c.buf + c.len;) {
			end = *at == CMD_END;
			at = end ? at + 1 : replay_one(p, at, &rc);
		}
		pthread_mutex_lock(&p->mu);
		p->head = (p->head + 1) % QUEUE;
		p->count--;
		c.len = 0;
		p->spare[p->nspare++] = c;
		p->failed |= rc < 0;
		pthread_cond_broadcast(&p->changed);
		pthread_mutex_unlock(&p->mu);
		if (rc < 0 || end)
			return NULL;
	}
}

struct pipe *pipe_open(umt_writer *w)
{
	struct pipe *p = calloc(1, sizeof *p);
	if (p == NULL)
		return NULL;
	p->w = w;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->changed, NULL);
	int ok = 1;
	for (int i = 0; i <= QUEUE; i++) {
		struct chunk c = {malloc(CHUNK), 0, CHUNK};
		ok &= c.buf != NULL;
		if (i == 0)
			p->cur = c;
		else
			p->spare[p->nspare++] = c;
	}
	if (!ok || pthread_create(&p->thread, NULL, writer_main, p) != 0) {
		for (int i = 0; i < p->nspare; i++)
			free(p->spare[i].buf);
		free(p->cur.buf);
		free(p);
		return NULL;
	}
	return p;
}

int pipe_close(struct pipe *p, char *err, size_t size)
{
	uint8_t *at = room(p, 1);
	int rc = 0;
	if (at != NULL) {
		*at = CMD_END;
		rc = hand_over(p);
	}
	pthread_join(p->thread, NULL);
	rc = p->failed || at == NULL ? -1 : rc;
	snprintf(err, size, "%s", p->failed ? p->err : "out of memory");
	for (int i = 0; i < p->nspare; i++)
		free(p->spare[i].buf);
	for (int i = 0; i < p->count; i++)
		free(p->queue[(p->head + i) % QUEUE].buf);
	free(p->cur.buf);
	free(p->fp[0]);
	free(p->fp[1]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->changed);
	free(p);
	return rc;
}
