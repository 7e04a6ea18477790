#!/usr/bin/env python3
"""The analysis session of docs/python.md, run as written.

Its ```python blocks run in order in one namespace, in a scratch directory
holding what its setup block (the first ```sh block naming umtgen) makes:
the demo trace, and xed-headers linked to the tests' small name tables.
test_docs.py runs it; run as a script it regenerates the pictures of the
document (docs/python-*.png) from a fresh run:

    PYTHONPATH=python python3 python/tests/doc_session.py [--umtgen PATH]
"""
import argparse
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(ROOT, "docs", "python.md")
#: pictures the session saves, and their names in docs/
PICTURES = {"accesses.png": "python-accesses.png", "calldepth.png": "python-calldepth.png"}


def fences(text, lang):
    """The bodies of the ```@lang blocks of markdown @text, in order."""
    return re.findall(r"^```" + lang + r"(?:[ \t][^\n]*)?\n(.*?)^```$", text, re.S | re.M)


def setup(workdir, umtgen):
    """Runs the document's setup block in @workdir, with @umtgen for its
    umtgen and the source tree for its relative paths."""
    for block in fences(open(DOC, encoding="utf-8").read(), "sh"):
        if "umtgen" in block:
            break
    else:
        raise RuntimeError("docs/python.md: no setup block running umtgen")
    for line in block.strip().splitlines():
        words = shlex.split(line)
        if words[0].endswith("/umtgen"):
            subprocess.run([umtgen] + words[1:], cwd=workdir, check=True)
        elif words[:2] == ["ln", "-sfn"]:
            os.symlink(os.path.join(ROOT, words[2]), os.path.join(workdir, words[3]))
        else:
            raise RuntimeError(f"docs/python.md setup: unexpected command {line!r}")


def run(workdir, umtgen):
    """Runs the session in @workdir; returns its namespace."""
    setup(workdir, umtgen)
    blocks = fences(open(DOC, encoding="utf-8").read(), "python")
    namespace = {"__name__": "__doc_session__"}
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for k, code in enumerate(blocks, 1):
            exec(compile(code, f"docs/python.md, python block {k}", "exec"), namespace)
    finally:
        os.chdir(cwd)
    return namespace


def main():
    ap = argparse.ArgumentParser(description="regenerates the pictures of docs/python.md")
    ap.add_argument("--umtgen")
    args = ap.parse_args()
    umtgen = args.umtgen or sorted(glob.glob(os.path.join(ROOT, "build", "*", "tools", "umtgen",
                                                          "umtgen")), key=os.path.getmtime)[-1]
    with tempfile.TemporaryDirectory() as d:
        run(d, umtgen)
        for made, name in PICTURES.items():
            shutil.copyfile(os.path.join(d, made), os.path.join(ROOT, "docs", name))
            print(f"docs/{name}")


if __name__ == "__main__":
    sys.exit(main())
