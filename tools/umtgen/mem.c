/*
 * umtgen: the simulated machine's sparse memory (see machine.h). Mapped
 * ranges are kept as regions; a page gets its 4 KiB the first time it is
 * touched, so a thread's large data slice costs only what it uses. Unmapped
 * pages keep their memory with no permission (the hash table never shrinks).
 */
#include <stdlib.h>

#include "machine.h"

void mem_init(struct mem *m)
{
	memset(m, 0, sizeof *m);
}

void mem_free(struct mem *m)
{
	for (uint64_t i = 0; i < m->cap; i++)
		free(m->slots[i]);
	free(m->slots);
	free(m->regions);
	memset(m, 0, sizeof *m);
}

static uint64_t slot_of(const struct mem *m, uint64_t number)
{
	return (number * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);
}

static struct page *find(const struct mem *m, uint64_t number)
{
	if (m->cap == 0)
		return NULL;
	for (uint64_t i = slot_of(m, number);; i = (i + 1) & (m->cap - 1)) {
		struct page *p = m->slots[i];
		if (p == NULL || p->number == number)
			return p;
	}
}

static int grow_slots(struct mem *m)
{
	uint64_t cap = m->cap ? 2 * m->cap : 1024;
	struct page **slots = calloc(cap, sizeof *slots);
	if (slots == NULL)
		return -1;
	struct page **old = m->slots;
	uint64_t old_cap = m->cap;
	m->slots = slots;
	m->cap = cap;
	for (uint64_t i = 0; i < old_cap; i++) {
		struct page *p = old[i];
		if (p == NULL)
			continue;
		uint64_t j = slot_of(m, p->number);
		while (slots[j] != NULL)
			j = (j + 1) & (cap - 1);
		slots[j] = p;
	}
	free(old);
	return 0;
}

static struct page *insert(struct mem *m, uint64_t number, uint8_t perm)
{
	if ((m->count + 1) * 2 > m->cap && grow_slots(m) < 0)
		return NULL;
	struct page *p = calloc(1, sizeof *p);
	if (p == NULL)
		return NULL;
	p->number = number;
	p->perm = perm;
	p->gen = 1;
	uint64_t i = slot_of(m, number);
	while (m->slots[i] != NULL)
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = p;
	m->count++;
	return p;
}

/* The region holding page @p number, or NULL. */
static const struct region *region_of(const struct mem *m, uint64_t number)
{
	uint64_t lo = 0, hi = m->nregions;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (m->regions[mid].last < number)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nregions && m->regions[lo].first <= number ? &m->regions[lo] : NULL;
}

struct page *mem_page_slow(struct mem *m, uint64_t number)
{
	struct page *p = find(m, number);
	if (p != NULL)
		return p;
	const struct region *r = region_of(m, number);
	return r && r->perm ? insert(m, number, r->perm) : NULL;
}

/* Replaces the mapping of pages [first, last] with @p perm (0: unmapped). */
static int set_region(struct mem *m, uint64_t first, uint64_t last, uint8_t perm)
{
	struct region *n = malloc((m->nregions + 3) * sizeof *n);
	if (n == NULL)
		return -1;
	struct region mine = {first, last, perm};
	uint64_t k = 0;
	int placed = 0;
	for (uint64_t i = 0; i < m->nregions; i++) {
		struct region r = m->regions[i];
		if (r.last < first) {
			n[k++] = r;
			continue;
		}
		if (r.first < first) /* the part before ours */
			n[k++] = (struct region){r.first, first - 1, r.perm};
		if (!placed && perm)
			n[k++] = mine;
		placed = 1;
		if (r.first > last)
			n[k++] = r;
		else if (r.last > last) /* the part after ours */
			n[k++] = (struct region){last + 1, r.last, r.perm};
	}
	if (!placed && perm)
		n[k++] = mine;
	free(m->regions);
	m->regions = n;
	m->nregions = k;
	return 0;
}

/* Calls @p fn on every allocated page of [first, last]. */
static void each_page(struct mem *m, uint64_t first, uint64_t last, void (*fn)(struct page *, uint8_t),
                      uint8_t perm)
{
	if (last - first < m->cap) {
		for (uint64_t n = first; n <= last; n++) {
			struct page *p = find(m, n);
			if (p != NULL)
				fn(p, perm);
		}
		return;
	}
	for (uint64_t i = 0; i < m->cap; i++)
		if (m->slots[i] != NULL && m->slots[i]->number >= first && m->slots[i]->number <= last)
			fn(m->slots[i], perm);
}

static void set_perm(struct page *p, uint8_t perm)
{
	p->perm = perm;
	p->gen++;
}

static void clear_page(struct page *p, uint8_t perm)
{
	memset(p->data, 0, sizeof p->data);
	set_perm(p, perm);
}

int mem_map(struct mem *m, uint64_t addr, uint64_t size, uint8_t perm)
{
	if (size == 0)
		return 0;
	uint64_t first = addr >> 12, last = (addr + size - 1) >> 12;
	if (set_region(m, first, last, perm) < 0)
		return -1;
	each_page(m, first, last, set_perm, perm); /* pages already there keep their bytes */
	return 0;
}

void mem_unmap(struct mem *m, uint64_t addr, uint64_t size)
{
	if (size == 0)
		return;
	uint64_t first = addr >> 12, last = (addr + size - 1) >> 12;
	if (set_region(m, first, last, 0) == 0)
		each_page(m, first, last, clear_page, 0);
}

int mem_ok(struct mem *m, uint64_t addr, uint64_t size, uint8_t perm)
{
	if (size == 0)
		return 1;
	if (addr + size - 1 < addr)
		return 0;
	for (uint64_t n = addr >> 12; n <= (addr + size - 1) >> 12; n++) {
		struct page *p = mem_page(m, n << 12);
		if (p == NULL || (p->perm & perm) != perm || p->perm == 0)
			return 0;
	}
	return 1;
}

void mem_get(struct mem *m, uint64_t addr, void *buf, uint64_t size)
{
	uint8_t *out = buf;
	while (size > 0) {
		uint64_t off = addr & PAGE_MASK, k = PAGE_SIZE - off;
		if (k > size)
			k = size;
		struct page *p = mem_page(m, addr);
		if (p != NULL && p->perm != 0)
			memcpy(out, p->data + off, k);
		else
			memset(out, 0, k);
		out += k;
		addr += k;
		size -= k;
	}
}

void mem_put(struct mem *m, uint64_t addr, const void *buf, uint64_t size)
{
	const uint8_t *in = buf;
	while (size > 0) {
		uint64_t off = addr & PAGE_MASK, k = PAGE_SIZE - off;
		if (k > size)
			k = size;
		struct page *p = mem_page(m, addr);
		if (p != NULL && p->perm != 0) {
			memcpy(p->data + off, in, k);
			if (p->perm & PERM_X)
				p->gen++;
		}
		in += k;
		addr += k;
		size -= k;
	}
}

uint32_t mem_gen(struct mem *m, uint64_t addr)
{
	struct page *p = mem_page(m, addr);
	return p ? p->gen : 0;
}
