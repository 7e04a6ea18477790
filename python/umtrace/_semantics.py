"""Instruction semantics (umtrace.h section 7b): each instruction row's
bytes decoded by Zydis in the row's mode: mnemonic, category (call, ret,
jmp, conditional branch, syscall, nop, other), length, branch target,
operands. Per row, never per record: a trace has far fewer rows than
records (``Trace.instructions``), and the library remembers each."""
import numpy as np

from ._errors import check, error, id_arg
from ._ffi import ffi, lib
from ._table import Table

#: one row of semantics_table(): the Zydis mnemonic number (``zydis_mnemonic_name()``),
#: the category (``sem_category_name()``), Zydis's finer category, the flags
#: (``SEM_TARGET``: target holds a relative branch's destination), the length, the target
SEMANTICS = np.dtype([("mnemonic", "<u2"), ("category", "u1"), ("zydis_category", "u1"),
                      ("flags", "u1"), ("length", "u1"), ("target", "<u8")])

#: the C array type of each column, for umtpy_sem_rows()
_CTYPES = {"mnemonic": ffi.typeof("uint16_t[]"), "category": ffi.typeof("uint8_t[]"),
           "zydis_category": ffi.typeof("uint8_t[]"), "flags": ffi.typeof("uint8_t[]"),
           "length": ffi.typeof("uint8_t[]"), "target": ffi.typeof("uint64_t[]")}

#: flag bits of a row's semantics (umt_sem_flag)
SEM_64BIT, SEM_TARGET, SEM_INDIRECT, SEM_FAR, SEM_REP, SEM_LOCK = 1, 2, 4, 8, 16, 32

_OPERAND_KIND = {1: "register", 2: "memory", 3: "agen", 4: "pointer", 5: "immediate"}


def zydis_mnemonic_name(mnemonic):
    """The name of Zydis mnemonic number @mnemonic ("mov", "call"...); "?" when unknown."""
    return ffi.string(lib.umt_sem_mnemonic_name(int(mnemonic))).decode()


def sem_category_name(category):
    """The name of a semantics category: "other", "call", "ret", "jmp",
    "cond_branch", "syscall", "nop" (umt_sem_category_name())."""
    return ffi.string(lib.umt_sem_category_name(int(category))).decode()


def _text(p):
    return None if p == ffi.NULL else ffi.string(p).decode()


def _operand(o):
    d = {"kind": _OPERAND_KIND.get(o.kind, str(o.kind)), "read": bool(o.access & 1),
         "write": bool(o.access & 2), "bits": o.bits}
    if o.kind == 1:
        d["reg"] = _text(o.reg)
    elif o.kind in (2, 3):
        d.update(segment=_text(o.segment), base=_text(o.base), index=_text(o.index),
                 scale=o.scale, disp=o.disp)
    elif o.kind == 4:
        d.update(selector=o.selector, offset=o.value)
    else:
        d["value"] = o.value
    if o.has_absolute:
        d["absolute"] = o.absolute
    return d


def semantics(self, ins_id):
    """The semantics of instruction row @ins_id as a dict: mnemonic (Zydis's
    name), category, zydis_category, length, flags, target (a relative
    branch's destination, else None), text (Intel syntax, targets absolute)
    and operands (a list of dicts: kind, read, write, bits and the kind's
    fields). Raises ``RangeError`` and ``CorruptError`` (bytes that do not
    decode, or decode to another length than the row's CodeSize: the
    message names ins.itable, the row and the offset)."""
    core = self._core
    d = ffi.new("umt_sem_detail *")
    check(lib.umt_sem_decode(core.t, id_arg(ins_id, "instruction"), d))
    s = d.sem
    return {"mnemonic": zydis_mnemonic_name(s.mnemonic), "category": sem_category_name(s.category),
            "zydis_category": ffi.string(lib.umt_sem_zydis_category_name(s.zydis_category)).decode(),
            "length": s.length, "flags": s.flags,
            "target": s.target if s.flags & SEM_TARGET else None,
            "text": ffi.string(d.text).decode(),
            "operands": [_operand(d.operands[i]) for i in range(d.operand_count)]}


def semantics_table(self, start=0, stop=None):
    """The semantics of instruction rows [@start, @stop) (default: all) as a
    ``Table`` of ``SEMANTICS`` rows, filled in C; ``to_pandas()`` adds the
    names. Raises ``CorruptError`` naming the first row that does not
    decode."""
    core = self._core
    count = len(self.instructions)
    stop = count if stop is None else min(id_arg(stop, "instruction"), count)
    start = min(id_arg(start, "instruction"), stop)
    cols = {n: np.empty(stop - start, SEMANTICS[n]) for n in SEMANTICS.names}
    ptr = {n: ffi.from_buffer(_CTYPES[n], a, require_writable=True) for n, a in cols.items()}
    failed = ffi.new("uint64_t *")
    n = lib.umtpy_sem_rows(core.t, start, stop, ptr["mnemonic"], ptr["category"],
                           ptr["zydis_category"], ptr["flags"], ptr["length"], ptr["target"],
                           failed)
    if n < 0:
        raise error(n)
    out = np.empty(stop - start, SEMANTICS)
    for name, a in cols.items():
        out[name] = a
    return _SemanticsTable(out)


class _SemanticsTable(Table):
    """semantics_table()'s rows: to_pandas() adds mnemonic_name and category_name."""

    def to_pandas(self):
        df = super().to_pandas()
        names = {int(m): zydis_mnemonic_name(m) for m in np.unique(self["mnemonic"])}
        df["mnemonic_name"] = [names[int(m)] for m in self["mnemonic"]]
        df["category_name"] = [sem_category_name(c) for c in self["category"]]
        return df
