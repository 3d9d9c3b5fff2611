#!/usr/bin/env python3
"""Starts the built server on a free port with a throwaway database, fetches /openapi.json and
validates it with the official OpenAPI 3.1 validator (openapi-spec-validator). Also checks that
every operationId is unique. Exits non-zero on any error."""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request
from openapi_spec_validator import OpenAPIV31SpecValidator

binary = sys.argv[1] if len(sys.argv) > 1 else "target/debug/server"
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
with tempfile.TemporaryDirectory() as d:
    env = dict(os.environ, APP_DATABASE_URL=f"sqlite://{d}/app.db?mode=rwc", APP_DATA_DIR=f"{d}/data",
               APP_BIND=f"127.0.0.1:{port}", RUST_LOG="warn")
    proc = subprocess.Popen([binary, "serve"], env=env)
    try:
        spec = None
        for _ in range(200):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/openapi.json") as r:
                    spec = json.load(r)
                break
            except OSError:
                time.sleep(0.1)
        if spec is None:
            sys.exit("[openapi] the server did not answer")
        errors = list(OpenAPIV31SpecValidator(spec).iter_errors())
        for e in errors[:20]:
            print(f"[openapi] {e.message[:200]}")
        ids = [op.get("operationId") for item in spec["paths"].values() for op in item.values()
               if isinstance(op, dict) and "responses" in op]
        duplicates = sorted({i for i in ids if ids.count(i) > 1 or i is None}, key=str)
        print(f"[openapi] {len(spec['paths'])} paths, {len(ids)} operations, {len(errors)} validator errors, "
              f"{len(duplicates)} duplicate operation ids")
        if errors or duplicates:
            sys.exit(1)
    finally:
        proc.terminate()
        proc.wait()
