# shellcheck shell=bash
# Shared helpers for scripts that need a throwaway, demo-seeded server (sourced by
# scripts/fuzz-api.sh and scripts/check-client.sh; not meant to be run on its own).
#
#   lib_server_init BIN          once: checks the binary, registers the clean-up trap
#   lib_server_up sqlite|postgres
#                                fresh temp dir + database, `server demo`, `server serve` on a free
#                                port (APP_TRUSTED_PROXIES from LIB_TRUSTED_PROXIES); sets SRV_DIR,
#                                SRV_LOG, SRV_URL, SRV_PORT, SRV_PID, DEMO_PASSWORD and
#                                DEMO_EMAIL[admin|publisher|advertiser]
#   lib_server_sign_in EMAIL     prints a dashboard bearer token (POST /auth/v1/tokens)
#   lib_server_down              stops the server, drops the database, removes the temp dir
#   lib_server_log_tail [N]      prints the last N lines of the server log
#
# PostgreSQL is reached through TEST_POSTGRES_URL (default
# postgres://postgres@127.0.0.1:5432/postgres, trust auth), like the integration tests; each
# run creates its own database `fuzz_<random>` and drops it again, also when the caller fails.

# A fixed, throwaway master key (64 hex characters) so the run never writes one to disk.
LIB_SECRET_KEY=${LIB_SECRET_KEY:-00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff}
LIB_PG_URL=${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
# APP_TRUSTED_PROXIES of the server: empty (every address is the client's own) unless the
# caller sets it. scripts/fuzz-api.sh sets 127.0.0.1 so its requests can name their client
# address in X-Forwarded-For and share out the per-address limits.
LIB_TRUSTED_PROXIES=${LIB_TRUSTED_PROXIES:-}

SRV_BIN=""
SRV_DIR=""
SRV_LOG=""
SRV_PID=""
SRV_PORT=""
SRV_URL=""
SRV_PG_DB=""
DEMO_PASSWORD=""
declare -gA DEMO_EMAIL=()

lib_log() { printf '\033[1;34m[%s]\033[0m %s\n' "${LIB_TAG:-server}" "$*" >&2; }

lib_server_init() {
  SRV_BIN=$1
  [ -x "$SRV_BIN" ] || { lib_log "no server binary at $SRV_BIN (build it with: cargo build -p server --bin server)"; exit 2; }
  # Resolve now: the caller may change directory, and a rebuild replaces the file in place.
  SRV_BIN=$(cd "$(dirname "$SRV_BIN")" && pwd)/$(basename "$SRV_BIN")
  trap 'lib_server_down $?' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# psql against the maintenance database named in LIB_PG_URL.
lib_psql() { psql "$LIB_PG_URL" -v ON_ERROR_STOP=1 -qtA "$@"; }

# LIB_PG_URL with its database name replaced by $1.
lib_pg_url_for() {
  python3 - "$LIB_PG_URL" "$1" <<'PY'
import sys, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
print(urllib.parse.urlunsplit(u._replace(path="/" + sys.argv[2])))
PY
}

lib_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

lib_server_up() {
  local backend=$1
  SRV_DIR=$(mktemp -d "${TMPDIR:-/tmp}/srv-${backend}.XXXXXX")
  SRV_LOG=$SRV_DIR/server.log
  case $backend in
    sqlite) export APP_DATABASE_URL="sqlite://$SRV_DIR/app.db?mode=rwc" ;;
    postgres)
      SRV_PG_DB=fuzz_$(python3 -c 'import secrets; print(secrets.token_hex(6))')
      lib_psql -c "CREATE DATABASE $SRV_PG_DB" || { lib_log "cannot create database $SRV_PG_DB at $LIB_PG_URL"; return 1; }
      APP_DATABASE_URL=$(lib_pg_url_for "$SRV_PG_DB")
      export APP_DATABASE_URL
      ;;
    *) lib_log "unknown backend $backend"; return 2 ;;
  esac
  SRV_PORT=$(lib_free_port)
  SRV_URL=http://127.0.0.1:$SRV_PORT
  export APP_BIND=127.0.0.1:$SRV_PORT APP_BASE_URL=$SRV_URL APP_SECRET_KEY=$LIB_SECRET_KEY \
    APP_DATA_DIR=$SRV_DIR/data APP_RUN_WORKERS=false APP_ENVIRONMENT=development
  unset APP_SECRET_KEY_PREVIOUS APP_TRUSTED_PROXIES
  if [ -n "$LIB_TRUSTED_PROXIES" ]; then export APP_TRUSTED_PROXIES=$LIB_TRUSTED_PROXIES; fi
  export RUST_LOG=${RUST_LOG:-info}

  lib_log "$backend: seeding demo data ($APP_DATABASE_URL)"
  local demo_out
  if ! demo_out=$("$SRV_BIN" demo 2>>"$SRV_LOG"); then
    lib_log "server demo failed"; lib_server_log_tail; return 1
  fi
  printf '%s\n' "$demo_out" >>"$SRV_LOG"
  # "… Sign in at URL/sign-in with password `PASSWORD`:" then "  ROLE  EMAIL  COMPANY" lines
  # (stdout also carries the log lines).
  DEMO_PASSWORD=$(printf '%s\n' "$demo_out" | sed -n 's/.*password `\([^`]*\)`.*/\1/p' | head -n1)
  DEMO_EMAIL=()
  local role email _rest
  while read -r role email _rest; do
    role=${role,,}   # printed upper case (ADMIN, PUBLISHER, ADVERTISER)
    if [[ $role =~ ^(admin|publisher|advertiser)$ && $email == *@* ]]; then DEMO_EMAIL[$role]=$email; fi
  done <<<"$demo_out"
  if [ -z "$DEMO_PASSWORD" ] || [ -z "${DEMO_EMAIL[admin]:-}" ] || [ -z "${DEMO_EMAIL[publisher]:-}" ] \
    || [ -z "${DEMO_EMAIL[advertiser]:-}" ]; then
    lib_log "could not read the demo accounts from the output of \`server demo\`:"
    printf '%s\n' "$demo_out" >&2
    return 1
  fi

  lib_log "$backend: starting server on $SRV_URL (log: $SRV_LOG)"
  "$SRV_BIN" serve >>"$SRV_LOG" 2>&1 &
  SRV_PID=$!
  local i
  for i in $(seq 1 300); do
    if curl -fsS -o /dev/null "$SRV_URL/readyz" 2>/dev/null; then return 0; fi
    if ! kill -0 "$SRV_PID" 2>/dev/null; then
      lib_log "the server exited during start-up"; SRV_PID=""; lib_server_log_tail; return 1
    fi
    sleep 0.2
  done
  lib_log "the server did not become ready within 60 s"; lib_server_log_tail
  return 1
}

lib_server_sign_in() {
  local email=$1 body
  body=$(python3 -c 'import json, sys; print(json.dumps({"email": sys.argv[1], "password": sys.argv[2]}))' \
    "$email" "$DEMO_PASSWORD")
  curl -fsS -X POST -H 'Content-Type: application/json' --data "$body" "$SRV_URL/auth/v1/tokens" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'
}

lib_server_log_tail() {
  local n=${1:-60}
  [ -n "$SRV_LOG" ] && [ -f "$SRV_LOG" ] || return 0
  lib_log "last $n lines of the server log ($SRV_LOG):"
  tail -n "$n" "$SRV_LOG" | sed 's/\x1b\[[0-9;]*m//g' >&2
}

lib_server_stop() {
  if [ -n "$SRV_PID" ]; then
    kill "$SRV_PID" 2>/dev/null || true
    wait "$SRV_PID" 2>/dev/null || true
    SRV_PID=""
  fi
}

# Stops everything lib_server_up started. Safe to call twice; also the EXIT trap.
# With a non-zero STATUS argument (a failed run), or KEEP_SERVER_DIR=1, the temp dir (server
# log, SQLite file) is kept for inspection; the PostgreSQL database is always dropped.
lib_server_down() {
  local status=${1:-0}
  lib_server_stop
  if [ -n "$SRV_PG_DB" ]; then
    lib_psql -c "DROP DATABASE IF EXISTS $SRV_PG_DB WITH (FORCE)" >/dev/null 2>&1 \
      || lib_log "could not drop database $SRV_PG_DB"
    SRV_PG_DB=""
  fi
  if [ -n "$SRV_DIR" ]; then
    if [ "${KEEP_SERVER_DIR:-0}" = 1 ] || [ "$status" -ne 0 ]; then
      lib_log "kept $SRV_DIR (server log: $SRV_DIR/server.log)"
    else
      rm -rf "$SRV_DIR"
    fi
    SRV_DIR=""
  fi
}
