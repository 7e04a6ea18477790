"""Instruction semantics from Python (Trace.semantics, semantics_table)
against umtdump --json ins, which prints the C API's Zydis decoding of
every instruction row."""
import pytest

import umtrace
from conftest import hexint


def test_table_equals_umtdump_ins(tools, trace_dir):
    want = [w["semantics"] for w in tools.json("ins", trace_dir)]
    with umtrace.open(trace_dir) as t:
        table = t.semantics_table()
        assert len(table) == len(want) == len(t.instructions)
        df = table.to_pandas()
        for i, w in enumerate(want):
            assert (df["mnemonic_name"][i], df["category_name"][i], int(table["length"][i])) \
                == (w["zydis_mnemonic"], w["category"], w["length"]), i
            target = int(table["target"][i]) if table["flags"][i] & umtrace._semantics.SEM_TARGET \
                else None
            assert target == hexint(w["target"]), i
        assert (t.semantics_table(3, 9) == table[3:9]).all()


def test_row_detail_equals_umtdump(tools, trace_dir):
    want = [w["semantics"] for w in tools.json("ins", trace_dir)]
    with umtrace.open(trace_dir) as t:
        for i in range(0, len(want), max(1, len(want) // 40)):
            d, w = t.semantics(i), want[i]
            assert (d["mnemonic"], d["category"], d["zydis_category"], d["length"], d["text"]) \
                == (w["zydis_mnemonic"], w["category"], w["zydis_category"], w["length"],
                    w["text"]), i
            assert d["target"] == hexint(w["target"]), i
            assert [o["kind"] for o in d["operands"]] == [o["kind"] for o in w["operands"]], i
        with pytest.raises(umtrace.RangeError):
            t.semantics(len(want))
