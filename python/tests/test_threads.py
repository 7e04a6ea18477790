"""Threads: C loops run without the GIL, so Python threads overlap in them;
results from several threads equal those of one."""
import threading

import numpy as np

import umtrace
from umtrace._ffi import ffi, lib


def test_c_calls_release_the_gil():
    """Two threads meet inside one C call: impossible if a call held the GIL."""
    arrived = ffi.new("int *")
    results = []

    def meet():
        results.append(lib.umtpy_test_rendezvous(arrived, 2, 60000))
    threads = [threading.Thread(target=meet) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [1, 1]
    alone = ffi.new("int *")
    assert lib.umtpy_test_rendezvous(alone, 2, 20) == 0  # it does wait for the other


def test_python_runs_while_c_waits():
    """A C loop waits for a flag that Python code of another thread sets."""
    flag = ffi.new("int *")
    out = []
    waiter = threading.Thread(target=lambda: out.append(lib.umtpy_test_rendezvous(flag, 2, 60000)))
    waiter.start()
    while flag[0] == 0:  # the waiter has entered C
        pass
    flag[0] += 1  # Python bytecode: needs the GIL the waiter released
    waiter.join()
    assert out == [1]


def test_parallel_columns_and_queries_equal_serial(traces, tmp_path):
    with umtrace.open(traces["2015"]) as t:
        bounds = t.split(4).tolist()
        fields = ("id", "thread", "type", "ins_id", "mnemonic")
        serial = t.columns(fields=fields)
        ix = t.build_index(str(tmp_path / "ix"), threads=2)
        addrs = t.accesses(kinds=umtrace.Access.WRITE)["address"][::40].tolist()
        want = [ix.history(a, 8).tolist() for a in addrs]
        parts, found = [None] * 4, [None] * len(addrs)

        def scan(k):
            parts[k] = t.columns(bounds[k], bounds[k + 1], fields=fields)
            for i in range(k, len(addrs), 4):
                found[i] = ix.history(addrs[i], 8).tolist()
        threads = [threading.Thread(target=scan, args=(k,)) for k in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for f in fields:
            assert np.concatenate([p[f] for p in parts]).tolist() == serial[f].tolist()
        assert found == want


def test_close_while_other_threads_work(traces, tmp_path):
    """close() from one thread while others are inside C calls: the calls
    finish on what they hold, later calls raise ClosedError, nothing is freed
    under them (the quickstart runs this under AddressSanitizer too)."""
    t = umtrace.open(traces["2015"])
    ix = t.build_index(str(tmp_path / "ix"), threads=1)
    addrs = t.accesses(0, 3000, kinds=umtrace.Access.WRITE)["address"].tolist()
    outcomes = []

    def work(k):
        try:
            for _ in range(30):
                for a in addrs[k::2]:
                    ix.history(a, 8)
                t.columns(fields=("thread", "mnemonic"))
            outcomes.append("done")
        except umtrace.ClosedError:
            outcomes.append("closed")
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for th in threads:
        th.start()
    ix.close()
    t.close()
    for th in threads:
        th.join()
    assert sorted(outcomes) in (["closed", "closed"], ["closed", "done"], ["done", "done"])
