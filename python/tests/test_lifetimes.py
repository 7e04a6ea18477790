"""Lifetimes: nothing taken from a trace ever points into unmapped memory.
Closing a Trace (or an Index) defers the release until the last view,
record or index using the mapping is gone; /proc/self/maps shows when."""
import gc

import pytest

import umtrace
from umtrace._handle import live_handles


def mapped(trace_dir):
    """How many mappings of the trace's exec.vtable this process has."""
    with open("/proc/self/maps") as f:
        return sum(line.rstrip().endswith(trace_dir + "/exec.vtable") for line in f)


def test_views_outlive_close(trace_copy):
    gc.collect()  # handles of earlier tests, waiting in cycles, go now and not below
    base = live_handles("trace")
    t = umtrace.open(trace_copy)
    ins, offsets, pn = t.instructions, t.exec_offsets, t.prev_next
    raw, cmap = t.file_bytes(umtrace.File.EXEC_VTABLE), t.context_map
    r = next(x for x in t.records(0, 100) if x.type == umtrace.RecType.INSTRUCTION)
    block = t[0].context.memory[0]
    slots = t.ins(0).decoded.slots
    views = (ins, offsets, pn, raw, block.data, slots)
    copies = [v.tobytes() for v in views]
    ops = [(o.name, o.before) for o in r.operands]
    t.close()
    with pytest.raises(umtrace.ClosedError):
        len(t)
    with pytest.raises(umtrace.ClosedError):
        t.columns()
    del t
    gc.collect()
    assert mapped(trace_copy) == 1 and live_handles("trace") == base + 1
    assert [v.tobytes() for v in views] == copies
    del views
    assert cmap["DumpSize"] > 0
    assert [(o.name, o.before) for o in r.operands] == ops  # records keep working too
    del ins, offsets, pn, raw, cmap, r, slots
    gc.collect()
    assert mapped(trace_copy) == 1  # the memory block's view still holds it
    del block
    gc.collect()
    assert mapped(trace_copy) == 0 and live_handles("trace") == base


def test_slices_and_cycles_keep_the_mapping(trace_copy):
    with umtrace.open(trace_copy) as t:
        part = t.instructions[5:9]["Address"]
        cycle = [t.threads]
        cycle.append(cycle)
    gc.collect()
    assert mapped(trace_copy) == 1 and part.tolist()
    del part
    gc.collect()
    assert mapped(trace_copy) == 1  # the cycle still holds a view
    del cycle
    gc.collect()
    assert mapped(trace_copy) == 0


def test_index_keeps_its_trace(trace_copy, tmp_path):
    gc.collect()
    base = live_handles("index")
    with umtrace.open(trace_copy) as t:
        a = t.accesses(0, 2000, kinds=umtrace.Access.READ)[0]
        ix = t.build_index(str(tmp_path / "ix"), threads=1)
    gc.collect()
    assert mapped(trace_copy) == 1 and live_handles("index") == base + 1
    h = ix.history(int(a["address"]), int(a["size"]))
    assert int(a["id"]) in h["id"].tolist()
    ix.close()
    assert live_handles("index") == base  # nothing else used it: released at once
    with pytest.raises(umtrace.ClosedError):
        ix.mem(0, 0x1000, 4)
    assert h["id"].tolist()  # results are copies: valid after the close
    assert mapped(trace_copy) == 1  # the Index object still holds its trace
    del ix
    gc.collect()
    assert mapped(trace_copy) == 0


def test_results_of_columns_are_owned_copies(trace_copy):
    with umtrace.open(trace_copy) as t:
        cols = t.columns(0, 100)
        acc = t.accesses(0, 100)
    gc.collect()
    assert mapped(trace_copy) == 0  # nothing of them points into the mapping
    assert cols["id"].tolist() == list(range(100)) and cols["id"].flags.writeable
    assert len(acc) > 0
