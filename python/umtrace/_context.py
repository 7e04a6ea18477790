"""Register contexts of records: the register dump and the memory blocks
(umtrace.h section 5: what state they hold depends on the record's type)."""
import numpy as np

from ._errors import check
from ._ffi import ffi, lib
from ._instruction import register_id, value_of


class MemBlock:
    """A memory block of a context: ``address``, ``size`` and ``data`` (a
    read-only uint8 view of the mapping: blocks can be megabytes)."""

    __slots__ = ("index", "address", "size", "data")

    def __init__(self, index, address, size, data):
        self.index, self.address, self.size, self.data = index, address, size, data

    def __repr__(self):
        return f"<MemBlock {self.index} at {self.address:#x}, {self.size} bytes>"


class Context:
    """The rmContext of a thread-begin, syscall entry/exit or context-change
    record: ``record_id``, ``is_64bit`` (which register map applies),
    ``dump`` (the register dump bytes, a view), ``registers()``,
    ``register(name)`` and ``memory`` (the ``MemBlock`` list)."""

    __slots__ = ("_core", "_c")

    def __init__(self, core, c):
        self._core, self._c = core, c

    @classmethod
    def of(cls, core, rec):
        """The context of umt_rec @rec (UMT_E_INVAL for a type without one)."""
        c = ffi.new("umt_context *")
        check(lib.umt_rec_context(core.t, rec, c))
        return cls(core, c)

    def __repr__(self):
        return (f"<Context of record {self.record_id}, {self._c.regs_size}-byte dump, "
                f"{self._c.mem_count} memory blocks>")

    @property
    def record_id(self):
        """The record the context belongs to."""
        return self._c.record_id

    @property
    def is_64bit(self):
        """The record's 64-bit flag: the 64-bit register map applies."""
        return bool(self._c.is_64bit)

    @property
    def dump(self):
        """The register dump (DumpSize bytes, layout from the context map)."""
        return self._core.exec_bytes(self._core.exec_pointer_offset(self._c.regs),
                                     self._c.regs_size)

    def register(self, reg):
        """Value of register @reg (name or number) in the dump: int for up to
        8 bytes, else bytes; the record's mode picks the 32- or 64-bit map."""
        v = ffi.new("umt_value *")
        check(lib.umt_context_reg(self._core.t, self._c, register_id(self._core, reg), v))
        return value_of(v)

    def registers(self, parts=False):
        """The registers of the dump as {name: value}, by register number.
        Without @parts only whole registers: those present in the record's
        mode that are their own effective largest enclosing register (rax,
        rflags, xmm0; not eax or al), or whose enclosing one is absent from
        the map, as ``umtdump exec --context`` lists them; with @parts every
        register present in the mode."""
        out = {}
        for reg in _listed(self._core, self.is_64bit, parts):
            out[self._core.reg_name(reg)] = self.register(reg)
        return out

    @property
    def memory(self):
        """The memory blocks (``MemBlock``), their data viewing the mapping."""
        blocks = []
        m = ffi.new("umt_mem_ref *")
        for i in range(self._c.mem_count):
            check(lib.umt_context_mem_get(self._c, i, m))
            data = self._core.exec_bytes(self._core.exec_pointer_offset(m.data), m.size) \
                if m.size else np.empty(0, np.uint8)
            blocks.append(MemBlock(i, m.address, m.size, data))
        return blocks


def _present(d, is_64bit):
    return d.in64 if is_64bit else d.in32


def _listed(core, is_64bit, parts):
    """Register numbers listed for a dump of the given mode (found once per trace)."""
    key = ("listed-registers", bool(is_64bit), bool(parts))
    with core.lock:
        if key not in core.memo:
            core.memo[key] = _find_listed(core, is_64bit, parts)
        return core.memo[key]


def _find_listed(core, is_64bit, parts):
    elems = core.info["context_map_elems"]
    d, e = ffi.new("umt_reg_desc *"), ffi.new("umt_reg_desc *")
    out = []
    for reg in range(min(elems, 512)):
        if lib.umt_context_map_reg(core.t, reg, d) < 0 or not _present(d, is_64bit):
            continue
        largest = (d.map64 if is_64bit else d.map32).EffLargest
        if parts or largest == reg or lib.umt_context_map_reg(core.t, largest, e) < 0 \
                or not _present(e, is_64bit):
            out.append(reg)
    return out
