#!/usr/bin/env python3
"""Copies one table of an nccl-tests log into the CSV that `opsim nccl-check` reads.

The log may hold several tests (all_reduce_perf, all_gather_perf, ...); TEST names the one to
copy. Every number is copied as printed: size, count, type, redop, then the out-of-place
time, algbw and busbw and the in-place ones (the root and #wrong columns are dropped, rows
of size 0 left out). Write the model beside it (same name, .yaml), as
experiments/nccl-reference/README.md says.

    scripts/nccl-tests-table.py nccl_N10_G8.log all_reduce_perf > h100-10x8-all_reduce.csv

Exit codes: 0 copied; 2 the log is unreadable, or holds that test not once, or a row is not
nccl-tests' 13 columns.
"""

import sys

from script_input import BadInput, read_regular_text

PROG = "nccl-tests-table.py"
HEADER = ("bytes,count,type,redop,time_us,algbw_GBps,busbw_GBps,"
          "time_us_inplace,algbw_GBps_inplace,busbw_GBps_inplace")


def test_lines(path, text, test):
    sections = [s for s in text.split("# Collective test starting: ")[1:]
                if s.splitlines()[0].strip() == test]
    if len(sections) != 1:
        raise BadInput(f"{path}: holds {len(sections)} '{test}' tables, not one")
    return sections[0].splitlines()[1:]


def rows(path, lines):
    for number, line in enumerate(lines, start=2):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        if len(fields) != 13:
            raise BadInput(f"{path}: row {number} of the table has {len(fields)} columns, not 13")
        size, count, kind, redop, _root, time, algbw, busbw, _wrong, time_in, algbw_in, busbw_in, _ = fields
        if size != "0":
            yield ",".join([size, count, kind, redop, time, algbw, busbw, time_in, algbw_in, busbw_in])


def main(argv):
    if len(argv) != 3:
        print(f"usage: {PROG} LOG TEST (e.g. all_reduce_perf)", file=sys.stderr)
        return 2
    path, test = argv[1], argv[2]
    try:
        table = list(rows(path, test_lines(path, read_regular_text(path), test)))
        if not table:
            raise BadInput(f"{path}: the '{test}' table has no rows")
    except BadInput as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    print(HEADER)
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
