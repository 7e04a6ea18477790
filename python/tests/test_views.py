"""Zero-copy views of the fixed-size tables: equal, row for row, to the
files read here with struct at the specification's offsets (written out
below, independently of format.h), and to the C API's accessors."""
import os
import struct

import numpy as np
import pytest

import umtrace

# (field, struct format, offset) per row, from umtrace-format.txt and its ERRATA
INS_ROW = [("ID", "<q", 0), ("Type", "B", 8), ("CSis64Bits", "B", 9), ("CodeSize", "B", 10),
           ("ModuleID", "<i", 12), ("Address", "<q", 16), ("CodeBytes", "15s", 24),
           ("DisasmFP", "<q", 40), ("DecodedFP", "<q", 48)]
THREAD_ROW = [("ID", "<i", 0), ("WinTID", "<i", 4), ("TIBAddr", "<q", 8), ("FirstEID", "<q", 16),
              ("LastEID", "<q", 24), ("RecCount", "<q", 32)]
MODULE_ROW = [("LoadEID", "<q", 0), ("UnloadEID", "<q", 8), ("StartAddr", "<q", 16),
              ("EndAddr", "<q", 24), ("WinNameFP", "<q", 32), ("DeviceNameFP", "<q", 40)]
MODULE_2015 = [("LastFileWriteTime", "<Q", 48), ("VersionInfo", "<4H", 56)]
RANGE_ROW = [("First", "<q", 0), ("Last", "<q", 8)]


def _read(trace_dir, name):
    with open(os.path.join(trace_dir, name), "rb") as f:
        return f.read()


def _table(trace_dir, name, fields):
    """Rows of a fixed-size table: generic header (RowCount @8, RowSize @16, TableFP @24)."""
    data = _read(trace_dir, name)
    count, size, fp = struct.unpack_from("<qqq", data, 8)
    rows = []
    for i in range(count):
        row = {}
        for field, fmt, off in fields:
            v = struct.unpack_from(fmt, data, fp + i * size + off)
            row[field] = v[0] if len(v) == 1 else list(v)
        rows.append(row)
    return rows, size


def _as_lists(view, fields):
    out = []
    for r in view:
        row = {}
        for field, fmt, _ in fields:
            v = r[field]
            row[field] = bytes(v) if fmt.endswith("s") else v.tolist()
        out.append(row)
    return out


@pytest.mark.parametrize("attr,name,fields", [
    ("instructions", "ins.itable", INS_ROW), ("threads", "thread.itable", THREAD_ROW),
    ("address_ranges", "address_space.itable", RANGE_ROW)])
def test_table_views_equal_the_files(trace_dir, attr, name, fields):
    rows, size = _table(trace_dir, name, fields)
    with umtrace.open(trace_dir) as t:
        v = getattr(t, attr)
        assert v.dtype.itemsize == size and len(v) == len(rows)
        assert _as_lists(v, fields) == rows
        assert not v.flags.writeable
        with pytest.raises(ValueError):
            v[fields[1][0]][0] = 1


def test_module_view_equals_the_file(trace_dir):
    with umtrace.open(trace_dir) as t:
        size = t.info["module_row_size"]
        fields = MODULE_ROW + (MODULE_2015 if size >= 64 else [])
        rows, stride = _table(trace_dir, "module.itable", fields)
        assert stride == size
        assert _as_lists(t.modules, fields) == rows
        assert ("VersionInfo" in t.modules.dtype.names) == (size >= 64)


def test_exec_views_equal_the_files_and_the_c_api(trace_dir):
    offsets = _read(trace_dir, "exec.offsets")
    links = _read(trace_dir, "exec.prev_next.column")
    with umtrace.open(trace_dir) as t:
        n = len(t)
        eo, pn = t.exec_offsets, t.prev_next
        assert eo.tolist() == list(struct.unpack(f"<{n + 1}Q", offsets))
        flat = struct.unpack(f"<{2 * n}q", links)
        assert pn["Prev"].tolist() == list(flat[0::2])
        assert pn["Next"].tolist() == list(flat[1::2])
        for i in range(0, n, 97):  # the C accessors: umt_exec_get, umt_exec_links
            r = t[i]
            assert (r.offset, r.size) == (eo[i], eo[i + 1] - eo[i])
            assert r.links == tuple(pn[i].tolist())


def test_syscall_offsets_and_rows_equal_the_c_api(trace_dir):
    data = _read(trace_dir, "syscall.offsets")
    with umtrace.open(trace_dir) as t:
        so = t.syscall_offsets
        n = t.counts["syscalls"]
        assert len(so) == n and len(data) == 16 * n
        assert [tuple(r) for r in so.tolist()] == \
            [struct.unpack_from("<qq", data, 16 * i) for i in range(n)]
        vt = _read(trace_dir, "syscall.vtable")
        for i in range(n):
            s = t.syscall(i)
            off = int(so[i]["Offset"])
            assert bytes(s.fields.tobytes()) == vt[off:off + 56]
        ins = t.instructions
        for i in range(0, len(ins), 31):  # umt_ins_get's row, field for field
            assert ins[i].tobytes()[:56] == t.ins(i).row.tobytes()


def test_context_map_view_equals_the_file(trace_dir):
    data = _read(trace_dir, "context_map.itable")
    with umtrace.open(trace_dir) as t:
        cm = t.context_map
        assert (cm["DumpSize"], cm["ElemCount"]) == struct.unpack_from("<HH", data, 0)
        assert cm["CommonName"].tolist() == list(struct.unpack_from("<512h", data, 16))
        assert cm["StrName"].tolist() == [data[1040 + 16 * i:1056 + 16 * i].rstrip(b"\0")
                                          for i in range(512)]
        for i in range(0, 512, 7):
            for arr, base in (("RegMap32", 9232), ("RegMap64", 13328)):
                off, size, _, largest = struct.unpack_from("<HBBh", data, base + 8 * i)
                m = cm[arr][i]
                assert (m["Offset"], m["Size"], m["EffLargest"]) == (off, size, largest)


def test_dtypes_have_the_spec_offsets():
    for dtype, fields in ((umtrace.dtypes.ins_row(64), INS_ROW),
                          (umtrace.dtypes.thread_row(40), THREAD_ROW),
                          (umtrace.dtypes.module_row(64), MODULE_ROW + MODULE_2015),
                          (umtrace.dtypes.address_range_row(16), RANGE_ROW)):
        for field, fmt, off in fields:
            assert dtype.fields[field][1] == off, field
            assert dtype.fields[field][0].itemsize == struct.calcsize(fmt), field
    assert umtrace.dtypes.module_row(48).names == tuple(f for f, _, _ in MODULE_ROW)
    assert umtrace.dtypes.DECODED_INS.itemsize == 88
    assert umtrace.dtypes.DECODED_INS.fields["Mem1BaseSlot"][1] == 67  # ERRATA 1
    assert umtrace.dtypes.LC_SLOT.itemsize == umtrace.dtypes.EXP_OPER.itemsize == 12


def test_views_outlive_slicing_and_copies(traces):
    with umtrace.open(traces["2015"]) as t:
        v = t.instructions
        part = v[10:20]
        assert part.base is not None and np.shares_memory(part, v)
        copy = np.array(v[:5])
        assert copy.flags.writeable
        assert all((copy[f] == v[:5][f]).all() for f in v.dtype.names)
        df = t.threads.to_pandas()
        assert df["WinTID"].tolist() == t.threads["WinTID"].tolist()
