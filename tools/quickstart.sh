#!/bin/sh
# libumtrace quick start on a Debian machine. Installs what is missing
# (with sudo when not root), builds, and runs.
#
#   sh tools/quickstart.sh demo   build umtdump, run it on the bundled sample trace
#   sh tools/quickstart.sh test   everything CI checks (.ci/run calls this), in order:
#     1. gcc, AddressSanitizer + UndefinedBehaviorSanitizer (alignment included),
#        warnings as errors: build, whole test suite (corpus replay included);
#     2. gcc, optimised, warnings as errors: build, whole test suite;
#     3. gcc, ThreadSanitizer: test_threads (8 threads on one trace handle
#        through every lazily built part), stopping at the first data race;
#     4. clang, ASan + UBSan, warnings as errors, with the libFuzzer targets:
#        build, whole test suite;
#     5. each libFuzzer target for a short smoke run from the seed corpus
#        ($UMT_FUZZ_SECONDS seconds each, default 25);
#     6. cppcheck and clang-tidy on src/ with the committed configuration
#        (.cppcheck/suppressions.txt, .clang-tidy);
#     7. the Python package (python/, docs/python.md): a fresh pip install into
#        a temporary directory with Debian's python3, and its tests (pytest)
#        against the tools of build/release (test_dask.py among them: a Dask
#        scheduler and two workers on 127.0.0.1, about 80 s); then the
#        corrupt-trace, lifetime and thread tests against a build with ASan + UBSan.
#   Each step says what it runs; the first failure stops with a non-zero status.
#   Build trees go to build/asan, build/release, build/tsan and build/clang.
set -eu
cd "$(dirname "$0")/.."

PACKAGES="cmake make gcc pkg-config libxml2-dev libzydis-dev libcmocka-dev libsqlite3-dev python3"
# For `test`: clang with its sanitizer and libFuzzer runtimes (libclang-rt-dev
# is Debian's package of the runtimes of the default clang: libclang-rt-14-dev
# on Debian 12), and the static analysers.
TEST_PACKAGES="clang libclang-rt-dev cppcheck clang-tidy sqlite3"
# For the Python package: Debian's interpreter and its packages (its tests
# run with /usr/bin/python3, which sees them; a pyenv or venv python3 does not).
PYTHON_PACKAGES="python3-dev python3-cffi python3-numpy python3-setuptools python3-pip
python3-pytest python3-pandas python3-matplotlib python3-distributed python3-dask"

install_missing() {
	missing=""
	for p in "$@"; do
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

# Prints a step heading.
step() {
	echo
	echo "== quickstart: $*"
}

# One configuration: configure, build everything, run ctest.
run_suite() {
	dir=$1
	shift
	echo "cmake -S . -B $dir $*"
	cmake -S . -B "$dir" "$@" >/dev/null
	cmake --build "$dir" -j "$jobs" >/dev/null
	ctest --test-dir "$dir" --output-on-failure -j "$jobs"
}

# ThreadSanitizer: the multi-threaded tests (one trace handle shared by 8
# threads; the index and call-section builds on 2 threads, killed ones
# included), failing on the first race report. The tools are not built
# here: the tests run umtgen of the optimised tree $2 (a separate process).
tsan_suite() {
	dir=$1
	gen=$(pwd)/$2/tools/umtgen/umtgen
	echo "cmake -S . -B $dir -DUMT_TSAN=ON (test_threads, test_index, test_calls;" \
		"TSAN_OPTIONS=halt_on_error=1)"
	cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUMT_TSAN=ON -DUMT_STRICT=ON \
		-DUMT_BUILD_TOOLS=OFF >/dev/null
	cmake --build "$dir" -j "$jobs" --target test_threads test_index test_calls >/dev/null
	UMTGEN="$gen" TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
		ctest --test-dir "$dir" -R '^(test_threads|test_index|test_calls)$' --output-on-failure
}

# Whether clang can link a libFuzzer program (libclang-rt present).
have_libfuzzer() {
	command -v clang >/dev/null 2>&1 || return 1
	probe=$(mktemp -d "${TMPDIR:-/tmp}/umt-probe.XXXXXX")
	printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
		>"$probe/probe.c"
	ok=0
	clang -fsanitize=fuzzer,address,undefined "$probe/probe.c" -o "$probe/probe" \
		>/dev/null 2>&1 || ok=1
	rm -rf "$probe"
	return $ok
}

# Runs each libFuzzer target of build tree $1 from a scratch copy of the seed corpus.
fuzz_smoke() {
	dir=$1
	secs=${UMT_FUZZ_SECONDS:-25}
	for t in trace meta enum writer index regs calls; do
		work=$dir/fuzz-smoke/$t
		rm -rf "$work"
		mkdir -p "$work/corpus" "$work/artifacts"
		cp tests/fuzz/corpus/$t/* "$work/corpus/"
		echo "$dir/tests/fuzz/fuzz_$t -max_total_time=$secs ($t corpus, tests/fuzz/$t.dict)"
		if ! "$dir/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 \
			-dict="tests/fuzz/$t.dict" -artifact_prefix="$work/artifacts/" \
			-print_final_stats=1 "$work/corpus" tests/fuzz/crashes/$t \
			>"$work/log" 2>&1; then
			tail -n 40 "$work/log"
			echo "quickstart: fuzz_$t failed; the input is in $work/artifacts/" \
				"(add it to tests/fuzz/crashes/$t/ once fixed)" >&2
			return 1
		fi
		# executions, and the last status line: edges (cov) and features (ft)
		grep -E '^Done [0-9]+ runs' "$work/log"
		grep -E '^#[0-9]+' "$work/log" | tail -n 1
	done
}

# cppcheck and clang-tidy on src/, clang-tidy with the compile commands of $1.
static_analysis() {
	dir=$1
	echo "cppcheck src/ (--suppressions-list=.cppcheck/suppressions.txt)"
	cppcheck --quiet --error-exitcode=1 --std=c11 \
		--enable=warning,style,performance,portability --inline-suppr \
		--suppressions-list=.cppcheck/suppressions.txt -I include -I src \
		-D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
		--template='{file}:{line}: {severity}: {message} [{id}]' src
	echo "clang-tidy src/*.c src/index/*.c (.clang-tidy)"
	status=0
	ls src/*.c src/index/*.c | xargs -P "$jobs" -n 2 clang-tidy --quiet -p "$dir" \
		>"$dir/clang-tidy.log" 2>&1 || status=$?
	if [ $status -ne 0 ] || grep -Evq '^[0-9]+ warnings? generated\.$' "$dir/clang-tidy.log"; then
		grep -Ev '^[0-9]+ warnings? generated\.$' "$dir/clang-tidy.log"
		echo "quickstart: clang-tidy found problems (status $status)" >&2
		return 1
	fi
}

# The Python package: installed fresh (new build directory, new target
# directory) with Debian's python3, then its tests against the tools of
# build tree $1; then the tests of bad input, lifetimes and threads again
# on a sanitized build.
python_suite() {
	dir=$1
	py=/usr/bin/python3
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/umt-python.XXXXXX")
	for flavour in plain sanitized; do
		san=0
		[ $flavour = sanitized ] && san=1
		echo "$py -m pip install --no-build-isolation --no-deps --target $tmp/$flavour ./python" \
			"(UMTRACE_SANITIZE=$san)"
		UMTRACE_SANITIZE=$san UMTRACE_BUILD_BASE="$tmp/build-$flavour" \
			"$py" -m pip install --quiet --root-user-action=ignore --no-build-isolation \
			--no-deps --no-index --target "$tmp/$flavour" ./python
	done
	export UMTRACE_UMTDUMP="$dir/tools/umtdump/umtdump" UMTRACE_UMTGEN="$dir/tools/umtgen/umtgen"
	echo "pytest python/tests (the fresh install)"
	PYTHONPATH="$tmp/plain" UMTRACE_EXPECT_DIR="$tmp/plain" \
		"$py" -m pytest -q -p no:cacheprovider python/tests
	echo "pytest python/tests/test_errors.py test_lifetimes.py test_threads.py (ASan + UBSan build)"
	PYTHONPATH="$tmp/sanitized" UMTRACE_EXPECT_DIR="$tmp/sanitized" \
		LD_PRELOAD="$(gcc -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0 \
		"$py" -m pytest -q -p no:cacheprovider python/tests/test_errors.py \
		python/tests/test_lifetimes.py python/tests/test_threads.py
	rm -rf "$tmp"
}

test_all() {
	start=$(date +%s)
	export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
	step "gcc, AddressSanitizer + UndefinedBehaviorSanitizer, warnings as errors"
	run_suite build/asan -DCMAKE_BUILD_TYPE=Debug -DUMT_SANITIZE=ON -DUMT_STRICT=ON
	step "gcc, optimised, warnings as errors"
	run_suite build/release -DCMAKE_BUILD_TYPE=Release -DUMT_STRICT=ON
	step "gcc, ThreadSanitizer: one trace handle on 8 threads, index builds on 2"
	tsan_suite build/tsan build/release
	fuzz=OFF
	if have_libfuzzer; then
		fuzz=ON
	else
		echo "quickstart: clang cannot link -fsanitize=fuzzer (libclang-rt missing):" \
			"libFuzzer targets SKIPPED"
	fi
	step "clang, ASan + UBSan, warnings as errors, libFuzzer targets $fuzz"
	run_suite build/clang -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DUMT_SANITIZE=ON -DUMT_STRICT=ON -DUMT_FUZZ=$fuzz -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
	if [ $fuzz = ON ]; then
		step "libFuzzer smoke runs"
		fuzz_smoke build/clang
	fi
	step "static analysis"
	static_analysis build/clang
	step "Python package: fresh install, tests (and a sanitized build)"
	python_suite build/release
	echo
	echo "quickstart: every check passed in $(($(date +%s) - start)) s"
}

case "${1:-}" in
demo) install_missing $PACKAGES && demo ;;
test) install_missing $PACKAGES $TEST_PACKAGES $PYTHON_PACKAGES && test_all ;;
*)
	echo "usage: sh tools/quickstart.sh demo|test" >&2
	exit 2
	;;
esac
