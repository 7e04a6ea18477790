"""Names of numeric IDs from the XED and syscall headers shipped with the
format documentation (umt_names_load_dir()): mnemonics, forms, categories,
syscall unified IDs. Registers are always named by the trace itself
(Trace.reg_name()), without these."""
from ._core import cstr
from ._errors import check
from ._ffi import ffi, lib
from ._handle import Handle

_TABLES = {"reg": lib.UMT_NAMES_REG, "mnemonic": lib.UMT_NAMES_ICLASS,
           "form": lib.UMT_NAMES_IFORM, "category": lib.UMT_NAMES_CATEGORY,
           "syscall0": lib.UMT_NAMES_SYSCALL0, "syscall1": lib.UMT_NAMES_SYSCALL1}


class Names:
    """The name tables of a directory of XED and syscall headers.

    ``Names(dir)`` loads them (``NotFoundError`` when the directory holds
    none, ``CorruptError`` naming the file and line of a header that does
    not parse). ``mnemonic(v)``, ``form(v)``, ``category(v)`` and
    ``syscall(ids_version, v)`` give names or None; ``table(name)`` gives a
    whole table as {value: name} (for pandas ``map``)."""

    def __init__(self, directory):
        n = ffi.new("umt_names **")
        check(lib.umt_names_load_dir(str(directory).encode(), n))
        self._h = Handle(n[0], lib.umt_names_free, "names")
        self.directory = str(directory)

    def __repr__(self):
        return f"<Names from {self.directory!r}, XED {self.xed_date}>"

    @property
    def xed_date(self):
        """The XED version of the tables (20150121), or -1 when unknown."""
        return lib.umt_names_xed_date(self._h.ptr)

    def mnemonic(self, value):
        """The XED mnemonic (iclass) name of @value ("MOV"), or None."""
        return cstr(lib.umt_names_mnemonic(self._h.ptr, int(value)))

    def form(self, value):
        """The XED form (iform) name of @value ("MOV_GPRv_MEMv"), or None."""
        return cstr(lib.umt_names_form(self._h.ptr, int(value)))

    def category(self, value):
        """The XED category name of @value ("DATAXFER"), or None."""
        return cstr(lib.umt_names_category(self._h.ptr, int(value)))

    def syscall(self, ids_version, value):
        """The name of syscall unified ID @value in table version @ids_version, or None."""
        return cstr(lib.umt_names_syscall(self._h.ptr, int(ids_version), int(value)))

    def table(self, name):
        """Table @name ("mnemonic", "form", "category", "reg", "syscall0",
        "syscall1") as {value: name}, each value named as ``mnemonic()``
        names it (umt_enum_name()); {} when the table was not loaded."""
        e = lib.umt_names_table(self._h.ptr, _TABLES[name])
        if e == ffi.NULL:
            return {}
        v = ffi.new("int64_t *")
        out = {}
        for i in range(lib.umt_enum_count(e)):
            check(lib.umt_enum_entry(e, i, ffi.NULL, v))
            out.setdefault(v[0], cstr(lib.umt_enum_name(e, v[0])))
        return out

    def check(self, trace):
        """Checks the tables against @trace (umt_names_check()): raises
        ``VersionError`` when the trace's XED is newer than the tables,
        ``NotFoundError`` when its syscall table version was not loaded."""
        check(lib.umt_names_check(self._h.ptr, trace._core.t))
