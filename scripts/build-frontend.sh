#!/usr/bin/env bash
# Builds the browser bundle into target/site/pkg (frontend.js + frontend.wasm) without
# cargo-leptos: cargo for the wasm32 target, then the wasm-bindgen CLI pinned in setup.sh.
#   PROFILE=wasm-release (default; small, optimised) or PROFILE=dev (fast, large)
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-wasm-release}
out=target/site/pkg
split=marketplace-wasm-split   # tools/wasm-split, installed by setup.sh
if ! command -v "$split" >/dev/null; then
  echo "build-frontend: $split is missing; run scripts/setup.sh" >&2
  exit 1
fi
# --emit-relocs keeps the relocations wasm-split needs to cut the module at its lazy routes.
# (cargo ignores the target's variable when RUSTFLAGS is set, so the flag goes there then.)
relocs="-Clink-args=--emit-relocs"
if [ -n "${RUSTFLAGS:-}" ] || [ -n "${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
  echo "build-frontend: unset RUSTFLAGS/CARGO_ENCODED_RUSTFLAGS (use CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS)" >&2
  exit 1
fi
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$relocs ${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:-}" \
  cargo build -p frontend --lib --target wasm32-unknown-unknown --profile "$profile"
dir=$profile; [ "$profile" = dev ] && dir=debug
mkdir -p "$out"
# What cargo built, and with which tools: when neither changed since the last bundle, the
# bundle is already what wasm-split, wasm-bindgen, wasm-opt and the compression would make
# again (they take minutes), so it is kept.
input="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/frontend.wasm"
main="${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/$dir/frontend_split.wasm"
stamp=$( { sha256sum "$input" scripts/build-frontend.sh scripts/precompress.mjs "$(command -v "$split")" | cut -c1-64; \
  echo "$profile"; wasm-bindgen --version; } | sha256sum | cut -c1-64)
if [ -f "$out/.input-stamp" ] && [ "$(cat "$out/.input-stamp")" = "$stamp" ] \
  && [ -f "$out/frontend_bg.wasm" ] && [ -f "$out/frontend.js" ] && [ -f "$out/bundle.version" ]; then
  echo "browser bundle: unchanged since the last build ($(du -h "$out/frontend_bg.wasm" | cut -f1) in $out)"
  exit 0
fi
rm -f "$out/.input-stamp"
# The last bundle's chunks go: their names are stable only within one build.
find "$out" -mindepth 1 -maxdepth 1 \( -name '*.wasm' -o -name '*.js' -o -name '*.br' -o -name '*.gz' \
  -o -name '*.opt' -o -name '__wasm_split_manifest.json' -o -type d \) -exec rm -rf {} +
# The lazy routes (app/src/shell/lazy.rs) become chunks `<name>.wasm` beside a loader
# `__wasm_split.*.js` and `__wasm_split_manifest.json` (which chunks each route needs).
"$split" "$input" "$out" "$main" frontend
wasm-bindgen --target web --no-typescript --keep-lld-exports --no-demangle --out-dir "$out" --out-name frontend "$main"
# Leptos 0.8 loads /pkg/<name>.js and /pkg/<name>_bg.wasm, the names wasm-bindgen writes.
# Release bundles go through binaryen's wasm-opt from npm (tools/, installed by setup.sh;
# Debian's older wasm-opt breaks hydration) and are precompressed (brotli, gzip).
opt=tools/node_modules/.bin/wasm-opt
if [ "$profile" != dev ] && [ -x "$opt" ]; then
  for wasm in "$out"/*.wasm; do
    "$opt" -Oz --strip-debug --strip-producers --enable-bulk-memory --enable-nontrapping-float-to-int \
      --enable-sign-ext --enable-mutable-globals "$wasm" -o "$wasm.opt"
    mv "$wasm.opt" "$wasm"
  done
fi
if [ "$profile" != dev ] && command -v node >/dev/null; then
  node scripts/precompress.mjs "$out"
fi
# The bundle's content hash: pages load it from /pkg/<hash>/…, cached for a year (server/src/web.rs).
version=$(cd "$out" && cat $(ls *.js *.wasm | sort) | sha256sum | cut -c1-16)
echo "$version" > "$out/bundle.version"
# HydrationScripts reads the manifest under the site's package path, which names the hash.
mkdir -p "$out/$version" && cp "$out/__wasm_split_manifest.json" "$out/$version/"
echo "$stamp" > "$out/.input-stamp"
echo "browser bundle: $(du -h "$out/frontend_bg.wasm" | cut -f1) main, $(ls "$out"/*.wasm | wc -l) wasm files in $out"
