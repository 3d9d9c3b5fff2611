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
say "API fuzzing (schemathesis: dashboard roles and every integration surface with its own credentials, no 5xx, no 429; SQLite and PostgreSQL)"
scripts/fuzz-api.sh "$BIN"

# The browser tests, once on SQLite and once on PostgreSQL (tests/browser/harness.mjs, BROWSER_DB).
# Each leg also writes a TAP report, target/browser-<database>.tap, whose counts .ci/run checks.
for db in sqlite postgres; do
  say "browser tests (headless Chromium, $db)"
  BROWSER_DB=$db APP_SERVER_BIN="$BIN" APP_SITE_ROOT="$PWD/target/site" node --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="target/browser-$db.tap" tests/browser/
done
say "done"
