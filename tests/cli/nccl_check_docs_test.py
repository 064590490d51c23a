#!/usr/bin/env python3
"""Checks that the nccl-check figures quoted in the docs are what `opsim nccl-check` prints.

    nccl_check_docs_test.py OPSIM REPOSITORY

Runs `OPSIM nccl-check --format json` in REPOSITORY (its default tables) and compares, table
by table, the summary row of docs/collectives.md (sizes, median |time error|, worst ratio,
worst |busbw error| from 64 MiB, goal met, counts) at the docs' rounding, then the Overall
line there, and README.md's figure row and count of tables. Prints one line per difference
with the value nccl-check gives, so a change that moves a figure says which line to edit.
Exit codes: 0 the docs agree; 1 they differ; 2 the run or a file could not be read.
"""

import json
import os
import re
import subprocess
import sys

DOCS = "docs/collectives.md"
README = "README.md"
ROW = re.compile(r"^\| `([a-z0-9_-]+)` \| [^|]+ \| (yes|no[^|]*) \| (\d+) \| ([\d.]+) % \| "
                 r"([\d.]+)× \| ([\d.]+) % \| (yes|no) \|$")
OVERALL = re.compile(r"^Overall: (\d+) of (\d+) counted tables meet the goal; median \|time "
                     r"error\| over their sizes ([\d.]+)%; goal met: (yes|no)$")
COUNTED_SIZES = re.compile(r"the (\d+) counted tables, (\d+) sizes")
README_ROW = re.compile(r"collectives against (\d+) cited nccl-tests tables \| (\d+) meet "
                        r"issue #27's goal; median \\\|time error\\\| ([\d.]+) % over (\d+) sizes")
README_TABLES = re.compile(r"puts opsim beside (\d+) published nccl-tests tables")


def nccl_check(opsim, repository):
    run = subprocess.run([opsim, "nccl-check", "--format", "json"], cwd=repository,
                         capture_output=True, text=True, check=False)
    if run.returncode not in (0, 1):
        sys.exit(f"nccl_check_docs_test: nccl-check exited {run.returncode}: "
                 f"{run.stderr.strip()}")
    return json.loads(run.stdout)


def expected_row(table):
    s = table["summary"]
    return {"counts": "yes" if table["counts"] else "no", "sizes": str(s["sizes"]),
            "median": f"{s['median_abs_time_error_pct']:.1f}",
            "ratio": f"{s['worst_time_ratio']:.2f}",
            "busbw": f"{s['worst_abs_busbw_error_pct']:.1f}",
            "goal": "yes" if s["goal_met"] else "no"}


def docs_rows(lines):
    rows = {}
    for number, line in enumerate(lines, 1):
        m = ROW.match(line)
        if m:
            name, counts, sizes, median, ratio, busbw, goal = m.groups()
            rows[name] = (number, {"counts": counts.split(":")[0], "sizes": sizes,
                                   "median": median, "ratio": ratio, "busbw": busbw,
                                   "goal": goal})
    return rows


def table_differences(report, lines):
    rows = docs_rows(lines)
    problems = []
    for table in report["tables"]:
        name = os.path.splitext(os.path.basename(table["file"]))[0]
        want = expected_row(table)
        if name not in rows:
            problems.append(f"{DOCS}: no summary row for table {name} ({want})")
            continue
        number, have = rows.pop(name)
        for field, value in want.items():
            if have[field] != value:
                problems.append(f"{DOCS}:{number}: {name}: {field} is {have[field]}, "
                                f"nccl-check gives {value}")
    for name, (number, _) in rows.items():
        problems.append(f"{DOCS}:{number}: row for {name}, which nccl-check does not run")
    return problems


def overall_differences(report, lines):
    overall = report["overall"]
    sizes = sum(t["summary"]["sizes"] for t in report["tables"] if t["counts"])
    want = (str(overall["counted_meeting_goal"]), str(overall["counted"]),
            f"{overall['median_abs_time_error_pct']:.1f}",
            "yes" if overall["goal_met"] else "no")
    problems = []
    found = False
    for number, line in enumerate(lines, 1):
        m = OVERALL.match(line)
        if m:
            found = True
            if m.groups() != want:
                problems.append(f"{DOCS}:{number}: Overall line says {m.groups()}, "
                                f"nccl-check gives {want}")
        m = COUNTED_SIZES.search(line)
        if m and m.groups() != (want[1], str(sizes)):
            problems.append(f"{DOCS}:{number}: says {m.groups()[0]} counted tables and "
                            f"{m.groups()[1]} sizes, nccl-check gives {want[1]} and {sizes}")
    if not found:
        problems.append(f"{DOCS}: no Overall line")
    return problems, (want[1], want[0], want[2], str(sizes))


def readme_differences(repository, want, tables):
    problems = []
    found = set()
    with open(os.path.join(repository, README), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = README_ROW.search(line)
            if m:
                found.add("row")
                if m.groups() != want:
                    problems.append(f"{README}:{number}: says tables, meeting, median, sizes = "
                                    f"{m.groups()}, nccl-check gives {want}")
            m = README_TABLES.search(line)
            if m:
                found.add("tables")
                if m.group(1) != str(tables):
                    problems.append(f"{README}:{number}: says {m.group(1)} published tables, "
                                    f"nccl-check runs {tables}")
    if "row" not in found:
        problems.append(f"{README}: no nccl-check figure row")
    if "tables" not in found:
        problems.append(f"{README}: no count of the tables nccl-check runs")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nccl_check_docs_test.py OPSIM REPOSITORY")
    opsim, repository = sys.argv[1], sys.argv[2]
    report = nccl_check(opsim, repository)
    with open(os.path.join(repository, DOCS), encoding="utf-8") as f:
        lines = f.read().splitlines()
    problems = table_differences(report, lines)
    overall_problems, readme_want = overall_differences(report, lines)
    problems += overall_problems + readme_differences(repository, readme_want,
                                                      len(report["tables"]))
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, ValueError) as error:
        print(f"nccl_check_docs_test: {error}", file=sys.stderr)
        sys.exit(2)
