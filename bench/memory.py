#!/usr/bin/env python3
"""bench/memory.py: the memory row. Peak RSS of `ck export` and `ck import` of a whole environment (issue 28).

Builds the benchmark's store of N `Note` records (bench/README.md, "The dataset"; default N = 100,000), then runs
once each, under the kernel's own count of the child's peak resident memory (wait4's rusage, through a fork of this
small process, so the figure is ck's alone):

  - `ck export --file doc.json` of the store (private database, the zone `Notes`);
  - `ck import doc.json` into a fresh store.

It prints each peak in MB (MiB) beside the document's size and their ratio, and the target (<= 64 MB at 100k
records: memory stays flat, whatever the document's size), and writes bench/results/memory-<UTC time>.json. It
reports and does not gate (exit 0); exit 2 when it cannot run.

  CK=/path/to/ck bench/memory.py                 an existing binary (else the release build, as bench/run does)
  CK=.build/debug/ck bench/memory.py --size 10000
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (beside this file)

TARGET_MB = 64.0


def peak_kib(argv: list[str], env: dict) -> int:
    """Peak RSS of one run of argv, in KiB. Forked from this process (small), not spawned by a large one: Linux
    carries the peak of the memory a child leaves over its exec into the child's count."""
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.execve(argv[0], argv, env)
    _, status, usage = os.wait4(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise bench.BenchError(f"exit {code}: {' '.join(argv)}")
    return int(usage.ru_maxrss)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Peak memory of ck export and ck import of N records.")
    ap.add_argument("--size", type=int, default=100_000, help="records in the store (default 100000)")
    a = ap.parse_args(argv)
    ck = os.environ.get("CK") or bench.build_ck()
    work = bench.REPO / "bench" / "work" / f"memory-n{a.size}"
    bench.rm(work)
    work.mkdir(parents=True)
    jsonl = work / "notes.jsonl"
    bench.write_dataset(a.size, jsonl, work / "load.sql")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"}
    store, fresh, doc = work / "store", work / "fresh", work / "doc.json"

    def ck_run(*args: str, store_dir: Path = store, stdin: Path | None = None) -> None:
        bench.run_checked(bench.Cmd([ck, "--data-dir", str(store_dir), *args], stdin=stdin))

    print(f"memory: building a store of {a.size:,} records in {work}", flush=True)
    ck_run("zone", "create", "Notes")
    ck_run("-z", "Notes", "record", "save", "--batch", "-", "-q", stdin=jsonl)
    export_kib = peak_kib([ck, "--data-dir", str(store), "export", "--file", str(doc)], env)
    size_mb = doc.stat().st_size / 1048576.0
    import_kib = peak_kib([ck, "--data-dir", str(fresh), "import", str(doc), "-q"], env)
    rows = []
    results: dict = {"n": a.size, "document_mb": round(size_mb, 1), "target_mb": TARGET_MB, "unit": "MB (MiB, max RSS)",
                     "method": "wait4 rusage of a forked child", "ck": bench.ck_info(ck, built="CK" not in os.environ), "commands": {}}
    for key, kib in (("export", export_kib), ("import", import_kib)):
        mb = kib / 1024.0
        ok = mb <= TARGET_MB
        results["commands"][key] = {"ck_mb": round(mb, 1), "ratio_to_document": round(mb / size_mb, 2), "pass": ok}
        rows.append([f"ck {key}", f"{mb:.1f}", f"{size_mb:.1f}", f"{mb / size_mb:.2f}x", f"<= {TARGET_MB:g}", bench.verdict(ok)])
    print(f"\nPeak memory of export and import at N = {a.size:,} (max RSS, MB)")
    print(bench.table(["command", "ck MB", "document MB", "ck / document", "target", "result"], rows, right={1, 2, 3, 4}))
    out = bench.REPO / "bench" / "results" / f"memory-{datetime.datetime.now(datetime.timezone.utc):%Y%m%dT%H%M%SZ}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nResults: {out}")
    bench.rm(work)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except bench.BenchError as e:
        print(f"memory: error: {e}", file=sys.stderr)
        sys.exit(2)
