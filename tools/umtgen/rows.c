/*
 * umtgen: instruction rows. An instruction gets a row the first time it
 * executes, and a new one when the page it is on changed since (a module
 * mapped again, code rewritten): as the tracer instruments code again. Rows
 * share decoded bodies and disassembly strings. Code outside the program's
 * modules (the threads' JIT buffers) is decoded from memory.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "pipe.h"
#include "sim.h"

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t body_hash(const struct decoded *d)
{
	uint64_t h = fnv(&d->d, sizeof d->d, 0xcbf29ce484222325ull);
	return fnv(d->slots, (size_t)d->count * sizeof d->slots[0], h);
}

static int same_body(const struct decoded *a, const struct decoded *b)
{
	return a->count == b->count && memcmp(&a->d, &b->d, sizeof a->d) == 0 &&
	       memcmp(a->slots, b->slots, (size_t)a->count * sizeof a->slots[0]) == 0;
}

static int grow_bodies(struct gen *g)
{
	uint32_t cap = g->dcap ? 2 * g->dcap : 256;
	struct decoded *d = realloc(g->decs, cap * sizeof *d);
	if (d)
		g->decs = d;
	uint32_t *h = d ? calloc(2 * (size_t)cap, sizeof *h) : NULL;
	if (h == NULL)
		return gen_fail(g, "out of memory");
	free(g->dec_hash);
	g->dec_hash = h;
	g->dec_hash_cap = 2 * (uint64_t)cap;
	g->dcap = cap;
	for (uint32_t i = 0; i < g->ndecs; i++) { /* entries are index + 1, 0 is empty */
		uint64_t k = body_hash(&g->decs[i]) & (g->dec_hash_cap - 1);
		while (h[k])
			k = (k + 1) & (g->dec_hash_cap - 1);
		h[k] = i + 1;
	}
	return 0;
}

/* The decoded body of @p in at @p addr: index + 1 into g->decs, added to the
 * trace the first time. @return the index + 1, or 0 after a failure. */
static uint32_t body_of(struct gen *g, const struct insn *in, uint64_t addr)
{
	uint8_t code[15];
	struct enc_info e;
	struct decoded d;
	if (x86_encode(in, addr, g->mode64, code, &e) < 0 ||
	    decoded_build(&g->dctx, in, &e, addr, &d) < 0) {
		gen_fail(g, "no decoded instruction for the instruction at 0x%llx",
		         (unsigned long long)addr);
		return 0;
	}
	if (g->ndecs == g->dcap && grow_bodies(g) < 0)
		return 0;
	uint64_t k = body_hash(&d) & (g->dec_hash_cap - 1);
	for (; g->dec_hash[k]; k = (k + 1) & (g->dec_hash_cap - 1))
		if (same_body(&g->decs[g->dec_hash[k] - 1], &d))
			return g->dec_hash[k];
	g->decs[g->ndecs] = d;
	if (pipe_decoded(g->pipe, &d.d, d.slots) < 0) { /* numbered as g->decs */
		gen_fail(g, "the writer stopped");
		return 0;
	}
	g->dec_hash[k] = ++g->ndecs;
	return g->ndecs;
}

static int grow_strings(struct gen *g)
{
	uint64_t cap = g->str_cap ? 2 * g->str_cap : 1024;
	struct strent *n = calloc(cap, sizeof *n);
	if (n == NULL)
		return gen_fail(g, "out of memory");
	for (uint64_t i = 0; i < g->str_cap; i++) {
		if (g->strs[i].text == NULL)
			continue;
		uint64_t k = g->strs[i].hash & (cap - 1);
		while (n[k].text)
			k = (k + 1) & (cap - 1);
		n[k] = g->strs[i];
	}
	free(g->strs);
	g->strs = n;
	g->str_cap = cap;
	return 0;
}

/* The number of a disassembly string, added once (strings are shared). */
static int string_fp(struct gen *g, const char *text, int64_t *fp)
{
	if ((g->nstrs + 1) * 2 > g->str_cap && grow_strings(g) < 0)
		return -1;
	uint64_t h = fnv(text, strlen(text), 0xcbf29ce484222325ull);
	uint64_t k = h & (g->str_cap - 1);
	for (; g->strs[k].text; k = (k + 1) & (g->str_cap - 1))
		if (g->strs[k].hash == h && strcmp(g->strs[k].text, text) == 0) {
			*fp = g->strs[k].number;
			return 0;
		}
	char *copy = strdup(text);
	if (copy == NULL)
		return gen_fail(g, "out of memory");
	if (pipe_disasm(g->pipe, text) < 0) {
		free(copy);
		return gen_fail(g, "the writer stopped");
	}
	*fp = (int64_t)g->nstrs; /* the pipe numbers strings in this order */
	g->strs[k] = (struct strent){h, *fp, copy};
	g->nstrs++;
	return 0;
}

static uint8_t row_type(const struct insn *in, int mode64)
{
	switch (in->op) {
	case OP_SYSCALL: return mode64 ? UMT_INS_FAST_SYSCALL64 : UMT_INS_FAST_SYSCALL32;
	case OP_INT: return in->o[0].val == 0x2e ? UMT_INS_ALT_SYSCALL : UMT_INS_SOFT_INT;
	case OP_NOP: return UMT_INS_NOP;
	default: return UMT_INS_NORMAL;
	}
}

/* A new row for @p s, whose page is at generation @p gen. */
static int new_row(struct gen *g, struct site *s, uint32_t gen)
{
	if (s->dec == 0 && (s->dec = body_of(g, &s->in, s->addr)) == 0)
		return -1;
	char text[160];
	int64_t fp = 0;
	x86_disasm(&s->in, g->mode64, s->addr + s->len, text, sizeof text);
	if (string_fp(g, text, &fp) < 0)
		return -1;
	int32_t module = s->module >= 0 ? g->row_of[(int)s->module] : -1;
	if (s->module >= 0 && module < 0)
		return gen_fail(g, "code at 0x%llx runs while its module is not mapped",
		                (unsigned long long)s->addr);
	umt_ins_rec r;
	memset(&r, 0, sizeof r);
	r.Type = row_type(&s->in, g->mode64);
	r.CSis64Bits = (uint8_t)g->mode64;
	r.CodeSize = s->len;
	r.ModuleID = module;
	r.Address = (int64_t)s->addr;
	memcpy(r.CodeBytes, s->code, s->len);
	r.DisasmFP = fp;              /* numbers: the pipe puts the FPs in */
	r.DecodedFP = s->dec - 1;
	if (pipe_ins(g->pipe, &r) < 0)
		return gen_fail(g, "the writer stopped");
	s->row = g->nins++;
	s->row_gen = gen;
	return 0;
}

/* ---- code outside modules --------------------------------------------------------- */

/* The instructions JIT code may hold (st_jit writes "mov eax, imm32; add eax, ecx; ret"). */
static int jit_decode(struct gen *g, uint64_t addr, struct site *s)
{
	struct insn vocab[3] = {ins2(OP_MOV, r_(G_AX, 4), i_(4, 0)),
	                        ins2(OP_ADD, r_(G_AX, 4), r_(G_CX, 4)), ins0(OP_RET)};
	for (int v = 0; v < 3; v++) {
		uint8_t code[15], mem[15];
		struct enc_info e;
		int n = x86_encode(&vocab[v], addr, g->mode64, code, &e);
		if (n < 0 || !mem_ok(&g->mem, addr, (uint64_t)n, PERM_X))
			continue;
		mem_get(&g->mem, addr, mem, (uint64_t)n);
		if (e.imm_size) { /* the immediate is whatever memory holds */
			int32_t imm;
			memcpy(&imm, mem + n - 4, 4);
			vocab[v].o[1].val = imm;
			n = x86_encode(&vocab[v], addr, g->mode64, code, &e);
		}
		if (n > 0 && memcmp(code, mem, (size_t)n) == 0) {
			memset(s, 0, sizeof *s);
			s->in = vocab[v];
			s->addr = addr;
			s->len = (uint8_t)n;
			memcpy(s->code, code, (size_t)n);
			s->module = -1;
			s->row = -1;
			s->fall = s->target = NO_SITE;
			return 0;
		}
	}
	return gen_fail(g, "execution reached undecodable code at 0x%llx", (unsigned long long)addr);
}

static struct site *dyn_site(struct gen *g, uint64_t addr, uint32_t gen)
{
	struct dynsite *d = NULL;
	for (uint32_t i = 0; i < g->ndyn && d == NULL; i++)
		if (g->dyn[i].s.addr == addr)
			d = &g->dyn[i];
	if (d == NULL) {
		struct dynsite *n = grow(g->dyn, &g->dyncap, g->ndyn, sizeof *n, 32);
		if (n == NULL) {
			gen_fail(g, "out of memory");
			return NULL;
		}
		g->dyn = n;
		d = &g->dyn[g->ndyn++];
		d->gen = gen + 1; /* forces a decode */
		d->s.addr = addr;
	}
	if (d->gen != gen) { /* new or rewritten code: decode it again */
		if (jit_decode(g, addr, &d->s) < 0)
			return NULL;
		d->gen = gen;
	}
	return &d->s;
}

int rows_resolve(struct gen *g, struct thread *t, uint64_t rip, struct site **site,
                 const struct decoded **dec)
{
	struct program *p = &g->prog;
	uint32_t i = t->site;
	if (i == NO_SITE || p->sites[i].addr != rip)
		i = prog_site_at(p, rip);
	struct site *s = i != NO_SITE ? &p->sites[i] : NULL;
	if (s && s->row >= 0 && s->page->gen == s->row_gen) { /* its page did not change */
		t->site = i;
		*site = s;
		*dec = &g->decs[s->dec - 1];
		return 0;
	}
	struct page *pg = mem_page(&g->mem, rip);
	if (pg == NULL || !(pg->perm & PERM_X))
		return gen_fail(g, "thread %d executes 0x%llx, outside executable memory", t->id,
		                (unsigned long long)rip);
	if (s == NULL && (s = dyn_site(g, rip, pg->gen)) == NULL)
		return -1;
	if ((s->row < 0 || s->row_gen != pg->gen) && new_row(g, s, pg->gen) < 0)
		return -1;
	s->page = pg;
	t->site = i;
	*site = s;
	*dec = &g->decs[s->dec - 1];
	return 0;
}

void rows_free(struct gen *g)
{
	for (uint64_t i = 0; i < g->str_cap; i++)
		free(g->strs[i].text);
	free(g->strs);
	free(g->decs);
	free(g->dec_hash);
	free(g->dyn);
}
