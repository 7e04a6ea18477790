"""Which traces, and which of their records, accessed an address range.

A task answers for the records [start, stop) of one trace: through the
trace's index when it has one that opens (``Index.history()`` with
from/to = the range: a few pages of the index), else by scanning the
memory accesses of the range in C (``Trace.accesses()``, a chunk of
records at a time) and keeping those that overlap. Both give exactly the
accesses the index holds: the scan leaves out what the index leaves out
(accesses whose address cannot be believed, umtrace.h section 8b) and
orders them as history() does (record order, then phase: reads before
writes, then address).
"""
import numpy as np
from numpy.lib import recfunctions

from .._constants import Access, Trust
from . import _cache
from ._stats import CHUNK

#: the fields of an access the job returns
FIELDS = ("id", "thread", "kind", "phase", "address", "size", "trust")


def _overlapping(rows, address, length):
    """The rows of @rows overlapping [address, address + length) (no
    overflow: sizes are at least 1, address + length does not wrap)."""
    a, s = rows["address"], rows["size"]
    last = np.uint64(address + length - 1)
    return rows[(a <= last) & (a + (s - np.uint64(1)) >= np.uint64(address)) & (s > 0)]


def scan_overlapping(trace, address, length, kinds, start, stop):
    """The accesses of records [start, stop) overlapping the range, as the
    index holds them, in its order, without an index."""
    out = []
    for a in range(start, stop, CHUNK):
        rows = trace.accesses(a, min(stop, a + CHUNK), kinds=kinds)
        rows = _overlapping(rows[(rows["trust"] & int(Trust.ADDRESS)) != 0], address, length)
        if len(rows):
            out.append(_pick(rows))
    rows = np.concatenate(out) if out else _pick(trace.accesses(0, 0))
    order = np.lexsort((rows["address"], rows["phase"], rows["id"]))  # stable: slot order last
    return rows[order]


def _pick(rows):
    """The FIELDS of access rows, packed (a plain numpy array: no view of
    the package's Table goes back to the client)."""
    return recfunctions.repack_fields(np.asarray(rows)[list(FIELDS)])


def accessed_part(address, length, kinds, index_dir, trace, start, stop):
    """{"rows": the accesses of [start, stop) overlapping the range,
    "via": "index" or "scan"}."""
    stop = len(trace) if stop is None else stop
    ix = _cache.index(trace, index_dir)
    if ix is None:
        return {"rows": scan_overlapping(trace, address, length, kinds, start, stop),
                "via": {"scan"}}
    rows = ix.history(address, length, frm=start, to=stop, kinds=kinds)
    return {"rows": _pick(rows), "via": {"index"}}


def accessed_combine(a, b):
    """Ranges folded in record order (the engine folds them in order)."""
    return {"rows": np.concatenate((a["rows"], b["rows"])), "via": a["via"] | b["via"]}


def finish_accessed(p):
    """A trace's answer: {"accesses": rows (numpy structured: id, thread,
    kind, phase, address, size, trust), "via": "index", "scan" or
    "index+scan" (ranges answered each way)}."""
    return {"accesses": p["rows"], "via": "+".join(sorted(p["via"]))}


KIND_NAMES = {int(Access.READ): "read", int(Access.WRITE): "write",
              int(Access.PEEK): "peek", int(Access.CONTEXT): "context"}
