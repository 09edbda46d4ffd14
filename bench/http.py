#!/usr/bin/env python3
"""bench/http.py: the HTTP row. `ck serve` against a floor server, and the same reads by the command line.

Builds bench/http-floor.c (evhttp answering a fixed small JSON on its loop thread) and bench/http-load.c (CLIENTS
threads, one keep-alive connection each, a fixed number of requests, loopback only) with gcc, makes a store of
RECORDS `Note` records, then measures requests/s and the cost per request of

  - the floor:                 GET / on http-floor
  - ck serve's own cost:       GET /_ck/nothing (a 404 in CloudKit's error shape, needing no route and
                               answered on the event loop, as every such answer is)
  - a route, in place:         GET /_ck/requests?after=<huge> (an empty page of the request log, answered on the loop
                               as health and the store reads are while their lock is free)
  - the hand-off to a worker:  GET /_ck/faults (the fault rules: a route that runs on a worker, as writes do, and a
                               read of one small file; the hand-off and little else)
  - health:                    GET /_ck/health (on the loop; two reads of the store's files)
  - records/lookup of one:     POST /database/1/<container>/development/private/records/lookup on `ck serve --no-auth`
  - records/query of a page:   POST …/records/query (100 records, TRUEPREDICATE sorted by ___createTime)
  - records/modify of one:     POST …/records/modify (a forceUpdate of one record: every request is a write)
  - memory: the server's resident size after the rows above, and again after MEMORY_REQUESTS more lookups
  - the same lookup and query by the command line (`ck record fetch`, `ck query`), one process each

and prints each as a ratio to the floor (and the CLI per command), then the issue's goals: at least 2,000
lookups/s and 500 modifies/s with 8 clients, and memory flat (within 10%) over 100,000 requests. Ratios measured in
one run are what mean anything (docs/performance.md). It reports and does not gate.

  bench/http.py                         builds ck (release, static) unless CK=/path/to/ck is given
  CK=.build/debug/ck bench/http.py --requests 2000
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
WORK = HERE / "work" / "http"
CONTAINER = "iCloud.bench.http"
BUILD_COMMAND = ["swift", "build", "-c", "release", "-Xswiftc", "-static-executable", "--product", "ck"]


class BenchError(Exception):
    pass


def gcc(source: str, output: Path, *flags: str) -> None:
    cmd = ["gcc", "-O2", "-o", str(output), str(HERE / source), *flags]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} failed:\n{p.stderr}")


def ck_binary() -> str:
    if os.environ.get("CK"):
        return os.environ["CK"]
    print("bench/http: building ck: " + " ".join(BUILD_COMMAND), file=sys.stderr, flush=True)
    if subprocess.run(BUILD_COMMAND, cwd=REPO, stdin=subprocess.DEVNULL).returncode != 0:
        raise BenchError("the release build failed; to use an existing binary: CK=/path/to/ck bench/http.py")
    return str(REPO / ".build" / "release" / "ck")


def ck(ckbin: str, store: Path, *args: str, stdin: str = None) -> str:
    cmd = [ckbin, "--data-dir", str(store), "-c", CONTAINER, *args]
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr}")
    return p.stdout


def make_store(ckbin: str, store: Path, records: int) -> None:
    p = subprocess.run([ckbin, "--data-dir", str(store), "container", "create", CONTAINER], capture_output=True, text=True)
    if p.returncode != 0:
        raise BenchError(f"ck container create {CONTAINER} failed: {p.stderr}")
    lines = []
    for i in range(1, records + 1):
        lines.append(json.dumps({"recordName": f"r{i}", "recordType": "Note",
                                 "fields": {"title": {"value": f"note {i}"}, "priority": {"value": i % 100}}}))
    batch = WORK / "notes.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    ck(ckbin, store, "record", "save", "--batch", str(batch), "-q")
    ck(ckbin, store, "schema", "index", "Note", "___recordID", "--queryable")
    ck(ckbin, store, "schema", "index", "Note", "___createTime", "--sortable")


def start(cmd: list[str], prefix: str) -> tuple[subprocess.Popen, int]:
    """Starts a server and reads the port from its first line ("… PORT" or "…:PORT")."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    line = p.stdout.readline().strip()
    if not line.startswith(prefix):
        p.kill()
        raise BenchError(f"{' '.join(cmd)} printed '{line}': {p.stderr.read()}")
    return p, int(line.replace(":", " ").split()[-1])


def load(loader: Path, port: int, clients: int, requests: int, method: str, target: str, body: str = "") -> dict:
    """Runs the driver (one untimed warm-up of a tenth); returns requests/s and µs per request."""
    for n in (max(requests // 10, clients), requests):
        out = subprocess.run([str(loader), str(port), str(clients), str(n), method, target, body],
                             capture_output=True, text=True, check=True).stdout.split()
    done, seconds, failures = int(out[0]), float(out[1]), int(out[2])
    return {"requests": done, "seconds": seconds, "failures": failures,
            "rps": done / seconds, "us": seconds / done * 1e6}


def rss_kib(pid: int) -> int:
    """The process's resident set size (VmRSS), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise BenchError(f"no VmRSS in /proc/{pid}/status")


def cli(cmd: list[str], runs: int) -> dict:
    """Median wall time of a command run `runs` times (after one warm-up)."""
    times = []
    for i in range(runs + 1):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True)
        t1 = time.perf_counter()
        if p.returncode != 0:
            raise BenchError(f"{' '.join(cmd)} failed: {p.stderr.decode()}")
        if i:
            times.append(t1 - t0)
    us = statistics.median(times) * 1e6
    return {"runs": runs, "us": us, "rps": 1e6 / us}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="ck serve against an evhttp floor, and the CLI (see the file's doc)")
    ap.add_argument("--requests", type=int, default=20000, help="requests per HTTP measurement (default 20000)")
    ap.add_argument("--clients", type=int, default=8, help="concurrent keep-alive clients (default 8)")
    ap.add_argument("--records", type=int, default=1000, help="records in the store (default 1000)")
    ap.add_argument("--cli-runs", type=int, default=20, help="runs of each CLI command (default 20)")
    ap.add_argument("--memory-requests", type=int, default=100000,
                    help="lookups between the two readings of the server's memory (default 100000)")
    ap.add_argument("--output", help="results JSON (default bench/results/http-<UTC time>.json)")
    a = ap.parse_args(argv)

    ckbin = ck_binary()
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    floor_bin, loader = WORK / "http-floor", WORK / "http-load"
    gcc("http-floor.c", floor_bin, "-levent")
    gcc("http-load.c", loader, "-pthread")
    store = WORK / "store"
    make_store(ckbin, store, a.records)

    lookup = json.dumps({"records": [{"recordName": "r1"}], "zoneID": {"zoneName": "_defaultZone"}})
    query = json.dumps({"query": {"recordType": "Note", "sortBy": [{"systemFieldName": "createdTimestamp", "ascending": True}]},
                        "resultsLimit": 100, "zoneID": {"zoneName": "_defaultZone"}})
    modify = json.dumps({"operations": [{"operationType": "forceUpdate", "record": {
        "recordName": "r2", "recordType": "Note", "fields": {"title": {"value": "written over HTTP"}}}}],
        "zoneID": {"zoneName": "_defaultZone"}})
    base = f"/database/1/{CONTAINER}/development/private/records"
    rows = {}

    floor, port = start([str(floor_bin), "0"], "listening on")
    try:
        rows["floor: GET / (fixed JSON)"] = load(loader, port, a.clients, a.requests, "GET", "/")
    finally:
        floor.kill()
        floor.wait()

    serve, port = start([ckbin, "--data-dir", str(store), "serve", "--port", "0", "--no-auth"], "ck serve: listening on")
    try:
        # A route that does no store work: the transport, the request log and a JSON answer, against the floor.
        nothing = load(loader, port, a.clients, a.requests, "GET", "/_ck/nothing")
        nothing["note"] = "every answer a 404, as meant"
        rows["ck serve: GET /_ck/nothing (404, no store)"] = nothing
        # The same, plus a route and a JSON answer built, on the loop.
        rows["ck serve: GET /_ck/requests (loop)"] = load(loader, port, a.clients, a.requests, "GET",
                                                          "/_ck/requests?after=999999999999")
        # A small route plus the hand-off to a worker thread and back that writes (and reads that find the store
        # lock taken) take.
        rows["ck serve: GET /_ck/faults (worker)"] = load(loader, port, a.clients, a.requests, "GET", "/_ck/faults")
        rows["ck serve: GET /_ck/health"] = load(loader, port, a.clients, a.requests, "GET", "/_ck/health")
        for label, target, body in (("ck serve: records/lookup, 1 record", f"{base}/lookup", lookup),
                                    ("ck serve: records/query, 100 records", f"{base}/query", query),
                                    ("ck serve: records/modify, 1 record", f"{base}/modify", modify)):
            r = load(loader, port, a.clients, a.requests, "POST", target, body)
            if r["failures"] == r["requests"]:
                r["note"] = "every request failed (endpoint not built in this ck?)"
            rows[label] = r
        memory = {"before_kib": rss_kib(serve.pid)}
        load(loader, port, a.clients, a.memory_requests, "POST", f"{base}/lookup", lookup)
        memory["after_kib"] = rss_kib(serve.pid)
        memory["requests"] = a.memory_requests
    finally:
        serve.terminate()
        serve.wait()

    prefix = [ckbin, "--data-dir", str(store), "-c", CONTAINER]
    rows["CLI: ck record fetch r1"] = cli(prefix + ["record", "fetch", "r1", "-o", "json"], a.cli_runs)
    rows["CLI: ck query Note --limit 100"] = cli(prefix + ["query", "Note", "--limit", "100", "-o", "json"], a.cli_runs)

    floor_us = rows["floor: GET / (fixed JSON)"]["us"]
    print(f"HTTP: {a.clients} keep-alive clients on loopback, {a.requests} requests each row; {a.records} records; "
          f"CLI: median of {a.cli_runs} runs, one process per command")
    print(f"{'operation':40} {'req/s':>10} {'µs/req':>10} {'vs floor':>9} {'failed':>7}")
    for label, r in rows.items():
        failed = str(r.get("failures", ""))
        print(f"{label:40} {r['rps']:10.0f} {r['us']:10.1f} {r['us'] / floor_us:8.1f}x {failed:>7}"
              + (f"  ({r['note']})" if "note" in r else ""))
    for what in ("lookup", "query"):
        serve_row = next((r for k, r in rows.items() if k.startswith("ck serve: records/" + what)), None)
        cli_row = rows["CLI: ck record fetch r1" if what == "lookup" else "CLI: ck query Note --limit 100"]
        if serve_row and "note" not in serve_row:
            print(f"{what}: one CLI process costs {cli_row['us'] / serve_row['us']:.1f}x a request to ck serve")

    growth = memory["after_kib"] / memory["before_kib"] - 1
    print(f"memory: {memory['before_kib'] / 1024:.1f} MiB resident after the rows, {memory['after_kib'] / 1024:.1f} MiB "
          f"after {a.memory_requests} more lookups ({growth * 100:+.1f}%)")
    lookups = rows["ck serve: records/lookup, 1 record"]["rps"]
    modifies = rows["ck serve: records/modify, 1 record"]["rps"]
    print(f"goals: lookups/s {lookups:.0f} (>= 2000: {'met' if lookups >= 2000 else 'missed'}), "
          f"modifies/s {modifies:.0f} (>= 500: {'met' if modifies >= 500 else 'missed'}), "
          f"memory flat within 10%: {'met' if abs(growth) <= 0.10 else 'missed'}")

    out = Path(a.output) if a.output else HERE / "results" / (
        "http-" + datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + ".json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"ck": ckbin, "clients": a.clients, "requests": a.requests, "records": a.records,
                               "rows": rows, "memory": memory}, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BenchError as e:
        print(f"bench/http: {e}", file=sys.stderr)
        sys.exit(2)
