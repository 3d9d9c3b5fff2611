//! The server-rendered dashboards: Leptos pages, server functions, static assets and the
//! cookie session that signs browsers in.

use app::auth::{PreloadedVisitor, RenderFlashes, visitor};
use app::{App, shell};
use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use leptos::prelude::provide_context;
use leptos_axum::{
    AxumRouteListing, LeptosRoutes, generate_route_list, handle_server_fns_with_context,
    render_app_async_with_context,
};
use tower_http::services::ServeDir;
use tower_sessions::cookie::SameSite;
use tower_sessions::cookie::time::Duration;
use tower_sessions::{Expiry, SessionManagerLayer};

use crate::session_store::DbSessionStore;
use crate::state::AppState;

/// Name of the browser session cookie.
pub const SESSION_COOKIE: &str = "mkt_session";

/// The stylesheet, compiled in so pages are styled even before the wasm bundle is built.
const APP_CSS: &str = include_str!("../../style/main.css");

pub fn router(state: AppState) -> Router {
    let sessions = SessionManagerLayer::new(DbSessionStore::new(state.ctx.db.clone()))
        .with_name(SESSION_COOKIE)
        .with_secure(
            state.settings.https()
                || state.settings.environment == app::domain::Environment::Production,
        )
        .with_http_only(true)
        .with_same_site(SameSite::Lax)
        .with_expiry(Expiry::OnInactivity(Duration::hours(12)));
    Router::new()
        .route("/fn/{*name}", get(server_fns).post(server_fns))
        .route(
            "/publisher/reports/offers.csv",
            get(crate::api::publisher::reports::browser_csv),
        )
        .route(
            "/publisher/earnings/ledger.csv",
            get(crate::api::publisher::earnings::browser_ledger_csv),
        )
        .route(
            "/publisher/earnings/statements/{file}",
            get(crate::api::publisher::earnings::browser_statement_csv),
        )
        .route(
            "/advertiser/conversions/upload",
            axum::routing::post(crate::api::campaigns::reconciliation_upload).layer(
                axum::extract::DefaultBodyLimit::max(crate::extract::RECONCILIATION_BODY_BYTES),
            ),
        )
        .route(
            "/admin/fraud/decide",
            axum::routing::post(crate::api::admin::fraud::browser_decide),
        )
        .route(
            "/admin/payout-batches/{id}/file",
            axum::routing::post(crate::api::admin::payout_batches::browser_file),
        )
        .route(
            "/advertiser/billing/ledger.csv",
            get(crate::api::billing::browser_ledger_csv),
        )
        .route(
            "/advertiser/surveys/{id}/responses.csv",
            get(crate::api::surveys::campaigns::browser_responses_csv),
        )
        .route(
            "/publisher/support/{case_id}/evidence/{evidence_id}",
            get(crate::api::publisher::operations::browser_evidence_file),
        )
        .leptos_routes_with_handler(route_list(), get(pages))
        .route("/assets/app.css", get(css))
        // Precompressed bundle files (`.br`, `.gz` from scripts/precompress.mjs) when the
        // browser accepts them. Pages name them under the bundle's content hash, which is
        // cached for a year; the plain names (and an old hash after a deploy) revalidate.
        .route("/pkg/{*file}", get(bundle_file))
        .fallback(fallback)
        .layer(axum::middleware::from_fn(
            crate::middleware::same_origin_posts,
        ))
        .layer(sessions)
        // Outside the session layer: its store failures are bare 500s.
        .layer(axum::middleware::from_fn(
            crate::middleware::unavailable_page,
        ))
        .with_state(state)
}

/// The dashboards' routes, generated once per process. Generating them switches on a flag
/// of leptos_server that is global to the process ("suppress resource loading", leptos
/// #4773): a page that another application of the same process renders meanwhile waits
/// forever for its data. The tests start many applications in one process, which is where
/// renders stalled; generated once, before anything is served, nothing can be rendering.
fn route_list() -> Vec<AxumRouteListing> {
    static ROUTES: std::sync::OnceLock<Vec<AxumRouteListing>> = std::sync::OnceLock::new();
    ROUTES.get_or_init(|| generate_route_list(App)).clone()
}

async fn server_fns(State(state): State<AppState>, req: Request<Body>) -> impl IntoResponse {
    handle_server_fns_with_context(move || provide_context(state.ctx.clone()), req).await
}

/// A page render still unfinished after this long is started once more, and counted
/// (`page_render_retries_total`). A safety net only: the stalls it caught came from the
/// route list being generated while another application of the process rendered (see
/// [`route_list`]) and from resources read in several `<Suspense>` boundaries (leptos
/// #4851 / #4673), both mended; the render test of `.ci/run` fails if it ever fires.
/// Dashboards render in milliseconds, so five seconds only ever catches a stall.
const RENDER_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// Renders a page after all its data has loaded, so it is complete without JavaScript.
async fn pages(State(state): State<AppState>, req: Request<Body>) -> Response {
    let (parts, body) = req.into_parts();
    // Page requests are GETs (forms post to `/fn/…`), whose parts can simply be sent again.
    let again = (parts.method == http::Method::GET || parts.method == http::Method::HEAD)
        .then(|| parts.clone());
    // What the first attempt takes from the session (a secret shown once) the retry shows.
    let flashes = RenderFlashes::default();
    let Some(again) = again else {
        return render_page(&state, Request::from_parts(parts, body), flashes).await;
    };
    let first = rendered_whole(&state, Request::from_parts(parts, body), flashes.clone());
    match tokio::time::timeout(RENDER_RETRY_AFTER, first).await {
        Ok(res) => res,
        Err(_) => {
            tracing::warn!(path = %again.uri.path(), "page render stalled; rendering it again");
            metrics::counter!("page_render_retries_total").increment(1);
            rendered_whole(&state, Request::from_parts(again, Body::empty()), flashes).await
        }
    }
}

/// A page with its whole body read: the async renderer sends the page and then the data
/// its resources hand to hydration, and a stall can come in either part. Pages are tens of
/// kilobytes and complete before the first byte anyway, so nothing streams that would be
/// lost.
async fn rendered_whole(state: &AppState, req: Request<Body>, flashes: RenderFlashes) -> Response {
    let (parts, body) = render_page(state, req, flashes).await.into_parts();
    match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => Response::from_parts(parts, Body::from(bytes)),
        Err(e) => {
            tracing::error!(error = %e, "page body failed");
            app::error::AppError::internal().into_response()
        }
    }
}

async fn render_page(state: &AppState, req: Request<Body>, flashes: RenderFlashes) -> Response {
    let options = state.leptos_options.clone();
    let ctx = state.ctx.clone();
    // The visitor is resolved here, once, so the page's session resource is ready when the
    // render starts (see `server_fns::auth::session_info`).
    let visitor = match req.extensions().get::<tower_sessions::Session>() {
        Some(session) => visitor(&ctx, session).await,
        None => Err(app::error::AppError::internal()),
    };
    if visitor.as_ref().is_err_and(|e| e.status == 503) {
        // Rendering without knowing who signs in would show a signed-out page; the
        // `unavailable_page` layer answers the plain "temporarily unavailable" page.
        return http::StatusCode::SERVICE_UNAVAILABLE.into_response();
    }
    let preloaded = PreloadedVisitor(visitor);
    let handler = render_app_async_with_context(
        move || {
            provide_context(ctx.clone());
            provide_context(preloaded.clone());
            provide_context(flashes.clone());
        },
        move || shell(options.clone()),
    );
    handler(req).await.into_response()
}

/// Path prefixes of the JSON surfaces: an unknown route there is a JSON 404, not a page.
const API_PREFIXES: [&str; 8] = [
    "/auth/",
    "/admin/",
    "/publisher/v2",
    "/sdk/",
    "/performance-marketing/",
    "/api/",
    "/getallsurveys-api",
    "/fn/",
];

async fn fallback(state: State<AppState>, req: Request<Body>) -> Response {
    let path = req.uri().path();
    if API_PREFIXES.iter().any(|p| path.starts_with(p)) {
        return app::error::AppError::not_found("resource").into_response();
    }
    pages(state, req).await
}

/// The bundle's content hash written by scripts/build-frontend.sh, if the bundle has one.
pub fn bundle_version(site_root: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(site_root.join("pkg").join("bundle.version")).ok()?;
    let v = text.trim();
    is_version(v).then(|| v.to_owned())
}

/// A bundle version: 16 lowercase hexadecimal characters.
fn is_version(v: &str) -> bool {
    v.len() == 16 && v.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// What `/pkg<path>` answers.
#[derive(Debug, PartialEq)]
enum BundleFile {
    /// The file at this path of the site's `pkg/` folder; `true` for the current bundle's
    /// (cached for good).
    Serve(String, bool),
    /// Another bundle's main module: the current one's, by a redirect.
    Moved(String),
    /// Another bundle's page chunk.
    Gone,
}

/// `/<hash>/<file>`: any hash-shaped first segment names a bundle. A page from before a
/// deploy asks for the old main module: it is sent to the current one (a redirect, so that
/// the module's relative imports, the chunk loader and the chunks, name the current bundle
/// too and the page loads one consistent build). A page chunk of another bundle (`split_*`,
/// `chunk_*` and their loader, fetched when a dashboard's page is first shown) answers 404:
/// a tab that loaded the old main module before the deploy must not link the new build's
/// chunk into it (the chunk names do not change between builds); it needs a reload.
fn locate(path: &str, current: Option<&str>) -> BundleFile {
    match path.strip_prefix('/').and_then(|p| p.split_once('/')) {
        Some((v, rest)) if is_version(v) => match current {
            Some(now) if now == v => BundleFile::Serve(format!("/{rest}"), true),
            _ if ["split_", "chunk_", "__wasm_split"]
                .iter()
                .any(|p| rest.starts_with(p)) =>
            {
                BundleFile::Gone
            }
            Some(now) => BundleFile::Moved(format!("/pkg/{now}/{rest}")),
            None => BundleFile::Serve(format!("/{rest}"), false),
        },
        _ => BundleFile::Serve(path.to_owned(), false),
    }
}

/// Cache lifetime of a bundle file named by its content hash.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// `GET /pkg/<version>/<file>` (or the plain `/pkg/<file>`): a file of the browser bundle,
/// precompressed when the browser accepts brotli or gzip.
async fn bundle_file(State(state): State<AppState>, mut req: Request<Body>) -> Response {
    let path = req
        .uri()
        .path()
        .strip_prefix("/pkg")
        .unwrap_or_default()
        .to_owned();
    let (file, current) = match locate(&path, state.bundle_version.as_deref()) {
        BundleFile::Serve(file, current) => (file, current),
        BundleFile::Moved(to) => {
            return (
                http::StatusCode::TEMPORARY_REDIRECT,
                [
                    (http::header::LOCATION, to),
                    (http::header::CACHE_CONTROL, "no-cache".to_owned()),
                ],
            )
                .into_response();
        }
        BundleFile::Gone => return app::error::AppError::not_found("file").into_response(),
    };
    match file.parse() {
        Ok(uri) => *req.uri_mut() = uri,
        Err(_) => return app::error::AppError::not_found("file").into_response(),
    }
    let dir = ServeDir::new(state.settings.site_root.join("pkg"))
        .precompressed_br()
        .precompressed_gzip();
    let mut res = match tower::ServiceExt::oneshot(dir, req).await {
        Ok(res) => res.map(Body::new),
        Err(never) => match never {},
    };
    if res.status().is_success() {
        let cache = if current { IMMUTABLE } else { "no-cache" };
        res.headers_mut().insert(
            http::header::CACHE_CONTROL,
            http::HeaderValue::from_static(cache),
        );
    }
    res
}

async fn css() -> impl IntoResponse {
    (
        [
            (http::header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (http::header::CACHE_CONTROL, "public, max-age=300"),
        ],
        APP_CSS,
    )
}

#[cfg(test)]
mod tests {
    use super::{BundleFile, locate};

    const NOW: &str = "0123456789abcdef";
    const OLD: &str = "fedcba9876543210";

    fn serve(file: &str, current: bool) -> BundleFile {
        BundleFile::Serve(file.to_owned(), current)
    }

    #[test]
    fn the_current_bundle_is_served_for_good() {
        let main = locate(&format!("/{NOW}/frontend_bg.wasm"), Some(NOW));
        assert_eq!(main, serve("/frontend_bg.wasm", true));
        let chunk = locate(&format!("/{NOW}/split_publisher_area_1.wasm"), Some(NOW));
        assert_eq!(chunk, serve("/split_publisher_area_1.wasm", true));
    }

    #[test]
    fn an_older_bundle_is_sent_to_todays_main_module_and_never_gets_todays_chunks() {
        for main in ["frontend.js", "frontend_bg.wasm"] {
            let to = format!("/pkg/{NOW}/{main}");
            assert_eq!(
                locate(&format!("/{OLD}/{main}"), Some(NOW)),
                BundleFile::Moved(to)
            );
        }
        for chunk in [
            "split_account_area_1.wasm",
            "chunk_7.wasm",
            "__wasm_split.______.js",
        ] {
            let old = locate(&format!("/{OLD}/{chunk}"), Some(NOW));
            assert_eq!(old, BundleFile::Gone, "{chunk}");
        }
        // Plain names (a bundle built without a version file) are served as they are.
        assert_eq!(locate("/chunk_7.wasm", None), serve("/chunk_7.wasm", false));
        assert_eq!(
            locate(&format!("/{OLD}/frontend.js"), None),
            serve("/frontend.js", false)
        );
    }
}
