#!/bin/sh
# Runs umtdump on the bundled sample trace for every case in cases.txt and
# compares stdout, stderr and the exit status with tests/cli/expected/.
#   run.sh UMTDUMP SOURCE_DIR [--update]
# A case line is "NAME ARGS..." (ARGS word-split by the shell; the sample
# trace is examples/sample-trace relative to SOURCE_DIR). Expected files:
# NAME.out (stdout), NAME.err (stderr, optional: empty when absent),
# NAME.status (exit status, optional: 0 when absent).
set -u
umtdump=$1
src=$2
update=${3:-}
here=$(dirname "$0")
cd "$src" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
while read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	"$umtdump" $args >"$tmp/out" 2>"$tmp/err"
	echo $? >"$tmp/status"
	exp="$here/expected/$name"
	if [ "$update" = "--update" ]; then
		cp "$tmp/out" "$exp.out"
		if [ -s "$tmp/err" ]; then cp "$tmp/err" "$exp.err"; else rm -f "$exp.err"; fi
		if [ "$(cat "$tmp/status")" != 0 ]; then cp "$tmp/status" "$exp.status"; else rm -f "$exp.status"; fi
		continue
	fi
	want_status=0
	[ -f "$exp.status" ] && want_status=$(cat "$exp.status")
	if ! cmp -s "$tmp/out" "$exp.out"; then
		echo "FAIL $name: stdout differs"; diff "$exp.out" "$tmp/out" | head -20; failed=1
	fi
	if [ -f "$exp.err" ]; then
		cmp -s "$tmp/err" "$exp.err" || { echo "FAIL $name: stderr differs"; diff "$exp.err" "$tmp/err" | head; failed=1; }
	elif [ -s "$tmp/err" ]; then
		echo "FAIL $name: unexpected stderr"; cat "$tmp/err"; failed=1
	fi
	if [ "$(cat "$tmp/status")" != "$want_status" ]; then
		echo "FAIL $name: status $(cat "$tmp/status"), expected $want_status"; failed=1
	fi
done <"$here/cases.txt"
[ $failed -eq 0 ] && echo "all CLI cases pass"
exit $failed
