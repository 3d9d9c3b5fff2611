//! The development payment provider's checkout page, where the payer approves or declines an
//! order. Only in development: a production deployment plugs in a real provider. Every
//! checkout URL carries `sig`, an HMAC of the order id issued only to the advertiser who
//! opened the order (in the order answer and on its billing page), so nobody else can
//! approve an order, and an order cannot be approved by guessing its id.

use app::domain::Environment;
use app::domain::billing::payprovider::{DevProvider, OrderStatus, checkout_signature};
use app::error::AppError;
use app::model::money::format_micros;
use axum::Router;
use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};

use crate::extract::{AppPath, AppQuery};
use crate::state::AppState;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/dev/payprovider/checkout/{order}", get(page))
        .route("/dev/payprovider/checkout/{order}/approve", post(approve))
        .route("/dev/payprovider/checkout/{order}/decline", post(decline))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            only_from_this_machine,
        ))
        .with_state(state)
}

/// The simulated provider approves payments on a page of this service, so it answers only
/// people at this machine: a request that came through a proxy (the socket peer is one of
/// `APP_TRUSTED_PROXIES` and it forwarded the request for someone, or the resolved client is
/// not a loopback address) is answered 404,
/// as on a non-loopback bind, unless `--allow-remote-development` asked for it. A server
/// bound to 127.0.0.1 behind a local reverse proxy would otherwise hand out free credit to
/// anyone the proxy serves.
async fn only_from_this_machine(
    State(state): State<AppState>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let peer = req
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let client = req
        .extensions()
        .get::<crate::extract::ClientIp>()
        .map(|c| c.0);
    let forwarded = ["x-forwarded-for", "forwarded"]
        .iter()
        .any(|h| req.headers().contains_key(*h));
    let proxied = (forwarded
        && peer
            .is_some_and(|p| crate::middleware::is_trusted(&state.settings.trusted_proxies, &p)))
        || client.is_some_and(|c| !c.is_loopback());
    if proxied && !state.settings.allow_remote_development {
        return AppError::not_found("resource").into_response();
    }
    next.run(req).await
}

/// `?sig=` of a checkout URL.
#[derive(serde::Deserialize)]
struct Signed {
    sig: Option<String>,
}

fn provider(state: &AppState, order: &str, sig: &Signed) -> Result<DevProvider, AppError> {
    if state.ctx.config.environment == Environment::Production {
        return Err(AppError::not_found("resource"));
    }
    let expected = checkout_signature(&state.ctx, order);
    let given = sig.sig.as_deref().unwrap_or_default();
    if !app::domain::crypto::constant_time_eq(expected.as_bytes(), given.as_bytes()) {
        return Err(AppError::not_found("checkout"));
    }
    Ok(DevProvider::new(
        state.ctx.db.clone(),
        state.ctx.clock.clone(),
    ))
}

async fn page(
    State(state): State<AppState>,
    AppPath(order): AppPath<String>,
    AppQuery(sig): AppQuery<Signed>,
) -> Result<Response, AppError> {
    let o = provider(&state, &order, &sig)?.get(&order).await?;
    let s = sig.sig.clone().unwrap_or_default();
    let actions = if o.status == OrderStatus::Created {
        format!(
            r#"<form method="post" action="/dev/payprovider/checkout/{id}/approve?sig={s}"><button type="submit">Approve payment</button></form>
<form method="post" action="/dev/payprovider/checkout/{id}/decline?sig={s}"><button type="submit" class="secondary">Decline</button></form>"#,
            id = o.id
        )
    } else {
        "<p class=\"muted\">Return to the billing page and capture the payment.</p>".to_owned()
    };
    Ok(Html(format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Development checkout</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><main class="content"><section class="card narrow"><h1>Development checkout</h1>
<p class="notice warn">Simulated payment provider (development only). No money moves.</p>
<p>Order <code>{id}</code></p><p class="amount"><strong>{amount} {currency}</strong></p><p>Status: <strong data-status="{status}">{status}</strong></p>
<div class="actions">{actions}</div><p><a href="/advertiser/billing">Back to billing</a></p></section></main></body></html>"#,
        id = o.id,
        amount = format_micros(o.amount_micros),
        currency = o.currency,
        status = o.status.as_str(),
    ))
    .into_response())
}

async fn decide(
    state: AppState,
    order: String,
    sig: Signed,
    approve: bool,
) -> Result<Response, AppError> {
    provider(&state, &order, &sig)?
        .decide(&order, approve)
        .await?;
    let s = sig.sig.unwrap_or_default();
    Ok(Redirect::to(&format!("/dev/payprovider/checkout/{order}?sig={s}")).into_response())
}

async fn approve(
    State(state): State<AppState>,
    AppPath(order): AppPath<String>,
    AppQuery(sig): AppQuery<Signed>,
) -> Result<Response, AppError> {
    decide(state, order, sig, true).await
}

async fn decline(
    State(state): State<AppState>,
    AppPath(order): AppPath<String>,
    AppQuery(sig): AppQuery<Signed>,
) -> Result<Response, AppError> {
    decide(state, order, sig, false).await
}
