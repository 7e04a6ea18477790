"""Index builds on a cluster: the index of every trace of a collection, one
task per trace (each build committed atomically by the library: a task
killed half way leaves no index that opens, and its re-run builds it
whole)."""
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
