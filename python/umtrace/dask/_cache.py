"""The traces a worker process has open, kept from one task to the next.

Tasks carry paths, never handles: each worker opens a trace on the first
task that needs it and keeps the ``Trace`` (and the ``Index`` objects
opened from it) for the tasks that follow, so that a job of thousands of
small tasks opens each trace once per worker. An entry is keyed by the
trace's absolute path and name tables, and holds the trace's identity:
the size and modification time of each of its files. A task whose trace
changed on disk since (rewritten, grown, replaced) gets a new handle; the
old entry is dropped, and its files are unmapped once the last task still
using it returns (the package unmaps a trace when its last user is gone).
At most ``LIMIT`` traces stay open (each holds about ten descriptors);
the least recently used is dropped first.
"""
import collections
import os
import threading
import weakref

from .. import _trace
from .._constants import File
from .._errors import IncompleteError, MissingError, StaleError
from .._ffi import ffi, lib

#: traces kept open per worker process
LIMIT = 32
#: the trace's files whose size and time make its identity
_FILES = tuple(ffi.string(lib.umt_file_name(int(f))).decode() for f in File)

_lock = threading.Lock()
_open = collections.OrderedDict()  # (path, names) -> _Entry, least recently used first
_indexes = weakref.WeakKeyDictionary()  # Trace -> {directory: Index}, gone with the Trace
_bounds = weakref.WeakKeyDictionary()  # Trace -> {n: bounds of n ranges}, gone with the Trace


class _Entry:
    __slots__ = ("identity", "trace")

    def __init__(self, identity, trace):
        self.identity, self.trace = identity, trace


def identity(path):
    """(name, size, mtime in ns) of each file of the trace in @path (None
    for one missing): what changes when a file is rewritten or replaced."""
    out = []
    for name in _FILES:
        try:
            st = os.stat(os.path.join(path, name))
            out.append((name, st.st_size, st.st_mtime_ns))
        except OSError:
            out.append((name, None))
    return tuple(out)


def _entry(path, names):
    key = (os.path.abspath(path), names)
    now = identity(key[0])
    with _lock:
        e = _open.get(key)
        if e is not None and e.identity == now:
            _open.move_to_end(key)
            return e
    # Opened outside the lock: other tasks of this process go on meanwhile.
    # Two tasks opening the same trace at once both open it; one entry stays.
    e = _Entry(now, _trace.open(key[0], names=names))
    with _lock:
        _open[key] = e
        _open.move_to_end(key)
        while len(_open) > LIMIT:
            _open.popitem(last=False)
    return e


def trace(path, names=None):
    """The open ``Trace`` of @path in this process (opened now when it is
    not open yet, or when its files changed). Raises what umtrace.open()
    raises (``MissingError`` for a directory that is not a trace...)."""
    return _entry(path, names).trace


def index(trace, directory=None):
    """The ``Index`` of @trace (a ``Trace`` of this cache) in @directory
    (default: the trace's default index directory), opened once per trace
    handle, or None when there is none usable (missing, stale, or left by a
    build that did not finish): the caller then reads the trace itself.
    Only an index that opened is kept (an index built later is found by
    the next task; looking for a missing one costs a failed open). A
    damaged index raises its error."""
    with _lock:
        ix = _indexes.get(trace, {}).get(directory)
    if ix is not None:
        return ix
    try:
        ix = trace.index(directory)
    except (MissingError, StaleError, IncompleteError):
        return None
    with _lock:
        _indexes.setdefault(trace, {})[directory] = ix
    return ix


def bounds(trace, n):
    """The @n + 1 bounds of @trace's n ranges of about equal bytes
    (``Trace.split()``), cut once per trace handle and count: the tasks of
    a job over n ranges each need two of them."""
    with _lock:
        b = _bounds.get(trace, {}).get(n)
    if b is None:
        b = [int(x) for x in trace.split(n)]
        with _lock:
            kept = _bounds.setdefault(trace, {})
            if len(kept) >= LIMIT:
                kept.clear()
            kept[n] = b
    return b


def forget_index(trace):
    """Drops the indexes kept for @trace (after this process rebuilt one)."""
    with _lock:
        _indexes.pop(trace, None)
