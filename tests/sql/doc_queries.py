#!/usr/bin/env python3
"""Runs the ten example queries of docs/sql.md on the bundled sample and
checks each one twice: its output is the one the document shows, and its
rows agree with what other umtdump commands (exec, stats, syscalls,
threads, modules, history, mem, calls, stack: the C API's answers, not the SQLite
module's) and the sample's ground truth say.

    doc_queries.py UMTDUMP SOURCE_DIR [--update]

--update rewrites the outputs shown in docs/sql.md from the current ones
(after the checks pass): review the change.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

UMTDUMP, SRC = sys.argv[1], sys.argv[2]
UPDATE = "--update" in sys.argv[3:]
SAMPLE = os.path.join(SRC, "examples", "sample-trace")
XED = os.path.join(SRC, "tests", "cli", "xed-sample")
DOC = os.path.join(SRC, "docs", "sql.md")


def umtdump(*args, index=None):
    cmd = [UMTDUMP, "--quiet", "--xed-dir", XED] + (["--index", index] if index else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)}: status {r.returncode}: {r.stderr}")
    return r.stdout


def lines(*args, index=None):
    return [json.loads(x) for x in umtdump(*args, index=index).splitlines()]


def examples():
    """The (title, sql, first and last line of its output block) of each example."""
    text = open(DOC, encoding="utf-8").read().split("\n")
    start = text.index("## Ten example queries")
    out, i = [], start
    while i < len(text) and not (text[i].startswith("## ") and i > start):
        m = re.match(r"\*\*(\d+)\. (.*)", text[i])
        if m:
            j = text.index("```sql", i)
            k = text.index("```", j + 1)
            t = text.index("```text", k + 1)
            e = text.index("```", t + 1)
            out.append((int(m.group(1)), m.group(2), "\n".join(text[j + 1:k]), t + 1, e))
            i = e
        i += 1
    return out, text


def hexint(s):
    return int(s, 16)


# ---- the independent checks, one per example: rows are the --json output ----------------

def check_mix(rows, idx):
    mix = lines("--json", "stats", SAMPLE)[0]["mnemonics"]
    want = sorted(((m["mnemonic_name"], m["count"]) for m in mix), key=lambda x: (-x[1], x[0]))
    assert [(r["mnemonic"], r["n"]) for r in rows] == want[:8], (rows, want[:8])


def check_hottest(rows, idx):
    recs = [r for r in lines("--json", "exec", SAMPLE) if r["type"] == "instruction"]
    n = Counter(r["ins_id"] for r in recs)
    ins = {r["ins_id"]: r for r in recs}
    mods = {m["id"]: m["win_name"].split("\\")[-1] for m in lines("--json", "modules", SAMPLE)}
    rows_ins = {i["id"]: i for i in lines("--json", "ins", SAMPLE)}
    top = sorted(n, key=lambda i: (-n[i], i))[:5]
    want = [(ins[i]["address"], ins[i]["disasm"], mods.get(rows_ins[i]["module_id"]), n[i])
            for i in top]
    assert [(r["address"], r["disasm"], r["module"], r["n"]) for r in rows] == want, (rows, want)


def check_buffer(rows, idx):
    call = [s for s in lines("--json", "syscalls", SAMPLE)
            if s["uniform_id_name"].startswith("SYSCALL_NtReadFile")]
    assert len(call) == 1
    lo, n = hexint(call[0]["args"][5]), hexint(call[0]["args"][6])
    hist = lines("--json", "history", "--kind", "read,write,peek,context", SAMPLE,
                 f"{lo:#x}:{n}", index=idx)
    want = sorted((h["id"], h["kind"], h["address"], h["size"]) for h in hist
                  if lo <= hexint(h["address"]) < lo + n)
    got = sorted((r["id"], r["kind"], r["address"], r["size"]) for r in rows)
    assert got == want and len(got) > 1, (got, want)
    assert all(r["call"] == call[0]["id"] for r in rows)
    types = {r["id"]: r["type"] for r in lines("--json", "exec", SAMPLE)}
    assert all(types[r["id"]] == r["type_name"] for r in rows)


def check_syscalls(rows, idx):
    want = []
    types = {r["id"]: r["thread_id"] for r in lines("--json", "exec", SAMPLE)}
    for s in lines("--json", "syscalls", SAMPLE):
        want.append((s["id"], types[s["begin_eid"]], s["uniform_id_name"], s["args"][0],
                     s["args"][1], s["arg_count"], s["begin_eid"],
                     None if s["end_eid"] < 0 else s["end_eid"],
                     hexint(s["result"]) if s["completed"] else None))
    got = [(r["id"], r["thread_id"], r["name"], r["arg0"], r["arg1"], r["arg_count"],
            r["begin_id"], r["end_id"], r["result"]) for r in rows]
    assert got == want, (got, want)


def check_threads(rows, idx):
    recs = lines("--json", "exec", SAMPLE)
    want = []
    for t in lines("--json", "threads", SAMPLE):
        mine = [r for r in recs if r["thread_id"] == t["id"]]
        want.append((t["id"], t["win_tid"], len(mine),
                     sum(r["type"] == "instruction" for r in mine),
                     sum(r["type"] == "syscall-entry" for r in mine),
                     min(r["id"] for r in mine), max(r["id"] for r in mine)))
    got = [(r["id"], r["win_tid"], r["records"], r["instructions"], r["syscalls"], r["first"],
            r["last"]) for r in rows]
    assert got == want, (got, want)


def check_coverage(rows, idx):
    """Against the ground truth of the machine that ran the sample."""
    truth = [json.loads(x) for x in open(SAMPLE + ".truth.jsonl", encoding="utf-8")]
    cov = [c for c in truth if c["kind"] == "coverage" and c["module"] is not None]
    want = [(c["module"].split("\\")[-1], len(c["addresses"]), c["executions"])
            for c in sorted(cov, key=lambda c: c["module_id"]) if c["executions"]]
    assert [(r["name"], r["addresses"], r["executions"]) for r in rows] == want, (rows, want)


def check_top_calls(rows, idx):
    """Against umtdump calls (the C API) and the sample's ground truth."""
    calls = lines("--json", "calls", SAMPLE, index=idx)
    truth = [json.loads(x) for x in open(SAMPLE + ".truth.jsonl", encoding="utf-8")]
    truth = [c for c in truth if c["kind"] == "call"]
    assert sorted((c["id"], c["target"]) for c in calls) == \
        sorted((c["id"], c["target"]) for c in truth), (calls, truth)
    n = Counter(hexint(c["target"]) for c in calls)
    by = {}
    for c in calls:
        by.setdefault(hexint(c["target"]), []).append(c)
    want = []
    for t in sorted(n, key=lambda t: (-n[t], t))[:5]:
        c = by[t]
        mod = c[0]["module"].split("\\")[-1] if c[0]["module"] else None
        want.append((mod, c[0]["module_offset"], f"{t:#x}", n[t],
                     sum(x["end"] == "returned" for x in c), max(x["depth"] for x in c)))
    got = [(r["module"], r["offset"], r["target"], r["calls"], r["returned"], r["max_depth"])
           for r in rows]
    assert got == want, (got, want)


def check_call_stack(rows, idx):
    """Against umtdump stack (the C API) and the truth's call lines: the calls of thread 0
    made before record 20 whose return is after it."""
    st = lines("--json", "stack", "--at", "20", SAMPLE, index=idx)[0]
    disasm = {r["id"]: r.get("disasm") for r in lines("--json", "exec", SAMPLE)}
    want = [(i, f["call_id"], disasm[f["call_id"]], f["target"],
             f["target_module"].split("\\")[-1], f["return_address"], f["module"].split("\\")[-1])
            for i, f in enumerate(st["frames"])]
    got = [(r["frame"], r["call"], r["disasm"], r["target"], r["module"], r["return_address"],
            r["return_module"]) for r in rows]
    assert got == want and len(got) == 3, (got, want)
    truth = [json.loads(x) for x in open(SAMPLE + ".truth.jsonl", encoding="utf-8")]
    open_calls = sorted((c["id"] for c in truth if c["kind"] == "call" and c["thread_id"] == 0
                         and c["id"] < 20 and (c.get("return_id") or 1 << 62) >= 20),
                        reverse=True)
    assert [r["call"] for r in rows] == open_calls, (rows, open_calls)


def check_mem(rows, idx):
    m = lines("--json", "mem", "--at", "102", SAMPLE, "0x20000020000", "8", index=idx)[0]
    data = m["data"]
    want = [(f"{0x20000020000 + i:#x}", data[2 * i:2 * i + 2], m["sources"][i]) for i in range(8)]
    assert [(r["address"], r["byte"], r["source"]) for r in rows] == want, (rows, want)
    assert all(r["c"] == chr(int(r["byte"], 16)) for r in rows)


def check_state(rows, idx):
    st = lines("--json", "state", "--at", "25", SAMPLE, index=idx)[0]
    disasm = {r["id"]: r.get("disasm") for r in lines("--json", "exec", SAMPLE)}
    names = ["rflags", "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi"]
    want = [(n, st["registers"][n], st["sources"][n], disasm[st["sources"][n]]) for n in names]
    got = [(r["name"], r["value"], r["source"], r["disasm"]) for r in rows]
    assert got == want, (got, want)


CHECKS = [check_mix, check_hottest, check_buffer, check_syscalls, check_threads, check_coverage,
          check_top_calls, check_call_stack, check_mem, check_state]


def main():
    found, text = examples()
    if [n for n, *_ in found] != list(range(1, 11)):
        sys.exit(f"FAIL: docs/sql.md has examples {[n for n, *_ in found]}, not 1 to 10")
    with tempfile.TemporaryDirectory() as tmp:
        idx = os.path.join(tmp, "sample-index")
        umtdump("index", "--out", idx, SAMPLE)
        failed = 0
        for (n, title, sql, first, last), check in reversed(list(zip(found, CHECKS))):
            shown = "\n".join(text[first:last])
            out = umtdump("sql", SAMPLE, sql, index=idx).rstrip("\n")
            rows = [json.loads(x) for x in umtdump("--json", "sql", SAMPLE, sql, index=idx).splitlines()]
            try:
                check(rows, idx)
            except AssertionError as e:
                print(f"FAIL example {n} ({title}): its rows disagree: {e}")
                failed = 1
                continue
            if UPDATE:
                text[first:last] = out.split("\n")
            elif out != shown:
                print(f"FAIL example {n} ({title}): docs/sql.md shows\n{shown}\nbut it prints\n{out}")
                failed = 1
        if UPDATE and not failed:
            open(DOC, "w", encoding="utf-8").write("\n".join(text))
            print("updated the outputs of docs/sql.md: review the change")
        elif not failed:
            print("the ten example queries of docs/sql.md print what it shows, and their rows "
                  "agree with umtdump and the truth")
    sys.exit(failed)


if __name__ == "__main__":
    main()
