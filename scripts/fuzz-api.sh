#!/usr/bin/env bash
# Schema-driven fuzzing of the JSON API: no input may make the server answer 5xx, every answer
# must be documented, and the money the fuzzing moved must leave the ledger whole.
#
#   scripts/fuzz-api.sh [path/to/server-binary]    (default ${CARGO_TARGET_DIR:-target}/debug/server)
#
# For SQLite and then PostgreSQL: a fresh database seeded with `server demo`, `server serve` on a
# free port (trusting 127.0.0.1 as a proxy, so requests can name their client address), one
# bearer token each for the demo administrator, publisher and advertiser, then schemathesis
# against /openapi.json with the checks `not_a_server_error`, `not_rate_limited` and the three
# conformance checks (the answer's status, content type and body are the documented ones):
# - first the `integrations` run: the SDK, the survey API, the static feed, survey fetch and the
#   Custom S2S postbacks, each signed in with its own credentials (scripts/fuzz_setup.py issues
#   them through the API; scripts/fuzz_hooks.py applies them per request, signs, and paces every
#   request below the server's limits). It comes first because the dashboard runs fuzz the
#   routes that revoke those credentials (app key, static key, survey API key, S2S rotation);
# - then one run per dashboard role with its bearer token, on every other route.
# Every answer is recorded (scripts/fuzz_hooks.py); the per-surface counts go to FUZZ_SUMMARY
# (backend, surface or role, cases, 2xx, 3xx, 401, other 4xx, 429, 5xx) and are printed.
# Exits non-zero when any run found a server error, could not run, ran no case, or got a 429
# (the pacing failed), or when an integration surface got no case, only 401/429 answers, or
# (SDK, survey API, static feed) no 2xx. The server log of a failed backend is kept in its
# temp dir and its tail printed. Afterwards the integrations run's postbacks on real clicks
# must have settled conversions, and `server ledger-check` must find the ledger whole.
#
# Environment:
#   FUZZ_SEED          seed for every run (default: a random one, printed; rerun with it to replay)
#   FUZZ_EXAMPLES      examples per operation in the fuzzing phase (default 10)
#   FUZZ_BACKENDS      backends to run (default "sqlite postgres")
#   FUZZ_ROLES         dashboard roles to run (default "admin publisher advertiser")
#   FUZZ_INTEGRATIONS  1 (default) runs the integrations run first on each backend, 0 skips it
#   FUZZ_RUN_TIMEOUT   hard limit in seconds for one role run (default 120)
#   FUZZ_INTEGRATION_TIMEOUT  hard limit in seconds for the integrations run (default 240)
#   FUZZ_SUMMARY       summary file (default target/fuzz-summary.tsv, rewritten by each call)
#   TEST_POSTGRES_URL  PostgreSQL maintenance URL (default postgres://postgres@127.0.0.1:5432/postgres)
set -euo pipefail
cd "$(dirname "$0")/.."
LIB_TAG=fuzz
# shellcheck source=scripts/lib-server.sh
. scripts/lib-server.sh

BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/server}
SEED=${FUZZ_SEED:-$(python3 -c 'import secrets; print(secrets.randbelow(2**31))')}
EXAMPLES=${FUZZ_EXAMPLES:-10}
BACKENDS=${FUZZ_BACKENDS:-sqlite postgres}
ROLES=${FUZZ_ROLES:-admin publisher advertiser}
INTEGRATIONS=${FUZZ_INTEGRATIONS:-1}
RUN_TIMEOUT=${FUZZ_RUN_TIMEOUT:-120}
INTEGRATION_TIMEOUT=${FUZZ_INTEGRATION_TIMEOUT:-240}
SUMMARY=${FUZZ_SUMMARY:-target/fuzz-summary.tsv}
# Every answer must be documented (status, content type, body schema), not only "no 5xx";
# FUZZ_CHECKS overrides the list.
CHECKS=not_a_server_error,not_rate_limited,status_code_conformance,content_type_conformance,response_schema_conformance
# The hooks (credentials, pacing, statistics) are imported by schemathesis from scripts/.
HOOKS_DIR=$PWD/scripts
LIB_TRUSTED_PROXIES=127.0.0.1
mkdir -p "$(dirname "$SUMMARY")"
printf 'backend\tsurface\tcases\t2xx\t3xx\t401\t4xx\t429\t5xx\n' >"$SUMMARY"

command -v schemathesis >/dev/null || { lib_log "schemathesis is not installed (scripts/setup.sh --test installs it)"; exit 2; }
INTEGRATION_PATHS=$(python3 scripts/fuzz_hooks.py)
lib_server_init "$BIN"
lib_log "seed $SEED, $EXAMPLES examples per operation (rerun with: FUZZ_SEED=$SEED FUZZ_EXAMPLES=$EXAMPLES scripts/fuzz-api.sh)"

# Phases: `examples` (the document's own examples, recorded from the integration tests: their
# ids and tokens belong to another database, so they mostly reach the refusals),
# `coverage` (deterministic boundary and type-violating values for every parameter and body
# property, about 4,000 cases per role: the cheapest way to reach the error paths that turn into
# 500s), `fuzzing` (random valid and invalid inputs, --max-examples per operation) and `stateful`
# (chains of calls along the links schemathesis infers, e.g. POST /placements, then its
# placementId into the placement's other operations). Stateful was measured rather than assumed
# slow: --max-examples bounds its scenarios, so it adds a few seconds per role here (without
# --max-time, which would make fuzzing and stateful repeat until the time is spent). It only
# gets far once creations succeed with documented values, but then it is the phase that reaches
# state-dependent code, so it stays in.
PHASES=examples,coverage,fuzzing,stateful

# Exclusions of the role runs, each with its reason:
# - DELETE /auth/v1/tokens/current revokes the bearer token the run is using; every later
#   request of the run would be a 401 and test nothing past authentication.
#   (That path has no other method.)
# - the integration surfaces (INTEGRATION_PATHS): a dashboard bearer gets nothing but 401 there;
#   the integrations run fuzzes them with their own credentials.
# - POST /auth/v1/second-factor/enrolment and /disable check the account's password first,
#   within the per-account password limit (10, then one every 30 s): the fuzzer never knows
#   the password, so nearly every case would spend that limit and the run would end in 429s
#   or in pacing longer than its time limit. tests/integration/second_factor.rs covers both.
# - POST /auth/v1/email checks the password the same way (tests/integration/email.rs), and
#   POST /auth/v1/email/verification sends a letter within a per-address limit of three, then
#   one every ten minutes: the run would end in 429s. tests/integration/email.rs covers both.
EXCLUDES=(--exclude-path /auth/v1/tokens/current --exclude-path /auth/v1/second-factor/enrolment --exclude-path /auth/v1/second-factor/disable --exclude-path /auth/v1/email --exclude-path /auth/v1/email/verification)

overall=0
summary_lines=()

# Identifiers of the demo data: every GET without path parameters is read once per role token,
# then every GET whose path parameters that revealed (a placement's detail lists its ad slots),
# and the string values of response keys named like a path parameter (placementId, adSlotId,
# campaignId, …) are collected into a schemathesis config. In the fuzzing phase half of the
# generated path parameters are then replaced by these real identifiers, so the operations on a
# placement, slot or campaign get past the 404 and into their validation and state rules; the
# other half (and the coverage phase) keep the generated values. The identifiers differ from one
# fresh database to the next, so a replay with the same seed sends the same cases with the
# identifiers of its own demo data.
write_id_config() {
  # $1 output file, then the tokens; prints a short description of what was found.
  python3 - "$SRV_URL" "$@" <<'PY'
import json, re, sys, urllib.request

url, out, tokens = sys.argv[1], sys.argv[2], sys.argv[3:]
doc = json.load(urllib.request.urlopen(f"{url}/openapi.json"))
names = set()
for path, item in doc["paths"].items():
    names.update(re.findall(r"{([^}]+)}", path))
found = {n: [] for n in names}

def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in found and isinstance(x, str) and x not in found[k] and len(found[k]) < 20:
                found[k].append(x)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)

def read(path):
    for token in tokens:
        req = urllib.request.Request(f"{url}{path}", headers={"Authorization": f"Bearer {token}"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                if "json" in r.headers.get("Content-Type", ""):
                    walk(json.load(r))
        except Exception:
            pass  # 4xx for the other roles, non-JSON answers: nothing to learn

gets = [p for p, item in doc["paths"].items() if "get" in item]
# First the lists (no path parameter), then the details whose parameters the lists revealed
# (a placement's ad slots, for instance), each once.
for path in gets:
    if "{" not in path:
        read(path)
for path in gets:
    params = re.findall(r"{([^}]+)}", path)
    if params and all(found[p] for p in params):
        read(re.sub(r"{([^}]+)}", lambda m: found[m.group(1)][0], path))

found = {k: v for k, v in sorted(found.items()) if v}
with open(out, "w") as f:
    f.write("# Generated by scripts/fuzz-api.sh: identifiers of the demo data.\n")
    for k, values in found.items():
        f.write(f"[dictionaries.{k}]\nvalues = {json.dumps(values)}\n")
    f.write("[parameters]\n")
    for k in found:
        f.write(f'"path.{k}" = {{ dictionary = "{k}", probability = 0.5 }}\n')
print(", ".join(f"{k} ({len(v)})" for k, v in found.items()) or "none")
PY
}

# Lines of the server log after line $1 that belong to a request answered with a 5xx or to a
# panic (every line of such a request, found by its request id), ANSI colours removed.
server_errors_since() {
  tail -n "+$(($1 + 1))" "$SRV_LOG" | python3 -c '
import re, sys
lines = [re.sub(r"\x1b\[[0-9;]*m", "", l.rstrip("\n")) for l in sys.stdin]
bad = re.compile(r"Status code: 5[0-9][0-9]|panicked")
rid = re.compile(r"\bid=([0-9a-f-]{36})")
ids, loose = [], []
for l in lines:
    if bad.search(l):
        m = rid.search(l)
        if m and m.group(1) not in ids:
            ids.append(m.group(1))
        elif not m:
            loose.append(l)
for i in ids[:10]:
    print("\n".join(l for l in lines if i in l))
if len(ids) > 10:
    print(f"... and {len(ids) - 10} more requests")
print("\n".join(loose[:20]), end="")
'
}

# Counts the answers a run recorded (scripts/fuzz_hooks.py: run, surface, operation, status per
# line), appends them to the summary (one line per integration surface, one per role run) and
# prints why the run fails, if it does: no case at all, a 429, or for the integrations run a
# surface with no case, only 401/429 answers, or (SDK, survey API, static feed) no 2xx.
summarize_run() {
  # $1 stats file, $2 backend, $3 run
  python3 - "$1" "$2" "$3" "$SUMMARY" <<'PY'
import collections, sys

stats, backend, run, summary = sys.argv[1:5]
SURFACES = ["sdk", "survey-api", "static-feed", "survey-fetch", "custom-s2s"]
MUST_SUCCEED = {"sdk", "survey-api", "static-feed"}
counts = collections.defaultdict(collections.Counter)
try:
    with open(stats) as f:
        for line in f:
            _run, surface, _op, status = line.rstrip("\n").split("\t")
            key = surface if run == "integrations" else run
            s = int(status)
            c = counts[key]
            c["cases"] += 1
            if s == 401 or s == 429:
                c[str(s)] += 1
            else:
                c[f"{s // 100}xx"] += 1
except FileNotFoundError:
    pass
rows = SURFACES if run == "integrations" else [run]
problems = []
with open(summary, "a") as out:
    for key in rows:
        c = counts[key]
        out.write("\t".join([backend, key] + [str(c[k]) for k in
                  ("cases", "2xx", "3xx", "401", "4xx", "429", "5xx")]) + "\n")
        if run != "integrations":
            continue
        if c["cases"] == 0:
            problems.append(f"{key}: no case")
        elif c["401"] + c["429"] == c["cases"]:
            problems.append(f"{key}: only 401/429 answers, nothing got past authentication")
        elif key in MUST_SUCCEED and c["2xx"] == 0:
            problems.append(f"{key}: no 2xx answer")
total = sum(c["cases"] for c in counts.values())
limited = sum(c["429"] for c in counts.values())
if total == 0:
    problems.insert(0, "ran no case")
if limited:
    problems.append(f"{limited} answers were 429: the pacing failed")
print("; ".join(problems))
PY
}

fuzz_one() {
  # $1 backend, $2 run (integrations or a role), $3 timeout, then extra schemathesis arguments;
  # returns non-zero when the run failed.
  local backend=$1 run=$2 timeout_s=$3 report stats rc=0 log_start
  shift 3
  report=$SRV_DIR/schemathesis-$run.json
  stats=$SRV_DIR/stats-$run.tsv
  log_start=$(wc -l <"$SRV_LOG")
  lib_log "$backend/$run: schemathesis (seed $SEED)"
  # --request-timeout: a request the server does not answer within 30 s counts as an error,
  #   not as a hung run. --generation-database none: no example database left behind in .hypothesis.
  # timeout: a hard stop for the whole run (SIGINT first so schemathesis still writes its report).
  # Run from the temp dir: schemathesis and Hypothesis leave caches (.schemathesis, .hypothesis)
  # in the working directory.
  # The integrations run signs in with the credentials scripts/fuzz_setup.py wrote.
  # schemathesis itself crashed once in CI (Python segfault, exit 139, after its phases had
  # passed and with no 5xx logged): a run the fuzzer did not finish is run once more, same seed.
  local attempt
  for attempt in 1 2; do
    rc=0
    (cd "$SRV_DIR" && if [ "$run" = integrations ]; then export FUZZ_CREDENTIALS=$SRV_DIR/credentials.json; fi \
      && PYTHONPATH="$HOOKS_DIR${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=fuzz_hooks \
      FUZZ_RUN=$run FUZZ_STATS=$stats FUZZ_SEED=$SEED FUZZ_BASE_URL=$SRV_URL \
      timeout --signal=INT --kill-after=15 "$timeout_s" \
      schemathesis --config-file "$SRV_DIR/schemathesis.toml" run "$SRV_URL/openapi.json" \
        --checks "${FUZZ_CHECKS:-$CHECKS}" \
        --phases "$PHASES" \
        --seed "$SEED" \
        --max-examples "$EXAMPLES" \
        --workers 2 \
        --request-timeout 30 \
        --generation-database none \
        --suppress-health-check all \
        --no-color \
        "$@" \
        --report json --report-json-path "$report") \
      || rc=$?
    if [ "$attempt" -eq 1 ] && { [ "$rc" -eq 139 ] || [ "$rc" -eq 134 ]; }; then
      lib_log "$backend/$run: schemathesis crashed (exit $rc); running it again with the same seed"
      rm -f "$report" "$stats"
      continue
    fi
    break
  done
  local cases failures
  if [ -f "$report" ]; then
    read -r cases failures < <(python3 - "$report" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
tc = d.get("test_cases") or {}
print(tc.get("generated", 0), tc.get("with_failures", 0))
PY
)
  else
    cases=0 failures=?
  fi
  # The server's own view: any 5xx it logged during this run, also for requests schemathesis
  # does not judge (its probes of undocumented paths, for instance).
  local logged
  logged=$(server_errors_since "$log_start")
  local outcome=ok
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 130 ]; then outcome="timed out after ${timeout_s}s"; rc=1
  elif [ "$rc" -ne 0 ]; then outcome="FAILED (exit $rc, $failures failing cases)"; fi
  if [ -n "$logged" ]; then
    lib_log "$backend/$run: the server logged 5xx answers or panics during this run:"
    printf '%s\n' "$logged" >&2
    [ "$rc" -ne 0 ] || { outcome="FAILED (5xx in the server log)"; rc=1; }
  fi
  local problems
  problems=$(summarize_run "$stats" "$backend" "$run")
  if [ -n "$problems" ]; then
    lib_log "$backend/$run: $problems"
    [ "$rc" -ne 0 ] || outcome="FAILED ($problems)"
    rc=1
  fi
  summary_lines+=("$(printf '%-9s %-12s seed %-11s %6s cases  %s' "$backend" "$run" "$SEED" "$cases" "$outcome")")
  return "$rc"
}

# Conversions the fuzzer's postbacks settled (transaction ids `fuzz-tx-…`) in database $1.
fuzz_conversions() {
  python3 - "$1" <<'PY'
import sqlite3, subprocess, sys
url = sys.argv[1]
sql = "SELECT COUNT(*) FROM conversions WHERE transaction_id LIKE 'fuzz-tx-%'"
if url.startswith("sqlite://"):
    print(sqlite3.connect(url[len("sqlite://"):].split("?")[0]).execute(sql).fetchone()[0])
else:
    print(subprocess.run(["psql", url, "-At", "-c", sql], capture_output=True, text=True).stdout.strip() or 0)
PY
}

for backend in $BACKENDS; do
  backend_status=0
  if ! lib_server_up "$backend"; then
    summary_lines+=("$(printf '%-9s %-12s could not start the server' "$backend" -)")
    overall=1
    lib_server_down 1
    continue
  fi
  # Sign-in is rate limited per e-mail and address: one token per account, taken up front
  # (all three: the integrations' credentials are issued with them whatever FUZZ_ROLES says).
  declare -A TOKEN=()
  for role in admin publisher advertiser; do
    if ! TOKEN[$role]=$(lib_server_sign_in "${DEMO_EMAIL[$role]}"); then
      lib_log "$backend: sign-in as ${DEMO_EMAIL[$role]} failed"
      backend_status=1
    fi
  done
  prepared=0
  if [ "$backend_status" -eq 0 ]; then
    if ids=$(write_id_config "$SRV_DIR/schemathesis.toml" "${TOKEN[@]}"); then
      lib_log "$backend: demo identifiers for path parameters: $ids"
      prepared=1
    else
      lib_log "$backend: could not collect the demo identifiers"; backend_status=1
    fi
  fi
  if [ "$prepared" -eq 1 ] && [ "$INTEGRATIONS" = 1 ]; then
    # First, while the integration credentials are valid (the role runs revoke them).
    if issued=$(python3 scripts/fuzz_setup.py "$SRV_URL" "$SRV_DIR/credentials.json" \
        "${TOKEN[admin]}" "${TOKEN[publisher]}" "${TOKEN[advertiser]}"); then
      lib_log "$backend: integration credentials: $issued"
      fuzz_one "$backend" integrations "$INTEGRATION_TIMEOUT" \
        --include-path-regex "$INTEGRATION_PATHS" || backend_status=1
    else
      lib_log "$backend: could not issue the integration credentials"
      summary_lines+=("$(printf '%-9s %-12s could not issue the credentials' "$backend" integrations)")
      backend_status=1
    fi
  fi
  if [ "$prepared" -eq 1 ]; then
    for role in $ROLES; do
      if ! kill -0 "$SRV_PID" 2>/dev/null; then
        lib_log "$backend: the server process died"; backend_status=1; break
      fi
      fuzz_one "$backend" "$role" "$RUN_TIMEOUT" "${EXCLUDES[@]}" \
        --exclude-path-regex "$INTEGRATION_PATHS" \
        -H "Authorization: Bearer ${TOKEN[$role]}" || backend_status=1
    done
    if ! kill -0 "$SRV_PID" 2>/dev/null; then
      lib_log "$backend: the server process died"; backend_status=1
    fi
  fi
  if [ "$prepared" -eq 1 ]; then
    # The money path: the postbacks on real clicks settled conversions (INTEGRATIONS=1), and
    # whatever every run did to money, the ledger still adds up (server ledger-check).
    if [ "$INTEGRATIONS" = 1 ]; then
      paid=$(fuzz_conversions "$APP_DATABASE_URL")
      lib_log "$backend: conversions settled from the fuzzer's postbacks: $paid"
      [ "${paid:-0}" -gt 0 ] || { lib_log "$backend: the fuzzer's postbacks never reached settlement"; backend_status=1; }
    fi
    if ledger=$("$SRV_BIN" ledger-check 2>"$SRV_DIR/ledger-check.log"); then
      lib_log "$backend: $(printf '%s' "$ledger" | tail -n1) after the fuzzing"
    else
      lib_log "$backend: the ledger does not add up after the fuzzing:"
      printf '%s\n' "$ledger" >&2
      tail -n 20 "$SRV_DIR/ledger-check.log" >&2
      backend_status=1
    fi
  fi
  if [ "$backend_status" -ne 0 ]; then
    overall=1
    lib_server_log_tail 80
  fi
  lib_server_down "$backend_status"
done

lib_log "summary (seed $SEED):"
printf '  %s\n' "${summary_lines[@]}" >&2
lib_log "answers per surface and role ($SUMMARY):"
python3 -c '
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  " + "  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
' "$SUMMARY" >&2
if [ "$overall" -ne 0 ]; then
  lib_log "FAILED: see the schemathesis output above (each failure has a curl reproduction) and the server log tail"
  exit 1
fi
lib_log "no server errors"
