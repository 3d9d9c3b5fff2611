//! The HTTP side of PayPal's REST API: an OAuth2 client-credentials token, cached until a
//! minute before it expires and fetched again once when PayPal answers 401 (a token revoked
//! early), and calls whose answers are read up to a bound. A transport failure, a timeout or
//! a 5xx is `payment_provider_error` (503, worth retrying); nothing here logs the secret or
//! the token.

use std::sync::Arc;
use std::time::Duration;

use app::domain::Clock;
use app::error::AppError;
use chrono::{DateTime, Utc};
use reqwest::{Method, StatusCode};
use serde::Deserialize;

/// The most of an answer read from PayPal: its orders and verifications are a few KB.
const ANSWER_LIMIT: usize = 256 * 1024;
/// A token is fetched again this long before PayPal says it expires.
const TOKEN_MARGIN: chrono::Duration = chrono::Duration::seconds(60);

/// The connection to one PayPal REST application.
pub struct Client {
    http: reqwest::Client,
    api_url: String,
    client_id: String,
    client_secret: String,
    clock: Arc<dyn Clock>,
    /// One refresh at a time: concurrent callers wait for it instead of each fetching one.
    token: tokio::sync::Mutex<Option<Token>>,
}

struct Token {
    value: String,
    expires_at: DateTime<Utc>,
}

#[derive(Deserialize)]
struct TokenAnswer {
    access_token: String,
    expires_in: i64,
}

/// An answer: its status and body (at most [`ANSWER_LIMIT`] bytes).
pub struct Answer {
    pub status: StatusCode,
    pub body: Vec<u8>,
}

impl Client {
    pub fn new(
        api_url: &str,
        client_id: &str,
        client_secret: &str,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Self> {
        let http = reqwest::Client::builder()
            .use_rustls_tls()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(Duration::from_secs(5))
            // PayPal's own guidance: captures can take several seconds; past 20 the request's
            // PayPal-Request-Id makes the retry safe.
            .timeout(Duration::from_secs(20))
            .pool_idle_timeout(Duration::from_secs(60))
            .no_proxy()
            .user_agent(concat!("marketplace/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            http,
            api_url: api_url.trim_end_matches('/').to_owned(),
            client_id: client_id.to_owned(),
            client_secret: client_secret.to_owned(),
            clock,
            token: tokio::sync::Mutex::new(None),
        })
    }

    /// Calls `path` with a bearer token (JSON body, optional `PayPal-Request-Id`), fetching a
    /// new token once if PayPal refuses the cached one.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        request_id: Option<&str>,
        body: Option<String>,
    ) -> Result<Answer, AppError> {
        let mut refreshed = false;
        loop {
            let token = self.token(refreshed).await?;
            let mut req = self
                .http
                .request(method.clone(), format!("{}{path}", self.api_url))
                .bearer_auth(token)
                .header("Content-Type", "application/json")
                .header("Prefer", "return=representation");
            if let Some(id) = request_id {
                req = req.header("PayPal-Request-Id", id);
            }
            if let Some(b) = &body {
                req = req.body(b.clone());
            }
            let answer = read(req.send().await).await?;
            if answer.status == StatusCode::UNAUTHORIZED && !refreshed {
                refreshed = true;
                continue;
            }
            if answer.status.is_server_error() || answer.status == StatusCode::UNAUTHORIZED {
                tracing::warn!(status = %answer.status, path, "payment provider call failed");
                return Err(provider_error());
            }
            return Ok(answer);
        }
    }

    /// The cached token, or a new one when it is about to expire or `renew` asks for one.
    async fn token(&self, renew: bool) -> Result<String, AppError> {
        let wait = tokio::time::timeout(Duration::from_secs(30), self.token.lock());
        let mut slot = wait.await.map_err(|_| provider_error())?;
        let now = self.clock.now();
        if let Some(t) = slot
            .as_ref()
            .filter(|t| !renew && t.expires_at - TOKEN_MARGIN > now)
        {
            return Ok(t.value.clone());
        }
        let req = self
            .http
            .post(format!("{}/v1/oauth2/token", self.api_url))
            .basic_auth(&self.client_id, Some(&self.client_secret))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("grant_type=client_credentials");
        let answer = read(req.send().await).await?;
        if !answer.status.is_success() {
            // 401 here is a wrong client id or secret: an operator's problem, said in the log.
            tracing::error!(status = %answer.status, "the payment provider refused the client credentials");
            return Err(provider_error());
        }
        let t: TokenAnswer = serde_json::from_slice(&answer.body).map_err(|_| provider_error())?;
        let value = t.access_token;
        *slot = Some(Token {
            value: value.clone(),
            expires_at: now + chrono::Duration::seconds(t.expires_in.clamp(0, 86_400 * 7)),
        });
        Ok(value)
    }
}

/// Reads an answer up to [`ANSWER_LIMIT`]; a longer one is refused as a provider failure.
async fn read(sent: reqwest::Result<reqwest::Response>) -> Result<Answer, AppError> {
    let mut resp = sent.map_err(|e| {
        tracing::warn!(error = %e.without_url(), "payment provider unreachable");
        provider_error()
    })?;
    let status = resp.status();
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|_| provider_error())? {
        if body.len() + chunk.len() > ANSWER_LIMIT {
            return Err(provider_error());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer { status, body })
}

/// 503 `payment_provider_error`: PayPal could not be reached or failed; retry later (an
/// order or capture retried with the same request is not repeated at PayPal).
pub fn provider_error() -> AppError {
    AppError::unavailable("the payment provider did not answer; try again in a minute")
        .with_code("payment_provider_error")
}
