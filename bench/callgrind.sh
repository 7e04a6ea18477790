#!/bin/sh
# Instructions per record (or lookup) under callgrind, for the library's
# scans and lookups and the raw walks of the same bytes: deterministic
# figures, unlike times on a shared machine.
#   sh bench/callgrind.sh UMTBENCH TRACE_DIR
# "first": on a freshly opened trace; "again": after one scan, when the
# library knows which chunks of records it checked (umtbench --callgrind).
set -eu
bench=$1
trace=$2
# instructions of one measured loop, and how many records or lookups it did
run() {
	out=$(valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=/dev/null \
		"$bench" --callgrind "$1" --trace "$trace" 2>&1)
	n=$(printf '%s\n' "$out" | awk -v w="$1" '$1 == w ":" {print $2}')
	refs=$(printf '%s\n' "$out" | awk -F'refs: *' '/refs:/ {gsub(",", "", $2); print $2}')
	echo "$refs $n"
}
# per-item instructions of $1, and its ratio to the per-item figure $2
line() {
	set -- "$1" "$2" $(run "$1")
	awk -v w="$1" -v base="$2" -v refs="$3" -v n="$4" \
		'BEGIN { printf "%-20s %8.1f  %5.2f\n", w, refs / n, refs / n / base }'
}
per_item() {
	set -- $(run "$1")
	awk -v refs="$1" -v n="$2" 'BEGIN { printf "%.4f", refs / n }'
}
printf '%-20s %8s  %s\n' "what" "instr" "ratio to the raw walk (per record, per lookup; thread-*: see below)"
raw=$(per_item scan-raw)
for w in scan-raw scan-lib scan-lib-again scan-block-first scan-block; do
	line "$w" "$raw"
done
raw=$(per_item random-raw)
for w in random-raw random-lib random-lib-first random-view random-view-ptr \
	random-view-first random-batch; do
	line "$w" "$raw"
done
# thread 0's records: along its chain, and by a scan filtered by thread
# (per record of thread 0; the ratio is to the filtered scan)
filter=$(per_item thread-filter)
for w in thread-filter thread-chain thread-filter-first thread-chain-first; do
	line "$w" "$filter"
done
