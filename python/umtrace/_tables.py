"""The fixed-size tables of a trace as zero-copy numpy views, and the rows
that need more than a view (syscall records, module names).

Every view is a read-only numpy structured array over the mapping, with
the format's field names and an itemsize of the table's RowSize, made in
O(1): nothing is read or copied until it is used. It keeps the trace's
mapping alive (Lifetimes in docs/python.md).
"""
from . import _dtypes
from ._constants import Convention, File
from ._core import cstr
from ._errors import Status, check
from ._ffi import ffi, lib


def _header(core, file, ctype):
    """The table header at the start of @file (validated by open)."""
    head = core.file_view(file)
    return head[:ffi.sizeof(ctype)].view(_dtypes.struct_dtype(ctype))[0]


def _rows(core, getter, cname, count, dtype):
    """@count rows from row 0 (as @getter returns it, a @cname pointer) on,
    stepping by dtype.itemsize (the RowSize)."""
    if count == 0:
        return core.view(0, dtype, 0)
    row = ffi.new(cname + " **")
    check(getter(core.t, 0, row))
    return core.view(row[0], dtype, count)


def instructions(core):
    """ins.itable rows (insRec; itemsize RowSize)."""
    n = core.info["ins_count"]  # 0 also when a salvage open lost the table
    size = _header(core, File.INS, "umt_extra_table_header")["RowSize"] if n else 64
    return _rows(core, lib.umt_ins_get, "umt_ins_rec", n, _dtypes.ins_row(size))


def threads(core):
    """thread.itable rows (threadRec; 40 or 48 bytes)."""
    return _rows(core, lib.umt_thread_get, "umt_thread_rec", core.info["thread_count"],
                 _dtypes.thread_row(core.info["thread_row_size"] or 40))


def modules(core):
    """module.itable rows (moduleRec; 2015 fields with 64-byte rows)."""
    return _rows(core, lib.umt_module_get, "umt_module_rec", core.info["module_count"],
                 _dtypes.module_row(core.info["module_row_size"] or 64))


def address_ranges(core):
    """address_space.itable rows (First, Last)."""
    n = core.info["address_range_count"]
    size = _header(core, File.ADDRESS_SPACE, "umt_table_header")["RowSize"] if n else 16
    return _rows(core, lib.umt_address_range_get, "umt_address_range", n,
                 _dtypes.address_range_row(size))


def _entries(core, file, dtype, count):
    """The first @count entries of a file without a header (fewer when a
    salvaged trace kept fewer)."""
    return core.file_view(file)[:count * dtype.itemsize].view(dtype)


def exec_offsets(core):
    """exec.offsets: the offsets into exec.vtable of the records (and one past the last)."""
    return _entries(core, File.EXEC_OFFSETS, _dtypes.EXEC_OFFSET, core.info["exec_count"] + 1)


def prev_next(core):
    """exec.prev_next.column: (Prev, Next) of every record (mapped on first use)."""
    return _entries(core, File.EXEC_PREV_NEXT, _dtypes.PREV_NEXT, core.info["exec_count"])


def syscall_offsets(core):
    """syscall.offsets: (Offset, Size) of every syscall record in syscall.vtable."""
    return _entries(core, File.SYSCALL_OFFSETS, _dtypes.SYSCALL_OFFSET,
                    core.info["syscall_count"])


def context_map(core):
    """context_map.itable: one record (DumpSize, ElemCount, CommonName,
    StrName, RegMap32, RegMap64)."""
    p = lib.umt_context_map_get(core.t)
    return core.view(p, _dtypes.CONTEXT_MAP, 1)[0]


class Syscall:
    """A syscall record (umt_syscall_get(): its extent and FPs checked):
    ``id``, ``fields`` (the syscallRec fields: RawID, UniformID, Convention,
    Completed, ArgCount, ExtraCount, BeginEID, EndEID, BeforeSP, Result,
    ArgsFP, ExtrasFP), ``args`` (list of int), ``extras`` (bytes),
    ``args_fp_absolute``, ``name`` (with name tables)."""

    __slots__ = ("_core", "_s")

    def __init__(self, core, s):
        self._core, self._s = core, s

    @classmethod
    def get(cls, core, sid):
        s = ffi.new("umt_syscall *")
        check(lib.umt_syscall_get(core.t, sid, s))
        return cls(core, s)

    def __repr__(self):
        return f"<Syscall {self.id} uniform {self.fields['UniformID']} args {self.args}>"

    @property
    def id(self):
        """The syscall record's ID."""
        return self._s.id

    @property
    def fields(self):
        """The syscallRec fields (a read-only numpy record over the mapping)."""
        return self._core.view(self._s.rec, _dtypes.SYSCALL_REC, 1)[0]

    @property
    def convention(self):
        """The calling convention (a ``Convention`` when defined)."""
        c = self._s.rec.Convention
        return Convention(c) if c in Convention._value2member_map_ else c

    @property
    def args(self):
        """The arguments (zero-extended for 32-bit calls)."""
        v = ffi.new("uint64_t *")
        out = []
        for i in range(self._s.rec.ArgCount):
            check(lib.umt_syscall_arg(self._s, i, v))
            out.append(v[0])
        return out

    @property
    def extras(self):
        """The raw extras bytes (their format is undocumented, spec 8.3)."""
        return bytes(ffi.buffer(self._s.extras, self._s.extras_size))

    @property
    def args_fp_absolute(self):
        """Whether ArgsFP had to be read as an absolute offset (ERRATA 7)."""
        return bool(self._s.args_fp_absolute)

    @property
    def name(self):
        """The unified ID's name with name tables (open(names=...)), else None."""
        names = self._core.names
        if names is None:
            return None
        return names.syscall(self._core.info["unified_ids_version"], self._s.rec.UniformID)


def module_name(core, mid, device=False):
    """A module's Windows (or @device) name, converted from UTF-16 to UTF-8."""
    which = lib.UMT_MODULE_DEVICE_NAME if device else lib.UMT_MODULE_WIN_NAME
    n = lib.umt_module_name(core.t, mid, which, ffi.NULL, 0)
    check(n)
    buf = ffi.new("char[]", n + 1)
    check(lib.umt_module_name(core.t, mid, which, buf, n + 1))
    return ffi.buffer(buf, n)[:].decode("utf-8", "replace")


def find_module(core, address, eid):
    """The module holding @address at record @eid (umt_module_find()), or None."""
    out = ffi.new("uint64_t *")
    rc = lib.umt_module_find(core.t, address, eid, out)
    if rc == Status.NOT_FOUND:
        return None
    check(rc)
    return out[0]


def find_address_range(core, address):
    """The used address range holding @address (umt_address_space_find()), or None."""
    out = ffi.new("uint64_t *")
    return out[0] if check(lib.umt_address_space_find(core.t, address, out)) == 1 else None


def registers(core):
    """Every register of the context map: a list of dicts (reg, name, common,
    in32, in64, offset32, size32, largest32, offset64, size64, largest64)."""
    d = ffi.new("umt_reg_desc *")
    out = []
    for reg in range(min(core.info["context_map_elems"], 512)):
        check(lib.umt_context_map_reg(core.t, reg, d))
        out.append({"reg": reg, "name": core.reg_name(reg), "str_name": cstr(d.name),
                    "common": d.common, "in32": bool(d.in32), "in64": bool(d.in64),
                    "offset32": d.map32.Offset, "size32": d.map32.Size,
                    "largest32": d.map32.EffLargest, "offset64": d.map64.Offset,
                    "size64": d.map64.Size, "largest64": d.map64.EffLargest})
    return out


def table_counts(core):
    """Records and rows of every table."""
    i = core.info
    return {"records": i["exec_count"], "instructions": i["ins_count"],
            "syscalls": i["syscall_count"], "modules": i["module_count"],
            "threads": i["thread_count"], "address_ranges": i["address_range_count"]}
