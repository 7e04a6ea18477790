#!/usr/bin/env python3
"""umtrace.dask's speed on this machine: 2 workers against 1 for the
instruction mix and the coverage of one large trace, the per-task
overhead, the smallest range worth a task, and the model of
docs/scaling.md checked against clusters of W = 1, 2, 4, 8 worker
processes; with --index, the index of a trace built in 2 parts on 2
workers against one build in one process (--groups "" for that alone).
Every ratio compares figures measured in the same run, in interleaved
rounds (the machine is shared: the load average is printed with each
figure, and medians are taken over --runs rounds).

    PYTHONPATH=<umtrace installed> /usr/bin/python3 bench/dask_bench.py \
        [--trace DIR] [--runs N] [--groups "1,2 4 8"] [--apart]
        [--index DIR [--tmp DIR]] [--json FILE]

--trace defaults to /work/traces/h12-30m (umtgen --records 30M --threads 4
--seed 12 DIR makes one like it). The trace is read once before the
figures (it is in the page cache: the "storage" is memory, whose
bandwidth is measured too; docs/scaling.md says how the model takes a
slower store). Nothing here asserts a time: benchmarks are not tests.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import umtrace
import umtrace.dask as ud
from umtrace.dask import _coverage, _engine, _stats
from umtrace._constants import File

JOBS = {"mix": (ud.mix, _stats.mix_part), "coverage": (ud.coverage, _coverage.coverage_part)}


def load():
    return os.getloadavg()[0]


def timed(fn, *args, **kw):
    t = time.perf_counter()
    fn(*args, **kw)
    return time.perf_counter() - t


def nothing(trace, start, stop):
    """A task that reads nothing: its time is the engine's and Dask's."""
    return 0


def add(a, b):
    return a + b


def storage_bandwidth(path):
    """Bytes per second reading exec.vtable (8 MiB reads), page cache hot."""
    name = os.path.join(path, "exec.vtable")
    t, n = time.perf_counter(), 0
    with open(name, "rb", buffering=0) as f:
        while True:
            b = f.read(8 << 20)
            if not b:
                break
            n += len(b)
    return n / (time.perf_counter() - t)


def per_record(trace, part, runs):
    """Seconds per record of @part in this process (one core, no Dask):
    the fastest of @runs runs over a fifth of the trace (the least
    disturbed by the other users of the machine)."""
    n = len(trace) // 5
    return min(timed(part, trace, 0, n) for _ in range(runs)) / n


def per_task(trace, part, runs):
    """Seconds @part spends whatever its range (its allocations: the
    coverage's counts over the whole instruction table): the median over
    @runs runs of a 1000-record range, in this process."""
    return statistics.median(timed(part, trace, 0, 1000) for _ in range(runs))


def count_rows(trace, start, stop):
    """The C scan of the mix and the coverage alone (Trace.row_counts():
    the GIL released for the whole call)."""
    trace.row_counts(start, stop)


def capacity(trace, part):
    """The cores this process gets now: the time of @part over a fifth of
    the trace on one thread over that of its halves on two threads (the
    scans release the GIL); 2 on an idle 2-core machine, less when shared
    (or when memory bandwidth bounds the scan)."""
    import threading
    n = len(trace) // 5
    one = timed(part, trace, 0, n)
    halves = [threading.Thread(target=part, args=(trace, a, b)) for a, b in ((0, n // 2),
                                                                            (n // 2, n))]
    t = time.perf_counter()
    for h in halves:
        h.start()
    for h in halves:
        h.join()
    return one / (time.perf_counter() - t)


def tasks_of(trace, workers):
    """The ranges the engine cuts the trace into on @workers threads (as
    _engine._ranges does when the job does not say)."""
    nbytes = trace.file_bytes(File.EXEC_VTABLE).nbytes
    target = min(_engine.MAX_TASK_BYTES,
                 max(_engine.MIN_TASK_BYTES, nbytes / (_engine.TASKS_PER_THREAD * workers)))
    return math.ceil(nbytes / target)


def overhead(client, path, runs):
    """(fixed cost of a job, cost of each task) on a cluster of one worker:
    jobs of 2 and 66 ranges of nothing (planning, folds and the final
    gather included)."""
    two = statistics.median(timed(ud.map_ranges, client, path, nothing, add, parts=2)
                            for _ in range(runs))
    many = statistics.median(timed(ud.map_ranges, client, path, nothing, add, parts=66)
                             for _ in range(runs))
    o = max(0.0, (many - two) / 64)
    return two - 2 * o, o


def model(records, c, o, q, t0, tasks, workers, cores):
    """docs/scaling.md: t0 + the slower of the waves of tasks on W workers
    and the whole work on the cores there are (a task: its records at @c
    each, the engine's @o and the job's own @q)."""
    each = records / tasks * c + o + q
    return t0 + max(math.ceil(tasks / workers) * each, tasks * each / min(workers, cores))


def traced(job, client, path):
    """(seconds of @job on @path, seconds its tasks computed on the workers,
    added up: from Dask's task stream). busy / seconds is how many tasks
    ran at once on average: W when the engine keeps W workers busy, even
    when each of them gets only part of a core."""
    from distributed import get_task_stream
    with get_task_stream(client) as ts:
        t = timed(job, client, [path])
    busy = sum(s["stop"] - s["start"] for task in ts.data for s in task["startstops"]
               if s["action"] == "compute")
    return t, busy


def start_cluster(w, path):
    """A LocalCluster of @w workers of a thread each and its client, every
    worker with the trace open."""
    from distributed import Client, LocalCluster
    lc = LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                      dashboard_address=None)
    client = Client(lc)
    for job, _ in JOBS.values():
        job(client, [path])
    return lc, client


def one_round(client, w, path, times, loads):
    """Each job once on @client (W = @w) into @times, then once more under
    the task stream for how many tasks ran at once (the stream's own cost
    kept out of the times)."""
    for name, (job, _) in JOBS.items():
        loads.append(load())
        times.setdefault((name, w), []).append(timed(job, client, [path]))
        t, busy = traced(job, client, path)
        times.setdefault((name, w, "busy"), []).append(busy)
        times.setdefault((name, w, "traced"), []).append(t)


def rounds(path, counts, runs, costs, apart=False):
    """{(job, W): [seconds of each run]} and the load averages seen, on a
    LocalCluster of each of @counts workers, rounds interleaved so that
    each sees about the same load: the clusters alive together, or with
    @apart one at a time (each round starts and closes them in turn: a
    user has one cluster, and an idle one's processes share the cores);
    with @costs also overhead() on the first cluster."""
    clusters, times, loads, fixed = {}, {}, [], None
    try:
        for r in range(runs):
            for w in counts:
                if w not in clusters:
                    clusters[w] = start_cluster(w, path)
                if costs and fixed is None:
                    fixed = overhead(clusters[w][1], path, runs)
                one_round(clusters[w][1], w, path, times, loads)
                if apart:
                    lc, client = clusters.pop(w)
                    client.close()
                    lc.close()
    finally:
        for lc, client in clusters.values():
            client.close()
            lc.close()
    return times, loads, fixed


def report(out, trace, times):
    """The smallest range worth a task, and per job and cluster size the
    times, the speed-up over the first size and the model's time."""
    o, t0 = out["task_overhead_s"], out["job_fixed_s"]
    for name in JOBS:
        c = out[f"{name}_ns_per_record"] * 1e-9
        # a task spends 5 % of its time on the engine's and the job's per-task costs
        smallest = 19 * (o + out[f"{name}_task_s"]) / c
        out[f"{name}_smallest_task_records"] = smallest
        print(f"{name}: smallest range worth a task (overhead 5 %): {smallest:,.0f} records")
    for name in JOBS:
        c = out[f"{name}_ns_per_record"] * 1e-9
        sizes = sorted(k[1] for k in times if k[0] == name and len(k) == 2)
        base = statistics.median(times[name, sizes[0]])
        for w in sizes:
            m, runs = statistics.median(times[name, w]), times[name, w]
            k = tasks_of(trace, w)
            pred = model(len(trace), c, o, out[f"{name}_task_s"], t0, k, w, out["cores"])
            out[f"{name}_W{w}"] = {"median_s": m, "runs_s": runs, "tasks": k,
                                   "model_s": pred, "speedup": base / m}
            at_once = statistics.median(b / t for b, t in zip(times[name, w, "busy"],
                                                              times[name, w, "traced"]))
            out[f"{name}_W{w}"]["tasks_at_once"] = at_once
            print(f"{name} W={w}: median {m:.2f} s over {len(runs)} runs (min {min(runs):.2f}, "
                  f"max {max(runs):.2f}), {k} tasks, {at_once:.2f} at once, x{base / m:.2f} vs "
                  f"W={sizes[0]}; model {pred:.2f} s")


def index_builds(path, runs, tmp):
    """index-one: the index of the trace at @path built in one process (one
    thread) against in 2 parts on a LocalCluster of 2 workers (a thread
    each) and merged; medians of @runs, in interleaved rounds."""
    from distributed import Client, LocalCluster
    trace, local, one = umtrace.open(path), [], []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as lc, Client(lc) as client:
        for r in range(runs):
            local.append(timed(lambda: trace.build_index(os.path.join(tmp, f"l{r}"),
                                                         threads=1).close()))
            one.append(timed(ud.build_index_one, client, path, parts=2,
                             index_dir=os.path.join(tmp, f"p{r}")))
    a, b = statistics.median(local), statistics.median(one)
    print(f"index of {path}: {a:.2f} s in one process, {b:.2f} s in 2 parts on 2 workers "
          f"and merged: x{a / b:.2f} (load {load():.2f})")
    return {"local_s": local, "parts_s": one, "speedup": a / b}


def cluster_figures(args, out, trace):
    """The per-task costs and the jobs' times on each cluster size of
    --groups, into @out (printed as they come)."""
    times, loads = {}, []
    for group in [[int(w) for w in g.split(",")] for g in args.groups.split()]:
        g_times, g_loads, costs = rounds(args.trace, group, args.runs,
                                           "task_overhead_s" not in out, args.apart)
        times.update(g_times)
        loads += g_loads
        if costs:
            out["job_fixed_s"], out["task_overhead_s"] = costs
            print(f"fixed cost of a job {costs[0] * 1e3:.1f} ms, per task "
                  f"{costs[1] * 1e3:.2f} ms (W={group[0]}, load {load():.2f})")
    out["load_min_max"] = [min(loads), max(loads)]
    report(out, trace, times)
    print(f"load average during the rounds: {min(loads):.2f} .. {max(loads):.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", default="/work/traces/h12-30m")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--groups", default="1,2 4 8",
                    help="cluster sizes; the sizes of a group run side by side, in "
                    "interleaved rounds (default '1,2 4 8')")
    ap.add_argument("--apart", action="store_true",
                    help="the sizes of a group one at a time: each round starts and closes "
                    "each cluster in turn (default: alive side by side)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--index", metavar="DIR",
                    help="also index-one on this (smaller) trace against a local build, "
                    "the indexes written under --tmp")
    ap.add_argument("--tmp", default="/tmp", help="where --index writes (default /tmp)")
    args = ap.parse_args()
    trace = umtrace.open(args.trace)
    records, cores = len(trace), os.cpu_count()
    out = {"trace": args.trace, "records": records, "cores": cores, "runs": args.runs,
           "exec_vtable_bytes": trace.file_bytes(File.EXEC_VTABLE).nbytes}
    print(f"trace {args.trace}: {records} records, {out['exec_vtable_bytes']} bytes of "
          f"exec.vtable; {cores} cores; load {load():.2f}")
    for name, (_, part) in JOBS.items():
        part(trace, 0, len(trace))  # into the page cache
        out[f"{name}_ns_per_record"] = per_record(trace, part, 3) * 1e9
        out[f"{name}_task_s"] = per_task(trace, part, 5)
        print(f"{name}: {out[f'{name}_ns_per_record']:.1f} ns/record in one process, "
              f"{out[f'{name}_task_s'] * 1e3:.2f} ms per task whatever its range "
              f"(load {load():.2f})")
    out["cores_available"] = statistics.median(capacity(trace, count_rows)
                                               for _ in range(3))
    print(f"cores available: {out['cores_available']:.2f} (2 threads vs 1 of the C scan, "
          f"in this process)")
    out["bandwidth"] = statistics.median(storage_bandwidth(args.trace) for _ in range(3))
    print(f"exec.vtable read at {out['bandwidth'] / 1e9:.2f} GB/s (page cache)")

    if args.groups.strip():  # "": only --index
        cluster_figures(args, out, trace)
    if args.index:
        import tempfile
        with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
            out["index_one"] = index_builds(args.index, args.runs, tmp)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
