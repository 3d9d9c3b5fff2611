#!/usr/bin/env python3
"""The deployment topology of docs/deployment.md without a container engine: the local
PostgreSQL, two `server` processes and Debian's nginx in front of them.

    scripts/cluster.sh start     # serve on http://127.0.0.1:3100 until Ctrl-C (release build)
    scripts/cluster.sh test      # the drill .ci/run runs (SERVER_BIN picks the binary)

The drill: a fresh database seeded with `server bench-seed`, an HTTPS reward receiver that
records every event id, both processes reaching PostgreSQL through a forwarding socket this
script can cut, and signed Custom S2S postbacks sent through nginx at a steady rate. Mid-load
process A is killed with SIGKILL (and started again), then the database is cut for 5 s.
Senders retry what was not answered (502 from the proxy for requests on the killed process)
or refused for now (503), with the same transaction id. Afterwards every postback must have
been accepted and settled into exactly one conversion, every conversion's reward must have
reached the receiver under one event id, and an event id may reach it twice only when its
first send was in flight at the kill or during the cut (delivery is at least once: a send
whose outcome was never recorded is sent again; any other repeat fails the drill). No answer
may be a 5xx other than 503 (and 502 around the kill), every request sent while the database
was cut must be answered 503, the kill must find both the web and the callback workers busy,
and afterwards `server ledger-check` must find the ledger whole (balances equal their
entries, every campaign's spend mirrored, pending earnings equal to their conversions, so a
conversion paid twice fails).
"""

import argparse
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, free_port, http, wait_ready  # noqa: E402
from cluster_peers import Forwarder, Receiver  # noqa: E402

PG = "postgres://postgres@127.0.0.1:5432"
SECRET_KEY = "c1" * 32


def psql(db, sql):
    out = subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-At", "-d", db, "-c", sql],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def nginx_conf(workdir, port, upstreams):
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=1 fail_timeout=2s;" for p in upstreams)
    conf = os.path.join(workdir, "nginx.conf")
    # deploy/nginx.conf's proxy settings, in a file nginx runs from a folder of its own.
    with open(conf, "w") as f:
        f.write(f"""daemon off;
worker_processes 1;
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {workdir}/body;
    proxy_temp_path {workdir}/proxy;
    fastcgi_temp_path {workdir}/fastcgi;
    uwsgi_temp_path {workdir}/uwsgi;
    scgi_temp_path {workdir}/scgi;
    upstream marketplace {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        client_max_body_size 12m;
        location / {{
            proxy_pass http://marketplace;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Request-Id $request_id;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 2;
            proxy_connect_timeout 2s;
            proxy_read_timeout 35s;
        }}
    }}
}}
""")
    return conf


class Cluster:
    def __init__(self, binary, db, db_port, proxy_port, workdir, callback_ca=None):
        self.binary, self.db, self.workdir = binary, db, workdir
        self.proxy_port = proxy_port
        self.base = f"http://127.0.0.1:{proxy_port}"
        self.db_url = f"postgres://postgres@127.0.0.1:{db_port}/{db}"
        self.callback_ca = callback_ca
        self.ports = [free_port(), free_port()]
        self.procs = [None, None]
        self.nginx = None

    def env(self, port):
        env = dict(os.environ)
        env.update({"APP_DATABASE_URL": self.db_url, "APP_BIND": f"127.0.0.1:{port}",
                    "APP_BASE_URL": self.base, "APP_SECRET_KEY": SECRET_KEY,
                    "APP_DATA_DIR": self.workdir, "APP_TRUSTED_PROXIES": "127.0.0.1",
                    "APP_SITE_ROOT": os.path.join(ROOT, "target", "site"),
                    "APP_DB_ACQUIRE_TIMEOUT_MS": "1000", "RUST_LOG": "warn",
                    "MALLOC_ARENA_MAX": "2"})
        if self.callback_ca:
            env.update({"APP_CALLBACK_CA_FILE": self.callback_ca, "APP_CALLBACK_ALLOW_PRIVATE": "true"})
        return env

    def start(self, i):
        log = open(os.path.join(self.workdir, f"server-{i}.log"), "a")
        self.procs[i] = subprocess.Popen([self.binary, "serve"], env=self.env(self.ports[i]),
                                         stdout=log, stderr=log)
        wait_ready(f"http://127.0.0.1:{self.ports[i]}", self.procs[i], timeout=120)

    def start_all(self):
        for i in range(2):
            self.start(i)
        conf = nginx_conf(self.workdir, self.proxy_port, self.ports)
        self.nginx = subprocess.Popen(["nginx", "-p", self.workdir, "-c", conf])
        for _ in range(100):
            try:
                if http("GET", self.base + "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise SystemExit("nginx did not answer")

    def stop(self):
        for p in self.procs + [self.nginx]:
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=25)
                except subprocess.TimeoutExpired:
                    p.kill()


def signed_postback(fx, click, tx):
    ts = str(int(time.time()))
    occurred = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    msg = "\n".join([ts, click, tx, "install", "approved", occurred])
    sig = hmac.new(fx["postbackSecret"].encode(), msg.encode(), hashlib.sha256).hexdigest()
    body = json.dumps({"click_id": click, "transaction_id": tx, "goal_id": "install",
                       "status": "approved", "occurred_at": occurred})
    # Many advertiser servers, as in production (the postback limit is per source address).
    n = int(tx.rsplit("-", 1)[1])
    headers = {"Content-Type": "application/json", "X-Service-Key-Id": fx["postbackKeyId"],
               "X-Service-Timestamp": ts, "X-Service-Signature": sig,
               "X-Forwarded-For": f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"}
    return headers, body


def doubled(confirmed, events, t0):
    """Event ids received more than once whose first send was not in flight at the kill
    (within a callback's 10-second timeout before it) or during the database cut: their
    outcome was recorded, so the repeat is a defect."""
    first = {}
    repeats = set()
    for event_id, _, _, at in confirmed:
        if event_id in first:
            repeats.add(event_id)
        else:
            first[event_id] = at - t0
    excused = lambda t: (events["kill"] - 10 <= t <= events["kill"] + 1
                         or events["cut"] - 10 <= t <= events["restored"] + 1)
    wrong = sorted(e for e in repeats if not excused(first[e]))
    print(f"[cluster] {len(repeats)} event ids received twice, {len(repeats) - len(wrong)} of them "
          f"in flight at the kill or the cut", flush=True)
    return [f"{len(wrong)} rewards sent again after their delivery was recorded: {wrong[:5]}"] if wrong else []


def drill(args):
    binary = os.path.abspath(args.binary)
    db = f"cluster_{time.strftime('%Y%m%d%H%M%S')}_{os.getpid()}"
    psql("postgres", f'CREATE DATABASE "{db}"')
    workdir = tempfile.mkdtemp(prefix="cluster-")
    fwd = Forwarder()
    receiver = Receiver(workdir)
    cluster = Cluster(binary, db, fwd.port, free_port(), workdir, callback_ca=receiver.cert)
    failures = []
    try:
        fixtures = os.path.join(workdir, "fixtures.json")
        seed_env = cluster.env(free_port())
        seed_env["APP_DATABASE_URL"] = f"{PG}/{db}"
        subprocess.run([binary, "bench-seed", "--campaigns", "5", "--users", "20", "--sessions",
                        str(args.clicks), "--clicks", str(args.clicks), "--out", fixtures],
                       env=seed_env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        fx = json.load(open(fixtures))
        cluster.start_all()
        _, _, body = http("POST", cluster.base + "/auth/v1/tokens", {"Content-Type": "application/json"},
                          json.dumps({"email": "publisher@demo.test", "password": "demo-password-2026"}))
        auth = {"Authorization": "Bearer " + json.loads(body)["token"], "Content-Type": "application/json"}
        status, _, b = http("PUT", f"{cluster.base}/publisher/v2/placements/{fx['placementId']}/callback",
                            auth, json.dumps({"url": f"https://127.0.0.1:{receiver.port}/hook"}))
        if status != 200:
            raise SystemExit(f"configuring the callback failed: {status} {b[:300]!r}")

        results = []  # (sent_at, answered_at, status, tx)
        lock = threading.Lock()
        t0 = time.monotonic()
        events = {}

        def send(i):
            click = fx["clickIds"][i % len(fx["clickIds"])]
            tx = f"cluster-{i}"
            headers, body = signed_postback(fx, click, tx)
            sent = time.monotonic() - t0
            try:
                status, _, _ = http("POST", cluster.base + "/performance-marketing/v2/postbacks/custom-s2s/"
                                    + fx["postbackCampaignId"], headers, body)
            except OSError:
                status = 0
            with lock:
                results.append((sent, time.monotonic() - t0, status, tx))

        def chaos():
            time.sleep(args.kill_at)
            events["kill"] = time.monotonic() - t0
            cluster.procs[0].send_signal(signal.SIGKILL)
            cluster.procs[0].wait()
            time.sleep(2)
            cluster.start(0)
            events["restarted"] = time.monotonic() - t0
            time.sleep(max(0.0, args.cut_at - (time.monotonic() - t0)))
            events["cut"] = time.monotonic() - t0
            fwd.set_cut(True)
            time.sleep(args.cut_seconds)
            fwd.set_cut(False)
            events["restored"] = time.monotonic() - t0

        chaos_thread = threading.Thread(target=chaos)
        chaos_thread.start()
        with ThreadPoolExecutor(max_workers=4) as pool:
            for i in range(args.postbacks):
                target = i / args.rate
                delay = target - (time.monotonic() - t0)
                if delay > 0:
                    time.sleep(delay)
                pool.submit(send, i)
        chaos_thread.join()

        by_status = {}
        for _, _, s, _ in results:
            by_status[s] = by_status.get(s, 0) + 1
        print(f"[cluster] {len(results)} postbacks: {dict(sorted(by_status.items()))}; "
              f"kill at {events['kill']:.1f} s, back at {events['restarted']:.1f} s, "
              f"database cut {events['cut']:.1f}-{events['restored']:.1f} s", flush=True)
        # The proxy answers 502 for the requests in flight on the killed process (their
        # senders retry): sent before the kill (or in the second after it, before the proxy
        # saw the process gone) and answered after it, however long they had waited under
        # load. Any other 5xx than 503 is a defect.
        in_flight = lambda sent, done: sent <= events["kill"] + 1 and done >= events["kill"]
        bad = [(sent, s) for sent, done, s, _ in results if s >= 500 and s != 503
               and not (s == 502 and in_flight(sent, done))]
        if bad:
            failures.append(f"answers other than 503 among the 5xx: {by_status}")
        during_cut = [(s, tx) for sent, done, s, tx in results
                      if sent > events["cut"] + 0.5 and done < events["restored"]]
        if not during_cut:
            failures.append("no request was sent while the database was cut")
        wrong = [s for s, _ in during_cut if s != 503]
        if wrong:
            failures.append(f"{len(wrong)} of {len(during_cut)} requests during the cut were not 503: {wrong[:10]}")
        print(f"[cluster] {len(during_cut)} requests during the cut, all 503: {not wrong}", flush=True)

        # An integrator retries what was not answered (a killed process: 502 from the
        # proxy) or refused for now (503), with the same transaction id: the retry is
        # idempotent, so a report that was in fact accepted is not counted twice.
        retried = 0
        for _ in range(20):
            again = [tx for _, _, s, tx in results if s not in (200,) and not 400 <= s < 500]
            final = {tx: s for _, _, s, tx in results}
            again = sorted({tx for tx in again if final.get(tx) != 200})
            if not again:
                break
            for tx in again:
                retried += 1
                send(int(tx.rsplit("-", 1)[1]))
            time.sleep(1)
        final = {}
        for _, _, s, tx in sorted(results):
            final[tx] = s if final.get(tx) != 200 else 200
        accepted = {tx for tx, s in final.items() if s == 200}
        print(f"[cluster] {retried} retries; {len(accepted)} of {args.postbacks} accepted in the end",
              flush=True)
        if len(accepted) != args.postbacks:
            failures.append(f"only {len(accepted)} of {args.postbacks} postbacks were accepted after retries")
        ids_of = dict(line.split("|") for line in psql(
            db, "SELECT transaction_id || '|' || id FROM conversions WHERE transaction_id LIKE 'cluster-%'"
        ).splitlines() if line)
        wanted = {ids_of[tx] for tx in accepted if tx in ids_of}
        # Every accepted report settles and its reward reaches the receiver.
        deadline = time.monotonic() + args.settle_timeout
        while time.monotonic() < deadline:
            got = {tx for _, tx, _, _ in receiver.confirmed()}
            if wanted <= got:
                break
            time.sleep(0.5)
        confirmed = receiver.confirmed()
        ids = [e for e, _, _, _ in confirmed]
        got = {tx for _, tx, _, _ in confirmed}
        conversions = int(psql(db, "SELECT COUNT(*) FROM conversions WHERE transaction_id LIKE 'cluster-%'"))
        duplicates = len(ids) - len(set(ids))
        print(f"[cluster] accepted {len(accepted)}, conversions {conversions}, rewards received "
              f"{len(set(ids))} distinct ({duplicates} repeated sends of an event id)", flush=True)
        missing = wanted - got
        if missing:
            failures.append(f"{len(missing)} accepted postbacks never reached the receiver: {sorted(missing)[:5]}")
        unknown = got - set(ids_of.values())
        if unknown:
            failures.append(f"rewards for unknown transactions: {sorted(unknown)[:5]}")
        if len(set(ids)) != len(got):
            failures.append("one transaction was rewarded under two event ids")
        if len(wanted) != len(accepted):
            failures.append(f"{len(accepted) - len(wanted)} accepted postbacks have no conversion")
        if conversions != len(accepted):
            failures.append(f"{conversions} conversions for {len(accepted)} accepted postbacks")
        failures.extend(doubled(confirmed, events, t0))
        # The kill hit a process at work: answers and callbacks in the second before it.
        kill_at = events["kill"]
        answered = sum(1 for _, done, s, _ in results if kill_at - 1 <= done <= kill_at and s == 200)
        sent_back = sum(1 for *_, at in receiver.events if kill_at - 1 <= at - t0 <= kill_at)
        print(f"[cluster] in the second before the kill: {answered} postbacks answered, "
              f"{sent_back} callbacks received", flush=True)
        if not answered or not sent_back:
            failures.append("the kill found the cluster idle (no answer or no callback in the second before it)")
        check = subprocess.run([binary, "ledger-check"], env=seed_env, capture_output=True, text=True)
        print("[cluster] " + check.stdout.strip().replace("\n", "\n[cluster] "), flush=True)
        if check.returncode:
            failures.append(f"server ledger-check: {check.stderr.strip()[-300:]}")
    finally:
        cluster.stop()
        fwd.set_cut(False)
        if failures:
            print(f"[cluster] logs kept in {workdir}, database {db} kept", flush=True)
        else:
            subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c",
                            f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'], capture_output=True)
    if failures:
        for f in failures:
            print(f"[cluster] FAIL: {f}", flush=True)
        raise SystemExit(1)
    print("[cluster] ok", flush=True)


def serve(args):
    db = "marketplace_cluster"
    if psql("postgres", f"SELECT 1 FROM pg_database WHERE datname = '{db}'") != "1":
        psql("postgres", f'CREATE DATABASE "{db}"')
    workdir = tempfile.mkdtemp(prefix="cluster-")
    cluster = Cluster(os.path.abspath(args.binary), db, 5432, args.port, workdir)
    subprocess.run([cluster.binary, "migrate"], env=cluster.env(free_port()), check=True)
    cluster.start_all()
    print(f"[cluster] serving on {cluster.base} (processes on {cluster.ports}, logs in {workdir}); "
          "Ctrl-C stops", flush=True)
    try:
        while all(p.poll() is None for p in cluster.procs):
            time.sleep(1)
    except KeyboardInterrupt:
        pass
    finally:
        cluster.stop()


def main():
    # SIGTERM (a service manager, `timeout`) stops the cluster as Ctrl-C does: the processes
    # and nginx are stopped, not left behind.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("command", choices=["start", "test"])
    ap.add_argument("--binary", default=os.environ.get("SERVER_BIN", os.path.join(ROOT, "target", "release", "server")))
    ap.add_argument("--port", type=int, default=3100, help="nginx's port for start")
    ap.add_argument("--postbacks", type=int, default=900)
    ap.add_argument("--rate", type=float, default=50.0, help="postbacks per second")
    ap.add_argument("--clicks", type=int, default=60)
    ap.add_argument("--kill-at", type=float, default=3.0)
    ap.add_argument("--cut-at", type=float, default=9.0)
    ap.add_argument("--cut-seconds", type=float, default=5.0)
    ap.add_argument("--settle-timeout", type=float, default=120.0)
    args = ap.parse_args()
    if args.command == "test":
        drill(args)
    else:
        serve(args)


if __name__ == "__main__":
    main()
