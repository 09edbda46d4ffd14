#!/usr/bin/env python3
"""Instructions (valgrind --tool=callgrind) of bench/'s ck commands, on a store seeded as bench/run seeds it.

Counts instructions rather than time, so two builds can be compared on a busy machine (docs/performance.md,
"After the split into layers"). Each row is the median of --runs runs, after one untimed warm-up run (the index
is built, the saved record exists). It prints one tab-separated line per row: label, operation, median, all runs.

    CK=/path/to/ck bench/callgrind.py LABEL [--size 10000] [--runs 3] [--bulk-runs 1] [--only save,fetch]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (beside this file)


def count(cmd: bench.Cmd, env: dict) -> int:
    bench.run_prepare(cmd)
    with bench.open_stdin(cmd) as stdin, bench.open_stdout(cmd) as out:
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd.argv],
                           stdin=stdin, stdout=out, stderr=subprocess.PIPE, text=True, env=env)
    found = re.search(r"Collected : (\d+)", p.stderr)
    if p.returncode != 0 or not found:
        raise bench.fail(cmd, f"callgrind, exit {p.returncode}", p.stderr)
    return int(found.group(1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench/callgrind.py", description=__doc__.splitlines()[0])
    ap.add_argument("label", help="first column of the output (e.g. base, split)")
    ap.add_argument("--size", type=int, default=10_000, help="records in the store (default 10000)")
    ap.add_argument("--runs", type=int, default=3, help="callgrind runs per fast operation (default 3)")
    ap.add_argument("--bulk-runs", type=int, default=1, help="callgrind runs per bulk operation (default 1)")
    ap.add_argument("--only", help="comma-separated operation keys (default: all of bench.OPERATIONS)")
    a = ap.parse_args(argv)

    ck = os.environ.get("CK")
    if not ck or not os.access(ck, os.X_OK):
        raise bench.BenchError("set CK to the ck binary to measure (a release static build)")
    if not shutil.which("valgrind"):
        raise bench.BenchError("valgrind is not installed (apt-get install valgrind)")
    for k in list(os.environ):
        if k.startswith("CK_") or k == "NO_COLOR":
            del os.environ[k]
    only = set(a.only.split(",")) if a.only else None

    d = bench.WORK / f"callgrind-{a.label}-n{a.size}"
    bench.rm(d)
    d.mkdir(parents=True)
    c = bench.Ctx(n=a.size, ck=str(Path(ck).resolve()), sqlite3="sqlite3", store=d / "store", db=d / "notes.db",
                  jsonl=d / "notes.jsonl", load_sql=d / "load.sql", import_sql=d / "import.sql",
                  fresh_store=d / "fresh-store", fresh_db=d / "fresh.db",
                  mid_name=bench.record_name(max(1, a.size // 2)), first_store=d / "first-store",
                  replica_db=d / "replica.db")
    bench.write_dataset(a.size, c.jsonl, c.load_sql, c.import_sql)
    for args in bench.load_steps(c):
        bench.run_checked(bench.Cmd(bench.ck_cmd(c, *args)))

    # The same hash seed every run: Set and Dictionary orders (and so the work) repeat.
    env = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1")
    for op in bench.OPERATIONS:
        if only is not None and op.key not in only:
            continue
        cmd = op.ck(c)
        bench.run_checked(cmd)  # warm-up
        counts = [count(cmd, env) for _ in range(a.bulk_runs if op.bulk else a.runs)]
        print(f"{a.label}\t{op.label}\t{int(statistics.median(counts))}\t{counts}", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except bench.BenchError as e:
        print(f"bench/callgrind.py: {e}", file=sys.stderr)
        sys.exit(2)
