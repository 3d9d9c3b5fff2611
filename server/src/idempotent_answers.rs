//! `Idempotency-Key` on every POST of the dashboard JSON API (issue 35, part 4): a request
//! that carries the header is recorded for its account before it runs and a retry gets the
//! stored answer (`app::domain::idempotency::stored`), so creating placements, slots, keys,
//! campaigns, credentials or wire fundings twice by retrying is impossible. Without the
//! header nothing changes. The key belongs to the account of the bearer token, so a token
//! refreshed between two tries still finds the first answer.
//!
//! The routes whose handlers read the header themselves (payout requests, reconciliations,
//! sandbox callbacks) keep their own rules, fixed before this layer; the SDK and postbacks
//! are outside it. The signed survey API takes the key after its signature is checked
//! ([`begin_signed`] from its extractor, [`signed_answers`] around its routes).

use app::domain::crypto;
use app::domain::idempotency::IdempotencyKey;
use app::domain::idempotency::stored::{self, Begun, StoredAnswer};
use app::domain::rate_limit::{carry, recording};
use app::error::AppError;
use axum::body::{Body, to_bytes};
use axum::extract::{MatchedPath, OriginalUri, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, Method, header};

use crate::extract::MAX_BODY_BYTES;
use crate::route_facts::{self, KeyRule};
use crate::state::AppState;

/// The largest answer stored (creating answers are a few kilobytes).
const MAX_ANSWER_BYTES: usize = 1024 * 1024;

pub async fn stored_answers(State(state): State<AppState>, req: Request, next: Next) -> Response {
    // Only POSTs whose route follows the stored answers' rule (`route_facts`); the handlers
    // of the others apply the key themselves or take none.
    let stored_rule = req
        .extensions()
        .get::<MatchedPath>()
        .is_some_and(|r| route_facts::key_rule(req.method(), r.as_str()) == KeyRule::Stored);
    if !stored_rule {
        return next.run(req).await;
    }
    let Some(raw) = req.headers().get("idempotency-key") else {
        return next.run(req).await;
    };
    let key = match IdempotencyKey::from_header(raw.to_str().ok()) {
        Ok(k) => k,
        Err(e) => return e.into_response(),
    };
    let (parts, body) = req.into_parts();
    // Without a valid token (or an API key granted this route) the handler answers 401 or
    // 403 as it would without the key: a stored answer is never replayed to such a caller.
    let account = match crate::extract::authorize(&parts, &state).await {
        Ok(p) => p.account_id,
        Err(_) => return next.run(Request::from_parts(parts, body)).await,
    };
    let Ok(bytes) = to_bytes(body, MAX_BODY_BYTES).await else {
        return AppError::payload_too_large(MAX_BODY_BYTES).into_response();
    };
    // The full path (`nest` strips the mount prefix from the URI the layer sees).
    let path = parts
        .extensions
        .get::<OriginalUri>()
        .map_or_else(|| parts.uri.path().to_owned(), |u| u.0.path().to_owned());
    let hash = crypto::sha256_hex(&format!(
        "{}\n{path}\n{}",
        parts.method,
        String::from_utf8_lossy(&bytes)
    ));
    let id = match stored::begin(&state.ctx, &account, &key, &hash).await {
        Err(e) => return e.into_response(),
        Ok(Begun::Replay(answer)) => return replayed(answer),
        Ok(Begun::Run(id)) => id,
    };
    let req = Request::from_parts(parts, Body::from(bytes));
    to_the_end(async move {
        let res = next.run(req).await;
        keep(&state, &id, res).await
    })
    .await
}

/// Runs a recorded request and the keeping of its answer on a task of its own: when the
/// request's deadline gives up on it (its client gets 408), a handler that already committed
/// still finishes and its answer is kept, so the retry gets it instead of running the
/// request again once the record's lock lapses. The rate-limit checks it made are carried
/// to the caller's `RateLimit` headers.
async fn to_the_end<F>(run: F) -> Response
where
    F: std::future::Future<Output = Response> + Send + 'static,
{
    match tokio::spawn(recording(run)).await {
        Ok((res, limits)) => {
            carry(limits);
            res
        }
        // The outer layer turns a panic into the JSON 500, as for any handler.
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(_) => AppError::internal().into_response(),
    }
}

/// Stores the answer of the request recorded as `id` and gives it. An answer that is not a
/// known-size text (a stream, a large export) is given but not kept, so a retry runs again.
async fn keep(state: &AppState, id: &str, res: Response) -> Response {
    use axum::body::HttpBody as _;
    let (parts, body) = res.into_parts();
    let small = body
        .size_hint()
        .exact()
        .is_some_and(|n| n <= MAX_ANSWER_BYTES as u64);
    if !small {
        forget(state, id).await;
        return Response::from_parts(parts, body);
    }
    let bytes = match to_bytes(body, MAX_ANSWER_BYTES).await {
        Ok(b) => b,
        Err(e) => {
            tracing::error!(error = %e, "an answer could not be read to be stored");
            forget(state, id).await;
            return AppError::internal().into_response();
        }
    };
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match String::from_utf8(bytes.to_vec()) {
        Ok(text) => {
            let answer = StoredAnswer {
                status: parts.status.as_u16(),
                content_type,
                body: text,
            };
            if let Err(e) = stored::finish(&state.ctx, id, answer).await {
                // The answer was given; the retry will find the key in progress until its
                // lock lapses, then run again.
                tracing::warn!(error = %e.message, "an idempotent answer could not be stored");
            }
        }
        Err(_) => forget(state, id).await,
    }
    Response::from_parts(parts, Body::from(bytes))
}

async fn forget(state: &AppState, id: &str) {
    if let Err(e) = stored::forget(&state.ctx, id).await {
        tracing::warn!(error = %e.message, "an idempotency record could not be dropped");
    }
}

/// The stored answer again, marked as a replay.
fn replayed(answer: StoredAnswer) -> Response {
    let status = http::StatusCode::from_u16(answer.status).unwrap_or(http::StatusCode::OK);
    let mut res = (status, answer.body).into_response();
    if let Some(v) = answer
        .content_type
        .and_then(|c| HeaderValue::from_str(&c).ok())
    {
        res.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    res.headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    res
}

tokio::task_local! {
    /// The record of a signed survey API request begun by its extractor, for [`signed_answers`].
    static SIGNED: std::cell::RefCell<Option<String>>;
}

/// The layer of the signed survey API: its extractor checks the signature first (a replay
/// must be signed like the first request) and then calls [`begin_signed`]; this layer
/// stores the answer of a request so begun.
pub async fn signed_answers(State(state): State<AppState>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST || !req.headers().contains_key("idempotency-key") {
        return next.run(req).await;
    }
    to_the_end(SIGNED.scope(std::cell::RefCell::new(None), async move {
        let res = next.run(req).await;
        match SIGNED.with(std::cell::RefCell::take) {
            Some(id) => keep(&state, &id, res).await,
            None => res,
        }
    }))
    .await
}

/// For a signed survey API POST with an `Idempotency-Key`, once its signature is checked:
/// `Err` with the answer to give instead of running it (a replay or a refusal), else the
/// request runs and [`signed_answers`] keeps its answer.
pub async fn begin_signed(
    state: &AppState,
    account_id: &str,
    parts: (&Method, &str, &http::HeaderMap),
    body: &[u8],
) -> Result<(), Response> {
    let (method, path, headers) = parts;
    if method != Method::POST {
        return Ok(());
    }
    let Some(raw) = headers.get("idempotency-key") else {
        return Ok(());
    };
    let key =
        IdempotencyKey::from_header(raw.to_str().ok()).map_err(IntoResponse::into_response)?;
    let hash = crypto::sha256_hex(&format!(
        "{method}\n{path}\n{}",
        String::from_utf8_lossy(body)
    ));
    match stored::begin(&state.ctx, account_id, &key, &hash).await {
        Err(e) => Err(e.into_response()),
        Ok(Begun::Replay(answer)) => Err(replayed(answer)),
        Ok(Begun::Run(id)) => {
            let _ = SIGNED.try_with(|s| *s.borrow_mut() = Some(id));
            Ok(())
        }
    }
}
