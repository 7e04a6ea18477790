"""Index builds on a cluster.

The index of every trace of a collection: one task per trace, each build
committed atomically by the library (a task killed half way leaves no
index that opens, and its re-run builds it whole).

The index of one large trace across the workers: one task per part
(umt_index_build_part(): the sorted postings of the part's share of the
record ranges, committed atomically as DIR/parts/K-of-N/part; a part
built again, when Dask re-runs a lost worker's task, replaces it), then
one task that merges them (umt_index_build_merge(): checks every part,
commits the index atomically, removes the parts). The index directory
must be one every worker sees at the same path.
"""
import os

from .._index import default_dir
from . import _cache


def index_part(threads, memory, trace, start, stop):
    """Builds @trace's index into its default directory (Trace.build_index()
    on @threads threads within @memory bytes); returns the directory and
    the build's figures (records, accesses, postings, index_bytes...)."""
    ix = trace.build_index(None, threads=threads, memory=memory)
    _cache.forget_index(trace)  # this worker's tasks open the new one
    out = {"directory": ix.directory, **ix.build_stats}
    ix.close()
    return out


def keep_first(a, b):
    """combine() of results that are never combined (one task per trace)."""
    return a


def index_dir(path, directory):
    """The index directory of the trace at @path: @directory made absolute,
    else the trace's default one (resolved on a worker, which sees the
    trace: TRACE/umtindex when it can be written)."""
    return os.path.abspath(directory) if directory else default_dir(path)


def one_part(path, directory, part, parts, threads, memory):
    """Builds part @part of @parts of the index of the trace at @path into
    @directory; returns the part's figures."""
    stats = _cache.trace(path).build_index_part(part, parts, directory, threads=threads,
                                                memory=memory)
    return dict(stats, part=part)


def merge_parts(path, directory, parts, threads, memory, *built):
    """Merges the @parts parts into the index in @directory once every part
    is built (@built: their figures; the task waits for them); returns
    the index's figures, with those of the parts under "parts"."""
    trace = _cache.trace(path)
    ix = trace.merge_index_parts(parts, directory, threads=threads, memory=memory)
    _cache.forget_index(trace)
    out = {"directory": ix.directory, **ix.build_stats,
           "parts": sorted(built, key=lambda s: s["part"])}
    ix.close()
    return out
