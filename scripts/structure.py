#!/usr/bin/env python3
"""The house's structural checks (docs/architecture.md, "Measures that may not grow").

usage: scripts/structure.py [--list]      (from the checkout; exits 1 when a check fails)

Each check prints its figure and its limit; --list also prints what it counts. `.ci/run` runs
this before the tests, so the house cannot drift between reviews.

Imports are read from `use` trees and inline paths (`crate::`, `super::`, `self::`, and
`app::` from the other crates), each resolved to the longest module path that is a file.
Test modules (`#[cfg(test)]`, always last in a file) and the `tests` crate are not the design
and are skipped.
"""
import os
import re
import subprocess
import sys
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
CRATES = {"app": "app/src", "server": "server/src", "entity": "entity/src", "migration": "migration/src"}
DOMAIN = os.path.join(ROOT, "app/src/domain")
LIST = "--list" in sys.argv


def rust_files():
    for crate, src in CRATES.items():
        base = os.path.join(ROOT, src)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d != "tests"]
            for f in filenames:
                if f.endswith(".rs"):
                    yield crate, base, os.path.join(dirpath, f)


def module_path(path, src):
    parts = os.path.relpath(path, src)[:-3].split(os.sep)
    return parts[:-1] if parts[-1] in ("mod", "lib", "main") else parts


def resolve(src, segs):
    """The file of the longest prefix of `segs` that is a module under `src`."""
    for n in range(len(segs), -1, -1):
        if n == 0:
            cands = [os.path.join(src, "lib.rs"), os.path.join(src, "main.rs")]
        else:
            base = os.path.join(src, *segs[:n])
            cands = [base + ".rs", os.path.join(base, "mod.rs")]
        for c in cands:
            if os.path.isfile(c):
                return c
    return None


def flatten_use(tree):
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, body):
        depth, start = 0, 0
        parts = []
        for i, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(body[start:i])
                start = i + 1
        parts.append(body[start:])
        for p in parts:
            if "{" in p:
                head, rest = p.split("{", 1)
                walk(prefix + head, rest[: rest.rfind("}")])
            elif p:
                out.append(prefix + p)

    walk("", tree)
    return out


def design_text(path):
    text = open(path, encoding="utf8", errors="replace").read()
    text = text.split("#[cfg(test)]")[0]
    return re.sub(r"//[^\n]*", "", text)


def import_edges():
    edges = defaultdict(set)
    for crate, src, path in rust_files():
        me = module_path(path, src)
        text = design_text(path)
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths += flatten_use(m.group(1))
        paths += re.findall(r"\b(?:crate|super|self|app)(?:::[A-Za-z_]\w*)+", text)
        for p in paths:
            p = re.split(r"\bas\b", p)[0]
            segs = [s for s in p.split("::") if s and s != "*"]
            if not segs:
                continue
            head = segs[0]
            if head == "crate":
                target_src, base, segs = src, [], segs[1:]
            elif head == "app" and crate != "app":
                target_src, base, segs = os.path.join(ROOT, CRATES["app"]), [], segs[1:]
            elif head == "self":
                target_src, base, segs = src, list(me), segs[1:]
            elif head == "super":
                # `super` is the parent of this file's own module (a mod.rs is its folder's)
                hops = 0
                while segs and segs[0] == "super":
                    hops, segs = hops + 1, segs[1:]
                target_src, base = src, list(me)[: max(len(me) - hops, 0)]
            else:
                continue
            target = resolve(target_src, base + segs)
            if target and target != path:
                edges[path].add(target)
    return edges


def file_circles(edges):
    """Strongly connected components of two or more files (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    nodes = set(edges) | {b for bs in edges.values() for b in bs}
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(os.path.relpath(c, ROOT) for c in comp))
    return out


def domain_folder(path):
    rel = os.path.relpath(path, DOMAIN).split(os.sep)
    return rel[0] if len(rel) > 1 and not rel[0].startswith("..") else None


def folder_pairs(edges):
    arrows = defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            fa, fb = domain_folder(a), domain_folder(b)
            if fa and fb and fa != fb:
                arrows[fa].add(fb)
    return sorted({tuple(sorted((a, b))) for a in arrows for b in arrows[a] if a in arrows.get(b, ())})


def declared_order():
    """The rooms of `app/src/domain/mod.rs`'s "order of rooms", lowest first."""
    order = []
    for line in open(os.path.join(DOMAIN, "mod.rs"), encoding="utf8"):
        m = re.match(r"//! - [^:`]+: (.*)$", line)
        if m:
            order += re.findall(r"`(\w+)`", m.group(1))
    return order


def domain_room(path):
    rel = os.path.relpath(path, DOMAIN).split(os.sep)
    if rel[0].startswith("..") or rel == ["mod.rs"]:
        return None
    return rel[0][:-3] if rel[0].endswith(".rs") else rel[0]


def against_order(edges):
    order = declared_order()
    rank = {room: i for i, room in enumerate(order)}
    found = set()
    rooms = {domain_room(f) for f in edges} | {domain_room(f) for bs in edges.values() for f in bs}
    for room in sorted(r for r in rooms if r and r not in rank):
        found.add(f"{room}: not in the order of rooms (app/src/domain/mod.rs)")
    for a, bs in edges.items():
        for b in bs:
            ra, rb = domain_room(a), domain_room(b)
            if ra in rank and rb in rank and ra != rb and rank[rb] > rank[ra]:
                found.add(f"{ra} imports {rb}, which comes after it ({os.path.relpath(a, ROOT)})")
    return sorted(found)


def grep(pattern, *paths):
    found = subprocess.run(["grep", "-rEn", pattern, *paths], cwd=ROOT, capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if line]


def long_domain_files():
    out = []
    for dirpath, _, filenames in os.walk(DOMAIN):
        for f in filenames:
            if f.endswith(".rs"):
                p = os.path.join(dirpath, f)
                n = sum(1 for _ in open(p, encoding="utf8", errors="replace"))
                if n > 500:
                    out.append(f"{os.path.relpath(p, ROOT)}: {n} lines")
    return out


# Status and kind columns stored as plain text, each with its reason (docs/decisions.md,
# "Rows hold their types"). Every other such column is typed by `entity::values`.
TEXT_COLUMNS = {
    "entity/src/sdk_session.rs: att_status": "the device's own tracking-consent answer, passed through",
}
STATUS_COLUMN = re.compile(r"^\s*pub (\w*(?:status|state|kind|outcome|settlement|role|preview|result)): (?:Option<)?String\b")


def text_status_columns():
    out = []
    for f in sorted(os.listdir(os.path.join(ROOT, "entity/src"))):
        if not f.endswith(".rs"):
            continue
        rel = f"entity/src/{f}"
        for line in open(os.path.join(ROOT, rel), encoding="utf8"):
            m = STATUS_COLUMN.match(line)
            if m and f"{rel}: {m.group(1)}" not in TEXT_COLUMNS:
                out.append(f"{rel}: {m.group(1)}")
    return out


def main():
    edges = import_edges()
    circles = [c for c in file_circles(edges) if not all(f.startswith("entity/") for f in c)]
    checks = [
        ("import circles between files outside entity", [" <-> ".join(c) for c in circles]),
        ("domain folder pairs importing each other", [f"{a} <-> {b}" for a, b in folder_pairs(edges)]),
        ("domain imports against the order of rooms", against_order(edges)),
        ("axum in the domain", grep(r"axum", "app/src/domain")),
        ("server functions called from the server crate", grep(r"app::server_fns", "server/src")),
        (
            "statuses compared as text",
            grep(r'(==|!=) *[A-Za-z_:]+\.as_str\(\)|\.as_str\(\) *(==|!=)|(==|!=) "[A-Z][A-Z_]+"', "app/src", "server/src"),
        ),
        ("status and kind columns stored as text (entity::values types them)", text_status_columns()),
        (
            "rows parsed for their status (the column holds its enum)",
            grep(r"::parse\(&[a-z_]+\.[a-z_.]*\b(status|state|kind|outcome|settlement|role)\)", "app/src/domain", "server/src"),
        ),
        ("domain files over 500 lines", long_domain_files()),
        (
            "routes matched by the end of their path (route_facts.rs declares them by template)",
            grep(r'ends_with\("/|path\(\)\.(ends_with|contains)\(', "server/src"),
        ),
        ("money without a type", grep(r"\b\w*_micros: i64", "app/src", "server/src")),
    ]
    failed = False
    for name, found in checks:
        ok = not found
        failed |= not ok
        print(f"[structure] {name}: {len(found)} (limit 0){'' if ok else '  FAILED'}")
        if found and (LIST or not ok):
            for line in found[:50]:
                print(f"    {line}")
    if failed:
        print("[structure] the house drifted; docs/architecture.md says where things go")
        sys.exit(1)


if __name__ == "__main__":
    main()
