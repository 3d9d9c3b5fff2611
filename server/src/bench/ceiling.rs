//! `server bench-ceiling`: the machine's ceiling for the benchmark. Bare axum on the same
//! runtime serving what the measured routes answer, with none of the service's work:
//! hello-world JSON, a pre-serialised body of any size (`/body/{bytes}`), a 304 and a 302.
//! Every measured figure in BENCHMARKS.md is also a share of one of these.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

/// Serves the ceiling routes until stopped.
pub async fn serve(bind: SocketAddr) -> anyhow::Result<()> {
    let app = Router::new()
        .route(
            "/hello",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    r#"{"message":"hello, world"}"#,
                )
            }),
        )
        .route("/body/{bytes}", get(body))
        .route(
            "/not-modified",
            get(|| async {
                (
                    StatusCode::NOT_MODIFIED,
                    [(header::ETAG, "\"0123456789abcdef0123456789abcdef\"")],
                )
            }),
        )
        .route(
            "/redirect",
            get(|| async {
                (
                    StatusCode::FOUND,
                    [(
                        header::LOCATION,
                        "https://adv1.example/offer/1?click=clk_0123456789abcdef",
                    )],
                )
            }),
        );
    let listener = tokio::net::TcpListener::bind(bind).await?;
    println!("ceiling listening on {}", listener.local_addr()?);
    axum::serve(listener, app).await?;
    Ok(())
}

/// A JSON body of exactly `bytes` bytes, built once per size and then shared.
async fn body(Path(bytes): Path<usize>) -> impl IntoResponse {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static BODIES: OnceLock<Mutex<HashMap<usize, axum::body::Bytes>>> = OnceLock::new();
    let bytes = bytes.clamp(16, 4 << 20);
    let body = BODIES
        .get_or_init(Mutex::default)
        .lock()
        .map(|mut m| {
            m.entry(bytes)
                .or_insert_with(|| {
                    let mut s = String::with_capacity(bytes);
                    s.push_str("{\"pad\":\"");
                    while s.len() < bytes - 2 {
                        s.push('x');
                    }
                    s.push_str("\"}");
                    axum::body::Bytes::from(s)
                })
                .clone()
        })
        .unwrap_or_default();
    ([(header::CONTENT_TYPE, "application/json")], body)
}
