#!/usr/bin/env python3
"""Benchmark ck against the sqlite3 command-line tool.

Run through bench/run; bench/README.md explains what is measured. This file
builds ck (unless CK names a binary), generates the datasets, times each
operation on both sides with hyperfine (or its own loop), prints the tables
and writes one JSON file per run to bench/results/.

To add an operation (change feeds, sync, ...), append an Op to OPERATIONS:
two functions that return the ck and the sqlite3 command (a Cmd) for a
context, a ratio target, and whether it takes part in the flatness check.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import hashlib
import json
import os
import platform
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
WORK = BENCH_DIR / "work"
RESULTS_DIR = BENCH_DIR / "results"

DEFAULT_SIZES = [1_000, 10_000, 100_000]
QUICK_SIZES = [10_000]
SEED = 20261129
# The build users install (README): a fully static executable.
BUILD_COMMAND = ["swift", "build", "-c", "release", "-Xswiftc", "-static-executable"]

ZONE = "Notes"  # the loaded records live in a custom zone, so change feeds and sync see them
FLATNESS_TARGET = 1.2  # cost at the largest N / cost at the smallest N
MEMORY_TARGET_MB = 50.0  # max RSS of any single ck command at the largest N
BULK_MEMORY_TARGET_MB = 150.0
INDEX_SIZE_TARGET = 1.5  # bytes of .index.sqlite (and its -wal) / bytes of the zone logs it indexes (issue 29)
MID_DATE_MS = 1_654_041_600_000  # 2022-06-01T00:00:00Z, about the middle of the dates
MID_DATE = "2022-06-01T00:00:00Z"


class BenchError(Exception):
    """A command failed or the harness cannot go on."""


# --------------------------------------------------------------------------
# Commands and operations


@dataclass
class Cmd:
    """One command line to time. stdin is a file fed to the command;
    prepare runs (untimed) before every run, warm-ups included."""

    argv: list[str]
    stdin: Optional[Path] = None
    prepare: Optional[list[str]] = None
    # Output nobody reads (a bulk load's report, which `.import` does not print): timed with stdout /dev/null.
    discard_output: bool = False

    def display(self) -> str:
        s = shlex.join(self.argv)
        if self.stdin is not None:
            s += " < " + shlex.quote(str(self.stdin))
        return s


@dataclass
class Ctx:
    """What an operation needs to build its commands for one N."""

    n: int
    ck: str
    sqlite3: str
    store: Path  # ck store holding the N records
    db: Path  # SQLite database holding the same N rows
    jsonl: Path  # the N records as JSON Lines
    load_sql: Path  # schema + BEGIN; N INSERTs; COMMIT
    import_sql: Path  # the notes table and its indexes, then .import --csv of notes.csv
    fresh_store: Path  # emptied before each bulk-load run
    fresh_db: Path
    mid_name: str  # a record in the middle
    first_store: Path  # loaded afresh (untimed) before each first-query run
    replica_db: Path  # the SQLite side of a sync


@dataclass
class Op:
    key: str
    label: str
    target: Optional[float]  # pass when ck median / baseline median <= target; None: stated, not judged
    ck: Callable[[Ctx], Cmd]
    sqlite: Callable[[Ctx], Cmd]
    flatness: bool = False  # compare its cost at the largest and smallest N
    per_record: bool = False  # its work grows with N: flatness compares the cost per record
    # Ratio against this operation's ck median instead of sqlite3 (the first query
    # after a bulk load is judged against the bulk load itself).
    baseline: Optional[str] = None
    bulk: bool = False  # slow, scales with N: fewer runs
    # Both sides print one line per record, name first: check in the
    # untimed first run that they return the same records in the same order.
    same_records: bool = False
    # A second sqlite3 command, timed and shown for reference (not judged).
    reference: Optional[Callable[[Ctx], Cmd]] = None
    reference_label: str = ""


def ck_cmd(c: Ctx, *args: str, store: Optional[Path] = None) -> list[str]:
    return [c.ck, "--data-dir", str(store or c.store), *args]


def ck_query(c: Ctx, *args: str, store: Optional[Path] = None) -> Cmd:
    return Cmd(ck_cmd(c, "-z", ZONE, "query", "Note", *args, "--limit", "100", store=store))


def load_steps(c: Ctx) -> list[list[str]]:
    """ck arguments that make a store of the N records: the zone, the bulk load, the system-field indexes
    (a query without filters needs ___recordID QUERYABLE; sorting by creation ___createTime SORTABLE)."""
    return [["zone", "create", ZONE],
            ["-z", ZONE, "record", "save", "--batch", str(c.jsonl), "-q"],
            ["schema", "index", "Note", "___recordID", "--queryable"],
            ["schema", "index", "Note", "___createTime", "--sortable"]]


def sql(c: Ctx, text: str) -> Cmd:
    return Cmd([c.sqlite3, str(c.db), text])


def query_op(key: str, label: str, ck_args: list[str], sql_text: str) -> Op:
    """A query returning 100 rows: ck against the same SQL on indexed tables."""
    return Op(key=key, label=label, target=1.5, flatness=True, same_records=True,
              ck=lambda c: ck_query(c, *ck_args), sqlite=lambda c: sql(c, sql_text))


def startup_op(key: str, label: str, ck_args: list[str]) -> Op:
    """A command that touches no store, against sqlite3 starting with an empty in-memory database."""
    return Op(key=key, label=label, target=1.0,
              ck=lambda c: Cmd([c.ck, *ck_args]), sqlite=lambda c: Cmd([c.sqlite3, ":memory:", "select 1"]))


OPERATIONS: list[Op] = [
    startup_op("startup", "start-up (--version)", ["--version"]),
    startup_op("help", "start-up (help)", ["help"]),
    Op(
        key="fetch",
        label="fetch by name",
        target=1.25,
        flatness=True,
        ck=lambda c: Cmd(ck_cmd(c, "-z", ZONE, "record", "fetch", c.mid_name)),
        sqlite=lambda c: sql(c, f"select * from notes where name='{c.mid_name}'"),
        same_records=True,
    ),
    Op(
        key="save",
        label="save one (durable)",
        target=1.5,
        flatness=True,
        ck=lambda c: Cmd(ck_cmd(c, "-z", ZONE, "record", "save", "Note", "--name", "bench-new",
                                "--policy", "changed-keys", "title=x", "priority=5")),
        sqlite=lambda c: sql(c, "PRAGMA synchronous=FULL; insert or replace into notes(name,title,priority) "
                                "values('bench-new','x',5)"),
    ),
    query_op("q_range", "query: range on sort field", ["date >= %@", "--arg", MID_DATE, "--sort", "date"],
             f"select * from notes where date >= {MID_DATE_MS} order by date limit 100"),
    query_op("q_equal", "query: equal, sort other", ["priority == 42", "--sort", "-date"],
             "select * from notes where priority = 42 order by date desc limit 100"),
    query_op("q_begins", "query: BEGINSWITH", ["title BEGINSWITH 'Ma'", "--sort", "title"],
             "select * from notes where title >= 'Ma' and title < 'Mb' order by title, name limit 100"),
    query_op("q_token", "query: self CONTAINS", ["self CONTAINS 'maple'"],
             "select n.* from notes_fts f join notes n on n.rowid = f.rowid "
             "where notes_fts match 'maple' order by n.name limit 100"),
    query_op("q_created", "query: by ___createTime", ["--sort", "___createTime"],
             "select * from notes order by rowid limit 100"),
    query_op("q_list", "query: list CONTAINS", ["tags CONTAINS 'travel'"],
             "select n.* from note_tags t join notes n on n.name = t.name where t.tag = 'travel' "
             "order by t.name limit 100"),
    Op(
        key="bulk",
        label="bulk load",
        target=3.0,
        bulk=True,
        ck=lambda c: Cmd(ck_cmd(c, "record", "save", "--batch", "-", "-q", store=c.fresh_store),
                         stdin=c.jsonl, prepare=["rm", "-rf", str(c.fresh_store)], discard_output=True),
        # Issue 16 names `sqlite3 .import`: the same rows as CSV into the same indexed notes table.
        sqlite=lambda c: Cmd([c.sqlite3, str(c.fresh_db)], stdin=c.import_sql,
                             prepare=["rm", "-f", str(c.fresh_db), f"{c.fresh_db}-journal",
                                      f"{c.fresh_db}-wal", f"{c.fresh_db}-shm"]),
        # For reference: the INSERT script (load.sql), which also fills note_tags and the FTS5 table.
        reference=lambda c: Cmd([c.sqlite3, str(c.fresh_db)], stdin=c.load_sql,
                                prepare=["rm", "-f", str(c.fresh_db), f"{c.fresh_db}-journal",
                                         f"{c.fresh_db}-wal", f"{c.fresh_db}-shm"]),
        reference_label="sqlite3 < load.sql (INSERT script)",
    ),
    Op(
        key="first_query",
        label="first query after bulk load",
        target=3.0,
        bulk=True,
        baseline="bulk",
        # The load itself is the untimed step: a copy of a loaded store would have new inodes, and
        # the query would re-index its logs as well.
        ck=lambda c: Cmd(ck_query(c, "priority == 42", "--sort", "-date", store=c.first_store).argv,
                         prepare=["sh", "-c", f"rm -rf {shlex.quote(str(c.first_store))} && "
                                  + " && ".join(shlex.join(ck_cmd(c, *args, store=c.first_store)) for args in load_steps(c))]),
        sqlite=lambda c: sql(c, "select * from notes where priority = 42 order by date desc limit 100"),
    ),
    Op(
        key="copied",
        label="query on a cp -a copy",
        target=None,
        bulk=True,
        # A CI cache restore: the copy's logs have new inodes and times, so ck sums each once (issue 29) and
        # keeps the index; it used to index them again.
        ck=lambda c: Cmd(ck_query(c, "priority == 42", "--sort", "-date", store=c.store.parent / "copied-store").argv,
                         # The query on store/ first: the copy then differs from it only by being a copy (its
                         # field values indexed already, as after the query rows).
                         prepare=["sh", "-c", ck_query(c, "priority == 42", "--sort", "-date").display() + " >/dev/null && "
                                  f"rm -rf {shlex.quote(str(c.store.parent / 'copied-store'))} && "
                                  f"cp -a {shlex.quote(str(c.store))} {shlex.quote(str(c.store.parent / 'copied-store'))}"]),
        sqlite=lambda c: Cmd([c.sqlite3, str(c.db.parent / "copied.db"),
                              "select * from notes where priority = 42 order by date desc limit 100"],
                             prepare=["cp", "-a", str(c.db), str(c.db.parent / "copied.db")]),
    ),
    Op(
        key="changes",
        label="changes zone (all N)",
        target=2.0,
        flatness=True,
        per_record=True,
        ck=lambda c: Cmd(ck_cmd(c, "changes", "zone", ZONE, "--limit", str(c.n + 10))),
        sqlite=lambda c: sql(c, "select * from notes"),
    ),
    Op(
        key="sync",
        label="sync a fresh device",
        # Issue 29: a fresh device's first sync within 3x a sqlite3 copy of the table.
        target=3.0,
        bulk=True,
        flatness=True,
        per_record=True,
        ck=lambda c: Cmd(ck_cmd(c, "sync", "bench-device"),
                         prepare=["rm", "-rf", str(c.store / "devices")]),
        sqlite=lambda c: Cmd([c.sqlite3, str(c.replica_db),
                              f"ATTACH '{c.db}' AS s; CREATE TABLE notes AS SELECT * FROM s.notes;"],
                             prepare=["rm", "-f", str(c.replica_db)]),
    ),
]


# --------------------------------------------------------------------------
# Running commands


def fail(cmd: Cmd, what: str, stderr: str = "") -> BenchError:
    msg = f"command failed ({what}):\n  {cmd.display()}"
    stderr = stderr.strip()
    if stderr:
        if len(stderr) > 4000:
            stderr = stderr[:4000] + "\n  [...]"
        msg += "\n  stderr:\n    " + stderr.replace("\n", "\n    ")
    return BenchError(msg)


def run_prepare(cmd: Cmd) -> None:
    if cmd.prepare:
        p = subprocess.run(cmd.prepare, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise fail(Cmd(cmd.prepare), f"prepare step, exit {p.returncode}", p.stderr)


def run_checked(cmd: Cmd, capture: bool = False) -> str:
    """Run once (after its prepare step); raise BenchError unless exit 0."""
    run_prepare(cmd)
    with open_stdin(cmd) as stdin:
        p = subprocess.run(cmd.argv, stdin=stdin,
                           stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise fail(cmd, f"exit {p.returncode}", p.stderr.decode(errors="replace"))
    return p.stdout.decode(errors="replace") if capture else ""


class open_stdin:
    def __init__(self, cmd: Cmd):
        self.path = cmd.stdin
        self.f = None

    def __enter__(self):
        if self.path is None:
            return subprocess.DEVNULL
        self.f = open(self.path, "rb")
        return self.f

    def __exit__(self, *exc):
        if self.f:
            self.f.close()


def summarize(times_s: list[float]) -> dict:
    ms = [t * 1000.0 for t in times_s]
    return {
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "stddev_ms": statistics.stdev(ms) if len(ms) > 1 else 0.0,
        "min_ms": min(ms),
        "max_ms": max(ms),
        "runs": len(ms),
    }


def open_stdout(cmd: Optional[Cmd] = None):
    """A scratch file for a timed command's output, emptied for each run. Not /dev/null: ck renders nothing for
    /dev/null (it would reach nobody), where sqlite3 formats every row, so a ratio would leave out ck's output.
    A command whose output is not part of the comparison (`discard_output`) gets /dev/null."""
    if cmd is not None and cmd.discard_output:
        return open(os.devnull, "wb")
    WORK.mkdir(parents=True, exist_ok=True)
    return open(WORK / "stdout.out", "wb")


class OwnLoop:
    name = "own loop"

    def describe(self) -> str:
        return "own loop (time.perf_counter around subprocess.run, median)"

    def time(self, cmd: Cmd, warmup: int, runs: int) -> dict:
        times = []
        with tempfile.TemporaryFile() as err:
            for i in range(warmup + runs):
                run_prepare(cmd)
                err.seek(0)
                err.truncate()
                with open_stdin(cmd) as stdin, open_stdout(cmd) as out:
                    t0 = time.perf_counter()
                    p = subprocess.run(cmd.argv, stdin=stdin, stdout=out, stderr=err)
                    t1 = time.perf_counter()
                if p.returncode != 0:
                    err.seek(0)
                    raise fail(cmd, f"exit {p.returncode}", err.read().decode(errors="replace"))
                if i >= warmup:
                    times.append(t1 - t0)
        return summarize(times)


class Hyperfine:
    name = "hyperfine"

    def __init__(self, exe: str):
        self.exe = exe
        self.version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.strip()

    def describe(self) -> str:
        return f"{self.version} (median of --runs)"

    def takes_output(self) -> bool:
        m = re.search(r"(\d+)\.(\d+)", self.version)
        return bool(m) and (int(m.group(1)), int(m.group(2))) >= (1, 16)

    def time(self, cmd: Cmd, warmup: int, runs: int) -> dict:
        WORK.mkdir(parents=True, exist_ok=True)
        fd, export = tempfile.mkstemp(prefix="hyperfine-", suffix=".json", dir=WORK)
        os.close(fd)
        args = [self.exe, "--style", "none", "--warmup", str(warmup), "--runs", str(runs),
                "--export-json", export]
        sink = shlex.quote(str(WORK / "stdout.out"))
        # Output goes to a file, not hyperfine's /dev/null (see open_stdout): hyperfine 1.16 and later take it as
        # --output; an older one gets a shell redirect.
        own_output = self.takes_output() or cmd.discard_output
        if self.takes_output() and not cmd.discard_output:
            args += ["--output", str(WORK / "stdout.out")]
        if cmd.stdin is None and own_output:
            # No shell: nothing to subtract, sub-millisecond commands stay exact.
            args.append("-N")
            line = shlex.join(cmd.argv)
        else:
            # stdin (or stdout) needs a shell redirect; hyperfine subtracts the shell's
            # own start-up time from each run.
            line = cmd.display() + ("" if own_output else f" > {sink}")
        if cmd.prepare:
            args += ["--prepare", shlex.join(cmd.prepare)]
        args += ["--", line]
        try:
            p = subprocess.run(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                # Rerun the command by itself to show its own stderr.
                run_checked(cmd)
                raise fail(cmd, f"hyperfine exit {p.returncode}", p.stderr + p.stdout)
            with open(export) as f:
                r = json.load(f)["results"][0]
        finally:
            os.unlink(export)
        out = summarize(r["times"])
        out["median_ms"] = r["median"] * 1000.0  # hyperfine's own figure
        return out


# --------------------------------------------------------------------------
# Dataset

WORDS = (
    "alpha amber anchor apple arrow autumn basket beacon birch blossom breeze bridge "
    "canyon carbon cedar chalk cherry cinder cloud cobalt comet copper coral cotton "
    "crystal dawn delta desert drift echo ember falcon fern field flint forest frost "
    "garden glacier granite harbor hazel horizon island ivory jasmine juniper kettle "
    "lantern lemon linen maple marble meadow meteor mint mirror moss nectar north ocean "
    "olive onyx orbit orchid pebble pepper pine planet plum prairie quartz quiet rain "
    "raven reef river saffron salt shadow silver slate spark spruce stone storm summit "
    "thistle thunder timber topaz tulip valley velvet violet willow winter zephyr"
).split()
TAGS = "work home urgent later ideas reading travel shopping health finance family music".split()
DATE_FROM_MS = 1_577_836_800_000  # 2020-01-01T00:00:00Z
DATE_SPAN_MS = 5 * 365 * 86_400_000


def record_name(i: int) -> str:
    return f"note-{i:06d}"


def generate_rows(n: int):
    """The same seed for every N: the N=1,000 rows are the first 1,000 of the
    N=10,000 rows, and so on."""
    rng = random.Random(SEED)
    for i in range(1, n + 1):
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))).capitalize()
        want = rng.randint(185, 205)
        words: list[str] = []
        length = -1
        while length < want:
            w = rng.choice(WORDS)
            words.append(w)
            length += len(w) + 1
        body = " ".join(words).capitalize() + "."
        date = DATE_FROM_MS + rng.randrange(DATE_SPAN_MS)
        priority = rng.randrange(100)
        tags = rng.sample(TAGS, 2)
        yield record_name(i), title, body, date, priority, tags


def sql_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


# Every query ck answers has its index here too: title for BEGINSWITH, a tags
# table for list membership, FTS5 for token search.
SCHEMA_SQL = (
    "CREATE TABLE notes(name TEXT PRIMARY KEY, title TEXT, body TEXT, date INTEGER, "
    "priority INTEGER, tags TEXT);\n"
    "CREATE INDEX notes_priority ON notes(priority);\n"
    "CREATE INDEX notes_date ON notes(date);\n"
    "CREATE INDEX notes_title ON notes(title);\n"
    "CREATE TABLE note_tags(name TEXT, tag TEXT);\n"
    "CREATE INDEX note_tags_tag ON note_tags(tag, name);\n"
    "CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, content='notes', content_rowid='rowid');\n"
)


IMPORT_SCHEMA_SQL = (
    "CREATE TABLE notes(name TEXT PRIMARY KEY, title TEXT, body TEXT, date INTEGER, "
    "priority INTEGER, tags TEXT);\n"
    "CREATE INDEX notes_priority ON notes(priority);\n"
    "CREATE INDEX notes_date ON notes(date);\n"
    "CREATE INDEX notes_title ON notes(title);\n"
)


def write_dataset(n: int, jsonl: Path, load_sql: Path, import_sql: Optional[Path] = None) -> dict:
    body_bytes = 0
    csv_path = jsonl.with_name("notes.csv")
    with open(jsonl, "w", encoding="utf-8") as jf, open(load_sql, "w", encoding="utf-8") as sf, \
            open(csv_path, "w", encoding="utf-8", newline="") as cf:
        cw = csv.writer(cf, lineterminator="\n")
        sf.write(SCHEMA_SQL)
        sf.write("BEGIN;\n")
        for name, title, body, date, priority, tags in generate_rows(n):
            body_bytes += len(body.encode())
            rec = {
                "recordName": name,
                "recordType": "Note",
                "fields": {
                    "title": {"value": title, "type": "STRING"},
                    "body": {"value": body, "type": "STRING"},
                    "date": {"value": date, "type": "TIMESTAMP"},
                    "priority": {"value": priority, "type": "INT64"},
                    "tags": {"value": tags, "type": "STRING_LIST"},
                },
            }
            jf.write(json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n")
            tags_json = json.dumps(tags, ensure_ascii=False, separators=(",", ":"))
            sf.write(f"INSERT INTO notes VALUES({sql_str(name)},{sql_str(title)},{sql_str(body)},"
                     f"{date},{priority},{sql_str(tags_json)});\n")
            for t in tags:
                sf.write(f"INSERT INTO note_tags VALUES({sql_str(name)},{sql_str(t)});\n")
            cw.writerow([name, title, body, date, priority, tags_json])
        sf.write("INSERT INTO notes_fts(notes_fts) VALUES('rebuild');\n")
        sf.write("COMMIT;\n")
    if import_sql is not None:
        with open(import_sql, "w", encoding="utf-8") as f:
            f.write(IMPORT_SCHEMA_SQL)
            f.write(f'.import --csv "{csv_path}" notes\n')
    return {
        "records": n,
        "jsonl_bytes": jsonl.stat().st_size,
        "load_sql_bytes": load_sql.stat().st_size,
        "mean_body_bytes": round(body_bytes / n, 1) if n else 0,
        "seed": SEED,
    }


def rm(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()


def prepare_size(n: int, ck: str, sqlite3: str) -> tuple[Ctx, dict]:
    d = WORK / f"n{n}"
    d.mkdir(parents=True, exist_ok=True)
    ctx = Ctx(
        n=n, ck=ck, sqlite3=sqlite3,
        store=d / "store", db=d / "notes.db",
        jsonl=d / "notes.jsonl", load_sql=d / "load.sql", import_sql=d / "import.sql",
        fresh_store=d / "fresh-store", fresh_db=d / "fresh.db",
        mid_name=record_name(max(1, n // 2)),
        first_store=d / "first-store", replica_db=d / "replica.db",
    )
    t0 = time.perf_counter()
    info = write_dataset(n, ctx.jsonl, ctx.load_sql, ctx.import_sql)
    info["generate_s"] = round(time.perf_counter() - t0, 3)

    for p in (ctx.store, ctx.fresh_store, ctx.db, ctx.fresh_db, ctx.first_store, ctx.replica_db):
        rm(p)
        for suffix in ("-journal", "-wal", "-shm"):
            rm(Path(str(p) + suffix))

    t0 = time.perf_counter()
    for args in load_steps(ctx):
        run_checked(Cmd(ck_cmd(ctx, *args)))
    info["ck_load_s"] = round(time.perf_counter() - t0, 3)

    load_db = Cmd([sqlite3, str(ctx.db)], stdin=ctx.load_sql)
    t0 = time.perf_counter()
    run_checked(load_db)
    info["sqlite3_load_s"] = round(time.perf_counter() - t0, 3)

    count = run_checked(Cmd([sqlite3, str(ctx.db), "select count(*) from notes"]), capture=True).strip()
    if count != str(n):
        raise BenchError(f"the SQLite database holds {count} rows, expected {n}")
    return ctx, info


# --------------------------------------------------------------------------
# Store size


def store_size(c: Ctx) -> dict:
    """Bytes of the index against the zone logs it indexes, after every operation of this size ran
    (so the queried fields' values are indexed), with the WAL checkpointed by a fetch."""
    run_checked(Cmd(ck_cmd(c, "-z", ZONE, "record", "fetch", c.mid_name)))
    logs = index = 0
    for root, _dirs, files in os.walk(c.store):
        for f in files:
            p = Path(root) / f
            if f.endswith(".jsonl") and "notifications" not in p.parts:
                logs += p.stat().st_size
            elif f in (".index.sqlite", ".index.sqlite-wal"):
                index += p.stat().st_size
    db = c.db.stat().st_size
    return {"log_bytes": logs, "index_bytes": index, "ratio": index / logs if logs else 0.0,
            "sqlite3_bytes": db, "target": INDEX_SIZE_TARGET}


# --------------------------------------------------------------------------
# Peak memory


def peak_rss_kb(cmd: Cmd) -> int:
    """Max RSS of one run of cmd, in KiB: /usr/bin/time -f %M when it is
    there, else the rusage that wait4 returns for the child."""
    run_prepare(cmd)
    time_bin = "/usr/bin/time"
    if os.access(time_bin, os.X_OK):
        with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as out, open_stdin(cmd) as stdin, \
                open_stdout(cmd) as sink:
            p = subprocess.run([time_bin, "-f", "%M", "-o", out.name, *cmd.argv], stdin=stdin,
                               stdout=sink, stderr=subprocess.PIPE)
            if p.returncode != 0:
                raise fail(cmd, f"exit {p.returncode} under /usr/bin/time", p.stderr.decode(errors="replace"))
            return int(out.read().strip().splitlines()[-1])
    with open_stdin(cmd) as stdin, tempfile.TemporaryFile() as err, open_stdout(cmd) as sink:
        proc = subprocess.Popen(cmd.argv, stdin=stdin, stdout=sink, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise fail(cmd, f"exit {proc.returncode}", err.read().decode(errors="replace"))
        return int(usage.ru_maxrss)


# --------------------------------------------------------------------------
# Output


def fmt_ms(v: Optional[float]) -> str:
    if v is None:
        return "-"
    if v < 100:
        return f"{v:.2f}"
    if v < 10_000:
        return f"{v:.1f}"
    return f"{v:.0f}"


def fmt_ratio(v: Optional[float]) -> str:
    return "-" if v is None else f"{v:.2f}x"


def table(headers: list[str], rows: list[list[str]], right: set[int]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def line(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def verdict(ok: Optional[bool]) -> str:
    return "n/a" if ok is None else ("PASS" if ok else "FAIL")


# --------------------------------------------------------------------------
# Build and environment info


def run_text(args: list[str], cwd: Optional[Path] = None) -> str:
    try:
        p = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    except OSError:
        return ""
    return p.stdout.strip() if p.returncode == 0 else ""


def build_ck() -> str:
    print(f"bench: building ck: {shlex.join(BUILD_COMMAND)}", file=sys.stderr, flush=True)
    p = subprocess.run(BUILD_COMMAND, cwd=REPO, stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise BenchError(f"the release build failed (exit {p.returncode}): {shlex.join(BUILD_COMMAND)}\n"
                         "  To benchmark an existing binary instead: CK=/path/to/ck bench/run")
    bin_dir = run_text(BUILD_COMMAND + ["--show-bin-path"], cwd=REPO) or str(REPO / ".build" / "release")
    return str(Path(bin_dir) / "ck")


def ck_info(ck: str, built: bool) -> dict:
    data = Path(ck).read_bytes()
    ldd = run_text(["ldd", ck])
    info = {
        "path": ck,
        "version": run_text([ck, "--version"]),
        "build": shlex.join(BUILD_COMMAND) if built else "given by CK (not built by bench/run)",
        "swift_runtime": "dynamic" if "libswiftCore" in ldd else "static",
        "linking": "fully static" if ("not a dynamic executable" in ldd or "statically linked" in ldd or not ldd)
        else "dynamic: " + ", ".join(sorted({l.split()[0] for l in ldd.splitlines() if l.strip()})),
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "mtime": datetime.datetime.fromtimestamp(Path(ck).stat().st_mtime, datetime.timezone.utc)
        .isoformat(timespec="seconds"),
        "swift": run_text(["swift", "--version"]).splitlines()[0] if shutil.which("swift") else "",
        "git_commit": run_text(["git", "rev-parse", "HEAD"], cwd=REPO),
        "git_dirty": bool(run_text(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO)),
    }
    return info


# --------------------------------------------------------------------------
# Main


def parse_args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="bench/run",
        description="Time ck against sqlite3 on N Note records; write bench/results/<UTC time>.json. "
                    "Set CK=/path/to/ck to skip the release build.",
    )
    ap.add_argument("--sizes", help="comma-separated record counts (default 1000,10000,100000)")
    ap.add_argument("--quick", action="store_true",
                    help="size 10000 only (unless --sizes) and fewer repetitions")
    ap.add_argument("--runs", type=int, help="timed runs per command for the fast operations (default 20, quick 10)")
    ap.add_argument("--bulk-runs", type=int,
                    help="timed runs for bulk load (default 10 below 100,000 records, 5 from there; quick 5 and 3)")
    ap.add_argument("--warmup", type=int, help="untimed warm-up runs before each command (default 2, quick 1)")
    ap.add_argument("--no-hyperfine", action="store_true", help="use the own timing loop even if hyperfine is installed")
    ap.add_argument("--output", help="where to write the JSON results (default bench/results/<UTC time>.json)")
    a = ap.parse_args(argv)
    if a.sizes:
        try:
            a.size_list = [int(s.replace("_", "")) for s in a.sizes.split(",") if s.strip()]
        except ValueError:
            ap.error(f"--sizes: not a list of integers: {a.sizes}")
        if not a.size_list or any(n < 1 for n in a.size_list):
            ap.error("--sizes: give positive record counts")
        a.size_list = sorted(set(a.size_list))
    else:
        a.size_list = QUICK_SIZES if a.quick else DEFAULT_SIZES
    for name in ("runs", "bulk_runs"):
        v = getattr(a, name)
        if v is not None and v < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.warmup is not None and a.warmup < 0:
        ap.error("--warmup must be 0 or more")
    return a


def runs_for(bulk: bool, n: int, a: argparse.Namespace) -> int:
    """Timed runs: fewer for the slow operations (bulk load, first query, sync) and at 100,000."""
    if bulk:
        if a.bulk_runs:
            return a.bulk_runs
        if a.quick:
            return 5 if n < 100_000 else 3
        return 10 if n < 100_000 else 5
    return a.runs or (10 if a.quick else 20)


def write_results(path: Path, results: dict) -> None:
    # Write beside the other scratch files, then move into place whole.
    WORK.mkdir(parents=True, exist_ok=True)
    tmp = WORK / "results.json.tmp"
    with open(tmp, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(tmp), str(path))


def main(argv: list[str]) -> int:
    a = parse_args(argv)
    warmup = a.warmup if a.warmup is not None else (1 if a.quick else 2)

    # ck reads these; the benchmark must not depend on the caller's setting.
    for k in list(os.environ):
        if k.startswith("CK_") or k == "NO_COLOR":
            del os.environ[k]

    sqlite3 = shutil.which("sqlite3")
    if not sqlite3:
        raise BenchError("sqlite3 is not installed (apt-get install sqlite3)")

    ck_env = os.environ.pop("CK", "")
    if ck_env:
        ck = shutil.which(ck_env) or ck_env
        if not (os.path.isfile(ck) and os.access(ck, os.X_OK)):
            raise BenchError(f"CK={ck_env} is not an executable file")
        built = False
    else:
        ck = build_ck()
        built = True
    ck = str(Path(ck).resolve())
    # Fail early, with ck's own message, if the binary does not run.
    run_checked(Cmd([ck, "--version"]))

    hf = shutil.which("hyperfine")
    timer = Hyperfine(hf) if hf and not a.no_hyperfine else OwnLoop()

    WORK.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    out_path = Path(a.output) if a.output else RESULTS_DIR / (started.strftime("%Y%m%dT%H%M%SZ") + ".json")
    results: dict = {
        "format": 1,
        "complete": False,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "timer": timer.describe(),
        "settings": {
            "sizes": a.size_list,
            "quick": a.quick,
            "warmup": warmup,
            "runs": {"fast": a.runs or (10 if a.quick else 20),
                     "bulk": {str(n): runs_for(True, n, a) for n in a.size_list}},
            "seed": SEED,
        },
        "ck": ck_info(ck, built),
        "sqlite3": {"path": sqlite3, "version": run_text([sqlite3, "--version"]).split(" ")[0]},
        "host": {
            "system": platform.platform(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "targets": {
            "ratio": {op.key: op.target for op in OPERATIONS},
            "baseline": {op.key: op.baseline for op in OPERATIONS if op.baseline},
            "flatness": FLATNESS_TARGET,
            "peak_memory_mb": MEMORY_TARGET_MB,
            "bulk_peak_memory_mb": BULK_MEMORY_TARGET_MB,
            "index_size": INDEX_SIZE_TARGET,
        },
        "sizes": {},
    }
    info = results["ck"]
    print(f"ck: {info['path']} ({info['version']}; {info['build']}; Swift runtime {info['swift_runtime']}; "
          f"{info['size_bytes'] / 1e6:.1f} MB, {info['linking']})")
    print(f"sqlite3: {results['sqlite3']['version']}    timer: {results['timer']}    warm-up runs: {warmup}")

    ctxs: dict[int, Ctx] = {}
    passed = failed = 0
    for n in a.size_list:
        print(f"\n== N = {n:,} records: generating and loading ...", flush=True)
        ctx, dinfo = prepare_size(n, ck, sqlite3)
        ctxs[n] = ctx
        print(f"   dataset {dinfo['jsonl_bytes'] / 1e6:.1f} MB JSONL; initial load: ck {dinfo['ck_load_s']:.2f} s, "
              f"sqlite3 {dinfo['sqlite3_load_s']:.2f} s", flush=True)
        ops_out: dict = {}
        rows = []
        warnings: list[str] = []
        notes: list[str] = []
        for op in OPERATIONS:
            runs = runs_for(op.bulk, n, a)
            entry: dict = {"label": op.label, "target": op.target, "runs": runs, "warmup": warmup}
            names = {}
            for side, make, sep in (("ck", op.ck, "\t"), ("sqlite3", op.sqlite, "|")):
                cmd = make(ctx)
                # One checked run first: a failure shows the command and its stderr.
                out = run_checked(cmd, capture=True)
                names[side] = [line.split(sep, 1)[0] for line in out.splitlines() if line]
                stats = timer.time(cmd, warmup, runs)
                stats["command"] = cmd.display()
                if cmd.prepare:
                    stats["prepare"] = shlex.join(cmd.prepare)
                entry[side] = stats
            if op.reference:
                cmd = op.reference(ctx)
                run_checked(cmd)
                stats = timer.time(cmd, warmup, runs)
                stats["command"] = cmd.display()
                stats["label"] = op.reference_label
                entry["reference"] = stats
                entry["ratio_reference"] = entry["ck"]["median_ms"] / stats["median_ms"]
            if op.same_records:
                entry["records"] = len(names["sqlite3"])
                if names["ck"] != names["sqlite3"]:
                    warnings.append(f"{op.key}: ck returned {len(names['ck'])} records, sqlite3 "
                                    f"{len(names['sqlite3'])}, not the same names in the same order")
            base = ops_out[op.baseline]["ck"]["median_ms"] if op.baseline else entry["sqlite3"]["median_ms"]
            ratio = entry["ck"]["median_ms"] / base
            entry["ratio"] = ratio
            entry["ratio_against"] = f"ck {op.baseline}" if op.baseline else "sqlite3"
            entry["ck_ms_per_record"] = entry["ck"]["median_ms"] / n
            entry["pass"] = None if op.target is None else ratio <= op.target
            if entry["pass"] is not None:
                passed += entry["pass"]
                failed += not entry["pass"]
            ops_out[op.key] = entry
            target = "stated" if op.target is None else f"<= {op.target:g}x" + (f" {op.baseline}" if op.baseline else "")
            rows.append([op.label, fmt_ms(entry["ck"]["median_ms"]), fmt_ms(entry["sqlite3"]["median_ms"]),
                         fmt_ratio(ratio), target, verdict(entry["pass"]), str(runs)])
            print(f"   {op.label}: ck {fmt_ms(entry['ck']['median_ms'])} ms, "
                  f"sqlite3 {fmt_ms(entry['sqlite3']['median_ms'])} ms", flush=True)
            if op.reference:
                notes.append(f"{op.label}: for reference, {op.reference_label} "
                             f"{fmt_ms(entry['reference']['median_ms'])} ms, ratio {fmt_ratio(entry['ratio_reference'])}")
        size = store_size(ctx)
        size["pass"] = size["ratio"] <= INDEX_SIZE_TARGET
        passed += size["pass"]
        failed += not size["pass"]
        results["sizes"][str(n)] = {"dataset": dinfo, "operations": ops_out, "warnings": warnings,
                                    "store_size": size}
        print(f"\nN = {n:,}  (median wall time in ms)")
        print(table(["operation", "ck ms", "sqlite3 ms", "ratio", "target", "result", "runs"], rows,
                    right={1, 2, 3, 4, 6}))
        print(f"index size: {size['index_bytes'] / 1e6:.1f} MB for {size['log_bytes'] / 1e6:.1f} MB of zone logs, "
              f"ratio {fmt_ratio(size['ratio'])} (target <= {INDEX_SIZE_TARGET:g}x) {verdict(size['pass'])}; "
              f"sqlite3's whole database {size['sqlite3_bytes'] / 1e6:.1f} MB")
        for note in notes:
            print(note)
        for w in warnings:
            print(f"warning: {w}")
        write_results(out_path, results)

    # Flatness: cost at the largest N / cost at the smallest N.
    lo, hi = a.size_list[0], a.size_list[-1]
    flat: dict = {"from": lo, "to": hi, "target": FLATNESS_TARGET, "operations": {}}
    rows = []
    for op in OPERATIONS:
        if not op.flatness:
            continue
        if lo == hi:
            e = {"ck": None, "sqlite3": None, "pass": None}
        else:
            a_lo = results["sizes"][str(lo)]["operations"][op.key]
            a_hi = results["sizes"][str(hi)]["operations"][op.key]
            # Work that grows with N is compared per record.
            scale = lo / hi if op.per_record else 1.0
            e = {
                "per_record": op.per_record,
                "ck_ms": [a_lo["ck"]["median_ms"], a_hi["ck"]["median_ms"]],
                "sqlite3_ms": [a_lo["sqlite3"]["median_ms"], a_hi["sqlite3"]["median_ms"]],
                "ck": a_hi["ck"]["median_ms"] / a_lo["ck"]["median_ms"] * scale,
                "sqlite3": a_hi["sqlite3"]["median_ms"] / a_lo["sqlite3"]["median_ms"] * scale,
            }
            e["pass"] = e["ck"] <= FLATNESS_TARGET
            passed += e["pass"]
            failed += not e["pass"]
        flat["operations"][op.key] = e
        rows.append([op.label + (" (per record)" if op.per_record else ""),
                     fmt_ms(e.get("ck_ms", [None])[0]), fmt_ms(e.get("ck_ms", [None, None])[1]),
                     fmt_ratio(e["ck"]), f"<= {FLATNESS_TARGET:g}x", verdict(e["pass"]), fmt_ratio(e["sqlite3"])])
    results["flatness"] = flat
    if lo == hi:
        print("\nFlatness: needs two sizes or more; not computed")
    else:
        print(f"\nFlatness: ck cost at N = {hi:,} / at N = {lo:,}")
        print(table(["operation", f"ck ms @{lo:,}", f"ck ms @{hi:,}", "ratio", "target", "result", "sqlite3 ratio"],
                    rows, right={1, 2, 3, 4, 6}))

    # Peak memory: each ck command once at the largest N (sqlite3 for reference).
    ctx = ctxs[hi]
    mem: dict = {"n": hi, "unit": "MB (MiB, max RSS)", "target_mb": MEMORY_TARGET_MB,
                 "bulk_target_mb": BULK_MEMORY_TARGET_MB,
                 "method": "/usr/bin/time -f %M" if os.access("/usr/bin/time", os.X_OK) else "wait4 rusage",
                 "commands": {}}
    rows = []
    for op in OPERATIONS:
        ck_cmd_ = op.ck(ctx)
        ck_mb = peak_rss_kb(ck_cmd_) / 1024.0
        sq_mb = peak_rss_kb(op.sqlite(ctx)) / 1024.0
        limit = BULK_MEMORY_TARGET_MB if op.key == "bulk" else MEMORY_TARGET_MB
        ok = ck_mb <= limit
        passed += ok
        failed += not ok
        mem["commands"][op.key] = {"ck_mb": round(ck_mb, 1), "sqlite3_mb": round(sq_mb, 1), "pass": ok,
                                   "target_mb": limit, "command": ck_cmd_.display()}
        rows.append([op.label, f"{ck_mb:.1f}", f"<= {limit:g}", verdict(ok), f"{sq_mb:.1f}"])
    results["peak_memory"] = mem
    print(f"\nPeak memory at N = {hi:,} (max RSS, MB)")
    print(table(["command", "ck MB", "target", "result", "sqlite3 MB"], rows, right={1, 2, 4}))

    # The bulk-load copies are only scratch; keep the loaded store and db.
    for c in ctxs.values():
        for p in (c.fresh_store, c.fresh_db, c.first_store, c.replica_db):
            rm(p)
            for suffix in ("-journal", "-wal", "-shm"):
                rm(Path(str(p) + suffix))

    results["summary"] = {"passed": passed, "failed": failed}
    results["complete"] = True
    write_results(out_path, results)
    print(f"\n{passed} targets met, {failed} missed. Results: {out_path}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        print(f"bench: error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("bench: interrupted", file=sys.stderr)
        sys.exit(130)
