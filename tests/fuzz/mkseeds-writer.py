#!/usr/bin/python3
"""Writes the seed corpus of fuzz_writer.c into corpus/writer (or the directory given).

    /usr/bin/python3 tests/fuzz/mkseeds-writer.py [OUT_DIR]

Each seed is a program in fuzz_writer.c's input format: byte 0 (bit 0:
consistent mode; bit 1: 2014 flavour; bit 2: 48-byte thread rows; bit 3: the
other module row size; bit 4: no trace.xml; bits 5-7: an option change in
arbitrary mode), 31 bytes for a trace.xml string, then calls: an opcode byte
and the bytes of its arguments, in the order the target takes them. Values
that do not matter come from a fixed pseudo-random sequence, so the seeds
are the same on every run.
"""
import os
import random
import struct
import sys

# Opcodes (the index into the target's tables).
THREAD, INS, CONTEXT, SYS_ENTRY, SYS_END, THREAD_END = 0, 1, 2, 3, 4, 5
DECODED, DISASM, INS_ROW, MODULE, RANGE, BAD = 6, 7, 8, 9, 10, 11
# arbitrary mode only (same indexes)
SYS_ROW, RAW, CMAP = 3, 4, 12

rng = random.Random(20150121)


def rnd(n):
    return bytes(rng.randrange(256) for _ in range(n))


def context(kind=0, mems=1):
    """make_context(): kind, raw regs size, 4 memory references."""
    b = bytes([kind | (mems << 3)]) + rnd(2)
    for _ in range(4):
        b += bytes([rng.randrange(0xf0)]) + rnd(8) + struct.pack("<H", rng.randrange(600))
    return b


def op(code, args=b""):
    return bytes([code]) + args


def thread():
    return op(THREAD, rnd(12))


def instruction(kind=None, lc=None):
    k = rng.randrange(0x80) if kind is None else kind
    l = rng.randrange(300) if lc is None else lc
    return op(INS, rnd(1) + rnd(1) + rnd(8) + bytes([k]) + struct.pack("<H", l))


def ctx_record(begin, type_byte=None, kind=0, mems=1):
    t = (1 if begin else 2 * rng.randrange(4)) if type_byte is None else type_byte
    return op(CONTEXT, bytes([t]) + rnd(1) + rnd(8) + rnd(4) + rnd(1) + context(kind, mems))


def decoded(lc_size):
    body = bytearray(rnd(88))
    body[0] &= 0xfe  # Category even: slots given
    body[58:60] = struct.pack("<H", lc_size)
    body[62] = rng.randrange(4)  # LCCount (arbitrary mode)
    return op(DECODED, bytes(body))


def disasm(text):
    n = len(text) + 1
    return op(DISASM, bytes([n]) + text)


def ins_row(module=False):
    row = bytearray(rnd(56))
    row[8] = (row[8] | 1) if module else (row[8] & 0xfe)  # Type bit 0: inside a module
    row[11] = rng.randrange(0xff)                          # Pad1[0]: the body
    return op(INS_ROW, bytes(row))


def module(name=b"ntdll.dll"):
    def one():
        n = bytearray(rnd(31))
        n[: len(name)] = name
        return bytes([len(name)]) + bytes(n)
    return op(MODULE, rnd(40) + one() + one())


def range_():
    return op(RANGE, rnd(16))


def syscall_end(exit_):
    return op(SYS_END, rnd(1) + bytes([exit_]) + context() + rnd(20))


def header(flags):
    return bytes([flags]) + b"Windows 7 SP1 64-bit\x00" + rnd(10)


def consistent(flags, instructions=40):
    s = header(1 | flags)
    s += decoded(16) + decoded(0) + decoded(64) + disasm(b"mov rax, [rbx]") + disasm(b"nop")
    s += module() + ins_row() + ins_row(True) + ins_row() + ins_row()
    s += thread() + thread() + thread()
    s += ctx_record(True) + ctx_record(True)
    for i in range(instructions):
        s += instruction()
        if i % 7 == 3:
            s += op(SYS_ENTRY, rnd(1) + rnd(1) + context(0, i % 3))
        if i % 7 == 5:
            s += syscall_end(i & 1)
        if i % 11 == 0:
            s += ctx_record(False)
        if i % 13 == 0:
            s += op(BAD, bytes([i % 20]))
    s += range_() + range_() + thread() + ctx_record(True) + op(THREAD_END, rnd(5))
    s += op(SYS_ENTRY, rnd(2) + context())  # left open: its row has EndEID -1
    return s + rnd(64)


def arbitrary(flags, rounds=3):
    s = header(flags & 0xfe)
    for r in range(rounds):
        s += thread() + decoded(8 + r) + disasm(b"int3") + ins_row()
        s += ctx_record(True, type_byte=1 + 2 * r) + instruction(lc=r * 5)
        s += instruction(kind=0xf0 + r)                       # the largest, and refused sizes
        s += instruction(kind=0x90)                           # lc NULL
        s += ctx_record(False, type_byte=7, kind=0xc0)        # type 7, a huge mem_count
        s += ctx_record(False, type_byte=9, kind=2, mems=2)
        s += op(RAW, bytes([0x20 + r]) + rnd(0x20 + r))       # raw bytes
        s += op(RAW, bytes([0xf6]) + rnd(0x36))               # with ThreadID 0
        s += op(RAW, bytes([0xe9]) + rnd(0xe9 % 64))          # 2^63 bytes: refused
        s += op(SYS_ROW, bytes([r]) + rnd(24))
        s += op(SYS_ROW, bytes([0xe0 + r]) + rnd(24))         # refused IDs
        s += op(CMAP, rnd(5)) + module(b"\xc3\xbcml\xc3\xa4ut.dll") + range_()
        s += op(THREAD_END, rnd(5))
        for k in range(20):
            s += op(BAD, bytes([k]))
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "writer")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "consistent-2015": consistent(0),
        "consistent-2014-rows48-noxml": consistent(2 | 4 | 8 | 16),
        "consistent-long": consistent(0, instructions=300),
        "arbitrary-2015": arbitrary(0),
        "arbitrary-2014": arbitrary(2 | 4),
    }
    for sel in range(1, 8):  # each option change of arbitrary mode
        seeds["arbitrary-options-%d" % sel] = arbitrary(sel << 5, rounds=1)
    # raw records the writer cannot link: verify may see them in a thread's chain
    seeds["arbitrary-raw-before-its-thread"] = (
        header(0) + op(RAW, bytes([0xf6]) + rnd(0x36)) + thread() + ctx_record(True, type_byte=1)
        + op(RAW, bytes([0x03]) + rnd(3)) + instruction(lc=0) + op(THREAD_END, rnd(5)))
    seeds["arbitrary-xml-control"] = b"\x80" + b"a\x01b" + bytes(28) + thread()
    seeds["arbitrary-xml-utf8"] = b"\x80" + b"caf\xc3\xa9 \t\r\n" + bytes(22) + thread()
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print("%d seeds in %s" % (len(seeds), out))


main()
