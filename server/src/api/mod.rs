//! JSON APIs, one module per surface; each exposes `router()`. The OpenAPI document is
//! generated from the handlers' annotations, so a route cannot be added without it.

pub mod admin;
pub mod auth;
pub mod billing;
pub mod campaigns;
pub mod csv;
pub mod document;
pub mod examples;
pub mod health;
pub mod paging;
pub mod postbacks;
pub mod publisher;
pub mod reference;
pub mod sdk;
pub mod surveys;

use utoipa::openapi::security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Rewarded advertising and survey marketplace",
        description = "Publisher console, SDK delivery, static feed and survey fetch; advertiser billing, \
offer campaigns, tracking and the signed survey campaign API; administrator routes. Every JSON error \
has the body `{\"error\": {\"code\", \"message\", \"fieldErrors\"?}}`. Money is integer micros \
(`<name>Micros`) with a decimal display string (`<name>`).",
        version = "2.0.0"
    ),
    modifiers(&SecuritySchemes),
    // The postback routes' answers are written once (`postbacks::answers`) and name the
    // receipt by reference, so it is registered here.
    components(schemas(
        ErrorBody,
        ErrorDetail,
        app::model::delivery::CallbackReceipt,
        app::model::notice::AccountEvent,
        app::model::notice::AccountEventData
    )),
    tags(
        (name = "auth", description = "Accounts and dashboard bearer tokens"),
        (name = "admin", description = "Administrator decisions"),
        (name = "survey-api", description = "Survey campaign API credentials"),
        (name = "survey-campaigns", description = "Signed survey campaign API (X-Api-Key + enc signature); 600 requests per minute per API key, then 429 `rate_limited` with Retry-After"),
        (name = "billing", description = "Advertiser wallet: profile, balance, fundings"),
        (name = "campaigns", description = "Offer campaigns: lifecycle, revisions, readiness, reports, provider capabilities"),
        (name = "tracking", description = "Offer campaign tracking: S2S keys, partner tokens, allowlist, web pixel"),
        (name = "assets", description = "Development-only creative uploads"),
        (name = "publisher", description = "Publisher console: placements, ad slots, keys, callback settings"),
        (name = "sdk", description = "User-bound SDK delivery: sessions, offers, impressions, launches, reward status, support"),
        (name = "offerwall", description = "The hosted offerwall a session's hostedOfferwallUrl opens (HTML pages and forms, docs/web-sdk.md) and the web SDK script"),
        (name = "health", description = "Liveness and readiness"),
    )
)]
pub struct ApiDoc;

/// The error envelope of every JSON refusal.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ErrorBody {
    error: ErrorDetail,
}

/// Stable `code` (snake_case), human `message`, and `fieldErrors` on validation failures.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
pub struct ErrorDetail {
    code: String,
    message: String,
    #[schema(value_type = Option<std::collections::HashMap<String, String>>)]
    field_errors: Option<()>,
}

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let c = openapi.components.get_or_insert_with(Default::default);
        c.add_security_scheme(
            "dashboardBearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("Dashboard token from POST /auth/v1/tokens"))
                    .build(),
            ),
        );
        c.add_security_scheme(
            "dashboardApiKey",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("mkt_key")
                    .description(Some(
                        "API key from POST /auth/v1/api-keys (`mkt_key_…`), sent as \
                         `Authorization: Bearer <key>`. Each operation that accepts a key \
                         names the grant it needs (`area:read` for GET, `area:write` for the \
                         rest; `write` includes `read`); without it the answer is 403 \
                         `insufficient_scope`. Account, token and key management accept no \
                         key (docs/accounts.md).",
                    ))
                    .build(),
            ),
        );
        c.add_security_scheme(
            "sdkSession",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("SDK session token from POST /sdk/v2/sessions"))
                    .build(),
            ),
        );
        c.add_security_scheme(
            "staticKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-Service-Static-Key"))),
        );
        c.add_security_scheme(
            "appKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("X-Service-Api-Key"))),
        );
        c.add_security_scheme(
            "surveyAppKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Service-Api-Key",
                "Publisher app key of a placement (POST /publisher/v2/placements/{placementId}/app-key).",
            ))),
        );
        c.add_security_scheme(
            "surveyApiKey",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "X-Api-Key",
                "Survey API key; every request also carries `enc`, the hex digest (the key's \
                 algorithm: SHA256 or SHA3-256; SHA1 is deprecated) of URL without query + body \
                 + secret. Recommended: version 2 (`X-Signature-Version: 2` and \
                 `X-Request-Timestamp`, Unix seconds) signs `v2\\n<METHOD>\\n<URL>\\n<timestamp>\\n\
                 <sha256 hex of body>\\n<secret>`; the older timestamped mode signs URL + body + \
                 timestamp + secret. Timestamps more than 5 minutes off are refused and a \
                 timestamped `enc` works once (401 `replayed_signature`). GET and DELETE carry no \
                 body (docs/surveys.md).",
            ))),
        );
    }
}

/// Every JSON route with its documentation: the console group (trace span, compression)
/// and the delivery group (`delivery_routes`), each behind its feature switch.
pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let foundation = state.settings.feature_foundation;
    let delivery = state.settings.feature_delivery;
    // A retried POST with an `Idempotency-Key` gets the first answer (idempotent_answers.rs).
    let keyed = || {
        axum::middleware::from_fn_with_state(
            state.clone(),
            crate::idempotent_answers::stored_answers,
        )
    };
    let console = OpenApiRouter::new()
        .merge(health::router())
        .merge(gated(crate::hosted_wall::router(), delivery))
        .nest(
            "/publisher/v2",
            gated(publisher::router().layer(keyed()), foundation),
        )
        .nest("/auth/v1", auth::router())
        .nest(
            "/api/v1/campaigns",
            surveys::campaigns::router()
                .merge(surveys::targeting::router())
                .layer(axum::middleware::from_fn_with_state(
                    state.clone(),
                    crate::idempotent_answers::signed_answers,
                )),
        )
        .nest(
            "/admin/v1",
            admin::router()
                .merge(admin::campaigns::router())
                .layer(keyed())
                .layer(axum::middleware::from_fn_with_state(
                    state.clone(),
                    crate::middleware::admins_only,
                )),
        )
        .nest(
            "/performance-marketing/v2",
            surveys::credentials::router()
                .merge(billing::router())
                .merge(campaigns::router())
                .layer(keyed())
                .merge(billing::provider_webhook::router())
                .merge(gated(postbacks::router(), delivery)),
        )
        .layer(crate::layers::compression())
        .layer(crate::layers::trace());
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(console)
        .merge(delivery_routes(foundation, delivery))
}

/// The hot paths: what end users' devices, publishers' feed pulls, advertisers' postbacks
/// and survey fetches call at volume. No trace span (the outer layer logs their failures
/// with the request id); compression only on the routes that answer lists.
fn delivery_routes(foundation: bool, delivery: bool) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(gated(surveys::fetch::router(), delivery))
        .nest("/sdk/v2", gated(sdk::router(), delivery))
        .nest(
            "/publisher/v2",
            gated(publisher::static_feed::router(), foundation),
        )
        .nest(
            "/performance-marketing/v2",
            gated(postbacks::custom_s2s::router(), delivery),
        )
}

/// A surface switched off by `APP_FEATURE_*` answers 404 `not_found` on all its routes
/// (documented all the same); a surface switched on has no gate to pass.
fn gated(r: OpenApiRouter<AppState>, on: bool) -> OpenApiRouter<AppState> {
    if on {
        r
    } else {
        r.layer(axum::middleware::from_fn(crate::middleware::switched_off))
    }
}
