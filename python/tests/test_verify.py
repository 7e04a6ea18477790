"""Trace.verify(): the library's full check, its counts equal umtdump's, with
progress and problems reported into Python."""
import pytest

import umtrace


def test_verify_a_good_trace(tools, trace_dir):
    summary = [w for w in tools.json("verify", trace_dir) if w["kind"] == "summary"][0]
    progress = []
    with umtrace.open(trace_dir) as t:
        res = t.verify(progress=lambda done, total: progress.append((done, total)))
    assert res.ok and summary["consistent"]
    assert (res.errors, res.warnings, res.records, res.stopped) == \
        (summary["errors"], summary["warnings"], summary["records"], summary["stopped"])
    total = progress[0][1]
    assert progress[0] == (0, total) and progress[-1] == (total, total)
    assert all(a[0] <= b[0] for a, b in zip(progress, progress[1:]))


def test_verify_stops_when_asked(bad_traces):
    with umtrace.open(bad_traces["offsets"]) as t:
        everything = t.verify()
        assert everything.errors >= 2 and not everything.ok
        first = t.verify(on_problem=lambda p: True)
        assert first.stopped and first.problems == everything.problems[:1]
        capped = t.verify(max_problems=1)
        assert capped.stopped and len(capped.problems) == 1
        only = t.verify(checks=umtrace.Check.ADDRESS_SPACE)
        assert only.ok and only.problems == []


def test_progress_exceptions_reach_the_caller(traces):
    def progress(done, total):
        raise RuntimeError("stop here")
    with umtrace.open(traces["2015"]) as t:
        with pytest.raises(RuntimeError, match="stop here"):
            t.verify(progress=progress)
        with pytest.raises(umtrace.InvalidError):
            t.verify(checks=1 << 20)
