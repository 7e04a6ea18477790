#!/bin/sh
# Regenerates the committed seed corpus of the fuzz targets.
#
#   sh tests/fuzz/regen-corpus.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR is a configured and built tree (it holds tools/umtgen/umtgen and
# tests/fuzz/fuzz_mkcorpus; or "-" with both given as $UMTGEN and $MKCORPUS);
# OUT_DIR defaults to tests/fuzz/corpus. Seeds are written under their names
# in OUT_DIR/trace, meta and enum; other files there (inputs a fuzzing run
# found worth keeping, added by hand) are left alone. Keep the corpus to a
# few hundred KB.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
out=${2:-$src/tests/fuzz/corpus}
if [ "$1" = - ]; then
	umtgen=$UMTGEN mkcorpus=$MKCORPUS
else
	build=$(cd "$1" && pwd)
	umtgen=$build/tools/umtgen/umtgen mkcorpus=$build/tests/fuzz/fuzz_mkcorpus
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/umt-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"$umtgen" --quiet --records 100 --threads 3 --instructions 16 --seed 1 "$tmp/gen-2015"
"$umtgen" --quiet --records 60 --threads 2 --instructions 16 --seed 2 --flavour 2014 \
	"$tmp/gen-2014"
"$mkcorpus" "$out" sample="$src/examples/sample-trace" umtgen-2015="$tmp/gen-2015" \
	umtgen-2014="$tmp/gen-2014"
du -sk "$out/trace" "$out/meta" "$out/enum"
