"""Fixtures of the umtrace tests: umtgen traces, and the C tools whose output
is the truth the binding is checked against (umtdump --json runs the
library's C API; nothing here trusts the binding to check itself).

The tools come from $UMTRACE_UMTDUMP and $UMTRACE_UMTGEN, else from the
newest build tree of the source (build/*/tools/...). The package under test
is whatever `import umtrace` finds: the quickstart installs it fresh into a
temporary directory and sets $UMTRACE_EXPECT_DIR, which is then checked.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _tool(env, rel):
    path = os.environ.get(env)
    if path:
        return os.path.abspath(path)  # tests run tools from other directories
    found = sorted(glob.glob(os.path.join(ROOT, "build", "*", rel)), key=os.path.getmtime)
    if not found:
        pytest.exit(f"no {rel}: build the tools (cmake) or set ${env}", returncode=2)
    return found[-1]


def pytest_report_header(config):
    import umtrace
    return [f"umtrace {umtrace.__version__} from {os.path.dirname(umtrace.__file__)}"]


def pytest_configure(config):
    want = os.environ.get("UMTRACE_EXPECT_DIR")
    if want:
        import umtrace
        got = os.path.realpath(umtrace.__file__)
        if not got.startswith(os.path.realpath(want) + os.sep):
            pytest.exit(f"umtrace imported from {got}, not from the fresh install in {want}",
                        returncode=2)


class Tools:
    """The C tools: umtgen makes traces, umtdump --json says what the C API reads."""

    def __init__(self):
        self.umtdump = _tool("UMTRACE_UMTDUMP", "tools/umtdump/umtdump")
        self.umtgen = _tool("UMTRACE_UMTGEN", "tools/umtgen/umtgen")

    def gen(self, out, records, threads, seed, flavour="2015"):
        subprocess.run([self.umtgen, "--records", str(records), "--threads", str(threads),
                        "--seed", str(seed), "--flavour", flavour, "--quiet", out],
                       check=True)
        return out

    def run(self, *args, check=True):
        """umtdump's exit status, standard output and standard error."""
        p = subprocess.run([self.umtdump, "--quiet", *map(str, args)], capture_output=True,
                           text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"umtdump {' '.join(map(str, args))}: {p.stderr}")
        return p

    def json(self, *args, check=True):
        """The JSON Lines of `umtdump --json ARGS`, as a list of objects."""
        out = self.run("--json", *args, check=check).stdout
        return [json.loads(line) for line in out.splitlines() if line]


@pytest.fixture(scope="session")
def tools():
    return Tools()


@pytest.fixture(scope="session")
def traces(tools, tmp_path_factory):
    """Two umtgen traces, one per flavour, several threads each."""
    d = tmp_path_factory.mktemp("traces")
    return {
        "2015": tools.gen(str(d / "t2015"), 30000, 4, 11, "2015"),
        "2014": tools.gen(str(d / "t2014"), 12000, 3, 5, "2014"),
    }


@pytest.fixture(scope="session", params=["2015", "2014"])
def trace_dir(request, traces):
    return traces[request.param]


@pytest.fixture(scope="session")
def exec_json(tools):
    """Every record of a trace with operands, context and accesses, per umtdump."""
    cache = {}

    def get(path):
        if path not in cache:
            cache[path] = tools.json("exec", "--operands", "--context", "--accesses", path)
        return cache[path]
    return get


@pytest.fixture(scope="session")
def sample():
    return os.path.join(ROOT, "examples", "sample-trace")


@pytest.fixture(scope="session")
def bad_traces(tmp_path_factory, sample):
    """Corrupt copies of the sample trace (tests/cli/mkbad.py: one patch each)."""
    d = tmp_path_factory.mktemp("bad")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "cli", "mkbad.py"), sample,
                    str(d)], check=True)
    return {name[4:] if name.startswith("bad-") else name: str(d / name)
            for name in os.listdir(d)}


@pytest.fixture
def trace_copy(tmp_path, traces):
    """A private copy of the 2015 trace, to change or index."""
    dst = str(tmp_path / "copy")
    shutil.copytree(traces["2015"], dst)
    return dst


def hexint(s):
    """An umtdump "0x..." string as int (None stays None)."""
    return None if s is None else int(s, 16)
