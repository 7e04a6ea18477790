"""The register query family of the index (index.h sections 7-9): the
registers of a thread at a record, a register's writes, and where a value
came from. Bound as methods of ``Index``; they need an index with the
register section (``MissingError`` otherwise)."""
import collections

import numpy as np

from ._constants import NO_RECORD
from ._errors import InvalidError, check, id_arg, u64_arg
from ._ffi import ffi, lib
from ._table import Table

#: One register of a state: its value as a little-endian integer (unknown
#: bytes 0), its size in bytes, the mask of its known bytes (bit i: byte i;
#: the value is exact when known == (1 << size) - 1), and the record that
#: last gave one of its bytes (None when no record did).
Register = collections.namedtuple("Register", "value size known source")

#: a register's write (reg_history()): the low 8 bytes of the value after
#: the record; known_bytes of size known; changed: the record changed it
REG_WRITE = np.dtype([("id", "<u8"), ("thread", "<u8"), ("reg", "<i4"), ("size", "<u4"),
                      ("value", "<u8"), ("known_bytes", "<u4"), ("changed", "?")])

#: a node of an origin tree (origin()), in depth-first order
ORIGIN_NODE = np.dtype([("depth", "<u4"), ("role", "<i4"), ("kind", "<i4"), ("id", "<u8"),
                        ("at", "<u8"), ("thread", "<u8"), ("reg", "<i4"), ("address", "<u8"),
                        ("length", "<u8"), ("size", "<u4"), ("value", "<u8"),
                        ("known_bytes", "<u4")])


def _reg_arg(core, reg):
    """A register number from a number or a name of the trace's context map."""
    if isinstance(reg, str):
        return check(lib.umt_reg_by_name(core.t, reg.encode()))
    return int(reg)


def _thread_arg(thread):
    return -1 if thread is None else id_arg(thread, "thread")


def _low(data, known, size):
    """(value of the low 8 bytes, known bytes) of @size bytes."""
    if size == 0:
        return 0, 0
    raw = bytes(ffi.buffer(data, size))
    flags = bytes(ffi.buffer(known, size))
    return int.from_bytes(raw[:8], "little"), sum(1 for k in flags if k)


def state(self, at, thread=None):
    """The registers of @thread (a thread-table row; None: the thread of
    record @at) just before record @at executes (index.h section 1: each
    byte from its latest observation at or before the record).

    Returns a dict: lower-case name of each whole register of the context
    map (rax, rflags, xmm0...) -> ``Register(value, size, known, source)``.
    Raises ``RangeError`` (@at or @thread out of range), ``MissingError``
    (the index has no register section) and the index's and trace's errors.
    """
    core, handle = self._core, self._live()
    s = ffi.new("umt_state *")
    check(lib.umt_state_init(handle.ptr, s))
    try:
        check(lib.umt_state_at(handle.ptr, id_arg(at, "record"), _thread_arg(thread), s))
        v, out = ffi.new("umt_reg_value *"), {}
        for reg in range(core.info["context_map_elems"]):
            if lib.umt_state_reg(s, reg, v) < 0 or v.largest != reg:
                continue
            raw, flags = bytes(ffi.buffer(v.data, v.size)), bytes(ffi.buffer(v.known, v.size))
            known = sum(1 << i for i, k in enumerate(flags) if k)
            source = None if v.source == NO_RECORD else v.source
            out[core.reg_name(reg).lower()] = Register(int.from_bytes(raw, "little"), v.size,
                                                       known, source)
        return out
    finally:
        lib.umt_state_release(s)


def reg_history(self, reg, thread=None, frm=0, to=None, reverse=False, limit=0, changes=False):
    """The writes of register @reg (a number or a name; any part of it: the
    history is its whole register's) in @thread (None: every thread, by
    record) over records [@frm, @to), oldest first or newest first with
    @reverse, at most @limit (0: all), only those that changed it with
    @changes. "The previous change of rax before N" is
    ``reg_history("rax", thread=T, to=N, reverse=True, limit=1, changes=True)``.

    Returns a ``Table``: id, thread, reg (the whole register), size, value
    (its low 8 bytes after the record; state() gives wider ones whole),
    known_bytes, changed. Raises ``RangeError``, ``NotFoundError`` (a
    register in neither map), ``MissingError`` and the index's errors.
    """
    core, handle = self._core, self._live()
    q = ffi.new("umt_reg_history_query *")
    lib.umt_reg_history_query_init(q, _reg_arg(core, reg))
    q.thread = _thread_arg(thread)
    setattr(q, "from", id_arg(frm, "record"))  # a C field named like a Python keyword
    if to is not None:
        q.to = id_arg(to, "record")
    q.reverse, q.limit, q.changes = bool(reverse), id_arg(limit, "limit"), bool(changes)
    h = ffi.new("umt_reg_history **")
    check(lib.umt_reg_history_open(handle.ptr, q, h))
    h = ffi.gc(h[0], lib.umt_reg_history_close)
    w, rows = ffi.new("umt_reg_write *"), []
    try:
        while check(lib.umt_reg_history_next(h, w)) == 1:
            value, known = _low(w.value, w.known, w.size)
            rows.append((w.id, w.thread, w.reg, w.size, value, known, bool(w.changed)))
    finally:
        ffi.release(h)
    return Table(np.array(rows, REG_WRITE))


def origin(self, at, reg=None, address=None, length=None, depth=10, max_nodes=10000):
    """Where the value of register @reg (a number or a name), or of memory
    [@address, @address + @length), just before record @at came from: the
    record that last wrote it, then that record's inputs, each with its own
    defining record, to @depth, in depth-first order (index.h section 9).

    Returns a ``Table``: depth (0 for the value asked about), role
    (``ORIGIN_ROLE`` names: value or address-only input), kind
    (``ORIGIN_KIND`` names: instruction, context, unknown), id (the defining
    record; ``NO_RECORD`` when none), at (the record that used the value),
    thread, reg (-1 for memory), address, length, size, value (low 8
    bytes), known_bytes. Raises ``InvalidError`` (neither or both of a
    register and an address; a length of 0 or above 4096), ``RangeError``,
    ``NotFoundError``, ``MissingError`` and the index's errors.
    """
    core, handle = self._core, self._live()
    if (reg is None) == (address is None):
        raise InvalidError("origin: give a register or an address, not both")
    q = ffi.new("umt_origin_query *")
    lib.umt_origin_query_init(q, id_arg(at, "record"), -1 if reg is None else
                              _reg_arg(core, reg))
    if address is not None:
        q.address = u64_arg(address, "address")
        q.length = u64_arg(1 if length is None else length, "length")
    q.depth, q.max_nodes = int(depth), id_arg(max_nodes, "max_nodes")
    o = ffi.new("umt_origin **")
    check(lib.umt_origin_open(handle.ptr, q, o))
    o = ffi.gc(o[0], lib.umt_origin_close)
    n, rows = ffi.new("umt_origin_node *"), []
    try:
        while check(lib.umt_origin_next(o, n)) == 1:
            value, known = _low(n.value, n.known, n.size)
            rows.append((n.depth, n.role, n.kind, n.id, n.at, n.thread, n.reg, n.address,
                         n.length, n.size, value, known))
    finally:
        ffi.release(o)
    return Table(np.array(rows, ORIGIN_NODE))


#: names of origin() roles and kinds (index.h enum umt_origin_role, umt_origin_kind)
ORIGIN_ROLE = {0: "root", 1: "value", 2: "address"}
ORIGIN_KIND = {0: "instruction", 1: "context", 2: "unknown"}
