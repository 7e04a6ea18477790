"""The compiled extension: cffi's ffi and lib (the C library and the helpers)."""
from ._umtrace import ffi, lib

__all__ = ["ffi", "lib"]
