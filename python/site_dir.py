#!/usr/bin/env python3
"""Prints the directory where this interpreter looks for packages under
install prefix PREFIX (CMake's install rule puts the umtrace package there).

    site_dir.py PREFIX

The interpreter's own site directory under PREFIX when it has one
(/usr/local/lib/python3.X/dist-packages on Debian, the user site under
~/.local), else PREFIX's standard layout (lib/python3.X/site-packages),
which then needs PYTHONPATH: a note on standard error says so.
"""
import os
import site
import sys
import sysconfig


def main():
    prefix = os.path.realpath(sys.argv[1])
    known = site.getsitepackages() + [site.getusersitepackages()]
    for d in known:
        if os.path.realpath(d).startswith(prefix + os.sep):
            print(d)
            return
    d = sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})
    print(f"note: {d} is not on {sys.executable}'s path: set PYTHONPATH={d}", file=sys.stderr)
    print(d)


if __name__ == "__main__":
    main()
