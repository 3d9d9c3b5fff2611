#!/usr/bin/env bash
# Builds the browser bundle into target/site/pkg (frontend.js + frontend.wasm) without
# cargo-leptos: cargo for the wasm32 target, then the wasm-bindgen CLI pinned in setup.sh.
#   PROFILE=wasm-release (default; small, optimised) or PROFILE=dev (fast, large)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-wasm-release}
out=target/site/pkg
cargo build -p frontend --lib --target wasm32-unknown-unknown --profile "$profile"
dir=$profile; [ "$profile" = dev ] && dir=debug
mkdir -p "$out"
# What cargo built, and with which tools: when neither changed since the last bundle, the
# bundle is already what wasm-bindgen, wasm-opt and the compression would make again (they
# take minutes), so it is kept.
input="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/frontend.wasm"
stamp=$( { sha256sum "$input" scripts/build-frontend.sh scripts/precompress.mjs | cut -c1-64; echo "$profile"; \
  wasm-bindgen --version; } | sha256sum | cut -c1-64)
if [ -f "$out/.input-stamp" ] && [ "$(cat "$out/.input-stamp")" = "$stamp" ] \
  && [ -f "$out/frontend_bg.wasm" ] && [ -f "$out/frontend.js" ] && [ -f "$out/bundle.version" ]; then
  echo "browser bundle: unchanged since the last build ($(du -h "$out/frontend_bg.wasm" | cut -f1) in $out)"
  exit 0
fi
rm -f "$out/.input-stamp"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name frontend \
  "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/frontend.wasm"
# Leptos 0.8 loads /pkg/<name>.js and /pkg/<name>_bg.wasm, the names wasm-bindgen writes.
# Release bundles go through binaryen's wasm-opt from npm (tools/, installed by setup.sh;
# Debian's older wasm-opt breaks hydration) and are precompressed (brotli, gzip).
opt=tools/node_modules/.bin/wasm-opt
rm -f "$out"/*.br "$out"/*.gz
if [ "$profile" != dev ] && [ -x "$opt" ]; then
  "$opt" -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals "$out/frontend_bg.wasm" -o "$out/frontend_bg.opt.wasm"
  mv "$out/frontend_bg.opt.wasm" "$out/frontend_bg.wasm"
fi
if [ "$profile" != dev ] && command -v node >/dev/null; then
  node scripts/precompress.mjs "$out"
fi
# The bundle's content hash: pages load it from /pkg/<hash>/…, cached for a year (server/src/web.rs).
cat "$out/frontend.js" "$out/frontend_bg.wasm" | sha256sum | cut -c1-16 > "$out/bundle.version"
echo "$stamp" > "$out/.input-stamp"
echo "browser bundle: $(du -h "$out/frontend_bg.wasm" | cut -f1) in $out"
