//! The log writer: formatted lines are appended to a shared buffer that a thread of its own
//! writes out every [`FLUSH_EVERY`] (sooner once [`FLUSH_AT`] bytes wait).
//!
//! Why not `tracing_appender::non_blocking` (used until issue 29 was measured): it sends every line through a channel
//! to its writer thread, and at tens of thousands of requests a second (one access line
//! each) the sender wakes that thread for nearly every line, a system call and a context
//! switch per request on a 2-core machine. Here a request only takes a lock and copies its
//! line; the writer wakes twenty times a second.
//!
//! Nothing is dropped: when the buffer holds [`MAX_BYTES`] (stdout blocked) a logging
//! request waits for room. Lines still buffered are written when the guard drops (the
//! process ends); a killed process loses at most the last [`FLUSH_EVERY`] of lines.

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use tracing_subscriber::fmt::MakeWriter;

/// How often buffered lines are written out.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// Written out at once when this much waits.
const FLUSH_AT: usize = 256 << 10;
/// Loggers wait for room beyond this.
const MAX_BYTES: usize = 16 << 20;

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// The writer waits on it for lines (or for the end).
    ready: Condvar,
    /// Loggers wait on it for room.
    room: Condvar,
}

#[derive(Default)]
struct State {
    lines: Vec<u8>,
    closed: bool,
}

/// The `MakeWriter` handed to the fmt layer.
#[derive(Clone)]
pub struct Batched(Arc<Shared>);

/// Writes out what is still buffered, and stops the writer, when dropped.
pub struct Guard {
    shared: Arc<Shared>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Batched {
    /// A writer into `out`, and the guard to keep until the process ends.
    pub fn new<W: Write + Send + 'static>(mut out: W) -> (Batched, Guard) {
        let shared = Arc::new(Shared::default());
        let theirs = shared.clone();
        let writer = std::thread::Builder::new()
            .name("log-writer".into())
            .spawn(move || {
                let mut spare = Vec::new();
                loop {
                    let closed = {
                        let mut state = theirs.state.lock().unwrap_or_else(|e| e.into_inner());
                        if !state.closed && state.lines.len() < FLUSH_AT {
                            state = theirs
                                .ready
                                .wait_timeout(state, FLUSH_EVERY)
                                .map(|(s, _)| s)
                                .unwrap_or_else(|e| e.into_inner().0);
                        }
                        std::mem::swap(&mut state.lines, &mut spare);
                        theirs.room.notify_all();
                        state.closed
                    };
                    if !spare.is_empty() {
                        // A failed write (stdout closed) has nowhere to be reported.
                        let _ = out.write_all(&spare).and_then(|()| out.flush());
                        spare.clear();
                    }
                    if closed {
                        return;
                    }
                }
            })
            .ok();
        (Batched(shared.clone()), Guard { shared, writer })
    }
}

/// One formatted event (the fmt layer writes each event with one `write_all`).
pub struct Line<'a>(&'a Shared);

impl Write for Line<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut state = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        while state.lines.len() >= MAX_BYTES && !state.closed {
            state = self.0.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        state.lines.extend_from_slice(bytes);
        if state.lines.len() >= FLUSH_AT {
            self.0.ready.notify_one();
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for Batched {
    type Writer = Line<'a>;

    fn make_writer(&'a self) -> Line<'a> {
        Line(&self.0)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .closed = true;
        self.shared.ready.notify_one();
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test can read after the writer wrote to it.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("sink").extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_arrive_in_order_within_the_flush_interval_and_at_the_end() {
        let sink = Sink::default();
        let (writer, guard) = Batched::new(sink.clone());
        writer.make_writer().write_all(b"one\n").expect("write");
        writer.make_writer().write_all(b"two\n").expect("write");
        let mut seen = Vec::new();
        for _ in 0..100 {
            seen = sink.0.lock().expect("sink").clone();
            if !seen.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(seen, b"one\ntwo\n", "written within a second");
        writer.make_writer().write_all(b"three\n").expect("write");
        drop(guard);
        assert_eq!(
            sink.0.lock().expect("sink").as_slice(),
            b"one\ntwo\nthree\n",
            "flushed at the end"
        );
    }
}
