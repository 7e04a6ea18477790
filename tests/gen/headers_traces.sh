#!/bin/sh
# The enum headers umtgen writes beside a trace (--xed-headers) name every
# value the trace uses, loaded by umtdump --xed-dir; for both flavours and
# both code widths, and for the bundled sample and its committed headers.
#   headers_traces.sh UMTGEN UMTDUMP CHECKER SOURCE_DIR
set -eu
umtgen=$1 umtdump=$2 check=$3 src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for args in "--seed 1" "--seed 2 --code32" "--seed 3 --flavour 2014" \
	"--seed 4 --flavour 2014 --code32"; do
	# shellcheck disable=SC2086
	"$umtgen" --quiet --records 20K --threads 3 $args --xed-headers "$tmp/xed" "$tmp/t"
	echo "umtgen $args:"
	python3 "$check" "$umtdump" "$tmp/xed" "$tmp/t"
	rm -rf "$tmp/t" "$tmp/xed"
done
echo "the sample:"
python3 "$check" "$umtdump" "$src/tests/cli/xed-sample" "$src/examples/sample-trace"
