#!/usr/bin/env python3
"""The Python package's speed, each figure a ratio against a C loop run in
the same process, on the same mapping, in the same run.

    python3 bench/python_bench.py [--trace DIR] [--small DIR] [--runs N]
        [--queries N] [--only NAME[,NAME]] [--tmp DIR] [--umtgen PATH]

Benchmarks (docs/python.md "Speed" has the figures and the commands):
  scan     Trace.scan() of thread, type, flags, ins_id (what umtbench's block
           scan reads) vs the block scan in C (goal >= 0.5); also the default
           fields, and columns() of the whole trace at once (it allocates)
  threads  the same scan on 2 Python threads (umt_exec_split() halves) vs 1
  views    the zero-copy views of every table: creation time on the 1 K-record
           trace vs the big one (goal: ratio < 2)
  records  per-record Python: Record objects by iteration, by index, and with
           their operands (records per second, no goal: use scan() instead)
  index    history() and mem() per query from Python vs the same loop in C
           (goal: Python within 2x, ratio >= 0.5), the per-call overhead, and
           history() on 2 threads vs 1
Without --trace, a 30 M-record trace is made with umtgen in --tmp. The
trace's index is built on first use (TRACE/umtindex). Needs the umtrace
package importable (installed, or PYTHONPATH=python after building it in
place: cd python && python3 setup.py build_ext --inplace). Nothing here
asserts a time: benchmarks are not tests.
"""
import argparse
import glob
import os
import random
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import umtrace
from umtrace._ffi import ffi, lib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCAN_FIELDS = ("thread", "type", "flags", "ins_id")


def timed(fn, runs):
    """Seconds of each of @runs calls of @fn."""
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def alternate(fns, runs):
    """Seconds of each function of @fns, run in turn @runs times (so that a
    slow moment of the machine hits them all)."""
    out = [[] for _ in fns]
    for _ in range(runs):
        for k, fn in enumerate(fns):
            out[k] += timed(fn, 1)
    return out


def med(xs):
    return statistics.median(xs)


def report(name, what, value, unit, ref_name=None, ref=None, ratio=None, goal=None, met=None):
    """One result line: the figure, the limit it is compared with, the ratio and the goal."""
    line = f"{name:8} {what:44} {value:10.2f} {unit:6}"
    if ref_name is not None:
        status = "" if goal is None else ("met" if met else "NOT MET")
        line += (f" {ref_name:26} {ref:10.2f}  ratio {ratio:6.2f}  "
                 f"{('goal ' + goal) if goal else '(report)':12} {status}")
    print(line.rstrip())
    sys.stdout.flush()


def split_scan(trace, bounds, k):
    for _ in trace.scan(int(bounds[k]), int(bounds[k + 1]), fields=SCAN_FIELDS):
        pass


def on_threads(n, target):
    threads = [threading.Thread(target=target, args=(k,)) for k in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


def bench_scan(trace, runs):
    n = len(trace)
    c_scan = lambda: lib.umtpy_ref_block_scan(trace._core.t, 0, n)  # noqa: E731
    scan = lambda: [None for _ in trace.scan(fields=SCAN_FIELDS)]  # noqa: E731
    scan_def = lambda: [None for _ in trace.scan()]  # noqa: E731
    c_scan()  # page cache and the checked-chunk bitmap warm
    c, s, d = alternate([c_scan, scan, scan_def], runs)
    rate = lambda ts: n / med(ts) / 1e6  # noqa: E731
    report("scan", "scan(): thread,type,flags,ins_id", rate(s), "M/s", "C block scan M/s",
           rate(c), med(c) / med(s), ">= 0.50", med(c) / med(s) >= 0.5)
    report("scan", "scan(): default fields (7)", rate(d), "M/s", "C block scan M/s", rate(c),
           med(c) / med(d))
    whole = timed(lambda: trace.columns(fields=SCAN_FIELDS), max(1, runs // 2))
    report("scan", "columns() of the whole trace (allocates)", rate(whole), "M/s",
           "C block scan M/s", rate(c), med(c) / med(whole))


def bench_threads(trace, runs):
    bounds = trace.split(2)
    c_part = lambda k: lib.umtpy_ref_block_scan(trace._core.t, int(bounds[k]),  # noqa: E731
                                                int(bounds[k + 1]))
    one = lambda: [split_scan(trace, bounds, k) for k in range(2)]  # noqa: E731
    two = lambda: on_threads(2, lambda k: split_scan(trace, bounds, k))  # noqa: E731
    c_one = lambda: [c_part(k) for k in range(2)]  # noqa: E731
    c_two = lambda: on_threads(2, c_part)  # noqa: E731
    a, b, ca, cb = alternate([one, two, c_one, c_two], runs)
    n = len(trace)
    report("threads", "scan() on 2 threads", n / med(b) / 1e6, "M/s", "1 thread M/s",
           n / med(a) / 1e6, med(a) / med(b), "> 1.00", med(a) / med(b) > 1.0)
    report("threads", "C block scan on 2 Python threads", n / med(cb) / 1e6, "M/s",
           "1 thread M/s", n / med(ca) / 1e6, med(ca) / med(cb))


def make_views(trace):
    return (trace.instructions, trace.threads, trace.modules, trace.address_ranges,
            trace.syscall_offsets, trace.exec_offsets, trace.prev_next, trace.context_map)


def bench_views(trace, small, runs):
    make_views(trace)
    make_views(small)  # the first use maps exec.prev_next.column
    reps = 200
    big_t, small_t = alternate([lambda: [make_views(trace) for _ in range(reps)],
                                lambda: [make_views(small) for _ in range(reps)]], runs)
    us = lambda ts: med(ts) / reps * 1e6  # noqa: E731
    report("views", f"8 views, {len(trace)} records", us(big_t), "us", f"{len(small)} records us",
           us(small_t), us(big_t) / us(small_t), "< 2.00", us(big_t) / us(small_t) < 2)


def bench_records(trace, runs):
    count = min(len(trace), 1 << 20)
    it, sc = alternate([lambda: [r.type for r in trace.records(0, count)],
                        lambda: [None for _ in trace.scan(0, count, fields=("type",))]], runs)
    report("records", "for r in trace.records(): r.type", count / med(it) / 1e6, "M/s",
           "scan() of the type M/s", count / med(sc) / 1e6, med(sc) / med(it))
    ids = random.Random(1).sample(range(len(trace)), 20000)
    by_index = timed(lambda: [trace[i].type for i in ids], runs)
    report("records", "trace[i].type at random IDs", len(ids) / med(by_index) / 1e6, "M/s")
    ins = [i for i in ids if trace[i].type == umtrace.RecType.INSTRUCTION][:5000]
    ops = timed(lambda: [trace[i].operands for i in ins], runs)
    report("records", "trace[i].operands (instructions)", len(ins) / med(ops) / 1e6, "M/s")
    acc = timed(lambda: [trace[i].accesses() for i in ins], runs)
    report("records", "trace[i].accesses() (instructions)", len(ins) / med(acc) / 1e6, "M/s")


def index_of(trace):
    try:
        return trace.index()
    except umtrace.Error:  # none, stale, or of another format version: build it
        t0 = time.perf_counter()
        ix = trace.build_index()
        print(f"index    built in {time.perf_counter() - t0:.1f} s into {ix.directory}")
        return ix


def bench_index(trace, runs, queries):
    ix = index_of(trace)
    acc = trace.accesses(0, min(len(trace), 2_000_000), kinds=umtrace.Access.WRITE)
    rnd = np.random.default_rng(7)
    pick = rnd.choice(len(acc), size=min(queries, len(acc)), replace=False)
    addrs = acc["address"][pick].astype(np.uint64)
    ats = np.minimum(acc["id"][pick] + 1, len(trace) - 1).astype(np.uint64)
    a_list, at_list = addrs.tolist(), ats.tolist()
    n = len(a_list)
    to = np.full(n, (1 << 64) - 1, np.uint64)
    kinds = int(umtrace.Access.READ | umtrace.Access.WRITE | umtrace.Access.CONTEXT)

    def c_history(to, kinds, reverse, limit, count=n):
        return lambda: lib.umtpy_ref_history(ix._live().ptr, ffi.from_buffer("uint64_t[]", addrs),
                                             ffi.from_buffer("uint64_t[]", to), count, 8, kinds,
                                             reverse, limit)
    # who last wrote the 8 bytes before record N: small answers, the per-call cost shows
    w = int(umtrace.Access.WRITE)
    c, p = alternate([c_history(ats, w, 1, 1),
                      lambda: [ix.history(a, 8, to=at, kinds=umtrace.Access.WRITE, reverse=True,
                                          limit=1) for a, at in zip(a_list, at_list)]], runs)
    report("index", "history(): last write before N", med(p) / n * 1e6, "us",
           "same loop in C us", med(c) / n * 1e6, med(c) / med(p), ">= 0.50",
           med(c) / med(p) >= 0.5)
    print(f"index    per-call overhead of history(): {(med(p) - med(c)) / n * 1e6:.1f} us")
    few = a_list[:2000]  # every access of an address: C work dominates (long answers)
    c, p = alternate([c_history(to, kinds, 0, 0, len(few)),
                      lambda: [ix.history(a, 8) for a in few]], runs)
    results = sum(len(ix.history(a, 8)) for a in few) / len(few)
    report("index", f"history(): all (~{results:.0f} accesses each)", med(p) / len(few) * 1e6,
           "us", "same loop in C us", med(c) / len(few) * 1e6, med(c) / med(p), ">= 0.50",
           med(c) / med(p) >= 0.5)
    data, known, src = np.empty(64, np.uint8), np.empty(64, np.uint8), np.empty(64, np.uint64)
    c_mem = lambda: lib.umtpy_ref_mem(  # noqa: E731
        ix._live().ptr, ffi.from_buffer("uint64_t[]", ats), ffi.from_buffer("uint64_t[]", addrs), n,
        64, ffi.from_buffer("uint8_t[]", data), ffi.from_buffer("uint8_t[]", known),
        ffi.from_buffer("uint64_t[]", src))
    py_mem = lambda: [ix.mem(at, a, 64) for at, a in zip(at_list, a_list)]  # noqa: E731
    c, p = alternate([c_mem, py_mem], runs)
    report("index", "mem(at, addr, 64) from Python", med(p) / n * 1e6, "us", "same loop in C us",
           med(c) / n * 1e6, med(c) / med(p), ">= 0.50", med(c) / med(p) >= 0.5)
    print(f"index    per-call overhead of mem(): {(med(p) - med(c)) / n * 1e6:.1f} us")
    halves = [few[0::2], few[1::2]]
    one = lambda: [ix.history(a, 8) for h in halves for a in h]  # noqa: E731
    two = lambda: on_threads(2, lambda k: [ix.history(a, 8) for a in halves[k]])  # noqa: E731
    # (all the accesses of each address: C work dominates, as in real analyses)
    half = [addrs[:len(few)][0::2].copy(), addrs[:len(few)][1::2].copy()]
    c_half = lambda k: lib.umtpy_ref_history(  # noqa: E731
        ix._live().ptr, ffi.from_buffer("uint64_t[]", half[k]),
        ffi.from_buffer("uint64_t[]", to), len(half[k]), 8, kinds, 0, 0)
    c_one = lambda: [c_half(k) for k in range(2)]  # noqa: E731
    c_two = lambda: on_threads(2, c_half)  # noqa: E731
    a, b, ca, cb = alternate([one, two, c_one, c_two], runs)
    report("index", "history() (all) on 2 threads", len(few) / med(b) / 1e3, "K/s",
           "1 thread K/s", len(few) / med(a) / 1e3, med(a) / med(b), "> 1.00",
           med(a) / med(b) > 1.0)
    report("index", "the C loop on 2 Python threads", len(few) / med(cb) / 1e3, "K/s",
           "1 thread K/s", len(few) / med(ca) / 1e3, med(ca) / med(cb))


def find_umtgen(given):
    if given:
        return given
    found = sorted(glob.glob(os.path.join(ROOT, "build", "*", "tools", "umtgen", "umtgen")),
                   key=os.path.getmtime)
    if not found:
        sys.exit("python_bench: no umtgen: build the tools or give --umtgen")
    return found[-1]


def ensure_trace(path, records, args):
    if not os.path.exists(os.path.join(path, "exec.vtable")):
        subprocess.run([find_umtgen(args.umtgen), "--records", records, "--threads", "4",
                        "--seed", "1", "--quiet", path], check=True)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace")
    ap.add_argument("--small")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", type=int, default=20000)
    ap.add_argument("--only")
    ap.add_argument("--tmp", default=os.environ.get("TMPDIR", "/tmp"))
    ap.add_argument("--umtgen")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    big = args.trace or ensure_trace(os.path.join(args.tmp, "python-bench-30m"), "30M", args)
    small = args.small or ensure_trace(os.path.join(args.tmp, "python-bench-1k"), "1K", args)
    trace, small_trace = umtrace.open(big), umtrace.open(small)
    print(f"python_bench, umtrace {umtrace.__version__} from {os.path.dirname(umtrace.__file__)}:"
          f" trace {big} ({len(trace)} records), {args.runs} runs each; medians")
    benches = {"scan": lambda: bench_scan(trace, args.runs),
               "threads": lambda: bench_threads(trace, args.runs),
               "views": lambda: bench_views(trace, small_trace, args.runs),
               "records": lambda: bench_records(trace, args.runs),
               "index": lambda: bench_index(trace, args.runs, args.queries)}
    for name, run in benches.items():
        if only is None or name in only:
            run()


if __name__ == "__main__":
    main()
