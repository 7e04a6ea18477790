#!/bin/sh
# The committed sample trace, its ground truth and its enum headers are
# exactly what tools/mksample writes.
#   sample_regen.sh MKSAMPLE SAMPLE_DIR TRUTH_FILE XED_DIR
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" "$tmp/sample" "$tmp/truth.jsonl" "$tmp/xed"
diff -r "$2" "$tmp/sample"
cmp "$3" "$tmp/truth.jsonl"
diff -r "$4" "$tmp/xed"
echo "sample trace, truth and headers are up to date"
