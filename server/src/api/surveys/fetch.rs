//! The publisher side of surveys: the survey fetch (`POST /getallsurveys-api`, app key), the
//! hosted entry a SurveyUrl opens (`/surveys/v1/entry/{token}`), the page respondents return
//! to, and the advertiser's test redirect. Entry pages carry a signed link: they are never
//! cached and never send a referrer.

use app::domain::surveys::{entries, fetch};
use app::error::AppError;
use app::model::survey::fetch::{SurveyEnvelope, SurveyFetchRequest};
use axum::Form;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, AppPath};
use crate::state::AppState;

/// A delivery route group (`api::delivery_routes`): the list answers compressed when asked.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_all_surveys))
        .routes(routes!(open_entry, verify_entry))
        .routes(routes!(survey_return))
        .layer(crate::layers::compression())
}

/// Surveys for one respondent, server to server. The envelope's `ErrorCode` is always
/// present: SUCCESS 200; INVALID_PROFILE and COUNTRY_LANGUAGE_UNSUPPORTED 400 (with
/// `fieldErrors`); UNAUTHORIZED 401; FORBIDDEN 403 (AppId is not the key's placement);
/// FRAUD_BLOCKED 403 (do not retry or send the user to a supplier); NOT_FOUND 404 (nothing
/// fits now, retry later). Redirect the respondent to `SurveyUrl` exactly as returned.
/// Limited to 3,000 requests per minute per app key: 429 `rate_limited` (the JSON error
/// body) with `Retry-After`.
#[utoipa::path(post, path = "/getallsurveys-api", tag = "survey-fetch",
    security(("surveyAppKey" = [])), request_body = SurveyFetchRequest,
    responses((status = 200, body = SurveyEnvelope), (status = 400, body = SurveyEnvelope),
        (status = 401, body = SurveyEnvelope), (status = 403, body = SurveyEnvelope),
        (status = 404, body = SurveyEnvelope), (status = 429, body = crate::api::ErrorBody)))]
pub(crate) async fn get_all_surveys(
    State(s): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, AppJson<SurveyEnvelope>), AppError> {
    let key = headers
        .get("x-service-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    // Per presented key, before any work: 429 with Retry-After (docs/surveys.md).
    s.ctx
        .limits
        .check(app::domain::Policy::SurveyFetch, key.unwrap_or_default())?;
    let (status, envelope) = fetch::fetch(&s.ctx, key, &body).await?;
    Ok((
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        AppJson(envelope),
    ))
}

fn private(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    res
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><style>body{{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}}\
         button{{font-size:1rem;padding:.5rem 1.25rem}}input{{font-size:1rem;padding:.4rem;width:5rem}}</style></head>\
         <body><h1>{t}</h1>{body}</body></html>",
        t = escape(title)
    );
    private((status, Html(html)).into_response())
}

fn entry_answer(token: &str, e: Result<entries::Entry, AppError>) -> Response {
    match e {
        // 302 Found, as survey suppliers expect (not 303).
        Ok(entries::Entry::Redirect(url)) => match url::Url::parse(&url)
            .ok()
            .and_then(|u| HeaderValue::from_str(u.as_str()).ok())
        {
            Some(v) => private((StatusCode::FOUND, [(header::LOCATION, v)]).into_response()),
            None => page(
                StatusCode::CONFLICT,
                "Survey unavailable",
                "<p>The survey's address is not valid.</p>",
            ),
        },
        Ok(entries::Entry::Verify { prompt, numeric }) => page(
            StatusCode::OK,
            "One quick check",
            &format!(
                "<p>Before the survey starts, please answer this question.</p>\
                 <form method=\"post\" action=\"/surveys/v1/entry/{}\"><label>{} \
                 <input name=\"answer\" inputmode=\"{}\" autocomplete=\"off\" required></label> \
                 <button type=\"submit\">Continue</button></form>",
                escape(token),
                escape(&prompt),
                if numeric { "numeric" } else { "text" }
            ),
        ),
        Ok(entries::Entry::Unavailable(why)) => page(
            StatusCode::OK,
            "Survey unavailable",
            &format!("<p>{}</p>", escape(why)),
        ),
        Err(err) => {
            let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::BAD_REQUEST);
            let msg = if status == StatusCode::TOO_MANY_REQUESTS {
                "Too many answers in a short time. Please wait a minute and try again."
            } else if status == StatusCode::GONE {
                "This survey link has expired. Please go back and choose a survey again."
            } else if status.is_server_error() {
                "Something went wrong. Please try again in a moment."
            } else {
                "This survey link is not valid."
            };
            page(status, "Survey unavailable", &format!("<p>{msg}</p>"))
        }
    }
}

/// The hosted survey entry a `SurveyUrl` opens: verifies the link, re-checks the survey
/// still fits, asks medium-risk respondents one question, records the entry and redirects
/// (302) to the survey with `{transaction_id}` filled in.
#[utoipa::path(get, path = "/surveys/v1/entry/{token}", tag = "survey-fetch",
    params(("token" = String, Path, description = "From SurveyUrl")),
    responses((status = 302, description = "To the survey"), (status = 200, description = "Verification step or unavailable page", content_type = "text/html", body = String),
        (status = 404, description = "Invalid link", content_type = "text/html", body = String), (status = 410, description = "Expired link", content_type = "text/html", body = String)))]
async fn open_entry(State(s): State<AppState>, AppPath(token): AppPath<String>) -> Response {
    let e = entries::enter(&s.ctx, &token, None).await;
    entry_answer(&token, e)
}

#[derive(Deserialize, utoipa::ToSchema)]
struct VerifyForm {
    answer: String,
}

/// The verification step's answer (form post); continues like the GET when it is right.
#[utoipa::path(post, path = "/surveys/v1/entry/{token}", tag = "survey-fetch",
    params(("token" = String, Path)), request_body(content = VerifyForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 302, description = "To the survey"), (status = 200, description = "Asked again", content_type = "text/html", body = String),
        (status = 404, description = "Invalid link", content_type = "text/html", body = String)))]
async fn verify_entry(
    State(s): State<AppState>,
    AppPath(token): AppPath<String>,
    form: Result<Form<VerifyForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    // A post without the field (or not a form) is a wrong answer: the step asks again.
    let answer = form.map(|Form(f)| f.answer).unwrap_or_default();
    let e = entries::enter(&s.ctx, &token, Some(&answer)).await;
    entry_answer(&token, e)
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReturnQuery {
    pub transaction_id: Option<String>,
    pub status: Option<String>,
}

/// Where a survey sends the respondent at the end (`?transaction_id=…&status=complete|
/// terminate|overquota|quality_fail`). A thank-you page that changes nothing: only the
/// advertiser's signed report decides a transaction's outcome and payment.
#[utoipa::path(get, path = "/surveys/v1/return", tag = "survey-fetch", params(ReturnQuery),
    responses((status = 200, description = "Thank-you page", content_type = "text/html", body = String)))]
async fn survey_return(Query(q): Query<ReturnQuery>) -> Response {
    let msg = entries::browser_return(q.status.as_deref().unwrap_or(""));
    page(
        StatusCode::OK,
        "Thank you",
        &format!("<p>{}</p>", escape(msg)),
    )
}

/// Test redirect page (`creator.test_redirect_url`): records an open test transaction of the
/// campaign as COMPLETE (never paid) and confirms the redirect works.
pub async fn test_redirect(s: &AppState, id: &str, transaction_id: Option<String>) -> Response {
    let tx: String = transaction_id
        .unwrap_or_default()
        .chars()
        .take(64)
        .collect();
    let recorded = entries::test_returned(&s.ctx, id, &tx)
        .await
        .unwrap_or(false);
    let note = if recorded {
        "The test transaction is recorded as complete (test traffic is never paid)."
    } else {
        "No open test transaction has this id; start one with POST …/test-entry. Nothing was recorded."
    };
    page(
        StatusCode::OK,
        "Test redirect received",
        &format!(
            "<p>Survey campaign <code>{}</code> sent the tester back with transaction <code>{}</code>.</p><p>{note}</p>",
            escape(id),
            escape(&tx)
        ),
    )
}
