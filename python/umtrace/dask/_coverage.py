"""Coverage jobs: which instructions of each module ran, and what differs
between traces.

A task counts the records of each instruction row in C
(``Trace.row_counts()``), and turns the rows executed into (module, address,
records) through the instruction table (a row's ModuleID and Address,
read from the zero-copy view): a few thousand rows, whatever the number
of records. Modules are named on the worker (umt_module_name()). A
module is its name and base address (StartAddr): the loads of one DLL at
one base are one module; code outside any module (ModuleID -1: heap,
JIT) is the module None.

Per module: "addresses", the distinct addresses of instructions executed
(the issue 15 contract of ``umtdump coverage``), and "executions", the
instruction records executing them. Every instruction record counts,
those flagged not executed (a false condition) too: the instruction was
reached. Records whose InsID has no row are counted as "without_row".

The diff compares modules by name and instructions by offset from the
module's base, so that traces of one program loaded at other bases
compare (code outside modules by address).
"""
import numpy as np


def _sum_by(module, address, count):
    """(module, address, count) with one entry per (module, address), the
    counts added, ordered by module then address."""
    order = np.lexsort((address, module))
    module, address, count = module[order], address[order], count[order]
    first = np.ones(len(order), bool)
    first[1:] = (module[1:] != module[:-1]) | (address[1:] != address[:-1])
    at = np.flatnonzero(first)
    return module[at], address[at], np.add.reduceat(count, at) if len(at) else count[:0]


def coverage_part(trace, start, stop):
    """The instruction rows executed in [start, stop) as (module, address, records)."""
    ins = trace.instructions
    counts, n, without = trace.row_counts(start, stop)
    ran = np.flatnonzero(counts)
    module = ins["ModuleID"][ran].astype(np.int32)
    module[(module < 0) | (module >= len(trace.modules))] = -1
    module, address, count = _sum_by(module, ins["Address"][ran].astype(np.uint64), counts[ran])
    starts = trace.modules["StartAddr"]
    names = {int(m): (trace.module_name(int(m)), int(starts[m])) for m in np.unique(module)
             if m >= 0}
    return {"instructions": n, "without_row": without, "module": module, "address": address,
            "count": count, "names": names}


def coverage_combine(a, b):
    m, ad, c = _sum_by(np.concatenate((a["module"], b["module"])),
                       np.concatenate((a["address"], b["address"])),
                       np.concatenate((a["count"], b["count"])))
    return {"instructions": a["instructions"] + b["instructions"],
            "without_row": a["without_row"] + b["without_row"],
            "module": m, "address": ad, "count": c, "names": {**a["names"], **b["names"]}}


def finish_coverage(p):
    """A trace's coverage: {"instructions", "without_row", "modules": rows
    {module, base, addresses, executions, address_list (numpy uint64,
    sorted)}}, by module name (None last), then base. @p's entries are
    one per (module, address), ordered by both (_sum_by()), so a module's
    addresses are a slice already; only modules of the same name and base
    (one DLL loaded twice at one base) are merged."""
    module, address, count = p["module"], p["address"], p["count"]
    ids, first = np.unique(module, return_index=True)
    ends = np.append(first[1:], len(module)).tolist()
    runs = np.add.reduceat(count, first).tolist() if len(first) else []
    groups = {}
    for mid, a, b, n in zip(ids.tolist(), first.tolist(), ends, runs):
        key = p["names"][mid] if mid >= 0 else (None, None)
        groups.setdefault(key, []).append((a, b, n))
    rows = []
    for (name, base), spans in sorted(groups.items(),
                                      key=lambda kv: (kv[0][0] is None, kv[0][0] or "",
                                                      kv[0][1] or 0)):
        if len(spans) == 1:
            addrs = address[spans[0][0]:spans[0][1]]
        else:
            addrs = np.unique(np.concatenate([address[a:b] for a, b, _ in spans]))
        rows.append({"module": name, "base": base, "addresses": len(addrs),
                     "executions": sum(n for _, _, n in spans), "address_list": addrs})
    return {"instructions": p["instructions"], "without_row": p["without_row"],
            "modules": rows}


def _offsets(cov):
    """{module name: set of offsets from the base} of a finished coverage."""
    out = {}
    for r in cov["modules"]:
        base = r["base"] or 0
        out.setdefault(r["module"], set()).update((r["address_list"] - np.uint64(base)).tolist())
    return out


def coverage_diff(per_trace):
    """What differs between the coverages of traces ({path: finished
    coverage}, two or more): one row per module name seen in any trace
    {module, common (offsets executed by every trace), traces: [{trace,
    addresses (offsets it executed), only (sorted offsets no other trace
    executed), missing (sorted offsets another trace executed and it did
    not)}]}, by module name (None last)."""
    offsets = {path: _offsets(cov) for path, cov in per_trace.items()}
    names = set().union(*(o.keys() for o in offsets.values())) if offsets else set()
    rows = []
    for name in sorted(names, key=lambda n: (n is None, n or "")):
        sets = {path: o.get(name, set()) for path, o in offsets.items()}
        every = set().union(*sets.values())
        traces = []
        for path, s in sets.items():
            others = set().union(*(t for p, t in sets.items() if p != path))
            traces.append({"trace": path, "addresses": len(s), "only": sorted(s - others),
                           "missing": sorted(every - s)})
        rows.append({"module": name, "common": len(set.intersection(*sets.values())),
                     "traces": traces})
    return rows
