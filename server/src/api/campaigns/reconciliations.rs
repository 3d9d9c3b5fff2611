//! Bulk reconciliation of the advertiser's conversions: create with a preview (JSON or
//! CSV), apply (queued for the worker), follow its progress and read its lines.

use app::domain::reconciliation;
use app::error::AppError;
use app::model::campaign::reconciliation::{
    Reconciliation, ReconciliationInput, ReconciliationLineQuery, ReconciliationLines,
    ReconciliationList,
};
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::api::ErrorBody;
use crate::api::sdk::IdempotencyKey;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, parse_json};
use crate::state::AppState;

use crate::extract::RECONCILIATION_BODY_BYTES;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create).layer(DefaultBodyLimit::max(RECONCILIATION_BODY_BYTES)))
        .routes(routes!(read))
        .routes(routes!(apply))
        .routes(routes!(lines))
}

/// The fields of a CSV upload, given as query parameters.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct CsvParams {
    /// With a `text/csv` body: `approve` or `reverse`.
    action: Option<String>,
    /// With a `text/csv` body: why (1-500 characters).
    reason: Option<String>,
    /// With a `text/csv` body: queue it at once.
    apply: Option<bool>,
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    /// Reconciliations per page: 1 to 500 (default 20).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The previous page's `nextCursor`.
    cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdPath {
    reconciliation_id: String,
}

/// Up to 10,000 transaction ids to `approve` or `reverse`, with a reason: as JSON, or as
/// `text/csv` lines `transaction_id[,campaign_id]` (a header line is skipped) with `action`,
/// `reason` and `apply` in the query. Every line is resolved and previewed (WILL_APPLY,
/// ALREADY_IN_STATE, UNKNOWN, AMBIGUOUS, OUTSIDE_WINDOW, NOT_ALLOWED, DUPLICATE_LINE);
/// nothing changes until it is applied (`apply: true`, or `POST …/{id}/apply`). Money moves
/// only within the reconciliation window (30 days after the conversion by default). 201 for
/// a new reconciliation; a retry with the same Idempotency-Key answers 200 with the first.
#[utoipa::path(post, path = "/conversions/reconciliations", tag = "campaigns", security(("dashboardBearer" = [])),
    params(CsvParams, ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first reconciliation")),
    request_body(content((ReconciliationInput = "application/json"), (String = "text/csv"))),
    responses((status = 201, body = Reconciliation), (status = 200, body = Reconciliation, description = "a retry with the same Idempotency-Key"),
        (status = 400, body = ErrorBody, description = "`invalid_input` with `fieldErrors` (`lines[3].transactionId`); `unsupported_media_type`; `malformed_json`"),
        (status = 403, body = ErrorBody), (status = 409, body = ErrorBody, description = "`idempotency_key_reused`: the key named another reconciliation"),
        (status = 413, body = ErrorBody, description = "`payload_too_large`: over 4 MiB")))]
async fn create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    IdempotencyKey(key): IdempotencyKey,
    AppQuery(q): AppQuery<CsvParams>,
    req: Request,
) -> Result<(StatusCode, AppJson<Reconciliation>), AppError> {
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase())
        .unwrap_or_default();
    let bytes = crate::extract::read_body(req, &s).await?;
    let input = match media.as_str() {
        "text/csv" | "text/plain" => {
            let text = std::str::from_utf8(&bytes)
                .ok()
                // PostgreSQL text cannot hold NUL; no transaction id has a use for it.
                .filter(|t| !t.contains('\0'))
                .ok_or_else(|| AppError::invalid("the CSV must be UTF-8 text without NUL"))?;
            ReconciliationInput {
                action: q.action,
                reason: q.reason,
                lines: Some(reconciliation::lines_from_csv(text)),
                apply: q.apply,
            }
        }
        "application/json" => parse_json(&bytes)?,
        _ => {
            return Err(
                AppError::invalid("Content-Type must be application/json or text/csv")
                    .with_code("unsupported_media_type"),
            );
        }
    };
    let (r, new) = reconciliation::create(&s.ctx, &p, key, input).await?;
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, AppJson(r)))
}

/// The caller's reconciliations, newest first, each with its preview and results.
#[utoipa::path(get, path = "/conversions/reconciliations", tag = "campaigns", security(("dashboardBearer" = [])), params(ListQuery),
    responses((status = 200, body = ReconciliationList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ListQuery>,
) -> Result<AppJson<ReconciliationList>, AppError> {
    let l = reconciliation::list(&s.ctx, &p, q.limit, q.cursor.as_deref()).await?;
    Ok(AppJson(l))
}

/// One reconciliation: its status (PREVIEWED, QUEUED, APPLYING, DONE), the preview and the
/// results so far by state, and the lines left.
#[utoipa::path(get, path = "/conversions/reconciliations/{reconciliationId}", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("reconciliationId" = String, Path)),
    responses((status = 200, body = Reconciliation), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(path): AppPath<IdPath>,
) -> Result<AppJson<Reconciliation>, AppError> {
    Ok(AppJson(
        reconciliation::get(&s.ctx, &p, &path.reconciliation_id).await?,
    ))
}

/// Queues a previewed reconciliation for applying (202). The worker applies it in small
/// transactions; each line's result is committed with the money it moved. Applying again
/// changes nothing and answers the reconciliation as it stands.
#[utoipa::path(post, path = "/conversions/reconciliations/{reconciliationId}/apply", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("reconciliationId" = String, Path)),
    responses((status = 202, body = Reconciliation), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn apply(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(path): AppPath<IdPath>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<Reconciliation>), AppError> {
    let r = reconciliation::queue(&s.ctx, &p, &path.reconciliation_id).await?;
    Ok((StatusCode::ACCEPTED, AppJson(r)))
}

/// The lines in request order with their preview and result, optionally of one state
/// (`state=UNKNOWN`); `format=csv` answers the same page as `text/csv`, the next page's
/// cursor in `X-Next-Cursor`.
#[utoipa::path(get, path = "/conversions/reconciliations/{reconciliationId}/lines", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("reconciliationId" = String, Path), ReconciliationLineQuery),
    responses((status = 200, description = "The lines (JSON), or CSV with format=csv", content((ReconciliationLines = "application/json"), (String = "text/csv"))), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn lines(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(path): AppPath<IdPath>,
    AppQuery(q): AppQuery<ReconciliationLineQuery>,
) -> Result<Response, AppError> {
    let csv = crate::api::csv::wants_csv(q.format.as_deref(), false)?;
    let l = reconciliation::lines(&s.ctx, &p, &path.reconciliation_id, &q).await?;
    Ok(crate::api::csv::answer(l, csv, "reconciliation-lines.csv"))
}

/// The dashboard's CSV upload (`POST /advertiser/conversions/upload`, a plain multipart form
/// with the cookie session: `csrf`, `action`, `reason` and the file in `file`): creates the
/// reconciliation and opens its preview; a refusal returns to the form with its reason.
pub async fn browser_upload(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    form: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Response {
    use axum::response::{IntoResponse, Redirect};
    match upload(&s, &session, form).await {
        Ok(id) => Redirect::to(&format!("/advertiser/reconciliations/{id}")).into_response(),
        Err(e) => {
            let why: String = url::form_urlencoded::byte_serialize(e.message.as_bytes()).collect();
            Redirect::to(&format!(
                "/advertiser/conversions?upload_error={why}#reconcile"
            ))
            .into_response()
        }
    }
}

async fn upload(
    s: &AppState,
    session: &tower_sessions::Session,
    form: Result<axum::extract::Multipart, axum::extract::multipart::MultipartRejection>,
) -> Result<String, AppError> {
    let p = app::auth::require_principal(&s.ctx, session).await?;
    let mut form = form.map_err(|_| AppError::invalid("the upload must be a multipart form"))?;
    let unreadable = |_| AppError::invalid("the upload could not be read (at most 4 MiB)");
    let (mut csrf, mut action, mut reason, mut file) = (None, None, None, None);
    while let Some(field) = form.next_field().await.map_err(unreadable)? {
        let name = field.name().unwrap_or_default().to_owned();
        let bytes = field.bytes().await.map_err(unreadable)?;
        let text = std::str::from_utf8(&bytes)
            .ok()
            .filter(|t| !t.contains('\0'))
            .ok_or_else(|| AppError::invalid("the file must be UTF-8 text (CSV)"))?
            .to_owned();
        match name.as_str() {
            "csrf" => csrf = Some(text),
            "action" => action = Some(text),
            "reason" => reason = Some(text),
            "file" => file = Some(text),
            _ => {}
        }
    }
    app::auth::check_csrf(session, csrf.as_deref().unwrap_or_default()).await?;
    let text = file
        .filter(|f| !f.trim().is_empty())
        .ok_or_else(|| AppError::field("file", "choose a CSV file"))?;
    // The file's content of the day: the same upload sent twice makes one reconciliation.
    let r = reconciliation::create_from_text(&s.ctx, &p, "upload", action, reason, &text).await?;
    Ok(r.reconciliation_id)
}
