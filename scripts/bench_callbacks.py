#!/usr/bin/env python3
"""The reward-callback delivery benchmark: how fast settled rewards reach publishers.

    scripts/bench_callbacks.py                 # SQLite and PostgreSQL
    scripts/bench_callbacks.py --db postgres --backlog 20000   # a quicker look

It starts the release `server` (workers on) and `callback-receiver` (an HTTPS receiver on
this machine that answers 200 at once, built from the tests crate), creates a publisher
with 101 placements whose callback URLs point at the receiver, and writes deliveries into
the outbox the way settlement does (PENDING rows, with PostgreSQL's NOTIFY; on SQLite the
worker's 100 ms poll finds them, as it finds another process's settlements). Phases:

- one receiver: 20,000 deliveries for one placement at once; rate from first to last arrival;
- 100 receivers: 20,000 spread over 100 placements;
- half load: 500 deliveries a second for 10 s over 100 placements; settlement-to-delivery
  latency (receiver arrival minus the row's creation, same clock);
- backlog: 100,000 deliveries for one placement, then one delivery for another placement
  every 300 ms while that backlog drains; their settlement-to-delivery latency.

Prints the figures and, unless --no-write, replaces the "Reward callbacks" section of
BENCHMARKS.md.
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import (BIN, ROOT, WORK, drop_database, env_for, free_port,  # noqa: E402
                   fresh_database, http, wait_ready)

RECEIVER = os.path.join(ROOT, "target", "release", "callback-receiver")
PLACEMENTS = 101


def stats(port, phase):
    _, _, body = http("GET", f"http://127.0.0.1:{port}/stats?phase={phase}")
    return json.loads(body)


class Outbox:
    """Writes PENDING deliveries as settlement does."""

    def __init__(self, kind, db_url, data_dir):
        self.kind = kind
        if kind == "sqlite":
            self.db = sqlite3.connect(os.path.join(data_dir, "app.db"), timeout=30)
        else:
            name = db_url.rsplit("/", 1)[1]
            self.psql = subprocess.Popen(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q",
                                          "-v", "ON_ERROR_STOP=1", name],
                                         stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)

    def analyze(self):
        """What autovacuum does within a minute of a bulk change (PostgreSQL only)."""
        if self.kind == "postgres":
            self.psql.stdin.write("ANALYZE callback_deliveries;\n")
            self.psql.stdin.flush()

    def write(self, placement, owner, phase, n):
        now = datetime.now(timezone.utc)
        ms = int(now.timestamp() * 1000)
        ts = now.isoformat(timespec="microseconds")
        rows = []
        for _ in range(n):
            did = f"dlv_{uuid.uuid4().hex}"
            payload = json.dumps({"eventId": did, "eventType": "reward.confirmed",
                                  "placementId": placement, "benchPhase": phase,
                                  "benchCreatedMs": ms}, separators=(",", ":"), sort_keys=True)
            rows.append((did, placement, owner, f"cnv_{did}", "reward.confirmed", payload,
                         "PENDING", 0, ts, ts, ts, 0))
        cols = ("id, placement_id, owner_account_id, conversion_id, event, payload, status, "
                "attempts, next_attempt_at, created_at, updated_at, replays")
        if self.kind == "sqlite":
            with self.db:
                self.db.executemany(f"INSERT INTO callback_deliveries ({cols}) VALUES "
                                    "(?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        else:
            lines = ["\t".join(str(v) for v in r) for r in rows]
            self.psql.stdin.write(f"COPY callback_deliveries ({cols}) FROM STDIN;\n"
                                  + "\n".join(lines) + "\n\\.\nNOTIFY callback_deliveries_due;\n")
            self.psql.stdin.flush()

    def close(self):
        if self.kind == "sqlite":
            self.db.close()
        else:
            self.psql.stdin.close()
            self.psql.wait(timeout=60)


def wait_count(port, phase, n, limit=300):
    start = time.monotonic()
    while time.monotonic() - start < limit:
        s = stats(port, phase)
        if s.get("count", 0) >= n:
            return s
        time.sleep(0.2)
    return stats(port, phase)


def rate(s):
    span = max(1, s["lastMs"] - s["firstMs"]) / 1000
    return s["count"] / span


def bench_db(kind, args, receiver):
    stamp, data_dir, db_url = fresh_database(kind, "callbacks-")
    port = free_port()
    env = env_for(db_url, data_dir, port)
    env.update({"APP_CALLBACK_ALLOW_PRIVATE": "true", "APP_CALLBACK_CA_FILE": receiver["caFile"],
                "APP_RUN_WORKERS": "true"})
    base = f"http://127.0.0.1:{port}"
    subprocess.run([BIN, "user", "create", "--email", "bench@callbacks.test", "--password",
                    "bench-password-2026", "--role", "publisher"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    log = open(os.path.join(data_dir, "server.log"), "w")
    server = subprocess.Popen([BIN, "serve"], env=env, stdout=log, stderr=log)
    out = {"kind": kind}
    outbox = None
    try:
        wait_ready(base, server)
        _, _, body = http("POST", base + "/auth/v1/tokens", {"Content-Type": "application/json"},
                          json.dumps({"email": "bench@callbacks.test", "password": "bench-password-2026"}))
        token = json.loads(body)["token"]
        owner = json.loads(body)["account"]["accountId"]
        auth = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}
        placements = []
        for i in range(PLACEMENTS):
            _, _, p = http("POST", base + "/publisher/v2/placements", auth, json.dumps(
                {"type": "WEBSITE", "name": f"Site {i}", "platformIdentity": f"site{i}.example"}))
            pid = json.loads(p)["placementId"]
            status, _, b = http("PUT", f"{base}/publisher/v2/placements/{pid}/callback", auth, json.dumps(
                {"url": f"https://127.0.0.1:{receiver['port']}/hook/{i}"}))
            assert status == 200, b[:300]
            placements.append(pid)
        outbox = Outbox(kind, db_url, data_dir)
        sp = receiver["statsPort"]
        tag = f"{kind}-{stamp}"

        outbox.write(placements[0], owner, f"{tag}-one", args.burst)
        s = wait_count(sp, f"{tag}-one", args.burst)
        out["one"] = {"count": s["count"], "rate": rate(s)}
        print(f"[callbacks:{kind}] one receiver: {s['count']} in {rate(s):.0f}/s", flush=True)

        per = args.burst // 100
        for pid in placements[1:]:
            outbox.write(pid, owner, f"{tag}-many", per)
        s = wait_count(sp, f"{tag}-many", per * 100)
        out["many"] = {"count": s["count"], "rate": rate(s), "placements": s["placements"]}
        print(f"[callbacks:{kind}] 100 receivers: {s['count']} in {rate(s):.0f}/s", flush=True)

        sent = 0
        start = time.monotonic()
        tick = 0.05
        per_tick = max(1, int(args.half_rate * tick))
        while time.monotonic() - start < args.duration:
            outbox.write(placements[1 + (sent // per_tick) % 100], owner, f"{tag}-half", per_tick)
            sent += per_tick
            time.sleep(max(0, start + (sent / args.half_rate) - time.monotonic()))
        s = wait_count(sp, f"{tag}-half", sent, limit=60)
        out["half"] = {"sent": sent, "count": s["count"], "rate": sent / args.duration,
                       "p50": s["p50Ms"], "p99": s["p99Ms"], "max": s["maxMs"]}
        print(f"[callbacks:{kind}] half load {sent / args.duration:.0f}/s: p50 {s['p50Ms']} ms "
              f"p99 {s['p99Ms']} ms max {s['maxMs']} ms", flush=True)

        outbox.write(placements[0], owner, f"{tag}-backlog", args.backlog)
        outbox.analyze()
        wait_count(sp, f"{tag}-backlog", 2_000)
        for _ in range(args.probes):
            outbox.write(placements[1], owner, f"{tag}-probe", 1)
            time.sleep(0.3)
        s = wait_count(sp, f"{tag}-probe", args.probes, limit=60)
        during = stats(sp, f"{tag}-backlog")
        out["backlog"] = {"backlog": args.backlog, "probes": s["count"], "p50": s["p50Ms"],
                          "max": s["maxMs"], "drained": during["count"], "rate": rate(during)}
        print(f"[callbacks:{kind}] behind a backlog of {args.backlog}: other placement p50 "
              f"{s['p50Ms']} ms max {s['maxMs']} ms (backlog draining at {rate(during):.0f}/s)",
              flush=True)
    finally:
        if outbox:
            outbox.close()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        drop_database(db_url)
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    return out


def markdown(results, args):
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        "## Reward callbacks",
        "",
        f"`scripts/bench_callbacks.py` on {when} (release build, 2 cores; the server, the HTTPS "
        "receiver and the database share them). The receiver answers 200 at once; deliveries are "
        "written into the outbox as settlement writes them. Default per-receiver concurrency (16). "
        "On PostgreSQL the backlog is followed by `ANALYZE callback_deliveries`, as autovacuum "
        "does within a minute of a bulk change (see the note below the table).",
        "",
        "| Database | One receiver (/s) | 100 receivers (/s) | Half load: rate, p50, p99 settlement→delivery | "
        "Another placement behind a backlog: p50, max | Backlog drain (/s) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        h, b = r["half"], r["backlog"]
        lines.append(
            f"| {r['kind']} | {r['one']['rate']:,.0f} ({r['one']['count']:,}) | "
            f"{r['many']['rate']:,.0f} ({r['many']['count']:,}) | {h['rate']:,.0f}/s, {h['p50']} ms, "
            f"{h['p99']} ms | {b['p50']} ms, {b['max']} ms (backlog {b['backlog']:,}) | {b['rate']:,.0f} |")
    lines.append("")
    return "\n".join(lines)


def write(section):
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path).read()
    start = text.find("## Reward callbacks")
    if start >= 0:
        end = text.find("\n## ", start + 1)
        text = text[:start] + section + (text[end + 1:] if end >= 0 else "")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    open(path, "w").write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--burst", type=int, default=20_000)
    ap.add_argument("--half-rate", type=int, default=500)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--backlog", type=int, default=100_000)
    ap.add_argument("--probes", type=int, default=10)
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the data folder and server log")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    os.makedirs(WORK, exist_ok=True)
    if not args.skip_build:
        subprocess.run(["cargo", "build", "--release", "-p", "server", "-p", "tests",
                        "--bin", "server", "--bin", "callback-receiver"], cwd=ROOT, check=True)
    rec = subprocess.Popen([RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        receiver = json.loads(rec.stdout.readline())
        kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
        results = [bench_db(k, args, receiver) for k in kinds]
    finally:
        rec.terminate()
    section = markdown(results, args)
    print(section)
    if not args.no_write:
        write(section)


if __name__ == "__main__":
    main()
