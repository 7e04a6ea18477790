"""numpy dtypes of the format's structures, derived from format.h itself.

Each dtype is built from the C compiler's layout of the packed struct
(cffi's offsets and sizes of umt_ins_rec, umt_thread_rec...), so a field's
name, type and offset are exactly those of format.h (the specification's
names). Tables whose rows are wider than their fields (RowSize, ERRATA 3)
get the same fields with an itemsize of RowSize.
"""
import functools

import numpy as np

from ._ffi import ffi

_PRIMITIVE = {
    "int8_t": "i1", "uint8_t": "u1", "int16_t": "<i2", "uint16_t": "<u2", "int32_t": "<i4",
    "uint32_t": "<u4", "int64_t": "<i8", "uint64_t": "<u8", "char": "S1",
}


def _ctype_dtype(ct):
    if ct.kind == "primitive":
        return np.dtype(_PRIMITIVE[ct.cname])
    if ct.kind == "array":
        item = ct.item
        if item.kind == "primitive" and item.cname == "char":
            return np.dtype("S%d" % ct.length)
        return np.dtype((_ctype_dtype(item), (ct.length,)))
    if ct.kind == "struct":
        return struct_dtype(ct.cname)
    raise TypeError("no numpy dtype for C type " + ct.cname)


@functools.lru_cache(maxsize=None)
def struct_dtype(cname, itemsize=None, exclude=()):
    """The dtype of C struct @cname as the compiler lays it out (packed:
    unaligned fields keep their offsets), with @itemsize bytes per item
    (default: the struct's size), without the fields named in @exclude."""
    ct = ffi.typeof(cname)
    names, formats, offsets = [], [], []
    for name, field in ct.fields:
        if name in exclude:
            continue
        names.append(name)
        formats.append(_ctype_dtype(field.type))
        offsets.append(field.offset)
    size = ffi.sizeof(ct) if itemsize is None else int(itemsize)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size})


#: exec.offsets: RecordCount + 1 offsets into exec.vtable
EXEC_OFFSET = np.dtype("<u8")
#: exec.prev_next.column: the thread's previous and next record of each record (-1: none)
PREV_NEXT = struct_dtype("umt_prev_next")
#: syscall.offsets: (Offset, Size) of each syscall record in syscall.vtable
SYSCALL_OFFSET = struct_dtype("umt_offset_size")
#: execRec: the 6-byte header of every execution record
EXEC_HEADER = struct_dtype("umt_exec_rec_hdr")
#: the context map (context_map.itable), one item
CONTEXT_MAP = struct_dtype("umt_context_map")
#: lcSlot: a slot of a decoded instruction's local context
LC_SLOT = struct_dtype("umt_lc_slot")
#: expOper: an explicit operand of a decoded instruction
EXP_OPER = struct_dtype("umt_exp_oper")
#: decodedIns: the fixed 88 bytes of a decoded instruction
DECODED_INS = struct_dtype("umt_decoded_ins")
#: syscallRec: the 56 bytes of fields of a syscall record
SYSCALL_REC = struct_dtype("umt_syscall_rec")


def ins_row(row_size):
    """insRec rows of @row_size bytes (56 fields; 64 in real traces)."""
    return struct_dtype("umt_ins_rec", row_size)


def thread_row(row_size):
    """threadRec rows of @row_size bytes (40 in real traces, 48 per the spec)."""
    return struct_dtype("umt_thread_rec", row_size)


def module_row(row_size):
    """moduleRec rows: the 2015 fields (LastFileWriteTime, VersionInfo) when
    rows have 64 bytes or more, else the 48-byte fields."""
    name = "umt_module_rec_2015" if row_size >= ffi.sizeof("umt_module_rec_2015") \
        else "umt_module_rec"
    return struct_dtype(name, row_size)


def address_range_row(row_size):
    """addressRange rows (16 bytes)."""
    return struct_dtype("umt_address_range", row_size)


#: a memory access: the rows of Trace.accesses() and Index.history()
ACCESS = struct_dtype("umtpy_access_row", exclude=("pad",))
