"""Corrupt traces: the right exception with the library's message (the same
umtdump prints), records before a bad one still read, bad records skipped
on request, and no crash of the interpreter on randomly damaged traces."""
import os
import random
import shutil
import subprocess
import sys

import pytest

import umtrace


def umtdump_messages(tools, *args):
    """What umtdump reports on standard error, without "umtdump: " (and the trace)."""
    err = tools.run(*args, check=False).stderr
    return [line.split(": ", 1)[1] for line in err.splitlines() if line.startswith("umtdump: ")]


def test_truncated_trace_does_not_open(tools, bad_traces):
    d = bad_traces["truncated"]
    with pytest.raises(umtrace.BoundsError) as e:
        umtrace.open(d)
    assert umtdump_messages(tools, "info", d) == [f"{d}: {e.value.message}"]
    assert e.value.message.startswith("exec.offsets: at offset 0x")


def test_bad_offsets(tools, bad_traces, sample):
    d = bad_traces["offsets"]
    want = umtdump_messages(tools, "-k", "exec", d)
    with umtrace.open(d) as t:
        with pytest.raises(umtrace.BoundsError) as e4:
            t[4]
        with pytest.raises(umtrace.CorruptError) as e5:
            t[5]
        assert [e4.value.message, e5.value.message] == want
        seen = []
        with pytest.raises(umtrace.BoundsError) as e:
            for r in t:
                seen.append(r.id)
        assert seen == [0, 1, 2, 3] and e.value.record_id == 4
        with pytest.raises(umtrace.BoundsError) as e:
            t.columns()
        assert e.value.record_id == 4 and e.value.message == want[0]
        c = t.columns(fields=("id", "thread", "type", "ok", "ins_id"), skip_bad=True)
        with umtrace.open(sample) as good:
            g = good.columns(fields=("thread", "type", "ins_id"))
        bad = [4, 5]
        assert [i for i, ok in enumerate(c["ok"]) if not ok] == bad
        assert c["type"][bad].tolist() == [255, 255] and c["thread"][bad].tolist() == [-1, -1]
        keep = [i for i in range(len(t)) if i not in bad]
        for f in ("thread", "type", "ins_id"):
            assert c[f][keep].tolist() == g[f][keep].tolist()
        with pytest.raises(umtrace.BoundsError):
            t.accesses()
        assert set(t.accesses(skip_bad=True)["id"].tolist()).isdisjoint(bad)
        with pytest.raises(umtrace.BoundsError) as e:
            t.row_counts()
        assert e.value.record_id == 4 and e.value.message == want[0]
        assert t.row_counts(0, 4)[1] == sum(1 for k in range(4) if g["type"][k] == 0)


def test_bad_type(tools, bad_traces):
    d = bad_traces["type"]
    with umtrace.open(d) as t:
        with pytest.raises(umtrace.RecordTypeError) as e:
            t[7]
        assert [e.value.message] == umtdump_messages(tools, "-k", "exec", d)
        assert t.columns(fields=("ok",), skip_bad=True)["ok"].tolist() == \
            [i != 7 for i in range(len(t))]


@pytest.mark.parametrize("name,cmd,exc,action", [
    ("insid", ["exec", "--operands"], umtrace.BoundsError, lambda t: t[2].operands),
    ("lcsize", ["exec", "--operands"], umtrace.TruncatedError, lambda t: t[1].operands),
    ("syscall", ["syscalls"], umtrace.TruncatedError, lambda t: t.syscall(0)),
    ("module", ["modules"], umtrace.BoundsError, lambda t: t.module_name(0)),
    ("disasm", ["ins", "--id", "3"], umtrace.BoundsError, lambda t: t.ins(3).disasm),
    ("xml", ["xml"], umtrace.XmlError, lambda t: t.metadata),
])
def test_bad_content_raises_the_library_message(tools, bad_traces, name, cmd, exc, action):
    d = bad_traces[name]
    with umtrace.open(d) as t:
        with pytest.raises(exc) as e:
            action(t)
        assert e.value.message == umtdump_messages(tools, *cmd, d)[0]
        assert isinstance(e.value, umtrace.Error) and e.value.code == exc.code
        assert len(t.columns(fields=("thread", "ins_id", "mnemonic"))["thread"]) == len(t)


def test_bad_instruction_id_in_columns(bad_traces):
    with umtrace.open(bad_traces["insid"]) as t:
        c = t.columns(fields=("ins_id", "address", "mnemonic", "module"))
        assert (c["ins_id"][2], c["address"][2], c["mnemonic"][2], c["module"][2]) == \
            (99999, 0, -1, -1)
        # the record of no row is counted apart, the others by row
        counts, n, without = t.row_counts()
        ins = c["ins_id"][t.columns(fields=("type",))["type"] == 0]
        assert (n, without) == (len(ins), 1) and int(counts.sum()) == n - 1


def test_missing_trace_xml_is_no_error(bad_traces):
    with umtrace.open(bad_traces["no-xml"]) as t:
        m = t.metadata
        assert (m.layout, m.leaves, m.get("Xed/Version")) == ("none", [], None)
        assert len(t.file_bytes(umtrace.File.TRACE_XML)) == 0


def test_verify_reports_what_umtdump_reports(tools, bad_traces):
    for name, d in sorted(bad_traces.items()):
        if name in ("truncated", "damaged"):  # they do not open (test_open: salvage)
            continue
        want = [w for w in tools.json("verify", d, check=False)
                if w["kind"] == "problem" and w["source"] == "verify"]
        seen = []
        with umtrace.open(d) as t:
            res = t.verify(on_problem=seen.append)
        assert res.problems == seen and res.ok == (name == "no-xml")
        assert [(p.status, p.severity.name.lower(), p.check.name.lower().replace("_", "-"),
                 None if p.file is None else t.file_name(p.file), p.id, p.offset, p.message)
                for p in res.problems] == \
            [(w["status"], w["severity"], w["check"], w["file"], w["id"], int(w["offset"], 16),
              w["message"]) for w in want], name


def _damage(src, dst, rnd):
    """A copy of trace @src with a few random bytes of one or two files changed."""
    shutil.copytree(src, dst)
    names = sorted(os.listdir(dst))
    for name in rnd.sample(names, rnd.choice((1, 2))):
        path = os.path.join(dst, name)
        data = bytearray(open(path, "rb").read())
        if not data:
            continue
        for _ in range(rnd.choice((1, 4, 16))):
            i = rnd.randrange(len(data))
            data[i] = rnd.choice((0, 0xff, 0x7f, 0x80, rnd.randrange(256)))
        if rnd.random() < 0.15:
            del data[rnd.randrange(len(data)):]
        open(path, "wb").write(bytes(data))


def test_no_crash_on_damaged_traces(tools, tmp_path, bad_traces):
    src = tools.gen(str(tmp_path / "small"), 1500, 3, 21)
    rnd = random.Random(1234)
    dirs = sorted(bad_traces.values())
    for i in range(24):
        d = str(tmp_path / f"damaged{i}")
        _damage(src, d, rnd)
        dirs.append(d)
    sweep = os.path.join(os.path.dirname(__file__), "sweep.py")
    p = subprocess.run([sys.executable, sweep, *dirs], capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    lines = p.stdout.splitlines()
    assert len(lines) == len(dirs)
    assert sum(int(line.rsplit(": ", 1)[1].split()[0]) > 0 for line in lines) >= len(dirs) // 2
