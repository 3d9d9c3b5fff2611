//! The one error type of the service. Every refusal, on every surface, becomes an
//! [`AppError`] and renders the envelope of CONTRACT.md section 6:
//! `{"error": {"code", "message", "fieldErrors"?}}`. Internal failures are logged where
//! they happen and reach the caller only as a generic `internal` error.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A refusal with an HTTP status, a stable snake_case code and a human message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub status: u16,
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub field_errors: BTreeMap<String, String>,
    /// Seconds for a `Retry-After` header (429 and some 503s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl AppError {
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_owned(),
            message: message.into(),
            field_errors: BTreeMap::new(),
            retry_after: None,
        }
    }

    /// 400 `invalid_input` without a particular field.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(400, "invalid_input", message)
    }

    /// 400 `invalid_input` naming the field at fault.
    pub fn field(field: &str, why: impl Into<String>) -> Self {
        let why = why.into();
        let mut e = Self::new(400, "invalid_input", format!("{field}: {why}"));
        e.field_errors.insert(field.to_owned(), why);
        e
    }

    /// 400 `invalid_input` from a set of field problems: the first [`MAX_FIELD_ERRORS`]
    /// are listed, the rest counted.
    pub fn fields(errors: BTreeMap<String, String>) -> Self {
        let more = errors.len().saturating_sub(MAX_FIELD_ERRORS);
        Self::listing(errors.into_iter().take(MAX_FIELD_ERRORS).collect(), more)
    }

    /// The message names the first [`MESSAGE_FIELDS`] problems (the rest are in
    /// `fieldErrors`), then counts what neither lists.
    fn listing(errors: BTreeMap<String, String>, more: usize) -> Self {
        let mut message = errors
            .iter()
            .take(MESSAGE_FIELDS)
            .map(|(f, w)| format!("{f}: {w}"))
            .collect::<Vec<_>>()
            .join("; ");
        let in_fields_only = errors.len().saturating_sub(MESSAGE_FIELDS);
        if in_fields_only > 0 {
            message.push_str(&format!("; {in_fields_only} more in fieldErrors"));
        }
        if more > 0 {
            message.push_str(&format!("; and {more} more problems not listed"));
        }
        let mut e = Self::new(400, "invalid_input", message);
        e.field_errors = errors;
        e
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(401, "unauthorized", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(403, "forbidden", message)
    }

    /// 404 `not_found`; also what a disabled surface answers.
    pub fn not_found(what: &str) -> Self {
        Self::new(404, "not_found", format!("{what} not found"))
    }

    /// 410 `gone`: a link that existed but has expired.
    pub fn gone(message: impl Into<String>) -> Self {
        Self::new(410, "gone", message)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(409, "conflict", message)
    }

    pub fn payload_too_large(limit_bytes: usize) -> Self {
        Self::new(
            413,
            "payload_too_large",
            format!("request body exceeds {limit_bytes} bytes"),
        )
    }

    pub fn rate_limited(retry_after_secs: u64) -> Self {
        let mut e = Self::new(
            429,
            "rate_limited",
            "too many requests; retry after the indicated delay",
        );
        e.retry_after = Some(retry_after_secs.max(1));
        e
    }

    /// 500 `internal`. The cause must already have been logged by the caller.
    pub fn internal() -> Self {
        Self::new(500, "internal", "unexpected server error")
    }

    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(503, "unavailable", message)
    }

    /// 503 `service_unavailable` with `Retry-After: 2`: the database cannot be reached now.
    pub fn database_unavailable() -> Self {
        let mut e = Self::new(
            503,
            "service_unavailable",
            "the service is temporarily unavailable; retry shortly",
        );
        e.retry_after = Some(2);
        e
    }

    /// Replace the code, keeping status and message (`sdk_session_expired`, `account_pending`, …).
    pub fn with_code(mut self, code: &str) -> Self {
        self.code = code.to_owned();
        self
    }

    /// The wire body of CONTRACT.md section 6.
    pub fn body(&self) -> serde_json::Value {
        let mut inner = serde_json::json!({"code": self.code, "message": self.message});
        if !self.field_errors.is_empty() {
            inner["fieldErrors"] = serde_json::json!(self.field_errors);
        }
        serde_json::json!({ "error": inner })
    }
}

/// The most field problems one answer lists. A request of a million bad lines is told of
/// the first hundred and how many more there were, so neither the answer nor what the
/// server holds while checking grows with the input (issue 52).
pub const MAX_FIELD_ERRORS: usize = 100;
/// The field problems the message itself names.
const MESSAGE_FIELDS: usize = 10;

/// Collects field problems while parsing a request, then fails once with all of them (the
/// first [`MAX_FIELD_ERRORS`], and a count of the rest).
#[derive(Debug, Default)]
pub struct FieldErrors {
    kept: BTreeMap<String, String>,
    more: usize,
}

impl FieldErrors {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(&mut self, field: &str, why: impl Into<String>) {
        if self.kept.contains_key(field) {
            return;
        }
        if self.kept.len() < MAX_FIELD_ERRORS {
            self.kept.insert(field.to_owned(), why.into());
        } else {
            self.more += 1;
        }
    }

    /// Keeps the value when the parse succeeded, records the error otherwise.
    pub fn check<T>(&mut self, field: &str, r: Result<T, String>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(why) => {
                self.add(field, why);
                None
            }
        }
    }

    pub fn finish(self) -> Result<(), AppError> {
        if self.kept.is_empty() {
            Ok(())
        } else {
            Err(AppError::listing(self.kept, self.more))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thousand_problems_answer_with_a_hundred_and_a_count() {
        let mut errs = FieldErrors::new();
        for i in 0..1000 {
            errs.add(&format!("lines[{i}]"), "must not be empty");
        }
        let e = errs.finish().unwrap_err();
        assert_eq!(e.field_errors.len(), MAX_FIELD_ERRORS);
        assert!(
            e.field_errors.contains_key("lines[0]") && e.field_errors.contains_key("lines[99]")
        );
        assert!(!e.field_errors.contains_key("lines[100]"));
        assert!(
            e.message.ends_with("; and 900 more problems not listed"),
            "{}",
            e.message
        );
        assert!(
            e.message.contains("; 90 more in fieldErrors"),
            "{}",
            e.message
        );
        assert!(e.body().to_string().len() < 8 * 1024);
    }

    #[test]
    fn a_few_problems_are_all_listed() {
        let mut errs = FieldErrors::new();
        errs.add("name", "must not be empty");
        errs.add("name", "second reason for the same field is dropped");
        errs.add("url", "must be https");
        let e = errs.finish().unwrap_err();
        assert_eq!(e.message, "name: must not be empty; url: must be https");
        assert_eq!(AppError::fields(e.field_errors.clone()), e);
    }
}

#[cfg(feature = "ssr")]
mod http_impl {
    use super::AppError;
    use axum::response::{IntoResponse, Response};

    impl IntoResponse for AppError {
        fn into_response(self) -> Response {
            let status = http::StatusCode::from_u16(self.status)
                .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
            let mut res = (status, axum::Json(self.body())).into_response();
            if let Some(secs) = self.retry_after {
                res.headers_mut()
                    .insert(http::header::RETRY_AFTER, http::HeaderValue::from(secs));
            }
            res
        }
    }

    impl From<sea_orm::DbErr> for AppError {
        /// Database failures are logged here and never shown to the caller.
        fn from(err: sea_orm::DbErr) -> Self {
            if crate::domain::db::outage::is_unavailable(&err) {
                tracing::warn!(error = %err, "database unavailable");
                crate::domain::db::outage::note_unavailable();
                return AppError::database_unavailable();
            }
            tracing::error!(error = %err, "database error");
            AppError::internal()
        }
    }

    impl<E: std::fmt::Display> From<sea_orm::TransactionError<E>> for AppError
    where
        AppError: From<E>,
        E: std::error::Error,
    {
        fn from(err: sea_orm::TransactionError<E>) -> Self {
            match err {
                sea_orm::TransactionError::Connection(db) => db.into(),
                sea_orm::TransactionError::Transaction(e) => e.into(),
            }
        }
    }
}
