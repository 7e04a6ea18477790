#!/bin/sh
# ctest: generates the seed corpus afresh and replays it through every target.
#   sh fresh-corpus.sh UMTGEN FUZZ_MKCORPUS REPLAY_DIR
set -eu
umtgen=$1 mkcorpus=$2 replay=$3
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/umt-fresh.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
UMTGEN=$umtgen MKCORPUS=$mkcorpus sh "$src/tests/fuzz/regen-corpus.sh" - "$tmp/corpus"
for t in trace meta enum; do
	n=$(find "$tmp/corpus/$t" -type f | wc -l)
	[ "$n" -ge 5 ] || { echo "fresh corpus: only $n $t inputs" >&2; exit 1; }
	"$replay/fuzz_replay_$t" "$tmp/corpus/$t"
done
