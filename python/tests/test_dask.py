"""umtrace.dask on a real cluster: a dask-scheduler and two dask-worker
processes on 127.0.0.1, started by this module and stopped at its end
(process groups, killed on the way out whatever happens).

Every job runs on umtgen traces and is compared with what the C tools
compute in one process (umtdump --json: stats, syscalls, exec, modules,
history, index), or with a brute-force count from their output; a worker
is killed in the middle of a job and in the middle of an index part; a
collection holds a corrupt and a missing trace; the indexes built on the
cluster (one task per trace, or one trace in parts and a merge) are
byte-identical to the ones umtdump builds; docs/dask.md's session runs
as written. Each test is bounded (SIGALRM); the module takes about 80 s
on a loaded two-core machine.
"""
import collections
import filecmp
import functools
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")

import umtrace  # noqa: E402
import umtrace.dask as ud  # noqa: E402
from umtrace.dask import _build, _cache, _stats  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
#: seconds any one test may take
LIMIT = 150


@pytest.fixture(autouse=True)
def bounded():
    """Fails a test that runs longer than LIMIT instead of hanging the suite."""
    def expire(signum, frame):
        raise TimeoutError(f"test ran longer than {LIMIT} s")
    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(LIMIT)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _command(name, module):
    """The console script of Dask (dask-scheduler, dask-worker), else its module."""
    path = shutil.which(name)
    return [path] if path else [sys.executable, "-m", module]


class Cluster:
    """dask-scheduler and @workers dask-worker processes (one thread each,
    with their nanny) on 127.0.0.1, each in its own process group."""

    def __init__(self, tmp, workers=2):
        self.tmp, self.procs = tmp, []
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        env = dict(os.environ)
        # the workers import this module for the functions of the tests
        env["PYTHONPATH"] = os.pathsep.join(p for p in (HERE, env.get("PYTHONPATH")) if p)
        self.env = env
        self._start(_command("dask-scheduler", "distributed.cli.dask_scheduler") +
                    ["--host", "127.0.0.1", "--port", self.address.rsplit(":", 1)[1],
                     "--no-dashboard"], "scheduler")
        for i in range(workers):
            self.add_worker(f"w{i}")
        self.client = distributed.Client(self.address, timeout=60)
        self.client.wait_for_workers(workers, timeout=120)

    def _start(self, argv, name):
        log = open(os.path.join(self.tmp, name + ".log"), "w")
        self.procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                           cwd=self.tmp, env=self.env, start_new_session=True))
        log.close()

    def add_worker(self, name):
        self._start(_command("dask-worker", "distributed.cli.dask_worker") +
                    [self.address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
                     "--name", name, "--local-directory", os.path.join(self.tmp, name)], name)

    def close(self):
        try:
            if hasattr(self, "client"):
                self.client.close(timeout=10)
        finally:
            for p in self.procs:
                for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
                    try:
                        os.killpg(p.pid, sig)
                        p.wait(wait)
                        break
                    except ProcessLookupError:
                        break
                    except subprocess.TimeoutExpired:
                        continue


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = None
    try:
        c = Cluster(str(tmp_path_factory.mktemp("cluster")))
        yield c
    finally:
        if c is not None:
            c.close()


@pytest.fixture(scope="module")
def client(cluster):
    return cluster.client


@pytest.fixture(scope="module")
def corpus(tools, tmp_path_factory):
    """Three umtgen traces (both flavours, 2-4 threads), their name tables,
    a corrupt trace (tests/cli/mkbad.py: record 7 of undefined type) and
    a path where there is no trace."""
    d = tmp_path_factory.mktemp("corpus")
    runs = {"a": (120000, 3, 21, "2015"), "b": (60000, 2, 22, "2014"),
            "c": (80000, 4, 23, "2015")}
    for name, (records, threads, seed, flavour) in runs.items():
        subprocess.run([tools.umtgen, "--records", str(records), "--threads", str(threads),
                        "--seed", str(seed), "--flavour", flavour, "--quiet",
                        "--xed-headers", str(d / f"names-{name}"), str(d / name)], check=True)
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "cli", "mkbad.py"),
                    os.path.join(ROOT, "examples", "sample-trace"), str(d / "bad")],
                   check=True, stdout=subprocess.DEVNULL)
    paths = {name: str(d / name) for name in runs}
    paths["corrupt"] = str(d / "bad" / "bad-type")
    paths["missing"] = str(d / "no-such-trace")
    paths["names"] = str(d / "names-a")
    return paths


def good(corpus):
    return [corpus[k] for k in ("a", "b", "c")]


# ---- what the C tools say -----------------------------------------------------

def c_stats(tools, path, names):
    return tools.json("--xed-dir", names, "stats", path)[0]


_RECORDS = {}


def c_records(tools, path):
    """Every record of the trace, per umtdump (kept: traces do not change)."""
    if path not in _RECORDS:
        _RECORDS[path] = tools.json("exec", path)
    return _RECORDS[path]


def c_coverage(tools, path):
    """{(module name, base): (set of addresses, instruction records)}, the
    module found from the module table's load windows and address ranges
    (not from the instruction rows' ModuleID, which the job uses)."""
    mods = tools.json("modules", path)
    out = collections.defaultdict(lambda: [set(), 0])
    for r in c_records(tools, path):
        if r["type"] != "instruction":
            continue
        a, rid = int(r["address"], 16), r["id"]
        hits = [m for m in mods if int(m["start_addr"], 16) <= a <= int(m["end_addr"], 16)
                and m["load_eid"] <= rid and (m["unload_eid"] < 0 or rid <= m["unload_eid"])]
        assert len(hits) <= 1
        key = (hits[0]["win_name"], int(hits[0]["start_addr"], 16)) if hits else (None, None)
        out[key][0].add(a)
        out[key][1] += 1
    return {k: (s, n) for k, (s, n) in out.items()}


# ---- the jobs, exact ------------------------------------------------------------

def test_mix_equals_umtdump_stats(client, corpus, tools):
    r = ud.mix(client, good(corpus), names=corpus["names"], parts=5)
    assert r.ok and set(r.value) == set(good(corpus))
    for path in good(corpus):
        c = c_stats(tools, path, corpus["names"])
        got = r.value[path]
        assert got["instructions"] == c["instructions"] == c["by_type"]["instruction"]
        assert got["undecoded_instructions"] == c["undecoded_instructions"]
        assert got["mnemonics"] == c["mnemonics"]
        assert got["categories"] == c["categories"]
        for key in ("zydis_mnemonics", "zydis_categories", "semantic_categories",
                    "undecodable_code"):
            assert got[key] == c[key], key
        assert got["zydis_mnemonics"] and sum(m["count"] for m in got["zydis_mnemonics"]) + \
            got["undecodable_code"] == got["instructions"]
    # the totals: one per XED version, each the sum of its traces
    versions = {v["xed_version"]: v for v in r.total}
    assert set(versions) == {"20150121", "20140106"}
    assert versions["20150121"]["traces"] == 2
    want = collections.Counter()
    for k in ("a", "c"):
        want.update({m["mnemonic"]: m["count"] for m in r.value[corpus[k]]["mnemonics"]})
    assert {m["mnemonic"]: m["count"] for m in versions["20150121"]["mnemonics"]} == want


def test_coverage_equals_a_brute_force_count(client, corpus, tools):
    r = ud.coverage(client, good(corpus), parts=4)
    assert r.ok
    for path in good(corpus):
        want = c_coverage(tools, path)
        got = {(m["module"], m["base"]): m for m in r.value[path]["modules"]}
        assert set(got) == set(want)
        for key, (addresses, records) in want.items():
            assert got[key]["addresses"] == len(addresses)
            assert got[key]["executions"] == records
            assert got[key]["address_list"].tolist() == sorted(addresses)
        assert r.value[path]["instructions"] == sum(n for _, n in want.values())
        assert r.value[path]["without_row"] == 0


def test_coverage_equals_umtdump_coverage(client, corpus, tools, tmp_path):
    """Against the index's coverage section (umtdump --json coverage, one
    row per load of a module): per (module, base), the job's executions
    are the loads' sum, its distinct addresses those of the one load, or
    between the largest load's and the loads' sum."""
    r = ud.coverage(client, good(corpus), parts=3)
    for path in good(corpus):
        idx = str(tmp_path / os.path.basename(path))
        tools.run("index", "--out", idx, path)
        loads = collections.defaultdict(list)
        for row in tools.json("--index", idx, "coverage", path):
            base = None if row["base"] is None else int(row["base"], 16)
            loads[row["module"], base].append(row)
        got = {(m["module"], m["base"]): m for m in r.value[path]["modules"]}
        assert set(got) == set(loads)
        for key, rows in loads.items():
            assert got[key]["executions"] == sum(x["executions"] for x in rows)
            most, total = max(x["addresses"] for x in rows), sum(x["addresses"] for x in rows)
            assert most <= got[key]["addresses"] <= total
            if len(rows) == 1:
                assert got[key]["addresses"] == total


def _offsets(cov):
    out = collections.defaultdict(set)
    for (name, base), (addresses, _) in cov.items():
        out[name] |= {a - (base or 0) for a in addresses}
    return out


def test_coverage_diff_against_sets(client, corpus, tools):
    paths = [corpus["a"], corpus["c"]]
    r = ud.coverage_diff(client, paths, parts=3)
    sets = {p: _offsets(c_coverage(tools, p)) for p in paths}
    rows = {d["module"]: d for d in r.diff}
    assert set(rows) == set(sets[paths[0]]) | set(sets[paths[1]])
    differ = 0
    for name, d in rows.items():
        a, c = sets[paths[0]].get(name, set()), sets[paths[1]].get(name, set())
        assert d["common"] == len(a & c)
        t = {x["trace"]: x for x in d["traces"]}
        assert t[paths[0]]["only"] == sorted(a - c) == t[paths[1]]["missing"]
        assert t[paths[1]]["only"] == sorted(c - a) == t[paths[0]]["missing"]
        differ += len(a ^ c)
    assert differ > 0  # two seeds: two programs
    same = ud.coverage_diff(client, [corpus["a"], corpus["a"] + "/"], parts=2).diff
    assert all(not t["only"] and not t["missing"] for d in same for t in d["traces"])


def test_syscalls_equal_umtdump(client, corpus, tools):
    r = ud.syscalls(client, good(corpus), names=corpus["names"], parts=4)
    assert r.ok
    for path in good(corpus):
        records = c_records(tools, path)
        win = {t["id"]: t["win_tid"] for t in tools.json("threads", path)}
        want = collections.defaultdict(collections.Counter)
        raw = collections.defaultdict(set)
        for s in tools.json("--xed-dir", corpus["names"], "syscalls", path):
            want[s["uniform_id"]][records[s["begin_eid"]]["thread_id"]] += 1
            raw[s["uniform_id"]].add(s["raw_id"])
        stats = {s["uniform_id"]: s for s in c_stats(tools, path, corpus["names"])["syscalls"]}
        got = {s["uniform_id"]: s for s in r.value[path]}
        assert set(got) == set(want) == set(stats) and got
        for u, s in got.items():
            assert s["count"] == stats[u]["count"] == sum(want[u].values())
            assert s.get("uniform_id_name") == stats[u].get("uniform_id_name")
            assert s["raw_ids"] == sorted(raw[u])
            assert s["by_thread"] == [{"thread_id": t, "win_tid": win[t], "count": n}
                                      for t, n in sorted(want[u].items())]
        counts = [s["count"] for s in r.value[path]]
        assert counts == sorted(counts, reverse=True)


def _busy_block(tools, path):
    """A 64-byte block written often, from umtdump's accesses of the trace."""
    writes = collections.Counter()
    for r in tools.json("exec", "--accesses", path):
        for a in r.get("accesses", ()):
            if a["kind"] == "write":
                writes[int(a["address"], 16) // 64 * 64] += 1
    return writes.most_common(1)[0][0]


def _rows(table):
    return [(a[0], a[1], a[4], a[5]) for a in table.tolist()]


def test_accessed_through_index_and_scan(client, corpus, tools, tmp_path):
    path = corpus["a"]
    block = _busy_block(tools, path)
    idx = str(tmp_path / "index")
    tools.run("index", "--out", idx, path)
    kinds = {"read": umtrace.Access.READ, "write": umtrace.Access.WRITE,
             "context": umtrace.Access.CONTEXT, "peek": umtrace.Access.PEEK}
    for kind_args, kind in (((), None), (("--kind", "write"), umtrace.Access.WRITE),
                            (("--kind", "read,peek"),
                             umtrace.Access.READ | umtrace.Access.PEEK)):
        want = [(h["id"], h["thread_id"], h["address"], h["size"], h["kind"])
                for h in tools.json("--index", idx, "history", *kind_args, path,
                                    f"{block:#x}:64")]
        assert want
        scan = ud.accessed(client, [path, corpus["c"]], block, 64, kinds=kind, parts=4)
        via = ud.accessed(client, [path], block, 64, kinds=kind, index_dir=idx, parts=3)
        assert scan.value[path]["via"] == "scan" and via.value[path]["via"] == "index"
        for got in (scan.value[path]["accesses"], via.value[path]["accesses"]):
            assert [(i, t, f"{a:#x}", s, k) for i, t, k, _, a, s, _ in got.tolist()] == \
                [(i, t, a, s, kinds[k]) for i, t, a, s, k in want]


def test_index_builds_byte_identical(client, corpus, tools, tmp_path):
    paths = []
    for k in ("a", "b"):
        paths.append(str(tmp_path / k))
        shutil.copytree(corpus[k], paths[-1])
    r = ud.build_indexes(client, paths)
    assert r.ok
    for p in paths:
        local = str(tmp_path / (os.path.basename(p) + "-local"))
        tools.run("index", "--out", local, p)
        built = r.value[p]["directory"]
        assert built == os.path.join(p, "umtindex")
        names = sorted(os.listdir(local))
        assert sorted(os.listdir(built)) == names and names
        assert all(filecmp.cmp(os.path.join(local, n), os.path.join(built, n), shallow=False)
                   for n in names)
        assert r.value[p]["records"] == len(c_records(tools, p))
    # the indexes are now found by the accessed job
    block = _busy_block(tools, paths[0])
    assert ud.accessed(client, paths[:1], block, 8).value[paths[0]]["via"] == "index"


def _same_files(a, b):
    names = sorted(os.listdir(a))
    assert sorted(os.listdir(b)) == names and "index.umti" in names
    return all(filecmp.cmp(os.path.join(a, n), os.path.join(b, n), shallow=False) for n in names)


def test_index_one_byte_identical(client, corpus, tools, tmp_path):
    """One trace's index built in parts on the cluster has the bytes of
    umtdump index's (umt_index_build() in one process)."""
    local = str(tmp_path / "local")
    tools.run("index", "--out", local, corpus["a"])
    for parts, out in ((5, str(tmp_path / "five")), (None, str(tmp_path / "default"))):
        r = ud.build_index_one(client, corpus["a"], parts=parts, index_dir=out)
        assert r["directory"] == out and _same_files(local, out)
        assert not os.path.exists(os.path.join(out, "parts"))  # removed by the merge
        assert len(r["parts"]) == (parts or 2) and [p["part"] for p in r["parts"]] == \
            list(range(parts or 2))
        assert r["records"] == sum(p["records"] for p in r["parts"]) == \
            len(c_records(tools, corpus["a"]))
        assert r["accesses"] == sum(p["accesses"] for p in r["parts"])
    with pytest.raises(umtrace.RecordTypeError, match="record 7"):
        ud.build_index_one(client, corpus["corrupt"], parts=2, index_dir=str(tmp_path / "bad"))


def test_index_parts_rebuilt_and_missing(corpus, tools, tmp_path):
    """A part built again replaces the first one (what Dask's re-run of a
    lost worker's task does); a part never built stops the merge, named."""
    local, out = str(tmp_path / "local"), str(tmp_path / "parts")
    tools.run("index", "--out", local, corpus["b"])
    t = umtrace.open(corpus["b"])
    for k in (0, 1, 2, 1):
        t.build_index_part(k, 3, out, threads=1)
    four = str(tmp_path / "four")
    with pytest.raises(umtrace.MissingError, match="four/parts/0-of-4/part: "):
        t.merge_index_parts(4, four)
    for k in (0, 1, 3):
        t.build_index_part(k, 4, four, threads=1)
    with pytest.raises(umtrace.MissingError, match="four/parts/2-of-4/part: "):
        t.merge_index_parts(4, four)
    ix = t.merge_index_parts(3, out)
    assert ix.build_stats["records"] == len(t) and _same_files(local, out)
    ix.close()
    t.close()


# ---- the generic map/reduce -----------------------------------------------------

def _count_types(trace, start, stop):
    c = trace.columns(start, stop, fields=("type",))
    return collections.Counter(c["type"].tolist())


def test_map_ranges_and_map_traces(client, corpus, tools):
    path = corpus["a"]
    want = collections.Counter(r["type_code"] for r in c_records(tools, path))
    for parts in (1, 7, None):
        assert ud.map_ranges(client, path, _count_types, lambda a, b: a + b,
                             parts=parts) == want
    ranges = ud.map_ranges(client, path, lambda t, a, b: [(a, b)], lambda a, b: a + b,
                           parts=6)
    assert len(ranges) == 6 and ranges[0][0] == 0 and ranges[-1][1] == sum(want.values())
    assert all(x[1] == y[0] for x, y in zip(ranges, ranges[1:]))  # in order, no gap
    # more ranges than records: the empty ones are never run
    tiny = tools.gen(os.path.join(os.path.dirname(path), "tiny"), 20, 1, 3)
    ranges = ud.map_ranges(client, tiny, lambda t, a, b: [(a, b)], lambda a, b: a + b,
                           parts=45)
    assert ranges[0][0] == 0 and ranges[-1][1] == 20 and all(b > a for a, b in ranges)
    assert all(x[1] == y[0] for x, y in zip(ranges, ranges[1:]))
    r = ud.map_traces(client, good(corpus) + [corpus["missing"]], len, lambda a, b: a + b)
    assert r.value == sum(len(c_records(tools, p)) for p in good(corpus))
    assert list(r.failures) == [corpus["missing"]]


# ---- failures -------------------------------------------------------------------------

def test_corrupt_and_missing_traces_are_reported(client, corpus, tools):
    paths = [corpus["a"], corpus["corrupt"], corpus["missing"], corpus["c"]]
    r = ud.mix(client, paths, names=corpus["names"], parts=3)
    assert set(r.failures) == {corpus["corrupt"], corpus["missing"]}
    assert set(r.value) == {corpus["a"], corpus["c"]}
    for k in ("a", "c"):
        assert r.value[corpus[k]]["mnemonics"] == \
            c_stats(tools, corpus[k], corpus["names"])["mnemonics"]
    bad = r.failures[corpus["corrupt"]]
    err = tools.run("exec", corpus["corrupt"], check=False).stderr
    assert bad.error == "RecordTypeError" and bad.record_id == 7
    assert f"umtdump: {bad.message}" in err.splitlines()  # the library's message, whole
    missing = r.failures[corpus["missing"]]
    assert missing.error == "MissingError" and missing.message.startswith(corpus["missing"])
    with pytest.raises(umtrace.RecordTypeError, match="record 7 at offset"):
        ud.mix(client, [corpus["a"], corpus["corrupt"]], parts=3, on_error="raise")
    with pytest.raises(umtrace.MissingError):
        ud.map_traces(client, [corpus["missing"]], len, max, on_error="raise")


# ---- a worker lost in the middle of a job ---------------------------------------------

def slow_mix(marker_dir, trace, start, stop):
    """The mix of a range, once the test has created @marker_dir/go (each
    task first says which process runs it)."""
    with open(os.path.join(marker_dir, f"started-{os.getpid()}-{start}"), "w"):
        pass
    deadline = time.time() + LIMIT
    while not os.path.exists(os.path.join(marker_dir, "go")):
        if time.time() > deadline:
            raise TimeoutError("no go")
        time.sleep(0.02)
    return _stats.mix_part(trace, start, stop)


def test_worker_killed_mid_job(cluster, corpus, tools, tmp_path):
    client, path = cluster.client, corpus["a"]
    markers = str(tmp_path)
    result = {}

    def job():
        try:
            result["mix"] = ud.map_ranges(client, path, functools.partial(slow_mix, markers),
                                          _stats.mix_combine, parts=24, names=corpus["names"])
        except BaseException as e:  # noqa: B902 - handed to the test's thread
            result["error"] = e
    runner = threading.Thread(target=job)
    runner.start()
    pids = set()
    while len(pids) < 2:  # both workers inside a task
        pids = {int(f.split("-")[1]) for f in os.listdir(markers) if f.startswith("started-")}
        time.sleep(0.05)
    victim = min(pids)
    os.kill(victim, signal.SIGKILL)
    open(os.path.join(markers, "go"), "w").close()
    runner.join(LIMIT)
    assert not runner.is_alive()
    assert "error" not in result, result.get("error")
    got = _stats.finish_mix(result["mix"])
    c = c_stats(tools, path, corpus["names"])
    assert got["mnemonics"] == c["mnemonics"] and got["instructions"] == c["instructions"]
    started = collections.defaultdict(set)  # range -> processes that ran it
    for f in os.listdir(markers):
        if f.startswith("started-"):
            started[int(f.split("-")[2])].add(int(f.split("-")[1]))
    assert len(started) == 24
    assert any(victim in pids and len(pids) > 1 for pids in started.values())  # run again
    client.wait_for_workers(2, timeout=120)  # the nanny started a new worker


def slow_part(marker_dir, path, directory, part, parts):
    """Part @part of the index, its build held at its first progress call
    until @marker_dir/go exists (each build first says which process runs it)."""
    def hold(phase, done, total):
        mark = os.path.join(marker_dir, f"started-{os.getpid()}-{part}")
        if os.path.exists(mark):
            return
        open(mark, "w").close()
        deadline = time.time() + LIMIT
        while not os.path.exists(os.path.join(marker_dir, "go")) and time.time() < deadline:
            time.sleep(0.02)
    stats = _cache.trace(path).build_index_part(part, parts, directory, threads=1,
                                                progress=hold)
    return dict(stats, part=part)


def test_worker_killed_mid_index_part(cluster, corpus, tools, tmp_path):
    """A worker killed inside a part build: Dask builds the part again
    elsewhere, and the merged index has the bytes of a local build."""
    client, path = cluster.client, corpus["c"]
    client.wait_for_workers(2, timeout=120)
    markers, out, local = (str(tmp_path / n) for n in ("markers", "index", "local"))
    os.mkdir(markers)
    tools.run("index", "--out", local, path)
    built = [client.submit(slow_part, markers, path, out, k, 4, pure=False) for k in range(4)]
    merged = client.submit(_build.merge_parts, path, out, 4, 1, None, *built, pure=False)
    pids = set()
    while len(pids) < 2:  # both workers inside a part build
        pids = {int(f.split("-")[1]) for f in os.listdir(markers)}
        time.sleep(0.05)
    victim = min(pids)
    os.kill(victim, signal.SIGKILL)
    open(os.path.join(markers, "go"), "w").close()
    r = merged.result(timeout=LIMIT)
    assert _same_files(local, out) and r["records"] == len(c_records(tools, path))
    started = collections.defaultdict(set)  # part -> processes that built it
    for f in os.listdir(markers):
        if f.startswith("started-"):
            started[int(f.split("-")[2])].add(int(f.split("-")[1]))
    assert sorted(started) == [0, 1, 2, 3]
    assert any(victim in p and len(p) > 1 for p in started.values())  # built again
    client.wait_for_workers(2, timeout=120)


# ---- the trace cache of a worker --------------------------------------------------------

def test_cache_reopens_a_changed_trace(tools, tmp_path):
    path = str(tmp_path / "t")
    tools.gen(path, 3000, 2, 1)
    first = _cache.trace(path)
    assert _cache.trace(path) is first  # kept
    n = len(first)
    shutil.rmtree(path)
    tools.gen(path, 5000, 2, 2)
    second = _cache.trace(path)
    assert second is not first and len(second) == 5000 != n
    assert len(first) == n  # the old handle stays valid for whoever holds it


def test_cluster_sees_a_changed_trace(client, tools, tmp_path):
    path = str(tmp_path / "t")
    tools.gen(path, 4000, 2, 1)
    assert ud.map_traces(client, [path], len, max).value == 4000
    time.sleep(0.01)
    shutil.rmtree(path)
    tools.gen(path, 6000, 3, 2)
    assert ud.map_traces(client, [path], len, max).value == 6000


# ---- the command line ------------------------------------------------------------------

def _group_run(argv, **kw):
    """subprocess.run(@argv) in a process group of its own, killed whole
    afterwards: what a LocalCluster of the command line started goes too,
    even when the command hangs (TimeoutExpired after LIMIT seconds)."""
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, **kw)
    try:
        out, err = p.communicate(timeout=LIMIT)
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait()
    return subprocess.CompletedProcess(argv, p.returncode, out, err)


def cli(*args, check=True):
    p = _group_run([sys.executable, "-m", "umtrace.dask", *map(str, args)])
    if check and p.returncode not in (0, 1):
        raise AssertionError(p.stderr)
    return p


def jsonl(p):
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_cli_jobs_on_the_cluster(cluster, corpus, tools, tmp_path):
    s = ("--scheduler", cluster.address, "--json", "--quiet")
    names = ("--names", corpus["names"])
    p = cli("mix", *s, *names, "--per-trace", corpus["a"], corpus["missing"])
    lines = jsonl(p)
    assert p.returncode == 1 and lines[-1]["trace"] == corpus["missing"]
    assert lines[-1]["error"] == "MissingError"
    assert lines[0]["mnemonics"] == c_stats(tools, corpus["a"], corpus["names"])["mnemonics"]
    listing = tmp_path / "corpus.txt"
    listing.write_text(f"{corpus['a']}\n{corpus['c']}\n")
    cov = jsonl(cli("coverage", *s, f"@{listing}"))
    for path in (corpus["a"], corpus["c"]):
        want = c_coverage(tools, path)
        got = {(r["module"], int(r["base"], 16) if r["base"] else None):
               (r["addresses"], r["executions"]) for r in cov if r["trace"] == path}
        assert got == {k: (len(a), n) for k, (a, n) in want.items()}
    diff = jsonl(cli("coverage-diff", *s, corpus["a"], corpus["c"]))
    assert {d["module"] for d in diff} == {m for m, _ in c_coverage(tools, corpus["a"])} | \
        {m for m, _ in c_coverage(tools, corpus["c"])}
    sys_rows = jsonl(cli("syscalls", *s, *names, corpus["a"]))
    stats = c_stats(tools, corpus["a"], corpus["names"])["syscalls"]
    assert [(r["uniform_id"], r["count"]) for r in sys_rows] == \
        [(r["uniform_id"], r["count"]) for r in stats]
    block = _busy_block(tools, corpus["a"])
    acc = jsonl(cli("accessed", *s, f"{block:#x}:64", "--kind", "write", corpus["a"]))
    idx = str(tmp_path / "idx")
    tools.run("index", "--out", idx, corpus["a"])
    want = tools.json("--index", idx, "history", "--kind", "write", corpus["a"],
                      f"{block:#x}:64")
    assert [(r["id"], r["address"], r["size"], r["kind"]) for r in acc] == \
        [(h["id"], h["address"], h["size"], h["kind"]) for h in want]
    out = str(tmp_path / "one")
    one = jsonl(cli("index-one", *s, "--parts", 3, "--out", out, corpus["b"]))
    local = str(tmp_path / "one-local")
    tools.run("index", "--out", local, corpus["b"])
    assert [(r["trace"], r["directory"], len(r["parts"])) for r in one] == \
        [(corpus["b"], out, 3)]
    assert _same_files(local, out)


def test_cli_fail_fast_and_usage(cluster, corpus):
    s = ("--scheduler", cluster.address, "--quiet")
    p = cli("mix", *s, "--fail-fast", corpus["a"], corpus["corrupt"])
    assert p.returncode == 1 and "record 7 at offset" in p.stderr and p.stdout == ""
    p = cli("mix", *s, corpus["a"], corpus["corrupt"])  # reported, the rest printed
    assert p.returncode == 1 and "by mnemonic" in p.stdout
    assert f"{corpus['corrupt']}: exec.vtable: record 7" in p.stderr
    assert cli("coverage-diff", *s, corpus["a"], check=False).returncode == 2
    assert cli("accessed", *s, "0x10", check=False).returncode == 2
    assert cli("nojob", corpus["a"], check=False).returncode == 2
    assert cli("index-one", *s, corpus["a"], corpus["b"], check=False).returncode == 2
    assert cli("mix", *s, "--out", "x", corpus["a"], check=False).returncode == 2


def test_cli_local_cluster(corpus, tools):
    """Without --scheduler: a LocalCluster of this machine."""
    p = cli("syscalls", "--workers", "1", "--json", "--quiet", corpus["b"])
    assert p.returncode == 0
    stats = {s["uniform_id"]: s["count"] for s in tools.json("stats", corpus["b"])[0]["syscalls"]}
    assert {r["uniform_id"]: r["count"] for r in jsonl(p)} == stats


# ---- docs/dask.md: its session runs as written, against the test's cluster ----------

DOC = os.path.join(ROOT, "docs", "dask.md")
#: the scheduler of the document's session, replaced by the test's
DOC_SCHEDULER = "tcp://127.0.0.1:8786"


def _blocks(lang):
    """(info, body) of the ```@lang blocks of docs/dask.md, in order."""
    text = open(DOC, encoding="utf-8").read()
    return re.findall(r"^```" + lang + r"([ \t][^\n]*)?\n(.*?)^```$", text, re.S | re.M)


def _doc_session(cluster, tools, workdir):
    """Runs the document's setup (umtgen), its python blocks in one
    namespace and its command lines, in @workdir; returns the namespace."""
    sh = _blocks("sh")
    setup = next(body for info, body in sh if not info and "umtgen" in body)
    for line in setup.strip().splitlines():
        words = shlex.split(line)
        assert words[0].endswith("/umtgen"), line
        subprocess.run([tools.umtgen, *words[1:], "--quiet"], cwd=workdir, check=True)
    started = [body for _, body in sh if "dask scheduler" in body]
    assert len(started) == 1 and started[0].count("dask worker") == 2  # what the fixture runs
    ns = {"__name__": "__dask_doc__"}
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        for k, (_, code) in enumerate(_blocks("python"), 1):
            code = code.replace(DOC_SCHEDULER, cluster.address)
            exec(compile(code, f"docs/dask.md, python block {k}", "exec"), ns)  # noqa: S102
    finally:
        os.chdir(cwd)
    lines = [line for _, body in sh for line in body.strip().splitlines()
             if line.startswith("python3 -m umtrace.dask ")]
    assert len(lines) >= 5
    for line in lines:
        argv = shlex.split(line.replace(DOC_SCHEDULER, cluster.address))
        p = _group_run([sys.executable, *argv[1:]], cwd=workdir)
        assert p.returncode == 0 and p.stdout, (line, p.stderr)
    return ns


def test_the_guide_session(cluster, tools, tmp_path):
    ns = _doc_session(cluster, tools, str(tmp_path))
    runs, names = ns["runs"], ns["names"]
    stats = [c_stats(tools, p, names) for p in runs]
    # the mix: one XED version, the sum of umtdump stats of the three runs
    assert [t["traces"] for t in ns["mix"].total] == [3]
    want = collections.Counter()
    for s in stats:
        want.update({m["mnemonic"]: m["count"] for m in s["mnemonics"]})
    assert {m["mnemonic"]: m["count"] for m in ns["mix"].total[0]["mnemonics"]} == want
    assert ns["mix"].total[0]["instructions"] == sum(s["instructions"] for s in stats)
    # the records of the runs, and per thread of the third
    assert ns["records"].value == sum(s["records"] for s in stats) == 370000
    assert ns["by_thread"] == collections.Counter(r["thread_id"]
                                                  for r in c_records(tools, runs[2]))
    # the accessed slot: through the indexes as the scan said, and as umtdump says
    assert ns["same"] and {r["via"] for r in ns["again"].value.values()} == {"index"}
    for p in runs:
        want = [(h["id"], h["address"], h["size"]) for h in
                tools.json("history", p, f"{ns['slot']:#x}:8")]
        assert [(i, f"{a:#x}", n) for i, _, _, _, a, n, _ in
                ns["hits"].value[p]["accesses"].tolist()] == want
    local = str(tmp_path / "run-3.local")
    tools.run("index", "--out", local, runs[2])
    assert _same_files(local, str(tmp_path / "run-3.index"))  # index-one
    assert ns["one"]["records"] == sum(ns["one"]["parts"][k]["records"] for k in range(4))
    assert list(ns["broken"].failures) == ["/no/such/trace"]
    assert ns["broken"].failures["/no/such/trace"].error == "MissingError"


def test_umtrace_imports_without_dask():
    """import umtrace and umtrace.dask work where Dask cannot be imported
    (a finder that refuses it stands for an interpreter without it)."""
    code = """if True:
        import sys
        class NoDask:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("dask", "distributed"):
                    raise ImportError(f"no {name} here")
        sys.meta_path.insert(0, NoDask())
        import umtrace, umtrace.dask
        assert not {"dask", "distributed"} & set(sys.modules)
        print(umtrace.dask.mix.__name__)
    """
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=LIMIT)
    assert p.stdout == "mix\n", p.stderr
