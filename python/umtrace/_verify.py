"""The full consistency check of a trace (umt_verify(), docs/verify.md)."""
import collections

from ._callbacks import Listener
from ._constants import Check, File, Severity
from ._core import cstr
from ._errors import Status, check
from ._ffi import ffi, lib

#: one problem found by Trace.verify()
Problem = collections.namedtuple("Problem", "status severity check file id offset message")
Problem.__doc__ = """A problem of Trace.verify(): status (a negative UMT_E_* code),
severity (Severity), check (the Check class), file (a File, None for none),
id (record or row, -1 for none), offset (byte offset in that file) and
message ("FILE: record N at offset 0x..: what")."""

#: what Trace.verify() found
VerifyResult = collections.namedtuple("VerifyResult", "ok errors warnings records stopped problems")
VerifyResult.__doc__ = """The result of Trace.verify(): ok (no error found), errors and
warnings (counts), records (execution records checked), stopped (the cap
or the callback ended the check) and problems (the Problem list)."""


def _problem(p):
    return Problem(p.status, Severity(p.severity), Check(p.check),
                   File(p.file) if 0 <= p.file < len(File) else None, p.id, p.offset,
                   cstr(p.message))


def verify(core, checks, max_problems, progress, on_problem):
    """See Trace.verify()."""
    problems = []

    def collect(p):
        problems.append(_problem(p))
        return on_problem(problems[-1]) if on_problem else None

    listener = Listener(progress, collect)
    o = ffi.new("umt_verify_options *")
    lib.umt_verify_options_init(o)
    o.checks = int(checks)
    o.max_problems = max_problems
    o.on_problem = lib.umtpy_on_verify_problem
    o.on_progress = lib.umtpy_on_verify_progress if progress else ffi.NULL
    o.ctx = listener.handle
    res = ffi.new("umt_verify_result *")
    rc = lib.umt_verify(core.t, o, res)
    listener.raise_pending()
    if rc < 0 and rc != Status.CORRUPT:
        check(rc)  # the check itself could not run
    return VerifyResult(res.errors == 0, res.errors, res.warnings, res.records,
                        bool(res.stopped), problems)
