"""The jobs of the command line: checking their arguments, running them,
and writing their results as text or JSON Lines (one object per line:
numbers as numbers, addresses as "0x..." strings, as umtdump does)."""
import json
import os
import sys

import umtrace.dask as ud

from ._accessed import KIND_NAMES


def _hex(v):
    return None if v is None else f"{int(v):#x}"


class Job:
    """One job of the command line (argparse @args, trace @paths)."""

    def __init__(self, args, paths):
        self.args, self.paths, self.range = args, paths, None
        if args.job == "accessed":
            if len(paths) < 2:
                raise ValueError("accessed: ADDR[:LEN] and at least one trace")
            from ._cli import _range
            self.range, self.paths = _range(paths[0]), paths[1:]
        if not self.paths:
            raise ValueError(f"{args.job}: no trace given")
        # the workers run in their own directories: paths from ours
        self.paths = [os.path.abspath(p) for p in self.paths]
        for opt in ("names", "index_dir"):
            if getattr(args, opt):
                setattr(args, opt, os.path.abspath(getattr(args, opt)))
        if args.job == "coverage-diff" and len(self.paths) < 2:
            raise ValueError("coverage-diff: at least two traces")
        if args.job == "index-one" and len(self.paths) != 1:
            raise ValueError("index-one: one trace (index builds every trace of a collection)")
        if args.out and args.job != "index-one":
            raise ValueError("--out: index-one only")

    def run(self, client, progress):
        a = self.args
        common = {"parts": a.parts, "on_error": "raise" if a.fail_fast else "report",
                  "progress": progress}
        if a.job == "mix":
            return ud.mix(client, self.paths, names=a.names, **common)
        if a.job == "coverage":
            return ud.coverage(client, self.paths, names=a.names, **common)
        if a.job == "coverage-diff":
            return ud.coverage_diff(client, self.paths, names=a.names, **common)
        if a.job == "syscalls":
            return ud.syscalls(client, self.paths, names=a.names, **common)
        if a.job == "accessed":
            return ud.accessed(client, self.paths, *self.range, kinds=a.kind,
                               index_dir=a.index_dir, **common)
        if a.job == "index-one":
            path = self.paths[0]
            stats = ud.build_index_one(client, path, parts=a.parts, index_dir=a.out,
                                       threads=a.threads, memory=a.memory, progress=progress)
            return ud.JobResult({path: stats}, {})
        common.pop("parts")
        return ud.build_indexes(client, self.paths, threads=a.threads, memory=a.memory,
                                **common)

    def write(self, result, out):
        """Writes @result; returns the exit status (1 when a trace failed)."""
        lines = getattr(self, "_" + self.args.job.replace("-", "_"))(result)
        for line in lines:
            out.write((json.dumps(line) if self.args.json else line) + "\n")
        for f in result.failures.values():
            if self.args.json:
                out.write(json.dumps(f.as_dict()) + "\n")
            else:
                msg = f.message if f.message.startswith(f.path) else f"{f.path}: {f.message}"
                print(f"umtrace.dask: {msg}", file=sys.stderr)
        return 1 if result.failures else 0

    # ---- one method per job: yields JSON objects or text lines ---------------
    def _mix(self, r):
        groups = ([dict(v, trace=p) for p, v in r.value.items()] if self.args.per_trace
                  else r.total)
        for g in groups:
            if self.args.json:
                yield g
                continue
            head = g["trace"] if "trace" in g else f"{g['traces']} traces"
            yield f"== {head} (XED {g['xed_version']})"
            yield f"instructions {g['instructions']:>21}"
            yield f"undecoded {g['undecoded_instructions']:>24}"
            for key, rows in (("mnemonic", "mnemonics"), ("category", "categories")):
                yield f"by {key}"
                for row in g[rows]:
                    name = f" ({row[key + '_name']})" if row.get(key + "_name") else ""
                    yield f"  {row['count']:>12}  {row[key]}{name}"
            if not self.args.names:  # as umtdump stats: XED's numbers need their names
                for title, key, rows in (("by mnemonic (Zydis)", "zydis_mnemonic",
                                          "zydis_mnemonics"),
                                         ("by category (Zydis)", "zydis_category",
                                          "zydis_categories")):
                    yield title
                    yield from (f"  {r['count']:>12}  {r[key]}" for r in g[rows])
            yield "by control flow"
            yield from (f"  {r['count']:>12}  {r['category']}" for r in g["semantic_categories"])
            if g["undecodable_code"]:
                yield f"code bytes not decoded {g['undecodable_code']:>11}"

    def _coverage(self, r):
        for path, cov in r.value.items():
            if not self.args.json:
                yield f"== {path}: {cov['instructions']} instruction records" + (
                    f", {cov['without_row']} without an instruction row"
                    if cov["without_row"] else "")
                yield f"  {'addresses':>9} {'executions':>11}  {'base':<18} module"
            for m in cov["modules"]:
                base = m["base"] or 0
                offsets = [_hex(a - base) for a in m["address_list"].tolist()]
                if self.args.json:
                    row = {"trace": path, "module": m["module"], "base": _hex(m["base"]),
                           "addresses": m["addresses"], "executions": m["executions"]}
                    if self.args.list:
                        row["offsets"] = offsets
                    yield row
                    continue
                yield (f"  {m['addresses']:>9} {m['executions']:>11}  "
                       f"{_hex(m['base']) or '-':<18} {m['module'] or '(outside modules)'}")
                if self.args.list:
                    yield "    " + " ".join(offsets)

    def _coverage_diff(self, r):
        for d in r.diff:
            if self.args.json:
                yield {"module": d["module"], "common": d["common"],
                       "traces": [dict(t, only=[_hex(x) for x in t["only"]],
                                       missing=[_hex(x) for x in t["missing"]])
                                  for t in d["traces"]]}
                continue
            yield f"{d['module'] or '(outside modules)'}: {d['common']} in every trace"
            for t in d["traces"]:
                yield (f"  {t['addresses']:>9} executed {len(t['only']):>7} only here "
                       f"{len(t['missing']):>7} missed  {t['trace']}")
                if self.args.list:
                    for what in ("only", "missing"):
                        if t[what]:
                            yield f"    {what}: " + " ".join(_hex(x) for x in t[what])

    def _syscalls(self, r):
        for path, rows in r.value.items():
            if not self.args.json:
                yield f"== {path}"
            for s in rows:
                if self.args.json:
                    yield dict(s, trace=path)
                    continue
                name = f" ({s['uniform_id_name']})" if s.get("uniform_id_name") else ""
                threads = " ".join(f"{t['thread_id']}:{t['count']}" for t in s["by_thread"])
                yield (f"  {s['count']:>10}  {s['uniform_id']}{name}  raw "
                       f"{','.join(map(str, s['raw_ids']))}  threads {threads}")

    def _accessed(self, r):
        address, length = self.range
        hit = 0
        for path, res in r.value.items():
            rows = res["accesses"]
            hit += len(rows) > 0
            if not self.args.json:
                yield f"{path}: {len(rows)} accesses ({res['via']})"
            for a in rows.tolist():
                rid, thread, kind, phase, addr, size, trust = a
                if self.args.json:
                    yield {"trace": path, "id": rid, "thread": thread,
                           "kind": KIND_NAMES.get(kind, kind), "address": _hex(addr),
                           "size": size, "trust": trust}
                else:
                    yield (f"  record {rid:>10}  thread {thread:>3}  "
                           f"{KIND_NAMES.get(kind, kind):<7} {_hex(addr)} {size}")
        if not self.args.json:
            yield (f"{hit} of {len(r.value)} traces read accessed "
                   f"[{address:#x}, {address + length:#x})")

    def _index(self, r):
        for path, s in r.value.items():
            if self.args.json:
                yield dict(s, trace=path)
                continue
            line = (f"{path}: {s['directory']}: {s['records']} records, {s['accesses']} "
                    f"accesses, {s['postings']} postings, {s['index_bytes']} bytes")
            if "parts" not in s:
                yield line
                continue
            yield f"{line}, from {len(s['parts'])} parts"  # index-one
            for p in s["parts"]:
                yield (f"  part {p['part']}: {p['records']} records, {p['accesses']} accesses, "
                       f"{p['index_bytes']} bytes")

    _index_one = _index
