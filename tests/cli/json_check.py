#!/usr/bin/env python3
"""Checks umtdump --json output against the contract of umtdump(1).

    json_check.py COMMAND [--operands] [--context] [--accesses] < OUTPUT

Every line must be one JSON object in valid UTF-8, without duplicate keys,
with exactly the documented keys (optional ones may be absent) and values of
the documented types: IDs, counts, sizes and codes are integers; addresses
and register or memory values are "0x..." strings (or hex byte strings for
values wider than 8 bytes); names are strings. Cross-field rules (lengths of
lists against their counts, keys present by record type) are checked too.
Exits 1 with a message naming the line on the first violation.
"""
import json
import re
import sys

HEX = re.compile(r"^0x[0-9a-f]+$")
BYTES = re.compile(r"^(?:[0-9a-f]{2})*$")

REC_TYPES = ["instruction", "thread-begin", "thread-end", "app-end", "syscall-entry",
             "syscall-exit", "syscall-skipped", "ctx-apc", "ctx-exception", "ctx-callback",
             "ctx-unknown"]
FILES = ["exec.vtable", "exec.offsets", "exec.prev_next.column", "ins.itable",
         "syscall.vtable", "syscall.offsets", "module.itable", "thread.itable",
         "context_map.itable", "address_space.itable", "trace.xml"]


class Bad(Exception):
    pass


# ---- value types: each returns None or raises Bad ----------------------------

def integer(v, where):
    if not isinstance(v, int) or isinstance(v, bool):
        raise Bad(f"{where}: {v!r} is not an integer")


def number(v, where):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise Bad(f"{where}: {v!r} is not a number")


def string(v, where):
    if not isinstance(v, str):
        raise Bad(f"{where}: {v!r} is not a string")


def boolean(v, where):
    if not isinstance(v, bool):
        raise Bad(f"{where}: {v!r} is not a boolean")


def hexnum(v, where):
    if not isinstance(v, str) or not HEX.match(v):
        raise Bad(f"{where}: {v!r} is not a \"0x...\" string")


def hexbytes(v, where):
    if not isinstance(v, str) or not BYTES.match(v):
        raise Bad(f"{where}: {v!r} is not a hex byte string")


def value(v, where):
    """A value: "0x..." for 1 to 8 bytes, hex bytes otherwise."""
    if not isinstance(v, str) or not (HEX.match(v) or BYTES.match(v)):
        raise Bad(f"{where}: {v!r} is not a value")


def nullable(t):
    def check(v, where):
        if v is not None:
            t(v, where)
    return check


def one_of(*choices):
    def check(v, where):
        if v not in choices:
            raise Bad(f"{where}: {v!r} is not one of {choices}")
    return check


def list_of(t, length=None):
    def check(v, where):
        if not isinstance(v, list):
            raise Bad(f"{where}: {v!r} is not a list")
        if length is not None and len(v) != length:
            raise Bad(f"{where}: {len(v)} items, expected {length}")
        for i, x in enumerate(v):
            t(x, f"{where}[{i}]")
    return check


def map_of(t, keys=None):
    def check(v, where):
        if not isinstance(v, dict):
            raise Bad(f"{where}: {v!r} is not an object")
        if keys is not None and sorted(v) != sorted(keys):
            raise Bad(f"{where}: keys {sorted(v)}, expected {sorted(keys)}")
        for k, x in v.items():
            t(x, f"{where}.{k}")
    return check


def obj(required, optional=None):
    """An object with exactly the required keys and some of the optional ones."""
    optional = optional or {}

    def check(v, where):
        if not isinstance(v, dict):
            raise Bad(f"{where}: {v!r} is not an object")
        for k in required:
            if k not in v:
                raise Bad(f"{where}: key {k} is missing")
        for k, x in v.items():
            t = required.get(k) or optional.get(k)
            if t is None:
                raise Bad(f"{where}: undocumented key {k}")
            t(x, f"{where}.{k}")
    return check


def named(key, t=integer):
    """A number and its optional <key>_name."""
    return {key: t}, {key + "_name": string}


def merge(*parts):
    req, opt = {}, {}
    for r, o in parts:
        req.update(r)
        opt.update(o)
    return req, opt


# ---- schemas --------------------------------------------------------------------

def plain(**kw):
    return kw, {}


OPERAND = obj({"reg": integer, "name": string, "kind": one_of("reg", "mem", "agen", "imm"),
               "size": integer, "flags": integer, "before": nullable(value),
               "after": nullable(value)}, {"address": hexnum})
MEM = obj({"address": hexnum, "size": integer, "data": hexbytes})
CONTEXT = obj({"mem_count": integer, "regs": map_of(value), "mem": list_of(MEM)})
ACCESS = obj({"kind": one_of("read", "write", "peek", "context"), "address": hexnum,
              "size": integer, "value": hexbytes, "trusted_address": boolean,
              "trusted_value": boolean},
             {"slot": integer, "operand": string, "block": integer})
SEM_CATEGORIES = ("other", "call", "ret", "jmp", "cond_branch", "syscall", "nop")
EXEC = obj({"id": integer, "thread_id": integer, "type": one_of(*REC_TYPES),
            "type_code": integer, "flags": integer, "prev": integer, "next": integer},
           {"ins_id": integer, "address": nullable(hexnum), "disasm": nullable(string),
            "syscall_id": integer, "uniform_id": nullable(integer), "uniform_id_name": string,
            "exit_code": integer, "operands": nullable(list_of(OPERAND)),
            "zydis_mnemonic": nullable(string),
            "semantic_category": nullable(one_of(*SEM_CATEGORIES)),
            "context": nullable(CONTEXT), "accesses": nullable(list_of(ACCESS))})

INS_OPERAND = obj({"reg": integer, "name": string, "size": integer, "flags": integer,
                   "before_slot": integer, "after_slot": integer, "before_offset": integer,
                   "after_offset": integer})
SLOT = obj({"reg": integer, "name": string, "value_size": integer, "offset": integer,
            "addr_width": integer, "group": one_of("before", "before-write-only", "after")},
           {"common_reg_name": integer, "common_reg_name_name": string,
            "largest_enclosing": integer, "largest_enclosing_name": string})
DECODED = obj(*merge(named("category"), named("mnemonic"), named("form"), plain(
    flags=integer, exp_count=integer, eff_oper_size=integer, eff_addr_size=integer,
    lc_size=integer, first_out_slot=integer, first_after_slot=integer, lc_count=integer,
    mem0_seg_slot=integer, mem0_base_slot=integer, mem0_scale=integer,
    mem0_index_slot=integer, mem1_base_slot=integer, const_slot=list_of(hexnum, 2),
    operands=list_of(INS_OPERAND), lc_slots=list_of(SLOT))))
SEM_OPERAND = obj({"kind": one_of("register", "memory", "agen", "pointer", "immediate"),
                   "bits": integer, "access": one_of("-", "r", "w", "rw")},
                  {"reg": string, "segment": nullable(string), "base": nullable(string),
                   "index": nullable(string), "scale": integer, "disp": integer,
                   "value": hexnum, "selector": integer, "absolute": hexnum})
SEMANTICS = obj({"zydis_mnemonic": string, "category": one_of(*SEM_CATEGORIES),
                 "zydis_category": string, "length": integer, "mode": one_of(32, 64),
                 "target": nullable(hexnum),
                 "flags": list_of(one_of("indirect", "far", "rep", "lock")), "text": string,
                 "operands": list_of(SEM_OPERAND)})
INS = obj(*merge(named("type"), plain(
    id=integer, cs_is_64_bits=integer, code_size=integer, code=nullable(hexbytes),
    module_id=integer, address=hexnum, disasm=nullable(string), decoded=nullable(DECODED),
    semantics=nullable(SEMANTICS))))

SYSCALL = obj(*merge(named("uniform_id"), named("convention"), plain(
    id=integer, raw_id=integer, completed=integer, arg_count=integer, extra_count=integer,
    begin_eid=integer, end_eid=integer, before_sp=hexnum, result=hexnum,
    args=list_of(hexnum), args_fp_absolute=boolean, extras=hexbytes)))

MODULE = obj({"id": integer, "load_eid": integer, "unload_eid": integer,
              "start_addr": hexnum, "end_addr": hexnum, "win_name": string,
              "device_name": string},
             {"last_file_write_time": hexnum, "last_file_write_time_utc": nullable(string),
              "version_info": list_of(integer, 4)})

THREAD = obj(plain(id=integer, win_tid=integer, tib_addr=hexnum, first_eid=integer,
                   last_eid=integer, rec_count=integer)[0])

CONTEXT_MAP = obj(*merge(named("common_name"), named("eff_largest32"),
                         named("eff_largest64"), plain(
                             id=integer, name=string, offset32=integer, size32=integer,
                             offset64=integer, size64=integer)))

RANGE = obj({"id": integer, "first": hexnum, "last": hexnum})

XML = obj({"layout": one_of("none", "rootless", "2015"), "xed_version": nullable(string),
           "process_id": nullable(integer), "bitness": nullable(integer),
           "os_name": nullable(string), "os_id": nullable(string),
           "app_command_line": nullable(string), "pin_version": nullable(string),
           "pin_command_line": nullable(string), "pin_working_directory": nullable(string),
           "has_xmm": nullable(integer), "has_ymm": nullable(integer),
           "has_zmm": nullable(integer), "raw_trace_date": nullable(string),
           "umtracer_version": nullable(string), "ins_format_version": nullable(integer),
           "ins_begin_record_version": nullable(integer),
           "exec_format_version": nullable(integer),
           "syscall_table_version": nullable(integer), "elements": map_of(string)})

INFO = obj({"trace": string, "exec_count": integer, "exec_version": integer,
            "ins_count": integer, "ins_record_version": integer, "syscall_count": integer,
            "syscall_version": integer, "unified_ids_version": integer,
            "module_count": integer, "module_row_size": integer, "thread_count": integer,
            "thread_row_size": integer, "address_range_count": integer,
            "dump_size": integer, "context_map_elems": integer,
            "xml_layout": nullable(one_of("none", "rootless", "2015")),
            "xed_version": nullable(string), "process_id": nullable(integer),
            "bitness": nullable(integer), "os_name": nullable(string),
            "app_command_line": nullable(string),
            "files": map_of(nullable(integer), FILES)})


def counts(key):
    return list_of(obj(*merge(named(key), plain(count=integer))))


def name_counts(key, t=string):
    return list_of(obj({key: t, "count": integer}))


STATS = obj({"records": integer, "bad_records": integer,
             "by_type": map_of(integer, REC_TYPES),
             "by_thread": list_of(obj(plain(thread_id=integer, win_tid=integer,
                                            records=integer)[0])),
             "other_thread_records": integer, "instructions": integer,
             "undecoded_instructions": integer, "mnemonics": counts("mnemonic"),
             "categories": counts("category"), "syscalls": counts("uniform_id"),
             "zydis_mnemonics": name_counts("zydis_mnemonic"),
             "zydis_categories": name_counts("zydis_category"),
             "semantic_categories": name_counts("category", one_of(*SEM_CATEGORIES)),
             "undecodable_code": integer,
             "memory": obj(plain(reads=integer, read_bytes=integer, writes=integer,
                                 written_bytes=integer)[0])})

PROBLEM = obj({"kind": one_of("problem"), "source": one_of("verify", "scan"),
               "severity": one_of("error", "warning"), "check": string, "status": integer,
               "status_text": string, "file": nullable(one_of(*FILES)), "id": integer,
               "offset": hexnum, "message": string})
SUMMARY = obj({"kind": one_of("summary"), "trace": string, "consistent": boolean,
               "errors": integer, "warnings": integer, "records": integer,
               "stopped": boolean})

HISTORY = obj({"id": integer, "thread_id": integer,
               "kind": one_of("read", "write", "context", "peek"), "address": hexnum,
               "size": integer, "value": hexbytes}, {"trusted": boolean})


def mem_data(v, where):
    if not isinstance(v, str) or len(v) % 2 or any(
            c not in "0123456789abcdef?" for c in v) or any(
            ("?" in v[i:i + 2]) and v[i:i + 2] != "??" for i in range(0, len(v), 2)):
        raise Bad(f"{where}: {v!r} is not hex bytes with ?? for unknown ones")


MEMORY = obj({"at": integer, "address": hexnum, "length": integer, "data": mem_data,
              "sources": list_of(nullable(integer))})


REG_PART = re.compile(r"^0x(?:[0-9a-f]{2}|\?\?)+$")


def reg_value(v, where):
    """A register's value: "0x..." up to 8 bytes known (a number), or with ??
    for unknown bytes ("0x" and two characters a byte), or hex bytes in
    memory order (?? for unknown ones) beyond 8 bytes."""
    if isinstance(v, str) and (HEX.match(v) or REG_PART.match(v)):
        return
    mem_data(v, where)


STATE = obj({"at": integer, "thread_id": integer, "registers": map_of(nullable(reg_value)),
             "sources": map_of(nullable(integer))})
REG_HISTORY = obj({"id": integer, "thread_id": integer, "register": string,
                   "value": nullable(reg_value), "changed": boolean})
ORIGIN = obj({"depth": integer, "id": nullable(integer), "what": string,
              "value": nullable(reg_value),
              "kind": one_of("instruction", "context", "unknown")},
             {"address_only": one_of(True)})
CALLS_COUNTS = obj(plain(calls=integer, threads=integer, targets=integer, returned=integer,
                         abandoned=integer, open=integer, unmatched_rets=integer,
                         ignored=integer)[0])
INDEX = obj({"index": string, "records": integer, "accesses": integer, "postings": integer,
             "pages": integer, "bytes": integer, "exec_bytes": integer, "runs": integer, "merge_passes": integer,
             "temp_bytes": integer, "threads": integer, "seconds": number},
            {"calls": CALLS_COUNTS})

# calls and stack: the contract of issue 15, and the keys added to it
CALL = obj({"id": integer, "thread_id": integer, "depth": integer, "caller": hexnum,
            "target": hexnum, "return_id": nullable(integer), "parent": nullable(integer),
            "module": nullable(string), "module_offset": nullable(hexnum),
            "end": one_of("returned", "abandoned", "open"), "end_id": nullable(integer),
            "abandoned": boolean, "return_address": hexnum,
            "target_source": one_of("next", "decoded", "operand", "unknown")},
           {"args": list_of(nullable(hexnum)), "return_value": nullable(hexnum)})
FRAME = obj({"call_id": integer, "caller": hexnum, "target": hexnum, "return_address": hexnum,
             "module": nullable(string), "module_offset": nullable(hexnum),
             "target_module": nullable(string), "target_module_offset": nullable(hexnum),
             "depth": integer})
STACK = obj({"at": integer, "thread_id": integer, "depth": integer, "frames": list_of(FRAME)})


COVERAGE_ENTRY = obj({"module": nullable(string), "module_id": nullable(integer),
                      "base": nullable(hexnum), "addresses": integer, "executions": integer})
COVERAGE_DIFF = obj({"module": nullable(string), "only_in": one_of("this", "other"),
                     "module_id": nullable(integer), "base": nullable(hexnum),
                     "addresses": list_of(hexnum), "offsets": list_of(hexnum)})


def coverage(v, where):
    """An entry of coverage, or with --diff a module's addresses in one trace only."""
    (COVERAGE_DIFF if isinstance(v, dict) and "only_in" in v else COVERAGE_ENTRY)(v, where)


SCHEMAS = {"exec": EXEC, "ins": INS, "syscalls": SYSCALL, "modules": MODULE,
           "threads": THREAD, "context-map": CONTEXT_MAP, "address-space": RANGE,
           "xml": XML, "info": INFO, "stats": STATS, "history": HISTORY, "mem": MEMORY,
           "index": INDEX, "state": STATE, "reg-history": REG_HISTORY, "origin": ORIGIN,
           "coverage": coverage, "calls": CALL, "stack": STACK}
SINGLE = {"info", "xml", "stats", "mem", "index", "state", "stack"}


# ---- cross-field rules ----------------------------------------------------------

CONTEXT_TYPES = ("thread-begin", "syscall-entry", "syscall-exit", "ctx-apc", "ctx-exception",
                 "ctx-callback", "ctx-unknown")


def rules_exec(o, flags, where):
    t = o["type"]
    has = {"instruction": {"ins_id", "address", "disasm", "zydis_mnemonic",
                           "semantic_category"},
           "syscall-entry": {"syscall_id", "uniform_id"},
           "syscall-exit": {"syscall_id", "uniform_id"},
           "syscall-skipped": {"syscall_id", "uniform_id"},
           "thread-end": {"exit_code"}, "app-end": {"exit_code"}}.get(t, set())
    base = {"id", "thread_id", "type", "type_code", "flags", "prev", "next"}
    extra = set(o) - base - {"uniform_id_name"}
    want = set(has)
    if "--operands" in flags and t == "instruction":
        want.add("operands")
    if "--context" in flags and t in CONTEXT_TYPES:
        want.add("context")
    if "--accesses" in flags and (t == "instruction" or t in CONTEXT_TYPES):
        want.add("accesses")
    if extra != want:
        raise Bad(f"{where}: {t} record has keys {sorted(extra)}, expected {sorted(want)}")
    if REC_TYPES.index(t) != (o["type_code"] if o["type_code"] < 7 else o["type_code"] - 1):
        raise Bad(f"{where}: type {t} with type_code {o['type_code']}")
    for i, op in enumerate(o.get("operands") or []):
        if (op["kind"] == "mem") != ("address" in op):
            raise Bad(f"{where}.operands[{i}]: address key against kind {op['kind']}")
        # an immediate is named by its constant slot, as in the text output
        if (op["kind"] == "imm") != (op["name"] in ("imm0", "imm1")):
            raise Bad(f"{where}.operands[{i}]: name {op['name']} for kind {op['kind']}")
        for k in ("before", "after"):
            v = op[k]
            if v is not None and not v.startswith("0x") and len(v) != 2 * op["size"]:
                raise Bad(f"{where}.operands[{i}].{k}: {len(v) // 2} bytes for size "
                          f"{op['size']}")
    for i, a in enumerate(o.get("accesses") or []):
        if len(a["value"]) != 2 * a["size"]:
            raise Bad(f"{where}.accesses[{i}]: value of {len(a['value']) // 2} bytes, "
                      f"size {a['size']}")
        if (a["kind"] == "context") != ("block" in a) or ("slot" in a) == ("block" in a):
            raise Bad(f"{where}.accesses[{i}]: slot/block keys against kind {a['kind']}")
    c = o.get("context")
    if c is not None:
        if len(c["mem"]) != c["mem_count"]:
            raise Bad(f"{where}.context: {len(c['mem'])} mem for mem_count {c['mem_count']}")
        for i, m in enumerate(c["mem"]):
            if len(m["data"]) != 2 * m["size"]:
                raise Bad(f"{where}.context.mem[{i}]: data of {len(m['data']) // 2} bytes, "
                          f"size {m['size']}")


def rules_ins(o, flags, where):
    if o["code"] is not None and len(o["code"]) != 2 * o["code_size"]:
        raise Bad(f"{where}: code of {len(o['code']) // 2} bytes, code_size {o['code_size']}")
    sem = o["semantics"]
    if sem is not None:
        if sem["length"] != o["code_size"] or (sem["mode"] == 64) != (o["cs_is_64_bits"] != 0):
            raise Bad(f"{where}.semantics: length or mode differs from the row")
        if (sem["target"] is not None) and sem["category"] not in ("call", "jmp", "cond_branch"):
            raise Bad(f"{where}.semantics: a target for a {sem['category']}")
        for i, op in enumerate(sem["operands"]):
            want = {"register": {"reg"}, "memory": {"segment", "base", "index", "scale", "disp"},
                    "agen": {"segment", "base", "index", "scale", "disp"},
                    "pointer": {"value", "selector"}, "immediate": {"value"}}[op["kind"]]
            got = set(op) - {"kind", "bits", "access", "absolute"}
            if got != want:
                raise Bad(f"{where}.semantics.operands[{i}]: keys {sorted(got)} for {op['kind']}")
    d = o["decoded"]
    if d is None:
        return
    if len(d["operands"]) != d["exp_count"] or len(d["lc_slots"]) != d["lc_count"]:
        raise Bad(f"{where}.decoded: operand or slot count differs from exp_count/lc_count")
    for i, s in enumerate(d["lc_slots"]):
        if ("common_reg_name" in s) == ("largest_enclosing" in s):
            raise Bad(f"{where}.decoded.lc_slots[{i}]: needs exactly one of "
                      "common_reg_name and largest_enclosing")


def rules_syscalls(o, flags, where):
    if len(o["args"]) != o["arg_count"]:
        raise Bad(f"{where}: {len(o['args'])} args for arg_count {o['arg_count']}")


def rules_modules(o, flags, where):
    k = {"last_file_write_time", "last_file_write_time_utc", "version_info"}
    if 0 < len(k & set(o)) < 3:
        raise Bad(f"{where}: the 2015 fields come together")


def rules_stats(o, flags, where):
    if sum(o["by_type"].values()) != o["records"]:
        raise Bad(f"{where}: by_type does not add up to records")
    if sum(t["records"] for t in o["by_thread"]) + o["other_thread_records"] != o["records"]:
        raise Bad(f"{where}: by_thread does not add up to records")
    if sum(m["count"] for m in o["mnemonics"]) != \
            o["instructions"] - o["undecoded_instructions"]:
        raise Bad(f"{where}: mnemonics do not add up to the decoded instructions")
    for key in ("zydis_mnemonics", "zydis_categories", "semantic_categories"):
        if sum(m["count"] for m in o[key]) + o["undecodable_code"] != o["instructions"]:
            raise Bad(f"{where}: {key} and undecodable_code do not add up to instructions")


def rules_history(o, flags, where):
    if len(o["value"]) != 2 * o["size"]:
        raise Bad(f"{where}: value of {len(o['value']) // 2} bytes, size {o['size']}")


def rules_mem(o, flags, where):
    if len(o["data"]) != 2 * o["length"] or len(o["sources"]) != o["length"]:
        raise Bad(f"{where}: data or sources do not have length entries")
    for i, src in enumerate(o["sources"]):
        if src is None and o["data"][2 * i:2 * i + 2] != "??":
            raise Bad(f"{where}: byte {i} known without a source")


def rules_state(o, flags, where):
    if sorted(o["registers"]) != sorted(o["sources"]):
        raise Bad(f"{where}: registers and sources name different registers")
    for name, value in o["registers"].items():
        if name != name.lower():
            raise Bad(f"{where}: register {name} not in lower case")
        if value is not None and o["sources"][name] is None:
            raise Bad(f"{where}: {name} known without a source")


WHAT = re.compile(r"^(?:0x[0-9a-f]+:[0-9]+|[a-z0-9_]+)$")


def rules_origin(o, flags, where):
    if not WHAT.match(o["what"]):
        raise Bad(f"{where}: what {o['what']!r} is neither a register nor 0xADDR:LEN")
    if (o["id"] is None) and o["kind"] != "unknown":
        raise Bad(f"{where}: kind {o['kind']} without a defining record")
    if o["depth"] == 0 and "address_only" in o:
        raise Bad(f"{where}: the root is not an input")

def rules_calls(o, flags, where):
    if (o["end"] == "returned") != (o["return_id"] is not None) or \
            (o["end"] == "open") != (o["end_id"] is None) or \
            (o["end"] == "abandoned") != o["abandoned"]:
        raise Bad(f"{where}: end {o['end']} against return_id, end_id and abandoned")
    if (o["depth"] == 0) != (o["parent"] is None) or (o["module"] is None) != \
            (o["module_offset"] is None):
        raise Bad(f"{where}: depth against parent, or module against module_offset")
    if o["parent"] is not None and o["parent"] >= o["id"]:
        raise Bad(f"{where}: a parent after its call")
    n = next((int(f.split("=", 1)[1]) for f in flags if f.startswith("--args=")), None)
    if ("args" in o) != (n is not None) or (n is not None and len(o["args"]) != n) or \
            ("return_value" in o) != (n is not None):
        raise Bad(f"{where}: args and return_value come with --args N, N of them")


def rules_stack(o, flags, where):
    frames = o["frames"]
    if len(frames) != o["depth"] or any(f["call_id"] >= o["at"] for f in frames) or \
            any(a["call_id"] <= b["call_id"] for a, b in zip(frames, frames[1:])):
        raise Bad(f"{where}: frames not innermost first before the record, or not depth of them")


def rules_coverage(o, flags, where):
    if "only_in" in o:
        if len(o["addresses"]) != len(o["offsets"]) or not o["addresses"]:
            raise Bad(f"{where}: addresses and offsets differ in number, or none")
        if (o["module"] is None) != (o["module_id"] is None) or \
                (o["module"] is None) != (o["base"] is None):
            raise Bad(f"{where}: module, module_id and base are null together")
        return
    if (o["module"] is None) != (o["module_id"] is None) or \
            (o["module"] is None) != (o["base"] is None):
        raise Bad(f"{where}: module, module_id and base are null together")
    if (o["addresses"] == 0) != (o["executions"] == 0) or o["addresses"] > o["executions"]:
        raise Bad(f"{where}: {o['addresses']} addresses for {o['executions']} executions")


RULES = {"exec": rules_exec, "coverage": rules_coverage, "ins": rules_ins, "syscalls": rules_syscalls,
         "modules": rules_modules, "stats": rules_stats, "history": rules_history,
         "mem": rules_mem, "state": rules_state, "origin": rules_origin, "calls": rules_calls,
         "stack": rules_stack}


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise Bad(f"duplicate key among {keys}")
    return dict(pairs)


def main():
    command = sys.argv[1]
    flags = set(sys.argv[2:])
    data = sys.stdin.buffer.read()
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        print(f"json_check {command}: output is not UTF-8: {e}")
        return 1
    if text and not text.endswith("\n"):
        print(f"json_check {command}: the last line does not end with a newline")
        return 1
    lines = text.split("\n")[:-1] if text else []
    try:
        objs = []
        for n, line in enumerate(lines, 1):
            where = f"{command} line {n}"
            try:
                o = json.loads(line, object_pairs_hook=no_duplicates)
            except ValueError as e:
                raise Bad(f"{where}: not JSON: {e}")
            if not isinstance(o, dict):
                raise Bad(f"{where}: not an object")
            objs.append((where, o))
        if command in SINGLE and len(objs) != 1:
            raise Bad(f"{command}: {len(objs)} lines, expected one object")
        if command == "verify":
            if not objs or objs[-1][1].get("kind") != "summary":
                raise Bad("verify: the last line is not the summary")
            for where, o in objs[:-1]:
                PROBLEM(o, where)
            SUMMARY(objs[-1][1], objs[-1][0])
            s = objs[-1][1]
            errs = sum(1 for _, o in objs[:-1] if o["severity"] == "error")
            if s["consistent"] != (s["errors"] == 0) or errs > s["errors"]:
                raise Bad("verify: the summary does not match the problems")
        else:
            depth = -1
            for where, o in objs:
                SCHEMAS[command](o, where)
                if command == "origin":  # depth-first: a node at most one below the last
                    if o["depth"] > depth + 1 or (depth < 0 and o["depth"] != 0):
                        raise Bad(f"{where}: depth {o['depth']} after {depth}")
                    depth = o["depth"]
                if command in RULES:
                    RULES[command](o, flags, where)
    except Bad as e:
        print(f"json_check: {e}")
        return 1
    print(f"json_check {command}: {len(lines)} lines conform")
    return 0


if __name__ == "__main__":
    sys.exit(main())
