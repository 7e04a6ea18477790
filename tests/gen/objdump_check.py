#!/usr/bin/python3
"""Disassembles instruction rows with GNU objdump and compares each with the
row's own disassembly text, after normalising the two syntaxes.

    objdump_check.py [--objdump PATH] < ROWS.jsonl

ROWS.jsonl holds one JSON object per instruction row, as `umtdump --json ins`
prints them: "id", "address" ("0x..."), "code" (hex bytes), "cs_is_64_bits"
and "disasm". Each row's bytes are disassembled alone at its own address
(objdump -b binary -m i386:x86-64 or i386 -M intel --adjust-vma=ADDRESS),
so branch targets and RIP-relative comments are absolute as in the row.

Normalisation (both sides): lower case, objdump's comments dropped, blanks
around commas removed; objdump's condition names (je, jne, jae, ja, jge,
jg) become XED's (jz, jnz, jnb, jnbe, jnl, jnle); movabs is mov; objdump's
string forms "movs"/"stos" with a byte operand are movsb/stosb and lose their
es:/ds: segment names; "gs:0x30" is "gs:[0x30]", "ds:0x404218" is
"[0x404218]"; "[rbp+0x0]" is "[rbp]" and "+0xfff...f8]" is "-0x8]"; a size-less "ptr " (XED's
lea) is dropped; numbers are compared by value (0x1 and 1). Exit status 0
when every row agrees, 1 otherwise (each disagreement printed).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

JCC = {"je": "jz", "jne": "jnz", "jae": "jnb", "ja": "jnbe", "jge": "jnl", "jg": "jnle",
       "jc": "jb", "jnc": "jnb", "jnae": "jb", "jna": "jbe", "jnge": "jl", "jng": "jle",
       "jpe": "jp", "jpo": "jnp"}


def number(tok):
    m = re.fullmatch(r"(-?)(0x[0-9a-f]+|[0-9]+)", tok)
    if not m:
        return tok
    return hex(int(m.group(2), 0) * (-1 if m.group(1) else 1))


def normalise(text):
    t = text.lower().split("#")[0].strip()
    t = re.sub(r"\s+", " ", t)
    t = re.sub(r"\s*,\s*", ",", t)
    words = t.split(" ", 1)
    prefixes = []
    while words[0] in ("lock", "rep", "repz", "repe") and len(words) > 1:
        prefixes.append("rep" if words[0] != "lock" else "lock")
        words = words[1].split(" ", 1)
    mnem = JCC.get(words[0], words[0])
    ops = words[1] if len(words) > 1 else ""
    if mnem == "movabs":
        mnem = "mov"
    if mnem in ("movs", "stos") and "byte ptr" in ops:
        mnem += "b"
    if mnem in ("movsb", "stosb"):
        ops = ops.replace("es:", "").replace("ds:", "")
    ops = re.sub(r"([fg]s):(0x[0-9a-f]+)", r"\1:[\2]", ops)
    ops = re.sub(r"ds:(0x[0-9a-f]+)", r"[\1]", ops)  # an absolute address
    ops = re.sub(r"(^|,)ptr ", r"\1", ops)
    ops = ops.replace("+0x0]", "]")
    # a negative displacement: objdump shows [rip+0xffffffffffffbbfa], XED [rip-0x4406]
    ops = re.sub(r"\+0x(f[0-9a-f]{15})\]",
                 lambda m: "-" + hex((1 << 64) - int(m.group(1), 16)) + "]", ops)
    ops = re.sub(r"(0x[0-9a-f]+|\b[0-9]+\b)", lambda m: number(m.group(1)), ops)
    return " ".join(prefixes + [mnem]) + (" " + ops if ops else "")


def objdump_text(objdump, code, address, is64, tmp):
    with open(tmp, "wb") as f:
        f.write(bytes.fromhex(code))
    arch = "i386:x86-64" if is64 else "i386"
    out = subprocess.run([objdump, "-D", "-b", "binary", "-m", arch, "-M", "intel",
                          "--adjust-vma=" + address, tmp],
                         check=True, capture_output=True, text=True).stdout
    lines = []
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) >= 3 and re.fullmatch(r"\s*[0-9a-f]+:", parts[0]):
            lines.append("\t".join(parts[2:]).strip())
    return lines


def main():
    objdump = "objdump"
    if len(sys.argv) == 3 and sys.argv[1] == "--objdump":
        objdump = sys.argv[2]
    bad = rows = 0
    fd, tmp = tempfile.mkstemp(suffix=".bin")
    os.close(fd)
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            r = json.loads(line)
            rows += 1
            got = objdump_text(objdump, r["code"], r["address"], r["cs_is_64_bits"], tmp)
            want = normalise(r["disasm"])
            if len(got) != 1 or normalise(got[0]) != want:
                bad += 1
                print("row %s at %s (%s): trace says %r, objdump says %r" %
                      (r["id"], r["address"], r["code"], r["disasm"], got))
    finally:
        os.unlink(tmp)
    print("%d rows, %d disagree with objdump" % (rows, bad))
    return 1 if bad or rows == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
