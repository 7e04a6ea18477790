/*
 * libumtrace - on-disk layout of UMTracer indexed traces.
 *
 * One packed struct per structure of the specification (umtrace-format.txt,
 * revision 2015.07) with the corrections of ERRATA.md folded in. Field names
 * are the specification's own, so that a reader can grep the spec for them.
 * Every field offset and every size is checked by a _Static_assert against
 * the numbers in the specification: the layout is written once, here.
 *
 * These structs are overlaid on mapped file bytes. They are packed (alignment
 * 1): read their fields directly (`rec->InsID`), never take the address of a
 * multi-byte field and dereference it as an aligned pointer.
 *
 * Map of this header:
 *   1. Common types: cStr, uStr, i64 pairs
 *   2. Generic fixed-size table header (spec 4.2.1)
 *   3. Execution table: exec.vtable header, execRec, rmContext, contextMem
 *   4. Instruction table: insRec, decodedIns, expOper, lcSlot
 *   5. System call table: syscall.vtable header, syscallRec
 *   6. Module, thread, address space tables
 *   7. Context map and regInfo
 *   8. Special values: record types, flags, slot indexes, register names
 */
#ifndef UMTRACE_FORMAT_H
#define UMTRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libumtrace: the trace format is little-endian and is overlaid on mapped bytes; big-endian hosts are not supported"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Static assertions usable from C11 and C++11. */
#ifdef __cplusplus
#define UMT_LAYOUT_ASSERT(cond, what) static_assert(cond, what)
#else
#define UMT_LAYOUT_ASSERT(cond, what) _Static_assert(cond, what)
#endif
#define UMT_ASSERT_OFFSET(type, field, off) \
	UMT_LAYOUT_ASSERT(offsetof(type, field) == (off), #type "." #field " at " #off)
#define UMT_ASSERT_SIZE(type, size) \
	UMT_LAYOUT_ASSERT(sizeof(type) == (size), "sizeof(" #type ") == " #size)

#pragma pack(push, 1)

/* ---- 1. Common types (spec 5) ------------------------------------------ */

/** cStr: 8-bit string, Length characters then a NUL. Size Length + 3. */
typedef struct umt_cstr {
	int16_t Length; /**< characters, not counting the NUL (ERRATA 16: 16-bit) */
	char Chars[];   /**< Length characters followed by a NUL */
} umt_cstr;
UMT_ASSERT_OFFSET(umt_cstr, Length, 0);
UMT_ASSERT_OFFSET(umt_cstr, Chars, 2);
UMT_ASSERT_SIZE(umt_cstr, 2);

/** uStr: UTF-16LE string, Length code units then a 16-bit NUL. Size Length*2 + 4. */
typedef struct umt_ustr {
	int16_t Length;    /**< UTF-16 code units, not counting the NUL */
	uint16_t Units[];  /**< Length code units followed by a 0 unit */
} umt_ustr;
UMT_ASSERT_OFFSET(umt_ustr, Length, 0);
UMT_ASSERT_OFFSET(umt_ustr, Units, 2);
UMT_ASSERT_SIZE(umt_ustr, 2);

/** i64Pair of exec.prev_next.column: previous and next record of the thread. */
typedef struct umt_prev_next {
	int64_t Prev; /**< -1 when none */
	int64_t Next; /**< -1 when none */
} umt_prev_next;
UMT_ASSERT_OFFSET(umt_prev_next, Prev, 0);
UMT_ASSERT_OFFSET(umt_prev_next, Next, 8);
UMT_ASSERT_SIZE(umt_prev_next, 16);

/** i64Pair of syscall.offsets: absolute offset and size of a syscallRec. */
typedef struct umt_offset_size {
	int64_t Offset; /**< absolute offset of the record in syscall.vtable */
	int64_t Size; /**< bytes of the record (its real extent, ERRATA 6) */
} umt_offset_size;
UMT_ASSERT_OFFSET(umt_offset_size, Offset, 0);
UMT_ASSERT_OFFSET(umt_offset_size, Size, 8);
UMT_ASSERT_SIZE(umt_offset_size, 16);

/* ---- 2. Generic fixed-size table header (spec 4.2.1) --------------------- */

/** Header of every *.itable file except context_map.itable (ERRATA 5). */
typedef struct umt_table_header {
	int32_t HeaderVer; /**< only 0 is defined */
	int32_t RecordVer; /**< refines the record layout (insRec: 0 or 1) */
	int64_t RowCount;  /**< number of rows */
	int64_t RowSize;   /**< stride between rows; may exceed the fields (ERRATA 3) */
	int64_t TableFP;   /**< absolute offset of row 0 */
} umt_table_header;
UMT_ASSERT_OFFSET(umt_table_header, HeaderVer, 0);
UMT_ASSERT_OFFSET(umt_table_header, RecordVer, 4);
UMT_ASSERT_OFFSET(umt_table_header, RowCount, 8);
UMT_ASSERT_OFFSET(umt_table_header, RowSize, 16);
UMT_ASSERT_OFFSET(umt_table_header, TableFP, 24);
UMT_ASSERT_SIZE(umt_table_header, 32);

/** Header of ins.itable and module.itable: the generic header plus an extra area. */
typedef struct umt_extra_table_header {
	int32_t HeaderVer; /**< only 0 is defined */
	int32_t RecordVer; /**< refines the record layout (insRec: 0 or 1) */
	int64_t RowCount; /**< number of rows */
	int64_t RowSize; /**< stride between rows */
	int64_t TableFP; /**< absolute offset of row 0 */
	int64_t ExtraFP;   /**< absolute offset of the variable-size area */
	int64_t ExtraSize; /**< size of that area */
} umt_extra_table_header;
UMT_ASSERT_OFFSET(umt_extra_table_header, HeaderVer, 0);
UMT_ASSERT_OFFSET(umt_extra_table_header, RecordVer, 4);
UMT_ASSERT_OFFSET(umt_extra_table_header, RowCount, 8);
UMT_ASSERT_OFFSET(umt_extra_table_header, RowSize, 16);
UMT_ASSERT_OFFSET(umt_extra_table_header, TableFP, 24);
UMT_ASSERT_OFFSET(umt_extra_table_header, ExtraFP, 32);
UMT_ASSERT_OFFSET(umt_extra_table_header, ExtraSize, 40);
UMT_ASSERT_SIZE(umt_extra_table_header, 48);

/* ---- 3. Execution table (spec 6) ---------------------------------------- */

/** Header of exec.vtable. Records follow at exec.offsets[i]. */
typedef struct umt_exec_vtable_header {
	int32_t Version;     /**< 0 or 1 (meaning of flags 0x10-0x80) */
	uint8_t Pad[4]; /**< padding */
	int64_t RecordCount; /**< valid IDs are [0, RecordCount) in all three files */
} umt_exec_vtable_header;
UMT_ASSERT_OFFSET(umt_exec_vtable_header, Version, 0);
UMT_ASSERT_OFFSET(umt_exec_vtable_header, Pad, 4);
UMT_ASSERT_OFFSET(umt_exec_vtable_header, RecordCount, 8);
UMT_ASSERT_SIZE(umt_exec_vtable_header, 16);

/** execRec: the common header of every execution record (size at least 6). */
typedef struct umt_exec_rec_hdr {
	int32_t ThreadID; /**< row in thread.itable */
	uint8_t Type;     /**< enum umt_rec_type */
	uint8_t Flags;    /**< UMT_EXEC_F_* */
	/* type-dependent data follows at offset 6 */
} umt_exec_rec_hdr;
UMT_ASSERT_OFFSET(umt_exec_rec_hdr, ThreadID, 0);
UMT_ASSERT_OFFSET(umt_exec_rec_hdr, Type, 4);
UMT_ASSERT_OFFSET(umt_exec_rec_hdr, Flags, 5);
UMT_ASSERT_SIZE(umt_exec_rec_hdr, 6);

/** rmContext: register dump and memory references (size at least 16). */
typedef struct umt_rm_context {
	int32_t MemCount; /**< entries in MemRefs */
	uint8_t Pad[4]; /**< padding */
	int64_t RegsFP;   /**< register dump, relative to this struct; DumpSize bytes */
	/* contextMem MemRefs[MemCount] follows at offset 16 */
} umt_rm_context;
UMT_ASSERT_OFFSET(umt_rm_context, MemCount, 0);
UMT_ASSERT_OFFSET(umt_rm_context, Pad, 4);
UMT_ASSERT_OFFSET(umt_rm_context, RegsFP, 8);
UMT_ASSERT_SIZE(umt_rm_context, 16);

/** contextMem: one memory block of an rmContext. */
typedef struct umt_context_mem {
	int64_t Address; /**< high 32 bits are 0 in 32-bit traces */
	int64_t Size;    /**< bytes at DataFP */
	int64_t DataFP;  /**< relative to the parent rmContext */
} umt_context_mem;
UMT_ASSERT_OFFSET(umt_context_mem, Address, 0);
UMT_ASSERT_OFFSET(umt_context_mem, Size, 8);
UMT_ASSERT_OFFSET(umt_context_mem, DataFP, 16);
UMT_ASSERT_SIZE(umt_context_mem, 24);

/** Type 0, instruction: InsID then the local context (LC) bytes. */
typedef struct umt_exec_ins {
	umt_exec_rec_hdr Hdr; /**< common header (Type 0) */
	int64_t InsID;     /**< row in ins.itable */
	uint8_t OperVals[]; /**< local context, layout given by decodedIns */
} umt_exec_ins;
UMT_ASSERT_OFFSET(umt_exec_ins, InsID, 6);
UMT_ASSERT_OFFSET(umt_exec_ins, OperVals, 14);
UMT_ASSERT_SIZE(umt_exec_ins, 14);

/** Types 1 (thread begin) and 8-11 (context changes): an rmContext. */
typedef struct umt_exec_context {
	umt_exec_rec_hdr Hdr; /**< common header (Type 1 or 8-11) */
	umt_rm_context Context; /**< the register context */
} umt_exec_context;
UMT_ASSERT_OFFSET(umt_exec_context, Context, 6);
UMT_ASSERT_SIZE(umt_exec_context, 22);

/** Types 2 (thread end) and 3 (application end): an exit code. */
typedef struct umt_exec_exit {
	umt_exec_rec_hdr Hdr; /**< common header (Type 2 or 3) */
	int32_t ExitCode; /**< Windows exit code of the thread or process */
} umt_exec_exit;
UMT_ASSERT_OFFSET(umt_exec_exit, ExitCode, 6);
UMT_ASSERT_SIZE(umt_exec_exit, 10);

/** Types 4 (syscall entry) and 5 (syscall exit): SyscallID then an rmContext. */
typedef struct umt_exec_syscall {
	umt_exec_rec_hdr Hdr; /**< common header (Type 4 or 5) */
	int64_t SyscallID; /**< row in syscall tables; -1 allowed on exits */
	umt_rm_context Context; /**< the register context */
} umt_exec_syscall;
UMT_ASSERT_OFFSET(umt_exec_syscall, SyscallID, 6);
UMT_ASSERT_OFFSET(umt_exec_syscall, Context, 14);
UMT_ASSERT_SIZE(umt_exec_syscall, 30);

/** Type 6, skipped system call exit: SyscallID only. */
typedef struct umt_exec_skipped {
	umt_exec_rec_hdr Hdr; /**< common header (Type 6) */
	int64_t SyscallID; /**< row in the syscall tables */
} umt_exec_skipped;
UMT_ASSERT_OFFSET(umt_exec_skipped, SyscallID, 6);
UMT_ASSERT_SIZE(umt_exec_skipped, 14);

/* ---- 4. Instruction table (spec 7) --------------------------------------- */

/**
 * insRec: the 56 bytes of fields of an ins.itable row. Rows are RowSize
 * bytes apart (64 in real traces, with 8 bytes of padding that no field
 * covers); open accepts any RowSize of at least UMT_INS_REC_MIN_ROW, so this
 * overlay covers exactly what every accepted row holds.
 */
typedef struct umt_ins_rec {
	int64_t ID;            /**< self ID */
	uint8_t Type;          /**< enum umt_ins_type */
	uint8_t CSis64Bits;    /**< 1 for 64-bit code segment */
	uint8_t CodeSize;      /**< valid bytes in CodeBytes (at most 15) */
	uint8_t Pad1[1]; /**< padding */
	int32_t ModuleID;      /**< row in module.itable, -1 for floating code */
	int64_t Address;       /**< zero-extended on 32-bit */
	uint8_t CodeBytes[15]; /**< the instruction's bytes; the first CodeSize are valid */
	uint8_t Pad2[1]; /**< padding */
	int64_t DisasmFP;      /**< cStr, relative to ExtraFP */
	int64_t DecodedFP;     /**< decodedIns, relative to ExtraFP */
} umt_ins_rec;
UMT_ASSERT_OFFSET(umt_ins_rec, ID, 0);
UMT_ASSERT_OFFSET(umt_ins_rec, Type, 8);
UMT_ASSERT_OFFSET(umt_ins_rec, CSis64Bits, 9);
UMT_ASSERT_OFFSET(umt_ins_rec, CodeSize, 10);
UMT_ASSERT_OFFSET(umt_ins_rec, Pad1, 11);
UMT_ASSERT_OFFSET(umt_ins_rec, ModuleID, 12);
UMT_ASSERT_OFFSET(umt_ins_rec, Address, 16);
UMT_ASSERT_OFFSET(umt_ins_rec, CodeBytes, 24);
UMT_ASSERT_OFFSET(umt_ins_rec, Pad2, 39);
UMT_ASSERT_OFFSET(umt_ins_rec, DisasmFP, 40);
UMT_ASSERT_OFFSET(umt_ins_rec, DecodedFP, 48);
/** Bytes of an insRec row the library reads: a RowSize below this is refused. */
#define UMT_INS_REC_MIN_ROW 56
/* The overlay is exactly the bytes open guarantees in every row. */
UMT_ASSERT_SIZE(umt_ins_rec, UMT_INS_REC_MIN_ROW);

/** expOper: one explicit operand (12 bytes). */
typedef struct umt_exp_oper {
	int16_t RegName;      /**< XED register, or UMT_REG_MEM0/MEM1/AGEN... */
	int16_t Size;         /**< value size in bytes */
	uint8_t Flags;        /**< UMT_OPER_F_READ | UMT_OPER_F_WRITE */
	uint8_t BeforeSlot;   /**< LC slot index (or UMT_SLOT_IMM0/IMM1) */
	uint8_t AfterSlot;    /**< UMT_SLOT_NA for read-only operands */
	uint8_t BeforeOffset; /**< added to the slot offset (1 for ah in rax; 8 for memory) */
	uint8_t AfterOffset; /**< as BeforeOffset, for the after value */
	uint8_t Pad[3]; /**< padding */
} umt_exp_oper;
UMT_ASSERT_OFFSET(umt_exp_oper, RegName, 0);
UMT_ASSERT_OFFSET(umt_exp_oper, Size, 2);
UMT_ASSERT_OFFSET(umt_exp_oper, Flags, 4);
UMT_ASSERT_OFFSET(umt_exp_oper, BeforeSlot, 5);
UMT_ASSERT_OFFSET(umt_exp_oper, AfterSlot, 6);
UMT_ASSERT_OFFSET(umt_exp_oper, BeforeOffset, 7);
UMT_ASSERT_OFFSET(umt_exp_oper, AfterOffset, 8);
UMT_ASSERT_OFFSET(umt_exp_oper, Pad, 9);
UMT_ASSERT_SIZE(umt_exp_oper, 12);

/** lcSlot: one local-context slot (12 bytes). */
typedef struct umt_lc_slot {
	int16_t RegName; /**< XED register or special name */
	union {
		int16_t CommonRegName;    /**< insRec RecordVer >= 1 */
		int16_t LargestEnclosing; /**< insRec RecordVer 0 */
	};
	int16_t ValueSize; /**< value bytes (memory: not counting the address) */
	uint16_t Offset;   /**< in the LC; memory slots hold an 8-byte address first */
	uint8_t AddrWidth; /**< 0 for non-memory; significant address bytes otherwise */
	uint8_t Pad[3]; /**< padding */
} umt_lc_slot;
UMT_ASSERT_OFFSET(umt_lc_slot, RegName, 0);
UMT_ASSERT_OFFSET(umt_lc_slot, CommonRegName, 2);
UMT_ASSERT_OFFSET(umt_lc_slot, LargestEnclosing, 2);
UMT_ASSERT_OFFSET(umt_lc_slot, ValueSize, 4);
UMT_ASSERT_OFFSET(umt_lc_slot, Offset, 6);
UMT_ASSERT_OFFSET(umt_lc_slot, AddrWidth, 8);
UMT_ASSERT_OFFSET(umt_lc_slot, Pad, 9);
UMT_ASSERT_SIZE(umt_lc_slot, 12);

/** decodedIns: fixed part (88 bytes), LCSlots[LCCount] follows at 88. */
typedef struct umt_decoded_ins {
	int16_t Category;        /**< xed_category */
	int16_t Mnemonic;        /**< xed_iclass */
	int16_t Form;            /**< xed_iform */
	uint8_t Flags;           /**< UMT_DEC_F_* */
	uint8_t ExpCount;        /**< valid entries of ExpOper (0-4) */
	umt_exp_oper ExpOper[4]; /**< always 4 present (ERRATA 2) */
	uint8_t EffOperSize; /**< effective operand size in bytes (2, 4 or 8): an encoding attribute */
	uint8_t EffAddrSize; /**< effective address size in bytes (2, 4 or 8) */
	uint16_t LCSize;         /**< LC bytes the execution record must hold */
	uint8_t FirstOutSlot; /**< first slot of the before values of write-only operands */
	uint8_t FirstAfterSlot; /**< first slot of the after values */
	uint8_t LCCount; /**< number of LC slots (entries of LCSlots) */
	uint8_t Mem0SegSlot; /**< slot of the MEM0/AGEN segment base (FS/GS base), or UMT_SLOT_NA */
	uint8_t Mem0BaseSlot; /**< slot of the MEM0/AGEN base register, or UMT_SLOT_NA */
	uint8_t Mem0Scale;       /**< 1, 2, 4, 8; 0 when there is no index */
	uint8_t Mem0IndexSlot; /**< slot of the MEM0/AGEN index register, or UMT_SLOT_NA */
	uint8_t Mem1BaseSlot;    /**< at 67, not 65 (ERRATA 1) */
	uint8_t Pad[4]; /**< padding */
	int64_t ConstSlot[2];    /**< immediates; ConstSlot[0] is the MEM0/AGEN displacement */
	/* umt_lc_slot LCSlots[LCCount] follows at offset 88 */
} umt_decoded_ins;
UMT_ASSERT_OFFSET(umt_decoded_ins, Category, 0);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mnemonic, 2);
UMT_ASSERT_OFFSET(umt_decoded_ins, Form, 4);
UMT_ASSERT_OFFSET(umt_decoded_ins, Flags, 6);
UMT_ASSERT_OFFSET(umt_decoded_ins, ExpCount, 7);
UMT_ASSERT_OFFSET(umt_decoded_ins, ExpOper, 8);
UMT_ASSERT_OFFSET(umt_decoded_ins, EffOperSize, 56);
UMT_ASSERT_OFFSET(umt_decoded_ins, EffAddrSize, 57);
UMT_ASSERT_OFFSET(umt_decoded_ins, LCSize, 58);
UMT_ASSERT_OFFSET(umt_decoded_ins, FirstOutSlot, 60);
UMT_ASSERT_OFFSET(umt_decoded_ins, FirstAfterSlot, 61);
UMT_ASSERT_OFFSET(umt_decoded_ins, LCCount, 62);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mem0SegSlot, 63);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mem0BaseSlot, 64);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mem0Scale, 65);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mem0IndexSlot, 66);
UMT_ASSERT_OFFSET(umt_decoded_ins, Mem1BaseSlot, 67);
UMT_ASSERT_OFFSET(umt_decoded_ins, Pad, 68);
UMT_ASSERT_OFFSET(umt_decoded_ins, ConstSlot, 72);
UMT_ASSERT_SIZE(umt_decoded_ins, 88);

/* ---- 5. System call table (spec 8.4) ------------------------------------- */

/** Header of syscall.vtable. */
typedef struct umt_syscall_vtable_header {
	int32_t Version;       /**< only 0 */
	int32_t UnifiedIDsVer; /**< 0 or 1: which syscall_unified_id_v*.h */
	int64_t RecordCount;   /**< syscall.offsets holds RecordCount pairs (ERRATA 8) */
} umt_syscall_vtable_header;
UMT_ASSERT_OFFSET(umt_syscall_vtable_header, Version, 0);
UMT_ASSERT_OFFSET(umt_syscall_vtable_header, UnifiedIDsVer, 4);
UMT_ASSERT_OFFSET(umt_syscall_vtable_header, RecordCount, 8);
UMT_ASSERT_SIZE(umt_syscall_vtable_header, 16);

/** syscallRec: 56 bytes of fields (ERRATA 6); the record extent is its Size pair. */
typedef struct umt_syscall_rec {
	int16_t RawID;      /**< OS-specific ordinal */
	int16_t UniformID;  /**< syscall_unified_id_v* value */
	uint8_t Convention; /**< enum umt_syscall_convention */
	uint8_t Completed;  /**< 1 when EndEID is a normal exit */
	uint8_t ArgCount; /**< arguments at ArgsFP */
	uint8_t ExtraCount; /**< undocumented extra items at ExtrasFP */
	int64_t BeginEID;   /**< entry record */
	int64_t EndEID;     /**< exit or skipped-exit record, or -1 */
	int64_t BeforeSP; /**< stack pointer before the call */
	int64_t Result;     /**< garbage unless Completed */
	int64_t ArgsFP;     /**< i64[ArgCount], relative to the record (ERRATA 7) */
	int64_t ExtrasFP;   /**< undocumented extras, relative to the record */
} umt_syscall_rec;
UMT_ASSERT_OFFSET(umt_syscall_rec, RawID, 0);
UMT_ASSERT_OFFSET(umt_syscall_rec, UniformID, 2);
UMT_ASSERT_OFFSET(umt_syscall_rec, Convention, 4);
UMT_ASSERT_OFFSET(umt_syscall_rec, Completed, 5);
UMT_ASSERT_OFFSET(umt_syscall_rec, ArgCount, 6);
UMT_ASSERT_OFFSET(umt_syscall_rec, ExtraCount, 7);
UMT_ASSERT_OFFSET(umt_syscall_rec, BeginEID, 8);
UMT_ASSERT_OFFSET(umt_syscall_rec, EndEID, 16);
UMT_ASSERT_OFFSET(umt_syscall_rec, BeforeSP, 24);
UMT_ASSERT_OFFSET(umt_syscall_rec, Result, 32);
UMT_ASSERT_OFFSET(umt_syscall_rec, ArgsFP, 40);
UMT_ASSERT_OFFSET(umt_syscall_rec, ExtrasFP, 48);
UMT_ASSERT_SIZE(umt_syscall_rec, 56);

/* ---- 6. Module, thread and address space tables (spec 9, 10, 12) ------- */

/** moduleRec: 48-byte row of pre-2015 traces. */
typedef struct umt_module_rec {
	int64_t LoadEID;      /**< approximate record ID at load */
	int64_t UnloadEID;    /**< approximate record ID at unload, or -1 */
	int64_t StartAddr; /**< first byte of the module in memory */
	int64_t EndAddr;      /**< last byte, inclusive */
	int64_t WinNameFP;    /**< uStr, absolute */
	int64_t DeviceNameFP; /**< uStr, absolute */
} umt_module_rec;
UMT_ASSERT_OFFSET(umt_module_rec, LoadEID, 0);
UMT_ASSERT_OFFSET(umt_module_rec, UnloadEID, 8);
UMT_ASSERT_OFFSET(umt_module_rec, StartAddr, 16);
UMT_ASSERT_OFFSET(umt_module_rec, EndAddr, 24);
UMT_ASSERT_OFFSET(umt_module_rec, WinNameFP, 32);
UMT_ASSERT_OFFSET(umt_module_rec, DeviceNameFP, 40);
UMT_ASSERT_SIZE(umt_module_rec, 48);

/** moduleRec of 2015 traces: RowSize 64 (ERRATA 4). */
typedef struct umt_module_rec_2015 {
	int64_t LoadEID; /**< approximate record ID at load */
	int64_t UnloadEID; /**< approximate record ID at unload, or -1 */
	int64_t StartAddr; /**< first byte of the module in memory */
	int64_t EndAddr; /**< last byte, inclusive */
	int64_t WinNameFP; /**< uStr, absolute */
	int64_t DeviceNameFP; /**< uStr, absolute */
	uint64_t LastFileWriteTime; /**< FILETIME: 100 ns ticks since 1601-01-01 UTC */
	uint16_t VersionInfo[4];    /**< file version w.x.y.z; 0 when converted */
} umt_module_rec_2015;
UMT_ASSERT_OFFSET(umt_module_rec_2015, LoadEID, 0);
UMT_ASSERT_OFFSET(umt_module_rec_2015, UnloadEID, 8);
UMT_ASSERT_OFFSET(umt_module_rec_2015, StartAddr, 16);
UMT_ASSERT_OFFSET(umt_module_rec_2015, EndAddr, 24);
UMT_ASSERT_OFFSET(umt_module_rec_2015, WinNameFP, 32);
UMT_ASSERT_OFFSET(umt_module_rec_2015, DeviceNameFP, 40);
UMT_ASSERT_OFFSET(umt_module_rec_2015, LastFileWriteTime, 48);
UMT_ASSERT_OFFSET(umt_module_rec_2015, VersionInfo, 56);
UMT_ASSERT_SIZE(umt_module_rec_2015, 64);

/** threadRec: 40 bytes of fields; RowSize is 40 in real traces (ERRATA 3). */
typedef struct umt_thread_rec {
	int32_t ID;       /**< self ID */
	int32_t WinTID;   /**< Windows thread ID */
	int64_t TIBAddr;  /**< thread information block */
	int64_t FirstEID; /**< normally a thread-begin record */
	int64_t LastEID;  /**< normally a thread-end record, or -1 */
	int64_t RecCount; /**< records of this thread */
} umt_thread_rec;
UMT_ASSERT_OFFSET(umt_thread_rec, ID, 0);
UMT_ASSERT_OFFSET(umt_thread_rec, WinTID, 4);
UMT_ASSERT_OFFSET(umt_thread_rec, TIBAddr, 8);
UMT_ASSERT_OFFSET(umt_thread_rec, FirstEID, 16);
UMT_ASSERT_OFFSET(umt_thread_rec, LastEID, 24);
UMT_ASSERT_OFFSET(umt_thread_rec, RecCount, 32);
UMT_ASSERT_SIZE(umt_thread_rec, 40);

/** addressRange: 4 KiB-granular range of used addresses. */
typedef struct umt_address_range {
	int64_t First; /**< multiple of 4096 */
	int64_t Last;  /**< inclusive; one less than a multiple of 4096 */
} umt_address_range;
UMT_ASSERT_OFFSET(umt_address_range, First, 0);
UMT_ASSERT_OFFSET(umt_address_range, Last, 8);
UMT_ASSERT_SIZE(umt_address_range, 16);

/* ---- 7. Context map (spec 11.2; no table header, ERRATA 5) ------------- */

#define UMT_CONTEXT_MAP_REGS 512  /**< entries in each context-map array */
#define UMT_REG_NAME_SIZE 16      /**< bytes of a StrName entry */
#define UMT_CONTEXT_MAP_SIZE 17424 /**< sizeof(umt_context_map) */

/** regInfo: where a register sits in a context dump (8 bytes). */
typedef struct umt_reg_info {
	uint16_t Offset;    /**< in the dump, 0xffff when absent */
	uint8_t Size;       /**< 0 when absent */
	uint8_t Pad1[1]; /**< padding */
	int16_t EffLargest; /**< effective largest enclosing register */
	uint8_t Pad2[2]; /**< padding */
} umt_reg_info;
UMT_ASSERT_OFFSET(umt_reg_info, Offset, 0);
UMT_ASSERT_OFFSET(umt_reg_info, Size, 2);
UMT_ASSERT_OFFSET(umt_reg_info, Pad1, 3);
UMT_ASSERT_OFFSET(umt_reg_info, EffLargest, 4);
UMT_ASSERT_OFFSET(umt_reg_info, Pad2, 6);
UMT_ASSERT_SIZE(umt_reg_info, 8);

/** context_map.itable: the whole file (17424 bytes). */
typedef struct umt_context_map {
	uint16_t DumpSize;  /**< bytes of a register dump */
	uint16_t ElemCount; /**< meaningful entries of the arrays below */
	uint8_t Pad[12]; /**< padding */
	int16_t CommonName[UMT_CONTEXT_MAP_REGS]; /**< common register name of each register (spec 11.1; ERRATA 23 for version 0) */
	char StrName[UMT_CONTEXT_MAP_REGS][UMT_REG_NAME_SIZE]; /**< NUL-terminated within 16 bytes */
	umt_reg_info RegMap32[UMT_CONTEXT_MAP_REGS]; /**< placement of each register in 32-bit dumps */
	umt_reg_info RegMap64[UMT_CONTEXT_MAP_REGS]; /**< placement of each register in 64-bit dumps */
} umt_context_map;
UMT_ASSERT_OFFSET(umt_context_map, DumpSize, 0);
UMT_ASSERT_OFFSET(umt_context_map, ElemCount, 2);
UMT_ASSERT_OFFSET(umt_context_map, Pad, 4);
UMT_ASSERT_OFFSET(umt_context_map, CommonName, 16);
UMT_ASSERT_OFFSET(umt_context_map, StrName, 1040);
UMT_ASSERT_OFFSET(umt_context_map, RegMap32, 9232);
UMT_ASSERT_OFFSET(umt_context_map, RegMap64, 13328);
UMT_ASSERT_SIZE(umt_context_map, UMT_CONTEXT_MAP_SIZE);

#pragma pack(pop)

/* ---- 8. Special values --------------------------------------------------- */

/** execRec.Type (spec 6.4). Type 7 is not defined (ERRATA 9). */
enum umt_rec_type {
	UMT_REC_INSTRUCTION = 0,
	UMT_REC_THREAD_BEGIN = 1,
	UMT_REC_THREAD_END = 2,
	UMT_REC_APP_END = 3,
	UMT_REC_SYSCALL_ENTRY = 4,
	UMT_REC_SYSCALL_EXIT = 5,
	UMT_REC_SYSCALL_SKIPPED = 6,
	UMT_REC_CTX_APC = 8,
	UMT_REC_CTX_EXCEPTION = 9,
	UMT_REC_CTX_CALLBACK = 10,
	UMT_REC_CTX_UNKNOWN = 11
};
/** One past the largest defined record type. */
#define UMT_REC_TYPE_LIMIT 12

/** execRec.Flags common to both exec versions. */
enum umt_exec_flag {
	UMT_EXEC_F_64BIT = 0x01,        /**< 64-bit code segment (32-bit when clear) */
	UMT_EXEC_F_INSTR_OFF = 0x02,    /**< instrumentation was off before this record */
	UMT_EXEC_F_NOT_EXECUTED = 0x04, /**< condition false: cmovcc, jcc, rep not carried out */
	UMT_EXEC_F_REP_FIRST = 0x08,    /**< first iteration of a rep-prefixed instruction */
	/* exec.vtable Version 0 meanings of 0x10-0x80 */
	UMT_EXEC_V0_F_EXC_INPUT = 0x10,    /**< fault recording inputs: all values garbage */
	UMT_EXEC_V0_F_EXC_EXECUTE = 0x20,  /**< fault executing: outputs garbage */
	UMT_EXEC_V0_F_EXC_OUTPUT = 0x40,   /**< fault reading back output memory */
	UMT_EXEC_V0_F_INTERNAL = 0x80,     /**< tracer internal error */
	/* exec.vtable Version 1 meanings of 0x10-0x80 */
	UMT_EXEC_V1_F_BAD_INPUTS = 0x10,   /**< inputs not reliable */
	UMT_EXEC_V1_F_BAD_OUTPUTS = 0x20,  /**< outputs not reliable */
	UMT_EXEC_V1_F_FAULT = 0x40,        /**< instruction raised an exception/fault */
	UMT_EXEC_V1_F_ABORTED = 0x80       /**< process aborted around this instruction */
};
/** Mask of the flags 0x10-0x80 that say a record was not completely traced. */
#define UMT_EXEC_F_INCOMPLETE_MASK 0xf0

/** insRec.Type (spec 7.3.3). */
enum umt_ins_type {
	UMT_INS_NORMAL = 0,
	UMT_INS_SOFT_INT = 1,
	UMT_INS_FAST_SYSCALL32 = 2,
	UMT_INS_FAST_SYSCALL64 = 3,
	UMT_INS_ALT_SYSCALL = 4,
	UMT_INS_WOW64_SYSCALL = 5,
	UMT_INS_OTHER_SYSCALL = 6,
	UMT_INS_NOP = 8,
	UMT_INS_PREFETCH = 9
};

/** decodedIns.Flags. */
enum umt_decoded_flag {
	UMT_DEC_F_REP = 0x01,
	UMT_DEC_F_REPNE = 0x02,
	UMT_DEC_F_LOCK = 0x04,
	UMT_DEC_F_32IN64 = 0x08,     /**< 32-bit operands in 64-bit mode: outputs zero-extended */
	UMT_DEC_F_READS_MEM = 0x10,
	UMT_DEC_F_WRITES_MEM = 0x20
};

/** expOper.Flags. */
enum umt_oper_flag {
	UMT_OPER_F_READ = 0x01,
	UMT_OPER_F_WRITE = 0x02
};

/** LC slot indexes with a special meaning. */
enum umt_slot_index {
	UMT_SLOT_IMM0 = 0xfd, /**< value in decodedIns.ConstSlot[0] */
	UMT_SLOT_IMM1 = 0xfe, /**< value in decodedIns.ConstSlot[1] */
	UMT_SLOT_NA = 0xff    /**< no slot */
};

/**
 * Operand names that are not XED registers, as the 16-bit values stored in
 * RegName. STACKPUSH, STACKPOP, FSBASE and GSBASE are XED registers whose
 * value depends on the XED version (ERRATA 17): see umt_xed_special_reg().
 */
enum umt_reg_special_value {
	UMT_REG_INVALID = 0x0000,
	UMT_REG_MEM0 = 0xffff,
	UMT_REG_MEM1 = 0xfffe,
	UMT_REG_AGEN = 0xfffd
};

/** XED 20150121 values of the version-dependent names (ERRATA 17). */
enum umt_xed20150121_reg {
	UMT_XED2015_REG_STACKPUSH = 131,
	UMT_XED2015_REG_STACKPOP = 132,
	UMT_XED2015_REG_FSBASE = 140,
	UMT_XED2015_REG_GSBASE = 141
};
/** XED 20140106 values: 6 lower than 20150121 (GSBASE = 0x87). */
enum umt_xed20140106_reg {
	UMT_XED2014_REG_STACKPUSH = 125,
	UMT_XED2014_REG_STACKPOP = 126,
	UMT_XED2014_REG_FSBASE = 134,
	UMT_XED2014_REG_GSBASE = 135
};

/** syscallRec.Convention. */
enum umt_syscall_convention {
	UMT_SYSCALL_CONV_UNKNOWN = 0,
	UMT_SYSCALL_CONV_FAST32 = 1,
	UMT_SYSCALL_CONV_FAST64 = 2,
	UMT_SYSCALL_CONV_ALT = 3,   /**< int 0x2e */
	UMT_SYSCALL_CONV_WOW64 = 4,
	UMT_SYSCALL_CONV_SOFT_INT = 5
};

/** Minimum record sizes per type: header plus type-dependent fixed fields. */
#define UMT_EXEC_MIN_HDR 6
#define UMT_EXEC_MIN_INSTRUCTION 14
#define UMT_EXEC_MIN_CONTEXT 22 /**< thread begin, context changes */
#define UMT_EXEC_MIN_EXIT 10    /**< thread end, application end */
#define UMT_EXEC_MIN_SYSCALL 30 /**< syscall entry and exit */
#define UMT_EXEC_MIN_SKIPPED 14
UMT_LAYOUT_ASSERT(UMT_EXEC_MIN_INSTRUCTION == sizeof(umt_exec_ins), "ins min");
UMT_LAYOUT_ASSERT(UMT_EXEC_MIN_CONTEXT == sizeof(umt_exec_context), "ctx min");
UMT_LAYOUT_ASSERT(UMT_EXEC_MIN_EXIT == sizeof(umt_exec_exit), "exit min");
UMT_LAYOUT_ASSERT(UMT_EXEC_MIN_SYSCALL == sizeof(umt_exec_syscall), "syscall min");
UMT_LAYOUT_ASSERT(UMT_EXEC_MIN_SKIPPED == sizeof(umt_exec_skipped), "skipped min");

#ifdef __cplusplus
}
#endif

#endif /* UMTRACE_FORMAT_H */
