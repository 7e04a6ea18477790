#!/usr/bin/env python3
"""Runs the documentation's programs on corrupt traces: they must report
what is wrong and go on or stop, never crash, hang or read out of bounds
(the tests build them with AddressSanitizer and UBSan).

    bad_input.py SOURCE_DIR EXPECTED_DIR -- PROGRAM [ARG...] [-- PROGRAM ...]

In each program's arguments, TRACE stands for the trace directory. The
traces are the sample and its corrupt copies of tests/cli/mkbad.py, plus
bad-thread: two instruction records whose ThreadID is not a row of the
thread table (one just past its end, one negative), which an analyzer
indexing an array by thread must check. For each program and trace:
  - it ends within the time limit, with status 0, or 1 and a message on
    standard error;
  - no sanitizer report;
  - when EXPECTED_DIR holds NAME.TRACE.txt (NAME the program's file name,
    TRACE the trace directory's name), its standard output is exactly that.
"""
import os
import shutil
import subprocess
import sys
import tempfile

TIME_LIMIT = 120  # seconds per run: far more than any program needs on these traces


def make_traces(src, out):
    """The sample, mkbad.py's corrupt copies and bad-thread, by name."""
    sample = os.path.join(src, "examples", "sample-trace")
    cli = os.path.join(src, "tests", "cli")
    subprocess.run([sys.executable, os.path.join(cli, "mkbad.py"), sample, out], check=True)
    sys.path.insert(0, cli)
    import mkbad  # its helpers: copy, patch, record_offset

    d = mkbad.copy(sample, out, "thread")
    threads = mkbad.u64(mkbad.read(d, "thread.itable"), 8)  # RowCount
    count = mkbad.u64(mkbad.read(d, "exec.vtable"), 8)      # RecordCount
    vtable = mkbad.read(d, "exec.vtable")
    ins = [i for i in range(count) if vtable[mkbad.record_offset(d, i) + 4] == 0]
    assert len(ins) >= 2, "the sample has fewer than two instruction records"
    mkbad.patch(d, "exec.vtable", mkbad.record_offset(d, ins[0]), "<i", threads)
    mkbad.patch(d, "exec.vtable", mkbad.record_offset(d, ins[-1]), "<i", -1)
    traces = {"sample-trace": sample}
    for name in sorted(os.listdir(out)):
        traces[name] = os.path.join(out, name)
    return traces


def split_commands(args):
    commands, cur = [], None
    for a in args:
        if a == "--":
            cur = []
            commands.append(cur)
        else:
            cur.append(a)
    return [c for c in commands if c]


def check(command, name, trace, expected_dir):
    """The problems of one run, as a list of strings."""
    argv = [trace if a == "TRACE" else a for a in command]
    prog = os.path.basename(command[0])
    try:
        p = subprocess.run(argv, capture_output=True, timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        return [f"{prog} {name}: still running after {TIME_LIMIT} s"]
    err = p.stderr.decode(errors="replace")
    problems = []
    if p.returncode not in (0, 1):
        problems.append(f"{prog} {name}: status {p.returncode}")
    elif p.returncode == 1 and not err.strip():
        problems.append(f"{prog} {name}: status 1 without a message")
    if "Sanitizer" in err or "runtime error" in err:
        problems.append(f"{prog} {name}: sanitizer report")
    want = os.path.join(expected_dir, f"{prog}.{name}.txt")
    if os.path.exists(want):
        with open(want, "rb") as f:
            if f.read() != p.stdout:
                problems.append(f"{prog} {name}: standard output differs from {want}")
    if problems:
        problems.append("  stderr: " + err.strip().replace("\n", "\n  stderr: ")[:4000])
    return problems


def main():
    src, expected_dir = sys.argv[1], sys.argv[2]
    commands = split_commands(sys.argv[3:])
    work = tempfile.mkdtemp()
    try:
        traces = make_traces(src, work)
        problems, runs = [], 0
        for command in commands:
            for name, trace in traces.items():
                problems += check(command, name, trace, expected_dir)
                runs += 1
    finally:
        shutil.rmtree(work)
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{runs} runs of {len(commands)} programs on {len(traces)} traces: no crash, "
          "every failure reported")
    return 0


if __name__ == "__main__":
    sys.exit(main())
