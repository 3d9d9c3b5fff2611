//! The application's warnings and errors, captured for tests that check a cause was
//! logged. One global subscriber for the test binary (the server runs in-process); tests
//! look for a marker of their own, so parallel tests do not see each other's lines.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};

/// Keeps the newest lines only, so a long run cannot grow the buffer without bound.
const KEEP_BYTES: usize = 4 * 1024 * 1024;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut b = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if b.len() + bytes.len() > KEEP_BYTES {
            let cut = (b.len() + bytes.len() - KEEP_BYTES).min(b.len());
            b.drain(..cut);
        }
        b.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

static CAPTURED: OnceLock<Buffer> = OnceLock::new();

/// Starts capturing (once per test binary; later calls share the first capture).
pub fn capture() {
    CAPTURED.get_or_init(|| {
        let buffer = Buffer::default();
        let writer = buffer.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish();
        // Another harness may have installed one first; then nothing is captured and the
        // tests that need a line fail loudly rather than pass silently.
        let _ = tracing::subscriber::set_global_default(subscriber);
        buffer
    });
}

/// Whether a captured line contains `needle`.
pub fn contain(needle: &str) -> bool {
    CAPTURED.get().is_some_and(|b| {
        let bytes = b.0.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&bytes).contains(needle)
    })
}
