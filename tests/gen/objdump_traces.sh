#!/bin/sh
# Every instruction row of umtgen traces of both code widths and both
# flavours disassembles with GNU objdump to what its disassembly text says.
#   objdump_traces.sh UMTGEN UMTDUMP CHECKER
set -eu
umtgen=$1 umtdump=$2 check=$3
command -v objdump >/dev/null || { echo "objdump (binutils) is not installed"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for args in "--seed 1" "--seed 2 --code32" "--seed 3 --flavour 2014" \
	"--seed 4 --flavour 2014 --code32 --threads 2"; do
	# shellcheck disable=SC2086
	"$umtgen" --quiet --records 20K $args "$tmp/t"
	"$umtdump" --json ins "$tmp/t" >"$tmp/rows.jsonl"
	echo "umtgen $args:"
	python3 "$check" <"$tmp/rows.jsonl"
	rm -rf "$tmp/t"
done
