//! A database that cannot serve: every route that needs it answers 503
//! `service_unavailable` with `Retry-After` within about two seconds (JSON on the APIs, a
//! plain page on dashboards), routes served from memory keep answering, and the service
//! recovers by itself once the database is back. Both databases: an exhausted pool (a
//! transaction holding the only connection; on SQLite also its write lock), and on
//! PostgreSQL a database that refuses connections or whose packets stall (a proxy).

use std::time::{Duration, Instant};

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::proxy::{Mode, Proxy};
use tests::{Backend, TestApp, error_code};

use tests::process::server_binary;

tests::each_backend!(
    an_exhausted_pool_answers_503_within_two_seconds_and_recovers,
    a_refused_or_stalled_database_answers_503_within_two_seconds,
);

/// The answer to one request: status, `Retry-After`, body, how long it took.
struct Answer {
    status: StatusCode,
    retry_after: Option<String>,
    body: String,
    took: Duration,
}

async fn call(client: &reqwest::Client, req: reqwest::RequestBuilder) -> Answer {
    let _ = client;
    let started = Instant::now();
    let res = req.send().await.expect("answered");
    let status = res.status();
    let retry_after = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Answer {
        status,
        retry_after,
        body: res.text().await.unwrap_or_default(),
        took: started.elapsed(),
    }
}

/// Sign-in, a console read and a dashboard page all answer 503 fast; `/healthz` stays up.
async fn expect_unavailable(
    client: &reqwest::Client,
    base: &str,
    user: &tests::TestUser,
    token: &str,
    readiness: bool,
) {
    let sign_in = client
        .post(format!("{base}/auth/v1/tokens"))
        .json(&json!({"email": user.email, "password": user.password}));
    let console = client
        .get(format!("{base}/publisher/v2/placements"))
        .bearer_auth(token);
    let page = client.get(format!("{base}/sign-in"));
    let ready = client.get(format!("{base}/readyz"));
    let (a, b, c, d) = tokio::join!(
        call(client, sign_in),
        call(client, console),
        call(client, page),
        call(client, ready)
    );
    for (what, r) in [("sign-in", &a), ("console read", &b)] {
        assert_eq!(
            r.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{what}: {}",
            r.body
        );
        let body: serde_json::Value = serde_json::from_str(&r.body).unwrap_or_default();
        assert_eq!(error_code(&body), "service_unavailable", "{what}: {body}");
        assert_eq!(r.retry_after.as_deref(), Some("2"), "{what}: Retry-After");
        assert!(
            r.took < Duration::from_millis(3_500),
            "{what} took {:?}",
            r.took
        );
    }
    assert_eq!(
        c.status,
        StatusCode::SERVICE_UNAVAILABLE,
        "page: {}",
        c.body
    );
    assert!(c.body.contains("Temporarily unavailable"), "{}", c.body);
    assert_eq!(c.retry_after.as_deref(), Some("2"), "page: Retry-After");
    assert!(
        c.took < Duration::from_millis(3_500),
        "page took {:?}",
        c.took
    );
    if readiness {
        assert_eq!(d.status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            d.took < Duration::from_millis(3_500),
            "readyz took {:?}",
            d.took
        );
    }
    let alive = client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .expect("healthz");
    assert_eq!(
        alive.status(),
        StatusCode::OK,
        "liveness does not need the database"
    );
}

/// Signs in again and again until it works: the service recovers within five seconds.
async fn expect_recovery(client: &reqwest::Client, base: &str, user: &tests::TestUser) {
    let started = Instant::now();
    loop {
        let res = client
            .post(format!("{base}/auth/v1/tokens"))
            .json(&json!({"email": user.email, "password": user.password}))
            .send()
            .await
            .expect("answered");
        if res.status() == StatusCode::CREATED {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "not recovered 5 s after the database came back: {}",
            res.status()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn an_exhausted_pool_answers_503_within_two_seconds_and_recovers(backend: Backend) {
    let app = TestApp::spawn_with(backend, &["--db-max-connections", "1"]).await;
    let (user, token) = app.signed_in(Role::Publisher).await;
    // A browser session exists, so the page's session layer must read the database.
    let warm = app
        .client
        .get(app.url("/sign-in"))
        .send()
        .await
        .expect("page");
    assert_eq!(warm.status(), StatusCode::OK);
    let hold = app::domain::db::begin(&app.state.ctx.db)
        .await
        .expect("take the only connection");
    expect_unavailable(&app.client, &app.base, &user, &token, true).await;
    drop(hold);
    expect_recovery(&app.client, &app.base, &user).await;
}

async fn a_refused_or_stalled_database_answers_503_within_two_seconds(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let (user, token) = app.signed_in(Role::Publisher).await;
    if backend == Backend::Sqlite {
        // An embedded database is never unreachable; its failure is a write lock held by
        // someone else past the busy timeout: writes answer 503 fast, reads go on.
        let hold = app::domain::db::begin(&app.state.ctx.db)
            .await
            .expect("take the write lock");
        use sea_orm::ConnectionTrait;
        hold.execute_unprepared("UPDATE accounts SET email = email WHERE 1 = 0")
            .await
            .expect("hold the write lock");
        let r = call(
            &app.client,
            app.client
                .post(app.url("/auth/v1/tokens"))
                .json(&json!({"email": user.email, "password": user.password})),
        )
        .await;
        assert_eq!(r.status, StatusCode::SERVICE_UNAVAILABLE, "{}", r.body);
        assert_eq!(r.retry_after.as_deref(), Some("2"), "Retry-After");
        assert!(r.took < Duration::from_millis(3_500), "{:?}", r.took);
        let (s, _) = app.get("/publisher/v2/placements", Some(&token)).await;
        assert_eq!(s, StatusCode::OK, "reads go on during a write lock");
        drop(hold);
        expect_recovery(&app.client, &app.base, &user).await;
        return;
    }
    // The real binary, talking to PostgreSQL through a proxy this test controls.
    let mut url = url::Url::parse(&app.database_url).expect("database url");
    let upstream = format!(
        "{}:{}",
        url.host_str().unwrap_or("127.0.0.1"),
        url.port().unwrap_or(5432)
    );
    let proxy = Proxy::start(upstream.parse().expect("upstream address")).await;
    url.set_port(Some(proxy.port)).expect("set port");
    let data = tempfile::tempdir().expect("data dir");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let _server = tokio::process::Command::new(server_binary())
        .arg("serve")
        .env("APP_DATABASE_URL", url.as_str())
        .env("APP_BIND", format!("127.0.0.1:{port}"))
        .env("APP_BASE_URL", &base)
        .env("APP_SECRET_KEY", "5e".repeat(32))
        .env("APP_DATA_DIR", data.path())
        .env("APP_RUN_WORKERS", "false")
        .env("RUST_LOG", "error")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server binary (scripts/test.sh builds it first)");
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client");
    for _ in 0..200 {
        if client
            .get(format!("{base}/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let warm = client
        .get(format!("{base}/sign-in"))
        .send()
        .await
        .expect("page");
    assert_eq!(warm.status(), StatusCode::OK);
    for mode in [Mode::Refuse, Mode::Stall] {
        proxy.set(mode);
        expect_unavailable(&client, &base, &user, &token, true).await;
        proxy.set(Mode::Forward);
        expect_recovery(&client, &base, &user).await;
    }
}

tests::both_backends!(slow_clients_are_cut_off_by_the_header_and_request_deadlines);

/// A client that trickles its request head is disconnected after the 10-second header
/// timeout; one that declares a body and never sends it is answered 408 at the request
/// deadline. Neither holds its connection for long.
async fn slow_clients_are_cut_off_by_the_header_and_request_deadlines(app: TestApp) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = app.base.trim_start_matches("http://").to_owned();
    let trickle = async {
        let mut s = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
            .await
            .expect("write");
        let started = Instant::now();
        let mut buf = Vec::new();
        for _ in 0..30 {
            // One more header line every two seconds, never the blank line that ends them.
            if s.write_all(b"X-Slow: 1\r\n").await.is_err() {
                break;
            }
            match tokio::time::timeout(Duration::from_secs(2), s.read_to_end(&mut buf)).await {
                Ok(_) => break,
                Err(_) => continue,
            }
        }
        started.elapsed()
    };
    let short_body = async {
        let mut s = tokio::net::TcpStream::connect(&addr)
            .await
            .expect("connect");
        s.write_all(
            b"POST /auth/v1/tokens HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"email\":",
        )
        .await
        .expect("write");
        let started = Instant::now();
        let mut buf = vec![0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(20), s.read(&mut buf))
            .await
            .expect("answered before 20 s")
            .expect("read");
        (
            started.elapsed(),
            String::from_utf8_lossy(&buf[..n]).into_owned(),
        )
    };
    let (trickled, (waited, answer)) = tokio::join!(trickle, short_body);
    assert!(
        trickled < Duration::from_secs(15),
        "a trickling client is dropped at the header timeout, not after {trickled:?}"
    );
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"timeout\""), "{answer}");
    assert!(waited < Duration::from_secs(12), "{waited:?}");
}
