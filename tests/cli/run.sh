#!/bin/sh
# Runs umtdump for every case of cases.txt and compares stdout, stderr and
# the exit status with tests/cli/expected/.
#   run.sh UMTDUMP MKFIXTURE SOURCE_DIR [--update]
#
# The cases run in a scratch directory holding
#   examples/sample-trace   the bundled sample (a link to the source tree)
#   fixtures/old            the 2014-flavour trace of mkfixture.c
#   fixtures/bad-*          copies of the sample with one corruption (mkbad.py)
#   fixtures/no-xml         the sample without trace.xml (mkbad.py)
#   fixtures/damaged        the sample with two truncated files (mkbad.py)
#   xed-sample              synthetic name headers (tests/cli/xed-sample)
#   sample-index            the sample's index (umtdump index --out)
#   fixtures/old/umtindex   the 2014 fixture's index, in its default place
# so that the paths in the output do not depend on where the test runs.
#
# A case line is "NAME [VAR=VALUE...] ARGS..." (word-split by the shell;
# leading VAR=VALUE words set the environment). Expected files: NAME.out
# (stdout), NAME.err (stderr; empty when absent), NAME.status (exit status;
# 0 when absent). With --update the files are rewritten from the current
# output: review every change by hand, the files are the specification.
set -u
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
umtdump=$(abs "$1")
mkfixture=$(abs "$2")
src=$(abs "$3")
update=${4:-}
here=$src/tests/cli
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/examples" "$work/fixtures"
ln -s "$src/examples/sample-trace" "$work/examples/sample-trace"
ln -s "$here/xed-sample" "$work/xed-sample"
"$mkfixture" "$work/fixtures/old" || { echo "FAIL: mkfixture"; exit 1; }
python3 "$here/mkbad.py" "$src/examples/sample-trace" "$work/fixtures" ||
	{ echo "FAIL: mkbad.py"; exit 1; }
cd "$work" || exit 1
# the sample's index, for history, mem and coverage (never into the source tree), and
# the 2014 fixture's in its default place, for coverage --diff
"$umtdump" --quiet index --out sample-index examples/sample-trace >/dev/null ||
	{ echo "FAIL: umtdump index of the sample"; exit 1; }
"$umtdump" --quiet index fixtures/old >/dev/null ||
	{ echo "FAIL: umtdump index of fixtures/old"; exit 1; }
failed=0
count=0
while read -r name args; do
	case "$name" in ''|'#'*) continue ;; esac
	count=$((count + 1))
	envs=""
	# shellcheck disable=SC2086
	set -- $args
	while [ $# -gt 0 ]; do
		case "$1" in [A-Za-z_]*=*) envs="$envs $1"; shift ;; *) break ;; esac
	done
	# shellcheck disable=SC2086
	env $envs "$umtdump" "$@" >"$work/out" 2>"$work/err" </dev/null
	echo $? >"$work/status"
	exp="$here/expected/$name"
	if [ "$update" = "--update" ]; then
		cp "$work/out" "$exp.out"
		if [ -s "$work/err" ]; then cp "$work/err" "$exp.err"; else rm -f "$exp.err"; fi
		if [ "$(cat "$work/status")" != 0 ]; then
			cp "$work/status" "$exp.status"
		else
			rm -f "$exp.status"
		fi
		continue
	fi
	want_status=0
	[ -f "$exp.status" ] && want_status=$(cat "$exp.status")
	if [ ! -f "$exp.out" ]; then
		echo "FAIL $name: no expected output $exp.out"; failed=1; continue
	fi
	if ! cmp -s "$work/out" "$exp.out"; then
		echo "FAIL $name: stdout differs"; diff "$exp.out" "$work/out" | head -20; failed=1
	fi
	if [ -f "$exp.err" ]; then
		if ! cmp -s "$work/err" "$exp.err"; then
			echo "FAIL $name: stderr differs"; diff "$exp.err" "$work/err" | head; failed=1
		fi
	elif [ -s "$work/err" ]; then
		echo "FAIL $name: unexpected stderr"; cat "$work/err"; failed=1
	fi
	if [ "$(cat "$work/status")" != "$want_status" ]; then
		echo "FAIL $name: status $(cat "$work/status"), expected $want_status"; failed=1
	fi
done <"$here/cases.txt"
if [ "$update" = "--update" ]; then
	echo "updated the expected files of $count cases: review the changes"
elif [ $failed -eq 0 ]; then
	echo "all $count CLI cases pass"
fi
exit $failed
