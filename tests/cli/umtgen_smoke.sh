#!/bin/sh
# umtgen writes a trace of exactly the requested size that opens, and the
# same seed gives the same bytes.
#   umtgen_smoke.sh UMTGEN UMTDUMP
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 7 "$tmp/a"
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 7 "$tmp/b"
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 8 "$tmp/c"
diff -r "$tmp/a" "$tmp/b"
if diff -r "$tmp/a" "$tmp/c" >/dev/null; then echo "different seeds gave the same trace"; exit 1; fi
info=$("$2" --json info "$tmp/a")
echo "$info" | grep -q '"exec_count":20000,' || { echo "wrong record count: $info"; exit 1; }
echo "$info" | grep -q '"ins_count":300,' || { echo "wrong instruction count: $info"; exit 1; }
echo "$info" | grep -q '"thread_count":5,' || { echo "wrong thread count: $info"; exit 1; }
# every record reads back, and the last one is the application end
"$2" exec "$tmp/a" >"$tmp/exec.txt"
[ "$(wc -l <"$tmp/exec.txt")" -eq 20001 ] || { echo "not every record was listed"; exit 1; }
tail -n 1 "$tmp/exec.txt" | grep -q "app-end" || { echo "the last record is not app-end"; exit 1; }
# bad arguments are usage errors
if "$1" --records 3 --threads 5 "$tmp/d" 2>/dev/null; then echo "accepted too few records"; exit 1; fi
if "$1" --records ten "$tmp/d" 2>/dev/null; then echo "accepted a bad count"; exit 1; fi
echo "umtgen smoke test passed"
