#!/usr/bin/env python3
"""The loadable extension in Python's sqlite3 module (Debian's /usr/bin/python3):
loaded into connections, on a generated trace, its answers checked against
umtdump's JSON (the C API's): counts per type and thread and the mnemonic
mix, accesses to random ranges (umtdump history), memory at records
(umtdump mem); errors raised as sqlite3 exceptions with the library's
message; two threads, each with its own connection.

    extension.py EXTENSION UMTDUMP UMTGEN
"""
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections import Counter

EXT, UMTDUMP, UMTGEN = sys.argv[1:4]


# The tools carry their own sanitizer runtime (linked in by clang): the one
# preloaded for this interpreter (CMake's LD_PRELOAD) must not reach them.
TOOL_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def run(*cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, env=TOOL_ENV)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: status {r.returncode}: {r.stderr}")
    return r.stdout


def jsonl(*args):
    return [json.loads(x) for x in run(UMTDUMP, "--quiet", "--json", *args).splitlines()]


def connect(trace, index, xed):
    db = sqlite3.connect(":memory:", check_same_thread=False)
    db.enable_load_extension(True)
    db.load_extension(EXT)
    db.enable_load_extension(False)
    n = db.execute("SELECT umtrace_open(?, ?, ?)", (trace, "index=" + index, "xed=" + xed)).fetchone()[0]
    return db, n


def check_counts(db, trace, xed):
    stats = jsonl("--xed-dir", xed, "stats", trace)[0]
    by_type = dict(db.execute("SELECT type_name, count(*) FROM records GROUP BY type"))
    assert by_type == {k: v for k, v in stats["by_type"].items() if v}, by_type
    by_thread = dict(db.execute("SELECT thread_id, count(*) FROM records GROUP BY thread_id"))
    assert by_thread == {t["thread_id"]: t["records"] for t in stats["by_thread"]}, by_thread
    for t in stats["by_thread"]:
        n = db.execute("SELECT count(*) FROM records WHERE thread_id = ?", (t["thread_id"],)).fetchone()[0]
        assert n == t["records"]
    mix = Counter(dict(db.execute("SELECT mnemonic, count(*) FROM records WHERE type = 0 GROUP BY mnemonic")))
    assert mix == Counter({m["mnemonic_name"]: m["count"] for m in stats["mnemonics"]}), mix


def check_accesses(db, trace, index):
    rng = random.Random(5)
    addrs = [a for (a,) in db.execute("SELECT address FROM accesses WHERE id % 97 = 0 AND kind = 'write'")]
    assert len(addrs) > 20
    for a in rng.sample(addrs, 20):
        lo, hi = a - rng.randrange(64), a + rng.randrange(64)
        got = sorted(db.execute("SELECT id, kind, address, size, hex(value) FROM accesses "
                                "WHERE address BETWEEN ? AND ?", (lo, hi)))
        hist = jsonl("--index", index, "history", "--kind", "read,write,peek,context", trace,
                     f"{lo:#x}:{hi - lo + 1}")
        want = sorted((h["id"], h["kind"], int(h["address"], 16), h["size"], h["value"].upper())
                      for h in hist if lo <= int(h["address"], 16) <= hi)
        assert got == want and got, (lo, hi, got[:3], want[:3])


def check_mem(db, trace, index, records):
    rng = random.Random(9)
    addrs = [a for (a,) in db.execute("SELECT address FROM accesses WHERE id % 101 = 0")]
    for a in rng.sample(addrs, 10):
        at = rng.randrange(records)
        rows = db.execute("SELECT value, source FROM mem(?, ?, 16)", (at, a)).fetchall()
        m = jsonl("--index", index, "mem", "--at", str(at), trace, f"{a:#x}", "16")[0]
        want = [(None if m["data"][2 * i] == "?" else int(m["data"][2 * i:2 * i + 2], 16),
                 m["sources"][i]) for i in range(16)]
        assert rows == want, (at, a, rows, want)


def check_calls(db, trace, index, records):
    """calls per thread and stack() at a few records against umtdump calls and stack."""
    calls = jsonl("--index", index, "calls", trace)
    got = db.execute("SELECT thread_id, count(*) FROM calls GROUP BY thread_id").fetchall()
    want = sorted(Counter(c["thread_id"] for c in calls).items())
    assert got == want and len(calls) > 100, (got, want)
    rng = random.Random(3)
    for at in rng.sample(range(records), 10):
        rows = db.execute("SELECT id, printf('0x%x', return_address) FROM stack(?)", (at,)).fetchall()
        st = jsonl("--index", index, "stack", "--at", str(at), trace)[0]
        assert rows == [(f["call_id"], f["return_address"]) for f in st["frames"]], (at, rows, st)


def expect_error(db, sql, what):
    try:
        db.execute(sql).fetchall()
    except sqlite3.Error as e:
        assert what in str(e), (sql, str(e))
        return
    sys.exit(f"FAIL: {sql}: no error")


def check_threads(trace, index, xed, want):
    results = []

    def work():
        db, _ = connect(trace, index, xed)
        for _ in range(3):
            results.append(db.execute("SELECT count(*) FROM records WHERE type = 0").fetchone()[0])
        db.close()
    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 6, results


def main():
    with tempfile.TemporaryDirectory() as tmp:
        trace, index, xed = tmp + "/t", tmp + "/i", tmp + "/xed"
        run(UMTGEN, "--quiet", "--records", "20000", "--threads", "3", "--seed", "13",
            "--xed-headers", xed, trace)
        run(UMTDUMP, "--quiet", "index", "--out", index, trace)
        db, records = connect(trace, index, xed)
        assert records == 20000
        check_counts(db, trace, xed)
        check_accesses(db, trace, index)
        check_mem(db, trace, index, records)
        check_calls(db, trace, index, records)
        expect_error(db, "SELECT * FROM mem(-1, 0, 1)", "at -1: no such record")
        expect_error(db, "SELECT nosuch FROM records", "no such column")
        expect_error(db, "SELECT umtrace_open('/no/such/trace')", "/no/such/trace")
        db.execute("SELECT umtrace_open(?, 'index=/no/such/index')", (trace,))
        expect_error(db, "SELECT * FROM accesses WHERE address = 4096", "umtdump index --out /no/such/index")
        instructions = db.execute("SELECT count(*) FROM records WHERE type = 0").fetchone()[0]
        db.close()
        check_threads(trace, index, xed, instructions)
    print("the extension in Python's sqlite3 module agrees with umtdump")


if __name__ == "__main__":
    main()
