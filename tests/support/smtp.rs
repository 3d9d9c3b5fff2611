//! A mail server for tests: plain SMTP (RFC 5321: greeting, EHLO/HELO, MAIL, RCPT, DATA with
//! dot-unstuffing, RSET, NOOP, QUIT) on a free port of 127.0.0.1, recording every message it
//! accepts. Recipients at `refused.example` get a permanent 550, as a real server answers
//! for a mailbox that does not exist. Dropping it (or [`SmtpServer::stop`]) closes the port,
//! which is a mail server that is down.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One accepted message.
#[derive(Debug, Clone)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent (headers and body), CRLF line ends, dots unstuffed.
    pub data: String,
}

impl Mail {
    /// A header's value (the first one of that name), unfolded.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next()?;
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if let Some(v) = value.as_mut().filter(|_| line.starts_with([' ', '\t'])) {
                v.push(' ');
                v.push_str(line.trim());
                continue;
            }
            if value.is_some() {
                break;
            }
            if let Some((k, v)) = line.split_once(':')
                && k.eq_ignore_ascii_case(name)
            {
                value = Some(v.trim().to_owned());
            }
        }
        value
    }

    /// The body after the headers, decoded when it is quoted-printable (RFC 2045: `=` and
    /// two hex digits, a soft line break `=` at a line's end), as a mail reader shows it.
    pub fn body(&self) -> String {
        let raw = self
            .data
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        let encoding = self.header("Content-Transfer-Encoding").unwrap_or_default();
        if !encoding.eq_ignore_ascii_case("quoted-printable") {
            return raw;
        }
        let joined = raw.replace("=\r\n", "");
        let bytes = joined.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'=', Some(b)) => {
                    out.push(b);
                    i += 3;
                }
                (c, _) => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        String::from_utf8_lossy(&out).into_owned()
    }
}

pub struct SmtpServer {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Mail>>>,
    task: JoinHandle<()>,
}

impl SmtpServer {
    /// Listens on a free port.
    pub async fn start() -> SmtpServer {
        Self::start_on("127.0.0.1:0".parse().expect("addr")).await
    }

    /// Listens on `addr` (a port a stopped server used: the server is back).
    pub async fn start_on(addr: SocketAddr) -> SmtpServer {
        let listener = TcpListener::bind(addr).await.expect("bind smtp");
        let addr = listener.local_addr().expect("addr");
        let received = Arc::new(Mutex::new(Vec::new()));
        let store = received.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(session(stream, store.clone()));
            }
        });
        SmtpServer {
            addr,
            received,
            task,
        }
    }

    /// The `APP_MAIL_URL` of this server.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    pub fn received(&self) -> Vec<Mail> {
        self.received.lock().expect("smtp log").clone()
    }

    /// Closes the port (sessions already open end with their connection).
    pub fn stop(self) {
        self.task.abort();
    }
}

impl Drop for SmtpServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One SMTP session; every answer ends the line with CRLF.
async fn session(stream: TcpStream, store: Arc<Mutex<Vec<Mail>>>) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    if !say(&mut write, "220 stand-in.test ESMTP").await {
        return;
    }
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let command = line.trim_end().to_owned();
        let upper = command.to_ascii_uppercase();
        let answer = if upper.starts_with("EHLO") {
            "250-stand-in.test\r\n250-8BITMIME\r\n250 SMTPUTF8".to_owned()
        } else if upper.starts_with("HELO") || upper.starts_with("NOOP") {
            "250 OK".to_owned()
        } else if upper.starts_with("MAIL FROM:") {
            from = address(&command);
            to.clear();
            "250 OK".to_owned()
        } else if upper.starts_with("RCPT TO:") {
            let rcpt = address(&command);
            if rcpt.ends_with("@refused.example") {
                "550 5.1.1 no such mailbox".to_owned()
            } else {
                to.push(rcpt);
                "250 OK".to_owned()
            }
        } else if upper == "DATA" {
            if !say(&mut write, "354 end with <CRLF>.<CRLF>").await {
                return;
            }
            let mut data = String::new();
            loop {
                line.clear();
                match lines.read_line(&mut line).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {}
                }
                if line == ".\r\n" || line == ".\n" {
                    break;
                }
                // Dot-unstuffing: a line the client began with an extra dot.
                data.push_str(line.strip_prefix('.').unwrap_or(&line));
            }
            store.lock().expect("smtp log").push(Mail {
                from: from.clone(),
                to: std::mem::take(&mut to),
                data,
            });
            "250 OK queued".to_owned()
        } else if upper.starts_with("RSET") {
            to.clear();
            "250 OK".to_owned()
        } else if upper.starts_with("QUIT") {
            let _ = say(&mut write, "221 bye").await;
            return;
        } else {
            "502 command not implemented".to_owned()
        };
        if !say(&mut write, &answer).await {
            return;
        }
    }
}

/// Writes one answer; false when the client is gone.
async fn say(w: &mut tokio::net::tcp::OwnedWriteHalf, text: &str) -> bool {
    w.write_all(format!("{text}\r\n").as_bytes()).await.is_ok()
}

/// The address between `<` and `>` of a MAIL or RCPT command.
fn address(command: &str) -> String {
    let start = command.find('<').map_or(0, |i| i + 1);
    let end = command.rfind('>').unwrap_or(command.len());
    command.get(start..end).unwrap_or_default().to_owned()
}
