#!/bin/sh
# The bridges to other tools: umtdump coverage --drcov read back by an
# independent drcov reader (drcov_check.py) on the sample and on generated
# traces of both flavours, compared with the trace's own records. (The Tenet
# export is checked by tests/test_tenet.c.)
#   bridges.sh UMTDUMP UMTGEN SOURCE_DIR
set -u
umtdump=$1
umtgen=$2
src=$3
here=$src/tests/cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
cp -r "$src/examples/sample-trace" "$tmp/sample"
"$umtgen" --quiet --records 30000 --threads 3 --instructions 400 --seed 11 "$tmp/gen" || exit 1
"$umtgen" --quiet --records 20000 --threads 2 --instructions 300 --seed 12 --flavour 2014 \
	"$tmp/gen2014" || exit 1
"$umtgen" --quiet --records 20000 --threads 2 --seed 13 --code32 "$tmp/gen32" || exit 1
for trace in "$tmp/sample" "$tmp/gen" "$tmp/gen2014" "$tmp/gen32"; do
	name=$(basename "$trace")
	"$umtdump" --quiet index "$trace" >/dev/null || { echo "FAIL: index of $name"; failed=1; continue; }
	"$umtdump" --quiet --json coverage --drcov "$tmp/$name.drcov" "$trace" >"$tmp/cov.json" ||
		{ echo "FAIL: coverage --drcov of $name"; failed=1; continue; }
	"$umtdump" --json modules "$trace" >"$tmp/modules.json"
	"$umtdump" --json ins "$trace" >"$tmp/ins.json"
	"$umtdump" --json exec "$trace" >"$tmp/exec.json"
	python3 "$here/drcov_check.py" "$tmp/$name.drcov" "$tmp/modules.json" "$tmp/ins.json" \
		"$tmp/exec.json" "$tmp/cov.json" || { echo "FAIL: the drcov file of $name"; failed=1; }
done
# --module keeps the blocks of that module only: as many as its executed addresses
"$umtdump" --quiet --json coverage --module ntdll.dll --drcov "$tmp/one.drcov" "$tmp/sample" \
	>"$tmp/one.json"
python3 - "$tmp/one.drcov" "$tmp/one.json" <<'PY' || { echo "FAIL: --module with --drcov"; failed=1; }
import json, struct, sys
data = open(sys.argv[1], "rb").read()
entry = json.loads(open(sys.argv[2]).read())
head, _, blocks = data.partition(b"bbs\n")
n = int(head.rsplit(b"BB Table: ", 1)[1])
assert n == entry["addresses"] > 0 and len(blocks) == 8 * n, (n, entry)
assert {struct.unpack_from("<IHH", blocks, 8 * i)[2] for i in range(n)} == {entry["module_id"]}
PY
[ $failed -eq 0 ] && echo "the drcov files read back and agree with the traces"
exit $failed
