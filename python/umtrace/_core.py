"""The state one open trace shares with every object taken from it.

A ``Core`` is what records, instructions, contexts, views and indexes hold
instead of the ``Trace``: the trace's C handle (through its ``Handle``, so
that the mapping outlives ``Trace.close()`` while they live), its header
values, its name tables and the caches built once per trace.
"""
import mmap
import os
import threading

import numpy as np

from ._errors import IoError, check
from ._ffi import ffi, lib
from ._handle import mapped_array


def cstr(p):
    """A C string as str (None for NULL); bytes that are not UTF-8 become U+FFFD."""
    return None if p == ffi.NULL else ffi.string(p).decode("utf-8", "replace")


def struct_dict(cdata, skip=()):
    """The fields of a C struct as a dict (strings decoded, arrays as lists,
    other pointers left out)."""
    out = {}
    for name, field in ffi.typeof(cdata[0]).fields:
        if name in skip:
            continue
        v, ct = getattr(cdata, name), field.type
        if ct.kind == "array":
            ct, v = ct.item, list(v)
        if ct.kind == "pointer":
            if ct.item.cname == "char":
                out[name] = [cstr(x) for x in v] if isinstance(v, list) else cstr(v)
            continue
        out[name] = v
    return out


class Core:
    """Shared state of one open trace (internal)."""

    __slots__ = ("handle", "path", "info", "names", "lock", "memo", "_ins_cache",
                 "_records_base", "records_pointer", "__weakref__")

    def __init__(self, handle, path, names):
        self.handle = handle
        self.path = path
        self.names = names
        self.lock = threading.Lock()
        self._ins_cache = None
        self.memo = {}  # small per-trace facts computed once (under lock)
        info = ffi.new("umt_trace_info *")
        check(lib.umt_trace_get_info(handle.ptr, info))
        self.info = struct_dict(info)
        #: exec.vtable's first byte in the mapping (offsets of values count from here)
        self.records_pointer = lib.umtpy_records_base(handle.ptr)
        self._records_base = int(ffi.cast("uintptr_t", self.records_pointer))

    @property
    def t(self):
        """The umt_trace pointer."""
        return self.handle.ptr

    @property
    def exec_version(self):
        return self.info["exec_version"]

    def view(self, address, dtype, count):
        """A read-only numpy view of @count items at @address in the mapping."""
        return mapped_array(self.handle, address, dtype, count)

    def exec_bytes(self, offset, size):
        """@size bytes at @offset of exec.vtable, as a read-only uint8 view."""
        return mapped_array(self.handle, self._records_base + int(offset), np.uint8, int(size))

    def exec_pointer_offset(self, ptr):
        """The offset in exec.vtable of a pointer into it."""
        return int(ffi.cast("uintptr_t", ptr)) - self._records_base

    def file_view(self, file):
        """The whole of file @file (a File) as a read-only uint8 view (empty when absent)."""
        if file == lib.UMT_FILE_EXEC_PREV_NEXT:
            return self._links_view()
        stamp = ffi.new("umt_file_stamp *")
        check(lib.umt_trace_file_stamp(self.t, int(file), stamp))
        return mapped_array(self.handle, stamp.head, np.uint8,
                            stamp.size if stamp.head != ffi.NULL else 0)

    def _links_view(self):
        """exec.prev_next.column, mapped here once: the library maps it on
        first use and gives no pointer to it. The library is asked first
        (umt_exec_links() raises why the column cannot be used, such as a
        file replaced since open), then the file mapped is checked to be the
        one the library opened (size and modification time of its stamp)."""
        with self.lock:
            if "links" in self.memo:
                return self.memo["links"]
            if self.info["exec_count"]:
                prev, nxt = ffi.new("int64_t *"), ffi.new("int64_t *")
                check(lib.umt_exec_links(self.t, 0, prev, nxt))
            stamp = ffi.new("umt_file_stamp *")
            check(lib.umt_trace_file_stamp(self.t, lib.UMT_FILE_EXEC_PREV_NEXT, stamp))
            self.memo["links"] = _map_file(os.path.join(self.path, "exec.prev_next.column"),
                                           stamp)
            return self.memo["links"]

    def reg_name(self, reg):
        """Name of register @reg in this trace (umt_reg_name(): always one)."""
        buf = ffi.new("char[]", lib.UMT_REG_NAME_MAX)
        return cstr(lib.umt_reg_name(self.t, int(reg), buf, len(buf)))

    def ins_cache(self):
        """The per-row facts of the instruction table the column fill looks up,
        built on first use (one pass over the rows) and kept."""
        with self.lock:
            if self._ins_cache is None:
                self._ins_cache = _InsCache(self.t, self.info["ins_count"])
            return self._ins_cache


def _map_file(path, stamp):
    """File @path mapped read-only as a uint8 array, if it is the file of @stamp."""
    if not stamp.present:
        return np.empty(0, np.uint8)
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        if (st.st_size, st.st_mtime_ns) != (stamp.size,
                                            stamp.mtime_sec * 10**9 + stamp.mtime_nsec):
            raise IoError(f"{os.path.basename(path)}: file changed since the trace was opened",
                          lib.UMT_E_IO)
        if st.st_size == 0:
            return np.empty(0, np.uint8)
        view = np.frombuffer(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ), np.uint8)
    return view


class _InsCache:
    """Address, mnemonic, category, form and module of every instruction row."""

    def __init__(self, t, n):
        self.address = np.empty(n, np.uint64)
        self.mnemonic = np.empty(n, np.int16)
        self.category = np.empty(n, np.int16)
        self.form = np.empty(n, np.int16)
        self.module = np.empty(n, np.int32)
        self.status = np.empty(n, np.int32)
        buf = [ffi.from_buffer(t_, a, require_writable=True) for t_, a in (
            ("uint64_t[]", self.address), ("int16_t[]", self.mnemonic),
            ("int16_t[]", self.category), ("int16_t[]", self.form), ("int32_t[]", self.module),
            ("int32_t[]", self.status))]
        lib.umtpy_ins_cache_fill(t, n, *buf)
        self.c = ffi.new("umtpy_ins_cache *", {
            "count": n, "address": buf[0], "mnemonic": buf[1], "category": buf[2],
            "form": buf[3], "module": buf[4]})
        self._keep = buf
