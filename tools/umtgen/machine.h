/*
 * umtgen: the simulated machine's state. A thread's registers live in one
 * buffer laid out exactly as the trace's register dump (context map), so a
 * context record is a copy of it and an LC register slot a copy of a few of
 * its bytes. Memory is sparse: 4 KiB pages in a hash table, mapped with
 * permissions, with a generation counter per page that changes when code on
 * it is overwritten (self-modifying code gets new instruction rows).
 */
#ifndef UMTGEN_MACHINE_H
#define UMTGEN_MACHINE_H

#include <stdint.h>
#include <string.h>

/* Offsets in the register file (= the register dump). GPR i is at 8 * i. */
enum {
	RF_RFLAGS = 128, RF_RIP = 136, RF_SEG = 144, /* cs ds es ss fs gs, 2 bytes each */
	RF_FSBASE = 156, RF_GSBASE = 164, RF_MXCSR = 172, RF_VEC = 256, /* vector i at 256 + 32 i */
	RF_SIZE_2015 = 768, RF_SIZE_2014 = 512, RF_MAX = 768
};
#define RF_GPR(i) (8 * (i))
#define RF_VECTOR(i) (RF_VEC + 32 * (i))

/* Status flags in rflags. */
enum { F_CF = 0x1, F_PF = 0x4, F_AF = 0x10, F_ZF = 0x40, F_SF = 0x80, F_OF = 0x800,
       F_STATUS = 0x8d5 };

/* Page permissions. */
enum { PERM_R = 1, PERM_W = 2, PERM_X = 4 };

#define PAGE_SIZE 4096u
#define PAGE_MASK ((uint64_t)PAGE_SIZE - 1)

struct page {
	uint8_t data[PAGE_SIZE];
	uint64_t number; /* address >> 12 */
	uint32_t gen;    /* bumped when its permission or, executable, its bytes change */
	uint8_t perm;
};

/* A mapped range: its pages are allocated when first touched. */
struct region {
	uint64_t first, last; /* page numbers, inclusive */
	uint8_t perm;
};

/* The sparse memory: open addressing on page numbers, plus a small cache. */
struct mem {
	struct page **slots;
	uint64_t cap, count;
	struct page *tlb[64];
	struct region *regions; /* sorted, disjoint */
	uint64_t nregions, rcap;
};

void mem_init(struct mem *m);
void mem_free(struct mem *m);

/* Maps [addr, addr + size) (page-rounded) with @p perm; pages already mapped
 * keep their bytes and take the new permission; others read as zeros and
 * take memory only once touched. @return 0, -1 out of memory. */
int mem_map(struct mem *m, uint64_t addr, uint64_t size, uint8_t perm);

/* Unmaps the pages of [addr, addr + size). */
void mem_unmap(struct mem *m, uint64_t addr, uint64_t size);

/* The page numbered @p number, allocated on first use; NULL when unmapped. */
struct page *mem_page_slow(struct mem *m, uint64_t number);

static inline struct page *mem_page(struct mem *m, uint64_t addr)
{
	uint64_t n = addr >> 12;
	struct page *p = m->tlb[n & 63];
	if (p != NULL && p->number == n)
		return p;
	p = mem_page_slow(m, n);
	if (p != NULL)
		m->tlb[n & 63] = p;
	return p;
}

/* Whether every byte of [addr, addr + size) is mapped with all of @p perm. */
int mem_ok(struct mem *m, uint64_t addr, uint64_t size, uint8_t perm);

/* Copies bytes out of or into memory, ignoring permissions (the caller
 * checked them with mem_ok()); unmapped bytes read as zero and are not
 * written. Writes bump the generation of executable pages. */
void mem_get(struct mem *m, uint64_t addr, void *buf, uint64_t size);
void mem_put(struct mem *m, uint64_t addr, const void *buf, uint64_t size);

static inline uint64_t mem_get64(struct mem *m, uint64_t addr, unsigned size)
{
	uint64_t v = 0;
	struct page *p = mem_page(m, addr);
	if (p != NULL && (addr & PAGE_MASK) + size <= PAGE_SIZE)
		memcpy(&v, p->data + (addr & PAGE_MASK), size);
	else
		mem_get(m, addr, &v, size);
	return v;
}

/* Generation of the page of @p addr (0 when unmapped). */
uint32_t mem_gen(struct mem *m, uint64_t addr);

#endif
