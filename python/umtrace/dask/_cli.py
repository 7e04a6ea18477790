"""python3 -m umtrace.dask: the jobs of umtrace.dask from the command line.

Argument parsing, the cluster (the scheduler given, or a LocalCluster on
this machine), the progress line; the output of each job is _output.py.
"""
import argparse
import contextlib
import importlib.util
import os
import sys
import time

from .. import _constants
from .._errors import Error
from . import _output

JOBS = {
    "mix": "instruction mix by mnemonic and category (what umtdump stats counts)",
    "coverage": "per module: distinct instruction addresses executed, instruction records",
    "coverage-diff": "per module: offsets executed by every trace, only by one, missed by one",
    "syscalls": "syscall records per unified ID, raw IDs and per thread",
    "accessed": "which traces and records accessed ADDR[:LEN] (index, else a scan)",
    "index": "build the index of every trace (one task per trace)",
    "index-one": "build the index of one large trace across the workers",
}

EPILOG = """\
TRACES are trace directories on storage every worker sees at the same path;
@FILE stands for the paths in FILE, one per line.
Without --scheduler the job runs on a LocalCluster of this machine (one
worker process per core, or --workers N).

examples:
  python3 -m umtrace.dask mix --names xed-headers /traces/run-*
  python3 -m umtrace.dask coverage --scheduler tcp://10.0.0.5:8786 --json @corpus.txt
  python3 -m umtrace.dask accessed 0x7ffe0010:8 --kind write /traces/run-*
  python3 -m umtrace.dask index --threads 2 /traces/run-*
  python3 -m umtrace.dask index-one --parts 16 --out /shared/big.umtindex /traces/big

exit status: 0 every trace read; 1 a trace failed (reported) or the job
failed; 2 usage error. docs/dask.md is the guide.
"""


def _size(text):
    """A byte count: 123, 0x10, 4K, 256M, 1G (powers of 1024)."""
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}.get(text[-1:].lower(), 1)
    return int(text[:-1] if mult > 1 else text, 0) * mult


def _range(text):
    """ADDR[:LEN] as (address, length)."""
    addr, _, length = text.partition(":")
    return int(addr, 0), int(length, 0) if length else 1


def _kinds(text):
    names = {"read": _constants.Access.READ, "write": _constants.Access.WRITE,
             "peek": _constants.Access.PEEK, "context": _constants.Access.CONTEXT}
    out = 0
    for k in text.split(","):
        if k not in names:
            raise argparse.ArgumentTypeError(f"kind {k!r}: read, write, context or peek")
        out |= names[k]
    return out


def parser():
    ap = argparse.ArgumentParser(
        prog="python3 -m umtrace.dask", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Analyses and index builds of UMTracer traces on a Dask cluster.\n\njobs:\n"
        + "\n".join(f"  {j:14} {h}" for j, h in JOBS.items()))
    ap.add_argument("job", choices=JOBS, metavar="JOB")
    ap.add_argument("args", nargs="+", metavar="TRACES",
                    help="trace directories (accessed: ADDR[:LEN] first)")
    g = ap.add_argument_group("cluster")
    g.add_argument("--scheduler", metavar="ADDR", help="tcp://HOST:8786 of a running scheduler")
    g.add_argument("--workers", type=int, metavar="N",
                   help="workers of the LocalCluster (default: one per core)")
    g.add_argument("--parts", type=int, metavar="N",
                   help="record ranges per trace, index-one: parts of the build (default: "
                   "from sizes and worker threads)")
    g.add_argument("--fail-fast", action="store_true",
                   help="fail the job at the first trace that cannot be read")
    o = ap.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="JSON Lines on standard output")
    o.add_argument("--quiet", action="store_true", help="no progress line, no dashboard link")
    o.add_argument("--names", "--xed-dir", metavar="DIR", dest="names",
                   help="XED and syscall headers: names of mnemonics, categories, syscalls")
    o.add_argument("--per-trace", action="store_true", help="mix: each trace, not the totals")
    o.add_argument("--list", action="store_true",
                   help="coverage, coverage-diff: the addresses (offsets) themselves")
    a = ap.add_argument_group("accessed, index, index-one")
    a.add_argument("--kind", type=_kinds, metavar="K[,K]",
                   help="accessed: read, write, context, peek (default read,write,context)")
    a.add_argument("--index-dir", metavar="DIR",
                   help="accessed: the index directory (default: each trace's own)")
    a.add_argument("--threads", type=int, default=1, metavar="N",
                   help="index, index-one: threads of each build task (default 1)")
    a.add_argument("--memory", type=_size, metavar="SIZE",
                   help="index, index-one: memory budget of each build task (default 256M)")
    a.add_argument("--out", metavar="DIR",
                   help="index-one: the index directory, one every worker sees at the same "
                   "path (default: the trace's)")
    return ap


def _paths(args):
    out = []
    for a in args:
        if a.startswith("@"):
            with open(a[1:], encoding="utf-8") as f:
                out.extend(line.strip() for line in f if line.strip())
        else:
            out.append(a)
    return out


class Progress:
    """A progress line on standard error when it is a terminal."""

    def __init__(self, job, enabled):
        self.job, self.enabled, self.start = job, enabled and sys.stderr.isatty(), time.time()

    def __call__(self, done, total):
        if self.enabled:
            sys.stderr.write(f"\r{self.job}: {done}/{total} tasks, "
                             f"{time.time() - self.start:.1f} s ")
            sys.stderr.flush()

    def end(self):
        if self.enabled:
            sys.stderr.write("\n")


@contextlib.contextmanager
def cluster(args):
    """A Client of the scheduler given, or of a new LocalCluster."""
    from distributed import Client, LocalCluster
    if args.scheduler:
        with Client(args.scheduler) as client:
            yield client
        return
    workers = args.workers or os.cpu_count() or 1
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0" if not args.quiet else None) as lc:
        with Client(lc) as client:
            yield client


def _dashboard(client):
    link = client.dashboard_link
    if not link or "dashboard" not in client.scheduler_info().get("services", {}):
        return
    note = ""
    if importlib.util.find_spec("bokeh") is None:
        workers = link.replace("/status", "/info/main/workers.html")
        note = (" (the graphical pages need bokeh >= 2.4.2, < 3, which this interpreter lacks;"
                f" the workers' page is {workers})")
    print(f"dashboard: {link}{note}", file=sys.stderr)


def main(argv=None):
    args = parser().parse_intermixed_args(argv)  # options between the positionals too
    if importlib.util.find_spec("distributed") is None:
        print("umtrace.dask: needs Dask's distributed (Debian: apt-get install "
              "python3-distributed python3-dask)", file=sys.stderr)
        return 2
    try:
        job = _output.Job(args, _paths(args.args))
    except (ValueError, OSError) as e:
        print(f"umtrace.dask: {e}", file=sys.stderr)
        return 2
    with cluster(args) as client:
        if not args.quiet:
            _dashboard(client)
        progress = Progress(args.job, not args.quiet)
        try:
            result = job.run(client, progress)
        except (Error, OSError) as e:  # --fail-fast: the first trace that failed
            progress.end()
            print(f"umtrace.dask: {getattr(e, 'message', None) or e}", file=sys.stderr)
            return 1
        progress.end()
    try:
        return job.write(result, sys.stdout)
    except BrokenPipeError:  # the reader went away (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
