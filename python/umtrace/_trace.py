"""Opening a trace: the ``Trace`` object and ``open()``."""
import operator
import os
import warnings

import numpy as np

from . import _columns, _index, _semantics, _tables, _verify
from ._constants import Access, Check
from ._core import Core, cstr
from ._errors import ClosedError, Error, InvalidError, check, id_arg, u64_arg
from ._ffi import ffi, lib
from ._handle import Handle
from ._meta import Metadata
from ._names import Names
from ._record import Record, flag_names
from ._table import Table

_ADVICE = {"normal": lib.UMT_ADVISE_NORMAL, "sequential": lib.UMT_ADVISE_SEQUENTIAL,
           "random": lib.UMT_ADVISE_RANDOM, "willneed": lib.UMT_ADVISE_WILLNEED,
           "dontneed": lib.UMT_ADVISE_DONTNEED}


def open(path, salvage=False, names=None, hint=None):  # noqa: A001 - the package's verb
    """Opens the trace in directory @path and returns a ``Trace``.

    Opening maps the files read-only and checks every header in O(1)
    (umt_trace_open()); nothing is read per record. @names: a directory of
    the XED and syscall headers shipped with the format documentation (or a
    ``Names``), for mnemonic, form, category and syscall names. @hint:
    "sequential" (scans) or "random" (lookups by ID on cold data).
    @salvage: open a damaged trace (crashed tracer, full disk, interrupted
    copy) for what it still holds (UMT_OPEN_SALVAGE): the records up to the
    last one wholly inside the files, the tables that can be read; what was
    lost raises its error when asked for, and ``Trace.salvaged`` lists it.

    Raises ``MissingError`` (a required file is missing: not a trace),
    ``IncompleteError`` (its writer did not finish), ``VersionError``,
    ``TruncatedError``, ``BoundsError`` (a header disagrees with its file),
    ``IoError``, ``NotFoundError``/``CorruptError`` for a bad @names directory.
    Name tables older than the trace's XED version, or without the trace's
    syscall table, give a ``UserWarning`` (umt_names_check()) and are used.
    """
    flags = {None: 0, "sequential": lib.UMT_OPEN_SEQUENTIAL, "random": lib.UMT_OPEN_RANDOM}
    if hint not in flags:
        raise InvalidError(f"hint {hint!r}: None, 'sequential' or 'random'")
    flags = flags[hint]
    if salvage:
        flags |= lib.UMT_OPEN_SALVAGE
    if names is not None and not isinstance(names, Names):
        names = Names(names)
    path = os.fspath(path)
    t = ffi.new("umt_trace **")
    check(lib.umt_trace_open(os.fsencode(path), flags, t))
    trace = Trace(Core(Handle(t[0], lib.umt_trace_close, "trace"), path, names))
    if names is not None:
        try:
            names.check(trace)
        except Error as e:  # the names are used anyway, as umtdump does
            warnings.warn(f"{names.directory}: {e.message}", UserWarning, stacklevel=2)
    return trace


class Trace:
    """An open trace (``umtrace.open()``); a context manager.

    Records: ``len(trace)``, ``trace[i]`` and ``trace[a:b]`` (``Record``
    objects), iteration, ``thread(T)`` (a thread's chain), ``columns()`` and
    ``accesses()`` (numpy arrays filled in C). Tables as zero-copy numpy
    views: ``instructions``, ``threads``, ``modules``, ``address_ranges``,
    ``syscall_offsets``, ``exec_offsets``, ``prev_next``, ``context_map``.
    Rows needing more than a view: ``ins(i)``, ``syscall(i)``,
    ``module_name(i)``. Facts: ``info``, ``counts``, ``metadata``,
    ``registers``, ``reg_name()``, ``names``. Checks: ``verify()``.
    Index: ``index()``, ``build_index()``, ``build_index_part()``, ``merge_index_parts()``.

    Lifetimes: ``close()`` (or leaving the ``with`` block) ends this object's
    use; views, records and indexes taken from it stay valid and keep the
    files mapped until the last of them is gone.
    """

    def __init__(self, core):
        self._core_ = core

    # ---- lifetime ----------------------------------------------------------
    @property
    def _core(self):
        if self._core_ is None:
            raise ClosedError("the trace is closed")
        return self._core_

    def close(self):
        """Closes the trace. Objects taken from it before stay valid; the
        files are unmapped when the last of them is gone."""
        self._core_ = None

    @property
    def closed(self):
        """Whether close() was called."""
        return self._core_ is None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        if self._core_ is None:
            return "<Trace closed>"
        return f"<Trace {self.path!r}: {len(self)} records>"

    # ---- facts -------------------------------------------------------------
    @property
    def path(self):
        """The trace directory."""
        return self._core.path

    @property
    def info(self):
        """Header values (umt_trace_info): counts (readable, and declared:
        they differ after a salvage open), format versions, row sizes, dump
        size, has_trace_xml, salvaged, file_status and file_problem (per
        File)."""
        return dict(self._core.info)

    @property
    def salvaged(self):
        """What a salvage open (open(salvage=True)) reduced or lost:
        {file name: ("reduced" | "unavailable", why)}; {} for an intact trace.
        ``info`` holds the counts readable and declared."""
        info = self._core.info
        status = {lib.UMT_FILE_REDUCED: "reduced", lib.UMT_FILE_UNAVAILABLE: "unavailable"}
        return {self.file_name(f): (status.get(s, s), info["file_problem"][f])
                for f, s in enumerate(info["file_status"]) if s != lib.UMT_FILE_INTACT}

    @property
    def counts(self):
        """Records and rows of every table."""
        return _tables.table_counts(self._core)

    @property
    def metadata(self):
        """trace.xml (``Metadata``); raises ``XmlError`` when malformed."""
        return Metadata(self._core)

    @property
    def names(self):
        """The ``Names`` given to open(names=...), or None."""
        return self._core.names

    @property
    def registers(self):
        """Every register of the context map (list of dicts: reg, name, placement)."""
        return _tables.registers(self._core)

    # ---- instruction semantics (Zydis; _semantics.py) ----
    semantics = _semantics.semantics
    semantics_table = _semantics.semantics_table

    def reg_name(self, reg):
        """The name of register number @reg in this trace (always one)."""
        return self._core.reg_name(reg)

    def reg_by_name(self, name):
        """The register number named @name (case-insensitive); ``NotFoundError``."""
        core = self._core  # held across the call: close() in another thread cannot free it
        return check(lib.umt_reg_by_name(core.t, name.encode()))

    def flag_names(self, flags):
        """Names of exec flag bits @flags under this trace's exec.vtable version."""
        return flag_names(self._core.exec_version, int(flags))

    def changed(self):
        """Whether a file of the trace changed on disk since it was opened."""
        core = self._core
        return bool(check(lib.umt_trace_changed(core.t)))

    def file_name(self, file):
        """The file name of a ``File`` ("exec.vtable")."""
        return cstr(lib.umt_file_name(int(file)))

    def file_bytes(self, file):
        """The bytes of one file of the trace (a ``File``) as a read-only
        uint8 view of the mapping; empty for a missing trace.xml."""
        return self._core.file_view(file)

    def value(self, access):
        """The value bytes of an access row (of accesses() or Index.history())."""
        return self._core.exec_bytes(access["data_offset"], access["size"]).tobytes()

    # ---- records -----------------------------------------------------------
    def __len__(self):
        return self._core.info["exec_count"]

    def __getitem__(self, key):
        """trace[i] is record i (``RangeError``, an IndexError, outside);
        trace[a:b] a list of records (step allowed)."""
        if isinstance(key, slice):
            return [Record.get(self._core, i) for i in range(*key.indices(len(self)))]
        i = operator.index(key)
        if i < 0:
            i += len(self)
        return Record.get(self._core, id_arg(i, "record"))

    def __iter__(self):
        return self.records()

    def records(self, start=0, stop=None):
        """The records [@start, @stop) in record order, as ``Record`` objects
        (fetched in chunks in C; a bad record raises after those before it).
        Per-record Python is slow by nature: use columns() for whole scans."""
        core = self._core
        start, stop = _columns.record_range(core.info["exec_count"], start, stop)
        for row in _columns.iter_rows(core, start, stop):
            yield Record(core, *row)

    def thread(self, thread):
        """The records of thread-table row @thread along its chain (a ``Chain``)."""
        return _columns.Chain(self._core, thread=id_arg(thread, "thread"))

    def chain(self, record_id, backward=False):
        """The chain of record @record_id's thread from that record on,
        forward or @backward (a ``Chain``)."""
        return _columns.Chain(self._core, start=id_arg(record_id, "record"), backward=backward)

    def columns(self, start=0, stop=None, fields=None, skip_bad=False, out=None):
        """Fields of the records [@start, @stop) as numpy arrays, filled in C
        (one pass of the block iterator, GIL released): a ``Columns`` dict,
        row i for record start + i. @fields: names from ``umtrace.FIELDS``
        (default ``DEFAULT_FIELDS``): id, thread, type, flags, offset, size,
        ins_id, address, mnemonic, category, form, module (these four from
        the instruction row; -1 without one), syscall_id, exit_code, ok.
        A bad record raises its error (``.record_id`` names it), or with
        @skip_bad gets ok False, type 255, thread -1.
        Memory: rows times the fields' sizes; for large traces use scan(),
        or give @out (the Columns of an earlier call: its arrays are filled
        again, their first stop - start rows, so no memory is allocated).
        Raises ``RangeError`` (start past the end), ``InvalidError`` (an
        unknown field, an unfit @out) and the record's content error."""
        return _columns.columns(self._core, start, stop, fields, skip_bad, out)

    def scan(self, start=0, stop=None, fields=None, chunk=1 << 20, skip_bad=False):
        """Yields (first record ID, Columns) for the records [@start, @stop)
        in chunks of @chunk records: the way to scan a large trace at C
        speed in bounded memory. The arrays are reused: each chunk
        overwrites the previous one's (copy what you keep). Arguments and
        errors as columns()."""
        return _columns.scan(self._core, start, stop, fields, chunk, skip_bad)

    def row_counts(self, start=0, stop=None, out=None):
        """How many times each instruction row ran in the records [@start,
        @stop): (counts, instructions, without_row), counts an int64 array
        by InsID (one entry per row of ``instructions``), instructions the
        instruction records, without_row those whose InsID has no row. One
        pass in C (GIL released), a few ns per record: coverage and the
        instruction mix follow from it. @out: an int64 array of one entry
        per row to add to (not cleared). A bad record raises its error
        (``.record_id``)."""
        return _columns.row_counts(self._core, start, stop, out)

    def accesses(self, start=0, stop=None, kinds=Access.ALL, skip_bad=False):
        """The memory accesses of the records [@start, @stop) whose kind is
        in @kinds (``Access`` bits), in record order, as a ``Table`` with
        the fields of Index.history(): id, address, size, data_offset,
        thread, locator, reg_name, kind, phase, trust, addr_width.
        ``trace.value(row)`` gives an access's bytes. A record whose
        accesses cannot be read raises (``.record_id``) unless @skip_bad."""
        return _columns.accesses(self._core, start, stop, kinds, skip_bad)

    def split(self, n):
        """@n + 1 bounds cutting the records into @n ranges of about equal
        bytes (umt_exec_split()), for threads or processes."""
        n = id_arg(n, "ranges")
        bounds = np.empty(n + 1, np.uint64)
        core = self._core
        check(lib.umt_exec_split(core.t, n,
                                 ffi.from_buffer("uint64_t[]", bounds, require_writable=True)))
        return bounds

    def advise(self, start, stop, advice):
        """Tells the kernel how records [@start, @stop) will be read:
        "normal", "sequential", "random", "willneed", "dontneed"."""
        core = self._core
        check(lib.umt_exec_advise(core.t, id_arg(start, "record"), id_arg(stop, "record"),
                                   _ADVICE[advice]))

    # ---- tables: zero-copy views ---------------------------------------------
    @property
    def instructions(self):
        """ins.itable rows (insRec fields, itemsize RowSize), a read-only view."""
        return Table(_tables.instructions(self._core))

    @property
    def threads(self):
        """thread.itable rows (ID, WinTID, TIBAddr, FirstEID, LastEID, RecCount)."""
        return Table(_tables.threads(self._core))

    @property
    def modules(self):
        """module.itable rows (LoadEID, UnloadEID, StartAddr, EndAddr, name FPs;
        LastFileWriteTime and VersionInfo with 64-byte rows)."""
        return Table(_tables.modules(self._core))

    @property
    def address_ranges(self):
        """address_space.itable rows (First, Last)."""
        return Table(_tables.address_ranges(self._core))

    @property
    def syscall_offsets(self):
        """syscall.offsets: (Offset, Size) of each syscall record."""
        return Table(_tables.syscall_offsets(self._core))

    @property
    def exec_offsets(self):
        """exec.offsets: RecordCount + 1 offsets of the records in exec.vtable."""
        return _tables.exec_offsets(self._core)

    @property
    def prev_next(self):
        """exec.prev_next.column: (Prev, Next) of each record (-1: none)."""
        return Table(_tables.prev_next(self._core))

    @property
    def context_map(self):
        """The context map (one numpy record: DumpSize, ElemCount, CommonName,
        StrName, RegMap32, RegMap64)."""
        return _tables.context_map(self._core)

    # ---- rows that need more than a view -------------------------------------
    def ins(self, ins_id):
        """Instruction row @ins_id (``Instruction``: disassembly, code, decoded)."""
        from ._instruction import Instruction
        return Instruction(self._core, id_arg(ins_id, "instruction"))

    def syscall(self, syscall_id):
        """Syscall record @syscall_id (``Syscall``: fields, args, extras)."""
        return _tables.Syscall.get(self._core, id_arg(syscall_id, "syscall record"))

    def module_name(self, module_id, device=False):
        """The Windows (or @device) name of module @module_id, as UTF-8."""
        return _tables.module_name(self._core, id_arg(module_id, "module"), device)

    def find_module(self, address, record_id):
        """The module holding @address at record @record_id, or None."""
        return _tables.find_module(self._core, u64_arg(address, "address"),
                                   id_arg(record_id, "record"))

    def find_address_range(self, address):
        """The row of the used address range holding @address, or None."""
        return _tables.find_address_range(self._core, u64_arg(address, "address"))

    # ---- checks and the index -------------------------------------------------
    def verify(self, checks=Check.ALL, max_problems=1000, progress=None, on_problem=None):
        """The full O(n) consistency check (umt_verify(), docs/verify.md):
        a ``VerifyResult`` (ok, errors, warnings, records, stopped, problems).
        @progress(done, total) is called along the way; @on_problem(problem)
        for each problem (a true return stops the check)."""
        return _verify.verify(self._core, checks, max_problems, progress, on_problem)

    def default_index_dir(self):
        """Where the index of this trace goes when no directory is given."""
        return _index.default_dir(self.path)

    def index(self, dir=None):  # noqa: A002 - the name the docs use
        """Opens the trace's index in @dir (default: default_index_dir()).
        Raises ``MissingError`` (no index: build_index() makes one),
        ``StaleError`` (built from another trace, or the trace changed),
        ``IncompleteError``, content errors for a damaged index."""
        return _index.open_index(self._core, dir)

    def build_index(self, dir=None, threads=0, memory=None, progress=None):  # noqa: A002
        """Builds the trace's index into @dir (default: default_index_dir())
        and opens it (an ``Index`` whose ``build_stats`` says what was done).
        @threads: worker threads (0: every processor); @memory: the build's
        memory budget in bytes (default 256 MiB); @progress(phase, done,
        total): called from this thread (``Phase``: scan, merge, write).
        The build is committed atomically; the GIL is released while it runs
        (the progress callback takes it). An exception raised by @progress
        is raised once the build has finished."""
        return _index.build_index(self._core, dir, threads, memory, progress)

    def build_index_part(self, part, parts, dir=None, threads=0, memory=None,  # noqa: A002
                         progress=None):
        """Builds part @part of @parts of the trace's index into @dir
        (default: default_index_dir()), for a build shared by processes or
        machines that see @dir at the same path (umt_index_build_part()):
        the sorted postings of the part's share of the record ranges,
        committed atomically as DIR/parts/K-of-N/part; building a part
        again replaces it. Returns the part's figures (records, accesses,
        postings, index_bytes: the part file's size, ...). @threads,
        @memory, @progress as build_index(). Then merge_index_parts()."""
        return _index.build_index_part(self._core, dir, part, parts, threads, memory, progress)

    def merge_index_parts(self, parts, dir=None, threads=0, memory=None,  # noqa: A002
                          progress=None):
        """Makes the index in @dir from the @parts parts build_index_part()
        wrote there (each checked as untrusted data), commits it atomically,
        removes the parts and opens the index (umt_index_build_merge(): the
        same bytes as build_index()). Raises ``MissingError`` (a part was
        not built: the message names its file), ``IncompleteError``,
        ``StaleError`` (a part of another trace), ``CorruptError``."""
        return _index.merge_index_parts(self._core, dir, parts, threads, memory, progress)
