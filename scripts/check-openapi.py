#!/usr/bin/env python3
"""Starts the built server on a free port with a throwaway database, fetches /openapi.json and
validates it with the official OpenAPI 3.1 validator (openapi-spec-validator). Also checks that
every operationId is unique, and that every operation has examples that validate against
their schemas: its request body's, and at least one answer with content (an operation whose
answers carry none, such as a redirect, has nothing to show). Every JSON error answer lists
the codes it can carry (`x-error-codes`, each in docs/error-codes.md, the recorded example's
among them), and every list pages one way: `cursor` and `limit` (with its maximum) in,
`nextCursor` out, unless it is a bounded list named in BOUNDED with the bound.
Exits non-zero on any error."""
import os, re, sys

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


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Lists answered whole, and why they stay small (the specification fixes some shapes).
BOUNDED = {
    "/api/v1/campaigns/invoices": "the specification's older endpoint: up to 100 newest",
    "/performance-marketing/v2/billing/invoices": "the specification: {items}, up to 100 newest",
    "/performance-marketing/v2/assets/{assetId}/creatives": "development-only uploads of one campaign",
    "/admin/v1/offer-campaigns/{campaignId}/changes": "one row per changed field of one campaign",
    "/performance-marketing/v2/providers/capabilities": "one row per tracking provider",
    "/publisher/v2/placements/{placementId}/ad-slots": "a placement holds at most 100 ad slots (409 limit_reached)",
    "/publisher/v2/ad-slots/{adSlotId}/static-offers": "the static feed: the whole inventory with ETag (specification)",
    "/sdk/v2/reward-status": "the specification's collection: the 100 latest changes, totals over all",
    "/sdk/v2/reward-status/{offerId}": "the specification's collection for one offer",
    "/sdk/v2/ad-slots/{adSlotId}/offers": "pages as the specification says: page {nextCursor, limit}",
    "/api/v1/campaigns/getcampaigns": "the 500 newest and next_cursor for searchcampaigns (a signed GET takes no query)",
    "/admin/v1/payouts/runs": "one run per month: the 24 newest months",
    "/auth/v1/api-keys": "an account holds at most 25 active keys (409 too_many_keys); revoked ones are listed for 30 days, 200 rows at most",
    "/admin/v1/mail": "the operators' console: the newest 100 letters (by status) and the counts of all; letters are kept 30 days",
    "/auth/v1/webhooks": "an organisation keeps at most 10 account webhooks (409 too_many_webhooks)",
    "/auth/v1/webhooks/{webhookId}/deliveries": "one endpoint's newest 100 deliveries",
}


def catalogue():
    rows = open(os.path.join(ROOT, "docs/error-codes.md")).read().splitlines()
    return {m.group(1) for m in (re.match(r"\|\s*`([a-z_]+)`\s*\|", r) for r in rows) if m}


def resolve(spec, schema):
    while isinstance(schema, dict) and "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema or {}


def error_code_problems(spec):
    known, problems, listed = catalogue(), [], 0
    for method, path, op in operations(spec):
        for status, r in op.get("responses", {}).items():
            c = r.get("content", {}).get("application/json", {})
            if not status[0] in "45" or c.get("schema", {}).get("$ref") != "#/components/schemas/ErrorBody":
                continue
            codes = r.get("x-error-codes")
            key = f"{method.upper()} {path} {status}"
            if not codes:
                problems.append(f"{key}: no x-error-codes")
                continue
            listed += 1
            for code in codes:
                if code not in known:
                    problems.append(f"{key}: {code} is not in docs/error-codes.md")
            shown = (c.get("example") or {}).get("error", {}).get("code")
            if shown and shown not in codes:
                problems.append(f"{key}: the example's {shown} is not listed")
    return problems, listed


def paging_problems(spec):
    problems, paged = [], 0
    for method, path, op in operations(spec):
        ok = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json")
        if method != "get" or not ok:
            continue
        schema = resolve(spec, ok.get("schema"))
        props = {k: resolve(spec, v) for k, v in schema.get("properties", {}).items()}
        is_list = schema.get("type") == "array" or any(
            k in props and props[k].get("type") == "array" for k in ("items", "campaigns"))
        if not is_list or path in BOUNDED:
            continue
        params = {p.get("name"): p for p in op.get("parameters", []) if p.get("in") == "query"}
        limit = resolve(spec, params.get("limit", {}).get("schema"))
        if "cursor" not in params or "maximum" not in limit:
            problems.append(f"GET {path}: a list without cursor and a bounded limit")
        elif not ({"nextCursor", "next_cursor"} & set(props)):
            problems.append(f"GET {path}: a paged list without nextCursor")
        else:
            paged += 1
    return problems, paged


def main():
    spec = spec_of(sys.argv[1] if len(sys.argv) > 1 else "target/debug/server", "openapi")
    errors = list(OpenAPIV31SpecValidator(spec).iter_errors())
    for e in errors[:20]:
        print(f"[openapi] {e.message[:200]}")
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    duplicates = sorted({i for i in ids if ids.count(i) > 1 or i is None}, key=str)
    problems, shown, empty = example_problems(spec)
    code_problems, listed = error_code_problems(spec)
    page_problems, paged = paging_problems(spec)
    problems += code_problems + page_problems
    for p in problems[:40]:
        print(f"[openapi] {p}")
    print(f"[openapi] {len(spec['paths'])} paths, {len(ids)} operations, {len(errors)} validator errors, "
          f"{len(duplicates)} duplicate operation ids; examples: {shown} operations shown, "
          f"{empty} without content to show; {listed} error answers list their codes; "
          f"{paged} paged lists, {len(BOUNDED)} bounded; {len(problems)} problems")
    if errors or duplicates or problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
