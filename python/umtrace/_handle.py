"""Lifetimes: who keeps a C handle, and so the trace's mapping, alive.

A ``Handle`` owns one C handle (a umt_trace, umt_index, umt_names...) and
releases it when the last Python object referring to it is gone: never
earlier, so no object can point into a mapping that was unmapped. Closing
a Trace or an Index only drops *its* reference (and refuses new work);
numpy views, records, index results and an Index opened from the trace
each hold the trace's Handle, so they stay valid, and the files are
unmapped when the last of them goes. That is the deferred close of
docs/python.md ("Lifetimes").
"""
import weakref

import numpy as np

# Every live handle, so that tests can see that closing released the C side.
_LIVE = weakref.WeakSet()


class Handle:
    """One C handle and its release function, with the handles it needs
    (an index needs its trace): those are released after it."""

    __slots__ = ("ptr", "kind", "_release", "_needs", "__weakref__")

    def __init__(self, ptr, release, kind, needs=()):
        self.ptr = ptr
        self.kind = kind
        self._release = release
        self._needs = tuple(needs)
        _LIVE.add(self)

    def __del__(self):
        ptr, self.ptr = self.ptr, None
        if ptr is not None:
            self._release(ptr)
        self._needs = ()


def live_handles(kind=None):
    """The number of C handles (of @kind: "trace", "index"...) not yet released."""
    return sum(1 for h in list(_LIVE) if h.ptr is not None and (kind is None or h.kind == kind))


class _Mapped:
    """The numpy array interface of bytes in a mapping, holding its owner."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner, address, dtype, count):
        self.owner = owner
        self.__array_interface__ = {
            "version": 3,
            "shape": (count,),
            # structured dtypes travel as raw items and are viewed after
            "typestr": dtype.str if dtype.names is None else "|V%d" % dtype.itemsize,
            "data": (address, True),  # read-only
        }


def mapped_array(owner, address, dtype, count):
    """A read-only numpy array of @count items of @dtype at @address (an
    int, or a cffi pointer) in a mapping that @owner (a Handle or an object
    holding one) keeps alive. O(1): nothing is copied or read."""
    dtype = np.dtype(dtype)
    if not isinstance(address, int):
        address = int(ffi_address(address))
    if count == 0 or address == 0:
        a = np.empty(0, dtype)
        a.flags.writeable = False
        return a
    a = np.asarray(_Mapped(owner, address, dtype, count))
    if dtype.names is not None:
        a = a.view(dtype)
    return a


def ffi_address(ptr):
    """The address held by a cffi pointer, as an int."""
    from ._ffi import ffi
    return int(ffi.cast("uintptr_t", ptr))
