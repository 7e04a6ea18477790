"""The call query family of the index (index.h sections 11-13): every call
with its return, depth and parent, the call stack at a record, and the
arguments and return values of calls. Bound as methods of ``Index``; they
need an index with the calls section (``MissingError`` otherwise), and
arguments the register section too."""
import numpy as np

from ._errors import InvalidError, check, id_arg, u64_arg
from ._ffi import ffi, lib
from ._table import Table

#: a call (calls()): its record, thread, depth (0: the outermost call the
#: trace shows in its thread), the call's address, its target, the return
#: address, the ret that returned to it and the record that ended the frame
#: (NO_RECORD when none), the enclosing call's record (NO_RECORD), the
#: module row of the target (-1) and the offset in it, end (CALL_END names),
#: target_source (CALL_TARGET names), the call's length
CALL = np.dtype([("id", "<u8"), ("thread_id", "<i4"), ("depth", "<u4"), ("caller", "<u8"),
                 ("target", "<u8"), ("return_address", "<u8"), ("return_id", "<u8"),
                 ("end_id", "<u8"), ("parent", "<u8"), ("module", "<i8"),
                 ("module_offset", "<u8"), ("end", "u1"), ("target_source", "u1"),
                 ("length", "u1")])

#: a frame of a stack (stack()): the open call as in CALL, then the module
#: row (-1) and offset of its return address
FRAME = np.dtype(CALL.descr + [("return_module", "<i8"), ("return_offset", "<u8")])

#: names of CALL's end and target_source (index.h enum umt_call_end, umt_call_target)
CALL_END = {0: "returned", 1: "abandoned", 2: "open"}
CALL_TARGET = {0: "next", 1: "decoded", 2: "operand", 3: "unknown"}


def _row(c):
    return (c.id, c.thread_id, c.depth, c.caller, c.target, c.return_address, c.return_id,
            c.end_id, c.parent, c.module, c.module_offset, c.end, c.target_source, c.length)


def _values(handle, c, st, nargs):
    """(args with None for unknown ones, return value or None) of call @c."""
    vals, known = ffi.new("uint64_t[]", max(nargs, 1)), ffi.new("uint8_t[]", max(nargs, 1))
    ret = ffi.new("uint64_t *")
    check(lib.umt_call_args(handle.ptr, c, st, nargs, vals, known))
    has = check(lib.umt_call_return_value(handle.ptr, c, st, ret))
    return [vals[i] if known[i] else None for i in range(nargs)], ret[0] if has else None


def calls(self, thread=None, target=None, module=None, offsets=None, frm=0, to=None, limit=0,
          args=None):
    """The calls of the index in record order: of @thread (a thread-table
    row; None: every thread), to @target (an address, or a (first, last)
    range; None: any), into module row @module (at offsets in @offsets, a
    (first, last) range; None: any), made at records [@frm, @to), at most
    @limit (0: all). The matching of calls with rets is index.h section 11's.

    Returns a ``Table`` of ``CALL`` rows; with @args = N also a list, one
    entry per call: (its first N arguments by the calling convention of its
    code, None for an unknown one; its return value or None), as
    ``(table, values)``. Raises ``InvalidError`` (an empty range, N above
    64), ``RangeError``, ``MissingError`` (no calls section; no register
    section with @args) and the index's errors.
    """
    handle = self._live()
    q = ffi.new("umt_calls_query *")
    lib.umt_calls_query_init(q)
    q.thread = -1 if thread is None else id_arg(thread, "thread")
    if target is not None:
        first, last = target if isinstance(target, tuple) else (target, target)
        q.target_first, q.target_last = u64_arg(first, "target"), u64_arg(last, "target")
    if module is not None:
        q.module = id_arg(module, "module")
        if offsets is not None:
            q.offset_first, q.offset_last = (u64_arg(o, "offset") for o in offsets)
    setattr(q, "from", id_arg(frm, "record"))  # a C field named like a Python keyword
    if to is not None:
        q.to = id_arg(to, "record")
    q.limit = id_arg(limit, "limit")
    if args is not None and not 0 <= args <= 64:
        raise InvalidError(f"calls: {args} arguments (0 to 64)")
    st = ffi.new("umt_state *")
    if args is not None:
        check(lib.umt_state_init(handle.ptr, st))
    cur = ffi.new("umt_calls **")
    try:
        check(lib.umt_calls_open(handle.ptr, q, cur))
        cur = ffi.gc(cur[0], lib.umt_calls_close)
        c, rows, values = ffi.new("umt_call *"), [], []
        while check(lib.umt_calls_next(cur, c)) == 1:
            rows.append(_row(c))
            if args is not None:
                values.append(_values(handle, c, st, args))
        ffi.release(cur)
    finally:
        lib.umt_state_release(st)
    table = Table(np.array(rows, CALL))
    return table if args is None else (table, values)


def stack(self, at, thread=None):
    """The call stack of @thread (None: the thread of record @at) just
    before record @at executes, innermost frame first (index.h section 12).

    Returns a ``Table`` of ``FRAME`` rows. Raises ``RangeError``,
    ``MissingError`` and the index's errors.
    """
    handle = self._live()
    at = id_arg(at, "record")
    th = -1 if thread is None else id_arg(thread, "thread")
    depth = ffi.new("size_t *")
    check(lib.umt_stack_at(handle.ptr, at, th, ffi.NULL, 0, depth))
    frames = ffi.new("umt_frame[]", max(depth[0], 1))
    check(lib.umt_stack_at(handle.ptr, at, th, frames, depth[0], depth))
    rows = [_row(f.call) + (f.module, f.module_offset) for f in frames[0:depth[0]]]
    return Table(np.array(rows, FRAME))

