#!/usr/bin/env python3
"""Runs a command with its stderr on a pseudo-terminal, for the progress bar.

    ttyrun.py STDOUT_FILE COMMAND [ARGS...]

The command's stdout goes to STDOUT_FILE; what it wrote to the terminal is
copied to this script's stdout; the exit status is the command's.
"""
import os
import pty
import subprocess
import sys


def main():
    master, slave = pty.openpty()
    with open(sys.argv[1], "wb") as out:
        p = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the command closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    sys.stdout.buffer.write(seen)
    return p.wait()


if __name__ == "__main__":
    sys.exit(main())
