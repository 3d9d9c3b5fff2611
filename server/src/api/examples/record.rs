//! Recording real exchanges for the OpenAPI document's examples (development only). When
//! `APP_RECORD_EXAMPLES` names a file, every exchange on a documented route is appended to
//! it as one JSON line: method, route template, request body, status and answer.
//! `scripts/record-examples.py` runs the integration tests with it and keeps, for every
//! operation, a request and one answer per status that validate against the document; they
//! ship in `server/openapi-examples.json`. Without the variable the layer is not added.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::{Mutex, OnceLock};

use axum::body::{Body, Bytes};
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode, header};
use serde_json::{Value, json};

static RECORDER: OnceLock<Option<Mutex<File>>> = OnceLock::new();

fn recorder() -> Option<&'static Mutex<File>> {
    RECORDER
        .get_or_init(|| {
            let path = std::env::var_os("APP_RECORD_EXAMPLES")?;
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .ok()?;
            Some(Mutex::new(file))
        })
        .as_ref()
}

/// Whether this process records (the layer is added only then).
pub fn enabled() -> bool {
    recorder().is_some()
}

/// Bodies read whole while recording (an upload or export above it is not recorded).
const MAX_BODY: usize = 8 * 1024 * 1024;
/// Text answers (pages, CSV) are kept to their beginning.
const MAX_TEXT: usize = 1_500;

fn media_type(h: &HeaderMap) -> String {
    h.get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// A body as the document shows it: JSON parsed, text cut short, anything else left out.
fn shown(kind: &str, bytes: &Bytes) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    if kind == "application/json" {
        return serde_json::from_slice(bytes).unwrap_or(Value::Null);
    }
    if kind.starts_with("text/") || kind == "application/x-www-form-urlencoded" {
        let text = String::from_utf8_lossy(bytes);
        let cut: String = text.chars().take(MAX_TEXT).collect();
        return Value::String(cut);
    }
    Value::Null
}

/// The layer: passes the exchange through and, when recording, appends it.
pub async fn record(req: Request, next: Next) -> Response {
    let Some(file) = recorder() else {
        return next.run(req).await;
    };
    let Some(route) = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
    else {
        return next.run(req).await;
    };
    let method = req.method().as_str().to_ascii_lowercase();
    let asked = media_type(req.headers());
    let (parts, body) = req.into_parts();
    let Ok(sent) = axum::body::to_bytes(body, MAX_BODY).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let res = next
        .run(Request::from_parts(parts, Body::from(sent.clone())))
        .await;
    if res.headers().contains_key(header::CONTENT_ENCODING) {
        return res;
    }
    let answered = media_type(res.headers());
    let (parts, body) = res.into_parts();
    let Ok(got) = axum::body::to_bytes(body, MAX_BODY).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    let line = json!({
        "method": method,
        "path": route,
        "requestType": asked,
        "request": shown(&asked, &sent),
        "status": parts.status.as_u16(),
        "responseType": answered,
        "response": shown(&answered, &got),
    });
    // One write per line: a second process recording to the same file appends whole lines.
    let line = format!("{line}\n");
    if let Ok(mut f) = file.lock() {
        let _ = f.write_all(line.as_bytes());
    }
    Response::from_parts(parts, Body::from(got))
}
