//! A TCP proxy in front of PostgreSQL that can refuse or stall on command, to test how the
//! service answers while its database is unreachable.

use std::net::SocketAddr;

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
        Mode::Forward => {}
    }
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    let stalled = tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => false,
        changed = rx.wait_for(|m| *m != Mode::Forward) => {
            changed.map(|m| *m == Mode::Stall).unwrap_or(false)
        }
    };
    if stalled {
        let _ = rx.wait_for(|m| *m != Mode::Stall).await;
    }
}
