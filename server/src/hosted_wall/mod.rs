//! The hosted offerwall at `/offerwall`: the page a session's `hostedOfferwallUrl` opens in a
//! web view or in the web SDK's overlay. The session token travels in the query (`token`)
//! and in form fields, never in a cookie, so the wall works inside third-party iframes;
//! every answer is `no-store` with `Referrer-Policy: no-referrer`, and the request log
//! records paths only. Offers, impressions, launches, reward status and support cases go
//! through the same domain calls as the JSON SDK routes.
//!
//! Query of every page: `token` (required), `slot` (an OFFERWALL slot of the placement),
//! `country` (two letters, when the publisher knows it), `embed=1` (set by the web SDK:
//! shows a close button and opens advertisers in a new tab).

mod assets;
mod headers;
mod html;

use std::collections::HashMap;

use app::domain::Policy;
use app::domain::delivery::{
    hosted_wall, impressions, launches, offer_list, offers, reward_status, sessions, support_cases,
};
use app::domain::idempotency::IdempotencyKey;
use app::error::AppError;
use app::model::delivery::{LaunchRequest, OfferListQuery, SdkSupportRequest};
use app::model::publisher::AdSlot;
use app::model::wall_design::{WallDesign, WallExposure};
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;
use headers::{respond, wall_policy};
use html::{Frame, q};

/// The wall's pages and assets, documented in the OpenAPI document (tag `offerwall`; every
/// page answers HTML, refusals too).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(detail))
        .routes(routes!(launch))
        .routes(routes!(rewards))
        .routes(routes!(support, open_case))
        .merge(assets::router())
}

/// The query of every wall page.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct WallQuery {
    /// The SDK session token (sensitive: never logged, no referrer leaves the wall).
    token: Option<String>,
    /// An OFFERWALL slot of the placement (default: the session's slot).
    slot: Option<String>,
    /// Two uppercase letters, when the publisher knows the user's country.
    country: Option<String>,
    /// `1` inside the web SDK's frame: a close button, advertisers open in a new tab.
    embed: Option<String>,
    /// The offer list's next page.
    cursor: Option<String>,
    /// The support form's preselected offer.
    offer: Option<String>,
    /// `1` after a support case was sent.
    sent: Option<String>,
}

/// Refusals are pages too (expired or revoked link, banned user, unavailable offer).
const PAGE: &str = "text/html";

/// A session opened on the wall, with its slot and look.
struct Wall {
    s: std::sync::Arc<app::domain::delivery::actor::SdkActor>,
    slot: AdSlot,
    design: WallDesign,
    exposure: WallExposure,
    embed: bool,
    country: Option<String>,
    /// The query that keeps the user in this wall.
    qs: String,
    /// The same values as hidden form fields.
    fields: String,
    /// The page's Content-Security-Policy (who may frame it).
    csp: String,
}

impl Wall {
    fn frame(&self) -> Frame<'_> {
        Frame {
            qs: &self.qs,
            design: &self.design,
            embed: self.embed,
            show_rewards: self.exposure.show_reward_status,
            show_support: self.exposure.show_support,
        }
    }

    fn page(&self, title: &str, body: &str) -> Response {
        let mut r = respond(StatusCode::OK, html::page(&self.frame(), title, body));
        if let Ok(v) = HeaderValue::from_str(&self.csp) {
            r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
        }
        r
    }
}

/// An error as a page the user understands.
fn refusal(e: AppError) -> Response {
    let (title, text) = match e.code.as_str() {
        "sdk_session_expired" => (
            "This offerwall has expired",
            "For your security the link works for fifteen minutes. Close it and open the offerwall again.",
        ),
        "sdk_session_revoked" | "unauthorized" => (
            "This offerwall link is no longer valid",
            "Close it and open the offerwall again.",
        ),
        "user_banned" => (
            "Offers are not available",
            "Offers are not available for your account.",
        ),
        "rate_limited" => ("Too many requests", "Please wait a moment and try again."),
        "offer_unavailable" => (
            "This offer is no longer available",
            "It may have ended or reached its limit. Go back to see other offers.",
        ),
        _ if e.status >= 500 => ("Something went wrong", "Please try again in a moment."),
        _ => ("This page is not available", e.message.as_str()),
    };
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
    respond(status, html::notice(title, text))
}

/// Opens the session named by `token` for a wall page.
async fn open(state: &AppState, wq: &WallQuery, write: bool) -> Result<Wall, Response> {
    let token = wq
        .token
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| refusal(AppError::unauthorized("the offerwall link has no token")))?;
    let ctx = &state.ctx;
    let s = sessions::authenticate(ctx, token).await.map_err(refusal)?;
    let policy = if write {
        Policy::SdkWrite
    } else {
        Policy::SdkRead
    };
    ctx.limits.check(policy, &s.id).map_err(refusal)?;
    let country = offers::country_param(wq.country.as_deref()).map_err(refusal)?;
    let (_, slot) = hosted_wall::slot(ctx, &s, wq.slot.as_deref())
        .await
        .map_err(refusal)?;
    let embed = wq.embed.as_deref() == Some("1");
    let mut qs = format!("token={}&amp;slot={}", q(token), q(&slot.ad_slot_id));
    if let Some(c) = &country {
        qs += &format!("&amp;country={c}");
    }
    if embed {
        qs += "&amp;embed=1";
    }
    let fields = html::hidden(&[
        ("token", token),
        ("slot", &slot.ad_slot_id),
        ("country", country.as_deref().unwrap_or("")),
        ("embed", if embed { "1" } else { "" }),
    ]);
    let development = state.ctx.config.environment != app::domain::Environment::Production;
    let csp = wall_policy(&s, development);
    Ok(Wall {
        csp,
        design: WallDesign::read(&slot.design),
        exposure: WallExposure::read(&slot.exposure),
        s,
        slot,
        embed,
        country,
        qs,
        fields,
    })
}

async fn progress(state: &AppState, w: &Wall) -> HashMap<String, &'static str> {
    match reward_status::status(&state.ctx, &w.s, None).await {
        Ok(r) => hosted_wall::progress_by_offer(&r).into_iter().collect(),
        Err(_) => HashMap::new(),
    }
}

/// The offer list (or the no-fill state).
#[utoipa::path(get, path = "/offerwall", tag = "offerwall", params(WallQuery),
    responses((status = 200, description = "Offers or no fill", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String),
        (status = 403, description = "User banned", content_type = PAGE, body = String)))]
async fn list(
    State(state): State<AppState>,
    headers: http::HeaderMap,
    Query(wq): Query<WallQuery>,
) -> Response {
    let w = match open(&state, &wq, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    // The browser's own User-Agent feeds device targeting (unknown values hide nothing).
    let ua = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let (device_type, os_version) = hosted_wall::device_from_user_agent(ua, &w.s.platform);
    let query = OfferListQuery {
        country: w.country.clone(),
        cursor: wq.cursor.clone(),
        limit: Some(w.exposure.max_offers),
        device_type,
        os_version,
        ..Default::default()
    };
    let list = match offer_list::list(&state.ctx, &w.s, &w.slot.ad_slot_id, query).await {
        Ok(l) => l,
        Err(e) => return refusal(e),
    };
    let progress = progress(&state, &w).await;
    let next = list
        .page
        .next_cursor
        .as_deref()
        .map(|c| format!("{}&amp;cursor={}", w.qs, q(c)));
    let body = html::offer_list(&w.frame(), &list, &progress, next);
    w.page("Offers", &body)
}

/// An offer's details. Showing them is the impression; the launch form carries its id.
#[utoipa::path(get, path = "/offerwall/offers/{offerId}", tag = "offerwall",
    params(("offerId" = String, Path), WallQuery),
    responses((status = 200, description = "Requirements, goals and disclaimer before the launch button", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String),
        (status = 404, description = "Offer unavailable for this user", content_type = PAGE, body = String)))]
async fn detail(
    State(state): State<AppState>,
    Path(offer_id): Path<String>,
    Query(wq): Query<WallQuery>,
) -> Response {
    let w = match open(&state, &wq, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let ctx = &state.ctx;
    let slot = Some(w.slot.ad_slot_id.as_str());
    let item = match offers::get(ctx, &w.s, &offer_id, slot).await {
        Ok(i) => i,
        Err(e) => return refusal(e),
    };
    let status = progress(&state, &w).await.get(&offer_id).copied();
    let mut fields = w.fields.clone();
    if item.availability.status != app::model::delivery::AvailabilityStatus::Completed {
        let key = hosted_wall::impression_key(ctx, &w.s, &offer_id);
        match impressions::record(ctx, &w.s, &offer_id, slot, &key).await {
            Ok((receipt, _)) => {
                fields += &html::hidden(&[("impression_id", &receipt.impression_id)])
            }
            Err(e) => return refusal(e),
        }
    }
    let body = html::offer_detail(&w.frame(), &item, status, &fields);
    w.page(&item.title, &body)
}

/// The launch form: the wall's query values and the impression the detail page recorded.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct LaunchForm {
    token: Option<String>,
    slot: Option<String>,
    country: Option<String>,
    embed: Option<String>,
    impression_id: Option<String>,
}

/// Launch from the shown offer: 303 to the signed launch link, which redirects to the
/// advertiser with a fresh click id.
#[utoipa::path(post, path = "/offerwall/offers/{offerId}/launch", tag = "offerwall",
    params(("offerId" = String, Path)),
    request_body(content = LaunchForm, content_type = "application/x-www-form-urlencoded"),
    responses((status = 303, description = "To the signed launch link"),
        (status = 400, description = "Unreadable form", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String),
        (status = 404, description = "Offer unavailable", content_type = PAGE, body = String),
        (status = 409, description = "Cap or budget reached", content_type = PAGE, body = String)))]
async fn launch(
    State(state): State<AppState>,
    Path(offer_id): Path<String>,
    form: Result<Form<LaunchForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let Ok(Form(f)) = form else {
        return refusal(AppError::invalid("the launch form could not be read"));
    };
    let wq = WallQuery {
        token: f.token,
        slot: f.slot,
        country: f.country,
        embed: f.embed,
        ..Default::default()
    };
    let w = match open(&state, &wq, true).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let imp = f.impression_id.unwrap_or_default();
    let key = hosted_wall::launch_key(&state.ctx, &imp);
    let req = LaunchRequest {
        impression_id: Some(imp),
    };
    match launches::launch(&state.ctx, &w.s, &offer_id, req, &key).await {
        Ok((l, _)) => {
            let mut r = StatusCode::SEE_OTHER.into_response();
            let h = r.headers_mut();
            if let Ok(v) = HeaderValue::from_str(&l.launch_url) {
                h.insert(header::LOCATION, v);
            }
            h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            h.insert(
                header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            );
            r
        }
        Err(e) => refusal(e),
    }
}

/// The user's reward progress on this placement.
#[utoipa::path(get, path = "/offerwall/rewards", tag = "offerwall", params(WallQuery),
    responses((status = 200, description = "Pending, earned and reversed rewards", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String)))]
async fn rewards(State(state): State<AppState>, Query(wq): Query<WallQuery>) -> Response {
    let w = match open(&state, &wq, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let r = match reward_status::status(&state.ctx, &w.s, None).await {
        Ok(r) => r,
        Err(e) => return refusal(e),
    };
    let titles = titles(&state, r.items.iter().map(|i| i.offer_id.as_str())).await;
    w.page("My rewards", &html::rewards(&r, &w.slot.currency, &titles))
}

/// Offer titles from the live inventory (an offer that ended keeps its id).
async fn titles<'a>(
    state: &AppState,
    ids: impl Iterator<Item = &'a str>,
) -> HashMap<String, String> {
    let Ok(snap) = app::domain::campaigns::snapshot::snapshot(&state.ctx).await else {
        return HashMap::new();
    };
    ids.filter_map(|id| snap.get(id).map(|o| (id.to_owned(), o.config.name.clone())))
        .collect()
}

/// The support form and the user's cases.
#[utoipa::path(get, path = "/offerwall/support", tag = "offerwall", params(WallQuery),
    responses((status = 200, description = "Support form and the user's cases", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String)))]
async fn support(State(state): State<AppState>, Query(wq): Query<WallQuery>) -> Response {
    let w = match open(&state, &wq, false).await {
        Ok(w) => w,
        Err(r) => return r,
    };
    let sent = wq.sent.as_deref() == Some("1");
    support_page(&state, &w, wq.offer.as_deref(), None, sent, "").await
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
    let titles = titles(state, ids.iter().map(String::as_str)).await;
    let offers: Vec<(String, String)> = ids
        .into_iter()
        .map(|id| {
            let t = titles.get(&id).cloned().unwrap_or_else(|| id.clone());
            (id, t)
        })
        .collect();
    let nonce = app::domain::crypto::random_token("wall");
    let fields = format!("{}{}", w.fields, html::hidden(&[("nonce", &nonce)]));
    let body = html::support(&fields, &offers, picked, error, sent, &cases, message);
    let mut r = w.page("Help", &body);
    if error.is_some() {
        *r.status_mut() = StatusCode::BAD_REQUEST;
    }
    r
}

/// The support form: the wall's query values, a nonce (the Idempotency-Key), the offer,
/// reasonCode (3 to 64 of A-Z, 0-9, _) and message (10 to 2,000 characters).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct CaseForm {
    token: Option<String>,
    slot: Option<String>,
    country: Option<String>,
    embed: Option<String>,
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
async fn open_case(
    State(state): State<AppState>,
    form: Result<Form<CaseForm>, axum::extract::rejection::FormRejection>,
) -> Response {
    let Ok(Form(f)) = form else {
        return refusal(AppError::invalid("the support form could not be read"));
    };
    let wq = WallQuery {
        token: f.token.clone(),
        slot: f.slot.clone(),
        country: f.country.clone(),
        embed: f.embed.clone(),
        ..Default::default()
    };
    let w = match open(&state, &wq, true).await {
        Ok(w) => w,
        Err(r) => return r,
    };
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
                "Please describe the problem in 10 to 2,000 characters.".to_owned()
            } else {
                e.message.clone()
            };
            let msg = f.message.clone().unwrap_or_default();
            support_page(&state, &w, offer.as_deref(), Some(&why), false, &msg).await
        }
    }
}
