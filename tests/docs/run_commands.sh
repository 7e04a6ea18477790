#!/bin/sh
# Runs every shell command of the documentation as written, in order, as a
# new user would on a fresh clone (README.md, docs/*.md, the man pages'
# examples; tests/docs/doc_blocks.py says where they are and how a block is
# marked not to run). It fails when one fails.
#   run_commands.sh SOURCE_DIR
#
# Nothing outside a scratch directory is touched: the commands run in a copy
# of the source tree (the files git knows, or the whole tree less its build
# directories), with HOME in the scratch directory, so that "install into
# ~/.local" installs there, and without the caller's PKG_CONFIG_PATH,
# LD_LIBRARY_PATH and make flags. The README's commands build and test the
# copy, and that test suite holds this test: inside it, this test is
# skipped (status 77) instead of running again.
# UMT_DOCS_KEEP=1 keeps the scratch directory.
set -u
if [ -n "${UMT_DOCS_TEST_RUNNING:-}" ]; then
	echo "skipped: already inside a run of the documentation's commands"
	exit 77
fi
src=$(cd "$1" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/umt-docs.XXXXXX")
[ -n "${UMT_DOCS_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
tree=$work/tree
mkdir -p "$tree" "$work/home"

# The copy: what a clone holds, uncommitted changes included.
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh) |
		tar -C "$src" -cf - -T - | tar -C "$tree" -xf -
else
	tar -C "$src" --exclude='./build*' -cf - . | tar -C "$tree" -xf -
fi

# What every block can use: where it is, tools it may need, the syntax
# check of a block that does not run.
cat >"$work/commands.sh" <<'EOF'
block() {
	where=$1
	cd "$TREE"
	echo
	echo "== $where"
}
have() {
	for tool; do
		command -v "$tool" >/dev/null 2>&1 || return 1
	done
}
not_run() {
	echo "   not run: $1"
	sh -n || { echo "$where: shell syntax error"; exit 1; }
}
trap '[ "$where" = end ] || echo "run_commands: failed in the block at $where"' EXIT
set -e
EOF
python3 "$src/tests/docs/doc_blocks.py" "$tree" >>"$work/commands.sh" || exit 1

cd "$tree" || exit 1
env -u PKG_CONFIG_PATH -u LD_LIBRARY_PATH -u MAKEFLAGS -u MFLAGS -u CMAKE_BUILD_PARALLEL_LEVEL \
	HOME="$work/home" TREE="$tree" UMT_DOCS_TEST_RUNNING=1 sh "$work/commands.sh"
status=$?
if [ $status -eq 0 ]; then
	echo
	echo "every command of the documentation ran as written"
fi
exit $status
