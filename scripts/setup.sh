#!/usr/bin/env bash
# Installs what the build needs, reusing whatever is already installed, so a second run is quick.
#   scripts/setup.sh          toolchain pieces for building and running the service
#   scripts/setup.sh --test   also the browser-test pieces (Chromium, playwright-core)
# Everything comes from the package registries (crates.io, Debian, npm); nothing downloads binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen pinned in Cargo.toml

log() { printf '\033[1;34m[setup]\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  # `cargo install wasm-bindgen-cli --locked` fails here: its lock file wants a webpki-roots
  # version the registry does not serve. Build it from the registry source with that one
  # dependency moved to a served version instead (see BUILD-NOTES).
  log "building wasm-bindgen-cli $WASM_BINDGEN_VERSION from crates.io source (about 2 minutes)"
  cargo info "wasm-bindgen-cli@$WASM_BINDGEN_VERSION" >/dev/null
  src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/wasm-bindgen-cli-"$WASM_BINDGEN_VERSION" | head -n1)
  work=$(mktemp -d)
  cp -r "$src" "$work/cli"
  (cd "$work/cli" && cargo update -p webpki-roots --precise 1.0.10 && cargo install --path . --locked --root "${CARGO_HOME:-$HOME/.cargo}")
  rm -rf "$work"
fi

# Cuts the browser bundle at its lazy routes (the library cargo-leptos uses for that); built
# again when its sources change (the stamp beside the binary names them).
split_stamp="${CARGO_HOME:-$HOME/.cargo}/bin/.marketplace-wasm-split.stamp"
split_src=$(cat tools/wasm-split/Cargo.toml tools/wasm-split/Cargo.lock tools/wasm-split/src/*.rs | sha256sum | cut -c1-64)
if ! command -v marketplace-wasm-split >/dev/null 2>&1 || [ "$(cat "$split_stamp" 2>/dev/null)" != "$split_src" ]; then
  log "building tools/wasm-split from crates.io source (about a minute)"
  cargo install --path tools/wasm-split --locked --force --root "${CARGO_HOME:-$HOME/.cargo}" \
    --target-dir "${CARGO_TARGET_DIR:-target}/wasm-split-tool"
  echo "$split_src" > "$split_stamp"
fi

if command -v npm >/dev/null && [ ! -x tools/node_modules/.bin/wasm-opt ]; then
  log "installing binaryen's wasm-opt from npm (tools/) for the browser bundle"
  (cd tools && npm ci --no-audit --no-fund --loglevel=error)
fi

if [ "${1:-}" = "--test" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    log "installing Debian's chromium for the browser tests"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
  if ! command -v xmllint >/dev/null 2>&1; then
    log "installing Debian's libxml2-utils (xmllint validates the pain.001 payout files)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq libxml2-utils >/dev/null
  fi
  if ! command -v nginx >/dev/null 2>&1; then
    log "installing Debian's nginx for the cluster drill (scripts/cluster.sh)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq nginx-light >/dev/null
  fi
  if ! python3 -c 'import openapi_spec_validator' 2>/dev/null; then
    log "installing openapi-spec-validator (PyPI) for the OpenAPI check"
    python3 -m pip install --quiet openapi-spec-validator 2>/dev/null \
      || python3 -m pip install --quiet --break-system-packages openapi-spec-validator
  fi
  # Pinned: scripts/fuzz_hooks.py uses its hook, auth and check interfaces (checked on 4.32.5).
  if [ "$(python3 -c 'import schemathesis; print(schemathesis.__version__)' 2>/dev/null)" != 4.32.5 ]; then
    log "installing schemathesis 4.32.5 (PyPI) for the API fuzzer"
    python3 -m pip install --quiet schemathesis==4.32.5 2>/dev/null \
      || python3 -m pip install --quiet --break-system-packages schemathesis==4.32.5
  fi
  if ! python3 -c 'import standardwebhooks' 2>/dev/null; then
    log "installing standardwebhooks (PyPI) for the Standard Webhooks test of reward callbacks"
    python3 -m pip install --quiet standardwebhooks 2>/dev/null \
      || python3 -m pip install --quiet --break-system-packages standardwebhooks
  fi
  if ! command -v openapi-python-client >/dev/null 2>&1; then
    log "installing openapi-python-client (PyPI) for the generated-client check"
    python3 -m pip install --quiet openapi-python-client 2>/dev/null \
      || python3 -m pip install --quiet --break-system-packages openapi-python-client
  fi
  if [ ! -d tests/browser/node_modules/playwright-core ]; then
    log "installing playwright-core (driver only; it uses Debian's chromium)"
    (cd tests/browser && npm ci --no-audit --no-fund --loglevel=error)
  fi
fi
log "set-up complete"
