#!/usr/bin/env python3
"""Reads a drcov file back and compares it with the trace it came from.

    drcov_check.py FILE.drcov MODULES.jsonl INS.jsonl EXEC.jsonl COVERAGE.jsonl

The reader is written here from the format's description (DynamoRIO's drcov
log, version 2, as Lighthouse and bncov load it), not from either tool:

    DRCOV VERSION: 2
    DRCOV FLAVOR: <text>
    Module Table: version 2, count <N>
    Columns: id, base, end, entry, checksum, timestamp, path
    <N lines: "id, 0xbase, 0xend, 0xentry, 0xchecksum, 0xtimestamp, path">
    BB Table: <M> bbs
    <M entries of 8 bytes: u32 start (offset from the module base), u16 size,
     u16 module id, little-endian>

The expected blocks are computed from umtdump's JSON of the trace by brute
force: every instruction record (exec), its row (ins: address, module,
code size), and for rows of floating code the module whose range held the
address at the record (modules: start, end, load and unload records). One
block per executed address of each module row, its size the largest code
size of the rows there; code outside modules has none. The module table must
list every module row with its base, end + 1 and path, and the block counts
must equal the "addresses" of umtdump coverage.
"""
import json
import struct
import sys


def fail(msg):
    print(f"drcov_check: {msg}")
    sys.exit(1)


def expect_line(f, prefix):
    line = f.readline().decode("utf-8")
    if not line.startswith(prefix) or not line.endswith("\n"):
        fail(f"expected a line starting with {prefix!r}, got {line!r}")
    return line[len(prefix):].rstrip("\n")


def read_drcov(path):
    with open(path, "rb") as f:
        if expect_line(f, "DRCOV VERSION: ") != "2":
            fail("not version 2")
        expect_line(f, "DRCOV FLAVOR: ")
        version, count = expect_line(f, "Module Table: ").split(", ")
        if version != "version 2" or not count.startswith("count "):
            fail(f"module table header {version!r}, {count!r}")
        cols = expect_line(f, "Columns: ").split(", ")
        if cols != ["id", "base", "end", "entry", "checksum", "timestamp", "path"]:
            fail(f"columns {cols}")
        modules = []
        for _ in range(int(count[len("count "):])):
            fields = f.readline().decode("utf-8").rstrip("\n").split(", ", 6)
            if len(fields) != 7:
                fail(f"module line of {len(fields)} fields")
            modules.append((int(fields[0]), int(fields[1], 16), int(fields[2], 16),
                            fields[6]))
        n, bbs = expect_line(f, "BB Table: ").split(" ")
        if bbs != "bbs":
            fail("BB table header")
        data = f.read()
        if len(data) != 8 * int(n):
            fail(f"{len(data)} bytes of blocks for {n} bbs")
        blocks = [struct.unpack_from("<IHH", data, 8 * i) for i in range(int(n))]
    return modules, blocks


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def module_at(modules, address, record):
    for m in modules:
        unload = m["unload_eid"] if m["unload_eid"] >= 0 else 2 ** 64
        if int(m["start_addr"], 16) <= address <= int(m["end_addr"], 16) and \
                m["load_eid"] <= record < unload:
            return m["id"]
    return -1


def expected_blocks(modules, rows, records):
    sizes = {}  # (module, address) -> size
    for r in records:
        if r["type"] != "instruction":
            continue
        row = rows[r["ins_id"]]
        address = int(row["address"], 16)
        module = row["module_id"]
        if module < 0:
            module = module_at(modules, address, r["id"])
        if module < 0:
            continue
        key = (module, address)
        sizes[key] = max(sizes.get(key, 0), row["code_size"])
    base = {m["id"]: int(m["start_addr"], 16) for m in modules}
    return sorted((module, address - base[module], size)
                  for (module, address), size in sizes.items())


def main():
    drcov, mod_path, ins_path, exec_path, cov_path = sys.argv[1:6]
    modules, blocks = read_drcov(drcov)
    trace_modules = load(mod_path)
    rows = {r["id"]: r for r in load(ins_path)}
    records = load(exec_path)
    coverage = load(cov_path)
    want_table = [(m["id"], int(m["start_addr"], 16), int(m["end_addr"], 16) + 1,
                   m["win_name"].replace("\n", "?").replace("\r", "?"))
                  for m in trace_modules]
    if modules != want_table:
        fail(f"module table {modules}, expected {want_table}")
    got = sorted((mod, start, size) for start, size, mod in blocks)
    want = expected_blocks(trace_modules, rows, records)
    if got != want:
        fail(f"{len(got)} blocks, {len(want)} expected; first differences: "
             f"{[b for b in got if b not in want][:3]} / {[b for b in want if b not in got][:3]}")
    per_module = {}
    for mod, _, _ in got:
        per_module[mod] = per_module.get(mod, 0) + 1
    for c in coverage:
        if c["module_id"] is not None and per_module.get(c["module_id"], 0) != c["addresses"]:
            fail(f"module {c['module_id']}: {per_module.get(c['module_id'], 0)} blocks, "
                 f"coverage says {c['addresses']} addresses")
    print(f"drcov_check: {len(modules)} modules, {len(blocks)} blocks agree with the trace")


if __name__ == "__main__":
    main()
