#!/bin/sh
# The loadable extension in the sqlite3 shell: .load, umtrace_open(), queries
# on the sample, a script from standard input, and errors (status 1, the
# library's message on stderr).
#   shell.sh EXTENSION SAMPLE_DIR
set -u
ext=$1
sample=$2
failed=0
fail() { echo "FAIL: $*"; failed=1; }
command -v sqlite3 >/dev/null || { echo "skipped: no sqlite3 shell (apt-get install sqlite3)"; exit 77; }

out=$(sqlite3 :memory: ".load $ext" "SELECT umtrace_open('$sample')" \
	"SELECT count(*) FROM records WHERE type = 0" "SELECT name FROM modules ORDER BY id LIMIT 1" 2>&1)
[ "$out" = "220
210
app.exe" ] || fail "queries on the sample: $out"

out=$(sqlite3 -csv :memory: <<EOS 2>&1
.load $ext
SELECT umtrace_open('$sample');
SELECT t.win_tid, count(*) FROM threads t JOIN records r ON r.thread_id = t.id GROUP BY t.id;
SELECT count(*) FROM operands(1);
EOS
)
[ "$out" = "220
6700,180
6704,40
1" ] || fail "a script on standard input: $out"

sqlite3 :memory: ".load $ext" "SELECT * FROM records" >/dev/null 2>"${TMPDIR:-/tmp}/shell.err.$$"
st=$?
err=$(cat "${TMPDIR:-/tmp}/shell.err.$$")
rm -f "${TMPDIR:-/tmp}/shell.err.$$"
[ $st -eq 1 ] || fail "a query without a trace: status $st"
case "$err" in
*"records: no trace: SELECT umtrace_open('/path/to/trace') first"*) ;;
*) fail "a query without a trace: $err" ;;
esac
out=$(sqlite3 :memory: ".load $ext" "SELECT umtrace_open('$sample', 'index=/no/such')" \
	"SELECT * FROM mem(1, 4096, 4)" 2>&1)
case "$out" in
*"build the index first: umtdump index --out /no/such"*) ;;
*) fail "mem without an index: $out" ;;
esac
[ $failed -eq 0 ] && echo "the extension works in the sqlite3 shell"
exit $failed
