#!/bin/sh
# Installs the build into a temporary prefix, then builds and runs a small
# consumer against it: with pkg-config, and with CMake's find_package
# (shared and static targets). Also checks the installed files.
#   run.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
sample="$src/examples/sample-trace"
for f in include/umtrace/umtrace.h include/umtrace/format.h bin/umtdump bin/umtgen; do
	[ -e "$tmp/prefix/$f" ] || { echo "not installed: $f"; exit 1; }
done
libdir=$(dirname "$(find "$tmp/prefix" -name libumtrace.pc)")/..
[ -e "$libdir/libumtrace.a" ] || { echo "no static library"; exit 1; }
ls "$libdir"/libumtrace.so.* >/dev/null || { echo "no shared library"; exit 1; }
find "$tmp/prefix" -name umtdump.1 | grep -q . || { echo "umtdump.1 not installed"; exit 1; }
find "$tmp/prefix" -name libumtrace.3 | grep -q . || { echo "libumtrace.3 not installed"; exit 1; }

# pkg-config, as a Makefile would use it
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs libumtrace) \
	-Wl,-rpath,"$libdir" -o "$tmp/consumer_pc"
"$tmp/consumer_pc" "$sample" | grep -q "records" || { echo "pkg-config consumer failed"; exit 1; }
# static linking through pkg-config --static (libxml2 comes along)
cc -static-libgcc "$src/tests/install/consumer/main.c" \
	$(pkg-config --cflags libumtrace) "$libdir/libumtrace.a" $(pkg-config --libs --static libumtrace | sed 's/-lumtrace//') \
	-o "$tmp/consumer_pc_static"
"$tmp/consumer_pc_static" "$sample" | grep -q "records" || { echo "static pkg-config consumer failed"; exit 1; }

# find_package(umtrace)
cmake -S "$src/tests/install/consumer" -B "$tmp/consumer-build" \
	-DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/consumer-build" >/dev/null
"$tmp/consumer-build/consumer_shared" "$sample" | grep -q records || { echo "find_package shared consumer failed"; exit 1; }
"$tmp/consumer-build/consumer_static" "$sample" | grep -q records || { echo "find_package static consumer failed"; exit 1; }
echo "installed tree works through pkg-config and find_package"
