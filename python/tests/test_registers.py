"""Registers from Python (Index.state, reg_history, origin) against the C
API as umtdump --json state, reg-history and origin print it, on an index
built by umtdump."""
import random

import pytest

import umtrace


@pytest.fixture(scope="module")
def regs(tools, traces, tmp_path_factory):
    d = str(tmp_path_factory.mktemp("regs") / "ix")
    trace = traces["2015"]
    tools.run("index", "--out", d, "--threads", 2, trace)
    t = umtrace.open(trace)
    return {"trace": trace, "dir": d, "t": t, "ix": t.index(d)}


def _text(reg):
    """A Register as umtdump writes it: 0x... when whole and at most 8 bytes,
    else hex digits with ?? for unknown bytes (most significant first up to 8
    bytes, else memory order); None when no byte is known."""
    if reg.known == 0:
        return None
    full = (1 << reg.size) - 1
    if reg.size <= 8 and reg.known == full:
        return hex(reg.value)
    data = reg.value.to_bytes(reg.size, "little")
    order = range(reg.size - 1, -1, -1) if reg.size <= 8 else range(reg.size)
    digits = "".join(f"{data[i]:02x}" if reg.known >> i & 1 else "??" for i in order)
    return ("0x" if reg.size <= 8 else "") + digits


def _records(regs, n):
    rng = random.Random(7)
    count = len(regs["t"])
    return [rng.randrange(count) for _ in range(n)]


def test_state_equals_umtdump(tools, regs):
    for at in _records(regs, 12):
        want = tools.json("--index", regs["dir"], "state", regs["trace"], "--at", at)[0]
        got = regs["ix"].state(at)
        assert set(got) == set(want["registers"])
        for name, reg in got.items():
            assert _text(reg) == want["registers"][name], (at, name)
            assert reg.source == want["sources"][name], (at, name)
        # another thread: the state of thread 0 at the same record
        want0 = tools.json("--index", regs["dir"], "state", regs["trace"], "--at", at,
                           "--thread", 0)[0]
        got0 = regs["ix"].state(at, thread=0)
        assert {k: _text(v) for k, v in got0.items()} == want0["registers"]


def test_reg_history_equals_umtdump(tools, regs):
    for reg, opts, kw in (("rsp", ["--thread", 1, "--count", 40], {"thread": 1, "limit": 40}),
                          ("eax", ["--changes", "--count", 25], {"changes": True, "limit": 25}),
                          ("rcx", ["--thread", 2, "--to", 20000, "--reverse", "--count", 10],
                           {"thread": 2, "to": 20000, "reverse": True, "limit": 10})):
        want = tools.json("--index", regs["dir"], "reg-history", regs["trace"], reg, *opts)
        got = regs["ix"].reg_history(reg, **kw)
        assert len(got) == len(want) > 0, reg
        for g, w in zip(got, want):
            assert (int(g["id"]), int(g["thread"]), bool(g["changed"])) == \
                (w["id"], w["thread_id"], w["changed"])
            assert regs["t"].reg_name(int(g["reg"])).lower() == w["register"]
            if g["known_bytes"] == g["size"] <= 8:
                assert hex(int(g["value"])) == w["value"]


def test_origin_equals_umtdump(tools, regs):
    for at in _records(regs, 5):
        want = tools.json("--index", regs["dir"], "origin", regs["trace"], "--at", at,
                          "--depth", 4, "rsp")
        got = regs["ix"].origin(at, reg="rsp", depth=4)
        assert len(got) == len(want) > 0
        for g, w in zip(got, want):
            assert int(g["depth"]) == w["depth"]
            assert (None if g["id"] == umtrace.NO_RECORD else int(g["id"])) == w["id"]
            assert umtrace.ORIGIN_KIND[int(g["kind"])] == w["kind"]
            assert (int(g["role"]) == 2) == w.get("address_only", False)


def test_errors(regs):
    ix = regs["ix"]
    with pytest.raises(umtrace.RangeError):
        ix.state(len(regs["t"]) + 5)
    with pytest.raises(umtrace.NotFoundError):
        ix.reg_history("nosuchreg")
    with pytest.raises(umtrace.InvalidError):
        ix.origin(10)
    with pytest.raises(umtrace.InvalidError):
        ix.origin(10, address=0x1000, length=0)


def test_coverage_equals_umtdump(tools, regs):
    want = tools.json("--index", regs["dir"], "coverage", regs["trace"])
    cov = regs["ix"].coverage()
    df = cov.to_pandas()
    got = [(None if m is None else m, None if i < 0 else int(i), int(a), int(e))
           for m, i, a, e in zip(df["module"], df["module_id"], df["addresses"],
                                 df["executions"])]
    # umtdump lists the entries that executed something
    assert [g for g in got if g[3]] == [(w["module"], w["module_id"], w["addresses"],
                                         w["executions"]) for w in want]
    cols = regs["t"].columns(fields=("type",))
    assert int(cov["executions"].sum()) == int((cols["type"] == umtrace.RecType.INSTRUCTION).sum())
    for entry in range(len(cov)):
        addrs = regs["ix"].coverage_addresses(entry)
        assert len(addrs) == cov["addresses"][entry]
        assert int(addrs["executions"].sum()) == cov["executions"][entry]
        assert (addrs["address"][1:] > addrs["address"][:-1]).all()
