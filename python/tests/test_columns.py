"""Columns and accesses of record ranges, filled in C, against umtdump's
C scan of the same trace and a C loop of the extension."""
import numpy as np
import pytest

import umtrace
from conftest import hexint
from umtrace._ffi import lib


def test_columns_equal_the_c_scan(tools, trace_dir, exec_json):
    want = exec_json(trace_dir)
    rows = {w["id"]: w["decoded"] | {"module_id": w["module_id"]}
            for w in tools.json("ins", trace_dir)}
    with umtrace.open(trace_dir) as t:
        c = t.columns(fields=umtrace.FIELDS)
        assert set(c) == set(umtrace.FIELDS) and c.nrows == len(want)
        assert c["id"].tolist() == [w["id"] for w in want]
        assert c["thread"].tolist() == [w["thread_id"] for w in want]
        assert c["type"].tolist() == [w["type_code"] for w in want]
        assert c["flags"].tolist() == [w["flags"] for w in want]
        assert c["ins_id"].tolist() == [w.get("ins_id", -1) for w in want]
        assert c["address"].tolist() == [hexint(w.get("address", "0x0")) for w in want]
        assert c["syscall_id"].tolist() == [w.get("syscall_id", -1) for w in want]
        assert c["exit_code"].tolist() == [w.get("exit_code", 0) for w in want]
        assert c["ok"].all()
        for key in ("mnemonic", "category", "form", "module_id"):
            col = c["module" if key == "module_id" else key].tolist()
            assert col == [rows[w["ins_id"]][key] if "ins_id" in w else -1 for w in want], key
        offsets = t.exec_offsets
        assert (c["offset"] == offsets[:-1]).all() and (c["size"] == np.diff(offsets)).all()
        # the extension's copy of umtbench's block scan, over the same mapping
        acc = (c["thread"].astype(np.uint64).sum() + c["type"].astype(np.uint64).sum() +
               c["flags"].astype(np.uint64).sum() +
               c["ins_id"][c["type"] == 0].astype(np.uint64).sum())
        assert int(acc) == lib.umtpy_ref_block_scan(t._core.t, 0, len(t))


def test_row_counts_equal_umtdump(trace_dir, exec_json):
    want = exec_json(trace_dir)
    with umtrace.open(trace_dir) as t:
        rows = len(t.instructions)
        ids = [w["ins_id"] for w in want if w["type_code"] == 0]
        expect = np.zeros(rows, np.int64)
        for i in ids:
            if 0 <= i < rows:
                expect[i] += 1
        counts, n, without = t.row_counts()
        assert n == len(ids) and without == len(ids) - int(expect.sum()) and n > 1000
        assert (counts == expect).all() and counts.dtype == np.int64
        # ranges add up to the whole, into one array
        bounds = t.split(3)
        total = np.zeros(rows, np.int64)
        got = [t.row_counts(int(a), int(b), out=total)[1] for a, b in zip(bounds, bounds[1:])]
        assert sum(got) == n and (total == expect).all()
        a, b = 17, 4000
        part = [w["ins_id"] for w in want[a:b] if w["type_code"] == 0]
        c, k, _ = t.row_counts(a, b)
        assert k == len(part) and int(c.sum()) == sum(1 for i in part if 0 <= i < rows)
        assert t.row_counts(len(t))[1] == 0
        with pytest.raises(umtrace.RangeError):
            t.row_counts(len(t) + 1)
        with pytest.raises(umtrace.InvalidError):
            t.row_counts(out=np.zeros(rows + 1, np.int64))


def test_column_ranges_and_defaults(traces):
    with umtrace.open(traces["2015"]) as t:
        full = t.columns(fields=("thread", "type", "ins_id"))
        n = len(t)
        for a, b in ((0, 1), (17, 5000), (n - 3, n), (n, n), (100, n + 50), (5, 5)):
            part = t.columns(a, b, fields=("thread", "type", "ins_id"))
            for f in part:
                assert part[f].tolist() == full[f][a:min(b, n)].tolist()
        d = t.columns(0, 100)
        assert tuple(d) == umtrace.DEFAULT_FIELDS
        with pytest.raises(umtrace.InvalidError):
            t.columns(fields=("thread", "colour"))
        with pytest.raises(umtrace.RangeError):
            t.columns(n + 1)
        df = d.to_pandas()
        assert list(df.columns) == list(umtrace.DEFAULT_FIELDS) and len(df) == 100


def test_accesses_of_a_range_equal_umtdump(trace_dir, exec_json):
    kinds = {"read": 1, "write": 2, "peek": 4, "context": 8}
    want = [(w["id"], w["thread_id"], kinds[a["kind"]], hexint(a["address"]), a["size"],
             a["value"]) for w in exec_json(trace_dir) for a in w.get("accesses", [])]
    with umtrace.open(trace_dir) as t:
        acc = t.accesses()
        got = [(int(a["id"]), int(a["thread"]), int(a["kind"]), int(a["address"]),
                int(a["size"]), t.value(a).hex()) for a in acc]
        assert got == want
        writes = t.accesses(kinds=umtrace.Access.WRITE)
        assert writes.tolist() == acc[acc["kind"] == umtrace.Access.WRITE].tolist()
        part = t.accesses(1000, 2000)
        assert part.tolist() == acc[(acc["id"] >= 1000) & (acc["id"] < 2000)].tolist()
        assert list(part.dtype.names) == ["id", "address", "size", "data_offset", "thread",
                                          "locator", "reg_name", "kind", "phase", "trust",
                                          "addr_width"]
        assert (acc["phase"] == (acc["kind"] == umtrace.Access.WRITE)).all()
        with pytest.raises(umtrace.InvalidError):
            t.accesses(kinds=0)
        assert len(part.to_pandas()) == len(part)
