"""trace.xml: its leaf elements and the essentials read from them."""
from ._core import cstr, struct_dict
from ._errors import check
from ._ffi import ffi, lib

_LAYOUTS = {lib.UMT_META_NONE: "none", lib.UMT_META_ROOTLESS: "rootless",
            lib.UMT_META_2015: "2015"}


class Metadata:
    """The parsed trace.xml (parsed once per trace, on first use; a trace
    without one has layout "none" and no leaves). ``layout``, ``leaves``
    (every leaf element as (path, text), document order), ``as_dict()``,
    ``get(path)``, ``info`` (the essentials: XED version, bitness, OS...) and
    ``check()`` against the binary headers. A malformed trace.xml raises
    ``XmlError`` (the binary tables stay readable)."""

    def __init__(self, core):
        m = ffi.new("umt_meta **")
        check(lib.umt_trace_meta(core.t, m))
        self._core, self._m = core, m[0]

    @property
    def layout(self):
        """"2015" (one TraceMetaData root), "rootless" (pre-2015) or "none"."""
        return _LAYOUTS[check(lib.umt_meta_layout(self._m))]

    @property
    def leaves(self):
        """Every leaf element as (path from the top of the document, text)."""
        path, text = ffi.new("char **"), ffi.new("char **")
        out = []
        for i in range(lib.umt_meta_leaf_count(self._m)):
            check(lib.umt_meta_leaf(self._m, i, path, text))
            out.append((cstr(path[0]), cstr(text[0])))
        return out

    def as_dict(self):
        """{path: text} of the leaves; a path seen again is "path[N]" for its
        N-th occurrence (N >= 2), as in ``umtdump --json xml``."""
        seen, out = {}, {}
        for path, text in self.leaves:
            seen[path] = seen.get(path, 0) + 1
            out[path if seen[path] == 1 else f"{path}[{seen[path]}]"] = text
        return out

    def get(self, path, default=None):
        """Text of the first leaf at @path ("Xed/Version"), case-insensitive,
        in either layout; @default when absent."""
        v = cstr(lib.umt_meta_get(self._m, path.encode()))
        return default if v is None else v

    @property
    def info(self):
        """The essentials (umt_meta_info): strings None and numbers -1 when absent."""
        out = ffi.new("umt_meta_info *")
        check(lib.umt_meta_get_info(self._m, out))
        d = struct_dict(out)
        d["layout"] = _LAYOUTS.get(d["layout"], d["layout"])
        return d

    def check(self):
        """Cross-checks trace.xml against the binary headers (umt_trace_meta_check());
        raises ``CorruptError`` naming both files on a disagreement."""
        check(lib.umt_trace_meta_check(self._core.t))
