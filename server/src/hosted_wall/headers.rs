//! The headers of every wall page: private and never stored, no referrer that could carry
//! the token away, and a Content-Security-Policy that says who may frame the page.

use app::domain::principal::SdkActor;
use axum::response::{IntoResponse, Response};
use http::{HeaderValue, StatusCode, header};

/// Every wall answer: private, never stored, no referrer leaves with the token.
pub(super) fn respond(status: StatusCode, body: String) -> Response {
    let mut r = (status, axum::response::Html(body)).into_response();
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert("x-robots-tag", HeaderValue::from_static("noindex"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(WALL_CSP),
    );
    r
}

/// The base policy of every wall page.
const WALL_CSP: &str = "default-src 'self'; img-src https: data: 'self'; style-src 'self' 'unsafe-inline'; \
     script-src 'self'; object-src 'none'; base-uri 'none'";

/// A wall page with offers may be framed only by the site the session was opened for (and
/// its subdomains), so no other site can overlay it and trick a user into launching offers
/// (clickjacking). App sessions open the wall as a top-level page of their WebView: nobody
/// frames it. Refusal pages carry no action and keep the base policy. Outside production a
/// page on this machine (`http://localhost:*`, `http://127.0.0.1:*`) may frame it too, so a
/// developer can try the web SDK from a local page.
pub(super) fn wall_policy(s: &SdkActor, development: bool) -> String {
    let domain = s.package_bundle_or_domain.to_ascii_lowercase();
    let safe = !domain.is_empty()
        && domain
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let mut ancestors = if s.platform == "web" && safe {
        format!("https://{domain} https://*.{domain}")
    } else {
        "'none'".to_owned()
    };
    if development {
        let local = "http://localhost:* http://127.0.0.1:*";
        ancestors = if ancestors == "'none'" {
            local.to_owned()
        } else {
            format!("{ancestors} {local}")
        };
    }
    format!("{WALL_CSP}; frame-ancestors {ancestors}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(platform: &str, domain: &str) -> SdkActor {
        let now = chrono::Utc::now();
        SdkActor {
            id: "ses_1".into(),
            placement_id: "plc_1".into(),
            ad_slot_id: None,
            external_user_id: "u".into(),
            platform: platform.into(),
            sdk_version: "2.1.0".into(),
            package_bundle_or_domain: domain.into(),
            environment: "production".into(),
            consent: "GRANTED".into(),
            att_status: None,
            issued_at: now,
            expires_at: now,
            revoked_at: None,
            user_verified: false,
            user_verified_until: None,
            user_secret_issued_at: None,
            language: None,
            device_id: None,
        }
    }

    #[test]
    fn only_the_sessions_site_frames_the_wall_in_production() {
        let web = wall_policy(&session("web", "Games.Example"), false);
        assert!(
            web.ends_with("; frame-ancestors https://games.example https://*.games.example"),
            "{web}"
        );
        assert!(!web.contains("localhost"), "{web}");
        let app = wall_policy(&session("android", "com.example.game"), false);
        assert!(app.ends_with("; frame-ancestors 'none'"), "{app}");
        // A domain that could break out of the header is never written into it.
        let odd = wall_policy(&session("web", "evil.example; script-src *"), false);
        assert!(odd.ends_with("; frame-ancestors 'none'"), "{odd}");
        let dev = wall_policy(&session("android", "com.example.game"), true);
        assert!(
            dev.ends_with("frame-ancestors http://localhost:* http://127.0.0.1:*"),
            "{dev}"
        );
    }
}
