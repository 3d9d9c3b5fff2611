#!/usr/bin/env python3
"""The delivery benchmark: seeds a realistic data set, starts the release server, drives
every hot path with wrk and writes a table with the machine's ceilings to BENCHMARKS.md.

    scripts/bench.py                      # SQLite and PostgreSQL, 10,000 campaigns
    scripts/bench.py --db sqlite --campaigns 1000 --duration 5   # a quick look

Needs `wrk` (Debian package) and, for the PostgreSQL leg, a server on 127.0.0.1:5432 with
trust authentication. Every figure is wrk with --latency; the ceiling rows come from
`server bench-ceiling` (bare axum on the same machine, same run) serving the same number of
bytes, a 304 and a 302, so each route is also a share of what this machine can do at all.
"""

import argparse
import hashlib
import hmac
from http import cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# BENCH_SERVER_BIN runs another build (an older commit's, for a before/after comparison on
# the same data); --skip-build is then implied.
BIN = os.environ.get("BENCH_SERVER_BIN") or os.path.join(ROOT, "target", "release", "server")
WORK = os.path.join(ROOT, "target", "bench")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_peak_mb(pid):
    """Peak resident memory (VmHWM) of a live process, in MB."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rss_now_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def lua_list(name, values):
    return f"{name} = {{" + ",".join(json.dumps(v) for v in values) + "}\n"


# The wrk script: each request takes the next entry of `reqs` (method, path, headers, body),
# so every request can carry its own session token, client address or signed body.
WRK_DRIVER = r"""
local counter = 0
-- A global, not a local: setup() sets it in each thread's state after this chunk ran.
thread_id = 0
local threads = {}
function setup(thread)
  thread:set("thread_id", #threads)
  table.insert(threads, thread)
end
function init(args)
  -- A script may set `stride` so each thread walks its own part of its lists.
  counter = thread_id * (stride or 7919)
end
request = function()
  counter = counter + 1
  return make(counter)
end
"""


def run_wrk(url, script, duration, connections, threads):
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False, dir=WORK) as f:
        f.write(script + WRK_DRIVER)
        path = f.name
    cmd = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{duration}s",
           "--latency", "-s", path, url]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = done.stdout
    os.unlink(path)
    # wrk falls back to plain GETs of the base URL when a script fails: refuse that.
    if ".lua:" in done.stderr or "error" in done.stderr.lower():
        raise SystemExit(f"wrk script failed: {done.stderr.strip()[:500]}")
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))

    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        if not m:
            return float("nan")
        v, unit = float(m.group(1)), m.group(2)
        return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v

    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    total = re.search(r"(\d+) requests in", out)
    return {
        "rps": rps,
        "p50": pct(50),
        "p99": pct(99),
        "errors": int(non2xx.group(1)) if non2xx else 0,
        "requests": int(total.group(1)) if total else 0,
    }


def http(method, url, headers=None, body=None, opener=None):
    req = urllib.request.Request(url, method=method, headers=headers or {},
                                 data=body.encode() if isinstance(body, str) else body)
    try:
        with (opener or urllib.request.build_opener(NoRedirect)).open(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


def wait_ready(base, proc, timeout=60, path="/readyz"):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise SystemExit("the server exited while starting")
        try:
            status, _, _ = http("GET", base + path)
            if status == 200:
                return time.monotonic() - start
        except OSError:
            pass
        time.sleep(0.01)
    raise SystemExit("the server did not become ready")


def env_for(db_url, data_dir, port):
    env = dict(os.environ)
    env.update({
        "APP_DATABASE_URL": db_url,
        "APP_DATA_DIR": data_dir,
        "APP_BIND": f"127.0.0.1:{port}",
        "APP_BASE_URL": f"http://127.0.0.1:{port}",
        "APP_TRUSTED_PROXIES": "127.0.0.1",
        # The default log filter, access log included: what production writes per request
        # (to /dev/null here, through the same writer). BENCH_RUST_LOG overrides it, for
        # measuring what the log costs (`info,access=off`).
        "RUST_LOG": os.environ.get("BENCH_RUST_LOG", "info,sqlx=warn,sea_orm=warn,tower_sessions=warn"),
        "APP_SITE_ROOT": os.path.join(ROOT, "target", "site"),
    })
    # Measure what scripts/run.sh runs (docs/operations.md, "Memory").
    env.setdefault("MALLOC_ARENA_MAX", "2")
    return env


def xff(i):
    return f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


def scenarios(fx, base, dashboard_cookie, launch_urls, etag, signed):
    """(name, lua, ceiling kind) for every measured route."""
    tokens = fx["sessionTokens"]
    # The offer list and the single offer each get their own half of the sessions: both
    # share one per-session read limit (120 a minute), so a route run right after the other
    # on the same sessions would measure the limiter.
    list_tokens, offer_tokens = tokens[:max(1, len(tokens) // 2)], tokens[len(tokens) // 2:]
    offers = fx["webCampaignIds"]
    countries = ["US", "GB", "DE", "FR", "CA", "BR", "IN", "JP"]
    slot = fx["offerwallSlotId"]
    out = []
    # The service's own middleware (request id, trace span, metrics, client address,
    # compression) with no database and no domain work: the floor under every route.
    out.append(("Service stack, no database (/healthz)", """
function make(n)
  return wrk.format("GET", "/healthz")
end
""", "hello"))
    out.append(("SDK offer list (20 items)", lua_list("tokens", list_tokens) + lua_list("cc", countries) + f"""
function make(n)
  return wrk.format("GET", "/sdk/v2/ad-slots/{slot}/offers?limit=20&country=" .. cc[n % #cc + 1],
    {{["Authorization"] = "Bearer " .. tokens[n % #tokens + 1]}})
end
""", "body"))
    out.append(("SDK single offer", lua_list("tokens", offer_tokens) + lua_list("offers", offers) + """
function make(n)
  return wrk.format("GET", "/sdk/v2/offers/" .. offers[n % #offers + 1],
    {["Authorization"] = "Bearer " .. tokens[n % #tokens + 1]})
end
""", "body"))
    out.append(("SDK impression", lua_list("tokens", tokens) + lua_list("offers", offers) + """
local salt = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
function make(n)
  return wrk.format("POST", "/sdk/v2/offers/" .. offers[n % #offers + 1] .. "/impressions",
    {["Authorization"] = "Bearer " .. tokens[n % #tokens + 1],
     ["Idempotency-Key"] = "imp-" .. salt .. "-" .. n, ["Content-Type"] = "application/json"}, "{}")
end
""", "body"))
    launchable = fx["launchable"]
    out.append(("SDK launch", lua_list("tokens", [x["token"] for x in launchable])
                + lua_list("imps", [x["impressionId"] for x in launchable]) + f"""
local salt = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
function make(n)
  local i = n % #imps + 1
  return wrk.format("POST", "/sdk/v2/offers/{fx['postbackCampaignId']}/launch",
    {{["Authorization"] = "Bearer " .. tokens[i], ["Idempotency-Key"] = "lch-" .. salt .. "-" .. n,
     ["Content-Type"] = "application/json"}}, '{{"impressionId":"' .. imps[i] .. '"}}')
end
""", "body"))
    out.append(("Click redirect (302)", lua_list("urls", launch_urls) + """
function make(n)
  return wrk.format("GET", urls[n % #urls + 1])
end
""", "redirect"))
    feed = f"/publisher/v2/ad-slots/{fx['staticSlotId']}/static-offers?country=US"
    out.append(("Static feed 200", f"""
function make(n)
  return wrk.format("GET", "{feed}", {{["X-Service-Static-Key"] = "{fx['staticKey']}",
    ["X-Forwarded-For"] = "10." .. (math.floor(n / 65536) % 256) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)}})
end
""", "body"))
    out.append(("Static feed 304", f"""
function make(n)
  return wrk.format("GET", "{feed}", {{["X-Service-Static-Key"] = "{fx['staticKey']}",
    ["If-None-Match"] = '{etag}',
    ["X-Forwarded-For"] = "10." .. (math.floor(n / 65536) % 256) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)}})
end
""", "not-modified"))
    out.extend(survey_scenarios(fx))
    out.append(("Custom S2S postback (durable)", signed, "body"))
    out.append(("Dashboard page (/publisher)", f"""
function make(n)
  return wrk.format("GET", "/publisher", {{["Cookie"] = "{dashboard_cookie}", ["Accept"] = "text/html"}})
end
""", "body"))
    return out


def survey_body_lua(fx):
    """The survey fetch request of wrk's n-th call: one of the seeded placements with its app
    key (the fetch limit is per key), a public client address and a profile in the locale
    (no postal code, whose format depends on the country)."""
    keys = fx["surveyKeys"]
    return (lua_list("placements", [k[0] for k in keys]) + lua_list("keys", [k[1] for k in keys])
            + lua_list("locales", fx["surveyLocales"]) + """
local salt = tostring(os.time()) .. "-" .. tostring(math.random(1, 1000000000))
function fetch(n, user, locale)
  local i = n % #keys + 1
  local ip = (11 + n % 180) .. "." .. (math.floor(n / 180) % 256) .. "." .. (math.floor(n / 46080) % 256) .. ".9"
  local body = '{"UserId":"' .. user .. '","AppId":"' .. placements[i] .. '","IpAddress":"' .. ip ..
    '","City":"Springfield","CountryLanguageCode":"' .. locale .. '","Gender":"' ..
    (n % 2 == 0 and "F" or "M") .. '","DateOfBirth":"19' .. (60 + n % 40) .. '-05-05"}'
  return wrk.format("POST", "/getallsurveys-api",
    {["X-Service-Api-Key"] = keys[i], ["Content-Type"] = "application/json"}, body)
end
""")


def survey_scenarios(fx):
    """The survey fetch (issue 31): a new respondent each request, and respondents seen
    before (the seeded ones, each from its own placement, locale and address)."""
    if not fx.get("surveyKeys"):
        return []
    common = survey_body_lua(fx)
    return [
        ("Survey fetch (new respondent)", common + """
function make(n)
  return fetch(n, "new-" .. salt .. "-" .. n, locales[n % #locales + 1])
end
""", "body"),
        ("Survey fetch (known respondent)", common + f"""
function make(n)
  local u = n % {max(1, fx['knownRespondents'])}
  return fetch(u, "survey-user-" .. u, locales[u % #locales + 1])
end
""", "body"),
    ]


def signed_postbacks(fx, count):
    """Pre-signed postbacks with unique transaction ids over the seeded clicks (the signature
    covers the timestamp, so they are made just before the phase that sends them)."""
    ts = str(int(time.time()))
    secret = fx["postbackSecret"].encode()
    clicks = fx["clickIds"]
    bodies, sigs = [], []
    occurred = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    run = hashlib.sha256(os.urandom(8)).hexdigest()[:8]
    for i in range(count):
        click = clicks[i % len(clicks)]
        tx = f"bench-{run}-{i}"
        goal = "install" if (i // len(clicks)) % 2 == 0 else "level10"
        msg = "\n".join([ts, click, tx, goal, "approved", occurred])
        sigs.append(hmac.new(secret, msg.encode(), hashlib.sha256).hexdigest())
        bodies.append(json.dumps({"click_id": click, "transaction_id": tx, "goal_id": goal,
                                  "status": "approved", "occurred_at": occurred}))
    path = f"/performance-marketing/v2/postbacks/custom-s2s/{fx['postbackCampaignId']}"
    # Each wrk thread sends its own half of the list: every report is a new transaction.
    return lua_list("bodies", bodies) + lua_list("sigs", sigs) + "stride = math.floor(#bodies / 2)\n" + f"""
function make(n)
  local i = n % #bodies + 1
  return wrk.format("POST", "{path}", {{["Content-Type"] = "application/json",
    ["X-Service-Key-Id"] = "{fx['postbackKeyId']}", ["X-Service-Timestamp"] = "{ts}",
    ["X-Service-Signature"] = sigs[i],
    ["X-Forwarded-For"] = "10." .. (math.floor(n / 65536) % 256) .. "." .. (math.floor(n / 256) % 256) .. "." .. (n % 256)}}, bodies[i])
end
"""


def sign_in(base):
    jar = cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), NoRedirect)
    _, _, html = http("GET", base + "/sign-in", opener=opener)
    csrf = re.search(rb'name="csrf" value="([^"]+)"', html).group(1).decode()
    form = urllib.parse.urlencode({"email": "publisher@demo.test", "password": "demo-password-2026",
                                   "csrf": csrf})
    http("POST", base + "/fn/sign_in", {"Content-Type": "application/x-www-form-urlencoded",
                                        "Accept": "text/html", "Referer": base + "/sign-in",
                                        "Origin": base}, form, opener=opener)
    return "; ".join(f"{c.name}={c.value}" for c in jar)


def fresh_launches(base, fx, count):
    """Signed launch links made now (they expire after five minutes)."""
    urls = []
    launchable = fx["launchable"]
    for i in range(count):
        x = launchable[i % len(launchable)]
        status, _, body = http("POST", f"{base}/sdk/v2/offers/{fx['postbackCampaignId']}/launch",
                               {"Authorization": "Bearer " + x["token"],
                                "Idempotency-Key": f"redirect-{time.time_ns()}-{i}",
                                "Content-Type": "application/json"},
                               json.dumps({"impressionId": x["impressionId"]}))
        if status in (200, 201):
            u = urllib.parse.urlsplit(json.loads(body)["launchUrl"])
            urls.append(u.path + "?" + u.query)
    if not urls:
        raise SystemExit("no launch links could be made for the redirect phase")
    return urls


def fresh_database(kind, label):
    """A new database of `kind` and a data folder: (stamp, data_dir, db_url)."""
    stamp = time.strftime("%Y%m%d%H%M%S")
    data_dir = os.path.join(WORK, f"{label}{kind}-{stamp}")
    os.makedirs(data_dir, exist_ok=True)
    if kind == "sqlite":
        return stamp, data_dir, f"sqlite://{data_dir}/app.db?mode=rwc"
    name = f"bench_{label.replace('-', '_')}{stamp}"
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c",
                    f'CREATE DATABASE "{name}"'], check=True)
    return stamp, data_dir, f"postgres://postgres@127.0.0.1:5432/{name}"


def drop_database(db_url):
    if db_url.startswith("postgres"):
        name = db_url.rsplit("/", 1)[1]
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c",
                        f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'])


def bench_db(kind, args):
    stamp, data_dir, db_url = fresh_database(kind, "")
    port = free_port()
    env = env_for(db_url, data_dir, port)
    base = f"http://127.0.0.1:{port}"
    fixtures = os.path.join(data_dir, "fixtures.json")
    print(f"[bench:{kind}] seeding {args.campaigns} campaigns, {args.users} users", flush=True)
    t = time.monotonic()
    subprocess.run([BIN, "bench-seed", "--campaigns", str(args.campaigns), "--users",
                    str(args.users), "--sessions", str(args.sessions), "--clicks",
                    str(args.clicks), "--surveys", str(args.surveys), "--respondents",
                    str(args.respondents), "--out", fixtures], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    seed_seconds = time.monotonic() - t
    fx = json.load(open(fixtures))
    server = subprocess.Popen([BIN, "serve"], env=env, stdout=subprocess.DEVNULL)
    ceiling_port = free_port()
    ceiling = subprocess.Popen([BIN, "bench-ceiling"], env=env_for(db_url, data_dir, ceiling_port),
                               stdout=subprocess.DEVNULL)
    rows = []
    drain = {}
    try:
        cold = wait_ready(base, server)
        # The restart row: memory at ready, and the first offer list the moment /readyz said
        # 200 (what a user routed to a new process first waits).
        rss_ready = rss_peak_mb(server.pid)
        t = time.monotonic()
        status, headers, body = http("GET", f"{base}/sdk/v2/ad-slots/{fx['offerwallSlotId']}/offers?limit=20&country=US",
                                     {"Authorization": "Bearer " + fx["sessionTokens"][0]})
        first_list_ms = (time.monotonic() - t) * 1000
        print(f"[bench:{kind}] ready in {cold*1000:.0f} ms at {rss_ready:.0f} MB; first offer list "
              f"{first_list_ms:.1f} ms", flush=True)
        wait_ready(f"http://127.0.0.1:{ceiling_port}", ceiling, path="/hello")
        cookie = sign_in(base)
        # Learn the answer sizes.
        sizes = {}
        sizes["SDK offer list (20 items)"] = len(body)
        status, headers, body = http("GET", f"{base}/publisher/v2/ad-slots/{fx['staticSlotId']}/static-offers?country=US",
                                     {"X-Service-Static-Key": fx["staticKey"]})
        assert status == 200, (status, body[:200])
        sizes["Static feed 200"] = len(body)
        etag = headers.get("ETag") or headers.get("etag")
        items = json.loads(body)["items"]
        print(f"[bench:{kind}] cold start {cold*1000:.0f} ms; feed has {len(items)} items", flush=True)
        status, _, body = http("GET", f"{base}/sdk/v2/offers/{fx['webCampaignIds'][0]}",
                               {"Authorization": "Bearer " + fx["sessionTokens"][0]})
        sizes["SDK single offer"] = len(body)
        status, _, body = http("GET", f"{base}/publisher", {"Cookie": cookie, "Accept": "text/html"})
        sizes["Dashboard page (/publisher)"] = len(body)
        if fx.get("surveyKeys"):
            placement, key = fx["surveyKeys"][0]
            status, _, body = http("POST", f"{base}/getallsurveys-api",
                                   {"X-Service-Api-Key": key, "Content-Type": "application/json"},
                                   json.dumps({"UserId": "survey-user-0", "AppId": placement,
                                               "IpAddress": "11.0.0.9", "City": "Springfield",
                                               "CountryLanguageCode": fx["surveyLocales"][0],
                                               "Gender": "F", "DateOfBirth": "1960-05-05"}).encode())
            assert status == 200, (status, body[:300])
            sizes["Survey fetch (new respondent)"] = sizes["Survey fetch (known respondent)"] = len(body)
            print(f"[bench:{kind}] survey fetch answers {len(json.loads(body)['Data'])} surveys", flush=True)
        sizes["SDK impression"] = 200
        sizes["SDK launch"] = 400
        sizes["Custom S2S postback (durable)"] = 90
        launch_urls = fresh_launches(base, fx, 500)
        signed = signed_postbacks(fx, args.postbacks)
        ceil = f"http://127.0.0.1:{ceiling_port}"
        hello = run_wrk(ceil + "/hello", "function make(n) return wrk.format('GET', '/hello') end",
                        args.duration, args.connections, args.threads)
        rows.append(("Ceiling: hello-world JSON", hello, None, None, 26))
        for name, lua, kind_of in scenarios(fx, base, cookie, launch_urls, etag, signed):
            if args.only and not any(o.lower() in name.lower() for o in args.only):
                continue
            r = run_wrk(base, lua, args.duration, args.connections, args.threads)
            if name.startswith("Custom S2S"):
                # New transactions for the second run too (a resent one is a cheap retry).
                lua = signed_postbacks(fx, args.postbacks)
            half = run_wrk(base, lua, max(2, args.duration // 2), 2, 1)
            if kind_of == "body":
                n = sizes.get(name, 100)
                c = run_wrk(ceil, f"function make(n) return wrk.format('GET', '/body/{n}') end",
                            max(2, args.duration // 2), args.connections, args.threads)
            elif kind_of == "hello":
                n = 0
                c = run_wrk(ceil + "/hello", "function make(n) return wrk.format('GET', '/hello') end",
                            max(2, args.duration // 2), args.connections, args.threads)
            elif kind_of == "redirect":
                n = 0
                c = run_wrk(ceil, "function make(n) return wrk.format('GET', '/redirect') end",
                            max(2, args.duration // 2), args.connections, args.threads)
            else:
                n = 0
                c = run_wrk(ceil, "function make(n) return wrk.format('GET', '/not-modified') end",
                            max(2, args.duration // 2), args.connections, args.threads)
            r["rss"] = rss_now_mb(server.pid)
            print(f"[bench:{kind}] {name}: {r['rps']:.0f} req/s p50 {r['p50']:.2f} ms p99 "
                  f"{r['p99']:.2f} ms (ceiling {c['rps']:.0f}, errors {r['errors']}); 2 connections: "
                  f"{half['rps']:.0f} req/s p99 {half['p99']:.2f} ms", flush=True)
            rows.append((name, r, c, half, n))
            if name.startswith("Custom S2S"):
                drain[kind] = wait_settled(base, r["requests"] + half["requests"])
        # Last, a minute after the offer list's own rows, so its sessions' read limits
        # have refilled.
        churn = None
        if not args.only or any(o.lower() in "rebuilds" for o in args.only):
            churn = rebuilds_under_load(base, fx, args)
        peak = rss_peak_mb(server.pid)
    finally:
        for p in (server, ceiling):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        if not args.keep:
            drop_database(db_url)
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    return {"kind": kind, "rows": rows, "peak": peak, "cold": cold, "seed": seed_seconds,
            "rss_ready": rss_ready, "first_list_ms": first_list_ms, "churn": churn,
            "hello": hello["rps"], "drain": drain.get(kind)}


def metric(base, name):
    _, _, body = http("GET", f"{base}/metrics")
    m = re.search(rb"^" + name.encode() + rb" (\S+)$", body, re.M)
    return float(m.group(1)) if m else 0.0


def rebuilds_under_load(base, fx, args):
    """The offer list under full load while an advertiser pauses and resumes a campaign
    twice a second, so the inventory is rebuilt beside the requests all along (issue 30:
    no request waits for a rebuild). Returns the wrk figures and how many snapshots were
    swapped in meanwhile. Every session token takes part (both halves the offer list and
    the single offer used more than a minute before), so the per-session read limit is not
    what is measured."""
    slot = fx["offerwallSlotId"]
    lua = lua_list("tokens", fx["sessionTokens"]) + lua_list("cc", ["US", "GB", "DE", "FR"]) + f"""
function make(n)
  return wrk.format("GET", "/sdk/v2/ad-slots/{slot}/offers?limit=20&country=" .. cc[n % #cc + 1],
    {{["Authorization"] = "Bearer " .. tokens[n % #tokens + 1]}})
end
"""
    _, _, body = http("POST", f"{base}/auth/v1/tokens", {"Content-Type": "application/json"},
                      json.dumps({"email": "advertiser@demo.test",
                                  "password": "demo-password-2026"}).encode())
    token = json.loads(body)["token"]
    campaign = fx["webCampaignIds"][-1]
    stop = threading.Event()
    changes = [0, 0]

    def churn():
        to = "PAUSED"
        while not stop.is_set():
            status, _, _ = http("POST", f"{base}/performance-marketing/v2/campaigns/{campaign}/transition",
                                {"Authorization": "Bearer " + token, "Content-Type": "application/json"},
                                json.dumps({"to": to}).encode())
            changes[0 if status == 200 else 1] += 1
            to = "LIVE" if to == "PAUSED" else "PAUSED"
            stop.wait(0.5)

    before = metric(base, "inventory_snapshot_version")
    worker = threading.Thread(target=churn)
    worker.start()
    try:
        r = run_wrk(base, lua, args.duration, args.connections, args.threads)
    finally:
        stop.set()
        worker.join()
    r["swaps"] = int(metric(base, "inventory_snapshot_version") - before)
    r["changes"], r["refused"] = changes
    print(f"[bench] offer list during rebuilds: {r['rps']:.0f} req/s p50 {r['p50']:.2f} ms p99 "
          f"{r['p99']:.2f} ms; {r['changes']} changes ({r['refused']} refused), {r['swaps']} "
          "snapshots swapped in", flush=True)
    return r


def queued_reports(base):
    _, _, body = http("GET", f"{base}/metrics")
    m = re.search(rb"^postback_inbox_queued (\S+)$", body, re.M)
    return int(float(m.group(1))) if m else 0


def wait_settled(base, accepted):
    """Waits until the settler has settled every report queued during the postback phase;
    returns what it took, so the table shows settlement as well as acceptance."""
    t = time.monotonic()
    left = queued_reports(base)
    at_end = left
    while left > 0 and time.monotonic() - t < 600:
        time.sleep(0.5)
        left = queued_reports(base)
    seconds = time.monotonic() - t
    print(f"[bench] postbacks: {accepted} accepted, {at_end} still queued when the load ended, "
          f"settled {seconds:.1f} s later", flush=True)
    return {"accepted": accepted, "queued": at_end, "seconds": seconds, "left": left}


def table(result, args):
    lines = [f"### {'SQLite' if result['kind'] == 'sqlite' else 'PostgreSQL'}", "",
             f"{args.campaigns:,} live offer campaigns, {args.users:,} users with history; "
             f"wrk {args.threads} threads, {args.connections} connections, {args.duration} s per "
             f"route. Restart: ready (`/readyz` 200, inventory built) {result['cold']*1000:.0f} ms after "
             f"the process started, at {result['rss_ready']:.0f} MB resident; the first offer list right "
             f"then took {result['first_list_ms']:.1f} ms. Peak resident memory "
             f"of the service over the whole run: {result['peak']:.0f} MB. Seeding took "
             f"{result['seed']:.0f} s." + drain_sentence(result.get("drain"), args)
             + churn_sentence(result.get("churn")), "",
             "| Route | Answer bytes | req/s | p50 ms | p99 ms | non-2xx/3xx | RSS MB after | Ceiling req/s (same bytes) | Share of ceiling | Share of hello-world | 2 connections: req/s | p99 ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    hello = result["hello"]
    for name, r, c, half, n in result["rows"]:
        if c is None:
            lines.append(f"| {name} | {n} | {r['rps']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} | 0 | | | | 100 % | | |")
            continue
        lines.append(
            f"| {name} | {n or '—'} | {r['rps']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['errors']} | "
            f"{r.get('rss', 0):.0f} | {c['rps']:,.0f} | {100*r['rps']/c['rps']:.1f} % | "
            f"{100*r['rps']/hello:.1f} % | {half['rps']:,.0f} | {half['p99']:.2f} |")
    return "\n".join(lines) + "\n"


def drain_sentence(d, args):
    if not d:
        return ""
    span = args.duration + max(2, args.duration // 2) + d["seconds"]
    return (f" Postbacks: {d['accepted']:,} accepted; {d['queued']:,} were still queued for the "
            f"settler when the load ended and all were settled {d['seconds']:.1f} s later "
            f"({d['accepted'] / span:,.0f} settled per second over the whole phase)"
            + (f", {d['left']:,} left unsettled" if d["left"] else "") + ".")


def churn_sentence(c):
    if not c:
        return ""
    refused = f", {c['refused']} refused" if c["refused"] else ""
    return (f" During rebuilds (a campaign paused and resumed twice a second, {c['changes']} changes"
            f"{refused}, {c['swaps']} snapshots swapped in) the offer list answered "
            f"{c['rps']:,.0f} req/s, p50 {c['p50']:.2f} ms, p99 {c['p99']:.2f} ms, "
            f"{c['errors']} non-2xx/3xx.")


def write_markdown(results, args):
    path = os.path.join(ROOT, "BENCHMARKS.md")
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n"
    begin, end = "<!-- bench:begin -->", "<!-- bench:end -->"
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body = (f"{begin}\n## Latest run ({stamp}, `scripts/bench.py`)\n\n"
            + "\n".join(table(r, args) for r in results) + f"{end}")
    if begin in text and end in text:
        text = text[:text.index(begin)] + body + text[text.index(end) + len(end):]
    else:
        text = text.rstrip() + "\n\n" + body + "\n"
    open(path, "w").write(text)
    print(f"[bench] wrote {path}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", choices=["sqlite", "postgres", "both"], default="both")
    ap.add_argument("--campaigns", type=int, default=10_000)
    ap.add_argument("--users", type=int, default=100_000)
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--clicks", type=int, default=2_000)
    ap.add_argument("--postbacks", type=int, default=80_000)
    ap.add_argument("--surveys", type=int, default=1_000)
    ap.add_argument("--respondents", type=int, default=100_000)
    ap.add_argument("--duration", type=int, default=10)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", action="append", help="measure only routes whose name contains this")
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the seeded databases")
    ap.add_argument("--no-write", action="store_true", help="print, do not touch BENCHMARKS.md")
    args = ap.parse_args()
    if not shutil.which("wrk"):
        raise SystemExit("wrk is missing: apt-get install wrk")
    os.makedirs(WORK, exist_ok=True)
    if not args.skip_build and not os.environ.get("BENCH_SERVER_BIN"):
        subprocess.run(["cargo", "build", "--release", "-p", "server", "--features", "bench"], cwd=ROOT, check=True)
    kinds = ["sqlite", "postgres"] if args.db == "both" else [args.db]
    results = [bench_db(k, args) for k in kinds]
    for r in results:
        print(table(r, args))
    if not args.no_write:
        write_markdown(results, args)


if __name__ == "__main__":
    sys.exit(main())
