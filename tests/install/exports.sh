#!/bin/sh
# The shared library exports only umt_ symbols, and has a versioned SONAME.
#   exports.sh LIBRARY MAJOR
set -eu
lib=$1
# __odr_asan.* and __asan_* are AddressSanitizer's own, in sanitized builds only
bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v -e '^umt_' -e '^__odr_asan' -e '^__asan' || true)
if [ -n "$bad" ]; then
	echo "exported symbols without the umt_ prefix:"
	echo "$bad"
	exit 1
fi
count=$(nm -D --defined-only "$lib" | grep -c ' umt_')
[ "$count" -gt 100 ] || { echo "only $count umt_ symbols exported"; exit 1; }
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libumtrace.so.$2" ] || { echo "SONAME is '$soname', not libumtrace.so.$2"; exit 1; }
echo "$count symbols, all umt_; SONAME $soname"
