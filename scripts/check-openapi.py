#!/usr/bin/env python3
"""Starts the built server on a free port with a throwaway database, fetches /openapi.json and
validates it with the official OpenAPI 3.1 validator (openapi-spec-validator). Also checks that
every operationId is unique, and that every operation has examples that validate against
their schemas: its request body's, and at least one answer with content (an operation whose
answers carry none, such as a redirect, has nothing to show). Exits non-zero on any error."""
import os, sys

from openapi_spec_validator import OpenAPIV31SpecValidator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from openapi_examples import first_error, operations, request_content, response_content, spec_of


def example_problems(spec):
    """(problems, operations with examples, operations with nothing to show)."""
    problems, shown, empty = [], 0, 0
    for method, path, op in operations(spec):
        key = f"{method.upper()} {path}"
        body = request_content(op)
        if body is not None:
            if "example" not in body[1]:
                problems.append(f"{key}: no request example")
            else:
                p = first_error(spec, body[1].get("schema", {}), body[1]["example"])
                if p:
                    problems.append(f"{key}: the request example does not validate at {p}")
        answers = [(s, response_content(r)) for s, r in op.get("responses", {}).items()]
        answers = [(s, c) for s, c in answers if c is not None]
        if not answers:
            empty += 1
            continue
        with_example = [(s, c) for s, c in answers if "example" in c[1]]
        if not with_example:
            problems.append(f"{key}: no answer example")
        for status, (_, content) in with_example:
            p = first_error(spec, content.get("schema", {}), content["example"])
            if p:
                problems.append(f"{key}: the {status} example does not validate at {p}")
        if with_example:
            shown += 1
    return problems, shown, empty


def main():
    spec = spec_of(sys.argv[1] if len(sys.argv) > 1 else "target/debug/server", "openapi")
    errors = list(OpenAPIV31SpecValidator(spec).iter_errors())
    for e in errors[:20]:
        print(f"[openapi] {e.message[:200]}")
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    duplicates = sorted({i for i in ids if ids.count(i) > 1 or i is None}, key=str)
    problems, shown, empty = example_problems(spec)
    for p in problems[:40]:
        print(f"[openapi] {p}")
    print(f"[openapi] {len(spec['paths'])} paths, {len(ids)} operations, {len(errors)} validator errors, "
          f"{len(duplicates)} duplicate operation ids; examples: {shown} operations shown, "
          f"{empty} without content to show, {len(problems)} problems")
    if errors or duplicates or problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
