#!/usr/bin/env python3
"""Writes a shell script that runs the shell commands of the documentation
in order, as a reader would type them (run_commands.sh runs it).

    doc_blocks.py SOURCE_DIR > commands.sh

Where the commands are, in this order:
  - README.md, docs/guide.md, then the other docs/*.md: every fenced block
    whose info string starts with "sh". "```sh no-run: REASON" marks a block
    not meant to run; "```sh needs=TOOL[,TOOL]" one that needs tools the
    tests may lack. "```c file=NAME" is a program that later commands
    compile: it is saved as NAME. Other fences (```c: the programs that
    examples/ builds) are not commands.
  - the man pages docs/*.[1-8]: every .nf ... .fi block of the EXAMPLE or
    EXAMPLES section, after roff escapes are undone. A roff comment line
    '.\\" doc-test: no-run: REASON', '.\\" doc-test: needs TOOL' or
    '.\\" doc-test: file NAME' (the block is the file NAME that the
    following commands use, e.g. a C program) before the block marks it.
  - files whose blocks are never run, with the reason (FILE_RULES).

In the script, each block runs from the top of the scratch tree ($TREE),
in one shell, so that what a block exports holds for the next ones, as in
a reader's terminal. A block that does not run is still checked for shell
syntax (sh -n), and the reason is printed. The script stops at the first
failure (set -e) and says which block it was in.
"""
import glob
import os
import re
import sys

# Documents whose blocks are not run, and why.
FILE_RULES = {
    "docs/performance.md": "benchmark commands: they write traces of 8 and 38 GiB and run "
                           "for minutes (ctest runs umtbench --smoke instead)",
}

# The roff escapes examples may use, and what they stand for.
ROFF_ESCAPES = {"\\-": "-", "\\&": "", "\\(aq": "'", "\\(dq": '"', "\\e": "\\"}


class Block:
    def __init__(self, where, text, mode="run", detail=""):
        self.where, self.text, self.mode, self.detail = where, text, mode, detail


def parse_marker(where, marker):
    """(mode, detail) of a marker: "no-run: REASON", "needs TOOL...", "file NAME"."""
    m = re.fullmatch(r"no-run:?\s*(.*)", marker)
    if m:
        if not m.group(1):
            sys.exit(f"{where}: a no-run block must say why")
        return "no-run", m.group(1)
    m = re.fullmatch(r"needs[=\s]\s*([\w,+.-]+)", marker)
    if m:
        return "needs", m.group(1)
    m = re.fullmatch(r"file[=\s]\s*([\w.-]+)", marker)
    if m:
        return "file", m.group(1)
    sys.exit(f"{where}: unknown doc-test marker '{marker}'")


def markdown_blocks(path, rel):
    blocks, lines = [], open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = re.fullmatch(r"```(sh|c file=\S+)(?:\s+(.*))?", lines[i])
        if not m:
            if lines[i].startswith("```") and not re.fullmatch(r"```\w*", lines[i]):
                sys.exit(f"{rel}:{i + 1}: a fence with words after a language other than sh")
            i += 1
            continue
        marker = m.group(2) if m.group(1) == "sh" else m.group(1)[2:]
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        if i == len(lines):
            sys.exit(f"{rel}:{start}: fence not closed")
        mode, detail = parse_marker(f"{rel}:{start}", marker) if marker else ("run", "")
        blocks.append(Block(f"{rel}:{start}", "\n".join(body) + "\n", mode, detail))
        i += 1
    return blocks


def unroff(where, line):
    if line.startswith(".") or line.startswith("'"):
        sys.exit(f"{where}: a roff request inside an example block: {line}")
    def plain(m):
        if m.group(0) not in ROFF_ESCAPES:
            sys.exit(f"{where}: roff escape {m.group(0)} is not one of {list(ROFF_ESCAPES)}")
        return ROFF_ESCAPES[m.group(0)]
    return re.sub(r"\\(\(..|.)", plain, line)


def man_blocks(path, rel):
    blocks, marker, section, body = [], None, "", None
    for n, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith(".SH "):
            section = line[4:].strip().strip('"')
        if section not in ("EXAMPLE", "EXAMPLES"):
            continue
        if body is not None:
            if line == ".fi":
                mode, detail = parse_marker(where, marker) if marker else ("run", "")
                blocks.append(Block(where, "\n".join(body) + "\n", mode, detail))
                body, marker = None, None
            else:
                body.append(unroff(f"{rel}:{n}", line))
        elif line.startswith('.\\" doc-test:'):
            marker = line.split(":", 1)[1].strip()
        elif line == ".nf":
            body, where = [], f"{rel}:{n + 1}"
    return blocks


def documents(src):
    md = ["README.md", "docs/guide.md"]
    md += sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md"))
                 if os.path.relpath(p, src) not in md)
    man = sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.[1-8]")))
    return [(rel, markdown_blocks) for rel in md] + [(rel, man_blocks) for rel in man]


def quoted(text, tag="UMT_DOC_BLOCK"):
    assert tag not in text
    return f"<<'{tag}'\n{text}{tag}\n"


def emit(b):
    """The shell code that runs, writes or checks one block."""
    head = f"block '{b.where}'\n"
    if b.mode == "run":
        return head + b.text
    if b.mode == "file":
        return head + f'cat >"$TREE/{b.detail}" ' + quoted(b.text)
    if b.mode == "no-run":
        return head + f"not_run {shell_word(b.detail)} " + quoted(b.text)
    tools = " ".join(b.detail.split(","))
    return (head + f"if have {tools}; then\n{b.text}else\n"
            f"not_run {shell_word('needs ' + tools + ', not installed')} " + quoted(b.text)
            + "fi\n")


def shell_word(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main():
    src = sys.argv[1]
    out = ["# Generated by tests/docs/doc_blocks.py from the documentation.\n"]
    for rel, extract in documents(src):
        blocks = extract(os.path.join(src, rel), rel)
        if rel in FILE_RULES:
            for b in blocks:
                b.mode, b.detail = "no-run", FILE_RULES[rel]
        out += [emit(b) for b in blocks]
    out.append("block 'end'\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
