#!/usr/bin/env bash
# The mutation run (issue 52, item 12): cargo-mutants changes one line of the money and access
# modules at a time (a `>` made `>=`, a function that returns early, a `&&` made `||`) and runs
# the integration tests that exercise it on SQLite; a mutant that no test fails "survived" and
# names a rule nothing defends. Not part of every CI run: each mutant is a rebuild of `app`,
# `server` and the test binary (2-3 minutes on 2 cores), so a whole file takes hours.
#
#   scripts/mutants.sh                          # the money and access modules below
#   scripts/mutants.sh FILE...                  # just these files (paths from the repository root)
#   MUTANTS_FILTER="ledger_check:: payouts::" scripts/mutants.sh F
#                                               # only the integration tests whose names hold one
#   MUTANTS_LIST=1 scripts/mutants.sh           # list the mutants without running them
#
# It works in a copy of the tree (MUTANTS_DIR, /tmp/mutants-tree by default) whose target
# folder is seeded from this checkout's debug build (so dependencies are not built again), and
# writes cargo-mutants' report to MUTANTS_DIR/mutants.out (caught.txt, missed.txt, timeout.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

MONEY_FILES=(
  app/src/domain/billing/ledger/post.rs
  app/src/domain/billing/ledger/reconcile.rs
  app/src/domain/billing/ledger/legs.rs
  app/src/domain/conversions/settlement/mod.rs
  app/src/domain/earnings/release.rs
  app/src/domain/payouts/requests.rs
  app/src/domain/payouts/runs.rs
  app/src/domain/idempotency/stored.rs
  app/src/domain/callback_delivery/dispatch/record.rs
  app/src/domain/publisher/bans.rs
)
files=("$@")
[ "${#files[@]}" -gt 0 ] || files=("${MONEY_FILES[@]}")

if ! command -v cargo-mutants >/dev/null 2>&1; then
  echo "[mutants] installing cargo-mutants from crates.io (a few minutes, once)"
  cargo install --locked cargo-mutants
fi

args=()
for f in "${files[@]}"; do args+=(--file "$f"); done
if [ -n "${MUTANTS_LIST:-}" ]; then
  exec cargo mutants --list --workspace "${args[@]}"
fi

dir=${MUTANTS_DIR:-/tmp/mutants-tree}
mkdir -p "$dir"
# The tree as committed plus this checkout's changes, without its build output.
rsync -a --delete --exclude /target --exclude /.git --exclude node_modules ./ "$dir/"
if [ ! -d "$dir/target/debug/deps" ] && [ -d target/debug/deps ]; then
  echo "[mutants] seeding $dir/target from target/debug (dependencies are not built again)"
  mkdir -p "$dir/target/debug"
  cp -a target/debug/deps target/debug/build target/debug/.fingerprint "$dir/target/debug/"
fi

# Each mutant: the integration tests on SQLite, two at a time. MUTANTS_FILTER narrows them:
# one or more name parts separated by spaces (a test runs when its name holds any of them,
# e.g. "money_rules:: postbacks::"); the PostgreSQL cases of each_backend tests are skipped.
read -r -a filters <<<"${MUTANTS_FILTER:-sqlite}"
# No debug line tables for the workspace crates in the copy (dependencies have none anyway,
# Cargo.toml): a mutant's rebuild links the test binary much faster, and a failing test
# still names itself. MUTANTS_ARGS passes more options to cargo-mutants (`--baseline skip`
# when this commit's tests are known to pass, `--re <regex>` for some mutants only).
export CARGO_PROFILE_DEV_DEBUG=0
read -r -a extra <<<"${MUTANTS_ARGS:-}"
cd "$dir"
cargo mutants "${extra[@]}" --in-place --workspace --no-shuffle --test-package tests --timeout 600 \
  --output "$dir" "${args[@]}" \
  -- --test integration -- "${filters[@]}" --skip ::postgres --test-threads 2
