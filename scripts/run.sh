#!/usr/bin/env bash
# Runs the service on the embedded SQLite default (data/app.db), installing what the
# build needs first. Extra arguments go to `server` (e.g. `scripts/run.sh demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The browser bundle ends in one long single-threaded optimisation (one codegen unit): build
# it beside the server so the second core is not idle meanwhile (separate build folders, so
# the two cargo runs do not wait on each other's lock).
scripts/build-frontend.sh &
frontend=$!
cargo build -p server --release
wait "$frontend"
export APP_SITE_ROOT=${APP_SITE_ROOT:-target/site}
# Two glibc malloc arenas instead of up to eight per core: same throughput, a quarter less
# resident memory (docs/operations.md, "Memory").
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
if [ $# -eq 0 ]; then set -- serve; fi
exec "${CARGO_TARGET_DIR:-target}/release/server" "$@"
