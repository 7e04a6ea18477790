#!/bin/sh
# Installs the build into a temporary prefix, then builds and runs a small
# consumer against it: with pkg-config, and with CMake's find_package
# (shared and static targets). Also checks the installed files, and what the
# README says of a prefix the dynamic linker does not search: a program
# linked with the shared library needs LD_LIBRARY_PATH (or an rpath), while
# the installed umtdump and umtgen run from anywhere, even a moved prefix.
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

# a prefix the dynamic linker does not know: without an rpath the consumer
# needs LD_LIBRARY_PATH (unless this machine has a libumtrace of its own)
unset LD_LIBRARY_PATH
cc "$src/tests/install/consumer/main.c" $(pkg-config --cflags --libs libumtrace) \
	-o "$tmp/consumer_norpath"
if ldd "$tmp/consumer_norpath" | grep -q 'libumtrace.so.0 => not found'; then
	"$tmp/consumer_norpath" "$sample" >/dev/null 2>&1 &&
		{ echo "a consumer without rpath ran without LD_LIBRARY_PATH"; exit 1; }
else
	echo "note: this machine has a libumtrace.so.0 of its own: $(ldd "$tmp/consumer_norpath" | grep libumtrace)"
fi
LD_LIBRARY_PATH="$libdir" "$tmp/consumer_norpath" "$sample" | grep -q records ||
	{ echo "the consumer does not run with LD_LIBRARY_PATH"; exit 1; }

# the tools link the library statically: they run from a moved prefix as is
mv "$tmp/prefix" "$tmp/moved"
"$tmp/moved/bin/umtdump" info "$sample" | grep -q "exec records" ||
	{ echo "the installed umtdump does not run from a moved prefix"; exit 1; }
"$tmp/moved/bin/umtgen" --quiet --records 100 "$tmp/gen" ||
	{ echo "the installed umtgen does not run from a moved prefix"; exit 1; }
if ldd "$tmp/moved/bin/umtdump" | grep -q libumtrace; then
	echo "the installed umtdump needs libumtrace.so at run time"; exit 1
fi
echo "installed tree works through pkg-config and find_package; the tools run from any prefix"
