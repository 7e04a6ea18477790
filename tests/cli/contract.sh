#!/bin/sh
# The JSON contract of umtdump(1): every command's --json output on the
# sample trace, the 2014-flavour fixture and umtgen traces of both flavours,
# with and without names, parsed back by json_check.py (valid JSON, the
# documented keys and types). Also checks that the JSON of a large trace
# agrees with itself across commands (record counts).
#   contract.sh UMTDUMP MKFIXTURE UMTGEN SOURCE_DIR
set -u
umtdump=$1
mkfixture=$2
umtgen=$3
src=$4
here=$src/tests/cli
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
"$mkfixture" "$tmp/old" || exit 1
"$umtgen" --quiet --records 3000 --threads 4 --instructions 120 --seed 3 "$tmp/gen" || exit 1
"$umtgen" --quiet --records 2000 --threads 3 --instructions 80 --seed 4 --flavour 2014 \
	"$tmp/gen2014" || exit 1

# check TRACE COMMAND [OPTIONS...]: runs umtdump --json and checks its output;
# $operands (empty by default) follow the trace directory
operands=""
check() {
	trace=$1
	cmd=$2
	shift 2
	# shellcheck disable=SC2086
	"$umtdump" --json "$@" "$cmd" "$trace" $operands >"$tmp/out" 2>"$tmp/err"
	status=$?
	if [ $status -gt 1 ]; then
		echo "FAIL $cmd $* $trace: status $status"; cat "$tmp/err"; failed=1; return
	fi
	python3 "$here/json_check.py" "$cmd" "$@" <"$tmp/out" >"$tmp/check" ||
		{ echo "FAIL $cmd $* $trace:"; cat "$tmp/check"; failed=1; }
}

for trace in "$src/examples/sample-trace" "$tmp/old" "$tmp/gen" "$tmp/gen2014"; do
	xed="--xed-dir=$here/xed-sample" # names on the traces whose codes it names
	case "$trace" in "$tmp"/gen*) xed="" ;; esac
	for names in "" $xed; do
		for cmd in info ins syscalls modules threads context-map address-space xml \
			verify stats; do
			check "$trace" $cmd $names
		done
		check "$trace" exec $names
		check "$trace" exec --operands --context $names
		check "$trace" exec --operands $names
		check "$trace" exec --accesses --keep-going $names
		check "$trace" exec --context --keep-going $names
	done
	# the index and the queries it answers, at addresses the trace accesses
	idx=$tmp/idx-$(basename "$trace")
	check "$trace" index --out "$idx"
	check "$trace" coverage --index "$idx"
	operands=""
	records=$("$umtdump" --json info "$trace" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["exec_count"])')
	for addr in $("$umtdump" --json exec --accesses --count 400 "$trace" | python3 -c '
import json, sys
seen = []
for line in sys.stdin:
    for a in json.loads(line).get("accesses") or []:
        if a["address"] not in seen:
            seen.append(a["address"])
print(" ".join(seen[:6]))'); do
		operands="$addr:16"
		check "$trace" history --index "$idx"
		operands="$addr"
		check "$trace" history --index "$idx" --reverse --kind write
		operands="$addr 64"
		check "$trace" mem --index "$idx" --at 1
		operands="$addr:8"
		check "$trace" origin --index "$idx" --at $((records - 1))
		operands=""
	done
	# the registers at records of every kind, and their histories and origins
	regs="rax eax ah rsp rflags rsi"
	[ "$trace" = "$tmp/old" ] && regs="eax ax ah esp eflags esi" # 32-bit code
	for at in 0 1 $((records / 2)) $((records - 1)); do
		check "$trace" state --index "$idx" --at $at
		check "$trace" state --index "$idx" --at $at --thread 0
		for reg in $regs; do
			operands=$reg
			check "$trace" origin --index "$idx" --at $at
			operands=""
		done
	done
	for reg in $regs; do
		operands=$reg
		check "$trace" reg-history --index "$idx"
		check "$trace" reg-history --index "$idx" --reverse --changes --thread 0
		operands=""
	done
	# calls and stacks, and the stacks at some records (the first ten calls')
	check "$trace" calls --index "$idx"
	check "$trace" calls --index "$idx" --thread 0 --from 5 --count 20
	check "$trace" calls --index "$idx" --args=6
	for at in $("$umtdump" --json --index "$idx" calls --count 10 "$trace" | python3 -c '
import json, sys
print(" ".join(str(json.loads(l)["id"] + 1) for l in sys.stdin))'); do
		check "$trace" stack --index "$idx" --at "$at"
		check "$trace" stack --index "$idx" --at "$at" --thread 0
	done
done

# coverage --diff of two generated traces (each index in its default place)
"$umtdump" --quiet index "$tmp/gen" >/dev/null && "$umtdump" --quiet index "$tmp/gen2014" >/dev/null ||
	{ echo "FAIL: index of the generated traces"; failed=1; }
check "$tmp/gen" coverage --diff "$tmp/gen2014"

# the commands agree on a larger trace: every record once, counts add up
n=$("$umtdump" --json info "$tmp/gen" |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["exec_count"])')
lines=$("$umtdump" --json exec "$tmp/gen" | wc -l)
# coverage adds up to the instruction records
"$umtdump" --json coverage "$tmp/gen" | python3 -c '
import json, sys
execs = sum(json.loads(line)["executions"] for line in sys.stdin)
print(execs)' >"$tmp/cov"
"$umtdump" --json stats "$tmp/gen" | python3 -c '
import json, sys
want = open(sys.argv[1]).read().strip()
assert str(json.load(sys.stdin)["instructions"]) == want, want' "$tmp/cov" ||
	{ echo "FAIL: coverage executions do not add up to the instructions"; failed=1; }
if [ "$n" != 3000 ] || [ "$lines" -ne 3000 ]; then
	echo "FAIL: exec_count $n, exec lines $lines"
	failed=1
fi
"$umtdump" --json stats "$tmp/gen" | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["records"] == 3000, s["records"]
assert s["instructions"] == s["by_type"]["instruction"]
' || { echo "FAIL: stats of the umtgen trace"; failed=1; }
[ $failed -eq 0 ] && echo "the JSON of every command follows the contract"
exit $failed
