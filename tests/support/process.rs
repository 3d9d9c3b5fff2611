//! The real `server` binary as another process on a test's database (built by
//! `scripts/test.sh` before the tests): a second process behind the same database, a process
//! to kill, a process to cut from its database.

use std::path::PathBuf;
use std::time::Duration;

/// `target/debug/server`, beside the test binary's `deps` folder.
pub fn server_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/debug/deps/integration-… → target/debug/server
    exe.parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("server"))
        .expect("target dir")
}

/// A running `server serve` on a free port; killed when dropped.
pub struct ServerProcess {
    pub child: tokio::process::Child,
    pub base: String,
    _data: tempfile::TempDir,
}

/// Starts `server serve` on `database_url` with the tests' master key, its own data folder,
/// workers off unless `env` says otherwise, and `env` on top; returns once `ready_path`
/// (`/healthz` or `/readyz`) answers 2xx, within 20 seconds.
pub async fn start(database_url: &str, env: &[(&str, &str)], ready_path: &str) -> ServerProcess {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let base = format!("http://127.0.0.1:{port}");
    let data = tempfile::tempdir().expect("data dir");
    let mut cmd = tokio::process::Command::new(server_binary());
    cmd.arg("serve")
        .env("APP_DATABASE_URL", database_url)
        .env("APP_BIND", format!("127.0.0.1:{port}"))
        .env("APP_BASE_URL", &base)
        .env("APP_SECRET_KEY", "5e".repeat(32))
        .env("APP_DATA_DIR", data.path())
        .env("APP_RUN_WORKERS", "false")
        .env("RUST_LOG", "warn");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server binary (scripts/test.sh builds it first)");
    let probe = reqwest::Client::new();
    for _ in 0..400 {
        if probe
            .get(format!("{base}{ready_path}"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return ServerProcess {
                child,
                base,
                _data: data,
            };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server process did not answer {ready_path}");
}
