//! The `server` binary: a shim over the library so tests start exactly what runs here.

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server::cli::main().await
}
