#!/bin/sh
# The committed sample trace is exactly what tools/mksample writes.
#   sample_regen.sh MKSAMPLE SAMPLE_DIR
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" "$tmp/sample"
diff -r "$2" "$tmp/sample" && echo "sample trace is up to date"
