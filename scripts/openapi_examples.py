"""Shared by check-openapi.py and record-examples.py: fetching the built server's OpenAPI
document, and checking examples against the document's schemas (JSON Schema 2020-12, the
dialect of OpenAPI 3.1, with `#/components/...` references resolved in the document)."""
import json, os, socket, subprocess, sys, tempfile, time, urllib.request
from contextlib import contextmanager

from jsonschema import Draft202012Validator


@contextmanager
def running_server(binary):
    """The built server on a free port with a throwaway database; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, APP_DATABASE_URL=f"sqlite://{d}/app.db?mode=rwc", APP_DATA_DIR=f"{d}/data",
                   APP_BIND=f"127.0.0.1:{port}", RUST_LOG="warn")
        env.pop("APP_RECORD_EXAMPLES", None)
        proc = subprocess.Popen([binary, "serve"], env=env)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait()


def fetch_spec(base):
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{base}/openapi.json") as r:
                return json.load(r)
        except OSError:
            time.sleep(0.1)
    return None


def spec_of(binary, tag):
    """The document the built `binary` serves; exits when it does not answer."""
    with running_server(binary) as base:
        spec = fetch_spec(base)
    if spec is None:
        sys.exit(f"[{tag}] the server did not answer")
    return spec


METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")


def operations(spec):
    """(method, path, operation) for every operation of the document."""
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield method, path, item[method]


def validator(spec, schema):
    """A validator of `schema` that resolves the document's component references."""
    return Draft202012Validator({**schema, "components": spec.get("components", {})})


def first_error(spec, schema, example):
    """None when `example` validates against `schema`, else the first problem, readable."""
    errors = sorted(validator(spec, schema).iter_errors(example), key=lambda e: list(e.path))
    if not errors:
        return None
    e = errors[0]
    where = "/".join(str(p) for p in e.path) or "(root)"
    return f"{where}: {e.message[:160]}"


def showable(kind):
    """Content an example can show: JSON, a form, or text (pages and CSV, cut short). Files
    (images, multipart uploads) have no example."""
    return kind in ("application/json", "application/x-www-form-urlencoded") or kind.startswith("text/")


def _content(content):
    for kind in ("application/json", *content.keys()):
        if kind in content and showable(kind):
            return kind, content[kind]
    return None


def request_content(op):
    """(media type, content) of an operation's request body, JSON preferred; None without one
    that an example can show."""
    return _content((op.get("requestBody") or {}).get("content") or {})


def response_content(response):
    """(media type, content) of an answer, JSON preferred; None without showable content."""
    return _content(response.get("content") or {})
