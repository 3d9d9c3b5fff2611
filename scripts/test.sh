#!/usr/bin/env bash
# Runs every test: unit tests, the integration suite on SQLite and PostgreSQL, and the
# browser tests in headless Chromium. Installs what it needs first.
# PostgreSQL is expected at TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres);
# the PostgreSQL leg fails, not skips, when it is unreachable.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's line names the minute it started at, so a slow run shows where it went.
say() { echo "[test] $(printf '%d:%02d' $((SECONDS / 60)) $((SECONDS % 60))) $*"; }
scripts/setup.sh --test

if command -v pg_isready >/dev/null && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  if command -v pg_ctlcluster >/dev/null; then
    say "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
fi

say "frontend (wasm) and server build"
scripts/build-frontend.sh
cargo build -p server --bin server --features bench
mkdir -p target
# Four tests at once on two cores: the integration tests wait on their servers and clocks
# more than they compute (measured: 6 min 8 s instead of 7 min 10 s, the CPU still not full).
export RUST_TEST_THREADS=${RUST_TEST_THREADS:-4}
say "cargo test (SQLite and PostgreSQL legs)"
cargo test --workspace --exclude frontend --no-fail-fast 2>&1 | tee target/cargo-test.log
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || { say "cargo test failed"; exit "$status"; }

say "OpenAPI document (official 3.1 validator)"
python3 scripts/check-openapi.py "${CARGO_TARGET_DIR:-target}/debug/server"

BIN="${CARGO_TARGET_DIR:-target}/debug/server"
say "generated Python client (openapi-python-client): builds, signs in, reads"
scripts/check-client.sh "$BIN"
say "cluster drill (docs/deployment.md: two processes behind nginx, one killed, the database cut for 5 s)"
SERVER_BIN="$BIN" scripts/cluster.sh test | tee target/cluster.log
say "API fuzzing (schemathesis: dashboard roles and every integration surface with its own credentials, no 5xx, no 429; SQLite and PostgreSQL side by side)"
# The two backends' legs run at once: each keeps about half a core busy (measured: 4 min
# 30 s of wall time for 2 min 40 s of CPU), so together they take one leg's time. Each
# leg writes its own log and summary; both are printed and merged once both are done.
fuzz_summary=${FUZZ_SUMMARY:-target/fuzz-summary.tsv}
fuzz_backends=${FUZZ_BACKENDS:-sqlite postgres}
fuzz_pids=()
for db in $fuzz_backends; do
  FUZZ_BACKENDS=$db FUZZ_SUMMARY="target/fuzz-summary-$db.tsv" scripts/fuzz-api.sh "$BIN" \
    >"target/fuzz-$db.log" 2>&1 &
  fuzz_pids+=($!)
done
fuzz_status=0
for pid in "${fuzz_pids[@]}"; do wait "$pid" || fuzz_status=1; done
first=1
for db in $fuzz_backends; do
  echo "----- API fuzzing, $db -----"
  cat "target/fuzz-$db.log"
  if [ -f "target/fuzz-summary-$db.tsv" ]; then
    if [ "$first" -eq 1 ]; then head -n1 "target/fuzz-summary-$db.tsv" >"$fuzz_summary"; first=0; fi
    tail -n +2 "target/fuzz-summary-$db.tsv" >>"$fuzz_summary"
  fi
done
[ "$fuzz_status" -eq 0 ] || { say "API fuzzing failed (see its legs above)"; exit 1; }

# The browser tests, once on SQLite and once on PostgreSQL (tests/browser/harness.mjs, BROWSER_DB).
# Each leg also writes a TAP report, target/browser-<database>.tap, whose counts .ci/run checks.
# The two legs run at once, each with its own server, database and browser (measured: one
# leg keeps 0.7 of a core busy for 3 min 15 s), each writing its own log, printed after.
say "browser tests (headless Chromium, SQLite and PostgreSQL side by side)"
browser_pids=()
for db in sqlite postgres; do
  BROWSER_DB=$db APP_SERVER_BIN="$BIN" APP_SITE_ROOT="$PWD/target/site" node --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination="target/browser-$db.log" \
    --test-reporter=tap --test-reporter-destination="target/browser-$db.tap" tests/browser/ \
    >"target/browser-$db.out" 2>&1 &
  browser_pids+=($!)
done
browser_status=0
for pid in "${browser_pids[@]}"; do wait "$pid" || browser_status=1; done
for db in sqlite postgres; do
  echo "----- browser tests, $db -----"
  cat "target/browser-$db.log" "target/browser-$db.out" 2>/dev/null || true
done
[ "$browser_status" -eq 0 ] || { say "browser tests failed (see their legs above)"; exit 1; }
say "done"
