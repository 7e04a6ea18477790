"""The cffi builder of umtrace._umtrace (API mode).

The extension is self-contained: it compiles the library's own C sources
(the UMT_SOURCES list of the top-level CMakeLists.txt, read from there so
that the two builds cannot drift) together with the helpers in ext/, and
links libxml2 and Zydis. So `pip install ./python` needs no installed libumtrace, and
the inline fast paths of umtrace.h compile into the helpers.

Environment:
  UMTRACE_SOURCE_DIR  the libumtrace source tree (default: the parent of this
                      directory)
  UMTRACE_SANITIZE=1  build with -fsanitize=address,undefined (run Python with
                      LD_PRELOAD of libasan then; see docs/python.md)
"""
import glob
import os
import re
import shlex
import subprocess

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("UMTRACE_SOURCE_DIR") or os.path.join(HERE, ".."))


def library_sources():
    """The library's C files, as CMakeLists.txt lists them in UMT_SOURCES."""
    text = open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"set\(UMT_SOURCES\s+(.*?)\)", text, re.S)
    if not m:
        raise RuntimeError(f"{ROOT}/CMakeLists.txt: no set(UMT_SOURCES ...) list")
    # once each, as CMake takes them (a file listed twice would be linked twice)
    return [os.path.join(ROOT, s) for s in dict.fromkeys(m.group(1).split())]


def pkg_config(*args):
    """pkg-config's words for libxml-2.0, or None without pkg-config."""
    try:
        out = subprocess.run(["pkg-config", *args, "libxml-2.0"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return shlex.split(out)


def declarations():
    """The cdef: the reader, the index, then the extension's helpers."""
    names = ("reader.h", "semantics.h", "index.h", "registers.h", "coverage.h", "calls.h",
             "ext.h")
    files = [os.path.join(HERE, "cdef", n) for n in names]
    return "\n".join(open(f, encoding="utf-8").read() for f in files)


def compile_args():
    args = ["-std=c11", "-O2", "-g0", "-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE",
            "-fvisibility=hidden", "-Wall", "-Wno-unused-function"]
    args += pkg_config("--cflags") or ["-I/usr/include/libxml2"]
    if os.environ.get("UMTRACE_SANITIZE") == "1":
        args += ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                 "-fno-omit-frame-pointer", "-O1"]
    return args


def link_args():
    # Export nothing but the module's entry point: the library's umt_*
    # symbols stay inside, so an installed libumtrace.so cannot clash.
    args = ["-Wl,--version-script=" + os.path.join(HERE, "ext", "export.map")]
    args += pkg_config("--libs") or ["-lxml2"]
    args.append("-lZydis")  # src/semantics.c; Debian's libzydis-dev has no pkg-config file
    if os.environ.get("UMTRACE_SANITIZE") == "1":
        args.append("-fsanitize=address,undefined")
    return args + ["-pthread"]


def dependencies():
    """Headers whose change must rebuild the extension."""
    pats = ["include/umtrace/*.h", "src/*.h", "src/index/*.h"]
    deps = [f for p in pats for f in glob.glob(os.path.join(ROOT, p))]
    return deps + glob.glob(os.path.join(HERE, "ext", "*.h")) + \
        glob.glob(os.path.join(HERE, "cdef", "*.h"))


ffibuilder = cffi.FFI()
ffibuilder.cdef(declarations())
ffibuilder.set_source(
    "umtrace._umtrace",
    '#include "umtrace/umtrace.h"\n#include "umtrace/index.h"\n#include "umtpy.h"\n',
    sources=library_sources() + sorted(glob.glob(os.path.join(HERE, "ext", "*.c"))),
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src"),
                  os.path.join(HERE, "ext")],
    extra_compile_args=compile_args(),
    extra_link_args=link_args(),
    depends=dependencies(),
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
