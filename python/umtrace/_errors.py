"""The exceptions of umtrace: one class per status code of the library.

Every failure of the library becomes an exception of the ``Error`` hierarchy
carrying the status code (``.code``, a negative ``UMT_E_*`` value, also as
``.status``, a ``Status`` member) and the library's message (``.message``,
``umt_errmsg()``), which for a problem in a file names the file, the record
or row and the byte offset::

    try:
        trace[1234].operands
    except umtrace.BoundsError as e:
        print(e.code, e.message)   # -8 exec.vtable: record 1234 at offset 0x5a10: ...

Content errors (a corrupt or truncated file) derive from ``ContentError``.
Misuse derives from the matching builtin too: ``InvalidError`` is a
``ValueError``, ``RangeError`` an ``IndexError``, ``NotFoundError`` a
``LookupError``, so that ``trace[10**12]`` raises what ``list`` would.
"""
import enum
import operator

from ._ffi import ffi, lib


class Status(enum.IntEnum):
    """The library's status codes (enum umt_status in umtrace.h)."""
    OK = 0
    INVAL = -1
    RANGE = -2
    NOMEM = -3
    IO = -4
    MISSING = -5
    VERSION = -6
    TRUNCATED = -7
    BOUNDS = -8
    TYPE = -9
    CORRUPT = -10
    XML = -11
    NOT_FOUND = -12
    NO_VALUE = -13
    INCOMPLETE = -14
    STALE = -15


class Error(Exception):
    """A failure of libumtrace: ``.code`` (negative status), ``.status``
    (a ``Status``, or None for a code this binding does not know) and
    ``.message`` (the library's message for it)."""

    code = None

    def __init__(self, message, code=None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message

    @property
    def status(self):
        """The code as a ``Status`` member (None when unknown)."""
        try:
            return Status(self.code)
        except ValueError:
            return None


class InvalidError(Error, ValueError):
    """UMT_E_INVAL: a bad argument (wrong record type for an accessor, bad flag)."""
    code = Status.INVAL


class RangeError(Error, IndexError):
    """UMT_E_RANGE: an ID or index outside its table."""
    code = Status.RANGE


class NoMemoryError(Error, MemoryError):
    """UMT_E_NOMEM: an allocation of the library failed."""
    code = Status.NOMEM


class IoError(Error):
    """UMT_E_IO: a system call failed (open, mmap, write...)."""
    code = Status.IO


class MissingError(Error):
    """UMT_E_MISSING: a required file of the trace (or the index) is missing."""
    code = Status.MISSING


class ContentError(Error):
    """A file's content is bad: the base of the next five classes."""


class VersionError(ContentError):
    """UMT_E_VERSION: an unsupported version number in a header."""
    code = Status.VERSION


class TruncatedError(ContentError):
    """UMT_E_TRUNCATED: a file or record shorter than its header or type requires."""
    code = Status.TRUNCATED


class BoundsError(ContentError):
    """UMT_E_BOUNDS: an offset, count or size outside its file or record."""
    code = Status.BOUNDS


class RecordTypeError(ContentError):
    """UMT_E_TYPE: an execution record of an undefined type."""
    code = Status.TYPE


class CorruptError(ContentError):
    """UMT_E_CORRUPT: other inconsistent content (order, links, values)."""
    code = Status.CORRUPT


class XmlError(Error):
    """UMT_E_XML: trace.xml is malformed or too large."""
    code = Status.XML


class NotFoundError(Error, LookupError):
    """UMT_E_NOT_FOUND: a lookup found nothing."""
    code = Status.NOT_FOUND


class NoValueError(Error):
    """UMT_E_NO_VALUE: the item exists but has no such value."""
    code = Status.NO_VALUE


class IncompleteError(Error):
    """UMT_E_INCOMPLETE: a writer (of a trace or an index) did not finish."""
    code = Status.INCOMPLETE


class StaleError(Error):
    """UMT_E_STALE: an index built from another trace, or before the trace changed."""
    code = Status.STALE


class ClosedError(InvalidError):
    """The Trace or Index was closed: it cannot start new work (objects taken
    from it before stay valid)."""


_BY_CODE = {c.code: c for c in (InvalidError, RangeError, NoMemoryError, IoError, MissingError,
                                VersionError, TruncatedError, BoundsError, RecordTypeError,
                                CorruptError, XmlError, NotFoundError, NoValueError,
                                IncompleteError, StaleError)}


def error(code, message=None):
    """The exception for status @code with @message (default: the calling
    thread's umt_errmsg(), else umt_strerror())."""
    if message is None:
        message = ffi.string(lib.umt_errmsg()).decode("utf-8", "replace")
        if not message:
            message = ffi.string(lib.umt_strerror(code)).decode()
    return _BY_CODE.get(code, Error)(message, code)


def id_arg(value, what):
    """@value as an ID or index for C (RangeError when negative or too large)."""
    v = operator.index(value)
    if not 0 <= v < 1 << 64:
        raise RangeError(f"{what} {v} is out of range")
    return v


def u64_arg(value, what):
    """@value as an unsigned 64-bit quantity (an address, a size) for C."""
    v = operator.index(value)
    if not 0 <= v < 1 << 64:
        raise InvalidError(f"{what} {v:#x} is not an unsigned 64-bit value")
    return v


def check(rc):
    """Returns @rc when it is not negative, else raises its exception."""
    if rc < 0:
        raise error(rc)
    return rc
