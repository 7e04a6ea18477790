"""umtrace: UMTracer execution traces for analysts, at C speed where it matters.

The Python binding of libumtrace (the whole C library is compiled into the
extension). A trace is a directory; ``umtrace.open()`` maps it and checks
its headers in constant time::

    import umtrace
    with umtrace.open("trace-dir") as trace:
        print(len(trace), trace.counts)
        r = trace[1234]                      # a Record: fields, operands, accesses, context
        cols = trace.columns(0, 10**6, fields=("thread", "type", "mnemonic"))
        rows = trace.instructions            # zero-copy numpy view of ins.itable
        ix = trace.index()                   # or trace.build_index(progress=print)
        writes = ix.history(0x7ffe0000, 8, kinds=umtrace.Access.WRITE)

Where to start:
  open(), Trace                the trace: facts, records, tables, checks, index
  Record, Instruction, Operand, Context, Syscall
                               one record or row, read through checked accessors
  Trace.columns(), Trace.accesses(), Chain
                               many records as numpy arrays, filled in C with
                               the GIL released (threads run in parallel)
  Trace.instructions, .threads, .modules, .address_ranges, .syscall_offsets,
  .exec_offsets, .prev_next, .context_map
                               the fixed-size tables as read-only numpy
                               structured arrays over the mapping, made in O(1)
  Index: history(), mem()      memory queries from the trace's index
  Table, Columns               results; to_pandas() when pandas is installed
  Error and its subclasses     every failure, with .code and the library's
                               message (file, record, offset)
  Access, RecType, ExecFlag... the format's constants as enums

Lifetimes: everything that points into the trace's files (views, records,
indexes) keeps them mapped; Trace.close() only ends the Trace object's own
use, and the files are unmapped when the last such object is gone.

docs/python.md in the source tree is the guide: an analysis session, the
speed of each way to read, and how to build with another interpreter.
"""
from ._calls import CALL_END, CALL_TARGET
from ._columns import DEFAULT_FIELDS, FIELDS, Chain
from ._constants import (NO_RECORD, SLOT_NA, Access, Check, Convention, ExecFlag, File,
                         InsType, OperandKind, Phase, RecType, Reliability, Severity,
                         SlotGroup, Trust)
from ._context import Context, MemBlock
from ._errors import (BoundsError, ClosedError, ContentError, CorruptError, Error,
                      IncompleteError, InvalidError, IoError, MissingError, NoMemoryError,
                      NotFoundError, NoValueError, RangeError, RecordTypeError, StaleError,
                      Status, TruncatedError, VersionError, XmlError)
from ._ffi import ffi as _ffi, lib as _lib
from ._index import Index
from ._instruction import Decoded, Instruction, Operand
from ._meta import Metadata
from ._names import Names
from ._record import Record
from ._registers import ORIGIN_KIND, ORIGIN_ROLE, Register
from ._semantics import sem_category_name, zydis_mnemonic_name
from ._table import Columns, Table
from ._tables import Syscall
from ._trace import Trace, open
from ._verify import Problem, VerifyResult
from . import _dtypes as dtypes

#: the version of libumtrace compiled into this package ("0.1.0")
__version__ = _ffi.string(_lib.umt_version()).decode()

__all__ = [
    "open", "Trace", "Record", "Instruction", "Decoded", "Operand", "Context", "MemBlock",
    "Syscall", "Chain", "Columns", "Table", "Index", "Names", "Metadata", "Problem",
    "Register", "ORIGIN_KIND", "ORIGIN_ROLE", "zydis_mnemonic_name", "sem_category_name",
    "CALL_END", "CALL_TARGET",
    "VerifyResult", "FIELDS", "DEFAULT_FIELDS", "dtypes",
    "Access", "Check", "Convention", "ExecFlag", "File", "InsType", "OperandKind", "Phase",
    "RecType", "Reliability", "Severity", "SlotGroup", "Trust", "NO_RECORD", "SLOT_NA",
    "Error", "Status", "InvalidError", "RangeError", "NoMemoryError", "IoError",
    "MissingError", "ContentError", "VersionError", "TruncatedError", "BoundsError",
    "RecordTypeError", "CorruptError", "XmlError", "NotFoundError", "NoValueError",
    "IncompleteError", "StaleError", "ClosedError",
]
