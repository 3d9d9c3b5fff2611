//! Our own extractors, so a malformed request is always our 400 with the error body of
//! CONTRACT.md section 6 and never axum's plain-text rejection.

use app::domain::accounts::api_keys::KeyUse;
use app::domain::accounts::{second_factor, teams};
use app::domain::{Principal, tokens};
use app::error::AppError;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::response::{IntoResponse, Response};
use http::request::Parts;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::state::AppState;

/// The client address the outer layer resolved (one import of the dashboards' type for
/// every handler).
pub(crate) use app::auth::ClientIp;

/// Largest JSON body any route accepts (evidence uploads have their own limit).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// An evidence upload's limit: a multipart body around one 5 MiB file (the file itself is
/// checked exactly).
pub const EVIDENCE_BODY_BYTES: usize =
    app::domain::delivery::support_cases::evidence::MAX_EVIDENCE_BYTES + 64 * 1024;

/// The body limit of a reconciliation: 10,000 lines of transaction ids up to 200
/// characters and a campaign id need more than the usual 1 MiB.
pub const RECONCILIATION_BODY_BYTES: usize = 4 * 1024 * 1024;

/// Refuses a body that is not declared JSON (`application/json` or `application/…+json`).
pub fn require_json(headers: &http::HeaderMap) -> Result<(), AppError> {
    let is_json = headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
        .unwrap_or(false);
    if is_json {
        Ok(())
    } else {
        Err(AppError::invalid("Content-Type must be application/json")
            .with_code("unsupported_media_type"))
    }
}

/// A JSON body parsed with field paths for `fieldErrors`; also a JSON response.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for AppJson<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        require_json(req.headers())?;
        let bytes = read_body(req, state).await?;
        parse_json(&bytes).map(AppJson)
    }
}

impl<T: Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

/// The raw body, within [`MAX_BODY_BYTES`] (signatures are checked over these bytes).
pub async fn read_body<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, AppError> {
    Bytes::from_request(req, state)
        .await
        .map_err(|rej| match rej {
            BytesRejection::FailedToBufferBody(_)
                if rej.status() == http::StatusCode::PAYLOAD_TOO_LARGE =>
            {
                AppError::payload_too_large(MAX_BODY_BYTES)
            }
            _ => AppError::invalid("the request body could not be read"),
        })
}

/// Parses JSON, naming the offending field (`goals[0].payoutMicros`) when the shape is wrong.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    if has_nul_escape(bytes) {
        // PostgreSQL text cannot hold NUL; no field of ours has a use for it.
        return Err(AppError::invalid(
            "strings must not contain the NUL character (\\u0000)",
        ));
    }
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            AppError::invalid(format!("malformed JSON: {inner}")).with_code("malformed_json")
        } else {
            let field = if path == "." || path.is_empty() {
                "body".to_owned()
            } else {
                path
            };
            // serde's message ends with " at line L column C", which helps nobody here.
            let msg = inner.to_string();
            let msg = msg.split(" at line ").next().unwrap_or(&msg).to_owned();
            AppError::field(&field, msg)
        }
    })?;
    de.end().map_err(|_| {
        AppError::invalid("malformed JSON: trailing characters").with_code("malformed_json")
    })?;
    Ok(value)
}

/// Whether a URI part carries a percent-encoded NUL (`%00`).
pub fn has_encoded_nul(part: Option<&str>) -> bool {
    part.is_some_and(|p| p.as_bytes().windows(3).any(|w| w == b"%00"))
}

/// Whether a JSON text holds the escape `\u0000` (an escape, not an escaped backslash
/// followed by the letters).
pub fn has_nul_escape(bytes: &[u8]) -> bool {
    let mut backslashes = 0usize;
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\\' {
            backslashes += 1;
            continue;
        }
        if backslashes % 2 == 1 && *b == b'u' && bytes.get(i + 1..i + 5) == Some(b"0000".as_slice())
        {
            return true;
        }
        backslashes = 0;
    }
    false
}

/// Query parameters with our error body.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for AppQuery<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        if has_encoded_nul(parts.uri.query()) {
            // PostgreSQL text cannot hold NUL (a search for it would be a 500, not a miss).
            return Err(AppError::invalid(
                "query values must not contain the NUL character (%00)",
            ));
        }
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(v)| AppQuery(v))
            .map_err(|e: QueryRejection| {
                let text = e.body_text();
                let text = text
                    .strip_prefix("Failed to deserialize query string: ")
                    .unwrap_or(&text)
                    .to_owned();
                match text.split_once(": ") {
                    Some((field, why)) if !field.contains(' ') => AppError::field(field, why),
                    _ => AppError::invalid(format!("invalid query: {text}")),
                }
            })
    }
}

/// Path parameters with our error body (a malformed id is simply not found).
#[derive(Debug, Clone, Copy, Default)]
pub struct AppPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for AppPath<T> {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, AppError> {
        if has_encoded_nul(Some(parts.uri.path())) {
            return Err(AppError::not_found("resource"));
        }
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(v)| AppPath(v))
            .map_err(|_: PathRejection| AppError::not_found("resource"))
    }
}

/// The bearer token of the `Authorization` header, if any.
pub fn bearer(parts: &Parts) -> Option<&str> {
    let v = parts
        .headers
        .get(http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// An authenticated dashboard account (a bearer token, or an API key granted this route's
/// area: `route_facts::key_use`). Role checks happen in the domain.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Principal);

impl FromRequestParts<AppState> for Authenticated {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        authorize(parts, state).await.map(Authenticated)
    }
}

/// The account behind the request's bearer token or API key, with what the matched route
/// asks of a key (a route that matched nothing accepts no key).
pub async fn authorize(parts: &Parts, state: &AppState) -> Result<Principal, AppError> {
    let token = bearer(parts)
        .ok_or_else(|| AppError::unauthorized("a dashboard bearer token is required"))?;
    let route = parts.extensions.get::<axum::extract::MatchedPath>();
    let need = route.map_or(KeyUse::Closed, |r| {
        crate::route_facts::key_use(&parts.method, r.as_str())
    });
    let p = tokens::authorize(&state.ctx, token, need).await?;
    // Deny by default for team roles: a route outside the areas and outside the person's own
    // `/auth/v1/` routes (which check their own rules) is for owners and admins.
    let own = route.is_some_and(|r| r.as_str().starts_with("/auth/v1/"));
    if need == KeyUse::Closed && !own && !p.team_role.manages_team() {
        return Err(teams::refusal(&p, "use this route"));
    }
    // An administrator without the second factor the service requires can still turn it on.
    if !own {
        second_factor::admin_may_act(&state.ctx, &p).await?;
    }
    Ok(p)
}

/// The `X-Second-Factor` header: a code of the account's authenticator app (or a recovery
/// code), asked again before a payout profile change, a payout request or a new API key
/// when the account has a second factor (403 `step_up_required` without it).
#[derive(Debug, Clone, Default)]
pub struct SecondFactor(pub Option<String>);

/// The header's name and its documentation, for the operations that ask for it.
pub const SECOND_FACTOR_HEADER: &str = "X-Second-Factor";

impl<S: Send + Sync> FromRequestParts<S> for SecondFactor {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        Ok(SecondFactor(
            parts
                .headers
                .get(SECOND_FACTOR_HEADER)
                .and_then(|v| v.to_str().ok())
                .map(|v| v.trim().chars().take(40).collect()),
        ))
    }
}

/// A body that must be empty or a JSON object, for action routes whose body carries
/// nothing (`request-review` takes `{}`); malformed JSON is still a 400.
#[derive(Debug, Clone, Copy, Default)]
pub struct EmptyObject;

impl<S: Send + Sync> FromRequest<S> for EmptyObject {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let bytes = read_body(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(EmptyObject);
        }
        match parse_json::<serde_json::Value>(&bytes)? {
            serde_json::Value::Object(_) => Ok(EmptyObject),
            _ => Err(AppError::invalid("the body must be an empty JSON object")),
        }
    }
}

/// A JSON body that may be left out: an empty body is `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let bytes = read_body(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        parse_json(&bytes).map(OptionalJson)
    }
}

/// 201 for something new, 200 for what an idempotent retry found already there.
pub fn created_or_ok<T>(v: T, created: bool) -> (http::StatusCode, AppJson<T>) {
    let status = if created {
        http::StatusCode::CREATED
    } else {
        http::StatusCode::OK
    };
    (status, AppJson(v))
}

#[cfg(test)]
mod nul_tests {
    use super::has_nul_escape;

    #[test]
    fn finds_percent_encoded_nul() {
        use super::has_encoded_nul;
        assert!(has_encoded_nul(Some("q=%C3%A6%00")));
        assert!(!has_encoded_nul(Some("q=100%25")));
        assert!(!has_encoded_nul(None));
    }

    #[test]
    fn finds_nul_escapes_only() {
        assert!(has_nul_escape(br#"{"a":"x\u0000y"}"#));
        assert!(has_nul_escape(br#"{"a":"\\\u0000"}"#));
        assert!(
            !has_nul_escape(br#"{"a":"\\u0000"}"#),
            "an escaped backslash, then text"
        );
        assert!(!has_nul_escape(br#"{"a":"\u0001 \u00e9"}"#));
    }
}

/// Reads the file in multipart field `name`, at most `max` bytes (413 beyond). Other fields
/// are ignored; a missing field or a body that is not multipart is 400.
pub async fn evidence_field(
    form: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
    name: &str,
    max: usize,
) -> Result<app::domain::delivery::support_cases::evidence::EvidenceUpload, AppError> {
    let bad = |why: &str| AppError::field(name, why.to_owned());
    let too_large = || AppError::payload_too_large(max);
    let mut form = form.map_err(|_| {
        AppError::invalid("Content-Type must be multipart/form-data")
            .with_code("unsupported_media_type")
    })?;
    let read_err = |e: axum::extract::multipart::MultipartError| {
        if e.status() == http::StatusCode::PAYLOAD_TOO_LARGE {
            too_large()
        } else {
            AppError::invalid("the multipart body could not be read")
        }
    };
    while let Some(mut field) = form.next_field().await.map_err(read_err)? {
        if field.name() != Some(name) {
            continue;
        }
        let file_name = field.file_name().map(str::to_owned);
        let mut bytes = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(read_err)? {
            if bytes.len() + chunk.len() > max {
                return Err(too_large());
            }
            bytes.extend_from_slice(&chunk);
        }
        return Ok(
            app::domain::delivery::support_cases::evidence::EvidenceUpload { file_name, bytes },
        );
    }
    Err(bad("is required (multipart field with the file)"))
}
