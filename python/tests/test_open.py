"""Opening a trace and its facts: info, counts, trace.xml, registers, names."""
import inspect
import os
import subprocess

import pytest

import umtrace
from conftest import ROOT


def test_info_and_counts_equal_umtdump(tools, trace_dir):
    want = tools.json("info", trace_dir)[0]
    with umtrace.open(trace_dir) as t:
        info = t.info
        for key in ("exec_count", "exec_version", "ins_count", "ins_record_version",
                    "syscall_count", "syscall_version", "unified_ids_version", "module_count",
                    "module_row_size", "thread_count", "thread_row_size",
                    "address_range_count", "dump_size", "context_map_elems"):
            assert info[key] == want[key], key
        assert info["has_trace_xml"] == 1
        assert len(t) == want["exec_count"]
        assert t.counts == {"records": want["exec_count"], "instructions": want["ins_count"],
                            "syscalls": want["syscall_count"], "modules": want["module_count"],
                            "threads": want["thread_count"],
                            "address_ranges": want["address_range_count"]}
        for f in umtrace.File:
            name = t.file_name(f)
            assert len(t.file_bytes(f)) == want["files"][name], name
            assert bytes(t.file_bytes(f)[:64]) == open(os.path.join(trace_dir, name),
                                                       "rb").read(64)
        assert not t.changed()


def test_metadata_equals_umtdump(tools, trace_dir):
    want = tools.json("xml", trace_dir)[0]
    with umtrace.open(trace_dir) as t:
        m = t.metadata
        assert m.layout == want["layout"]
        assert m.as_dict() == want["elements"]
        info = m.info
        for key in ("xed_version", "os_name", "os_id", "app_command_line", "pin_version",
                    "pin_command_line", "raw_trace_date", "umtracer_version"):
            assert info[key] == want[key], key
        assert info["pid"] == want["process_id"]
        for key in ("bitness", "has_xmm", "has_ymm", "has_zmm", "ins_format_version",
                    "ins_begin_record_version", "exec_format_version", "syscall_table_version"):
            assert (None if info[key] == -1 else info[key]) == want[key], key
        assert m.get("xed/VERSION") == want["xed_version"]
        assert m.get("No/Such", "x") == "x"
        m.check()


def test_registers_equal_the_context_map(tools, trace_dir):
    want = {r["id"]: r for r in tools.json("context-map", trace_dir)}
    with umtrace.open(trace_dir) as t:
        regs = {r["reg"]: r for r in t.registers if r["in32"] or r["in64"]}
        assert sorted(regs) == sorted(want)
        for reg, w in want.items():
            r = regs[reg]
            assert r["name"] == w["name"] == t.reg_name(reg)
            assert (r["common"], r["offset32"], r["size32"], r["largest32"], r["offset64"],
                    r["size64"], r["largest64"]) == \
                (w["common_name"], w["offset32"], w["size32"], w["eff_largest32"],
                 w["offset64"], w["size64"], w["eff_largest64"])
            assert t.reg_by_name(w["name"].upper()) == reg
        cm = t.context_map
        assert cm["ElemCount"] == t.info["context_map_elems"]
        assert cm["DumpSize"] == t.info["dump_size"]
        with pytest.raises(umtrace.NotFoundError):
            t.reg_by_name("no-such-register")


def test_names_from_headers(tools, traces):
    xed = os.path.join(ROOT, "tests", "cli", "xed-sample")
    names = umtrace.Names(xed)
    rows = tools.json("--xed-dir", xed, "ins", traces["2015"])
    with umtrace.open(traces["2015"], names=xed) as t:
        for row in rows[:300]:
            d = row["decoded"]
            assert names.mnemonic(d["mnemonic"]) == d.get("mnemonic_name")
            assert names.category(d["category"]) == d.get("category_name")
            assert names.form(d["form"]) == d.get("form_name")
            assert t.ins(row["id"]).mnemonic_name == d.get("mnemonic_name")
        table = names.table("mnemonic")
        assert all(table[v] == names.mnemonic(v) for v in table)
        for s in tools.json("--xed-dir", xed, "syscalls", traces["2015"])[:20]:
            assert t.syscall(s["id"]).name == s.get("uniform_id_name")
    with pytest.raises(umtrace.NotFoundError):
        umtrace.Names(os.path.join(ROOT, "docs"))
    want = subprocess.run([tools.umtdump, "--xed-dir", xed, "info", traces["2014"]],
                          capture_output=True, text=True).stderr  # umtdump's note
    with pytest.warns(UserWarning) as w:
        umtrace.open(traces["2014"], names=names).close()  # its syscall IDs are version 0
    assert len(w) == 1 and str(w[0].message).split(": ", 1)[1] in want


def test_open_errors(tmp_path, traces):
    with pytest.raises(umtrace.MissingError) as e:
        umtrace.open(str(tmp_path))
    assert "exec.vtable" in e.value.message and e.value.code == umtrace.Status.MISSING
    (tmp_path / ".exec.vtable.tmp-abcdef").write_bytes(b"")
    (tmp_path / "exec.offsets").write_bytes(b"")
    with pytest.raises(umtrace.IncompleteError) as e:
        umtrace.open(str(tmp_path))
    assert "incomplete trace" in e.value.message
    with pytest.raises(umtrace.InvalidError):
        umtrace.open(traces["2015"], hint="fast")
    with umtrace.open(traces["2015"], hint="sequential") as t:
        assert len(t) == 30000


def test_salvage_reads_what_is_left(tools, bad_traces, sample):
    d = bad_traces["damaged"]  # thread.itable cut to 20 bytes, exec.vtable short of 100
    with pytest.raises(umtrace.ContentError):
        umtrace.open(d)
    want = tools.json("--salvage", "info", d, check=False)[0]  # (exit 1: something lost)
    notes = subprocess.run([tools.umtdump, "--salvage", "info", d], capture_output=True,
                           text=True).stderr
    with umtrace.open(d, salvage=True) as t, umtrace.open(sample) as good:
        info = t.info
        assert info["salvaged"] == 1 and len(t) == want["exec_count"] < len(good)
        assert info["exec_declared"] == len(good) and info["thread_count"] == 0
        lost = t.salvaged
        assert set(lost) == {"exec.vtable", "thread.itable"}
        assert lost["exec.vtable"][0] == "reduced" and lost["thread.itable"][0] == "unavailable"
        for name, (_, why) in lost.items():
            assert f"{name} " in notes and why in notes  # umtdump's salvage notes
        fields = ("thread", "type", "flags", "ins_id")
        c, g = t.columns(fields=fields), good.columns(0, len(t), fields=fields)
        assert all(c[f].tolist() == g[f].tolist() for f in fields)
        assert len(t.threads) == 0 and len(t.prev_next) == len(t)
        with pytest.raises(umtrace.Error) as e:
            t.thread(0).ids()
        assert "thread.itable" in e.value.message
    with umtrace.open(sample, salvage=True) as t:
        assert t.info["salvaged"] == 0 and t.salvaged == {}


def test_help_is_useful():
    doc = umtrace.__doc__
    for name in ("open", "columns", "history", "to_pandas", "Lifetimes"):
        assert name in doc
    missing = [n for n in umtrace.__all__ if not getattr(umtrace, n).__doc__]
    assert missing == []
    classes = [getattr(umtrace, n) for n in umtrace.__all__
               if inspect.isclass(getattr(umtrace, n)) and
               getattr(umtrace, n).__module__.startswith("umtrace")]
    for cls in classes:
        undocumented = [n for n, v in vars(cls).items() if not n.startswith("_") and
                        callable(getattr(v, "fget", v)) and not getattr(v, "__doc__", None)]
        assert undocumented == [], cls
