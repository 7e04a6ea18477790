"""The index of a trace (index.h): building it with progress, opening it,
checking it. The queries are families bound to ``Index`` below, one module
each: _memory.py (history, mem), _registers.py (state, reg_history,
origin), _coverage.py (coverage, coverage_addresses), _calls.py (calls,
stack). A new family is a module of the same shape, its cdef file in
python/cdef/, and one line here per method.
"""
import functools
import os

from . import _calls, _coverage, _memory, _registers
from ._callbacks import Listener
from ._core import struct_dict
from ._errors import ClosedError, check
from ._ffi import ffi, lib
from ._handle import Handle


def default_dir(trace_path):
    """Where tools keep the index of the trace at @trace_path when none is
    named (TRACE/umtindex, or a cache directory; umt_index_default_dir())."""
    buf = ffi.new("char[]", 4096)
    check(lib.umt_index_default_dir(os.fsencode(trace_path), buf, len(buf)))
    return os.fsdecode(ffi.string(buf))


class Index:
    """An open index of a trace (``Trace.index()``, ``Trace.build_index()``).

    It keeps its trace's mapping alive: values are read from the trace.
    ``directory``, ``info`` (format version, pages, postings, accesses,
    bytes), ``build_stats`` (after a build), ``verify()``, ``close()``, a
    context manager; queries: ``history()``, ``mem()`` (memory),
    ``state()``, ``reg_history()``, ``origin()`` (registers),
    ``coverage()``, ``coverage_addresses()``, ``calls()``, ``stack()``."""

    # ---- query families (one module each) ----
    history = _memory.history
    mem = _memory.mem
    state = _registers.state
    reg_history = _registers.reg_history
    origin = _registers.origin
    coverage = _coverage.coverage
    coverage_addresses = _coverage.coverage_addresses
    calls = _calls.calls
    stack = _calls.stack

    def __init__(self, core, ptr, directory, build_stats=None):
        self._core = core
        self._handle = Handle(ptr, lib.umt_index_close, "index", needs=(core.handle,))
        self.directory = directory
        self.build_stats = build_stats

    def __repr__(self):
        state = "closed" if self._handle is None else f"{self.info['accesses']} accesses"
        return f"<Index {self.directory!r}, {state}>"

    def _live(self):
        """The index's Handle; callers keep it in a local variable while C
        uses its pointer, so that close() in another thread cannot free it."""
        handle = self._handle
        if handle is None:
            raise ClosedError("the index is closed")
        return handle

    def close(self):
        """Closes the index (results taken from it stay valid)."""
        self._handle = None

    @property
    def closed(self):
        """Whether close() was called."""
        return self._handle is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def info(self):
        """Counts of the index: version, pages, postings, accesses, bytes."""
        out = ffi.new("umt_index_info *")
        handle = self._live()
        check(lib.umt_index_get_info(handle.ptr, out))
        return struct_dict(out)

    def verify(self):
        """The full O(n) check of the index against its trace
        (umt_index_verify()); raises ``CorruptError`` on the first problem."""
        handle = self._live()
        check(lib.umt_index_verify(handle.ptr))


def open_index(core, directory):
    """Opens the index in @directory (default: default_dir()) for @core's trace."""
    directory = default_dir(core.path) if directory is None else os.fspath(directory)
    ix = ffi.new("umt_index **")
    check(lib.umt_index_open(core.t, os.fsencode(directory), ix))
    return Index(core, ix[0], directory)


def _build_options(threads, memory, progress):
    """The umt_index_build_options of a build, and the Listener of @progress."""
    listener = Listener(progress)
    o = ffi.new("umt_index_build_options *")
    lib.umt_index_build_options_init(o)
    o.threads = threads
    if memory is not None:
        o.memory = memory
    o.on_progress = lib.umtpy_on_index_progress if progress else ffi.NULL
    o.ctx = listener.handle
    return o, listener


def _built(call, directory, threads, memory, progress, *args):
    """Runs the build @call(directory, *args, options, stats); returns its stats."""
    o, listener = _build_options(threads, memory, progress)
    stats = ffi.new("umt_index_build_stats *")
    rc = call(os.fsencode(directory), *args, o, stats)
    listener.raise_pending()
    check(rc)
    return struct_dict(stats)


def build_index(core, directory, threads, memory, progress):
    """Builds the index of @core's trace into @directory and opens it: see Trace.build_index()."""
    directory = default_dir(core.path) if directory is None else os.fspath(directory)
    stats = _built(functools.partial(lib.umt_index_build, core.t), directory, threads, memory,
                   progress)
    ix = open_index(core, directory)
    ix.build_stats = stats
    return ix


def build_index_part(core, directory, part, parts, threads, memory, progress):
    """Builds part @part of @parts of the index: see Trace.build_index_part()."""
    directory = default_dir(core.path) if directory is None else os.fspath(directory)
    return _built(functools.partial(lib.umt_index_build_part, core.t), directory, threads,
                  memory, progress, part, parts)


def merge_index_parts(core, directory, parts, threads, memory, progress):
    """Makes the index from its @parts parts and opens it: see Trace.merge_index_parts()."""
    directory = default_dir(core.path) if directory is None else os.fspath(directory)
    stats = _built(functools.partial(lib.umt_index_build_merge, core.t), directory, threads,
                   memory, progress, parts)
    ix = open_index(core, directory)
    ix.build_stats = stats
    return ix
