"""Record fields and memory accesses of many records as numpy arrays,
filled by C loops (ext/columns.c, ext/accesses.c) with the GIL released."""
import operator

import numpy as np

from ._constants import Access
from ._dtypes import ACCESS
from ._errors import InvalidError, RangeError, check, error
from ._ffi import ffi, lib
from ._table import Columns, Table

#: every field columns() can fill, with its dtype
FIELDS = {
    "id": np.uint64,          # record ID
    "thread": np.int32,       # execRec ThreadID
    "type": np.uint8,         # execRec Type (255 for a bad record skipped)
    "flags": np.uint8,        # execRec Flags
    "offset": np.uint64,      # offset of the record in exec.vtable
    "size": np.uint64,        # bytes of the record
    "ins_id": np.int64,       # InsID of instruction records, -1 for other types
    "address": np.uint64,     # the instruction row's Address, 0 without a row
    "mnemonic": np.int16,     # the row's decoded Mnemonic (XED iclass), -1 without one
    "category": np.int16,     # the row's decoded Category, -1 without one
    "form": np.int16,         # the row's decoded Form (XED iform), -1 without one
    "module": np.int32,       # the row's ModuleID, -1 without a row (or floating code)
    "syscall_id": np.int64,   # SyscallID of syscall entry, exit, skipped exit; else -1
    "exit_code": np.int32,    # ExitCode of thread-end and app-end records, else 0
    "ok": np.bool_,           # False for a bad record skipped (skip_bad=True)
}
#: the fields columns() fills when none are named
DEFAULT_FIELDS = ("id", "thread", "type", "flags", "ins_id", "address", "mnemonic")
#: fields looked up in the instruction table through InsID
ROW_FIELDS = frozenset(("address", "mnemonic", "category", "form", "module"))
_CTYPE = {np.uint64: "uint64_t[]", np.int64: "int64_t[]", np.int32: "int32_t[]",
          np.int16: "int16_t[]", np.uint8: "uint8_t[]", np.bool_: "uint8_t[]"}


def record_range(count, start, stop):
    """[start, stop) of the records, stop None meaning the end, clamped to it."""
    start = 0 if start is None else operator.index(start)
    stop = count if stop is None else min(operator.index(stop), count)
    if start < 0 or start > count:
        raise RangeError(f"start {start} is out of range ({count} records)")
    return start, max(start, stop)


def _outputs(fields, n, reuse=None):
    """The arrays of @fields for @n rows (new, or the first n rows of the
    arrays of @reuse), and the umtpy_cols pointing at them."""
    unknown = [f for f in fields if f not in FIELDS]
    if unknown:
        raise InvalidError(f"unknown fields {unknown}; known: {sorted(FIELDS)}")
    cols, out, keep = Columns(), ffi.new("umtpy_cols *"), []
    for f in fields:
        if reuse is None:
            a = np.empty(n, FIELDS[f])
        else:
            a = reuse.get(f)
            if not (isinstance(a, np.ndarray) and a.dtype == FIELDS[f] and a.ndim == 1 and
                    len(a) >= n and a.flags.c_contiguous and a.flags.writeable):
                raise InvalidError(f"out[{f!r}]: not a writable {np.dtype(FIELDS[f])} array "
                                   f"of at least {n} rows")
            a = a[:n]
        cols[f] = a
        p = ffi.from_buffer(_CTYPE[FIELDS[f]], a, require_writable=True)
        setattr(out, f, p)
        keep.append(p)
    return cols, out, keep


def _cache(core, fields):
    return core.ins_cache().c if ROW_FIELDS.intersection(fields) else ffi.NULL


def columns(core, start, stop, fields, skip_bad, reuse=None):
    """Columns of the records [start, stop): see Trace.columns()."""
    start, stop = record_range(core.info["exec_count"], start, stop)
    if fields is None:
        fields = DEFAULT_FIELDS if reuse is None else tuple(reuse)
    fields = tuple(fields)
    cols, out, keep = _outputs(fields, stop - start, reuse)
    failed = ffi.new("uint64_t *")
    rc = lib.umtpy_columns(core.t, start, stop, _cache(core, fields), out, int(bool(skip_bad)),
                           failed)
    if rc < 0:
        e = error(rc)
        e.record_id = failed[0]
        raise e
    return cols


def row_counts(core, start, stop, out=None):
    """(counts, instructions, without_row): see Trace.row_counts()."""
    start, stop = record_range(core.info["exec_count"], start, stop)
    rows = core.info["ins_count"]
    if out is None:
        out = np.zeros(rows, np.int64)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.int64 and out.ndim == 1 and
              len(out) == rows and out.flags.c_contiguous and out.flags.writeable):
        raise InvalidError(f"out: not a writable int64 array of {rows} rows")
    without, failed = ffi.new("uint64_t *"), ffi.new("uint64_t *")
    n = lib.umtpy_row_counts(core.t, start, stop, ffi.from_buffer("int64_t[]", out,
                             require_writable=True), rows, without, failed)
    if n < 0:
        e = error(n)
        e.record_id = failed[0]
        raise e
    return out, n, without[0]


def scan(core, start, stop, fields, chunk, skip_bad):
    """(first record, Columns) for successive chunks: see Trace.scan()."""
    start, stop = record_range(core.info["exec_count"], start, stop)
    fields = tuple(DEFAULT_FIELDS if fields is None else fields)
    chunk = max(1, int(chunk))
    buffers = None
    for a in range(start, stop, chunk):
        cols = columns(core, a, min(stop, a + chunk), fields, skip_bad, buffers)
        if buffers is None:
            buffers = cols
        yield a, cols


def iter_rows(core, start, stop, chunk=4096):
    """(id, thread, type, flags, offset, size) of the records [start, stop),
    in chunks filled in C; a bad record raises after the ones before it."""
    fields = ("id", "thread", "type", "flags", "offset", "size")
    for a in range(start, stop, chunk):
        b = min(stop, a + chunk)
        cols, out, keep = _outputs(fields, b - a)
        failed = ffi.new("uint64_t *")
        rc = lib.umtpy_columns(core.t, a, b, ffi.NULL, out, 0, failed)
        good, err = b - a, None
        if rc < 0:  # the message is taken before the caller's code runs
            good, err = failed[0] - a, error(rc)
            err.record_id = failed[0]
        yield from zip(*(cols[f][:good].tolist() for f in fields))
        if err is not None:
            raise err


def _check_kinds(kinds):
    kinds = int(kinds)
    if kinds == 0 or kinds & ~int(Access.ALL):
        raise InvalidError(f"access kinds {kinds:#x}: not a combination of umtrace.Access")
    return kinds


def accesses(core, start, stop, kinds, skip_bad):
    """The memory accesses of the records [start, stop): see Trace.accesses()."""
    start, stop = record_range(core.info["exec_count"], start, stop)
    s = ffi.new("umtpy_access_scan *")
    check(lib.umtpy_access_scan_init(s, core.t, start, stop, _check_kinds(kinds),
                                     int(bool(skip_bad))))
    failed = ffi.new("uint64_t *")
    return Table(fill_rows(lambda rows, cap: lib.umtpy_access_scan_next(s, rows, cap, failed),
                           failed))


def fill_rows(fill, failed=None, first=256, limit=0, most=1 << 20, chunks=None):
    """Calls @fill(rows, cap) with growing chunks of ACCESS rows until it
    fills less than a chunk (or @limit rows came in all); returns every row
    (after those of @chunks, already filled), in one array."""
    chunks = [] if chunks is None else chunks
    cap, total = first, sum(len(c) for c in chunks)
    while True:
        buf = np.empty(cap, ACCESS)
        n = fill(ffi.from_buffer("umtpy_access_row[]", buf, require_writable=True), cap)
        if n < 0:
            e = error(n)
            if failed is not None:
                e.record_id = failed[0]
            raise e
        total += n
        if n or not chunks:
            chunks.append(buf[:n])
        if n < cap or total == limit:
            break
        cap = min(cap * 4, most)
    if len(chunks) == 1:
        return chunks[0]
    out, at = np.empty(total, ACCESS), 0
    for c in chunks:  # (np.concatenate of a structured dtype is slow for short arrays)
        out[at:at + len(c)] = c
        at += len(c)
    return out


class Chain:
    """The records of one thread along its prev/next chain (control-flow
    order): iterate it for ``Record`` objects, or take ``ids()`` or
    ``columns()`` as arrays filled in C. Links are checked as the library
    checks them (a bad link raises, after the records before it)."""

    def __init__(self, core, thread=None, start=None, backward=False):
        self._core, self._thread, self._start, self._backward = core, thread, start, backward

    def _iterator(self):
        it = ffi.new("umt_thread_iter *")
        if self._thread is not None:
            check(lib.umt_thread_iter_init_thread(it, self._core.t, self._thread))
        else:
            check(lib.umt_thread_iter_init(it, self._core.t, self._start,
                                           lib.UMT_BACKWARD if self._backward else lib.UMT_FORWARD))
        return it

    def _chunks(self, fields, chunk):
        it, cache = self._iterator(), _cache(self._core, fields)
        status = ffi.new("int *")
        while True:
            cols, out, keep = _outputs(fields, chunk)
            n = lib.umtpy_chain_fill(it, cache, out, chunk, status)
            err = error(status[0]) if status[0] < 0 else None  # before the caller runs
            yield Columns((f, a[:n]) for f, a in cols.items())
            if err is not None:
                raise err
            if n < chunk:
                return

    def columns(self, fields=None, chunk=65536):
        """Columns (as Trace.columns() names them) of every record of the chain."""
        fields = tuple(DEFAULT_FIELDS if fields is None else fields)
        parts = list(self._chunks(fields, chunk))
        return Columns((f, np.concatenate([p[f] for p in parts])) for f in fields)

    def ids(self):
        """The record IDs of the chain, in chain order."""
        return self.columns(("id",))["id"]

    def __iter__(self):
        from ._record import Record
        fields = ("id", "thread", "type", "flags", "offset", "size")
        for cols in self._chunks(fields, 4096):
            for row in zip(*(cols[f].tolist() for f in fields)):
                yield Record(self._core, *row)
