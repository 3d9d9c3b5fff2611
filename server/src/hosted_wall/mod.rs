//! The hosted offerwall at `/offerwall`: the page a session's `hostedOfferwallUrl` opens in a
//! web view or in the web SDK's overlay. The session token travels in the query (`token`)
//! and in form fields, never in a cookie, so the wall works inside third-party iframes;
//! every answer is `no-store` with `Referrer-Policy: no-referrer`, and the request log
//! records paths only. Offers, impressions, launches, reward status and support cases go
//! through the same domain calls as the JSON SDK routes.
//!
//! Query of every page: `token` (required), `slot` (an OFFERWALL slot of the placement),
//! `country` (two letters, when the publisher knows it), `embed=1` (set by the web SDK:
//! shows a close button and opens advertisers in a new tab), `lang` (a language tag that
//! overrides the session's `lang` and the browser's `Accept-Language`).

mod assets;
mod headers;
mod html;
mod i18n;
mod support;

use std::collections::HashMap;

use app::domain::Policy;
use app::domain::delivery::offer_texts::{self, OfferTexts};
use app::domain::delivery::{
    hosted_wall, impressions, launches, offer_list, offers, reward_status, sessions,
};
use app::error::AppError;
use app::model::delivery::{LaunchRequest, OfferListQuery};
use app::model::language::Language;
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
        .routes(routes!(support::support, support::open_case))
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
    /// The page's language (en, de, es, fr, pt-BR, ja, ar; other tags match on their
    /// language): overrides the session's `lang` and the browser's `Accept-Language`.
    lang: Option<String>,
}

/// Refusals are pages too (expired or revoked link, banned user, unavailable offer).
const PAGE: &str = "text/html";

/// A session opened on the wall, with its slot and look.
struct Wall {
    s: std::sync::Arc<app::domain::principal::SdkActor>,
    slot: AdSlot,
    design: WallDesign,
    exposure: WallExposure,
    embed: bool,
    country: Option<String>,
    lang: Language,
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
            lang: self.lang,
            t: i18n::texts(self.lang),
        }
    }

    /// Turns a refusal into the page that explains it, in the user's language.
    fn refuse(&self) -> impl Fn(AppError) -> Response + use<> {
        let lang = self.lang;
        move |e| refusal(e, lang)
    }

    fn page(&self, title: &str, body: &str) -> Response {
        let mut r = respond(StatusCode::OK, html::page(&self.frame(), title, body));
        if let Ok(v) = HeaderValue::from_str(&self.csp) {
            r.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
        }
        r
    }
}

/// A wall page, or the page that explains why it is refused.
type Page = Result<Response, Response>;

/// An error as a page the user understands, in their language.
fn refusal(e: AppError, lang: Language) -> Response {
    let t = i18n::texts(lang);
    let (title, text) = match e.code.as_str() {
        "sdk_session_expired" => t.expired,
        "sdk_session_revoked" | "unauthorized" => t.revoked,
        "user_banned" => t.banned,
        "rate_limited" => t.rate_limited,
        "offer_unavailable" => t.unavailable,
        _ if e.status >= 500 => t.failed,
        // Other refusals explain a request the wall itself built; English is acceptable.
        _ => (t.not_available, e.message.as_str()),
    };
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
    respond(status, html::notice(lang, title, text))
}

/// The browser's `Accept-Language`.
fn accept_language(headers: &http::HeaderMap) -> Option<&str> {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
}

/// Opens the session named by `token` for a wall page.
async fn open(
    state: &AppState,
    wq: &WallQuery,
    headers: &http::HeaderMap,
    write: bool,
) -> Result<Wall, Response> {
    let asked = wq
        .lang
        .as_deref()
        .filter(|l| Language::from_tag(l).is_some());
    let browser = accept_language(headers);
    let before = Language::choose(asked, browser);
    let token = wq
        .token
        .as_deref()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            refusal(
                AppError::unauthorized("the offerwall link has no token"),
                before,
            )
        })?;
    let ctx = &state.ctx;
    let refuse = |e| refusal(e, before);
    let s = sessions::authenticate(ctx, token).await.map_err(refuse)?;
    let lang = Language::choose(asked.or(s.language.as_deref()), browser);
    let refusal = |e| refusal(e, lang);
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
    // A language asked for in the link stays through the wall's links and forms.
    let kept = asked.map(|_| lang.as_str()).unwrap_or("");
    if !kept.is_empty() {
        qs += &format!("&amp;lang={}", q(kept));
    }
    let fields = html::hidden(&[
        ("token", token),
        ("slot", &slot.ad_slot_id),
        ("country", country.as_deref().unwrap_or("")),
        ("embed", if embed { "1" } else { "" }),
        ("lang", kept),
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
        lang,
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
) -> Page {
    let w = open(&state, &wq, &headers, false).await?;
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
    let list = offer_list::list(&state.ctx, &w.s, &w.slot.ad_slot_id, query)
        .await
        .map_err(w.refuse())?;
    let ids = list.items.iter().map(|o| o.campaign_id.as_str());
    let texts = offer_texts::for_offers(&state.ctx, ids, w.lang).await;
    let progress = progress(&state, &w).await;
    let next = list
        .page
        .next_cursor
        .as_deref()
        .map(|c| format!("{}&amp;cursor={}", w.qs, q(c)));
    let body = html::offer_list(&w.frame(), &list, &texts, &progress, next);
    Ok(w.page(i18n::texts(w.lang).offers, &body))
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
    headers: http::HeaderMap,
    Query(wq): Query<WallQuery>,
) -> Page {
    let w = open(&state, &wq, &headers, false).await?;
    let ctx = &state.ctx;
    let slot = Some(w.slot.ad_slot_id.as_str());
    let item = offers::get(ctx, &w.s, &offer_id, slot)
        .await
        .map_err(w.refuse())?;
    let status = progress(&state, &w).await.get(&offer_id).copied();
    let mut fields = w.fields.clone();
    if item.availability.status != app::model::delivery::AvailabilityStatus::Completed {
        let key = hosted_wall::impression_key(ctx, &w.s, &offer_id);
        let (receipt, _) = impressions::record(ctx, &w.s, &offer_id, slot, &key)
            .await
            .map_err(w.refuse())?;
        fields += &html::hidden(&[("impression_id", &receipt.impression_id)]);
    }
    let texts = offer_texts::for_offers(ctx, std::iter::once(offer_id.as_str()), w.lang).await;
    let texts = texts.get(&offer_id);
    let body = html::offer_detail(&w.frame(), &item, texts, status, &fields);
    Ok(w.page(texts.map_or(&item.title, |x| &x.title), &body))
}

/// The launch form: the wall's query values and the impression the detail page recorded.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
struct LaunchForm {
    token: Option<String>,
    slot: Option<String>,
    country: Option<String>,
    embed: Option<String>,
    lang: Option<String>,
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
    axum::Extension(crate::extract::ClientIp(ip)): axum::Extension<crate::extract::ClientIp>,
    headers: http::HeaderMap,
    form: Result<Form<LaunchForm>, axum::extract::rejection::FormRejection>,
) -> Page {
    let Ok(Form(f)) = form else {
        let lang = Language::choose(None, accept_language(&headers));
        return Err(refusal(
            AppError::invalid("the launch form could not be read"),
            lang,
        ));
    };
    let wq = WallQuery {
        token: f.token,
        slot: f.slot,
        country: f.country,
        embed: f.embed,
        lang: f.lang,
        ..Default::default()
    };
    let w = open(&state, &wq, &headers, true).await?;
    let imp = f.impression_id.unwrap_or_default();
    let key = hosted_wall::launch_key(&state.ctx, &imp);
    let req = LaunchRequest {
        impression_id: Some(imp),
    };
    let (l, _) = launches::launch(&state.ctx, &w.s, &offer_id, req, &key, Some(ip))
        .await
        .map_err(w.refuse())?;
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
    Ok(r)
}

/// The user's reward progress on this placement.
#[utoipa::path(get, path = "/offerwall/rewards", tag = "offerwall", params(WallQuery),
    responses((status = 200, description = "Pending, earned and reversed rewards", content_type = PAGE, body = String),
        (status = 401, description = "Missing, expired or revoked link", content_type = PAGE, body = String)))]
async fn rewards(
    State(state): State<AppState>,
    headers: http::HeaderMap,
    Query(wq): Query<WallQuery>,
) -> Page {
    let w = open(&state, &wq, &headers, false).await?;
    let r = reward_status::status(&state.ctx, &w.s, None)
        .await
        .map_err(w.refuse())?;
    let ids = r.items.iter().map(|i| i.offer_id.as_str());
    let texts: HashMap<String, OfferTexts> = offer_texts::for_offers(&state.ctx, ids, w.lang).await;
    let body = html::rewards(&w.frame(), &r, &w.slot.currency, &texts);
    Ok(w.page(i18n::texts(w.lang).my_rewards, &body))
}
