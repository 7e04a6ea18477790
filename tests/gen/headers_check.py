#!/usr/bin/python3
"""Checks that the enum headers umtgen writes (--xed-headers) name every value
a trace uses, as umtdump loads them with --xed-dir.

    headers_check.py UMTDUMP XED_DIR TRACE

Every instruction row must have a category, mnemonic and form name, every
explicit operand and LC slot a register name, every syscall record a name.
Exit status 0 when all are named, 1 otherwise (each gap printed).
"""
import json
import subprocess
import sys


def rows(umtdump, xed, trace, command):
    out = subprocess.run([umtdump, "--json", "--xed-dir", xed, command, trace],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def main():
    umtdump, xed, trace = sys.argv[1:4]
    gaps, checked = [], 0
    for r in rows(umtdump, xed, trace, "ins"):
        d = r["decoded"]
        for key in ("category_name", "mnemonic_name", "form_name"):
            checked += 1
            if not d.get(key):
                gaps.append("row %d: no %s for %s" % (r["id"], key, r["disasm"]))
        for item in d["operands"] + d["lc_slots"]:
            checked += 1
            if not item.get("name") or item["name"] == "?":
                gaps.append("row %d: register %d has no name" % (r["id"], item["reg"]))
    for s in rows(umtdump, xed, trace, "syscalls"):
        checked += 1
        if not s.get("uniform_id_name"):
            gaps.append("syscall %d: unified ID %d has no name" % (s["id"], s["uniform_id"]))
    for g in gaps:
        print(g)
    print("%d names checked, %d missing" % (checked, len(gaps)))
    return 1 if gaps or not checked else 0


if __name__ == "__main__":
    sys.exit(main())
