#!/usr/bin/env bash
# Checks that a client generated from the published OpenAPI document builds and works:
#
#   scripts/check-client.sh [path/to/server-binary]    (default ${CARGO_TARGET_DIR:-target}/debug/server)
#
# Starts a demo-seeded server on SQLite (scripts/lib-server.sh), downloads /openapi.json,
# generates a Python client with openapi-python-client, imports it, signs in as the demo
# publisher through the generated sign-in operation (POST /auth/v1/tokens) and calls two
# authenticated GETs with the token (GET /auth/v1/me and the publisher's placement list).
# Generator warnings are printed but do not fail the check; a failed generation, an
# unimportable package or a sign-in that does not work do.
set -euo pipefail
cd "$(dirname "$0")/.."
LIB_TAG=client
# shellcheck source=scripts/lib-server.sh
. scripts/lib-server.sh

BIN=${1:-${CARGO_TARGET_DIR:-target}/debug/server}
command -v openapi-python-client >/dev/null \
  || { lib_log "openapi-python-client is not installed (scripts/setup.sh --test installs it)"; exit 2; }
lib_server_init "$BIN"
lib_server_up sqlite

work=$SRV_DIR/client
mkdir -p "$work"
curl -fsS "$SRV_URL/openapi.json" -o "$work/openapi.json"

lib_log "generating the Python client"
# --meta none writes the bare package into --output-path (no pyproject, nothing to install).
gen_status=0
openapi-python-client generate --path "$work/openapi.json" --output-path "$work/pkg/mp_client" \
  --meta none --overwrite >"$work/generate.log" 2>&1 || gen_status=$?
cat "$work/generate.log"
if [ "$gen_status" -ne 0 ] || [ ! -f "$work/pkg/mp_client/__init__.py" ]; then
  lib_log "FAILED: openapi-python-client could not generate the client (exit $gen_status)"
  exit 1
fi
if grep -qi 'warning' "$work/generate.log"; then
  lib_log "the generator reported warnings (above): parts of the document it could not handle"
fi

lib_log "using the generated client"
PYTHONPATH="$work/pkg" python3 - "$SRV_URL" "${DEMO_EMAIL[publisher]}" "$DEMO_PASSWORD" <<'PY' || { lib_server_log_tail 40; exit 1; }
import importlib, pathlib, sys, typing

base_url, email, password = sys.argv[1:4]

import mp_client  # the generated package must import
from mp_client import AuthenticatedClient, Client

PKG = pathlib.Path(mp_client.__file__).parent


def operation(method, path):
    """The generated module (api/<tag>/<operation>.py) that sends METHOD PATH."""
    wanted = (f'"method": "{method}",', f'"url": "{path}"')
    for f in sorted((PKG / "api").glob("*/*.py")):
        text = f.read_text()
        if all(w in text for w in wanted):
            return importlib.import_module(f"mp_client.api.{f.parent.name}.{f.stem}")
    sys.exit(f"[client] FAILED: the generator produced no function for {method.upper()} {path}")


def body_type(module):
    """The model class the generated function takes as its request body."""
    hints = typing.get_type_hints(module.sync_detailed)
    return hints["body"]


def check(cond, what):
    if not cond:
        sys.exit(f"[client] FAILED: {what}")
    print(f"[client] ok: {what}")


def call(what, module, **kwargs):
    """module.sync_detailed(**kwargs); a response the generated models cannot read fails the check
    (the server's answer does not match its own document)."""
    try:
        return module.sync_detailed(**kwargs)
    except Exception as e:  # the generated from_dict raises on any mismatch
        sys.exit(f"[client] FAILED: {what}: the answer does not parse into the generated model "
                 f"({type(e).__name__}: {e}); the document and the server disagree")


sign_in = operation("post", "/auth/v1/tokens")
TokenRequest = body_type(sign_in)
with Client(base_url=base_url, raise_on_unexpected_status=False) as client:
    r = call("POST /auth/v1/tokens", sign_in, client=client,
             body=TokenRequest.from_dict({"email": email, "password": password}))
check(r.status_code == 201, f"sign-in as {email} answers 201 (got {int(r.status_code)})")
token = getattr(r.parsed, "token", None)
check(isinstance(token, str) and token != "", "sign-in returns a token in the parsed response model")

with AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=False) as authed:
    me = call("GET /auth/v1/me", operation("get", "/auth/v1/me"), client=authed)
    check(me.status_code == 200, f"GET /auth/v1/me with the token answers 200 (got {int(me.status_code)})")
    check(getattr(me.parsed, "email", None) == email, "GET /auth/v1/me parses into a model with the publisher's e-mail")

    pl = call("GET /publisher/v2/placements", operation("get", "/publisher/v2/placements"), client=authed)
    check(pl.status_code == 200, f"GET /publisher/v2/placements answers 200 (got {int(pl.status_code)})")
    items = getattr(pl.parsed, "items", None)
    check(isinstance(items, list) and len(items) >= 1, "the placement list parses and holds the demo placement")
PY
lib_log "generated client OK"
