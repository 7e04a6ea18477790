#!/usr/bin/env python3
"""Reads everything of each trace given through every accessor of the
umtrace package, catching only umtrace.Error: run by test_errors.py in a
child process on corrupt traces, so that a crash of the interpreter (a
signal) or any other exception fails the test.

    sweep.py TRACE_DIR...   (prints the errors met per trace, opened strictly
                             and in salvage mode; exit 0 when nothing but
                             umtrace.Error was raised)
"""
import sys

import umtrace


def attempt(errors, fn, *args):
    try:
        return fn(*args)
    except umtrace.Error as e:
        assert e.code < 0 and e.message, e
        errors.append(e.code)
        return None


def sweep_record(errors, r):
    for attr in ("type_name", "flag_names", "links", "data", "reliability"):
        getattr(r, attr)
    if r.type == umtrace.RecType.INSTRUCTION:
        attempt(errors, lambda: r.instruction.decoded.slots)
        attempt(errors, lambda: r.operands)
        attempt(errors, lambda: [r.phrase(w) for w in (0, 1)])
        attempt(errors, lambda: r.register("rsp"))
    elif r.type in (umtrace.RecType.SYSCALL_ENTRY, umtrace.RecType.SYSCALL_EXIT,
                    umtrace.RecType.SYSCALL_SKIPPED):
        attempt(errors, lambda: r.syscall.args)
    attempt(errors, lambda: (lambda c: (c.registers(), [m.data.sum() for m in c.memory]))(
        r.context))
    attempt(errors, r.accesses)


def sweep(path, salvage):
    errors = []
    t = attempt(errors, umtrace.open, path, salvage)
    if t is None:
        return errors
    with t:
        attempt(errors, lambda: (t.info, t.salvaged, t.counts))
        attempt(errors, lambda: t.metadata.as_dict())
        for view in ("instructions", "threads", "modules", "address_ranges", "syscall_offsets",
                     "exec_offsets", "prev_next"):
            attempt(errors, lambda: getattr(t, view).tobytes())
        attempt(errors, lambda: t.context_map.tobytes())
        for i in range(t.counts["instructions"]):
            attempt(errors, lambda: (t.ins(i).disasm, t.ins(i).code, t.ins(i).decoded.operands))
        for i in range(t.counts["syscalls"]):
            attempt(errors, lambda: t.syscall(i).args)
        for i in range(t.counts["modules"]):
            attempt(errors, lambda: (t.module_name(i), t.module_name(i, True)))
        attempt(errors, lambda: t.columns(fields=umtrace.FIELDS, skip_bad=True))
        attempt(errors, lambda: t.accesses(skip_bad=True))
        for tid in range(t.counts["threads"]):
            attempt(errors, lambda: t.thread(tid).ids())
        for i in range(len(t)):
            r = attempt(errors, t.__getitem__, i)
            if r is not None:
                sweep_record(errors, r)
        attempt(errors, lambda: t.verify(max_problems=50))
    return errors


def main():
    for path in sys.argv[1:]:
        errors = sweep(path, False)
        salvaged = sweep(path, True)  # what a salvage open keeps, read the same way
        print(f"{path}: {len(errors)} errors, {len(salvaged)} in salvage mode")


if __name__ == "__main__":
    main()
