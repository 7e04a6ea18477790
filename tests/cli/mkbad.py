#!/usr/bin/env python3
"""Builds the failing traces of the CLI tests: copies of the sample trace
with one small byte patch each, at offsets read from the files themselves.

    mkbad.py SAMPLE_DIR OUT_DIR

Each directory OUT_DIR/bad-NAME is one corruption:
  truncated    exec.vtable lost its last 100 bytes (open fails)
  offsets      exec.offsets[5] points past exec.vtable (records 4 and 5 are bad)
  type         record 7 has the undefined type 7
  insid        instruction record 2 has InsID 99999 (past the instruction table)
  lcsize       instruction 0 asks for an LC of 200 bytes (record 1 has 56)
  syscall      syscall record 0 has a Size of 10 (less than 56)
  module       module 0's WinNameFP points past the file
  disasm       instruction 3's DisasmFP is negative
  xml          trace.xml has a mismatched end tag
OUT_DIR/damaged has thread.itable cut to 20 bytes and exec.vtable without its
last 100 bytes (open fails; --salvage reads the rest), and OUT_DIR/no-xml is the sample without trace.xml (consistent: it is optional).
"""
import os
import shutil
import struct
import sys


def u64(data, off):
    return struct.unpack_from("<Q", data, off)[0]


def copy(sample, out, name, prefix="bad-"):
    d = os.path.join(out, prefix + name)
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(sample, d)
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)
    return d


def patch(d, fname, off, fmt, value):
    path = os.path.join(d, fname)
    with open(path, "r+b") as f:
        f.seek(off)
        f.write(struct.pack(fmt, value))


def read(d, fname):
    with open(os.path.join(d, fname), "rb") as f:
        return f.read()


def record_offset(d, rid):
    return u64(read(d, "exec.offsets"), 8 * rid)


def ins_row(d, iid):
    hdr = read(d, "ins.itable")
    row_size, table_fp, extra_fp = u64(hdr, 16), u64(hdr, 24), u64(hdr, 32)
    return table_fp + iid * row_size, extra_fp


def main():
    sample, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)

    d = copy(sample, out, "truncated")
    size = os.path.getsize(os.path.join(d, "exec.vtable"))
    os.truncate(os.path.join(d, "exec.vtable"), size - 100)

    d = copy(sample, out, "offsets")
    patch(d, "exec.offsets", 8 * 5, "<Q", 0x7fffffff00)

    d = copy(sample, out, "type")
    patch(d, "exec.vtable", record_offset(d, 7) + 4, "<B", 7)

    d = copy(sample, out, "insid")
    patch(d, "exec.vtable", record_offset(d, 2) + 6, "<q", 99999)

    d = copy(sample, out, "lcsize")
    row, extra_fp = ins_row(d, 0)
    decoded_fp = u64(read(d, "ins.itable"), row + 48)
    patch(d, "ins.itable", extra_fp + decoded_fp + 58, "<H", 200)

    d = copy(sample, out, "syscall")
    patch(d, "syscall.offsets", 8, "<q", 10)

    d = copy(sample, out, "module")
    hdr = read(d, "module.itable")
    patch(d, "module.itable", u64(hdr, 24) + 32, "<q", 1 << 40)

    d = copy(sample, out, "disasm")
    row, _ = ins_row(d, 3)
    patch(d, "ins.itable", row + 40, "<q", -5)

    d = os.path.join(out, "no-xml")
    if os.path.exists(d):
        shutil.rmtree(d)
    shutil.copytree(sample, d)
    os.remove(os.path.join(d, "trace.xml"))

    d = copy(sample, out, "damaged", prefix="")
    size = os.path.getsize(os.path.join(d, "exec.vtable"))
    os.truncate(os.path.join(d, "exec.vtable"), size - 100)
    os.truncate(os.path.join(d, "thread.itable"), 20)

    d = copy(sample, out, "xml")
    path = os.path.join(d, "trace.xml")
    with open(path, "rb") as f:
        text = f.read()
    bad = text.replace(b"</Bitness>", b"</Bitnes>", 1)
    assert bad != text
    with open(path, "wb") as f:
        f.write(bad)


if __name__ == "__main__":
    main()
