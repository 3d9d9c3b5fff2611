//! The wall's help page: the support form and the user's cases, in the user's language.

use app::domain::delivery::offer_texts;
use app::domain::delivery::{reward_status, support_cases};
use app::domain::idempotency::IdempotencyKey;
use app::error::AppError;
use app::model::delivery::SdkSupportRequest;
use app::model::language::Language;
use axum::Form;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;

use super::html::{self, SupportView};
use super::{PAGE, Page, Wall, WallQuery, accept_language, i18n, open, refusal};
use crate::state::AppState;

/// The support form and the user's cases.
#[utoipa::path(get, path = "/offerwall/support", tag = "offerwall", params(WallQuery),
    responses((status = 200, description = "Support form and the user's cases", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String)))]
pub(super) async fn support(
    State(state): State<AppState>,
    headers: http::HeaderMap,
    Query(wq): Query<WallQuery>,
) -> Page {
    let w = open(&state, &wq, &headers, false).await?;
    let sent = wq.sent.as_deref() == Some("1");
    Ok(support_page(&state, &w, wq.offer.as_deref(), None, sent, "").await)
}

async fn support_page(
    state: &AppState,
    w: &Wall,
    picked: Option<&str>,
    error: Option<&str>,
    sent: bool,
    message: &str,
) -> Response {
    let page = app::domain::paging::Page::parse(Some(20), None, "case").ok();
    let cases = match page {
        Some(p) => support_cases::list(&state.ctx, &w.s, &p)
            .await
            .map(|l| l.items)
            .unwrap_or_default(),
        None => Vec::new(),
    };
    // Offers the user started or was rewarded for, plus the one the link names.
    let rewards = reward_status::status(&state.ctx, &w.s, None).await.ok();
    let mut ids: Vec<String> = rewards
        .iter()
        .flat_map(|r| r.items.iter().map(|i| i.offer_id.clone()))
        .chain(picked.map(str::to_owned))
        .collect();
    ids.sort();
    ids.dedup();
    let texts = offer_texts::for_offers(&state.ctx, ids.iter().map(String::as_str), w.lang).await;
    let offers: Vec<(String, String)> = ids
        .into_iter()
        .map(|id| {
            let t = texts
                .get(&id)
                .map_or_else(|| id.clone(), |x| x.title.clone());
            (id, t)
        })
        .collect();
    let nonce = app::domain::crypto::random_token("wall");
    let fields = format!("{}{}", w.fields, html::hidden(&[("nonce", &nonce)]));
    let view = SupportView {
        offers: &offers,
        picked,
        error,
        sent,
        cases: &cases,
        message,
    };
    let body = html::support(&w.frame(), &fields, &view);
    let mut r = w.page(i18n::texts(w.lang).help, &body);
    if error.is_some() {
        *r.status_mut() = StatusCode::BAD_REQUEST;
    }
    r
}

/// The support form: the wall's query values, a nonce (the Idempotency-Key), the offer,
/// reasonCode (3 to 64 of A-Z, 0-9, _) and message (10 to 2,000 characters).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub(super) struct CaseForm {
    token: Option<String>,
    slot: Option<String>,
    country: Option<String>,
    embed: Option<String>,
    lang: Option<String>,
    nonce: Option<String>,
    offer_id: Option<String>,
    reason_code: Option<String>,
    message: Option<String>,
}

/// Opens a support case; the form's nonce is the Idempotency-Key, so a double submit
/// opens one case.
#[utoipa::path(post, path = "/offerwall/support", tag = "offerwall",
    request_body(content = CaseForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "Back to the support page with sent=1"),
        (status = 400, description = "The form with what to fix", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String)))]
pub(super) async fn open_case(
    State(state): State<AppState>,
    headers: http::HeaderMap,
    form: Result<Form<CaseForm>, axum::extract::rejection::FormRejection>,
) -> Page {
    let Ok(Form(f)) = form else {
        let lang = Language::choose(None, accept_language(&headers));
        return Err(refusal(
            AppError::invalid("the support form could not be read"),
            lang,
        ));
    };
    let wq = WallQuery {
        token: f.token.clone(),
        slot: f.slot.clone(),
        country: f.country.clone(),
        embed: f.embed.clone(),
        lang: f.lang.clone(),
        ..Default::default()
    };
    let w = open(&state, &wq, &headers, true).await?;
    let nonce = f
        .nonce
        .clone()
        .filter(|n| n.len() >= 16 && n.len() <= 100 && n.chars().all(|c| c.is_ascii_graphic()))
        .unwrap_or_else(|| app::domain::crypto::random_token("wall"));
    let key = IdempotencyKey::derived(format!(
        "wall-support-{}",
        nonce.trim_start_matches("wall_")
    ));
    let offer = f.offer_id.clone().filter(|o| !o.is_empty());
    let req = SdkSupportRequest {
        session_id: Some(w.s.id.clone()),
        reason_code: f.reason_code.clone(),
        message: f.message.clone(),
        offer_id: offer.clone(),
    };
    Ok(
        match support_cases::open(&state.ctx, &w.s, req, &key).await {
            Ok(_) => {
                let to = format!("/offerwall/support?{}&sent=1", w.qs.replace("&amp;", "&"));
                let mut r = StatusCode::SEE_OTHER.into_response();
                if let Ok(v) = HeaderValue::from_str(&to) {
                    r.headers_mut().insert(header::LOCATION, v);
                }
                r.headers_mut().insert(
                    header::REFERRER_POLICY,
                    HeaderValue::from_static("no-referrer"),
                );
                r
            }
            Err(e) => {
                let why = if e.field_errors.contains_key("message") {
                    i18n::texts(w.lang).message_length.to_owned()
                } else {
                    e.message.clone()
                };
                let msg = f.message.clone().unwrap_or_default();
                support_page(&state, &w, offer.as_deref(), Some(&why), false, &msg).await
            }
        },
    )
}
