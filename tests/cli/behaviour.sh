#!/bin/sh
# umtdump's behaviour around its output: a closed pipe ends it quietly, a
# failed write is an error, the progress bar appears on a terminal only and
# not with --quiet, and --help agrees with the man page.
#   behaviour.sh UMTDUMP UMTGEN SOURCE_DIR
set -u
umtdump=$1
umtgen=$2
src=$3
here=$src/tests/cli
man=$src/docs/umtdump.1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }
"$umtgen" --quiet --records 200K --threads 4 --instructions 500 --seed 5 "$tmp/big" || exit 1

# ---- a reader that goes away: no message, status 0 or 1
for args in "exec" "--json exec --operands" "ins" "stats" "--json context-map"; do
	# shellcheck disable=SC2086
	{ "$umtdump" $args "$tmp/big" 2>"$tmp/err"; echo $? >"$tmp/status"; } | head -n 2 >"$tmp/head"
	st=$(cat "$tmp/status")
	[ "$st" = 0 ] || [ "$st" = 1 ] || fail "umtdump $args | head: status $st"
	[ -s "$tmp/err" ] && { fail "umtdump $args | head wrote to stderr:"; cat "$tmp/err"; }
	[ "$(wc -l <"$tmp/head")" -eq 2 ] || fail "umtdump $args | head: no output"
done

# ---- a write that fails is reported
if [ -w /dev/full ]; then
	"$umtdump" exec "$tmp/big" >/dev/full 2>"$tmp/err"
	st=$?
	[ $st -eq 1 ] || fail "write to /dev/full: status $st"
	grep -q "^umtdump: cannot write the output: " "$tmp/err" ||
		fail "write to /dev/full: $(cat "$tmp/err")"
fi

# ---- the progress bar: on a terminal only, never with --quiet, output unchanged
"$umtdump" stats "$tmp/big" >"$tmp/stats.plain" 2>"$tmp/err" || fail "stats failed"
[ -s "$tmp/err" ] && fail "stats wrote to a non-terminal stderr: $(cat "$tmp/err")"
python3 "$here/ttyrun.py" "$tmp/stats.tty" "$umtdump" stats "$tmp/big" >"$tmp/tty" ||
	fail "stats on a terminal failed"
grep -q "stats \[" "$tmp/tty" || fail "no progress bar for stats on a terminal"
cmp -s "$tmp/stats.plain" "$tmp/stats.tty" || fail "the progress bar changed the output of stats"
python3 "$here/ttyrun.py" "$tmp/stats.quiet" "$umtdump" --quiet stats "$tmp/big" >"$tmp/tty"
[ -s "$tmp/tty" ] && fail "--quiet still drew a progress bar"
python3 "$here/ttyrun.py" "$tmp/exec.out" "$umtdump" exec "$tmp/big" >"$tmp/tty"
grep -q "exec \[" "$tmp/tty" || fail "no progress bar for a large exec to a file"
python3 "$here/ttyrun.py" "$tmp/exec.out" "$umtdump" exec --count 10 "$tmp/big" >"$tmp/tty"
[ -s "$tmp/tty" ] && fail "a progress bar for 10 records"
python3 "$here/ttyrun.py" "$tmp/verify.out" "$umtdump" verify "$tmp/big" >"$tmp/tty"
grep -q "scan records \[" "$tmp/tty" || fail "no progress bar for verify"

# ---- verify on the failing traces: status 1, each problem a located message,
# a summary, the JSON contract; --max-problems stops
python3 "$here/mkbad.py" "$src/examples/sample-trace" "$tmp" || exit 1
for bad in "$tmp"/bad-*; do
	name=${bad##*/}
	"$umtdump" verify "$bad" >"$tmp/out" 2>"$tmp/err"
	st=$?
	[ $st -eq 1 ] || fail "verify $name: status $st"
	[ -s "$tmp/err" ] || fail "verify $name: no problem reported"
	hex='0x[0-9a-f]+'
	where="(record [0-9]+ at offset $hex|row [0-9]+ at offset $hex|at offset $hex"
	where="$where|line [0-9]+, column [0-9]+): "
	# (a trace that does not open is named first: "umtdump: DIR: exec.offsets: ...")
	if grep -v -E "^umtdump: (warning: |$bad: )?[a-z_.]+: $where" "$tmp/err" >"$tmp/unlocated"; then
		fail "verify $name: problems without a location:"
		cat "$tmp/unlocated"
	fi
	[ "$name" = bad-truncated ] && continue # does not open: no summary
	grep -q "^$bad: inconsistent: " "$tmp/out" || fail "verify $name: summary $(cat "$tmp/out")"
	"$umtdump" --json verify "$bad" 2>/dev/null | python3 "$here/json_check.py" verify >"$tmp/check" ||
		{ fail "verify --json $name:"; cat "$tmp/check"; }
done
"$umtdump" verify "$tmp/bad-lcsize" 2>&1 | grep -q "record 1 at offset 0x[0-9a-f]*: .*LCSize 200" ||
	fail "verify does not find the short LC of bad-lcsize"
"$umtdump" verify "$tmp/bad-insid" 2>&1 | grep -q "record 2 at offset 0x[0-9a-f]*: InsID 99" ||
	fail "verify does not find the InsID of bad-insid"
"$umtdump" verify --max-problems 1 "$tmp/bad-offsets" >"$tmp/out" 2>"$tmp/err"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "--max-problems 1 reported $(wc -l <"$tmp/err") problems"
grep -q "; stopped after 1 problem\$" "$tmp/out" || fail "--max-problems 1: $(cat "$tmp/out")"

# ---- name tables older than the trace's XED: a note, names still used;
# --quiet hides the note
mkdir -p "$tmp/doc/XED v20140106"
cp "$here"/xed-sample/xed-*.h "$tmp/doc/XED v20140106/"
cp "$here"/xed-sample/syscall_unified_id_v1.h "$tmp/doc/"
"$umtdump" --xed-dir "$tmp/doc" ins --id 1 "$src/examples/sample-trace" >"$tmp/out" 2>"$tmp/err" ||
	fail "ins with older name tables failed"
grep -q "mnemonic [0-9][0-9]* (MOV)" "$tmp/out" || fail "older name tables: no names"
grep -q "^umtdump: note: .*XED 20150121, newer than the name tables' XED 20140106" "$tmp/err" ||
	fail "older name tables: no note: $(cat "$tmp/err")"
"$umtdump" --quiet --xed-dir "$tmp/doc" ins --id 1 "$src/examples/sample-trace" 2>"$tmp/err" \
	>/dev/null
[ -s "$tmp/err" ] && fail "--quiet still wrote the note: $(cat "$tmp/err")"

# ---- --help and the man page name the same commands and options
[ -f "$man" ] || fail "no man page $man"
opts_help=$(
	"$umtdump" --help
	for c in $("$umtdump" --help | awk '/^commands:/ { f = 1; next } /^$/ { f = 0 } f { print $1 }'); do
		"$umtdump" "$c" --help
		grep -q "^\.SS $c\$" "$man" || echo "MISSING-COMMAND-$c"
	done
)
missing=$(echo "$opts_help" | grep -o 'MISSING-COMMAND-[a-z-]*' | tr '\n' ' ')
[ -n "$missing" ] && fail "commands missing from the man page: $missing"
for o in $(echo "$opts_help" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
	esc=$(echo "$o" | sed 's/-/\\\\-/g')
	grep -q -- "$esc" "$man" || fail "option $o of --help is not in the man page"
done
# the options the man page describes: the first word of the line after .TP
for o in $(awk 'prev == ".TP" && /^\.BR? / { print $2 } { prev = $0 }' "$man" |
	sed 's/\\-/-/g' | grep -- '^--' | sort -u); do
	echo "$opts_help" | grep -q -- "$o" || fail "option $o of the man page is not in --help"
done
[ $failed -eq 0 ] && echo "closed pipes, write errors, progress bars and help behave"
exit $failed
