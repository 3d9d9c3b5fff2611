"""Schemathesis hooks of the API fuzzer (scripts/fuzz-api.sh loads them with SCHEMATHESIS_HOOKS).

Every run:
- records each answer (run, surface, operation, status) to FUZZ_STATS, one tab-separated line
  per response, for the per-surface summary and the "ran no case" check of fuzz-api.sh;
- sends each request from one of 64 documentation addresses (X-Forwarded-For; the fuzz server
  trusts 127.0.0.1 as a proxy), so the per-address limits (postbacks, static feed, session
  creation, sign-in) are shared out instead of spent by 127.0.0.1.

With FUZZ_CREDENTIALS (the file scripts/fuzz_setup.py wrote), the integration surfaces sign in
with their own credentials, chosen per request by its path:
- SDK (/sdk/v2/...): `Authorization: Bearer` of a pool session; paths naming a session use
  that session's own token; a refreshed or revoked pool session is replaced;
- survey API (/api/v1/campaigns/...): X-Api-Key, and `enc` as the only query parameter, signed
  over `http://{Host}{raw path}` and the body as sent, in turn v1, v2 and the older timestamped
  mode (app/src/domain/surveys/signature.rs); two advertisers' keys in turn, the demo
  advertiser's for paths naming one of its campaigns;
- static feed: X-Service-Static-Key; survey fetch: X-Service-Api-Key;
- Custom S2S postbacks: X-Service-Key-Id, X-Service-Timestamp and the HMAC-SHA256 signature of
  the five fields as sent (query or JSON body). A request the fuzzer generated without one of
  these headers is sent without them (the negative case it is).
A case whose security header was left out on purpose (schemathesis' negative testing) gets no
credentials: schemathesis does not apply the auth then.

Pacing: every request waits for its turn in the bucket of the server's limit it counts against
(SDK reads 120/min and writes 60/min per session, survey API 600/min per key, survey fetch
3,000/min per key, static feed 120/min per slot, key and address, postbacks 120/min per address,
session creation 60/min per placement and address), at 90 % of the limit and without bursts,
so a 429 means the pacing is wrong, never that the server was busy. The custom check
`not_rate_limited` turns any 429 into a failure.

Real values: in the integration run a share of the generated identifiers is replaced by real
ones (the session, slot, offer and campaign of the demo), a share of Idempotency-Keys, session,
launch, survey fetch and postback bodies gets valid values, so cases get past 404 and 400 into
the handlers. FUZZ_SEED seeds these choices (the order of two workers still varies).
"""

import datetime
import hashlib
import hmac
import itertools
import json
import os
import random
import re
import threading
import time
import urllib.parse
import urllib.request

import requests
import schemathesis

SURFACES = [
    ("sdk", re.compile(r"^/sdk/v2/")),
    ("survey-api", re.compile(r"^/api/v1/campaigns/")),
    ("static-feed", re.compile(r"^/publisher/v2/ad-slots/[^/]+/static-offers$")),
    ("survey-fetch", re.compile(r"^/getallsurveys-api$")),
    ("custom-s2s", re.compile(r"^/performance-marketing/v2/postbacks/custom-s2s/")),
]
# The same surfaces as one regular expression (printed when this file is run: fuzz-api.sh
# passes it to --include-path-regex and --exclude-path-regex).
INTEGRATION_PATHS = "|".join(p.pattern for _, p in SURFACES)
OTHER_POSTBACKS = re.compile(r"^/performance-marketing/v2/(postbacks|pixels)/")
SIGN_IN = re.compile(r"^/auth/v1/(tokens|accounts|invitations/accept)$")
RESETS = re.compile(r"^/auth/v1/(password-resets(/confirm)?|email/confirm)$")

RUN = os.environ.get("FUZZ_RUN", "integrations")
STATS = os.environ.get("FUZZ_STATS")
CREDS_FILE = os.environ.get("FUZZ_CREDENTIALS")
CREDS = json.load(open(CREDS_FILE)) if CREDS_FILE else None
RNG = random.Random(int(os.environ.get("FUZZ_SEED", "0")))
RNG_LOCK = threading.Lock()
HEADROOM = 0.9  # pace at 90 % of each limit


def surface_of(path):
    for name, pattern in SURFACES:
        if pattern.match(path):
            return name
    return RUN  # a dashboard route in a role run


def chance(p):
    with RNG_LOCK:
        return RNG.random() < p


def pick(values):
    with RNG_LOCK:
        return RNG.choice(values)


class Pacer:
    """Evenly spaced turns per bucket (no bursts): waits until the bucket's next turn."""

    def __init__(self):
        self.lock = threading.Lock()
        self.next = {}

    def take(self, key, per_minute):
        interval = 60.0 / (per_minute * HEADROOM)
        with self.lock:
            now = time.monotonic()
            turn = max(self.next.get(key, now), now)
            self.next[key] = turn + interval
        if turn > now:
            time.sleep(turn - now)


PACER = Pacer()
# 64 documentation addresses (RFC 5737) for the fuzzed requests; fuzz_setup.py created the
# pool sessions from 203.0.113.200-249, so the session-creation buckets start fresh here.
ADDRESSES = [f"198.51.100.{i}" for i in range(1, 33)] + [f"192.0.2.{i}" for i in range(1, 33)]
_address_turn = itertools.count()
_create_turn = itertools.count()
_turn = itertools.count()  # unique user, click and transaction ids


def next_address():
    return ADDRESSES[next(_address_turn) % len(ADDRESSES)]


# Per-address limits by surface (requests a minute); the others are keyed by credential.
PER_ADDRESS = {"static-feed": 120, "custom-s2s": 120}


class SessionPool:
    """The SDK sessions: a round-robin pool plus every session token seen in the run."""

    def __init__(self, sessions):
        self.lock = threading.Lock()
        self.pool = list(sessions)
        self.tokens = {s["sessionId"]: s["token"] for s in sessions}
        self.turn = itertools.count()

    def next(self):
        with self.lock:
            return self.pool[next(self.turn) % len(self.pool)]

    def token_for(self, session_id):
        with self.lock:
            return self.tokens.get(session_id)

    def in_pool(self, session_id):
        with self.lock:
            return any(s["sessionId"] == session_id for s in self.pool)

    def learn(self, session):
        with self.lock:
            self.tokens[session["sessionId"]] = session["token"]

    def forget(self, session_id):
        with self.lock:
            self.tokens.pop(session_id, None)

    def replace(self, session_id, new):
        """A session was refreshed (`new` is its replacement) or revoked (`new` was created for
        it); its old token no longer works."""
        with self.lock:
            self.tokens.pop(session_id, None)
            self.tokens[new["sessionId"]] = new["token"]
            self.pool = [new if s["sessionId"] == session_id else s for s in self.pool]


POOL = SessionPool(CREDS["sessions"]) if CREDS else None
IMPRESSIONS = []  # impression ids the run recorded, for launches
_local = threading.local()


def create_session(base_url):
    """A fresh session (a revoked pool session's replacement)."""
    n = next(_create_turn)
    address = f"203.0.113.{n % 50 + 100}"
    PACER.take(("session-create", address), 60)
    body = dict(CREDS["sdkSessionTemplate"], externalUserId=f"fuzz-user-r{n}")
    req = urllib.request.Request(
        base_url.rstrip("/") + "/sdk/v2/sessions", data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json", "X-Forwarded-For": address})
    with urllib.request.urlopen(req, timeout=30) as r:
        s = json.load(r)
    return {"sessionId": s["sessionId"], "token": s["token"]}


def now_rfc3339(offset_seconds=0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- before each request: address, pacing by address, real identifiers --------------------------

@schemathesis.hook
def before_call(context, case, kwargs):
    path = case.operation.path
    surface = surface_of(path)
    _local.documented_method = case.method.upper() == case.operation.method.upper()
    if case.headers is None:
        case.headers = {}
    address = next_address()
    case.headers["X-Forwarded-For"] = address
    if surface in PER_ADDRESS:
        pace((surface, address), PER_ADDRESS[surface])
    elif path == "/sdk/v2/sessions" and case.method.upper() == "POST":
        pace(("session-create", address), 60)
    elif OTHER_POSTBACKS.match(path):
        pace(("custom-s2s", address), 120)  # all postback routes share one limit per address
    elif SIGN_IN.match(path):
        pace(("sign-in", address), 15)  # 30 at once, then one every 2 s, per address
    elif RESETS.match(path):
        # These routes share one limit per address: 20 at once, then one every 30 s. The
        # other limit counts per e-mail asked for (3, then one every 10 minutes): each case
        # asks for an address of its own, valid or not as generated.
        pace(("password-reset", address), 2)
        if isinstance(case.body, dict) and isinstance(case.body.get("email"), str):
            case.body["email"] = f"fuzz{next(_turn)}-{case.body['email']}"
    if CREDS is None:
        return
    params = case.path_parameters if isinstance(case.path_parameters, dict) else {}
    body = case.body if isinstance(case.body, dict) else None
    if surface == "sdk":
        _local.session = POOL.next()
        sid = params.get("sessionId")
        if sid is not None and POOL.token_for(str(sid)) is None and chance(0.85):
            params["sessionId"] = _local.session["sessionId"]
        if "adSlotId" in params and chance(0.7):
            params["adSlotId"] = CREDS["offerwallSlotId"]
        if "offerId" in params and chance(0.6):
            params["offerId"] = CREDS["s2sCampaignId"]
        if "Idempotency-Key" in case.headers and chance(0.5):
            case.headers["Idempotency-Key"] = f"fuzz-idempotency-{next(_turn)}"
        if body is not None and path == "/sdk/v2/sessions" and chance(0.3):
            body.update(CREDS["sdkSessionTemplate"], externalUserId=f"fuzz-user-{next(_turn)}")
        if body is not None and path.endswith("/launch") and IMPRESSIONS and chance(0.5):
            body["impressionId"] = pick(IMPRESSIONS)
    elif surface == "static-feed":
        if chance(0.8):
            params["adSlotId"] = CREDS["staticSlotId"]
    elif surface == "survey-fetch":
        if body is not None:
            if chance(0.7):
                body["AppId"] = CREDS["placementId"]
            if chance(0.4):  # a valid respondent; the other generated fields stay as they are
                body.update(UserId=f"fuzz-respondent-{next(_turn)}", IpAddress="203.0.113.77",
                            City="Austin", CountryLanguageCode="en-US")
    elif surface == "custom-s2s":
        if chance(0.8):
            params["campaignId"] = CREDS["s2sCampaignId"]
        fields = body if body is not None else (case.query if isinstance(case.query, dict) else None)
        if fields is not None and chance(0.6):
            fields["status"] = pick(["pending", "approved", "rejected", "reversed"])
            fields["occurred_at"] = now_rfc3339(-60)
            if chance(0.6):  # all five fields valid: the report reaches the inbox
                # Half of them on a real click: settlement, the ledger and the callbacks run
                # (fuzz-api.sh checks the ledger afterwards).
                click = pick(CREDS["clickIds"]) if CREDS.get("clickIds") and chance(0.5) else f"clk_fuzz{next(_turn)}"
                fields.update(click_id=click, transaction_id=f"fuzz-tx-{next(_turn)}",
                              goal_id=pick(["install", "level10"]))


# --- credentials, on the request as it goes out ----------------------------------------------

def _body_bytes(r):
    if r.body is None:
        return b""
    return r.body.encode() if isinstance(r.body, str) else bytes(r.body)


def pace(key, per_minute):
    """Waits for a turn, unless the request's method is not the operation's: the router
    answers those 405 before any limit is counted."""
    if getattr(_local, "documented_method", True):
        PACER.take(key, per_minute)


class IntegrationAuth(requests.auth.AuthBase):
    _survey_turn = itertools.count()

    def __call__(self, r):
        parts = urllib.parse.urlsplit(r.url)
        path = parts.path
        surface = surface_of(path)
        if surface == "sdk":
            self._sdk(r, path)
        elif surface == "survey-api" and not path.endswith("/test-redirect"):
            self._survey_api(r, parts)
        elif surface == "static-feed":
            r.headers["X-Service-Static-Key"] = CREDS["staticKey"]
        elif surface == "survey-fetch":
            pace(("survey-fetch", CREDS["appKey"]), 3000)
            r.headers["X-Service-Api-Key"] = CREDS["appKey"]
        elif surface == "custom-s2s":
            self._s2s(r, parts)
        return r

    def _sdk(self, r, path):
        session = getattr(_local, "session", None) or POOL.next()
        m = re.match(r"^/sdk/v2/sessions/([^/]+)/", path)
        named = urllib.parse.unquote(m.group(1)) if m else None
        token = POOL.token_for(named) if named else None
        if token is not None:
            session = {"sessionId": named, "token": token}
        # Reads and writes are limited per session: refresh and revoke count against the
        # session in the path, the others against the bearer's.
        bucket = named if named and path.rsplit("/", 1)[-1] in ("refresh", "revoke") else session["sessionId"]
        if r.method.upper() == "GET":
            pace(("sdk-read", bucket), 120)
        else:
            pace(("sdk-write", bucket), 60)
        r.headers["Authorization"] = f"Bearer {session['token']}"

    def _survey_api(self, r, parts):
        # A path naming a demo survey campaign goes with the demo advertiser's key (the other
        # advertiser would get 404); the rest take the keys in turn.
        turn = next(self._survey_turn)
        keys = CREDS["surveyKeys"]
        key = keys[0] if "svc_" in parts.path else keys[turn % len(keys)]
        pace(("survey-api", key["apiKey"]), 600)
        url = f"http://{parts.netloc}{parts.path}"
        body = _body_bytes(r)
        secret = key["secret"]
        mode = turn % 3
        for h in ("X-Signature-Version", "X-Request-Timestamp"):
            r.headers.pop(h, None)
        if mode == 0:  # v1: URL + body + secret
            enc = hashlib.sha256(url.encode() + body + secret.encode()).hexdigest()
        else:
            ts = str(int(time.time()))
            r.headers["X-Request-Timestamp"] = ts
            if mode == 1:  # v2
                r.headers["X-Signature-Version"] = "2"
                signed = f"v2\n{r.method.upper()}\n{url}\n{ts}\n{hashlib.sha256(body).hexdigest()}\n{secret}"
                enc = hashlib.sha256(signed.encode()).hexdigest()
            else:  # the older timestamped mode: URL + body + timestamp + secret
                enc = hashlib.sha256(url.encode() + body + ts.encode() + secret.encode()).hexdigest()
        r.headers["X-Api-Key"] = key["apiKey"]
        # `enc` is the only query parameter.
        r.url = urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, f"enc={enc}", ""))

    def _s2s(self, r, parts):
        names = ("X-Service-Key-Id", "X-Service-Timestamp", "X-Service-Signature")
        if not all(n in r.headers for n in names):
            return  # the fuzzer left a signing header out on purpose
        if r.method.upper() == "GET":
            q = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
            values = {k: v[0] for k, v in q.items()}
        else:
            try:
                values = json.loads(_body_bytes(r) or b"{}")
            except ValueError:
                values = {}
            if not isinstance(values, dict):
                values = {}
        fields = [values.get(k) for k in ("click_id", "transaction_id", "goal_id", "status", "occurred_at")]
        fields = [v if isinstance(v, str) else "" for v in fields]
        ts = str(int(time.time()))
        message = "\n".join([ts, *fields])
        r.headers["X-Service-Key-Id"] = CREDS["s2sKeyId"]
        r.headers["X-Service-Timestamp"] = ts
        r.headers["X-Service-Signature"] = hmac.new(
            CREDS["s2sSecret"].encode(), message.encode(), hashlib.sha256).hexdigest()


if CREDS is not None:
    schemathesis.auth.set_from_requests(IntegrationAuth()).apply_to(path_regex=INTEGRATION_PATHS)


# --- after each response: statistics, session pool upkeep -------------------------------------

_stats_lock = threading.Lock()
_stats_file = open(STATS, "a", buffering=1) if STATS else None


@schemathesis.hook
def after_call(context, case, response):
    path = case.operation.path
    status = response.status_code
    if _stats_file is not None:
        with _stats_lock:
            _stats_file.write(f"{RUN}\t{surface_of(path)}\t{case.method.upper()} {path}\t{status}\n")
    if CREDS is None or not path.startswith("/sdk/v2/"):
        return
    try:
        if path.endswith("/impressions") and 200 <= status < 300:
            impression = response.json().get("impressionId")
            if impression and len(IMPRESSIONS) < 100:
                IMPRESSIONS.append(impression)
        elif path == "/sdk/v2/sessions" and status == 201:
            POOL.learn(response.json())
        elif path.endswith("/refresh") and status == 200:
            new = response.json()
            POOL.replace(str(case.path_parameters["sessionId"]), new)
        elif path.endswith("/revoke") and 200 <= status < 300:
            sid = str(case.path_parameters["sessionId"])
            if POOL.in_pool(sid):
                POOL.replace(sid, create_session(os.environ["FUZZ_BASE_URL"]))
            else:
                POOL.forget(sid)
    except (KeyError, ValueError, AttributeError, OSError):
        pass  # keep fuzzing with the pool as it is


@schemathesis.check
def not_rate_limited(ctx, response, case):
    """A 429 means the fuzzer's pacing failed: the case tested the limiter, not the route."""
    if response.status_code == 429:
        raise AssertionError(f"429 Too Many Requests for {case.method} {case.path}: the fuzzer's pacing failed")


if __name__ == "__main__":
    print(INTEGRATION_PATHS)
