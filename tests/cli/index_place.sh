#!/bin/sh
# Where umtdump keeps a trace's index when none is named (umtdump(1),
# index): TRACE/umtindex beside a writable trace; under $XDG_CACHE_HOME or
# ~/.cache for a trace in a read-only directory; --index DIR for every
# command. As root a mode-0555 directory is still writable, so the
# read-only case runs as nobody (setpriv) when the test runs as root.
#   index_place.sh UMTDUMP SOURCE_DIR
set -u
umtdump=$1
src=$2
tmp=$(mktemp -d)
chmod 0755 "$tmp"
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# beside a writable trace
cp -r "$src/examples/sample-trace" "$tmp/writable"
"$umtdump" --quiet index "$tmp/writable" >/dev/null || fail "index of a writable trace"
[ -f "$tmp/writable/umtindex/index.umti" ] || fail "no TRACE/umtindex/index.umti"
n=$("$umtdump" --json history "$tmp/writable" 0x100ff18 | wc -l)
[ "$n" -ge 1 ] || fail "history finds no access in the default index"

# a read-only trace directory: the cache directory, by an unprivileged user
as_user=""
if [ "$(id -u)" -eq 0 ]; then
	command -v setpriv >/dev/null || { echo "SKIP read-only case: no setpriv"; exit $failed; }
	as_user="setpriv --reuid=nobody --regid=nogroup --clear-groups"
fi
mkdir -p "$tmp/ro" "$tmp/home"
cp -r "$src/examples/sample-trace" "$tmp/ro/trace"
chmod -R a+rX "$tmp/ro" "$umtdump"
chmod 0555 "$tmp/ro/trace"
chmod 0777 "$tmp/home"
# an umtdump copy that nobody may run (the build tree may be private)
cp "$umtdump" "$tmp/umtdump" && chmod 0755 "$tmp/umtdump"
for var in XDG_CACHE_HOME HOME; do
	rm -rf "$tmp/home/cache" "$tmp/home/.cache"
	if [ $var = XDG_CACHE_HOME ]; then
		env="XDG_CACHE_HOME=$tmp/home/cache HOME=$tmp/home"
		where="$tmp/home/cache/umtrace"
	else
		env="HOME=$tmp/home"
		where="$tmp/home/.cache/umtrace"
	fi
	# shellcheck disable=SC2086
	env -u XDG_CACHE_HOME $env $as_user "$tmp/umtdump" --quiet index "$tmp/ro/trace" \
		>"$tmp/out" 2>&1 || { fail "index of a read-only trace ($var): $(cat "$tmp/out")"; continue; }
	[ -d "$tmp/ro/trace/umtindex" ] && fail "wrote into the read-only trace directory"
	ls "$where"/*/index.umti >/dev/null 2>&1 || fail "no index under $where ($var)"
	# shellcheck disable=SC2086
	env -u XDG_CACHE_HOME $env $as_user "$tmp/umtdump" --json mem --at 10 "$tmp/ro/trace" \
		0x100ff18 1 >"$tmp/out" 2>&1 || fail "mem from the cached index ($var): $(cat "$tmp/out")"
done

# --index DIR: index writes there, history reads there, and nowhere else
cp -r "$src/examples/sample-trace" "$tmp/named"
"$umtdump" --quiet --index "$tmp/elsewhere" index "$tmp/named" >/dev/null ||
	fail "index --index DIR"
[ -f "$tmp/elsewhere/index.umti" ] || fail "--index DIR: no index.umti there"
[ -d "$tmp/named/umtindex" ] && fail "--index DIR also wrote beside the trace"
"$umtdump" --index "$tmp/elsewhere" history "$tmp/named" 0x100ff18 >/dev/null ||
	fail "history --index DIR"
[ $failed -eq 0 ] && echo "indexes are where umtdump(1) says"
exit $failed
