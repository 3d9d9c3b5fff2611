//! The signed survey campaign API (`/api/v1/campaigns`): `X-Api-Key` plus the `enc` URL
//! signature on every call. Campaign create, list, read, update and delete, and the older
//! invoices endpoint. Quotas, qualifications and custom questions come with the survey issue.

use std::net::{IpAddr, SocketAddr};

use app::domain::Principal;
use app::domain::billing::invoices;
use app::domain::surveys::{campaigns, signature};
use app::error::AppError;
use app::model::billing::InvoiceList;
use app::model::survey::campaign::*;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, OriginalUri, Request, State};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, parse_json, read_body};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(create))
        .routes(routes!(read, update, delete))
        .routes(routes!(legacy_invoices))
        .routes(routes!(respondent_status))
        .routes(routes!(download_responses, download_responses_post))
        .routes(routes!(test_redirect))
        .routes(routes!(test_entry))
}

/// An authenticated survey API call: the advertiser and the raw body it signed.
pub struct Signed {
    pub principal: Principal,
    pub body: Bytes,
}

impl Signed {
    /// The body as JSON (an empty body is the type's default).
    pub fn json<T: DeserializeOwned + Default>(&self) -> Result<T, AppError> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(T::default());
        }
        parse_json(&self.body)
    }
}

impl FromRequest<AppState> for Signed {
    type Rejection = axum::response::Response;

    /// Checks the signature, then an `Idempotency-Key` on a POST: a retry is answered with
    /// the first answer only once it is signed like the first request.
    async fn from_request(req: Request, state: &AppState) -> Result<Self, Self::Rejection> {
        use axum::response::IntoResponse;
        let method = req.method().clone();
        let headers = req.headers().clone();
        let path = req
            .extensions()
            .get::<OriginalUri>()
            .map_or_else(|| req.uri().path().to_owned(), |u| u.0.path().to_owned());
        let signed = Self::verify(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        crate::idempotent_answers::begin_signed(
            state,
            &signed.principal.account_id,
            (&method, &path, &headers),
            &signed.body,
        )
        .await?;
        Ok(signed)
    }
}

impl Signed {
    async fn verify(req: Request, state: &AppState) -> Result<Self, AppError> {
        let headers = req.headers().clone();
        // 600 requests per minute per presented API key, counted before the body is read
        // or the signature checked: 429 with Retry-After (docs/surveys.md).
        let presented = headers.get("x-api-key").and_then(|v| v.to_str().ok());
        state.ctx.limits.check(
            app::domain::Policy::SurveyApi,
            presented.unwrap_or_default(),
        )?;
        // `nest` strips the mount prefix from the URI; the signature covers the full path.
        let uri = req
            .extensions()
            .get::<OriginalUri>()
            .map(|OriginalUri(u)| u.clone())
            .unwrap_or_else(|| req.uri().clone());
        let method = req.method().clone();
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(a)| a.ip())
            .unwrap_or(IpAddr::from([127, 0, 0, 1]));
        let body = read_body(req, state).await?;
        // `enc` must be the only query parameter.
        let enc = match uri.query().map(|q| q.split('&').collect::<Vec<_>>()) {
            Some(pairs) if pairs.len() == 1 => pairs[0].strip_prefix("enc=").map(str::to_owned),
            Some(_) => {
                return Err(
                    AppError::unauthorized("enc must be the only query parameter")
                        .with_code("invalid_signature"),
                );
            }
            None => None,
        };
        // Scheme and host as the server sees them: the forwarded protocol counts only from a
        // trusted proxy.
        let forwarded = headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .filter(|_| crate::middleware::is_trusted(&state.settings.trusted_proxies, &peer))
            .map(|v| {
                v.split(',')
                    .next()
                    .unwrap_or("http")
                    .trim()
                    .to_ascii_lowercase()
            });
        let scheme = forwarded.unwrap_or_else(|| "http".to_owned());
        let host = headers
            .get(http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .ok_or_else(|| AppError::invalid("the Host header is required"))?;
        let url = format!("{scheme}://{host}{}", uri.path());
        let api_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
        let timestamp = headers
            .get("x-request-timestamp")
            .and_then(|v| v.to_str().ok());
        let version = headers
            .get("x-signature-version")
            .and_then(|v| v.to_str().ok());
        let principal = signature::authenticate(
            &state.ctx,
            signature::SignedRequest {
                api_key,
                method: method.as_str(),
                url: &url,
                body: &body,
                enc: enc.as_deref(),
                timestamp,
                version,
            },
        )
        .await?;
        Ok(Signed { principal, body })
    }
}

/// Campaigns visible to the calling advertiser, newest first: the 500 newest as
/// `{campaigns, count, next_cursor}`; when `next_cursor` is set, `POST /searchcampaigns` with
/// `{"cursor": next_cursor}` returns the rest in the same order.
#[utoipa::path(get, path = "/getcampaigns", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")),
    responses((status = 200, body = SurveyCampaignList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    r: Signed,
) -> Result<AppJson<SurveyCampaignList>, AppError> {
    campaigns::list(&s.ctx, &r.principal).await.map(AppJson)
}

/// Create a DRAFT survey campaign (not funded, approved or live). Both links must contain
/// `{transaction_id}`; the name has at least four characters.
#[utoipa::path(post, path = "/create", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query, description = "URL signature")), request_body = SurveyCampaignInput,
    responses((status = 201, body = SurveyCreated), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn create(
    State(s): State<AppState>,
    r: Signed,
) -> Result<(StatusCode, AppJson<SurveyCreated>), AppError> {
    let input: SurveyCampaignInput = r.json()?;
    Ok((
        StatusCode::CREATED,
        AppJson(campaigns::create(&s.ctx, &r.principal, input).await?),
    ))
}

/// One survey campaign of the caller.
#[utoipa::path(get, path = "/{campaignId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query)),
    responses((status = 200, body = SurveyCampaign), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    r: Signed,
) -> Result<AppJson<SurveyCampaign>, AppError> {
    campaigns::get(&s.ctx, &r.principal, &id).await.map(AppJson)
}

/// Update named fields of a DRAFT or PENDINGAPPROVAL campaign, or move its status
/// (DRAFT↔PENDINGAPPROVAL, LIVE↔PAUSED, LIVE/PAUSED→CLOSED).
#[utoipa::path(put, path = "/{campaignId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query)), request_body = SurveyCampaignInput,
    responses((status = 200, body = SurveyCampaign), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn update(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    r: Signed,
) -> Result<AppJson<SurveyCampaign>, AppError> {
    let input: SurveyCampaignInput = r.json()?;
    campaigns::update(&s.ctx, &r.principal, &id, input)
        .await
        .map(AppJson)
}

/// Delete an unpaid DRAFT or PENDINGAPPROVAL campaign.
#[utoipa::path(delete, path = "/{campaignId}", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query)),
    responses((status = 200, body = SurveyMessage), (status = 409, body = ErrorBody)))]
async fn delete(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    r: Signed,
) -> Result<AppJson<SurveyMessage>, AppError> {
    campaigns::delete(&s.ctx, &r.principal, &id)
        .await
        .map(AppJson)
}

/// The older advertiser invoices endpoint: the same monthly invoices as
/// `GET /performance-marketing/v2/billing/invoices`, `{items}`.
#[utoipa::path(get, path = "/invoices", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query)), responses((status = 200, body = InvoiceList), (status = 401, body = ErrorBody)))]
async fn legacy_invoices(
    State(s): State<AppState>,
    r: Signed,
) -> Result<AppJson<InvoiceList>, AppError> {
    invoices::list(&s.ctx, &r.principal, None)
        .await
        .map(AppJson)
}

/// Report the outcome of one respondent transaction (the `{transaction_id}` the live link
/// received): `complete` settles it — the CPI moves from the wallet reservation to spend,
/// the quota counts it and the publisher's reward callback is queued; `terminate`,
/// `overquota` and `quality_fail` close it unpaid. Repeating an outcome is a no-op
/// (`duplicate: true`); a different outcome of a finished transaction is 409. A complete
/// beyond the campaign's total, daily or quota limit is recorded OVERQUOTA and not paid.
/// `reversed` takes back a paid complete within the reconciliation window (30 days): the
/// CPI returns to the advertiser, the publisher's share leaves its earnings and its reversal
/// callback is queued; the answer says `REVERSED`, `paid: false`.
#[utoipa::path(post, path = "/{campaignId}/respondent-status", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query)), request_body = app::domain::surveys::entries::OutcomeInput,
    responses((status = 200, body = app::domain::surveys::entries::OutcomeReceipt), (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody), (status = 409, body = ErrorBody, description = "`transaction_finished`: another outcome was recorded; `transaction_not_paid`: only a paid complete can be reversed; `reconciliation_window_closed`: more than the window after the complete; `survey_closed`; `no_budget`")))]
async fn respondent_status(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    r: Signed,
) -> Result<AppJson<app::domain::surveys::entries::OutcomeReceipt>, AppError> {
    let input = r.json()?;
    app::domain::surveys::entries::report(&s.ctx, &r.principal, &id, input)
        .await
        .map(AppJson)
}

/// Where the survey's test link sends testers back (`creator.test_redirect_url`); an HTML
/// page confirming the transaction id arrived. Unsigned: it moves nothing.
#[utoipa::path(get, path = "/{campaignId}/test-redirect", tag = "survey-campaigns",
    params(("campaignId" = String, Path), ("transaction_id" = Option<String>, Query)),
    responses((status = 200, description = "Confirmation page", content_type = "text/html", body = String)))]
async fn test_redirect(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    q: axum::extract::Query<std::collections::HashMap<String, String>>,
) -> axum::response::Response {
    super::fetch::test_redirect(&s, &id, q.get("transaction_id").cloned()).await
}

/// Start a test transaction on the campaign's `survey_test_link` (any status): answers the
/// test URL to open and the redirect the test survey must end on. Report it like a live
/// transaction or let the test survey redirect to `test_redirect_url`; test traffic is never
/// paid.
#[utoipa::path(post, path = "/{campaignId}/test-entry", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("campaignId" = String, Path), ("enc" = String, Query)),
    responses((status = 201, body = app::domain::surveys::entries::TestEntry), (status = 404, body = ErrorBody)))]
async fn test_entry(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    r: Signed,
) -> Result<
    (
        StatusCode,
        AppJson<app::domain::surveys::entries::TestEntry>,
    ),
    AppError,
> {
    let t = app::domain::surveys::entries::start_test(&s.ctx, &r.principal, &id).await?;
    Ok((StatusCode::CREATED, AppJson(t)))
}

/// The responses CSV as a download (both the signed API and the dashboard route).
fn csv_answer(text: String) -> axum::response::Response {
    use axum::response::IntoResponse;
    (
        [
            (http::header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                http::header::CONTENT_DISPOSITION,
                "attachment; filename=\"survey-responses.csv\"",
            ),
            (http::header::CACHE_CONTROL, "no-store"),
        ],
        text,
    )
        .into_response()
}

async fn responses_csv(s: &AppState, r: Signed) -> Result<axum::response::Response, AppError> {
    let q: app::domain::surveys::responses::ResponsesQuery = r.json()?;
    let text = app::domain::surveys::responses::download(&s.ctx, &r.principal, q).await?;
    Ok(csv_answer(text))
}

/// Respondent entries as CSV: transaction, campaign, respondent id, locale, status,
/// verification, quota, timings, cost and profiling answers, for every campaign of the key's
/// advertiser over the last 30 days (UTC), at most 50,000 rows. A signed GET carries no
/// body; `POST /downloadresponses` takes the range `{campaign_id?, from?, to?}` (at most 366
/// days).
#[utoipa::path(get, path = "/downloadresponses", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query)),
    responses((status = 200, description = "CSV", content_type = "text/csv", body = String), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn download_responses(
    State(s): State<AppState>,
    r: Signed,
) -> Result<axum::response::Response, AppError> {
    responses_csv(&s, r).await
}

/// The same CSV as `GET /downloadresponses`, with an optional range in the signed JSON body
/// `{campaign_id?, from?, to?}`: days (UTC) of entry, default the last 30, at most 366.
#[utoipa::path(post, path = "/downloadresponses", tag = "survey-campaigns", security(("surveyApiKey" = [])),
    params(("enc" = String, Query)), request_body = app::domain::surveys::responses::ResponsesQuery,
    responses((status = 200, description = "CSV", content_type = "text/csv", body = String), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn download_responses_post(
    State(s): State<AppState>,
    r: Signed,
) -> Result<axum::response::Response, AppError> {
    responses_csv(&s, r).await
}

/// `GET /advertiser/surveys/{id}/responses.csv?from&to` for the signed-in dashboard browser.
pub async fn browser_responses_csv(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppPath(id): AppPath<String>,
    axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Result<axum::response::Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    let date = |k: &str| -> Result<Option<chrono::NaiveDate>, AppError> {
        match q.get(k).filter(|v| !v.is_empty()) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| AppError::field(k, "must be a date (YYYY-MM-DD)")),
        }
    };
    let query = app::domain::surveys::responses::ResponsesQuery {
        campaign_id: Some(id),
        from: date("from")?,
        to: date("to")?,
    };
    let text = app::domain::surveys::responses::download(&s.ctx, &p, query).await?;
    Ok(csv_answer(text))
}
