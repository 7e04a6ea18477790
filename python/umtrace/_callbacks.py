"""Callbacks from C into Python (cffi "extern Python"): progress of index
builds and checks, problems found by verify. Each C call gets a handle to a
``Listener``; an exception raised by the user's function is kept and raised
again when the C call returns (C cannot unwind through it)."""
from ._constants import Phase
from ._ffi import ffi


class Listener:
    """What one C call reports to: user callbacks and the first exception."""

    def __init__(self, progress=None, problem=None):
        self.progress, self.problem, self.exc = progress, problem, None
        self.handle = ffi.new_handle(self)

    def call(self, fn, *args):
        if fn is None or self.exc is not None:
            return None
        try:
            return fn(*args)
        except BaseException as e:  # noqa: B902 - kept and raised after the C call
            self.exc = e
            return None

    def raise_pending(self):
        """Raises the exception a callback raised, if any."""
        if self.exc is not None:
            exc, self.exc = self.exc, None
            raise exc


@ffi.def_extern()
def umtpy_on_index_progress(phase, done, total, ctx):
    listener = ffi.from_handle(ctx)
    listener.call(listener.progress, Phase(phase), done, total)


@ffi.def_extern()
def umtpy_on_verify_progress(done, total, ctx):
    listener = ffi.from_handle(ctx)
    listener.call(listener.progress, done, total)


@ffi.def_extern()
def umtpy_on_verify_problem(p, ctx):
    listener = ffi.from_handle(ctx)
    stop = listener.call(listener.problem, p)
    return 1 if stop or listener.exc is not None else 0
