"""umtrace.dask: analyses and index builds of traces on a Dask cluster.

The traces stay where they are, on storage every worker sees at the same
path; tasks carry paths and record ranges, and each worker opens a trace
once and keeps it open for the tasks that follow (a trace changed on disk
is opened again). Dask (Debian: python3-distributed) is imported only
when a job runs; ``import umtrace`` never needs it.

    from distributed import Client
    import umtrace.dask as ud

    client = Client("tcp://scheduler:8786")       # or Client() for this machine
    r = ud.mix(client, ["/traces/a", "/traces/b"], names="/traces/xed-headers")
    r.total            # the instruction mix of every trace read, per XED version
    r.value["/traces/a"]["mnemonics"][:5]
    r.failures         # {path: Failure} of the traces that could not be read

Generic: ``map_ranges(client, path, fn, combine)`` runs ``fn(trace, start,
stop)`` over ranges of one trace's records of about equal bytes and
combines the results (associative ``combine(a, b)``, folded in a tree);
``map_traces(client, paths, fn, combine)`` runs ``fn(trace)`` once per
trace. Built-in jobs: ``mix``, ``coverage``, ``coverage_diff``,
``syscalls``, ``accessed``, ``build_indexes``, and ``build_index_one``
(one trace's index, its parts built across the workers). Every job over a collection
returns a ``JobResult``: ``value`` (per trace), ``failures`` and, for the
mix, ``total``. A trace that cannot be read is a ``Failure`` carrying the
library's message (file, record, byte offset), and the other traces'
results still come back; ``on_error="raise"`` fails the job instead.

Tasks are pure functions of (path, range): when a worker is lost, Dask
runs its tasks again elsewhere and the result is the same. The command
line is ``python3 -m umtrace.dask JOB ...`` (``--help``); docs/dask.md in
the source tree is the guide, docs/scaling.md the model of job times.
"""
import functools

from .. import _memory
from . import _accessed, _build, _coverage, _stats
from ._engine import Failure, JobResult, Tracker, run

__all__ = ["map_ranges", "map_traces", "mix", "coverage", "coverage_diff", "syscalls",
           "accessed", "build_indexes", "build_index_one", "run", "JobResult", "Failure"]


def map_ranges(client, trace_path, fn, combine, parts=None, names=None, progress=None):
    """Runs @fn(trace, start, stop) on @client's workers over ranges of the
    records of the trace at @trace_path (about equal bytes each,
    umt_exec_split()) and returns their results folded with @combine(a,
    b) (associative; ranges folded in record order). @parts: the number of
    ranges (default: chosen from the trace's size and the cluster's
    threads); @names: a directory of XED and syscall headers the workers
    open the trace with; @progress(done, total) as tasks finish. @fn and
    @combine must be picklable (module functions, or lambdas: Dask pickles
    them with cloudpickle). Raises the first failure (an ``umtrace.Error``
    naming the file, record and offset)."""
    return run(client, [trace_path], fn, combine, names=names, parts=parts, on_error="raise",
               progress=progress).value


def _whole(fn, trace, start, stop):
    return fn(trace)


def map_traces(client, paths, fn, combine, on_error="report", names=None, progress=None):
    """Runs @fn(trace) once per trace of @paths on @client's workers and
    folds the results with @combine(a, b) (associative; in a tree).
    Returns a ``JobResult``: ``value`` the folded result of the traces that
    were read, ``failures`` {path: Failure} of those that were not (a
    missing or corrupt trace, with the library's message); with
    @on_error="raise" the first failure raises and the job stops."""
    return run(client, paths, functools.partial(_whole, fn), combine, names=names, parts=1,
               on_error=on_error, progress=progress)


def _job(client, paths, part, combine, finish, **kw):
    """A built-in job: per-trace values run through @finish."""
    r = run(client, paths, part, combine, per_trace=True, **kw)
    out = JobResult({p: finish(v) for p, v in r.value.items()}, r.failures)
    out.raw = r.value
    return out


def mix(client, paths, names=None, parts=None, on_error="report", progress=None):
    """The instruction mix of each trace of @paths (what ``umtdump stats``
    counts: instruction records by the decoded mnemonic and category of
    their instruction row). ``value``: {path: {xed_version, instructions,
    undecoded_instructions, mnemonics: [{mnemonic, mnemonic_name (when known), count}],
    categories: [{category, category_name, count}], and by the code bytes'
    Zydis names: zydis_mnemonics: [{zydis_mnemonic, count}], zydis_categories,
    semantic_categories, undecodable_code}}, most frequent first;
    ``total``: the traces added up per XED version (a list of the same,
    with "traces"). Names come from @names (XED headers); without them the
    *_name keys are left out."""
    r = _job(client, paths, _stats.mix_part, _stats.mix_combine, _stats.finish_mix,
             names=names, parts=parts, on_error=on_error, progress=progress)
    r.total = _stats.total_mix(r.raw)
    return r


def coverage(client, paths, names=None, parts=None, on_error="report", progress=None):
    """The instruction coverage of each trace per module. ``value``: {path:
    {instructions, without_row, modules: [{module (name, None outside
    modules), base, addresses (distinct addresses executed), executions
    (instruction records), address_list (numpy uint64)}]}}."""
    return _job(client, paths, _coverage.coverage_part, _coverage.coverage_combine,
                _coverage.finish_coverage, names=names, parts=parts, on_error=on_error,
                progress=progress)


def coverage_diff(client, paths, names=None, parts=None, on_error="report", progress=None):
    """The coverage of each trace, then what differs: ``value`` as
    coverage(), ``diff``: per module name, the offsets from the module's
    base executed by every trace (a count) and, per trace, those only it
    executed and those it missed (``_coverage.coverage_diff``)."""
    r = coverage(client, paths, names=names, parts=parts, on_error=on_error, progress=progress)
    r.diff = _coverage.coverage_diff(r.value)
    return r


def syscalls(client, paths, names=None, parts=None, on_error="report", progress=None):
    """Syscall statistics of each trace: ``value`` {path: [{uniform_id,
    uniform_id_name (when known), count, raw_ids, by_thread: [{thread_id, win_tid,
    count}]}]}, most frequent first; one count per syscall record (its
    entry record)."""
    return _job(client, paths, _stats.syscalls_part, _stats.syscalls_combine,
                _stats.finish_syscalls, names=names, parts=parts, on_error=on_error,
                progress=progress)


def accessed(client, paths, address, length=1, kinds=None, index_dir=None, parts=None,
             on_error="report", progress=None):
    """Which traces of @paths, and which of their records, accessed
    [@address, @address + @length): ``value`` {path: {accesses: numpy rows
    (id, thread, kind, phase, address, size, trust) in the order of
    Index.history(), via: "index", "scan" or "index+scan"}}. @kinds:
    ``Access`` bits (default: read, write, context, as history()). Each
    trace is read through its index (in @index_dir, default its default
    index directory) when one opens, else scanned: the same accesses."""
    kinds = _memory._KINDS if kinds is None else int(kinds)
    if length < 1 or address < 0 or address + length > 1 << 64:
        raise ValueError(f"accessed: the range {address:#x} + {length} is empty or wraps")
    part = functools.partial(_accessed.accessed_part, address, length, kinds, index_dir)
    return _job(client, paths, part, _accessed.accessed_combine, _accessed.finish_accessed,
                parts=parts, on_error=on_error, progress=progress)


def build_indexes(client, paths, threads=1, memory=None, on_error="report", progress=None):
    """Builds the index of every trace of @paths into its default directory
    (Trace.default_index_dir()), one task per trace, each on @threads
    threads within @memory bytes (default 256 MiB), committed atomically.
    ``value``: {path: {directory, records, accesses, postings,
    index_bytes, ...}}."""
    part = functools.partial(_build.index_part, threads, memory)
    return _job(client, paths, part, _build.keep_first, dict, parts=1, on_error=on_error,
                progress=progress)


def build_index_one(client, path, parts=None, index_dir=None, threads=1, memory=None,
                    progress=None):
    """Builds the index of the one trace at @path across @client's workers:
    @parts tasks (default: the cluster's worker threads) each build a part
    (Trace.build_index_part(): its share of the record ranges, committed
    atomically; Dask re-runs the part of a lost worker, which replaces
    it), then one task merges them (Trace.merge_index_parts(): the index
    committed atomically, the same bytes as a build in one process, the
    parts removed). @index_dir: a directory every worker sees at the same
    path (default: the trace's default index directory, as a worker
    resolves it); @threads, @memory: of each task's build. Returns the
    index's figures: {directory, records, accesses, postings, index_bytes,
    ..., parts: [each part's figures]}. Raises the first error (an
    ``umtrace.Error``: a corrupt record, a part missing at the merge)."""
    path = str(path)
    tracker = Tracker(client, progress, True)
    directory = tracker.gather([client.submit(_build.index_dir, path, index_dir,
                                              pure=False)])[0]
    parts = parts or max(1, sum(client.nthreads().values()))
    built = [client.submit(_build.one_part, path, directory, k, parts, threads, memory,
                           pure=False) for k in range(parts)]
    merged = client.submit(_build.merge_parts, path, directory, parts, threads, memory, *built,
                           pure=False)
    tracker.wait(built + [merged])
    return merged.result()
