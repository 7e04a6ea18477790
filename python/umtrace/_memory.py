"""The memory query family of the index (index.h sections 4 and 5): who
touched an address range, and memory as it was at a record. Bound as
methods of ``Index``."""
import operator

import numpy as np

from ._columns import _check_kinds, fill_rows
from ._dtypes import ACCESS
from ._errors import InvalidError, check, error, id_arg, u64_arg
from ._ffi import ffi, lib
from ._table import Table


def _defaults():
    q = ffi.new("umt_history_query *")
    lib.umt_history_query_init(q, 0, 1)
    return q.kinds, q.to, q.thread


#: the library's defaults of a history query: kinds, to (the end), thread (all)
_KINDS, _TO, _THREAD = _defaults()
#: C types resolved once (a cdecl string is parsed on each use)
_ROWS, _MORE = ffi.typeof("umtpy_access_row[]"), ffi.typeof("umt_history **")
_BYTES, _U64 = ffi.typeof("uint8_t[]"), ffi.typeof("uint64_t *")


def history(self, addr, length=1, frm=0, to=None, kinds=None, thread=None, reverse=False,
            limit=0):
    """Every memory access overlapping [@addr, @addr + @length), from the index.

    Accesses are whole (not clipped to the range), in record order, reads
    before writes within a record, then by address; newest first with
    @reverse. @frm: first record (included); @to: last record (excluded;
    None: to the end); @kinds: ``Access`` bits (default READ | WRITE |
    CONTEXT: the program's accesses and context blocks, not peeks);
    @thread: only this thread-table row; @limit: at most this many (0: all).
    "Who last wrote A before N" is ``history(A, to=N, kinds=Access.WRITE,
    reverse=True, limit=1)``.

    Returns a ``Table`` (structured array; ``to_pandas()``) with the fields
    id (record), address, size, data_offset (of the value bytes in
    exec.vtable: ``trace.value(row)`` gives them), thread, locator (LC slot
    or context block), reg_name, kind (``Access``), phase (0 before, 1
    after execution), trust (``Trust`` bits: a write without VALUE may or
    may not have happened), addr_width.
    Raises ``InvalidError`` (length 0, a range that wraps, bad kinds) and
    the index's and trace's errors (``CorruptError``, ``BoundsError``...).
    """
    # Kept short: a small query costs a few microseconds in C, and this is
    # the per-call overhead (bench/python_bench.py measures it). The library
    # checks the arguments; a value C cannot take is explained below.
    first = (limit if limit < 65536 else 65536) if limit else 64
    rows, more = np.ndarray.__new__(Table, (first,), ACCESS), ffi.new(_MORE)
    base, handle = self._core.records_pointer, self._live()
    try:
        n = lib.umtpy_history_first(
            handle.ptr, addr, length, frm, _TO if to is None else to,
            _KINDS if kinds is None else kinds, _THREAD if thread is None else thread, reverse,
            limit, base, ffi.from_buffer(_ROWS, rows, require_writable=True),
            first, more)
    except (OverflowError, TypeError):
        _explain(addr, length, frm, to, kinds, thread, limit)
        raise
    if n < 0:
        raise error(n)
    if more[0] == ffi.NULL:
        return rows if n == first else rows[:n]
    h = ffi.gc(more[0], lib.umt_history_close)
    try:
        return Table(fill_rows(lambda r, cap: lib.umtpy_history_fill(h, base, r, cap),
                               first=first * 4, limit=limit, chunks=[rows]))
    finally:
        ffi.release(h)  # closed now, while its index is held by @handle


def _explain(addr, length, frm, to, kinds, thread, limit):
    """Raises the umtrace error for an argument of history() that C cannot take."""
    u64_arg(addr, "address")
    u64_arg(length, "length")
    for value, what in ((frm, "record"), (to, "record"), (thread, "thread"), (limit, "limit")):
        if value is not None:
            id_arg(value, what)
    if kinds is not None:
        _check_kinds(kinds)


def mem(self, at, addr, n):
    """The @n bytes at @addr as they were just before record @at executed
    (index.h section 1: each byte from its latest observation at or before
    the record).

    Returns (data, known, sources): data (bytes; 0 where unknown), known (a
    numpy bool array: the byte is known) and sources (a numpy uint64 array:
    the record that gave each byte, or made it unknown; ``NO_RECORD`` when
    no record observed it). Raises ``InvalidError`` (n 0, a range that
    wraps), ``RangeError`` (@at beyond the last record), index and trace
    errors.
    """
    at, addr, n = id_arg(at, "record"), u64_arg(addr, "address"), operator.index(n)
    if n <= 0:
        raise InvalidError(f"mem: length {n}: at least 1 byte")
    # one allocation for the three outputs (a short query costs microseconds):
    # the sources first, 8-byte aligned, then the data, then the known mask
    buf, handle = np.empty(10 * n, np.uint8), self._live()
    p = ffi.from_buffer(_BYTES, buf, require_writable=True)
    check(lib.umt_mem_at(handle.ptr, at, addr, n, p + 8 * n, p + 9 * n, ffi.cast(_U64, p)))
    return buf[8 * n:9 * n].tobytes(), buf[9 * n:].view(np.bool_), buf[:8 * n].view(np.uint64)
