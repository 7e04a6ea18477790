/*
 * umtgen: the assembler that writes programs (program.h). Instructions are
 * encoded as they are appended, with placeholder values for operands that
 * name labels; pb_finish() resolves the labels, encodes again (same length:
 * every label operand has a fixed-size field), links each site to the next
 * one and to its branch target, and builds the module images.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "machine.h"
#include "program.h"
#include "util.h"

#define CODE_START 0x1000u
/* a data label's address is its offset in the module's data, known at the end */
#define DATA_LABEL 0x8000000000000000ull

static void fail(struct program *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct program *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->error, sizeof p->error, fmt, ap);
	va_end(ap);
}

/* grow(), failing the program when out of memory. */
static void *more(struct program *p, void *arr, size_t *cap, uint32_t used, size_t elem)
{
	void *q = grow(arr, cap, used, elem, 64);
	if (q == NULL)
		fail(p, "out of memory");
	return q;
}

static int reserve_bytes(struct program *p, uint8_t **buf, uint64_t *cap, uint64_t need)
{
	if (need <= *cap)
		return 0;
	uint64_t n = *cap ? *cap : 4096;
	while (n < need)
		n *= 2;
	uint8_t *q = realloc(*buf, n);
	if (q == NULL) {
		fail(p, "out of memory");
		return -1;
	}
	memset(q + *cap, 0, n - *cap);
	*buf = q;
	*cap = n;
	return 0;
}

void pb_init(struct program *p, int mode64)
{
	memset(p, 0, sizeof *p);
	p->mode64 = mode64;
	p->cur = -1;
	p->abi.plugin_module = -1;
}

void pb_free(struct program *p)
{
	for (int i = 0; i < p->nmods; i++) {
		free(p->mods[i].image);
		free(p->mods[i].code_buf);
		free(p->mods[i].data_buf);
	}
	free(p->sites);
	free(p->labels);
	free(p->guards);
	free(p->relocs);
	free(p->hash);
	memset(p, 0, sizeof *p);
}

int pb_module(struct program *p, const char *name, uint64_t base, int dynamic,
              uint64_t filetime, const uint16_t version[4])
{
	if (p->nmods == MAX_MODULES) {
		fail(p, "too many modules");
		return -1;
	}
	struct module_img *m = &p->mods[p->nmods];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	const char *file = name + 2; /* "C:\\..." -> "\\Device\\HarddiskVolume2\\..." */
	snprintf(m->device, sizeof m->device, "\\Device\\HarddiskVolume2%s", file);
	m->base = base;
	m->code_at = base + CODE_START;
	m->dynamic = dynamic;
	m->filetime = filetime;
	memcpy(m->version, version, sizeof m->version);
	p->cur = p->nmods;
	return p->nmods++;
}

void pb_select(struct program *p, int module)
{
	p->cur = module;
}

uint32_t pb_label(struct program *p)
{
	struct label *l = more(p, p->labels, &p->label_cap, p->nlabels, sizeof *l);
	if (l == NULL)
		return 0;
	p->labels = l;
	p->labels[p->nlabels] = (struct label){0, 0};
	return p->nlabels++;
}

void pb_bind(struct program *p, uint32_t label)
{
	if (p->cur < 0 || label >= p->nlabels) {
		fail(p, "label %u bound outside a module", label);
		return;
	}
	p->labels[label] = (struct label){p->mods[p->cur].code_at, 1};
}

int pb_label_module(const struct program *p, uint32_t label)
{
	if (label >= p->nlabels || !p->labels[label].bound || (p->labels[label].addr & DATA_LABEL))
		return -1;
	uint64_t a = p->labels[label].addr;
	for (int i = 0; i < p->nmods; i++)
		if (a >= p->mods[i].base && a < p->mods[i].code_at)
			return i;
	return -1;
}

uint64_t pb_addr(const struct program *p, uint32_t label)
{
	return label < p->nlabels ? p->labels[label].addr : 0;
}

/* A value for a label operand while its address is unknown: in range of any
 * field (rel8 included) and not fitting an imm8. */
static int64_t placeholder(const struct program *p, const struct opnd *o)
{
	if (o->kind == O_IMM)
		return 0x7fff0000;
	return (int64_t)p->mods[p->cur].code_at;
}

uint32_t pb_emit(struct program *p, struct insn in, uint8_t sym)
{
	if (p->failed || p->cur < 0)
		return NO_SITE;
	struct module_img *m = &p->mods[p->cur];
	struct site *s = more(p, p->sites, &p->site_cap, p->nsites, sizeof *s);
	if (s == NULL)
		return NO_SITE;
	p->sites = s;
	s += p->nsites;
	memset(s, 0, sizeof *s);
	for (int i = 0; i < in.nops; i++)
		if (in.o[i].kind != O_REG && (in.o[i].hi & SYMBOLIC)) {
			sym |= (uint8_t)(1u << i);
			in.o[i].hi = 0;
		}
	s->in = in;
	s->sym = sym;
	s->addr = m->code_at;
	s->module = (int8_t)p->cur;
	s->row = -1;
	struct insn tmp = in;
	for (int i = 0; i < in.nops; i++)
		if (sym & (1u << i)) {
			tmp.o[i].val = placeholder(p, &in.o[i]);
			if (in.o[i].kind == O_IMM && in.op == OP_MOV && p->mode64)
				tmp.pfx = s->in.pfx = (uint8_t)(in.pfx | P_ALT); /* imm64: fixed size */
		}
	struct enc_info e;
	int n = x86_encode(&tmp, s->addr, p->mode64, s->code, &e);
	if (n < 0) {
		char text[128];
		x86_disasm(&tmp, p->mode64, s->addr, text, sizeof text);
		fail(p, "no encoding for \"%s\" at 0x%llx", text, (unsigned long long)s->addr);
		return NO_SITE;
	}
	s->len = (uint8_t)n;
	m->code_at += (uint64_t)n;
	return p->nsites++;
}

uint32_t pb_data(struct program *p, uint64_t size, uint64_t align, const void *init)
{
	uint32_t l = pb_label(p);
	if (p->failed || p->cur < 0)
		return l;
	struct module_img *m = &p->mods[p->cur];
	uint64_t at = (m->data_at + align - 1) & ~(align - 1);
	if (reserve_bytes(p, &m->data_buf, &m->data_cap, at + size) < 0)
		return l;
	if (init)
		memcpy(m->data_buf + at, init, size);
	m->data_at = at + size;
	/* the module and the offset, until pb_finish places the data */
	p->labels[l] = (struct label){DATA_LABEL | (uint64_t)p->cur << 48 | at, 1};
	return l;
}

void pb_data_addr(struct program *p, uint32_t data_label, uint64_t offset, uint32_t label,
                  uint8_t size)
{
	struct reloc *r = more(p, p->relocs, &p->reloc_cap, p->nrelocs, sizeof *r);
	if (r == NULL)
		return;
	p->relocs = r;
	p->relocs[p->nrelocs++] = (struct reloc){data_label, label, offset, size};
}

void pb_guard(struct program *p, uint32_t start, uint32_t end, uint32_t handler)
{
	struct guard *gd = more(p, p->guards, &p->guard_cap, p->nguards, sizeof *gd);
	if (gd == NULL)
		return;
	p->guards = gd;
	/* label numbers for now: pb_finish turns start and end into addresses */
	p->guards[p->nguards++] = (struct guard){start, end, handler};
}

struct insn ins0(uint8_t op)
{
	struct insn in;
	memset(&in, 0, sizeof in);
	in.op = op;
	return in;
}

struct insn ins1(uint8_t op, struct opnd a)
{
	struct insn in = ins0(op);
	in.nops = 1;
	in.o[0] = a;
	return in;
}

struct insn ins2(uint8_t op, struct opnd a, struct opnd b)
{
	struct insn in = ins1(op, a);
	in.nops = 2;
	in.o[1] = b;
	return in;
}

struct insn ins3(uint8_t op, struct opnd a, struct opnd b, struct opnd c)
{
	struct insn in = ins2(op, a, b);
	in.nops = 3;
	in.o[2] = c;
	return in;
}
