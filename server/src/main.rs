//! The `server` binary: a shim over the library so tests start exactly what runs here.

/// mimalloc instead of glibc malloc: the hot paths allocate many small, short-lived
/// buffers, and glibc's per-thread arenas both cost CPU there (malloc and free were the
/// largest user-space items in the offer-list profile) and keep memory the service no
/// longer uses (docs/operations.md, "Memory").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `purge_delay` option (the same index in its v2 and v3 option tables).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Give freed pages back to the system at once instead of after a delay that only runs
    // out when the freeing thread allocates again: building the inventory snapshot frees
    // tens of megabytes across threads, which otherwise stayed resident until the next
    // burst of work (measured: peak 153 MB instead of 140, hot-path throughput within
    // noise; docs/operations.md, "Memory"). `MIMALLOC_PURGE_DELAY` still overrides it.
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: called before any other thread exists, as mimalloc's options require.
        #[allow(unsafe_code)]
        unsafe {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0)
        };
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("starting the async runtime")
        .block_on(server::cli::main())
}
