"""Instruction rows (ins.itable), their decoded bodies, and the operands of
instruction records."""
from ._constants import InsType, OperandKind, SlotGroup
from ._dtypes import DECODED_INS, EXP_OPER, LC_SLOT
from ._errors import Status, check, error
from ._ffi import ffi, lib


class Instruction:
    """Row ``id`` of the instruction table: ``row`` (its fields, a numpy
    record viewing the mapping: ID, Type, CSis64Bits, CodeSize, ModuleID,
    Address, CodeBytes, DisasmFP, DecodedFP), ``address``, ``code``,
    ``disasm``, ``decoded``, ``module_id``, and names when the trace was
    opened with ``names=``."""

    __slots__ = ("_core", "id", "_row")

    def __init__(self, core, ins_id):
        row = ffi.new("umt_ins_rec **")
        check(lib.umt_ins_get(core.t, ins_id, row))
        self._core = core
        self.id = ins_id
        self._row = row[0]

    def __repr__(self):
        return f"<Instruction {self.id} at {self.address:#x}: {self.disasm!r}>"

    @property
    def row(self):
        """The row's fields (a read-only numpy record over the mapping)."""
        from ._dtypes import struct_dtype
        return self._core.view(self._row, struct_dtype("umt_ins_rec"), 1)[0]

    @property
    def address(self):
        """insRec Address (zero-extended in 32-bit code)."""
        return self._row.Address & 0xffffffffffffffff

    @property
    def type(self):
        """insRec Type (an ``InsType`` when defined)."""
        t = self._row.Type
        return InsType(t) if t in InsType._value2member_map_ else t

    @property
    def is_64bit(self):
        """insRec CSis64Bits: the code segment was 64-bit."""
        return self._row.CSis64Bits != 0

    @property
    def module_id(self):
        """The module of the row (umt_ins_module()), None for floating code."""
        out = ffi.new("uint64_t *")
        rc = lib.umt_ins_module(self._core.t, self.id, out)
        if rc == Status.NOT_FOUND:
            return None
        check(rc)
        return out[0]

    @property
    def code(self):
        """The instruction's bytes (CodeSize of CodeBytes)."""
        p, n = ffi.new("uint8_t **"), ffi.new("unsigned *")
        check(lib.umt_ins_code(self._core.t, self.id, p, n))
        return bytes(ffi.buffer(p[0], n[0]))

    @property
    def disasm(self):
        """The disassembly text."""
        p, n = ffi.new("char **"), ffi.new("size_t *")
        check(lib.umt_ins_disasm(self._core.t, self.id, p, n))
        return ffi.buffer(p[0], n[0])[:].decode("utf-8", "replace")

    @property
    def decoded(self):
        """The decoded instruction (``Decoded``), checked (umt_ins_decoded())."""
        return Decoded(self._core, self.id)

    @property
    def mnemonic_name(self):
        """The mnemonic's XED name ("MOV"), None without name tables (open(names=...))."""
        names = self._core.names
        return names.mnemonic(self.decoded.fields["Mnemonic"]) if names else None


class Decoded:
    """A checked decodedIns: ``fields`` (a numpy record of its 88 bytes),
    ``operands`` (its explicit operands, a structured array) and ``slots``
    (its LCCount local-context slots, a structured array), all viewing the
    mapping, plus ``slot_group(i)``."""

    __slots__ = ("_core", "_d")

    def __init__(self, core, ins_id):
        d = ffi.new("umt_decoded *")
        check(lib.umt_ins_decoded(core.t, ins_id, d))
        self._core, self._d = core, d

    @property
    def fields(self):
        """Every field of decodedIns (Category, Mnemonic, Form, Flags, ExpCount, ...)."""
        return self._core.view(self._d.ins, DECODED_INS, 1)[0]

    @property
    def operands(self):
        """The ExpCount explicit operands (expOper rows: RegName, Size, Flags,
        BeforeSlot, AfterSlot, BeforeOffset, AfterOffset)."""
        at = int(ffi.cast("uintptr_t", self._d.ins)) + ffi.offsetof("umt_decoded_ins", "ExpOper")
        return self._core.view(at, EXP_OPER, self._d.ins.ExpCount)

    @property
    def slots(self):
        """The LCCount local-context slots (lcSlot rows: RegName,
        CommonRegName (LargestEnclosing in insRec version 0), ValueSize,
        Offset, AddrWidth)."""
        return self._core.view(self._d.slots, LC_SLOT, self._d.ins.LCCount)

    def slot_group(self, slot):
        """The ``SlotGroup`` of slot @slot (before, before of a write-only operand, after)."""
        return SlotGroup(check(lib.umt_decoded_slot_group(self._d, slot)))


class Operand:
    """An explicit operand of an instruction record: ``index``, ``reg``
    (RegName), ``name``, ``kind`` (``OperandKind``), ``size``, ``flags``
    (1 read, 2 written), ``before`` and ``after`` (bytes, None when there is
    no such value), ``address`` (memory operands and AGEN, else None)."""

    __slots__ = ("index", "reg", "name", "kind", "size", "flags", "before", "after", "address")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)

    def __repr__(self):
        return (f"<Operand {self.index} {self.name} {self.kind.name.lower()} size {self.size}"
                f"{'' if self.address is None else f' at {self.address:#x}'}>")

    @property
    def value(self):
        """The before value as an unsigned little-endian int (None without one)."""
        return None if self.before is None else int.from_bytes(self.before, "little")


def bind(core, rec):
    """The umt_ins_exec of instruction record @rec (its decoded instruction checked)."""
    x = ffi.new("umt_ins_exec *")
    check(lib.umt_rec_ins_exec(core.t, rec, x))
    return x


def _value(x, i, when):
    v = ffi.new("umt_value *")
    rc = lib.umt_operand_value(x, i, when, v)
    if rc == Status.NO_VALUE:
        return None
    check(rc)
    return bytes(ffi.buffer(v.data, v.size))


def record_operands(core, x):
    """The explicit operands of bound record @x, with values."""
    out = []
    for i in range(x.dec.ins.ExpCount):
        op = x.dec.ins.ExpOper[i]
        kind = OperandKind(check(lib.umt_operand_kind(x, i)))
        address = None
        if kind in (OperandKind.MEMORY, OperandKind.AGEN):
            a = ffi.new("uint64_t *")
            check(lib.umt_operand_address(x, i, a))
            address = a[0]
        if kind == OperandKind.IMMEDIATE:
            name = "imm0" if op.BeforeSlot == lib.UMT_SLOT_IMM0 else "imm1"
        else:
            name = core.reg_name(op.RegName & 0xffff)
        out.append(Operand(index=i, reg=op.RegName & 0xffff, name=name, kind=kind,
                           size=op.Size, flags=op.Flags, before=_value(x, i, lib.UMT_BEFORE),
                           after=_value(x, i, lib.UMT_AFTER), address=address))
    return out


def phrase(core, x, which):
    """The memory phrase @which (0: MEM0/AGEN, 1: MEM1) of bound record @x, as a dict."""
    p = ffi.new("umt_mem_phrase *")
    check(lib.umt_ins_exec_phrase(x, which, p))
    d = {k: getattr(p, k) for k in ("seg", "base", "index", "scale", "disp", "ea")}
    for k in ("seg_reg", "base_reg", "index_reg"):
        reg = getattr(p, k) & 0xffff
        d[k] = core.reg_name(reg) if reg else None
    return d


def register_id(core, reg):
    """The register number of @reg (a number, or a name of the context map)."""
    if isinstance(reg, str):
        return check(lib.umt_reg_by_name(core.t, reg.encode()))
    return int(reg)


def value_of(v):
    """A umt_value as int (up to 8 bytes) or bytes (wider)."""
    data = bytes(ffi.buffer(v.data, v.size))
    return int.from_bytes(data, "little") if v.size <= 8 else data


def lc_register(core, x, reg, after):
    """Register @reg of bound record @x's local context (None when not there)."""
    v = ffi.new("umt_value *")
    rc = lib.umt_lc_find_reg(core.t, x, register_id(core, reg),
                             lib.UMT_AFTER if after else lib.UMT_BEFORE, v)
    if rc == Status.NOT_FOUND:
        return None
    if rc < 0:
        raise error(rc)
    return value_of(v)
