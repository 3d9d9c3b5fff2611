#!/usr/bin/env python3
"""Records the OpenAPI document's examples from the integration tests, so every example is a
real exchange the tests checked. Runs the integration tests' SQLite leg with
APP_RECORD_EXAMPLES, then keeps, for every documented operation, one request body and one
answer per documented status that validate against the document's schemas (lists cut to
three items), and the error codes received per status, and writes
server/openapi-examples.json. Names the operations it could not
cover and the recordings that did not validate (a schema to fix).

    scripts/record-examples.py [target/debug/server]   # after cargo test --no-run; then rebuild
    EXAMPLES_ONLY='mail:: recovery::' scripts/record-examples.py   # only those tests; merged

CI (scripts/check-openapi.py) fails when an operation lacks its examples or one of them no
longer validates."""
import glob, json, os, subprocess, sys, tempfile
from urllib.parse import parse_qsl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openapi_examples import first_error, operations, request_content, response_content, spec_of

OUT = "server/openapi-examples.json"
LIST_ITEMS = 3


def trimmed(v):
    if isinstance(v, list):
        return [trimmed(x) for x in v[:LIST_ITEMS]]
    if isinstance(v, dict):
        return {k: trimmed(x) for k, x in v.items()}
    return v


def run_tests(log):
    tests = [p for p in glob.glob("target/debug/deps/integration-*") if os.access(p, os.X_OK) and not p.endswith(".d")]
    if not tests:
        sys.exit("[examples] build the tests first: cargo test --workspace --exclude frontend --no-run")
    binary = max(tests, key=os.path.getmtime)
    env = dict(os.environ, APP_RECORD_EXAMPLES=log)
    # EXAMPLES_ONLY: test filters (`mail:: recovery::`); the operations they exercise are replaced in
    # the file and every other one is kept as it was.
    only = os.environ.get("EXAMPLES_ONLY")
    # (libtest runs what matches any filter: the PostgreSQL leg is skipped instead.)
    filters = [*only.split(), "--skip", "postgres"] if only else ["sqlite"]
    r = subprocess.run([binary, *filters, "--test-threads", "2", "-q"], env=env)
    if r.returncode:
        print("[examples] some tests failed; their exchanges are recorded all the same")


def main():
    spec = spec_of(sys.argv[1] if len(sys.argv) > 1 else "target/debug/server", "examples")
    with tempfile.TemporaryDirectory() as d:
        log = os.path.join(d, "exchanges.jsonl")
        run_tests(log)
        exchanges = {}
        with open(log) as f:
            for line in f:
                try:
                    x = json.loads(line)
                except json.JSONDecodeError:
                    continue
                # A form is documented as the object of its fields.
                if x["requestType"] == "application/x-www-form-urlencoded" and isinstance(x["request"], str):
                    x["request"] = dict(parse_qsl(x["request"]))
                exchanges.setdefault(f"{x['method']} {x['path']}", []).append(x)
    out, uncovered, unfit = {}, [], {}
    for method, path, op in operations(spec):
        key = f"{method} {path}"
        seen = exchanges.get(key, [])
        # Successful exchanges first: their request is the one worth copying.
        seen.sort(key=lambda x: not (200 <= x["status"] < 300))
        chosen = {"responses": {}}
        body = request_content(op)
        for x in seen:
            if body is None or "request" in chosen:
                break
            if x["request"] is None:
                continue
            example = trimmed(x["request"])
            problem = first_error(spec, body[1].get("schema", {}), example)
            if problem is None:
                chosen["request"] = example
            else:
                unfit.setdefault(key, set()).add(f"request: {problem}")
        for x in seen:
            status = str(x["status"])
            response = op.get("responses", {}).get(status)
            if response is None or status in chosen["responses"] or x["response"] is None:
                continue
            content = response_content(response)
            if content is None:
                continue
            example = trimmed(x["response"])
            problem = first_error(spec, content[1].get("schema", {}), example)
            if problem is None:
                chosen["responses"][status] = example
            else:
                unfit.setdefault(key, set()).add(f"{status}: {problem}")
        # The error codes the tests received, by status (document::error_codes lists them).
        errors = {}
        for x in seen:
            r = x["response"]
            if x["status"] >= 400 and isinstance(r, dict) and isinstance(r.get("error"), dict):
                code = r["error"].get("code")
                if isinstance(code, str):
                    errors.setdefault(str(x["status"]), set()).add(code)
        if errors:
            chosen["errors"] = {s: sorted(c) for s, c in sorted(errors.items())}
        if not seen:
            uncovered.append(key)
        if chosen.get("request") is not None or chosen["responses"] or errors:
            out[key] = chosen
    if os.environ.get("EXAMPLES_ONLY"):
        with open(OUT) as f:
            kept = json.load(f)
        documented = {f"{m} {p}" for m, p, _ in operations(spec)}
        out = {**{k: v for k, v in kept.items() if k in documented}, **out}
        uncovered = [k for k in uncovered if k not in kept]
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)
        f.write("\n")
    for key in sorted(uncovered):
        print(f"[examples] not exercised by the tests: {key}")
    for key, problems in sorted(unfit.items()):
        kept = out.get(key, {})
        for p in sorted(problems):
            part = p.split(":", 1)[0]
            if (part == "request" and "request" in kept) or part in kept.get("responses", {}):
                continue
            print(f"[examples] does not validate: {key} {p}")
    total = sum(1 for _ in operations(spec))
    print(f"[examples] {len(out)} of {total} operations have examples; wrote {OUT}")


if __name__ == "__main__":
    main()
