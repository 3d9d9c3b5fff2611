//! Helpers of the HTTP stack (client address, body size, error bodies, panics) and the
//! per-group middleware: feature switches, CSRF for cookie-authenticated posts, and the
//! dashboards' "temporarily unavailable" page.

use std::net::{IpAddr, SocketAddr};

use ipnet::IpNet;

use app::error::AppError;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http::{HeaderMap, Method, header};

use crate::extract::MAX_BODY_BYTES;

/// The client address of a request: the socket peer, or the `X-Forwarded-For` hop in
/// front of our trusted proxies when the peer is one of them.
pub(crate) fn client_ip_of(req: &Request, trusted: &[IpNet]) -> IpAddr {
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(a)| a.ip())
        .unwrap_or(IpAddr::from([127, 0, 0, 1]));
    resolve_client_ip(peer, req.headers(), trusted)
}

/// Whether `ip` is one of the trusted proxies (an address or a range).
pub(crate) fn is_trusted(trusted: &[IpNet], ip: &IpAddr) -> bool {
    trusted.iter().any(|n| n.contains(ip))
}

fn resolve_client_ip(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    if !is_trusted(trusted, &peer) {
        return peer;
    }
    let hops: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    // Walk from the nearest hop outwards; the first untrusted address is the client.
    hops.iter()
        .rev()
        .find(|ip| !is_trusted(trusted, ip))
        .copied()
        .unwrap_or(peer)
}

/// Whether the request's `Content-Length` is above `limit`.
pub(crate) fn declares_more_than(headers: &HeaderMap, limit: usize) -> bool {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|n| n > limit)
}

/// Every route of a surface switched off by `APP_FEATURE_*` answers 404 `not_found`.
/// The administrator routes answer only administrators: a publisher's or advertiser's
/// token is refused (403) before the request body or the path's resource is looked at, so
/// a malformed body cannot turn the refusal into a 400 and nothing about the resource shows.
pub async fn admins_only(
    axum::extract::State(state): axum::extract::State<crate::state::AppState>,
    req: Request,
    next: Next,
) -> Response {
    let (parts, body) = req.into_parts();
    match crate::extract::authorize(&parts, &state).await {
        Ok(p) => match p.require_admin() {
            Ok(()) => next.run(Request::from_parts(parts, body)).await,
            Err(e) => e.into_response(),
        },
        Err(e) => e.into_response(),
    }
}

pub async fn switched_off(_req: Request, _next: Next) -> Response {
    AppError::not_found("resource").into_response()
}

/// Cross-site request forgery guard for cookie-authenticated posts (the dashboards). Forms
/// also carry a synchronizer token checked by the server functions; this layer refuses
/// any unsafe request the browser marks as cross-site, or whose Origin is foreign.
pub async fn same_origin_posts(req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    let h = req.headers();
    let site = h.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    let refused = match site {
        Some(s) => !matches!(s, "same-origin" | "none"),
        None => match (
            h.get(header::ORIGIN).and_then(|v| v.to_str().ok()),
            h.get(header::HOST).and_then(|v| v.to_str().ok()),
        ) {
            (Some(origin), Some(host)) => url::Url::parse(origin)
                .ok()
                .map(|u| {
                    let o = match u.port() {
                        Some(p) => format!("{}:{p}", u.host_str().unwrap_or_default()),
                        None => u.host_str().unwrap_or_default().to_owned(),
                    };
                    !o.eq_ignore_ascii_case(host)
                })
                .unwrap_or(true),
            _ => false,
        },
    };
    if refused {
        return AppError::forbidden("cross-site form posts are refused")
            .with_code("csrf_failed")
            .into_response();
    }
    next.run(req).await
}

/// The answer with the JSON error body when it is a bare error status (no content type):
/// statuses produced below the handlers (405, 413, 404 from routing, timeouts) get the
/// error body of CONTRACT.md section 6.
pub fn with_error_body(res: Response) -> Response {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error())
        || res.headers().contains_key(header::CONTENT_TYPE)
    {
        return res;
    }
    let err = match status.as_u16() {
        404 => AppError::not_found("resource"),
        405 => AppError::new(
            405,
            "method_not_allowed",
            "this method is not allowed on this route",
        ),
        413 => AppError::payload_too_large(MAX_BODY_BYTES),
        408 => AppError::new(408, "timeout", "the request took too long"),
        503 => AppError::database_unavailable(),
        500 if app::domain::db::recently_unavailable() => AppError::database_unavailable(),
        s if s >= 500 => AppError::internal(),
        s => AppError::new(
            s,
            "invalid_input",
            status.canonical_reason().unwrap_or("request refused"),
        ),
    };
    let mut out = err.into_response();
    for (k, v) in res.headers() {
        if k != header::CONTENT_LENGTH {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    out
}

/// JSON 500 for a handler that panicked (the panic itself is logged by the layer).
pub fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    tracing::error!("request handler panicked");
    AppError::internal().into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_is_believed_only_from_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.1".parse().unwrap_or(IpAddr::from([0, 0, 0, 0]));
        let mut h = HeaderMap::new();
        h.insert(
            "x-forwarded-for",
            "203.0.113.9, 10.0.4.2"
                .parse()
                .unwrap_or(http::HeaderValue::from_static("")),
        );
        assert_eq!(resolve_client_ip(proxy, &h, &[]), proxy);
        let single: IpNet = IpNet::from(proxy);
        // Only the peer is trusted: the hop in front of it (10.0.4.2) is the client.
        assert_eq!(
            resolve_client_ip(proxy, &h, &[single]).to_string(),
            "10.0.4.2"
        );
        // A range trusts every proxy in it: the first address outside is the client.
        let range: IpNet = "10.0.0.0/8".parse().unwrap_or(single);
        assert_eq!(
            resolve_client_ip(proxy, &h, &[range]).to_string(),
            "203.0.113.9"
        );
        let outside: IpAddr = "192.0.2.1".parse().unwrap_or(proxy);
        assert_eq!(resolve_client_ip(outside, &h, &[range]), outside);
    }
}

/// Dashboards: a 500 or 503 caused by an unreachable database becomes a plain "temporarily
/// unavailable" page with `Retry-After`, instead of an error page or a bare status.
pub async fn unavailable_page(req: Request, next: Next) -> Response {
    let res = next.run(req).await;
    let outage = match res.status().as_u16() {
        503 => true,
        500 => app::domain::db::recently_unavailable(),
        _ => false,
    };
    if !outage || is_json(&res) {
        return res;
    }
    let mut out = (
        http::StatusCode::SERVICE_UNAVAILABLE,
        axum::response::Html(UNAVAILABLE_HTML),
    )
        .into_response();
    out.headers_mut()
        .insert(header::RETRY_AFTER, http::HeaderValue::from_static("2"));
    out.headers_mut().insert(
        header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-store"),
    );
    out
}

fn is_json(res: &Response) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

const UNAVAILABLE_HTML: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta http-equiv=\"refresh\" content=\"5\"><title>Temporarily unavailable</title>\
<link rel=\"stylesheet\" href=\"/assets/app.css\"></head><body><main class=\"card\">\
<h1>Temporarily unavailable</h1><p>The service cannot reach its database right now. \
Nothing you did was lost; this page tries again by itself in a few seconds.</p></main></body></html>";

/// Adds the `RateLimit-Policy` and `RateLimit` fields (draft-ietf-httpapi-ratelimit-headers)
/// of the limits checked while answering: `"sdk-write";q=60;w=60` and
/// `"sdk-write";r=59;t=1`, one list member per policy.
pub fn with_rate_limit_headers(
    mut res: Response,
    limits: &[app::domain::rate_limit::Allowance],
) -> Response {
    if limits.is_empty() {
        return res;
    }
    let join = |f: &dyn Fn(&app::domain::rate_limit::Allowance) -> String| {
        limits.iter().map(f).collect::<Vec<_>>().join(", ")
    };
    let policy = join(&|a| format!("\"{}\";q={};w={}", a.policy, a.quota, a.window_secs));
    let state = join(&|a| format!("\"{}\";r={};t={}", a.policy, a.remaining, a.reset_secs));
    for (name, value) in [("ratelimit-policy", policy), ("ratelimit", state)] {
        if let Ok(v) = http::HeaderValue::from_str(&value) {
            res.headers_mut()
                .insert(http::HeaderName::from_static(name), v);
        }
    }
    res
}
