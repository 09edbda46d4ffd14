#!/usr/bin/env python3
"""The bulk-load bar of issue 29: 10,000 records of 5 fields, `ck -q -z Z record save --batch`, against sqlite3
`.import` of the same rows as CSV into a table with one index. Wall time (median of --runs, both sides in turn)
and, with --callgrind, instructions (valgrind; the stable figure on a busy machine).

    CK=/path/to/ck bench/bulkbar.py [--records 10000] [--runs 5] [--callgrind]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

WORK = Path(__file__).resolve().parent / "work" / "bulkbar"
ZONE = "Z"


def write_data(n: int, jsonl: Path, csv_path: Path, import_sql: Path) -> None:
    """Rows `item-00001`…: a STRING name, an INT64 count, a DOUBLE price, a TIMESTAMP and a STRING note."""
    rnd = random.Random(29)
    words = ["alpha", "bravo", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris", "juniper"]
    with open(jsonl, "w", encoding="utf-8") as jf, open(csv_path, "w", encoding="utf-8", newline="") as cf:
        cw = csv.writer(cf, lineterminator="\n")
        for i in range(1, n + 1):
            name = f"item-{i:05d}"
            title = " ".join(rnd.choice(words) for _ in range(3))
            count = rnd.randrange(0, 1000)
            price = round(rnd.uniform(0, 500), 2)
            date = 1577836800000 + rnd.randrange(0, 5 * 365 * 86400) * 1000
            note = " ".join(rnd.choice(words) for _ in range(8))
            rec = {"recordName": name, "recordType": "Item", "fields": {
                "title": {"value": title, "type": "STRING"},
                "count": {"value": count, "type": "INT64"},
                "price": {"value": price, "type": "DOUBLE"},
                "date": {"value": date, "type": "TIMESTAMP"},
                "note": {"value": note, "type": "STRING"}}}
            jf.write(json.dumps(rec, separators=(",", ":")) + "\n")
            cw.writerow([name, title, count, price, date, note])
    import_sql.write_text("CREATE TABLE items(name TEXT PRIMARY KEY, title TEXT, count INTEGER, price REAL, "
                          "date INTEGER, note TEXT);\nCREATE INDEX items_count ON items(count);\n"
                          f'.import --csv "{csv_path}" items\n')


def sides(ck: str, d: Path) -> dict:
    """Each side: its command, its stdin, and what to remove before a run."""
    return {
        "ck": ([ck, "--data-dir", str(d / "store"), "-q", "-z", ZONE, "record", "save", "--batch", str(d / "items.jsonl")],
               None, d / "store"),
        "sqlite3": (["sqlite3", str(d / "items.db")], d / "import.sql", d / "items.db"),
    }


def prepare(ck: str, d: Path, side: str) -> None:
    victim = sides(ck, d)[side][2]
    if victim.is_dir():
        shutil.rmtree(victim)
    elif victim.exists():
        victim.unlink()
    if side == "ck":
        subprocess.run([ck, "--data-dir", str(d / "store"), "zone", "create", ZONE], check=True, stdout=subprocess.DEVNULL)


def run(ck: str, d: Path, side: str, prefix: list[str]) -> subprocess.CompletedProcess:
    argv, stdin, _ = sides(ck, d)[side]
    with open(stdin, "rb") if stdin else open(os.devnull, "rb") as f:
        p = subprocess.run(prefix + argv, stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"bench/bulkbar.py: {side} failed ({p.returncode}): {p.stderr}")
    return p


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--callgrind", action="store_true", help="also count instructions (one run a side)")
    a = ap.parse_args()
    ck = os.environ.get("CK")
    if not ck or not os.access(ck, os.X_OK):
        sys.exit("bench/bulkbar.py: set CK to the ck binary to measure (a release static build)")
    for k in list(os.environ):
        if k.startswith("CK_"):
            del os.environ[k]
    d = WORK / f"n{a.records}"
    d.mkdir(parents=True, exist_ok=True)
    write_data(a.records, d / "items.jsonl", d / "items.csv", d / "import.sql")
    times: dict[str, list[float]] = {"ck": [], "sqlite3": []}
    for _ in range(a.runs):
        for side in times:
            prepare(ck, d, side)
            t = time.perf_counter()
            run(ck, d, side, [])
            times[side].append(time.perf_counter() - t)
    med = {s: statistics.median(v) for s, v in times.items()}
    print(f"wall\tck {med['ck'] * 1000:.1f} ms\tsqlite3 {med['sqlite3'] * 1000:.1f} ms\tratio {med['ck'] / med['sqlite3']:.2f}")
    if a.callgrind:
        counts = {}
        for side in times:
            prepare(ck, d, side)
            p = run(ck, d, side, ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"])
            counts[side] = int(re.search(r"Collected : (\d+)", p.stderr).group(1))
        print(f"instructions\tck {counts['ck'] / a.records / 1000:.1f} k a record\tsqlite3 "
              f"{counts['sqlite3'] / a.records / 1000:.1f} k a record\tratio {counts['ck'] / counts['sqlite3']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
