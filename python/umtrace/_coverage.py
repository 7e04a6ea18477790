"""The coverage query family of the index (index.h section 10): which
instruction addresses each module executed, and how often. Bound as
methods of ``Index``; they need an index with the coverage section
(``MissingError`` otherwise)."""
import numpy as np

from ._errors import check, id_arg
from ._ffi import ffi, lib
from ._table import Table
from ._tables import module_name

#: one entry per module row, then one for code outside modules (module_id -1)
COVERAGE = np.dtype([("module_id", "<i8"), ("base", "<u8"), ("addresses", "<u8"),
                     ("executions", "<u8")])
#: one executed instruction address of an entry
COVERAGE_ADDRESS = np.dtype([("address", "<u8"), ("executions", "<u8"), ("size", "<u4")])


def coverage(self, names=True):
    """Coverage per module: one row per module row of the trace (a module
    loaded twice has two, with their bases), in module-table order, then one
    for code outside modules (module_id -1, base 0): addresses (distinct
    instruction addresses executed) and executions (instruction records).
    With @names, ``to_pandas()`` of the result has a "module" column (the
    Windows path; None outside modules): ``coverage().to_pandas()``.

    Returns a ``Table`` (with ``.names``, the module names in row order).
    Raises ``MissingError`` (no coverage section) and the index's errors.
    """
    core, handle = self._core, self._live()
    n = lib.umt_coverage_count(handle.ptr)
    m, rows = ffi.new("umt_coverage_module *"), []
    for entry in range(n):
        check(lib.umt_coverage_get(handle.ptr, entry, m))
        rows.append((m.module_id, m.base, m.addresses, m.executions))
    if n == 0:  # the library's message for an index without the section
        check(lib.umt_coverage_get(handle.ptr, 0, m))
    table = _CoverageTable(np.array(rows, COVERAGE))
    table.names = [module_name(core, int(r[0])) if r[0] >= 0 else None for r in rows] \
        if names else None
    return table


def coverage_addresses(self, entry):
    """The executed instruction addresses of coverage entry @entry (a module
    row, or the last entry for code outside modules), in increasing order:
    a ``Table`` of address, executions, size (the instruction's length)."""
    handle = self._live()
    m = ffi.new("umt_coverage_module *")
    entry = id_arg(entry, "entry")
    check(lib.umt_coverage_get(handle.ptr, entry, m))
    out = np.empty(m.addresses, COVERAGE_ADDRESS)
    a = ffi.new("umt_coverage_address *")
    for k in range(m.addresses):
        check(lib.umt_coverage_address_get(handle.ptr, entry, k, a))
        out[k] = (a.address, a.executions, a.size)
    return Table(out)


class _CoverageTable(Table):
    """coverage()'s table: to_pandas() adds the module names."""

    names = None

    def to_pandas(self):
        df = super().to_pandas()
        if self.names is not None:
            df.insert(0, "module", self.names)
        return df
