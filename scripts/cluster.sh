#!/usr/bin/env bash
# Two `server` processes behind Debian's nginx on the local PostgreSQL (docs/deployment.md).
#   scripts/cluster.sh start   serve on http://127.0.0.1:3100 until Ctrl-C (release build)
#   scripts/cluster.sh test    the kill-and-cut drill .ci/run runs (SERVER_BIN=target/debug/server)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nginx >/dev/null || { echo "cluster: needs nginx (apt-get install nginx-light)" >&2; exit 1; }
if [ "${1:-}" = start ] && [ -z "${SERVER_BIN:-}" ]; then
  cargo build --release -p server --features bench
fi
exec python3 scripts/cluster.py "$@"
