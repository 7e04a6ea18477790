#!/bin/sh
# Builds the .deb with CPack, installs it on this machine (with sudo when not
# root), checks that it is usable like any Debian library package, and
# removes it again.
#   sh tools/test-deb.sh
set -eu
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -S . -B "$tmp/build" -DCMAKE_BUILD_TYPE=Release -DUMT_BUILD_TESTS=OFF >/dev/null
cmake --build "$tmp/build" -j "$(nproc)" >/dev/null
(cd "$tmp/build" && cpack -G DEB >/dev/null)
deb=$(ls "$tmp"/build/libumtrace_*.deb)
echo "built $(basename "$deb")"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
echo "installed; checking it"
umtdump info examples/sample-trace | grep -q "exec records" || { echo "umtdump failed"; exit 1; }
test -e /usr/share/man/man3/libumtrace.3 && test -e /usr/share/man/man1/umtdump.1 || { echo "man pages missing"; exit 1; }
cc tests/install/consumer/main.c $(pkg-config --cflags --libs libumtrace) -o "$tmp/pc"
"$tmp/pc" examples/sample-trace
cmake -S tests/install/consumer -B "$tmp/consumer" >/dev/null
cmake --build "$tmp/consumer" >/dev/null
"$tmp/consumer/consumer_shared" examples/sample-trace
"$tmp/consumer/consumer_static" examples/sample-trace
$sudo dpkg -r libumtrace >/dev/null
echo "the package installs, works from /usr and removes cleanly"
