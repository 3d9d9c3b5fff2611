# syntax=docker/dockerfile:1
# The service as an image: docs/deployment.md explains every setting used here.
#   docker build -t marketplace .
#   docker run -p 3000:3000 -e APP_DATABASE_URL=postgres://… -e APP_BASE_URL=https://… \
#     -e APP_SECRET_KEY=… -e APP_ENVIRONMENT=production marketplace

# ---- build: the browser bundle and the release server --------------------------------
FROM rust:1.95-bookworm AS build
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends nodejs npm \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# setup.sh installs the wasm target, the pinned wasm-bindgen CLI (from crates.io source)
# and binaryen's wasm-opt (npm); nothing downloads a binary.
RUN scripts/setup.sh \
 && scripts/build-frontend.sh \
 && cargo build --release -p server \
 && mkdir -p /out \
 && cp target/release/server /out/server \
 && cp -r target/site /out/site

# ---- runtime: the binary, the bundle, a non-root user ----------------------------------
FROM debian:bookworm-slim AS runtime
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends ca-certificates curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/marketplace --create-home marketplace
COPY --from=build /out/server /usr/local/bin/server
COPY --from=build /out/site /srv/site
ENV APP_BIND=0.0.0.0:3000 \
    APP_SITE_ROOT=/srv/site \
    APP_DATA_DIR=/var/lib/marketplace \
    APP_LOG_FORMAT=json \
    MALLOC_ARENA_MAX=2
USER marketplace
WORKDIR /var/lib/marketplace
EXPOSE 3000
# Ready means the inventory is built and the database answers (docs/operations.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD curl -fsS http://127.0.0.1:3000/readyz >/dev/null || exit 1
# SIGTERM finishes in-flight requests within APP_SHUTDOWN_GRACE_SECONDS.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/server"]
CMD ["serve"]
