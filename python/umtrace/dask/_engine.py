"""Running a job on a Dask cluster: tasks over record ranges of traces,
partial results combined in a tree, failures kept per trace.

A job is a function ``fn(trace, start, stop)`` over the records [start,
stop) of a trace and an associative ``combine(a, b)`` of its results. The
engine chooses how many ranges of about equal bytes each trace gets from
the size of its exec.vtable; each task cuts the same bounds on its worker
(umt_exec_split()) and runs its range, so that the job starts without a
round trip (a trace the client cannot see is planned by a small task on a
worker first). It makes one task per range and folds the results:
first the ranges of each trace, then the traces; the whole job goes to the
scheduler as one graph, in one message. Every task is a pure
function of (path, range), so Dask may run it again on another worker
when one is lost, and the result is the same.

A trace that cannot be read (missing, corrupt: any ``umtrace.Error``, or
an ``OSError``) fails as a whole: the results of its other ranges are
dropped, and its ``Failure`` (the path, the library's message naming the
file, record and offset) comes back beside the other traces' results,
unless the job asked to raise (then the job fails, and what is still
running is cancelled).
"""
import functools
import math
import os

from .. import _errors
from .._constants import File
from .._ffi import ffi, lib
from . import _cache

#: the smallest range a task gets when the engine chooses (bytes of
#: exec.vtable, about 8.5 M umtgen records): below it the per-task cost of
#: Dask (a few ms) is more than a tenth of a task of the C counting jobs
#: (mix, coverage: about 8 ns a record); docs/scaling.md, from what
#: bench/dask_bench.py measures
MIN_TASK_BYTES = 512 << 20
#: the largest range a task gets when the engine chooses: bounds what a
#: lost worker costs and keeps the tasks many enough to balance
MAX_TASK_BYTES = 1 << 30
#: ranges per worker thread the engine aims at, for balance
TASKS_PER_THREAD = 4
#: partial results a combine task takes at once
FAN_IN = 8
#: the file whose size the client reads to cut a trace it sees
_EXEC_VTABLE = ffi.string(lib.umt_file_name(int(File.EXEC_VTABLE))).decode()


class Failure:
    """A trace that could not be read: ``path``, ``error`` (the exception's
    class name, ``MissingError``...), ``code`` (the library's status, None
    for an OSError), ``message`` (the library's: file, record and byte
    offset), ``record_id`` (the record that failed, when known)."""

    __slots__ = ("path", "error", "code", "message", "record_id")

    def __init__(self, path, exc):
        self.path = path
        self.error = type(exc).__name__
        code = getattr(exc, "code", None)
        self.code = int(code) if isinstance(exc, _errors.Error) and code is not None else None
        self.message = getattr(exc, "message", None) or str(exc)
        rid = getattr(exc, "record_id", None)
        self.record_id = None if rid is None else int(rid)

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __setstate__(self, state):
        for k, v in state.items():
            setattr(self, k, v)

    def as_dict(self):
        """{"trace", "error", "code", "message", "record_id"} for JSON."""
        return {"trace": self.path, "error": self.error, "code": self.code,
                "message": self.message, "record_id": self.record_id}

    def __repr__(self):
        return f"<Failure {self.path}: {self.error}: {self.message}>"


class Partial:
    """What a task returns: a value (when ``has_value``) and the failures
    met so far, {path: Failure}."""

    __slots__ = ("value", "has_value", "failures")

    def __init__(self, value=None, has_value=False, failures=None):
        self.value, self.has_value = value, has_value
        self.failures = {} if failures is None else failures

    def __getstate__(self):
        return (self.value, self.has_value, self.failures)

    def __setstate__(self, state):
        self.value, self.has_value, self.failures = state


class JobResult:
    """The outcome of a job over traces: ``value`` (the combined result of
    every trace read; None when none was), ``failures`` ({path: Failure})
    and ``ok`` (whether no trace failed)."""

    def __init__(self, value, failures):
        self.value, self.failures = value, failures

    @property
    def ok(self):
        return not self.failures

    def __repr__(self):
        return f"<JobResult {len(self.failures)} failed: {self.value!r:.60}>"


# ---- tasks (run on the workers) ---------------------------------------------

def _plan(path, names, parts, piece_bytes):
    """The record count, exec.vtable bytes and the bounds of @parts ranges
    of about equal bytes (None: ranges of about @piece_bytes)."""
    t = _cache.trace(path, names)
    nbytes = t.file_bytes(File.EXEC_VTABLE).nbytes
    n = parts or max(1, math.ceil(nbytes / piece_bytes))
    n = max(1, min(n, len(t), 1 << 31))
    return {"records": len(t), "bytes": nbytes, "bounds": [int(b) for b in t.split(n)]}


def _guard(task, path, raise_errors, *args):
    """@task(*args) as a Partial; an unreadable trace becomes its Failure."""
    try:
        return Partial(task(*args), True)
    except (_errors.Error, OSError) as e:
        if raise_errors:
            raise
        return Partial(failures={path: Failure(path, e)})


def _leaf(fn, path, start, stop, names):
    return fn(_cache.trace(path, names), start, stop)


def _piece(fn, path, k, n, names, raise_errors):
    """@fn over range @k of the @n ranges of about equal bytes of the trace
    (umt_exec_split() on the worker: every worker cuts the same bounds), as
    a Partial: no value for a range that is empty (more ranges than
    records; a trace of no records gets one call, on range 0), the trace's
    Failure when it cannot be read."""
    def task():
        t = _cache.trace(path, names)
        bounds = _cache.bounds(t, n)
        return t, bounds[k], bounds[k + 1], bounds[-1] == bounds[0]
    got = _guard(task, path, raise_errors)
    if not got.has_value:
        return got
    t, a, b, none = got.value
    return _guard(fn, path, raise_errors, t, a, b) if b > a or (none and k == 0) else Partial()


def _fold(combine, *parts):
    """The Partials @parts folded: values combined in order, failures joined."""
    out = Partial()
    for p in parts:
        for path, f in p.failures.items():
            out.failures.setdefault(path, f)
        if p.has_value:
            out.value = combine(out.value, p.value) if out.has_value else p.value
            out.has_value = True
    return out


def _finish_trace(combine, key, path, *parts):
    """The last fold of one trace's ranges: a failed range fails the whole
    trace (its other ranges' values are dropped); with @key the value
    becomes {path: value}."""
    out = _fold(combine, *parts)
    if out.failures:
        return Partial(failures=out.failures)
    if key and out.has_value:
        out.value = {path: out.value}
    return out


def merge_keyed(a, b):
    """combine() of per-trace results {path: value}: the union."""
    out = dict(a)
    out.update(b)
    return out


# ---- the client side --------------------------------------------------------

def _groups(bounds, k):
    """@k ranges from the fine @bounds (about equal bytes each, so k groups
    of consecutive pieces are about equal too), empty ranges left out
    (but at least one)."""
    pieces = len(bounds) - 1
    k = max(1, min(k, pieces))
    cut = [bounds[round(i * pieces / k)] for i in range(k + 1)]
    ranges = [(a, b) for a, b in zip(cut, cut[1:]) if b > a]
    return ranges or [(cut[0], cut[-1])]


def _vtable_bytes(path):
    """The size of the trace's exec.vtable as the client sees it, or None
    (not visible from here: the workers' storage, or missing)."""
    try:
        return os.stat(os.path.join(path, _EXEC_VTABLE)).st_size
    except OSError:
        return None


def _ranges(client, paths, names, parts, raise_errors, tracker):
    """{path: ("ranges", [(start, stop)...]) or ("pieces", n)} and {path:
    Failure} of the traces whose plan failed. @parts: ranges per trace (1:
    whole traces, no planning; None: the engine chooses from the sizes and
    the cluster's threads). A trace whose size the client sees is cut into
    n pieces that the leaves find themselves (no round trip before the
    job); the others are planned on a worker first."""
    if parts == 1:
        return {p: ("ranges", [(0, None)]) for p in paths}, {}
    seen = {p: _vtable_bytes(p) for p in paths}
    far = [p for p in paths if seen[p] is None]
    plan = functools.partial(_plan, names=names, parts=parts, piece_bytes=MIN_TASK_BYTES)
    futures = [client.submit(_guard, plan, p, raise_errors, p, pure=False) for p in far]
    plans = tracker.gather(futures) if futures else []
    failures = {}
    for p, r in zip(far, plans):
        failures.update(r.failures)
        if r.has_value:
            seen[p] = r.value
    ok = {p: v for p, v in seen.items() if v is not None}
    if parts is not None:
        return {p: ("ranges", _groups(v["bounds"], parts)) if isinstance(v, dict)
                else ("pieces", parts) for p, v in ok.items()}, failures
    threads = max(1, sum(client.nthreads().values()))
    nbytes = {p: v["bytes"] if isinstance(v, dict) else v for p, v in ok.items()}
    total = sum(nbytes.values())
    target = min(MAX_TASK_BYTES, max(MIN_TASK_BYTES, total / (TASKS_PER_THREAD * threads)))
    out = {}
    for p, v in ok.items():
        k = math.ceil(nbytes[p] / target) if nbytes[p] else 1
        out[p] = ("ranges", _groups(v["bounds"], k)) if isinstance(v, dict) else ("pieces", k)
    return out, failures


class _Graph:
    """The tasks of one job as a Dask graph, sent to the scheduler in one
    message (client.get): each client.submit() is a message of its own,
    and the client batches its messages 10 ms apart, so a job of a few
    tasks submitted one by one waits tens of ms before its last task
    starts. Keys are unique per job (a token), so no two jobs share one."""

    def __init__(self):
        import uuid
        self.token = uuid.uuid4().hex
        self.dsk, self.keys = {}, []

    def add(self, name, fn, *deps):
        """A task @fn(*results of @deps) (@fn carries its other arguments,
        bound with functools.partial: no argument is read as a key)."""
        key = f"umtrace-{name}-{self.token}-{len(self.keys)}"
        self.dsk[key] = (fn, *deps)
        self.keys.append(key)
        return key

    def tree(self, fold, keys, last=None):
        """Folds @keys FAN_IN at a time, level by level, into one key (the
        last fold is @last, default @fold)."""
        last = last or fold
        while len(keys) > FAN_IN:
            keys = [self.add("fold", fold, *keys[i:i + FAN_IN])
                    for i in range(0, len(keys), FAN_IN)]
        return self.add("fold", last, *keys)

    def submit(self, client):
        """{key: future} of every task, in one message to the scheduler."""
        futures = client.get(self.dsk, self.keys, sync=False)
        return dict(zip(self.keys, futures))


def run(client, paths, fn, combine, names=None, parts=None, per_trace=False,
        on_error="report", progress=None):
    """Runs @fn(trace, start, stop) over record ranges of every trace of
    @paths on @client's cluster and folds the results with @combine (over
    the ranges of a trace, then over the traces; with @per_trace the value
    is {path: that trace's value}). @parts: ranges per trace (None: chosen
    from the sizes and the cluster's threads; 1: whole traces, stop None).
    @on_error: "report" (failed traces in ``JobResult.failures``) or
    "raise" (the first failure raises, the rest is cancelled).
    @progress(done, total): called as tasks finish. Returns a ``JobResult``.
    """
    if on_error not in ("report", "raise"):
        raise ValueError(f"on_error {on_error!r}: 'report' or 'raise'")
    raising = on_error == "raise"
    paths = list(dict.fromkeys(str(p) for p in paths))
    tracker = Tracker(client, progress, raising)
    ranges, failures = _ranges(client, paths, names, parts, raising, tracker)
    fold = functools.partial(_fold, combine)
    g, traces = _Graph(), []
    for path, (how, rs) in ranges.items():
        if how == "pieces":
            leaves = [g.add("piece", functools.partial(_piece, fn, path, k, rs, names, raising))
                      for k in range(rs)]
        else:
            leaves = [g.add("range", functools.partial(_guard, functools.partial(_leaf, fn), path,
                                                       raising, path, a, b, names))
                      for a, b in rs]
        traces.append(g.tree(fold, leaves, functools.partial(_finish_trace, combine, per_trace,
                                                               path)))
    if len(traces) > 1:
        traces = [g.tree(functools.partial(_fold, merge_keyed if per_trace else combine), traces)]
    if traces:
        futures = g.submit(client)
        if progress is not None or raising:
            tracker.wait(list(futures.values()))
        out = futures[traces[0]].result()
        failures.update(out.failures)
    else:
        out = Partial()
    value = out.value if out.has_value else ({} if per_trace else None)
    return JobResult(value, dict(sorted(failures.items())))


class Tracker:
    """Waits for the futures of a job: counts them for @progress(done,
    total) as they finish and, when @fail_fast, cancels every future of the
    job at the first error and raises it."""

    def __init__(self, client, progress, fail_fast):
        self.client, self.progress, self.fail_fast = client, progress, fail_fast
        self.done = self.total = 0

    def wait(self, futures):
        """Waits for @futures (their results stay on the workers)."""
        from distributed import as_completed
        self.total += len(futures)
        for f in as_completed(futures):
            self.done += 1
            if f.status == "error" and self.fail_fast:
                exc = f.exception()  # before the cancel, which would replace it
                self.client.cancel(futures)
                raise exc
            if self.progress is not None:
                self.progress(self.done, self.total)

    def gather(self, futures):
        """Waits for @futures; returns their results."""
        self.wait(futures)
        return self.client.gather(futures)
