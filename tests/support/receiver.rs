//! A real HTTPS reward-callback receiver for tests: a throwaway CA (its PEM is what the
//! server is given as `APP_CALLBACK_CA_FILE`), a certificate for 127.0.0.1 signed by it,
//! and an axum app behind rustls that answers from a script (OK, an error status, a hang,
//! or a dropped connection) and records every request. It verifies signatures with its own
//! HMAC-SHA256 and canonical JSON, independent of the service's code.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use hmac::{KeyInit, Mac};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::{self, pki_types};

/// What the receiver does with the next request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Ok,
    Status(u16),
    /// Answers after this long (longer than the service's timeout: a timeout).
    Hang(Duration),
    /// Answers this status with a 4 KiB body.
    Long(u16),
}

/// One request as received.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: BTreeMap<String, String>,
    pub body: String,
    pub answered: u16,
}

impl Received {
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
            .unwrap_or_default()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_default()
    }

    /// Whether the signature verifies with `secret`: HMAC-SHA256 over
    /// `timestamp.nonce.body`, lowercase hex, and the body is canonical JSON.
    pub fn verifies(&self, secret: &str) -> bool {
        let message = format!(
            "{}.{}.{}",
            self.header("x-service-timestamp"),
            self.header("x-service-nonce"),
            self.body
        );
        let Ok(mut mac) = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()) else {
            return false;
        };
        mac.update(message.as_bytes());
        let expected = hex::encode(mac.finalize().into_bytes());
        // serde_json's default map is ordered, so re-serialising sorts keys recursively.
        let canonical = serde_json::to_string(&self.json()).unwrap_or_default();
        expected == self.header("x-service-signature") && canonical == self.body
    }
}

#[derive(Default)]
struct Script {
    answers: VecDeque<Answer>,
    received: Vec<Received>,
    accepted: HashSet<String>,
}

/// A running HTTPS receiver.
pub struct Receiver {
    pub url: String,
    pub ca_file: PathBuf,
    port: u16,
    script: Arc<Mutex<Script>>,
    tls: TlsAcceptor,
    app: axum::Router,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
    _dir: tempfile::TempDir,
}

struct TlsListener {
    tcp: TcpListener,
    tls: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                continue;
            };
            if let Ok(Ok(s)) =
                tokio::time::timeout(Duration::from_secs(5), self.tls.accept(stream)).await
            {
                return (s, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

async fn hook(
    State(script): State<Arc<Mutex<Script>>>,
    headers: HeaderMap,
    body: Bytes,
) -> impl IntoResponse {
    let answer = script
        .lock()
        .map(|mut s| s.answers.pop_front().unwrap_or(Answer::Ok))
        .unwrap_or(Answer::Ok);
    if let Answer::Hang(d) = answer {
        tokio::time::sleep(d).await;
    }
    let status = match answer {
        Answer::Ok => 200,
        Answer::Status(s) | Answer::Long(s) => s,
        Answer::Hang(_) => 200,
    };
    let text = if matches!(answer, Answer::Long(_)) {
        "x".repeat(4096)
    } else {
        "ok".to_owned()
    };
    let headers: BTreeMap<String, String> = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                v.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    if let Ok(mut s) = script.lock() {
        let key = headers.get("idempotency-key").cloned().unwrap_or_default();
        // A receiver deduplicates by Idempotency-Key; `accepted` is what it durably took.
        if (200..300).contains(&status) && !matches!(answer, Answer::Hang(_)) {
            s.accepted.insert(key);
        }
        s.received.push(Received {
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
            answered: status,
        });
    }
    let mut res = (StatusCode::from_u16(status).unwrap_or(StatusCode::OK), text).into_response();
    if status == 503 || status == 429 {
        res.headers_mut()
            .insert("retry-after", axum::http::HeaderValue::from_static("120"));
    }
    res
}

impl Receiver {
    /// Starts a receiver on a free loopback port.
    pub async fn start() -> Receiver {
        Self::start_on(0).await
    }

    /// Starts a receiver on `port` (0: a free one).
    pub async fn start_on(port: u16) -> Receiver {
        let dir = tempfile::tempdir().expect("temp dir");
        let (tls, ca_file) = tls_identity(dir.path());
        let tcp = TcpListener::bind(("127.0.0.1", port))
            .await
            .expect("bind receiver");
        let addr = tcp.local_addr().expect("addr");
        let script = Arc::new(Mutex::new(Script::default()));
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(hook))
            .with_state(script.clone());
        let task = serve_tls(tcp, tls.clone(), app.clone());
        Receiver {
            url: format!("https://127.0.0.1:{}/hook", addr.port()),
            ca_file,
            port: addr.port(),
            script,
            tls,
            app,
            task: Mutex::new(Some(task)),
            _dir: dir,
        }
    }

    /// Listens again on the same port with the same certificate after [`Receiver::stop`].
    pub async fn resume(&self) {
        let tcp = TcpListener::bind(("127.0.0.1", self.port))
            .await
            .expect("rebind receiver");
        let task = serve_tls(tcp, self.tls.clone(), self.app.clone());
        if let Ok(mut t) = self.task.lock() {
            *t = Some(task);
        }
    }

    /// Queues answers for the next requests (then OK).
    pub fn answer(&self, answers: &[Answer]) {
        if let Ok(mut s) = self.script.lock() {
            s.answers.extend(answers.iter().copied());
        }
    }

    /// Every request so far.
    pub fn received(&self) -> Vec<Received> {
        self.script
            .lock()
            .map(|s| s.received.clone())
            .unwrap_or_default()
    }

    /// The `eventType` of every request so far, in order.
    pub fn event_types(&self) -> Vec<String> {
        let received = self.received();
        let types = received
            .iter()
            .map(|r| r.json()["eventType"].as_str().map(str::to_owned));
        types.map(|t| t.unwrap_or_else(|| "?".to_owned())).collect()
    }

    /// The Idempotency-Keys accepted (2xx) so far.
    pub fn accepted(&self) -> HashSet<String> {
        self.script
            .lock()
            .map(|s| s.accepted.clone())
            .unwrap_or_default()
    }

    /// Stops listening (the port then refuses connections).
    pub fn stop(&self) {
        if let Some(t) = self.task.lock().ok().and_then(|mut t| t.take()) {
            t.abort();
        }
    }
}

/// Serves `app` over TLS on `tcp` until the task is aborted.
pub fn serve_tls(
    tcp: TcpListener,
    tls: TlsAcceptor,
    app: axum::Router,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let _ = axum::serve(TlsListener { tcp, tls }, app).await;
    })
}

/// A throwaway CA (written to `dir/ca.pem`) and a TLS acceptor for 127.0.0.1 signed by it.
pub fn tls_identity(dir: &std::path::Path) -> (TlsAcceptor, PathBuf) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca.distinguished_name
        .push(rcgen::DnType::CommonName, "Callback test CA");
    ca.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
    ];
    let ca_cert = ca.self_signed(&ca_key).expect("CA cert");
    let issuer = rcgen::Issuer::new(ca, ca_key);
    let leaf_key = rcgen::KeyPair::generate().expect("leaf key");
    let leaf = rcgen::CertificateParams::new(vec!["127.0.0.1".to_owned(), "localhost".to_owned()])
        .expect("leaf params")
        .signed_by(&leaf_key, &issuer)
        .expect("leaf cert");
    let ca_file = dir.join("ca.pem");
    std::fs::write(&ca_file, ca_cert.pem()).expect("write CA");
    let config = rustls::ServerConfig::builder()
        .with_no_client_auth()
        .with_single_cert(
            vec![leaf.der().clone()],
            pki_types::PrivateKeyDer::Pkcs8(pki_types::PrivatePkcs8KeyDer::from(
                leaf_key.serialize_der(),
            )),
        )
        .expect("TLS config");
    (TlsAcceptor::from(Arc::new(config)), ca_file)
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether the `standardwebhooks` package accepts `body` with the request's headers.
pub fn standard_verifies(secret: &str, r: &Received, body: &str) -> bool {
    const SCRIPT: &str = "import json, sys\n\
        from standardwebhooks import Webhook\n\
        d = json.load(sys.stdin)\n\
        try:\n    Webhook(d['secret']).verify(d['body'], d['headers'])\n    print('verified')\n\
        except Exception as e:\n    print('refused:', e)\n";
    let headers: serde_json::Value = ["webhook-id", "webhook-timestamp", "webhook-signature"]
        .iter()
        .map(|h| (h.to_string(), serde_json::Value::from(r.header(h))))
        .collect::<serde_json::Map<_, _>>()
        .into();
    let input = serde_json::json!({"secret": secret, "body": body, "headers": headers});
    let mut child = std::process::Command::new("python3")
        .args(["-c", SCRIPT])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("written");
    let out = child.wait_with_output().expect("ran");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && !said.is_empty(),
        "the standardwebhooks package is needed (scripts/setup.sh --test installs it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    said.trim() == "verified"
}
