"""The index from Python: built with progress, identical to the C build,
queried with history() and mem() against umtdump --json history and mem."""
import os
import random

import numpy as np
import pytest

import umtrace
from conftest import hexint

KINDS = {"read": 1, "write": 2, "peek": 4, "context": 8}


@pytest.fixture(scope="module")
def indexed(tools, traces, tmp_path_factory):
    """The 2015 trace, its index built by umtdump (C) and the same built from Python."""
    d = tmp_path_factory.mktemp("index")
    c_dir, py_dir = str(d / "c"), str(d / "py")
    tools.run("index", "--out", c_dir, "--threads", 2, "--memory", "4M", traces["2015"])
    calls = []
    with umtrace.open(traces["2015"]) as t:
        ix = t.build_index(py_dir, threads=2, memory=1 << 22,
                           progress=lambda *a: calls.append(a))
    return {"trace": traces["2015"], "c": c_dir, "py": py_dir, "ix": ix, "calls": calls}


def test_build_equals_the_c_build(indexed):
    names = sorted(os.listdir(indexed["c"]))
    assert names == sorted(os.listdir(indexed["py"])) and "index.umti" in names
    for name in names:
        with open(os.path.join(indexed["c"], name), "rb") as a, \
                open(os.path.join(indexed["py"], name), "rb") as b:
            assert a.read() == b.read(), name
    ix = indexed["ix"]
    stats, info = ix.build_stats, ix.info
    assert stats["records"] == 30000 and stats["accesses"] == info["accesses"] > 0
    assert stats["threads"] == 2 and info["bytes"] == stats["index_bytes"]
    ix.verify()


def test_progress_reaches_python(indexed):
    calls = indexed["calls"]
    phases = [c[0] for c in calls]
    assert all(isinstance(p, umtrace.Phase) for p in phases)
    assert phases == sorted(phases) and phases[0] == umtrace.Phase.SCAN
    assert calls[0][1] == 0 and calls[0][2] == 30000
    assert (umtrace.Phase.SCAN, 30000, 30000) in calls
    assert all(0 <= done <= total for _, done, total in calls)


def _want(tools, indexed, addr, length, *opts):
    return [(w["id"], w["thread_id"], KINDS[w["kind"]], hexint(w["address"]), w["size"],
             w["value"], w["trusted"])
            for w in tools.json("--index", indexed["c"], "history", *opts, indexed["trace"],
                                f"{addr:#x}:{length}")]


def _got(t, h):
    return [(int(a["id"]), int(a["thread"]), int(a["kind"]), int(a["address"]), int(a["size"]),
             t.value(a).hex(), bool(a["trust"] & umtrace.Trust.VALUE)) for a in h]


def test_history_equals_umtdump(tools, indexed):
    ix = indexed["ix"]
    rnd = random.Random(3)
    with umtrace.open(indexed["trace"]) as t:
        acc = t.accesses()
        for a in rnd.sample(list(acc), 25):
            addr, n = int(a["address"]), int(a["id"])
            for length in (1, 8, 64, 4096):
                assert _got(t, ix.history(addr, length)) == _want(tools, indexed, addr, length)
            cases = [
                ({"kinds": umtrace.Access.WRITE}, ["--kind", "write"]),
                ({"kinds": umtrace.Access.WRITE, "to": n, "reverse": True, "limit": 1},
                 ["--kind", "write", "--to", n, "--reverse", "--count", 1]),
                ({"frm": n + 1, "limit": 1}, ["--from", n + 1, "--count", 1]),
                ({"thread": int(a["thread"]), "frm": n // 2, "to": n + 5000},
                 ["--thread", int(a["thread"]), "--from", n // 2, "--to", n + 5000]),
                ({"kinds": umtrace.Access.READ | umtrace.Access.CONTEXT, "reverse": True},
                 ["--kind", "read,context", "--reverse"]),
            ]
            for kw, opts in cases:
                assert _got(t, ix.history(addr, 16, **kw)) == \
                    _want(tools, indexed, addr, 16, *opts), kw
        with pytest.raises(umtrace.InvalidError):
            ix.history(0x1000, 0)
        with pytest.raises(umtrace.InvalidError):
            ix.history(0xfffffffffffffff0, 0x100)
        big = ix.history(0, 1 << 62)  # every access below 2^62, in chunks
        assert len(big) > 1000 and (np.diff(big["id"].astype(np.int64)) >= 0).all()


def test_mem_equals_umtdump(tools, indexed):
    ix = indexed["ix"]
    rnd = random.Random(5)
    with umtrace.open(indexed["trace"]) as t:
        acc = t.accesses()
        for a in rnd.sample(list(acc), 40):
            at = int(a["id"]) + rnd.choice((0, 1, 500))
            at = min(at, len(t) - 1)
            addr = int(a["address"]) - rnd.choice((0, 3, 32))
            w = tools.json("--index", indexed["c"], "mem", "--at", at, indexed["trace"],
                           f"{addr:#x}", 48)[0]
            data, known, sources = ix.mem(at, addr, 48)
            assert len(data) == len(known) == len(sources) == 48
            hexed = "".join("??" if not k else f"{b:02x}" for b, k in zip(data, known))
            assert hexed == w["data"]
            assert [None if s == umtrace.NO_RECORD else int(s) for s in sources] == w["sources"]
            assert all(b == 0 for b, k in zip(data, known) if not k)
        with pytest.raises(umtrace.RangeError):
            ix.mem(len(t), 0x1000, 4)
        with pytest.raises(umtrace.InvalidError):
            ix.mem(0, 0x1000, 0)


def test_open_missing_stale_incomplete(tools, trace_copy, tmp_path):
    with umtrace.open(trace_copy) as t:
        with pytest.raises(umtrace.MissingError):
            t.index(str(tmp_path / "none"))
        assert t.default_index_dir() == os.path.join(trace_copy, "umtindex")
        ix = t.build_index()  # the default directory
        assert ix.directory == t.default_index_dir() and ix.info["accesses"] > 0
        ix.close()
        with pytest.raises(umtrace.ClosedError):
            ix.history(0x1000)
    os.utime(os.path.join(trace_copy, "exec.vtable"), (1, 1))
    with umtrace.open(trace_copy) as t:
        with pytest.raises(umtrace.StaleError) as e:
            t.index()
        assert e.value.code == umtrace.Status.STALE
        ix = t.build_index(threads=1)
        ix.verify()
        os.remove(os.path.join(ix.directory, "index.umti"))
        with pytest.raises(umtrace.IncompleteError):
            t.index()


def test_damaged_index_fails_cleanly(tools, traces, tmp_path):
    d = str(tmp_path / "ix")
    tools.run("index", "--out", d, "--threads", 1, traces["2015"])
    post = os.path.join(d, "mem.post")
    data = bytearray(open(post, "rb").read())
    rnd = random.Random(9)
    for i in rnd.sample(range(len(data)), 64):
        data[i] ^= 0x5a
    open(post, "wb").write(bytes(data))
    with umtrace.open(traces["2015"]) as t:
        errors = 0
        ix = t.index(d)  # open checks the headers only (O(1))
        with pytest.raises(umtrace.ContentError) as e:
            ix.verify()
        assert e.value.message  # (it names the record and list, not the file: see the report)
        for a in t.accesses()[::50]:
            try:
                ix.history(int(a["address"]), 8)
                ix.mem(int(a["id"]), int(a["address"]), 8)
            except umtrace.Error as err:
                errors += 1
                assert err.code < 0 and err.message
        assert errors > 0


def test_progress_exception_is_raised_after_the_build(trace_copy, tmp_path):
    def progress(phase, done, total):
        if phase == umtrace.Phase.MERGE:
            raise KeyError("stop")
    with umtrace.open(trace_copy) as t:
        with pytest.raises(KeyError):
            t.build_index(str(tmp_path / "ix"), progress=progress)
        t.index(str(tmp_path / "ix")).verify()  # the build finished and committed
