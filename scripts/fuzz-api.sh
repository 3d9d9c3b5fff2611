#!/usr/bin/env bash
# Schema-driven fuzzing of the JSON API: no input may make the server answer 5xx.
#
#   scripts/fuzz-api.sh [path/to/server-binary]    (default ${CARGO_TARGET_DIR:-target}/debug/server)
#
# For SQLite and then PostgreSQL: a fresh database seeded with `server demo`, `server serve` on a
# free port, one bearer token each for the demo administrator, publisher and advertiser, then one
# schemathesis run per token against /openapi.json with the single check `not_a_server_error`.
# Exits non-zero when any run found a server error (or could not run); the server log of a failed
# backend is kept in its temp dir and its tail printed.
#
# Environment:
#   FUZZ_SEED          seed for every run (default: a random one, printed; rerun with it to replay)
#   FUZZ_EXAMPLES      examples per operation in the fuzzing phase (default 10)
#   FUZZ_BACKENDS      backends to run (default "sqlite postgres")
#   FUZZ_ROLES         roles to run (default "admin publisher advertiser")
#   FUZZ_RUN_TIMEOUT   hard limit in seconds for one schemathesis run (default 120)
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
RUN_TIMEOUT=${FUZZ_RUN_TIMEOUT:-120}

command -v schemathesis >/dev/null || { lib_log "schemathesis is not installed (scripts/setup.sh --test installs it)"; exit 2; }
lib_server_init "$BIN"
lib_log "seed $SEED, $EXAMPLES examples per operation (rerun with: FUZZ_SEED=$SEED FUZZ_EXAMPLES=$EXAMPLES scripts/fuzz-api.sh)"

# Phases: `examples` (the document's own examples; it has none today, so this is a no-op),
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

# Exclusions, each with its reason:
# - DELETE /auth/v1/tokens/current revokes the bearer token the run is using; every later
#   request of the run would be a 401 and test nothing past authentication.
#   (That path has no other method.)
EXCLUDES=(--exclude-path /auth/v1/tokens/current)

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

fuzz_one() {
  # $1 backend, $2 role, $3 token; returns non-zero when the run failed.
  local backend=$1 role=$2 token=$3 report rc=0 log_start
  report=$SRV_DIR/schemathesis-$role.json
  log_start=$(wc -l <"$SRV_LOG")
  lib_log "$backend/$role: schemathesis (seed $SEED)"
  # --request-timeout: a request the server does not answer within 30 s counts as an error,
  #   not as a hung run. --generation-database none: no example database left behind in .hypothesis.
  # timeout: a hard stop for the whole run (SIGINT first so schemathesis still writes its report).
  # Run from the temp dir: schemathesis and Hypothesis leave caches (.schemathesis, .hypothesis)
  # in the working directory.
  (cd "$SRV_DIR" && timeout --signal=INT --kill-after=15 "$RUN_TIMEOUT" \
    schemathesis --config-file "$SRV_DIR/schemathesis.toml" run "$SRV_URL/openapi.json" \
      --checks not_a_server_error \
      --phases "$PHASES" \
      --seed "$SEED" \
      --max-examples "$EXAMPLES" \
      --workers 2 \
      --request-timeout 30 \
      --generation-database none \
      --suppress-health-check all \
      --no-color \
      "${EXCLUDES[@]}" \
      -H "Authorization: Bearer $token" \
      --report json --report-json-path "$report") \
    || rc=$?
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
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 130 ]; then outcome="timed out after ${RUN_TIMEOUT}s"; rc=1
  elif [ "$rc" -ne 0 ]; then outcome="FAILED (exit $rc, $failures failing cases)"; fi
  if [ -n "$logged" ]; then
    lib_log "$backend/$role: the server logged 5xx answers or panics during this run:"
    printf '%s\n' "$logged" >&2
    [ "$rc" -ne 0 ] || { outcome="FAILED (5xx in the server log)"; rc=1; }
  fi
  summary_lines+=("$(printf '%-9s %-11s seed %-11s %6s cases  %s' "$backend" "$role" "$SEED" "$cases" "$outcome")")
  return "$rc"
}

for backend in $BACKENDS; do
  backend_status=0
  if ! lib_server_up "$backend"; then
    summary_lines+=("$(printf '%-9s %-11s could not start the server' "$backend" -)")
    overall=1
    lib_server_down 1
    continue
  fi
  # Sign-in is rate limited per e-mail and address: one token per account, taken up front.
  declare -A TOKEN=()
  for role in $ROLES; do
    if ! TOKEN[$role]=$(lib_server_sign_in "${DEMO_EMAIL[$role]}"); then
      lib_log "$backend: sign-in as ${DEMO_EMAIL[$role]} failed"
      backend_status=1
    fi
  done
  if [ "$backend_status" -eq 0 ]; then
    ids=$(write_id_config "$SRV_DIR/schemathesis.toml" "${TOKEN[@]}") \
      || { lib_log "$backend: could not collect the demo identifiers"; backend_status=1; }
    lib_log "$backend: demo identifiers for path parameters: $ids"
  fi
  if [ "$backend_status" -eq 0 ]; then
    for role in $ROLES; do
      fuzz_one "$backend" "$role" "${TOKEN[$role]}" || backend_status=1
      if ! kill -0 "$SRV_PID" 2>/dev/null; then
        lib_log "$backend: the server process died"; backend_status=1; break
      fi
    done
  fi
  if [ "$backend_status" -ne 0 ]; then
    overall=1
    lib_server_log_tail 80
  fi
  lib_server_down "$backend_status"
done

lib_log "summary (seed $SEED):"
printf '  %s\n' "${summary_lines[@]}" >&2
if [ "$overall" -ne 0 ]; then
  lib_log "FAILED: see the schemathesis output above (each failure has a curl reproduction) and the server log tail"
  exit 1
fi
lib_log "no server errors"
