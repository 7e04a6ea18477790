#!/usr/bin/env python3
"""Checks the guide's writes_to_range() (docs/guide.md section 10) against
umtdump's JSON: every write of `umtdump --json exec --accesses`, filtered
here with exact integer arithmetic, must be what the guide prints, line for
line, for several address ranges of each trace.

    writes_check.py UMTDUMP GUIDE UMTGEN SAMPLE_TRACE

The traces: the sample, a umtgen trace, and a copy of the umtgen trace in
which two records that write memory are flagged as not completely traced
(0x10: inputs not reliable, so the write's address is not trusted and the
guide skips it; 0x20: outputs not reliable, so its value is marked). The
ranges: the guide's default (every write), and ranges placed around writes
of the trace: one byte inside a write of several bytes (a partial
overlap), the bytes just before and just after a write (no overlap), the
write's first byte, and the last 256 bytes of the address space.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

ALL = (0, 2**64 - 1)  # the guide's default range


def writes(umtdump, trace):
    """Every write umtdump reports, in record order, as the guide prints them."""
    out = subprocess.run([umtdump, "--json", "--keep-going", "exec", "--accesses", trace],
                         capture_output=True, check=False).stdout
    found = []
    for line in out.decode().splitlines():
        rec = json.loads(line)
        for a in rec.get("accesses") or []:
            if a["kind"] == "write" and a["trusted_address"]:
                found.append((rec["id"], rec["thread_id"], int(a["address"], 16), a["size"],
                              a["value"], a["trusted_value"]))
    return found


def expected(found, lo, length):
    lines = []
    for rid, thread, address, size, value, trusted in found:
        if address < lo + length and lo < address + size:
            lines.append(f"write record {rid} thread {thread} at {hex(address)} size {size} "
                         f"value {value}" + ("" if trusted else " (value not reliable)"))
    return lines


def printed(guide, trace, rng):
    args = [guide, trace] + ([] if rng == ALL else [hex(rng[0]), hex(rng[1])])
    out = subprocess.run(args, capture_output=True, check=True).stdout
    return [l for l in out.decode().splitlines() if l.startswith("write record ")]


def ranges(found):
    """ALL and ranges around a write of several bytes (or any write)."""
    wide = [w for w in found if w[3] > 1] or found
    result = [ALL, (2**64 - 256, 256)]
    if wide:
        _, _, address, size, _, _ = wide[len(wide) // 2]
        result += [(address + 1, 1), (address - 8, 8), (address + size, 8), (address, 1)]
    return result


def flag_copy(umtdump, trace, out):
    """A copy of trace with its first writing record flagged 0x10, its last 0x20;
    and those two record IDs."""
    shutil.copytree(trace, out)
    records = [w[0] for w in writes(umtdump, trace)]
    with open(os.path.join(out, "exec.offsets"), "rb") as f:
        offsets = f.read()
    with open(os.path.join(out, "exec.vtable"), "r+b") as f:
        for rid, flag in ((records[0], 0x10), (records[-1], 0x20)):
            at = struct.unpack_from("<Q", offsets, 8 * rid)[0] + 5  # execRec.Flags
            f.seek(at)
            old = f.read(1)[0]
            f.seek(at)
            f.write(bytes([old | flag]))
    return out, records[0], records[-1]


def check(umtdump, guide, trace, name):
    """The writes of trace, and the number of ranges where the guide differs."""
    found = writes(umtdump, trace)
    failures = 0 if found else 1
    if not found:
        print(f"FAIL {name}: no writes at all")
    for rng in ranges(found):
        want, got = expected(found, *rng), printed(guide, trace, rng)
        if want != got:
            failures += 1
            print(f"FAIL {name} [{hex(rng[0])}, +{hex(rng[1])}): the guide printed "
                  f"{len(got)} writes, umtdump's JSON gives {len(want)}")
            for w, g in zip(want + [""] * len(got), got + [""] * len(want)):
                if w != g:
                    print(f"  want {w}\n  got  {g}")
                    break
    if not failures:
        print(f"{name}: {len(found)} writes in {len(ranges(found))} ranges, as umtdump says")
    return found, failures


def main():
    umtdump, guide, umtgen, sample = sys.argv[1:5]
    work = tempfile.mkdtemp()
    try:
        gen = os.path.join(work, "gen")
        subprocess.run([umtgen, "--quiet", "--records", "3000", "--threads", "4",
                        "--instructions", "120", "--seed", "3", gen], check=True)
        failures = check(umtdump, guide, sample, "sample")[1]
        unflagged, f = check(umtdump, guide, gen, "umtgen")
        failures += f
        copy, first, last = flag_copy(umtdump, gen, os.path.join(work, "flagged"))
        flagged, f = check(umtdump, guide, copy, "umtgen with two records flagged")
        failures += f
        # 0x10: the first record's writes went nowhere known; 0x20: the last's values
        want = [w[:5] + (w[0] != last,) for w in unflagged if w[0] != first]
        if flagged != want:
            print(f"FAIL: flags 0x10 on record {first} and 0x20 on record {last} do not "
                  "drop the one's writes and mark the other's values (umtrace.h 8b)")
            failures += 1
    finally:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
