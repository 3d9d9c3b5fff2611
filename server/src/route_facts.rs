//! What each route is, declared once by its template (the path as the route table writes
//! it, `{param}` and all): what its body may weigh and how long it may take (read by the
//! outer layer), whose rule an `Idempotency-Key` follows (read by the stored-answers layer
//! and the OpenAPI document), and the 429 a shared limit adds to its documentation.
//!
//! Every route not named here is ordinary: a 1 MiB body and the ordinary deadline. A route
//! is found by the template the router matched (`MatchedPath`), never by the end of the
//! path it was called with, so `/x/evidence` named by a parameter cannot change a route's
//! class.

use app::domain::accounts::api_keys::KeyUse;
use app::model::api_key::KeyArea;
use http::Method;

/// What a route carries, which sets its body limit and deadline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carries {
    /// A JSON request: 1 MiB, the ordinary deadline (`--request-deadline-seconds`).
    Ordinary,
    /// A support case's evidence file: 5 MiB and the long deadline.
    Upload,
    /// A bulk reconciliation file: 4 MiB (10,000 lines) and the long deadline.
    Reconciliation,
    /// A CSV report or export: an ordinary request and the long deadline for the answer.
    Export,
}

/// Whose rule an `Idempotency-Key` on a POST follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyRule {
    /// The dashboard API's stored answers (`idempotent_answers::stored_answers`).
    Stored,
    /// The handler reads the key itself (payout requests, reconciliations).
    Own,
    /// No stored answers: the SDK, postbacks, pixels, sandbox, pages, signed survey API
    /// (which stores answers after its signature, `idempotent_answers::signed_answers`).
    Outside,
}

/// The routes that are not ordinary: method (`None` for any), template, what they carry.
const CARRIES: [(Option<Method>, &str, Carries); 14] = [
    (
        Some(Method::POST),
        "/sdk/v2/support/{supportCaseId}/evidence",
        Carries::Upload,
    ),
    // A file the publisher downloads (through the API and the dashboard).
    (
        Some(Method::GET),
        "/publisher/v2/support-cases/{supportCaseId}/evidence/{evidenceId}",
        Carries::Export,
    ),
    (
        Some(Method::POST),
        "/performance-marketing/v2/conversions/reconciliations",
        Carries::Reconciliation,
    ),
    (
        Some(Method::POST),
        "/advertiser/conversions/upload",
        Carries::Reconciliation,
    ),
    (
        None,
        "/performance-marketing/v2/billing/ledger/export",
        Carries::Export,
    ),
    (None, "/publisher/v2/earnings/export", Carries::Export),
    (
        None,
        "/publisher/v2/earnings/statements/{file}",
        Carries::Export,
    ),
    (
        None,
        "/publisher/earnings/statements/{file}",
        Carries::Export,
    ),
    (None, "/publisher/reports/offers.csv", Carries::Export),
    (None, "/publisher/earnings/ledger.csv", Carries::Export),
    (None, "/advertiser/billing/ledger.csv", Carries::Export),
    (None, "/admin/payout-batches/{id}/file", Carries::Export),
    (
        None,
        "/advertiser/surveys/{id}/responses.csv",
        Carries::Export,
    ),
    (
        None,
        "/publisher/support/{case_id}/evidence/{evidence_id}",
        Carries::Export,
    ),
];

/// The surfaces whose POSTs keep stored answers (their routers carry the layer), and the
/// routes inside them whose handlers apply the key themselves.
const STORED_SURFACES: [&str; 3] = ["/publisher/v2/", "/admin/v1/", "/performance-marketing/v2/"];
const OWN_KEY: [&str; 2] = [
    "/publisher/v2/payouts",
    "/performance-marketing/v2/conversions/reconciliations",
];
/// Inside a stored surface, the integrations that are outside the dashboard API (the
/// payment provider's webhook is keyed by the provider's own event id).
const INTEGRATIONS: [&str; 4] = [
    "/postbacks/",
    "/pixels/",
    "/sandbox/",
    "/payprovider/webhook",
];

/// What a route carries.
pub fn carries(method: &Method, template: &str) -> Carries {
    CARRIES
        .iter()
        .find(|(m, t, _)| *t == template && m.as_ref().is_none_or(|m| m == method))
        .map_or(Carries::Ordinary, |(_, _, c)| *c)
}

/// Whose rule an `Idempotency-Key` follows on this route.
pub fn key_rule(method: &Method, template: &str) -> KeyRule {
    if *method != Method::POST {
        KeyRule::Outside
    } else if OWN_KEY.contains(&template) {
        KeyRule::Own
    } else if template.starts_with("/api/v1/campaigns/") {
        // The signed survey API keeps answers too, after its signature (documented alike).
        KeyRule::Stored
    } else if STORED_SURFACES.iter().any(|s| template.starts_with(s))
        && !INTEGRATIONS.iter().any(|i| template.contains(i))
    {
        KeyRule::Stored
    } else {
        KeyRule::Outside
    }
}

/// The area of the dashboard API each route belongs to, for API keys' grants: the first
/// template prefix that matches wins, so the narrower prefixes come first. A dashboard route
/// under none of them accepts no key (deny by default); `/auth/v1/me` accepts any key.
const KEY_AREAS: [(&str, KeyArea); 19] = [
    (
        "/publisher/v2/placements/{placementId}/callback",
        KeyArea::Callbacks,
    ),
    (
        "/publisher/v2/placements/{placementId}/user-identity",
        KeyArea::Callbacks,
    ),
    ("/publisher/v2/callback-deliveries", KeyArea::Callbacks),
    ("/publisher/v2/placements", KeyArea::Placements),
    ("/publisher/v2/offer-gallery", KeyArea::Placements),
    ("/publisher/v2/blacklists", KeyArea::Placements),
    ("/publisher/v2/user-bans", KeyArea::Placements),
    ("/publisher/v2/earnings", KeyArea::Earnings),
    ("/publisher/v2/payouts", KeyArea::Earnings),
    ("/publisher/v2/reports", KeyArea::Reports),
    ("/publisher/v2/fraud", KeyArea::Reports),
    ("/publisher/v2/support-cases", KeyArea::Support),
    (
        "/performance-marketing/v2/campaigns/{campaignId}/tracking",
        KeyArea::Tracking,
    ),
    ("/performance-marketing/v2/survey-api", KeyArea::Tracking),
    ("/performance-marketing/v2/sandbox", KeyArea::Tracking),
    (
        "/performance-marketing/v2/conversions",
        KeyArea::Conversions,
    ),
    ("/performance-marketing/v2/billing", KeyArea::Billing),
    // Campaigns, clones, capabilities, creatives: what is left of the advertiser surface.
    ("/performance-marketing/v2/", KeyArea::Campaigns),
    ("/admin/v1/", KeyArea::Admin),
];

/// What this route asks of an API key (GET and HEAD read; everything else writes).
pub fn key_use(method: &Method, template: &str) -> KeyUse {
    if template == "/auth/v1/me" {
        return KeyUse::Any;
    }
    let write = !matches!(*method, Method::GET | Method::HEAD);
    KEY_AREAS
        .iter()
        .find(|(prefix, _)| template.starts_with(prefix))
        .map_or(KeyUse::Closed, |(_, area)| KeyUse::Area {
            area: *area,
            write,
        })
}

const SDK_LIMITS: &str = "`rate_limited`: more than 120 reads or 60 writes a minute on this session (`sdk-read`, `sdk-write`)";

/// Operations limited by an extractor or a helper they share, whose own annotations list no
/// 429, for the OpenAPI document: method (`*` for any), template prefix, and what the 429
/// means. JSON unless `html`.
pub const SHARED_LIMITS: [(&str, &str, &str, bool); 8] = [
    (
        "*",
        "/api/v1/campaigns/",
        "`rate_limited`: more than 600 requests a minute with this API key (`survey-api`)",
        false,
    ),
    ("*", "/sdk/v2/sessions/", SDK_LIMITS, false),
    ("*", "/sdk/v2/ad-slots/", SDK_LIMITS, false),
    ("*", "/sdk/v2/offers/", SDK_LIMITS, false),
    ("*", "/sdk/v2/reward-status", SDK_LIMITS, false),
    ("*", "/sdk/v2/support", SDK_LIMITS, false),
    (
        "*",
        "/offerwall",
        "The \"Too many requests\" page: more than 120 pages or 60 taps a minute on this session (`sdk-read`, `sdk-write`)",
        true,
    ),
    (
        "post",
        "/surveys/v1/entry/",
        "The verification step again: more than 5 answers at once, then one a minute, for this respondent (`survey-verify`)",
        true,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_found_by_template_and_method() {
        let evidence = "/sdk/v2/support/{supportCaseId}/evidence";
        assert_eq!(carries(&Method::POST, evidence), Carries::Upload);
        // The SDK uploads evidence; it never reads it back.
        assert_eq!(carries(&Method::GET, evidence), Carries::Ordinary);
        let file = "/publisher/v2/support-cases/{supportCaseId}/evidence/{evidenceId}";
        assert_eq!(carries(&Method::GET, file), Carries::Export);
        let rec = "/performance-marketing/v2/conversions/reconciliations";
        assert_eq!(carries(&Method::POST, rec), Carries::Reconciliation);
        assert_eq!(carries(&Method::GET, rec), Carries::Ordinary);
        assert_eq!(
            carries(&Method::GET, "/publisher/v2/earnings/statements/{file}"),
            Carries::Export
        );
        assert_eq!(
            carries(&Method::GET, "/publisher/v2/placements"),
            Carries::Ordinary
        );
    }

    #[test]
    fn api_keys_are_asked_for_the_route_area() {
        let area = |area, write| KeyUse::Area { area, write };
        let callback = "/publisher/v2/placements/{placementId}/callback/rotate";
        assert_eq!(
            key_use(&Method::POST, callback),
            area(KeyArea::Callbacks, true)
        );
        let placement = "/publisher/v2/placements/{placementId}";
        assert_eq!(
            key_use(&Method::GET, placement),
            area(KeyArea::Placements, false)
        );
        assert_eq!(
            key_use(&Method::PATCH, placement),
            area(KeyArea::Placements, true)
        );
        let tracking = "/performance-marketing/v2/campaigns/{campaignId}/tracking";
        assert_eq!(
            key_use(&Method::GET, tracking),
            area(KeyArea::Tracking, false)
        );
        let report = "/performance-marketing/v2/campaigns/{campaignId}/report";
        assert_eq!(
            key_use(&Method::GET, report),
            area(KeyArea::Campaigns, false)
        );
        assert_eq!(key_use(&Method::GET, "/auth/v1/me"), KeyUse::Any);
        assert_eq!(key_use(&Method::POST, "/auth/v1/api-keys"), KeyUse::Closed);
        assert_eq!(key_use(&Method::POST, "/auth/v1/password"), KeyUse::Closed);
    }

    #[test]
    fn key_rules_follow_the_surfaces() {
        assert_eq!(
            key_rule(&Method::POST, "/publisher/v2/placements"),
            KeyRule::Stored
        );
        assert_eq!(
            key_rule(&Method::GET, "/publisher/v2/placements"),
            KeyRule::Outside
        );
        assert_eq!(
            key_rule(&Method::POST, "/publisher/v2/payouts"),
            KeyRule::Own
        );
        assert_eq!(
            key_rule(
                &Method::POST,
                "/performance-marketing/v2/conversions/reconciliations"
            ),
            KeyRule::Own
        );
        assert_eq!(
            key_rule(
                &Method::POST,
                "/performance-marketing/v2/postbacks/custom-s2s"
            ),
            KeyRule::Outside
        );
        assert_eq!(
            key_rule(&Method::POST, "/sdk/v2/sessions"),
            KeyRule::Outside
        );
        // The provider's webhook is not the dashboard API; the order beside it is.
        let billing = "/performance-marketing/v2/billing";
        assert_eq!(
            key_rule(&Method::POST, &format!("{billing}/payprovider/webhook")),
            KeyRule::Outside
        );
        assert_eq!(
            key_rule(
                &Method::POST,
                &format!("{billing}/funding/payprovider/order")
            ),
            KeyRule::Stored
        );
        assert_eq!(
            key_rule(&Method::POST, "/api/v1/campaigns/{id}"),
            KeyRule::Stored
        );
    }
}
