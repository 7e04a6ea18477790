#!/bin/sh
# Instructions per record (or lookup) under callgrind, for the library's
# scans and lookups and the raw walks of the same bytes: deterministic
# figures, unlike times on a shared machine.
#   sh bench/callgrind.sh UMTBENCH TRACE_DIR
set -eu
bench=$1
trace=$2
records=$("$bench" --callgrind scan-raw --trace "$trace" | awk '{print $2}')
run() {
	valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/null \
		"$bench" --callgrind "$1" --trace "$trace" 2>&1 |
		awk -F'refs: *' '/refs:/ {gsub(",", "", $2); print $2}'
}
raw=$(run scan-raw)
printf '%-18s %8s  %s\n' "what" "instr" "ratio to the raw walk"
for w in scan-raw scan-lib scan-block-first scan-block; do
	n=$(run "$w")
	awk -v w="$w" -v n="$n" -v r="$records" -v raw="$raw" \
		'BEGIN { printf "%-18s %8.1f  %.2f  (per record)\n", w, n / r, n / raw }'
done
lraw=$(run random-raw)
for w in random-raw random-lib random-view random-batch; do
	n=$(run "$w")
	awk -v w="$w" -v n="$n" -v raw="$lraw" \
		'BEGIN { printf "%-18s %8.1f  %.2f  (per lookup)\n", w, n / 1000000, n / raw }'
done
