//! The HTTP client of reward callbacks.
//!
//! rustls with the built-in web roots plus `APP_CALLBACK_CA_FILE`; HTTPS only; HTTP/2 where
//! the receiver offers it (ALPN), otherwise pooled HTTP/1.1 keep-alive connections;
//! redirects are never followed (a 3xx is a failed attempt); 5 s to connect and
//! `APP_CALLBACK_TIMEOUT_SECONDS` (default 10 s) for the whole exchange; no proxy. Names are
//! resolved by [`CheckedResolver`], which returns only addresses that pass the private and
//! loopback rules, so the connection goes to the address that was checked.

use std::error::Error as StdError;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use app::domain::Ctx;
use app::domain::callback_delivery::address::{self, AddressRefused};
use app::domain::callback_delivery::dispatch::{Attempt, Outcome};

use crate::config::Settings;

/// How much of a response body is kept with the attempt: enough for a receiver's error
/// message, too little to make the console (replay) a way to read what some HTTPS service
/// answers. Sends go only to the placement's configured receiver, replays are rate-limited
/// per publisher, and private addresses are refused at send time.
const EXCERPT_BYTES: usize = 256;

/// Resolves receiver names to checked addresses only; fails closed.
struct CheckedResolver {
    allow_private: bool,
}

impl reqwest::dns::Resolve for CheckedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let allow_private = self.allow_private;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let addrs = address::resolve_checked(&host, 0, allow_private)
                .await
                .map_err(|e| Box::new(Refused(e)) as Box<dyn StdError + Send + Sync>)?;
            Ok(Box::new(addrs.into_iter()) as Box<dyn Iterator<Item = SocketAddr> + Send>)
        })
    }
}

/// A receiver address refused by the rules (kept in the error chain for classification).
#[derive(Debug)]
struct Refused(AddressRefused);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl StdError for Refused {}

/// The HTTP client for reward callbacks.
pub struct Sender {
    client: reqwest::Client,
    allow_private: bool,
    /// Requests in flight to one placement's receiver at most.
    pub per_receiver: usize,
    /// The longest one attempt can take (the whole-exchange timeout).
    pub timeout: Duration,
}

impl Sender {
    /// Builds the client; a CA file that cannot be read or parsed stops start-up.
    pub fn from_settings(settings: &Settings) -> anyhow::Result<Self> {
        let allow_private = settings.callback_allow_private
            && settings.environment != app::domain::Environment::Production;
        let timeout = Duration::from_secs(settings.callback_timeout_seconds.clamp(1, 60));
        let per_receiver = settings.callback_concurrency.clamp(1, 256);
        let mut b = reqwest::Client::builder()
            .use_rustls_tls()
            .https_only(true)
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            .timeout(timeout)
            // Kept-alive connections per host: many placements may share one receiving host.
            .pool_max_idle_per_host(256)
            .pool_idle_timeout(Duration::from_secs(60))
            .tcp_nodelay(true)
            .no_proxy()
            .user_agent(concat!(
                "marketplace-reward-callbacks/",
                env!("CARGO_PKG_VERSION")
            ))
            .dns_resolver(Arc::new(CheckedResolver { allow_private }));
        if let Some(path) = &settings.callback_ca_file {
            let pem = std::fs::read(path)
                .with_context(|| format!("reading APP_CALLBACK_CA_FILE {}", path.display()))?;
            let certs = reqwest::Certificate::from_pem_bundle(&pem)
                .with_context(|| format!("parsing APP_CALLBACK_CA_FILE {}", path.display()))?;
            anyhow::ensure!(
                !certs.is_empty(),
                "APP_CALLBACK_CA_FILE holds no certificate"
            );
            for c in certs {
                b = b.add_root_certificate(c);
            }
        }
        Ok(Self {
            client: b.build().context("building the callback HTTP client")?,
            allow_private,
            per_receiver,
            timeout,
        })
    }

    /// Sends one signed attempt and reports what happened (never an error: failures are
    /// outcomes to record).
    pub async fn send(&self, ctx: &Ctx, url: &str, attempt: &Attempt) -> Outcome {
        let started_at = ctx.now();
        let clock = Instant::now();
        let mut out = Outcome {
            started_at,
            ..Outcome::default()
        };
        if let Err(refused) = self.check_literal(url) {
            out.error_class = Some("address_refused".to_owned());
            out.error_message = Some(refused.to_string());
            return out;
        }
        let mut req = self.client.post(url).body(attempt.signed.body.clone());
        for (k, v) in &attempt.signed.headers {
            req = req.header(k, v);
        }
        match req.send().await {
            Ok(mut res) => {
                let status = res.status().as_u16();
                out.response_status = Some(status);
                out.retry_after = res
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| retry_after_seconds(v, started_at));
                let mut body = Vec::new();
                while body.len() < EXCERPT_BYTES {
                    match res.chunk().await {
                        Ok(Some(c)) => body.extend_from_slice(&c),
                        _ => break,
                    }
                }
                body.truncate(EXCERPT_BYTES);
                out.response_excerpt =
                    Some(String::from_utf8_lossy(&body).into_owned()).filter(|s| !s.is_empty());
                if (300..400).contains(&status) {
                    out.error_class = Some("redirect".to_owned());
                    out.error_message = Some("redirects are not followed".to_owned());
                } else if !(200..300).contains(&status) {
                    out.error_class = Some("http_status".to_owned());
                }
            }
            Err(e) => {
                let (class, message) = classify(&e);
                out.error_class = Some(class.to_owned());
                out.error_message = Some(message);
            }
        }
        out.latency_ms = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
        out
    }

    /// URLs with an IP literal never reach the resolver; check them here.
    fn check_literal(&self, url: &str) -> Result<(), AddressRefused> {
        let host = url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        match host.trim_matches(['[', ']']).parse::<std::net::IpAddr>() {
            Ok(ip) if !self.allow_private && address::is_private(ip) => {
                Err(AddressRefused::Private)
            }
            _ => Ok(()),
        }
    }
}

#[async_trait::async_trait]
impl app::domain::callback_delivery::transport::Transport for Sender {
    async fn send(&self, ctx: &Ctx, url: &str, attempt: &Attempt) -> Outcome {
        Sender::send(self, ctx, url, attempt).await
    }
}

/// `Retry-After` as seconds: a number of seconds or an HTTP date.
fn retry_after_seconds(v: &str, now: chrono::DateTime<chrono::Utc>) -> Option<i64> {
    if let Ok(s) = v.trim().parse::<i64>() {
        return Some(s.max(0));
    }
    chrono::DateTime::parse_from_rfc2822(v.trim())
        .ok()
        .map(|t| (t.to_utc() - now).num_seconds().max(0))
}

/// An error class and a message without secrets (the URL is the publisher's own).
fn classify(e: &reqwest::Error) -> (&'static str, String) {
    let mut chain = Vec::new();
    let mut src: Option<&(dyn StdError + 'static)> = Some(e);
    let mut refused = false;
    while let Some(s) = src {
        refused |= s.downcast_ref::<Refused>().is_some();
        chain.push(s.to_string());
        src = s.source();
    }
    let text = chain.join(": ");
    let lower = text.to_ascii_lowercase();
    let class = if refused {
        "address_refused"
    } else if e.is_timeout() {
        "timeout"
    } else if lower.contains("certificate") || lower.contains("tls") || lower.contains("handshake")
    {
        "tls"
    } else if e.is_connect() {
        "connect"
    } else {
        "other"
    };
    let mut message = text;
    message.truncate(500);
    (class, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_accepts_seconds_and_dates() {
        let now = chrono::DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z")
            .map(|t| t.to_utc())
            .unwrap_or_default();
        assert_eq!(retry_after_seconds("120", now), Some(120));
        assert_eq!(
            retry_after_seconds("Mon, 02 Mar 2026 09:10:00 GMT", now),
            Some(600)
        );
        assert_eq!(retry_after_seconds("soon", now), None);
    }
}
