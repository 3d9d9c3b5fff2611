#!/usr/bin/env bash
# Runs the service on the embedded SQLite default (data/app.db), installing what the
# build needs first. Extra arguments go to `server` (e.g. `scripts/run.sh demo`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-frontend.sh
cargo build -p server --release
export APP_SITE_ROOT=${APP_SITE_ROOT:-target/site}
if [ $# -eq 0 ]; then set -- serve; fi
exec "${CARGO_TARGET_DIR:-target}/release/server" "$@"
