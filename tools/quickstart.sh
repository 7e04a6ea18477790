#!/bin/sh
# libumtrace quick start on a Debian machine. Installs what is missing
# (with sudo when not root), builds, and runs.
#
#   sh tools/quickstart.sh demo   build umtdump, run it on the bundled sample trace
#   sh tools/quickstart.sh test   build and run the whole test suite: once under
#                                 AddressSanitizer + UndefinedBehaviorSanitizer with
#                                 warnings as errors, once as an optimised build
set -eu
cd "$(dirname "$0")/.."

PACKAGES="cmake make gcc pkg-config libxml2-dev libcmocka-dev python3"

install_missing() {
	missing=""
	for p in $PACKAGES; do
		dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	echo "quickstart: installing$missing"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}

jobs=$(nproc 2>/dev/null || echo 2)

demo() {
	cmake -S . -B build/demo -DCMAKE_BUILD_TYPE=Release -DUMT_BUILD_TESTS=OFF >/dev/null
	cmake --build build/demo -j "$jobs" --target umtdump >/dev/null
	build/demo/tools/umtdump/umtdump info examples/sample-trace
	echo
	build/demo/tools/umtdump/umtdump exec examples/sample-trace
}

# One configuration: configure, build everything, run ctest.
run_suite() {
	dir=$1
	shift
	cmake -S . -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

test_all() {
	run_suite build/asan -DCMAKE_BUILD_TYPE=Debug -DUMT_SANITIZE=ON -DUMT_STRICT=ON
	run_suite build/release -DCMAKE_BUILD_TYPE=Release -DUMT_STRICT=ON
}

case "${1:-}" in
demo) install_missing && demo ;;
test) install_missing && test_all ;;
*)
	echo "usage: sh tools/quickstart.sh demo|test" >&2
	exit 2
	;;
esac
