/*
 * libumtrace - on-disk layout of an index (docs/index-format.md).
 *
 * One packed struct per structure of the format, every offset and size
 * asserted, like include/umtrace/format.h for traces. Overlaid on mapped
 * bytes: read fields through a local copy (memcpy) or directly (packed).
 */
#ifndef UMTRACE_IXFORMAT_H
#define UMTRACE_IXFORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "umtrace/format.h"

#pragma pack(push, 1)

#define UMT_IX_MAGIC "UMTINDEX"
#define UMT_IX_VERSION 2u
#define UMT_IX_HEADER_SIZE 4096u
#define UMT_IX_GRANULE 64u           /* bytes of a fine list */
#define UMT_IX_GRANULE_SHIFT 6
#define UMT_IX_PAGE 4096u            /* bytes of a page list */
#define UMT_IX_PAGE_SHIFT 12
#define UMT_IX_GRANULES_PER_PAGE 64u
#define UMT_IX_PAGE_LIST 64u         /* list index of the page list in a page */
#define UMT_IX_LISTS_PER_PAGE 65u
#define UMT_IX_BLOCK 128u            /* postings per block */
#define UMT_IX_FINE_MAX 4u           /* granules an access may touch and stay fine */
#define UMT_IX_INLINE_MAX 8u         /* value bytes a fine posting carries */
#define UMT_IX_TOP_STRIDE 256u       /* page entries per top-index entry */
#define UMT_IX_MAX_FILES 32u
#define UMT_IX_SECTION_MEMORY 1u     /* bit 0; other sections: src/index/section.h */
#define UMT_IX_MAX_SECTIONS 8u
#define UMT_IX_INFO_WORDS 8u

/** One trace file as the index saw it. */
typedef struct umt_ix_file_stamp {
	uint64_t Size;
	int64_t MtimeSec;
	int64_t MtimeNsec;
	uint64_t Present;
} umt_ix_file_stamp;
UMT_ASSERT_SIZE(umt_ix_file_stamp, 32);

/** The trace an index belongs to (960 bytes). */
typedef struct umt_ix_trace_identity {
	uint64_t RecordCount;
	uint64_t HeaderSum; /* FNV-1a 64 over the first 64 bytes of each trace file */
	umt_ix_file_stamp Files[UMT_FILE_COUNT];
	uint8_t Zero[960 - 16 - 32 * UMT_FILE_COUNT];
} umt_ix_trace_identity;
UMT_ASSERT_OFFSET(umt_ix_trace_identity, Files, 16);
UMT_ASSERT_SIZE(umt_ix_trace_identity, 960);

/** An entry of the header's file table. */
typedef struct umt_ix_file_entry {
	char Name[24]; /* NUL-padded */
	uint64_t Size;
} umt_ix_file_entry;
UMT_ASSERT_SIZE(umt_ix_file_entry, 32);

/** Counts of the memory section. */
typedef struct umt_ix_mem_info {
	uint64_t Pages;
	uint64_t Postings;
	uint64_t Accesses;
	uint64_t TopStride;
	uint64_t TopCount;
	uint64_t SkipEntries;
	uint64_t Zero[2];
} umt_ix_mem_info;
UMT_ASSERT_SIZE(umt_ix_mem_info, 64);

/** index.umti: 4096 bytes. */
typedef struct umt_ix_header {
	char Magic[8];
	uint32_t Version;
	uint32_t HeaderSize;
	uint64_t BuildID;
	uint64_t HeaderSum;
	uint32_t Granule;
	uint32_t PageSize;
	uint32_t BlockPostings;
	uint32_t FineMax;
	uint64_t Sections;
	uint64_t Reserved;
	umt_ix_trace_identity Trace;
	umt_ix_file_entry Files[UMT_IX_MAX_FILES];
	umt_ix_mem_info Memory;
	uint64_t SectionInfo[UMT_IX_MAX_SECTIONS - 1][UMT_IX_INFO_WORDS]; /* of bits 1-7 */
	uint8_t Zero[UMT_IX_HEADER_SIZE - 2560];
} umt_ix_header;
UMT_ASSERT_OFFSET(umt_ix_header, Version, 8);
UMT_ASSERT_OFFSET(umt_ix_header, BuildID, 16);
UMT_ASSERT_OFFSET(umt_ix_header, HeaderSum, 24);
UMT_ASSERT_OFFSET(umt_ix_header, Granule, 32);
UMT_ASSERT_OFFSET(umt_ix_header, FineMax, 44);
UMT_ASSERT_OFFSET(umt_ix_header, Sections, 48);
UMT_ASSERT_OFFSET(umt_ix_header, Trace, 64);
UMT_ASSERT_OFFSET(umt_ix_header, Files, 1024);
UMT_ASSERT_OFFSET(umt_ix_header, Memory, 2048);
UMT_ASSERT_OFFSET(umt_ix_header, SectionInfo, 2112);
UMT_ASSERT_OFFSET(umt_ix_header, Zero, 2560);
UMT_ASSERT_SIZE(umt_ix_header, UMT_IX_HEADER_SIZE);

/** The 64-byte header of every other file of an index. */
typedef struct umt_ix_file_header {
	char Magic[8]; /* UMTIXDIR, UMTIXPST, UMTIXSKP */
	uint32_t Version;
	uint32_t Zero0;
	uint64_t BuildID;
	uint8_t Zero[40];
} umt_ix_file_header;
UMT_ASSERT_OFFSET(umt_ix_file_header, BuildID, 16);
UMT_ASSERT_SIZE(umt_ix_file_header, 64);

/** A page entry of mem.dir. */
typedef struct umt_ix_page_entry {
	uint64_t Page;      /* address >> 12 */
	uint64_t PostEnd;   /* end of the page's data (its footer) in mem.post */
	uint64_t SkipStart; /* its first skip entry in mem.skip */
} umt_ix_page_entry;
UMT_ASSERT_SIZE(umt_ix_page_entry, 24);

/** A list descriptor of a page footer. */
typedef struct umt_ix_list_desc {
	uint64_t DataOff;   /* from the start of the page's data */
	uint64_t Count;     /* postings */
	uint64_t SkipFirst; /* relative to the page's SkipStart */
} umt_ix_list_desc;
UMT_ASSERT_SIZE(umt_ix_list_desc, 24);

/** The tail of a page footer. */
typedef struct umt_ix_footer_tail {
	uint32_t FooterSize;
	uint32_t Magic;
} umt_ix_footer_tail;
UMT_ASSERT_SIZE(umt_ix_footer_tail, 8);
#define UMT_IX_FOOTER_MAGIC 0x50474654u

/** An entry of mem.skip. */
typedef struct umt_ix_skip_entry {
	uint64_t FirstKey;
	uint64_t DataOff;  /* of the block, from the start of its list's data */
	uint64_t SeenMask;
	uint64_t WriteMask;
	uint64_t SeenBefore;  /* SeenMask of this block and every earlier block of the list */
	uint64_t WrittenBefore; /* WriteMask likewise */
} umt_ix_skip_entry;
UMT_ASSERT_OFFSET(umt_ix_skip_entry, SeenBefore, 32);
UMT_ASSERT_SIZE(umt_ix_skip_entry, 48);

/** regs.dir: one row per thread of the thread table (32 bytes). */
typedef struct umt_ix_regs_thread {
	uint64_t FirstEntry;  /* index of its first checkpoint entry */
	uint64_t Entries;     /* its checkpoints */
	uint64_t FirstRecord; /* its first record, UINT64_MAX when it has none */
	uint64_t Records;     /* its records */
} umt_ix_regs_thread;
UMT_ASSERT_OFFSET(umt_ix_regs_thread, FirstRecord, 16);
UMT_ASSERT_SIZE(umt_ix_regs_thread, 32);

/** regs.dir: one checkpoint (16 bytes). */
typedef struct umt_ix_regs_entry {
	uint64_t Record; /* the checkpoint is the state after this record */
	uint64_t Offset; /* of its blob in regs.ckpt */
} umt_ix_regs_entry;
UMT_ASSERT_OFFSET(umt_ix_regs_entry, Offset, 8);
UMT_ASSERT_SIZE(umt_ix_regs_entry, 16);

#pragma pack(pop)

/* Posting bit fields (fine lists: 16 bits; page lists: 32 bits). */
#define UMT_IX_FINE_LO(b) ((b) & 0x3fu)
#define UMT_IX_FINE_LEN(b) ((((b) >> 6) & 0x3fu) + 1u)
#define UMT_IX_FINE_KIND(b) (((b) >> 12) & 3u)
#define UMT_IX_FINE_CLOBBER 0x4000u
#define UMT_IX_FINE_SAME_THREAD 0x8000u
#define UMT_IX_PAGE_LO(b) ((b) & 0xfffu)
#define UMT_IX_PAGE_LEN(b) ((((b) >> 12) & 0xfffu) + 1u)
#define UMT_IX_PAGE_KIND(b) (((b) >> 24) & 3u)
#define UMT_IX_PAGE_CLOBBER 0x4000000u
#define UMT_IX_PAGE_SAME_THREAD 0x8000000u

/* Posting kinds as stored (2 bits), and the umt_access_kind they stand for. */
enum { UMT_IX_K_READ = 0, UMT_IX_K_WRITE = 1, UMT_IX_K_PEEK = 2, UMT_IX_K_CONTEXT = 3 };

#endif
