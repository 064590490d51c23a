#!/usr/bin/env python3
"""Fits published nccl-tests times to t = a + T/B + c*sqrt(T) and to t = a + T/B.

T is the bytes one GPU moves as nccl-tests' bus bandwidth counts them (2(n-1)/n S for
allreduce, (n-1)/n S for all-gather, reduce-scatter and all-to-all, S otherwise), from the op
and GPU count in the model beside each table (experiments/nccl-reference/README.md). Rows
from 32 MiB, out-of-place times, least squares of the relative error. Prints per table B
(GB/s), c (us per sqrt(MiB)), a (us), the worst relative error of each fit, and the lag
c sqrt(T) at 1 GiB of each GPU's share S/n (S for other ops): the figures behind
`straggle_after_gib` in docs/collectives.md.

    scripts/nccl-lag-fit.py experiments/nccl-reference/h100-1x8-all_gather.csv ...

Exit codes: 0 fitted; 2 a table or its model is unreadable, or has fewer than 3 rows from
32 MiB.
"""

import csv
import math
import os
import sys

from script_input import BadInput, read_regular_text

PROG = "nccl-lag-fit.py"
MIB = 1048576.0
SMALLEST_BYTES = 32 * MIB


def bus_factor_and_gpus(model_path):
    fields = {}
    for line in read_regular_text(model_path).splitlines():
        key, sep, value = line.partition(":")
        if sep and not key.startswith((" ", "#")):
            fields[key.strip()] = value.split("#")[0].strip()
    try:
        op, n = fields["op"], int(fields["gpus"])
    except (KeyError, ValueError):
        raise BadInput(f"{model_path}: needs op and gpus") from None
    if n < 1:
        raise BadInput(f"{model_path}: gpus must be at least 1")
    if op == "allreduce":
        return 2.0 * (n - 1) / n, n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / n, n
    return 1.0, 1


def rows(table_path):
    text = read_regular_text(table_path)
    try:
        points = [(float(r["bytes"]), float(r["time_us"]))
                  for r in csv.DictReader(text.splitlines())]
    except (KeyError, ValueError, TypeError):
        raise BadInput(f"{table_path}: needs numeric bytes and time_us columns") from None
    points = [(s, t) for s, t in points if s >= SMALLEST_BYTES and t > 0]
    if len(points) < 3:
        raise BadInput(f"{table_path}: fewer than 3 rows from 32 MiB")
    return points


def solve(matrix, vector):
    """Gaussian elimination with partial pivoting on a small dense system."""
    n = len(vector)
    m = [row[:] + [v] for row, v in zip(matrix, vector)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            m[r] = [x - f * y for x, y in zip(m[r], m[col])]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / m[r][r]
    return x


def fit(points, terms):
    """Least squares of (model - t) / t over `terms` (functions of T in MiB)."""
    design = [[term(tr) / t for term in terms] for tr, t in points]
    normal = [[sum(d[i] * d[j] for d in design) for j in range(len(terms))]
              for i in range(len(terms))]
    coef = solve(normal, [sum(d[i] for d in design) for i in range(len(terms))])
    worst = max(abs(sum(c * term(tr) for c, term in zip(coef, terms)) / t - 1)
                for tr, t in points)
    return coef, worst


def report(table_path):
    table = rows(table_path)
    factor, share = bus_factor_and_gpus(os.path.splitext(table_path)[0] + ".yaml")
    points = [(factor * s / MIB, t) for s, t in table]
    with_lag, worst = fit(points, [lambda T: 1.0, lambda T: T, math.sqrt])
    linear, worst_linear = fit(points, [lambda T: 1.0, lambda T: T])
    # 1 MiB/us = 1048.576 GB/s. The lag at 1 GiB (1024 MiB) of each GPU's share S/n, which
    # is T / (factor x n), is what straggle_after_gib sets.
    lag_us = with_lag[2] * math.sqrt(1024 * factor * share)
    name = os.path.basename(table_path)
    return (f"{name}: B {1048.576 / with_lag[1]:.0f} GB/s, c {with_lag[2]:.2f} us/sqrt(MiB), "
            f"a {with_lag[0]:.1f} us, worst {100 * worst:.1f}%, lag at 1 GiB of S/n "
            f"{lag_us:.0f} us; without sqrt: "
            f"B {1048.576 / linear[1]:.0f} GB/s, a {linear[0]:.1f} us, worst "
            f"{100 * worst_linear:.1f}%")


def main(argv):
    if len(argv) < 2:
        print(f"{PROG}: usage: {PROG} TABLE.csv...", file=sys.stderr)
        return 2
    try:
        lines = [report(path) for path in argv[1:]]
    except (BadInput, ZeroDivisionError) as e:
        print(f"{PROG}: {e if isinstance(e, BadInput) else 'the rows do not determine a fit'}",
              file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
