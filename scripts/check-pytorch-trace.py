#!/usr/bin/env python3
"""Checks that PyTorch profiler traces hold what `opsim replay` reads, and counts their events.

A trace passes when it is a Chrome trace object with a `traceEvents` list, has at least one
`user_annotation` span `ProfilerStep#N`, and `cpu_op` events with `Input Dims` (recorded
with record_shapes=True). Prints one line per file: size, events, steps, cpu_ops with shapes,
GPU kernels, copies and runtime calls.

    scripts/check-pytorch-trace.py tests/data/pytorch/*.json.gz

Exit codes: 0 every file passes; 1 some file lacks what replay needs; 2 a file is unreadable.
"""

import argparse
import collections
import gzip
import json
import os
import stat
import sys

PROG = "check-pytorch-trace.py"


class Unreadable(Exception):
    """A file that is not a JSON trace: one line, exit 2."""


def load(path):
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise Unreadable(f"{path}: not a regular file")
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror}") from None
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as trace_file:
            trace = json.load(trace_file)
    except (OSError, ValueError, EOFError) as error:
        raise Unreadable(f"{path}: {error}") from None
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise Unreadable(f"{path}: not a Chrome trace object with a traceEvents list")
    return trace


def summarize(trace):
    events = [event for event in trace["traceEvents"] if isinstance(event, dict)]
    categories = collections.Counter(event.get("cat") for event in events)
    steps = [event for event in events if event.get("cat") == "user_annotation"
             and str(event.get("name", "")).startswith("ProfilerStep#")]
    shaped = [event for event in events if event.get("cat") == "cpu_op"
              and "Input Dims" in (event.get("args") or {})]
    return {"events": len(trace["traceEvents"]), "steps": len(steps),
            "cpu_ops_with_shapes": len(shaped), "kernels": categories["kernel"],
            "gpu_copies": categories["gpu_memcpy"] + categories["gpu_memset"],
            "runtime_calls": categories["cuda_runtime"]}


def problems(summary):
    found = []
    if summary["steps"] == 0:
        found.append("no user_annotation ProfilerStep#N span")
    if summary["cpu_ops_with_shapes"] == 0:
        found.append("no cpu_op with Input Dims (record_shapes=True)")
    return found


def check(path):
    """True when the trace passes; prints its line (a file that fails to load is Unreadable)."""
    summary = summarize(load(path))
    counts = ", ".join(f"{value} {key.replace('_', ' ')}" for key, value in summary.items())
    missing = problems(summary)
    verdict = "ok" if not missing else "FAILS: " + "; ".join(missing)
    print(f"{path}: {os.path.getsize(path)} bytes, {counts}: {verdict}")
    return not missing


def main(argv):
    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("traces", nargs="+", metavar="TRACE", help="TRACE.json or TRACE.json.gz")
    arguments = parser.parse_args(argv)
    passed, unreadable = True, False
    for path in arguments.traces:
        try:
            passed = check(path) and passed
        except Unreadable as error:
            print(f"{PROG}: {error}", file=sys.stderr)
            unreadable = True
    return 2 if unreadable else 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
