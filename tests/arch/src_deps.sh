#!/bin/sh
# The modules of src/ depend on each other without circles: for each object
# of the static library, the objects defining the symbols it uses; tsort
# fails on a loop (exec.c <-> trace.c and error.c <-> map.c were two, before
# lazy.c and files.c). Prints the graph's edges on failure.
#   src_deps.sh LIBUMTRACE.a
set -eu
lib=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# "libumtrace.a:exec.c.o: U umt__fail_record" -> object and symbol
nm -A "$lib" | awk '{ n = split($1, p, ":"); obj = p[n - 1]; sub(/\.c\.o$/, "", obj) }
	$(NF - 1) ~ /^[TDRB]$/ { print $NF, obj > "'"$tmp"'/defs" }
	$(NF - 1) == "U" { print $NF, obj > "'"$tmp"'/uses" }'
sort -u "$tmp/defs" >"$tmp/defs.s"
sort -u "$tmp/uses" >"$tmp/uses.s"
join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$tmp/edges"
[ -s "$tmp/edges" ] || { echo "no dependencies found in $lib"; exit 1; }
if ! tsort "$tmp/edges" >/dev/null 2>"$tmp/loops"; then
	echo "src/ has dependency circles:"
	cat "$tmp/loops"
	echo "edges (user defined-in):"
	cat "$tmp/edges"
	exit 1
fi
echo "$(wc -l <"$tmp/edges") dependencies between the modules of src/, no circle"
