"""Execution records as light Python objects.

A ``Record`` carries the fields every record has (id, thread, type, flags,
offset and size in exec.vtable); everything else is read from the mapping
when asked for, through the library's checked accessors. Records keep the
trace's mapping alive (see ``_handle``).
"""
from ._columns import accesses
from ._constants import Access, ExecFlag, RecType, Reliability
from ._context import Context
from ._core import cstr
from ._errors import check
from ._ffi import ffi, lib
from ._instruction import Instruction, bind, lc_register, phrase, record_operands
from ._tables import Syscall


class Record:
    """One execution record.

    Fields: ``id``, ``thread`` (row of the thread table, as stored),
    ``type`` (a ``RecType``, or the raw number of an undefined type),
    ``flags`` (``ExecFlag`` bits), ``offset`` and ``size`` (its bytes in
    exec.vtable). Per type: ``ins_id``, ``instruction``, ``operands``,
    ``lc`` (instructions); ``context`` (thread-begin, syscall entry/exit,
    context changes); ``syscall_id``, ``syscall`` (syscall records);
    ``exit_code`` (thread-end, app-end); for all: ``accesses()``, ``links``,
    ``data``. An accessor used on a record of another type raises
    ``InvalidError``.
    """

    __slots__ = ("_core", "id", "thread", "type", "flags", "offset", "size", "_rec")

    def __init__(self, core, rid, thread, rtype, flags, offset, size, rec=None):
        self._core = core
        self.id = rid
        self.thread = thread
        self.type = RecType(rtype) if rtype in RecType._value2member_map_ else rtype
        self.flags = ExecFlag(flags)
        self.offset = offset
        self.size = size
        self._rec = rec

    @classmethod
    def get(cls, core, rid):
        """Record @rid of @core's trace (umt_exec_get(): its extent and type checked)."""
        rec = ffi.new("umt_rec *")
        check(lib.umt_exec_get(core.t, rid, rec))
        return cls(core, rec.id, rec.thread_id, rec.type, rec.flags, rec.offset, rec.size, rec)

    def _c(self):
        """The umt_rec of this record, for the C accessors."""
        if self._rec is None:
            rec = ffi.new("umt_rec *")
            check(lib.umt_exec_get(self._core.t, self.id, rec))
            self._rec = rec
        return self._rec

    def __repr__(self):
        name = self.type.name.lower() if isinstance(self.type, RecType) else self.type
        return f"<Record {self.id} thread {self.thread} {name} flags {int(self.flags):#04x}>"

    def __eq__(self, other):
        return isinstance(other, Record) and other._core is self._core and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    @property
    def type_name(self):
        """The type's name ("instruction", "thread-begin"...), None if undefined."""
        return cstr(lib.umt_rec_type_name(int(self.type)))

    @property
    def flag_names(self):
        """Names of the flags set, by the trace's exec.vtable version."""
        return flag_names(self._core.exec_version, int(self.flags))

    @property
    def is_64bit(self):
        """Whether the record ran in a 64-bit code segment (flag 0x01)."""
        return bool(self.flags & ExecFlag.X64)

    @property
    def incomplete(self):
        """Whether a flag 0x10-0x80 says the record was not completely traced."""
        return bool(self.flags & ExecFlag.INCOMPLETE)

    @property
    def reliability(self):
        """What of the record can be believed (``Reliability`` bits, umtrace.h 8b)."""
        return Reliability(lib.umt_exec_reliability(self._core.exec_version, int(self.flags)))

    @property
    def data(self):
        """The record's bytes (execRec header first), a read-only view of the mapping."""
        return self._core.exec_bytes(self.offset, self.size)

    @property
    def links(self):
        """(prev, next): the thread's previous and next record as stored, -1 for none."""
        prev, nxt = ffi.new("int64_t *"), ffi.new("int64_t *")
        check(lib.umt_exec_links(self._core.t, self.id, prev, nxt))
        return prev[0], nxt[0]

    @property
    def ins_id(self):
        """InsID of an instruction record, as stored."""
        out = ffi.new("int64_t *")
        check(lib.umt_rec_ins(self._c(), out, ffi.NULL, ffi.NULL))
        return out[0]

    @property
    def lc(self):
        """The local context bytes of an instruction record (a read-only view)."""
        lc, size = ffi.new("uint8_t **"), ffi.new("uint64_t *")
        check(lib.umt_rec_ins(self._c(), ffi.NULL, lc, size))
        return self._core.exec_bytes(self._core.exec_pointer_offset(lc[0]), size[0])

    @property
    def instruction(self):
        """The instruction row (``Instruction``) an instruction record executed."""
        ins = self.ins_id
        if not 0 <= ins < self._core.info["ins_count"]:
            bind(self._core, self._c())  # raises the library's error naming this record
        return Instruction(self._core, ins)

    @property
    def operands(self):
        """The explicit operands of an instruction record with their values
        (a list of ``Operand``)."""
        return record_operands(self._core, bind(self._core, self._c()))

    def phrase(self, which=0):
        """The memory phrase of MEM0/AGEN (@which 0) or MEM1 (1) of an
        instruction record: a dict of seg/base/index registers and values,
        scale, disp and the effective address ea (umt_ins_exec_phrase())."""
        return phrase(self._core, bind(self._core, self._c()), which)

    def register(self, reg, after=False):
        """Value of register @reg (a name or number) in the record's local
        context, before or @after execution: int for up to 8 bytes, else
        bytes (umt_lc_find_reg(): enclosing registers are looked into)."""
        return lc_register(self._core, bind(self._core, self._c()), reg, after)

    @property
    def context(self):
        """The register context (``Context``) of a record that has one."""
        return Context.of(self._core, self._c())

    @property
    def syscall_id(self):
        """SyscallID of a syscall entry, exit or skipped-exit record (-1 possible on exits)."""
        out = ffi.new("int64_t *")
        check(lib.umt_rec_syscall_id(self._c(), out))
        return out[0]

    @property
    def syscall(self):
        """The syscall record (``Syscall``) of a syscall entry, exit or skipped exit."""
        s = ffi.new("umt_syscall *")
        check(lib.umt_rec_syscall(self._core.t, self._c(), s))
        return Syscall(self._core, s)

    @property
    def exit_code(self):
        """ExitCode of a thread-end or application-end record."""
        out = ffi.new("int32_t *")
        check(lib.umt_rec_exit_code(self._c(), out))
        return out[0]

    def accesses(self, kinds=Access.ALL):
        """The memory accesses of the record (umt_access_iter) whose kind is
        in @kinds, as a ``Table`` (see Trace.accesses() for the fields)."""
        return accesses(self._core, self.id, self.id + 1, kinds, False)


def flag_names(exec_version, flags):
    """The names of the bits set in @flags under exec.vtable @exec_version."""
    names = []
    for bit in range(8):
        if flags & (1 << bit):
            names.append(cstr(lib.umt_exec_flag_name(exec_version, 1 << bit)))
    return names
