#!/bin/sh
# Runs an example and compares its standard output with the expected file.
#   check.sh EXPECTED COMMAND ARGS...
expected=$1
shift
out=$("$@") || { echo "failed: $*"; exit 1; }
printf '%s\n' "$out" | diff "$expected" - && echo "output as expected"
