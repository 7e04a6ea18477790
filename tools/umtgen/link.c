/*
 * umtgen: the last step of building a program (pb_finish): data placed
 * after the code of each module, labels resolved, every instruction encoded
 * at its final address, sites linked, images built, the address index.
 */
#include <stdio.h>
#include <stdlib.h>

#include "machine.h"
#include "program.h"

#define DATA_LABEL 0x8000000000000000ull

static uint64_t page_up(uint64_t v)
{
	return (v + PAGE_MASK) & ~PAGE_MASK;
}

static int finish_fail(struct program *p, const char *what, unsigned long long v)
{
	if (!p->failed) {
		p->failed = 1;
		snprintf(p->error, sizeof p->error, "%s 0x%llx", what, v);
	}
	return -1;
}

/* Data after the code, page-aligned; data labels become addresses. */
static int place(struct program *p)
{
	for (int i = 0; i < p->nmods; i++) {
		struct module_img *m = &p->mods[i];
		m->code_end = m->code_at;
		m->data_start = page_up(m->code_end);
		m->end = page_up(m->data_start + m->data_at);
		if (m->end == m->data_start)
			m->end = m->data_start + PAGE_SIZE; /* every module has a data page */
	}
	for (uint32_t l = 0; l < p->nlabels; l++) {
		struct label *b = &p->labels[l];
		if (!b->bound)
			return finish_fail(p, "label never bound:", l);
		if (b->addr & DATA_LABEL) {
			int mod = (int)((b->addr >> 48) & 0x7fff);
			b->addr = p->mods[mod].data_start + (b->addr & 0xffffffffffffull);
		}
	}
	return 0;
}

/* Every instruction at its final address, its label operands resolved. */
static int encode_all(struct program *p)
{
	for (uint32_t i = 0; i < p->nsites; i++) {
		struct site *s = &p->sites[i];
		for (int k = 0; k < s->in.nops; k++)
			if (s->sym & (1u << k)) { /* label in the low 32 bits, an addend above */
				uint64_t v = (uint64_t)s->in.o[k].val, l = v & 0xffffffffu;
				if (l >= p->nlabels)
					return finish_fail(p, "bad label in instruction at", s->addr);
				s->in.o[k].val = (int64_t)(p->labels[l].addr + (v >> 32));
			}
		uint8_t code[15];
		int n = x86_encode(&s->in, s->addr, p->mode64, code, NULL);
		if (n != s->len)
			return finish_fail(p, "instruction changed size (branch out of range?) at", s->addr);
		memcpy(s->code, code, (size_t)n);
		s->sym = 0;
	}
	return 0;
}

static int build_images(struct program *p)
{
	for (int i = 0; i < p->nmods; i++) {
		struct module_img *m = &p->mods[i];
		m->image = calloc(1, m->end - m->base);
		if (m->image == NULL)
			return finish_fail(p, "out of memory for the image at", m->base);
		if (m->data_at)
			memcpy(m->image + (m->data_start - m->base), m->data_buf, m->data_at);
	}
	for (uint32_t i = 0; i < p->nsites; i++) {
		const struct site *s = &p->sites[i];
		struct module_img *m = &p->mods[s->module];
		memcpy(m->image + (s->addr - m->base), s->code, s->len);
	}
	for (uint32_t i = 0; i < p->nrelocs; i++) {
		const struct reloc *r = &p->relocs[i];
		uint64_t at = p->labels[r->data_label].addr + r->offset, v = p->labels[r->label].addr;
		int mod = prog_module_at(p, at);
		if (mod < 0 || at + r->size > p->mods[mod].end)
			return finish_fail(p, "address word outside its module at", at);
		for (int k = 0; k < r->size; k++)
			p->mods[mod].image[at - p->mods[mod].base + (uint64_t)k] = (uint8_t)(v >> (8 * k));
	}
	return 0;
}

static uint64_t hash_of(uint64_t addr, uint64_t cap)
{
	return (addr * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

static int index_sites(struct program *p)
{
	p->hash_cap = 16;
	while (p->hash_cap < 2 * (uint64_t)p->nsites)
		p->hash_cap *= 2;
	p->hash = malloc(p->hash_cap * sizeof *p->hash);
	if (p->hash == NULL)
		return finish_fail(p, "out of memory for sites:", p->nsites);
	for (uint64_t i = 0; i < p->hash_cap; i++)
		p->hash[i] = NO_SITE;
	for (uint32_t i = 0; i < p->nsites; i++) {
		uint64_t h = hash_of(p->sites[i].addr, p->hash_cap);
		while (p->hash[h] != NO_SITE)
			h = (h + 1) & (p->hash_cap - 1);
		p->hash[h] = i;
	}
	return 0;
}

uint32_t prog_site_at(const struct program *p, uint64_t addr)
{
	if (p->hash == NULL)
		return NO_SITE;
	for (uint64_t h = hash_of(addr, p->hash_cap);; h = (h + 1) & (p->hash_cap - 1)) {
		uint32_t i = p->hash[h];
		if (i == NO_SITE || p->sites[i].addr == addr)
			return i;
	}
}

int prog_module_at(const struct program *p, uint64_t addr)
{
	for (int i = 0; i < p->nmods; i++)
		if (addr >= p->mods[i].base && addr < p->mods[i].end)
			return i;
	return -1;
}

static int link_sites(struct program *p)
{
	for (uint32_t i = 0; i < p->nsites; i++) {
		struct site *s = &p->sites[i];
		s->fall = prog_site_at(p, s->addr + s->len);
		s->target = NO_SITE;
		if (s->in.nops > 0 && s->in.o[0].kind == O_REL) {
			s->target = prog_site_at(p, (uint64_t)s->in.o[0].val);
			if (s->target == NO_SITE)
				return finish_fail(p, "branch to no instruction at", s->addr);
		}
	}
	for (uint32_t g = 0; g < p->nguards; g++) {
		struct guard *r = &p->guards[g];
		r->start = p->labels[r->start].addr;
		r->end = p->labels[r->end].addr;
		for (uint32_t i = 0; i < p->nsites; i++)
			if (p->sites[i].addr >= r->start && p->sites[i].addr < r->end &&
			    p->sites[i].in.op == OP_CALL)
				p->sites[i].guard = g + 1;
	}
	return 0;
}

int pb_finish(struct program *p)
{
	if (p->failed)
		return -1;
	if (place(p) < 0 || encode_all(p) < 0 || build_images(p) < 0 || index_sites(p) < 0 ||
	    link_sites(p) < 0)
		return -1;
	p->abi.entry_main = p->labels[p->abi.main_label].addr;
	p->abi.entry_worker = p->labels[p->abi.worker_label].addr;
	return 0;
}
