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
# One build for the server binary and every test: `--all-targets` resolves features as
# `cargo test` does (dev-dependencies included), so the test run below compiles nothing and
# `app` is compiled once, not once per feature set (issue 52, item 13). The tests crate
# depends on `server` with `bench`, so the binary has the benchmark commands the cluster
# drill uses.
cargo build --workspace --exclude frontend --all-targets
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
# The last three stages mostly wait (on their servers, timers, retries and a browser), so they
# run side by side (issue 52, item 13; measured alone: the cluster drill 1 min 30 s, each
# fuzzer leg 7 min 20 s at half a core, each browser leg 9 min at 0.7 of a core). Each writes
# its own log, printed once all are done, with how long it took.
# - the cluster drill (docs/deployment.md: two processes behind nginx, one killed, the
#   database cut for 5 s);
# - API fuzzing (schemathesis: dashboard roles and every integration surface with its own
#   credentials, every answer documented, no 5xx, no 429), one leg per backend; each leg
#   writes its own summary, merged below;
# - the browser tests, once on SQLite and once on PostgreSQL (tests/browser/harness.mjs,
#   BROWSER_DB), each with its own server, database and browser, each writing a TAP report
#   target/browser-<database>.tap whose counts .ci/run checks.
say "cluster drill, API fuzzing (SQLite, PostgreSQL) and browser tests (SQLite, PostgreSQL), side by side"
fuzz_summary=${FUZZ_SUMMARY:-target/fuzz-summary.tsv}
fuzz_backends=${FUZZ_BACKENDS:-sqlite postgres}
stages=()
declare -A stage_pid
# run_stage NAME LOG COMMAND...: starts COMMAND in the background, its output to LOG, and
# notes its wall time in target/stage-NAME.secs.
run_stage() {
  local name=$1 log=$2
  shift 2
  (
    started=$SECONDS
    status=0
    "$@" >"$log" 2>&1 || status=$?
    echo $((SECONDS - started)) >"target/stage-$name.secs"
    exit "$status"
  ) &
  stage_pid[$name]=$!
  stages+=("$name")
}
rm -f target/stage-*.secs
run_stage cluster target/cluster.log env SERVER_BIN="$BIN" scripts/cluster.sh test
for db in $fuzz_backends; do
  run_stage "fuzz-$db" "target/fuzz-$db.log" \
    env FUZZ_BACKENDS="$db" FUZZ_SUMMARY="target/fuzz-summary-$db.tsv" scripts/fuzz-api.sh "$BIN"
done
for db in sqlite postgres; do
  run_stage "browser-$db" "target/browser-$db.out" \
    env BROWSER_DB="$db" APP_SERVER_BIN="$BIN" APP_SITE_ROOT="$PWD/target/site" node --test --test-concurrency=1 \
    --test-reporter=spec --test-reporter-destination="target/browser-$db.log" \
    --test-reporter=tap --test-reporter-destination="target/browser-$db.tap" tests/browser/
done
failed=()
for name in "${stages[@]}"; do
  wait "${stage_pid[$name]}" || failed+=("$name")
done
for name in "${stages[@]}"; do
  echo "----- $name -----"
  case $name in
    browser-*) cat "target/$name.log" "target/$name.out" 2>/dev/null || true ;;
    *) cat "target/$name.log" 2>/dev/null || true ;;
  esac
done
first=1
for db in $fuzz_backends; do
  if [ -f "target/fuzz-summary-$db.tsv" ]; then
    if [ "$first" -eq 1 ]; then head -n1 "target/fuzz-summary-$db.tsv" >"$fuzz_summary"; first=0; fi
    tail -n +2 "target/fuzz-summary-$db.tsv" >>"$fuzz_summary"
  fi
done
for name in "${stages[@]}"; do
  secs=$(cat "target/stage-$name.secs" 2>/dev/null || echo 0)
  say "$name took $(printf '%d:%02d' $((secs / 60)) $((secs % 60)))"
done
[ "${#failed[@]}" -eq 0 ] || { say "failed: ${failed[*]} (see their logs above)"; exit 1; }
say "done"
