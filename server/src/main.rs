//! The `server` binary: a shim over the library so tests start exactly what runs here.

/// mimalloc instead of glibc malloc: the hot paths allocate many small, short-lived
/// buffers, and glibc's per-thread arenas both cost CPU there (malloc and free were the
/// largest user-space items in the offer-list profile) and keep memory the service no
/// longer uses (docs/operations.md, "Memory").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    server::cli::main().await
}
