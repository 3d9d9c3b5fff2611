//! A TCP proxy in front of PostgreSQL that can refuse or stall on command, to test how the
//! service answers while its database is unreachable.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// What the proxy does with connections.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Forwards bytes both ways.
    Forward,
    /// Closes every connection at once, open ones included (a database that went away).
    Refuse,
    /// Accepts but moves no byte, on open connections too (a network partition).
    Stall,
    /// Open connections that sent `LISTEN` move no byte any more, without being closed (a
    /// half-open LISTEN connection); every other connection, and new ones, go on.
    StallListeners,
}

pub struct Proxy {
    pub port: u16,
    mode: watch::Sender<Mode>,
    task: JoinHandle<()>,
}

impl Proxy {
    pub async fn start(upstream: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let (mode, rx) = watch::channel(Mode::Forward);
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let rx = rx.clone();
                tokio::spawn(relay(client, upstream, rx));
            }
        });
        Proxy { port, mode, task }
    }

    pub fn set(&self, mode: Mode) {
        let _ = self.mode.send(mode);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn relay(mut client: TcpStream, upstream: SocketAddr, mut rx: watch::Receiver<Mode>) {
    let mode = *rx.borrow();
    match mode {
        Mode::Refuse => return,
        Mode::Stall => {
            // Hold the socket silently until the partition heals, then drop it.
            let _ = rx.wait_for(|m| *m != Mode::Stall).await;
            return;
        }
        Mode::Forward | Mode::StallListeners => {}
    }
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let listens = AtomicBool::new(false);
    let stalled = {
        let (mut from_client, mut to_client) = client.split();
        let (mut from_server, mut to_server) = server.split();
        let up = async {
            let mut buf = vec![0u8; 16 * 1024];
            loop {
                let n = from_client.read(&mut buf).await?;
                if n == 0 {
                    return to_server.shutdown().await;
                }
                if buf[..n].windows(7).any(|w| w == b"LISTEN ") {
                    listens.store(true, Ordering::SeqCst);
                }
                to_server.write_all(&buf[..n]).await?;
            }
        };
        let down = tokio::io::copy(&mut from_server, &mut to_client);
        let stop = |m: &Mode| match m {
            Mode::Forward => false,
            Mode::StallListeners => listens.load(Ordering::SeqCst),
            Mode::Refuse | Mode::Stall => true,
        };
        tokio::select! {
            _ = async { tokio::join!(up, down) } => None,
            changed = rx.wait_for(stop) => changed.ok().map(|m| *m),
        }
    };
    // The sockets stay open (not a word to either side) until the mode changes back.
    match stalled {
        Some(Mode::Stall) => {
            let _ = rx.wait_for(|m| *m != Mode::Stall).await;
        }
        Some(Mode::StallListeners) => {
            let _ = rx.wait_for(|m| *m != Mode::StallListeners).await;
        }
        _ => {}
    }
}
