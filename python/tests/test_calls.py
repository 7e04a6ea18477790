"""Calls from Python (Index.calls, Index.stack) against the C API as umtdump
--json calls and stack print it, on an index built by umtdump."""
import random

import pytest

import umtrace


@pytest.fixture(scope="module")
def calls_ix(tools, traces, tmp_path_factory):
    d = str(tmp_path_factory.mktemp("calls") / "ix")
    trace = traces["2015"]
    tools.run("index", "--out", d, "--threads", 2, trace)
    t = umtrace.open(trace)
    return {"trace": trace, "dir": d, "t": t, "ix": t.index(d)}


def _none(v):
    return None if v == umtrace.NO_RECORD else int(v)


def _hex(v):
    return None if v is None else hex(v)


def _same_call(g, w):
    assert (int(g["id"]), int(g["thread_id"]), int(g["depth"]), hex(int(g["caller"])),
            hex(int(g["target"])), _none(g["return_id"]), _none(g["parent"]),
            _none(g["end_id"]), umtrace.CALL_END[int(g["end"])],
            hex(int(g["return_address"]))) == \
        (w["id"], w["thread_id"], w["depth"], w["caller"], w["target"], w["return_id"],
         w["parent"], w["end_id"], w["end"], w["return_address"])
    assert (int(g["module"]) >= 0) == (w["module"] is not None)
    if w["module"] is not None:
        assert hex(int(g["module_offset"])) == w["module_offset"]


def test_calls_equal_umtdump(tools, calls_ix):
    ix, d, trace = calls_ix["ix"], calls_ix["dir"], calls_ix["trace"]
    want = tools.json("--index", d, "calls", trace)
    got = ix.calls()
    assert len(got) == len(want) > 100
    for g, w in zip(got, want):
        _same_call(g, w)
    # a thread, a range of records and a limit; calls to the most called target
    want = tools.json("--index", d, "calls", trace, "--thread", 1, "--from", 5000, "--to",
                      20000, "--count", 30)
    got = ix.calls(thread=1, frm=5000, to=20000, limit=30)
    assert len(got) == len(want) > 0
    for g, w in zip(got, want):
        _same_call(g, w)
    target = max(set(int(x) for x in ix.calls()["target"]),
                 key=lambda a: int((ix.calls()["target"] == a).sum()))
    want = tools.json("--index", d, "calls", trace, "--target", hex(target))
    got = ix.calls(target=target)
    assert len(got) == len(want) > 1
    for g, w in zip(got, want):
        _same_call(g, w)


def test_args_equal_umtdump(tools, calls_ix):
    ix, d, trace = calls_ix["ix"], calls_ix["dir"], calls_ix["trace"]
    want = tools.json("--index", d, "calls", trace, "--args", 6, "--count", 200)
    table, values = ix.calls(limit=200, args=6)
    assert len(values) == len(want) == 200
    for (args, ret), w in zip(values, want):
        assert [_hex(a) for a in args] == w["args"]
        assert _hex(ret) == w["return_value"]
    assert sum(a is not None for args, _ in values for a in args) > 600


def test_stack_equals_umtdump(tools, calls_ix):
    ix, d, trace = calls_ix["ix"], calls_ix["dir"], calls_ix["trace"]
    rng = random.Random(15)
    deep = 0
    for at in [rng.randrange(len(calls_ix["t"])) for _ in range(15)]:
        for thread, opts in ((None, []), (0, ["--thread", 0])):
            want = tools.json("--index", d, "stack", trace, "--at", at, *opts)[0]
            got = ix.stack(at, thread=thread)
            assert len(got) == want["depth"] == len(want["frames"])
            for g, w in zip(got, want["frames"]):
                assert (int(g["id"]), hex(int(g["caller"])), hex(int(g["target"])),
                        hex(int(g["return_address"]))) == \
                    (w["call_id"], w["caller"], w["target"], w["return_address"])
                assert (int(g["return_module"]) >= 0) == (w["module"] is not None)
            deep += len(got) > 1
    assert deep > 0


def test_errors(calls_ix):
    ix = calls_ix["ix"]
    with pytest.raises(umtrace.RangeError):
        ix.stack(len(calls_ix["t"]) + 5)
    with pytest.raises(umtrace.InvalidError):
        ix.calls(target=(10, 5))
    with pytest.raises(umtrace.InvalidError):
        ix.calls(args=65)
