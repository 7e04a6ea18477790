"""Builds the umtrace package: Python modules plus one cffi extension that
holds the whole C library (build_ffi.py says how). Install with
`pip install --no-build-isolation ./python` (docs/python.md)."""
import os
import re
from concurrent.futures import ThreadPoolExecutor

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("UMTRACE_SOURCE_DIR") or os.path.join(HERE, ".."))
# Objects of differently configured builds never mix: a sanitized build has
# its own directory, and $UMTRACE_BUILD_BASE gives a build one of its own.
BUILD_BASE = os.environ.get("UMTRACE_BUILD_BASE") or os.path.join(
    HERE, "build", "sanitize" if os.environ.get("UMTRACE_SANITIZE") == "1" else "default")


def version():
    """The library's version: the package is the library's binding, at its version."""
    header = open(os.path.join(ROOT, "include", "umtrace", "umtrace.h")).read()
    return re.search(r'#define UMT_VERSION_STRING "([^"]+)"', header).group(1)


class ParallelBuildExt(build_ext):
    """build_ext compiling the extension's ~40 C files on every processor
    (distutils compiles one file at a time)."""

    def build_extension(self, ext):
        compiler = self.compiler
        jobs = int(os.environ.get("UMTRACE_BUILD_JOBS") or os.cpu_count() or 1)

        def compile_all(sources, output_dir=None, macros=None, include_dirs=None, debug=0,
                        extra_preargs=None, extra_postargs=None, depends=None):
            macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
                output_dir, macros, include_dirs, sources, depends, extra_postargs)
            cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

            def one(obj):
                src, ext_ = build[obj]
                compiler._compile(obj, src, ext_, cc_args, extra_postargs, pp_opts)

            with ThreadPoolExecutor(max(1, jobs)) as pool:
                list(pool.map(one, [o for o in objects if o in build]))
            return objects

        compiler.compile = compile_all
        super().build_extension(ext)


setup(
    name="umtrace",
    version=version(),
    description="UMTracer execution traces for analysts: libumtrace with numpy views in place",
    packages=["umtrace", "umtrace.dask"],
    python_requires=">=3.9",
    install_requires=["numpy", "cffi>=1.15"],
    extras_require={"pandas": ["pandas"]},
    cffi_modules=["build_ffi.py:ffibuilder"],
    cmdclass={"build_ext": ParallelBuildExt},
    options={"build": {"build_base": BUILD_BASE}},
    zip_safe=False,
)
