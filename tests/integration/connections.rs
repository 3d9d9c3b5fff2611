//! The server loop's connection limits (server/src/serve.rs, issue 52): a connection that
//! sends nothing neither holds a serving slot nor lives past the header timeout, and idle
//! HTTP/1.1 keep-alive and HTTP/2 connections are closed after the idle limit. Before, with
//! the cap at 16, sixteen silent sockets made `/healthz` wait for as long as they stayed.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tests::{Backend, TestApp, each_backend};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

each_backend!(
    silent_sockets_at_the_cap_do_not_hold_the_service,
    idle_connections_are_closed,
);

const CAP: usize = 16;

async fn limited(backend: Backend) -> TestApp {
    TestApp::spawn_with(
        backend,
        &[
            "--max-connections",
            "16",
            "--header-timeout-seconds",
            "2",
            "--idle-timeout-seconds",
            "2",
        ],
    )
    .await
}

fn address(app: &TestApp) -> String {
    app.base.trim_start_matches("http://").to_owned()
}

/// Whether the server closes `stream` within `limit` (reads until the end).
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

async fn silent_sockets_at_the_cap_do_not_hold_the_service(backend: Backend) {
    let app = limited(backend).await;
    let mut silent = Vec::new();
    for _ in 0..CAP {
        silent.push(TcpStream::connect(address(&app)).await.expect("connect"));
    }
    // Let the server accept them all.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    let res = reqwest::Client::new()
        .get(app.url("/healthz"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .expect("/healthz answers");
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "/healthz took {:?} beside {CAP} silent sockets",
        started.elapsed()
    );
    // And the silent ones are closed once the header timeout (2 s) has passed.
    for s in &mut silent {
        assert!(
            closed_within(s, Duration::from_secs(5)).await,
            "a silent socket outlived the header timeout"
        );
    }
}

async fn idle_connections_are_closed(backend: Backend) {
    let app = limited(backend).await;
    // HTTP/1.1 keep-alive: one request answered, then nothing.
    let mut h1 = TcpStream::connect(address(&app)).await.expect("connect");
    h1.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .expect("sent");
    let mut first = [0u8; 12];
    h1.read_exact(&mut first).await.expect("answered");
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(
        closed_within(&mut h1, Duration::from_secs(6)).await,
        "an idle keep-alive connection stayed open"
    );

    // HTTP/2 with prior knowledge: the preface and empty settings, then nothing. The
    // server answers with its settings, then a GOAWAY and the end once idle.
    let mut h2 = TcpStream::connect(address(&app)).await.expect("connect");
    h2.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .expect("preface");
    h2.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0])
        .await
        .expect("settings");
    // Frames as a client would treat them: settings and pings acknowledged, until the
    // server says GOAWAY and ends the connection.
    let started = Instant::now();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(8);
    let mut going_away = false;
    loop {
        let mut header = [0u8; 9];
        match tokio::time::timeout_at(deadline, h2.read_exact(&mut header)).await {
            Err(_) => panic!("an idle HTTP/2 connection stayed open"),
            Ok(Err(_)) => break,
            Ok(Ok(_)) => {}
        }
        let len =
            usize::from(header[0]) << 16 | usize::from(header[1]) << 8 | usize::from(header[2]);
        let mut payload = vec![0u8; len];
        if h2.read_exact(&mut payload).await.is_err() {
            break;
        }
        let (kind, flags) = (header[3], header[4]);
        let ack = flags & 1 == 1;
        match kind {
            4 if !ack => {
                let _ = h2.write_all(&[0, 0, 0, 4, 1, 0, 0, 0, 0]).await;
            }
            6 if !ack => {
                let mut pong = vec![0, 0, 8, 6, 1, 0, 0, 0, 0];
                pong.extend_from_slice(&payload);
                let _ = h2.write_all(&pong).await;
            }
            7 => going_away = true,
            _ => {}
        }
    }
    assert!(going_away, "the server said GOAWAY before closing");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "closed before it idled"
    );
}
