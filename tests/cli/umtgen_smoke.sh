#!/bin/sh
# umtgen writes a trace of exactly the requested size that opens, the same
# seed gives the same bytes (trace, truth and headers), and the options that
# change the run's ending, code width or scheduling do.
#   umtgen_smoke.sh UMTGEN UMTDUMP
set -eu
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "$*"; exit 1; }
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 7 --truth "$tmp/a.truth" \
	--xed-headers "$tmp/a.xed" "$tmp/a"
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 7 --truth "$tmp/b.truth" \
	--xed-headers "$tmp/b.xed" "$tmp/b"
"$1" --quiet --records 20K --threads 5 --instructions 300 --seed 8 "$tmp/c"
diff -r "$tmp/a" "$tmp/b"
cmp "$tmp/a.truth" "$tmp/b.truth"
diff -r "$tmp/a.xed" "$tmp/b.xed"
# and the same bytes whatever compiled umtgen (gcc or clang, optimized or
# sanitized: CI runs this in each of its builds): the SHA-256 of every file,
# committed. A deliberate change of umtgen's output updates the list with
# the lines $sums holds for a run of the first command above.
sums=$(cd "$tmp/a" && sha256sum * ../a.truth | sed 's#\.\./a\.truth#truth#'
	cd "$tmp/a.xed" && sha256sum *)
here=$(dirname "$0")
printf '%s\n' "$sums" | diff "$here/umtgen_pinned.sha256" - ||
	fail "umtgen's output for seed 7 changed (tests/cli/umtgen_pinned.sha256)"
if diff -r "$tmp/a" "$tmp/c" >/dev/null; then fail "different seeds gave the same trace"; fi
info=$("$2" --json info "$tmp/a")
echo "$info" | grep -q '"exec_count":20000,' || fail "wrong record count: $info"
echo "$info" | grep -q '"thread_count":5,' || fail "wrong thread count: $info"
echo "$info" | grep -q '"bitness":64,' || fail "not a 64-bit trace: $info"
# every record reads back, the last one is the application end, the threads end
"$2" exec "$tmp/a" >"$tmp/exec.txt"
[ "$(wc -l <"$tmp/exec.txt")" -eq 20001 ] || fail "not every record was listed"
tail -n 1 "$tmp/exec.txt" | grep -q "app-end" || fail "the last record is not app-end"
[ "$(grep -c thread-end "$tmp/exec.txt")" -eq 4 ] || fail "not every other thread ended"
# the headers name the trace's values
"$2" --xed-dir "$tmp/a.xed" stats "$tmp/a" >"$tmp/stats.txt"
grep -q " (MOV)$" "$tmp/stats.txt" || fail "the headers do not name the mnemonics"
# 32-bit code: flag 0x01 clear, 32-bit rows
"$1" --quiet --records 3000 --threads 2 --code32 "$tmp/d"
"$2" --json info "$tmp/d" | grep -q '"bitness":32,' || fail "--code32 is not a 32-bit trace"
"$2" --json ins --id 0 "$tmp/d" | grep -q '"cs_is_64_bits":0' || fail "--code32 rows are 64-bit"
# an aborted process: no thread end, no application end, last records flagged 0x80
"$1" --quiet --records 3000 --threads 3 --abort "$tmp/e"
"$2" exec "$tmp/e" >"$tmp/abort.txt"
if grep -q -e thread-end -e app-end "$tmp/abort.txt"; then fail "--abort ended threads"; fi
[ "$(grep -c ' 0x81 ' "$tmp/abort.txt")" -eq 3 ] || fail "not one aborted record per thread"
# the quantum: a thread runs up to that many records before the scheduler picks
# again (default 32); thread switches counted in record order
"$1" --quiet --records 20K --threads 2 --quantum 2000 "$tmp/q"
"$1" --quiet --records 20K --threads 2 "$tmp/q32"
switches() { awk 'NR > 1 { if ($2 != prev) n++; prev = $2 } END { print n }'; }
long=$("$2" exec "$tmp/q" | switches)
short=$("$2" exec "$tmp/q32" | switches)
[ "$long" -lt 40 ] && [ "$short" -gt $((10 * long)) ] ||
	fail "--quantum 2000: $long thread switches in 20K records, $short with the default"
if "$1" --quantum 0 "$tmp/f" 2>/dev/null; then fail "accepted a quantum of 0"; fi
# bad arguments are usage errors
if "$1" --records 3 --threads 5 "$tmp/f" 2>/dev/null; then fail "accepted too few records"; fi
if "$1" --records ten "$tmp/f" 2>/dev/null; then fail "accepted a bad count"; fi
if "$1" --footprint 100K "$tmp/f" 2>/dev/null; then fail "accepted a footprint of 100 KiB"; fi
if "$1" --call-depth 0 "$tmp/f" 2>/dev/null; then fail "accepted a call depth of 0"; fi
echo "umtgen smoke test passed"
