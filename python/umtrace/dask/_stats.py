"""Counting jobs: the instruction mix and the syscall statistics.

Each runs as tasks over record ranges (``_engine.run``): a task scans its
range in C (``Trace.scan()``), counts with numpy and returns small dicts
of counts together with the names of what it counted (looked up on the
worker, so the client needs neither the traces nor the name tables); the
combine adds them. ``finish_*`` turn a trace's counts into the job's rows.

The mix counts what ``umtdump stats`` counts: instruction records by the
decoded mnemonic and category of the instruction row they execute
(records whose row has no decoded instruction are "undecoded"), most
frequent first, then by value. Mnemonic numbers are XED iclass values of
the trace's XED version: traces of different versions are totalled apart.
Like umtdump stats it also counts them by the Zydis mnemonic, Zydis
category and control-flow category of the row's code bytes (names every
trace has, without XED headers), from the rows executed only.
Syscalls are counted per syscall record (one entry record each) by
unified ID, with the raw IDs seen and the count per thread.
"""
import numpy as np

from .._constants import RecType
from .._core import cstr
from .._errors import XmlError
from .._ffi import ffi, lib

#: records a task reads at once (arrays reused between chunks)
CHUNK = 1 << 20


def add_counts(a, b):
    """{key: count} a + b (a new dict)."""
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + v
    return out


def merge(a, b, sums=(), counted=(), unions=(), nested=(), same=()):
    """The partials @a and @b added: the keys of @sums are numbers, of
    @counted {key: count} dicts, of @unions dicts of names (joined), of
    @nested {key: {key: count}}; the keys of @same are equal in both."""
    out = {k: a[k] for k in same}
    for k in sums:
        out[k] = a[k] + b[k]
    for k in counted:
        out[k] = add_counts(a[k], b[k])
    for k in unions:
        out[k] = {**a[k], **b[k]}
    for k in nested:
        out[k] = {key: add_counts(a[k].get(key, {}), b[k].get(key, {}))
                  for key in a[k].keys() | b[k].keys()}
    return out


def _sparse(counts):
    """{value: count} of the non-zero entries of a dense count array."""
    nz = np.flatnonzero(counts)
    return dict(zip(nz.tolist(), counts[nz].tolist()))


def xed_version(trace):
    """The trace's XED version from trace.xml ("20150121"), or None."""
    try:
        return trace.metadata.info["xed_version"]
    except XmlError:
        return None


# ---- the instruction mix ------------------------------------------------------

def _zydis(trace, rows, counts):
    """The records of instruction rows @rows (executed @counts times) by the
    Zydis mnemonic, Zydis category and control-flow category of their code
    bytes, with the names, and the records whose code does not decode."""
    n = len(rows)
    mn, zc, cat = np.zeros(n, np.uint16), np.zeros(n, np.uint8), np.zeros(n, np.uint8)
    status = np.zeros(n, np.int32)
    rows = np.ascontiguousarray(rows, np.int64)
    lib.umtpy_sem_pick(trace._core.t, ffi.from_buffer("int64_t[]", rows), n,
                       ffi.from_buffer("uint16_t[]", mn, require_writable=True),
                       ffi.from_buffer("uint8_t[]", zc, require_writable=True),
                       ffi.from_buffer("uint8_t[]", cat, require_writable=True),
                       ffi.from_buffer("int32_t[]", status, require_writable=True))
    ok = status == 0
    out = {"undecodable": int(counts[~ok].sum())}
    for key, values, namer in (("zydis_mnemonic", mn, lib.umt_sem_mnemonic_name),
                               ("zydis_category", zc, lib.umt_sem_zydis_category_name),
                               ("semantic", cat, lib.umt_sem_category_name)):
        total = np.zeros(1 << 16, np.int64)
        np.add.at(total, values[ok], counts[ok])
        out[key] = _sparse(total)
        out[key + "_name"] = {v: cstr(namer(v)) for v in out[key]}
    return out


def mix_part(trace, start, stop):
    """Instruction records of [start, stop) by mnemonic and by category:
    the records of each instruction row counted in C, then added up by the
    row's decoded mnemonic and category (-1: the row has no decoded
    instruction; records whose InsID has no row are undecoded too), and by
    the Zydis names of the row's code bytes (records whose row is missing
    or whose code does not decode: "undecodable")."""
    counts, n, without = trace.row_counts(start, stop)
    ran = np.flatnonzero(counts)
    cache = trace._core.ins_cache()
    m, k, c = cache.mnemonic[ran], cache.category[ran], counts[ran]
    known = m >= 0
    undecoded = without + int(c[~known].sum())
    mn, cat = np.zeros(1 << 15, np.int64), np.zeros(1 << 15, np.int64)
    np.add.at(mn, m[known], c[known])
    np.add.at(cat, k[k >= 0], c[k >= 0])
    mn, cat = _sparse(mn), _sparse(cat)
    names = trace.names
    z = _zydis(trace, ran, c)
    z["undecodable"] += without
    return {"xed_version": xed_version(trace), "instructions": n, "undecoded": undecoded,
            "mnemonic": mn, "category": cat,
            "mnemonic_name": {v: names.mnemonic(v) for v in mn} if names else {},
            "category_name": {v: names.category(v) for v in cat} if names else {}, **z}


_ZYDIS = ("zydis_mnemonic", "zydis_category", "semantic")


def mix_combine(a, b):
    return merge(a, b, sums=("instructions", "undecoded", "undecodable"),
                 counted=("mnemonic", "category") + _ZYDIS,
                 unions=("mnemonic_name", "category_name") + tuple(k + "_name" for k in _ZYDIS),
                 same=("xed_version",))


def _named(counts, key, names):
    """Rows {key: name, count} as umtdump stats lists the Zydis tables: most
    frequent first, then by value; values without a name left out."""
    return [{key: names[v], "count": c}
            for v, c in sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))
            if names.get(v) is not None]


def _ranked(counts, key, names):
    """Rows {key, key_name, count}, most frequent first, then by value; as
    in umtdump stats, key_name only when the name tables know the value."""
    rows = []
    for v, c in sorted(counts.items(), key=lambda vc: (-vc[1], vc[0])):
        name = names.get(v)
        rows.append({key: v, key + "_name": name, "count": c} if name is not None
                    else {key: v, "count": c})
    return rows


def finish_mix(p):
    """A mix partial as the job's result: xed_version, instructions,
    undecoded_instructions, mnemonics, categories, zydis_mnemonics,
    zydis_categories, semantic_categories and undecodable_code (rows as
    umtdump stats --json has them)."""
    return {"xed_version": p["xed_version"], "instructions": p["instructions"],
            "undecoded_instructions": p["undecoded"],
            "mnemonics": _ranked(p["mnemonic"], "mnemonic", p["mnemonic_name"]),
            "categories": _ranked(p["category"], "category", p["category_name"]),
            "zydis_mnemonics": _named(p["zydis_mnemonic"], "zydis_mnemonic",
                                      p["zydis_mnemonic_name"]),
            "zydis_categories": _named(p["zydis_category"], "zydis_category",
                                       p["zydis_category_name"]),
            "semantic_categories": _named(p["semantic"], "category", p["semantic_name"]),
            "undecodable_code": p["undecodable"]}


def total_mix(per_trace):
    """The mixes of many traces ({path: mix partial}) added per XED version:
    a list of results as finish_mix() gives, each with "traces" (how many
    it adds up), ordered by XED version."""
    groups = {}
    for p in per_trace.values():
        g = groups.get(p["xed_version"])
        groups[p["xed_version"]] = p if g is None else mix_combine(g, p)
    counts = {}
    for p in per_trace.values():
        counts[p["xed_version"]] = counts.get(p["xed_version"], 0) + 1
    return [dict(finish_mix(groups[v]), traces=counts[v])
            for v in sorted(groups, key=lambda v: (v is None, v))]


# ---- syscalls -----------------------------------------------------------------

def _bump(counts, key):
    counts[key] = counts.get(key, 0) + 1


def syscalls_part(trace, start, stop):
    """The syscall records entered in [start, stop): counts by unified ID,
    per thread, and the raw IDs seen."""
    sids, threads = [], []
    for _, c in trace.scan(start, stop, fields=("type", "thread", "syscall_id"), chunk=CHUNK):
        entry = c["type"] == RecType.SYSCALL_ENTRY
        sids.extend(c["syscall_id"][entry].tolist())
        threads.extend(c["thread"][entry].tolist())
    count, per_thread, raw, names, tids = {}, {}, {}, {}, {}
    win_tid = trace.threads["WinTID"]
    for sid, th in zip(sids, threads):
        s = trace.syscall(sid)
        u = int(s.fields["UniformID"])
        count[u] = count.get(u, 0) + 1
        _bump(per_thread.setdefault(u, {}), th)
        _bump(raw.setdefault(u, {}), int(s.fields["RawID"]))
        names[u] = s.name
        tids[th] = int(win_tid[th]) if 0 <= th < len(win_tid) else None
    return {"count": count, "per_thread": per_thread, "raw": raw, "name": names,
            "win_tid": tids}


def syscalls_combine(a, b):
    return merge(a, b, counted=("count",), unions=("name", "win_tid"),
                 nested=("per_thread", "raw"))


def finish_syscalls(p):
    """A syscalls partial as rows: uniform_id, uniform_id_name (when known), count,
    raw_ids, by_thread [{thread_id, win_tid, count}], most frequent first
    (then by unified ID)."""
    rows = []
    for u, c in sorted(p["count"].items(), key=lambda uc: (-uc[1], uc[0])):
        row = {"uniform_id": u, "uniform_id_name": p["name"][u], "count": c}
        if row["uniform_id_name"] is None:  # as umtdump stats: no name, no key
            del row["uniform_id_name"]
        row["raw_ids"] = sorted(p["raw"][u])
        row["by_thread"] = [{"thread_id": th, "win_tid": p["win_tid"][th], "count": n}
                            for th, n in sorted(p["per_thread"][u].items())]
        rows.append(row)
    return rows
