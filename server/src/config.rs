//! Configuration from flags and the matching `APP_*` environment variables
//! (CONTRACT.md section 1). A bad value stops the process with a message naming it.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use app::domain::Environment;
use clap::builder::BoolishValueParser;

/// Every setting of the service.
#[derive(clap::Args, Debug, Clone)]
pub struct Settings {
    /// Any SeaORM URL: `sqlite://…` (embedded default) or `postgres://…`.
    #[arg(
        long,
        env = "APP_DATABASE_URL",
        default_value = "sqlite://data/app.db?mode=rwc",
        global = true
    )]
    pub database_url: String,

    /// Database connections kept open at most; unset: 8 on the embedded SQLite, 20 on
    /// PostgreSQL.
    #[arg(long, env = "APP_DB_MAX_CONNECTIONS", value_parser = clap::value_parser!(u32).range(1..=500), global = true)]
    pub db_max_connections: Option<u32>,

    /// Listen address.
    #[arg(
        long,
        env = "APP_BIND",
        default_value = "127.0.0.1:3000",
        global = true
    )]
    pub bind: SocketAddr,

    /// Public address used in links the service signs (launch URLs, survey URLs, hosted offerwall).
    #[arg(long, env = "APP_BASE_URL", default_value = "http://127.0.0.1:3000", value_parser = parse_base_url, global = true)]
    pub base_url: String,

    /// `development` or `production`; production turns off the sandbox callback route and evidence upload.
    #[arg(long, env = "APP_ENVIRONMENT", default_value = "development", value_parser = parse_environment, global = true)]
    pub environment: Environment,

    /// Serve the publisher foundation surface (console); `false` makes it answer 404.
    #[arg(long, env = "APP_FEATURE_FOUNDATION", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub feature_foundation: bool,

    /// Serve the delivery surfaces (SDK, static feed, postbacks); `false` makes them answer 404.
    #[arg(long, env = "APP_FEATURE_DELIVERY", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub feature_delivery: bool,

    /// Bearer token for `GET /metrics`; without one the metrics are served in development only.
    #[arg(long, env = "APP_METRICS_TOKEN", global = true, hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// Let campaigns select the six certified measurement partners (manual MMP callbacks).
    #[arg(long, env = "APP_FEATURE_MMP_MANUAL", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub feature_mmp_manual: bool,

    /// Master key (64 hex characters) for signing links and encrypting stored secrets.
    /// Generated and stored under the data folder in development; required in production.
    #[arg(long, env = "APP_SECRET_KEY", hide_env_values = true, global = true)]
    pub secret_key: Option<String>,

    /// Earlier master keys (comma-separated, 64 hex characters each), kept after a rotation
    /// only to open secrets they sealed; `server reseal` moves those to the current key.
    #[arg(
        long,
        env = "APP_SECRET_KEY_PREVIOUS",
        hide_env_values = true,
        value_delimiter = ',',
        global = true
    )]
    pub secret_key_previous: Vec<String>,

    /// Address ranges (CIDR, comma separated) whose survey respondents are refused as
    /// fraud (FRAUD_BLOCKED): known data-centre, proxy or abuse ranges.
    #[arg(
        long,
        env = "APP_SURVEY_BLOCKED_RANGES",
        value_delimiter = ',',
        global = true
    )]
    pub survey_blocked_ranges: Vec<ipnet::IpNet>,

    /// Extra PEM root certificate trusted for outbound publisher callbacks.
    #[arg(long, env = "APP_CALLBACK_CA_FILE", global = true)]
    pub callback_ca_file: Option<PathBuf>,

    /// Whether administrators must have a second factor before they act as administrators
    /// (`true` or `false`). Unset: required in production, optional elsewhere.
    #[arg(long, env = "APP_ADMIN_SECOND_FACTOR", value_parser = BoolishValueParser::new(), global = true)]
    pub admin_second_factor: Option<bool>,

    /// Allow callback receivers on loopback and private addresses (never in production).
    #[arg(long, env = "APP_CALLBACK_ALLOW_PRIVATE", default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub callback_allow_private: bool,

    /// Where mail goes: `smtps://user:password@host:465` (TLS),
    /// `smtp://user:password@host:587?tls=required` (STARTTLS), `smtp://localhost:25` (a relay
    /// on this machine) or `off` (kept in the outbox, not sent). Unset in development: the
    /// development mailbox (`.eml` files under the data folder, shown on the administrators'
    /// Mail page). Production refuses to start without it.
    #[arg(long, env = "APP_MAIL_URL", value_parser = crate::mail::setting::parse_mail_url, hide_env_values = true, global = true)]
    pub mail_url: Option<crate::mail::setting::MailUrl>,

    /// The sender of every mail: `Name <address>`.
    #[arg(long, env = "APP_MAIL_FROM", default_value = DEVELOPMENT_MAIL_FROM, value_parser = check_mail_from, global = true)]
    pub mail_from: String,

    /// PayPal REST application's client id: with the secret and the webhook id, provider
    /// funding goes through PayPal (docs/payments.md) in any environment.
    #[arg(long, env = "APP_PAYPAL_CLIENT_ID", global = true)]
    pub paypal_client_id: Option<String>,

    /// PayPal REST application's secret.
    #[arg(
        long,
        env = "APP_PAYPAL_CLIENT_SECRET",
        hide_env_values = true,
        global = true
    )]
    pub paypal_client_secret: Option<String>,

    /// PayPal's REST address: the sandbox by default, `https://api-m.paypal.com` for live
    /// money (https required, except a stand-in on this machine).
    #[arg(long, env = "APP_PAYPAL_API_URL", default_value = crate::paypal::SANDBOX_API, value_parser = parse_paypal_url, global = true)]
    pub paypal_api_url: String,

    /// The id of the webhook registered at PayPal for `/performance-marketing/v2/billing/
    /// payprovider/webhook` (PayPal's signature verification needs it).
    #[arg(long, env = "APP_PAYPAL_WEBHOOK_ID", global = true)]
    pub paypal_webhook_id: Option<String>,

    /// Payouts of at least this many micros need a second administrator's approval before
    /// they can be paid (5,000 USD by default; 0 turns the rule off).
    #[arg(long, env = "APP_PAYOUT_SECOND_APPROVAL_MICROS", default_value = "5000000000", value_parser = parse_micros, global = true)]
    pub payout_second_approval_micros: app::model::money::Micros,

    /// Keep the simulated payment provider on when a development server listens on a
    /// non-loopback address (off by default: anyone reaching it could fund a wallet).
    #[arg(long, env = "APP_ALLOW_REMOTE_DEVELOPMENT", default_value = "false", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub allow_remote_development: bool,

    /// Run the background workers (reward-callback delivery, housekeeping) in this process;
    /// `false` makes a web-only process (another process must run them).
    #[arg(long, env = "APP_RUN_WORKERS", default_value = "true", value_parser = BoolishValueParser::new(), action = clap::ArgAction::Set, global = true)]
    pub run_workers: bool,

    /// Conversion reports settled in the request at once before further reports are queued
    /// for the settler (PostgreSQL with workers only: SQLite always settles in the request);
    /// 0 queues every report.
    #[arg(long, env = "APP_SETTLEMENT_INLINE_SLOTS", default_value = "2", value_parser = clap::value_parser!(u16).range(0..=64), global = true)]
    pub settlement_inline_slots: u16,

    /// The whole-request deadline of ordinary routes in seconds (1-30; uploads and exports
    /// get 30 s or this, whichever is longer): past it the answer is 408 `timeout`, and a
    /// request with an `Idempotency-Key` still finishes and keeps its answer for the retry.
    #[arg(long, env = "APP_REQUEST_DEADLINE_SECONDS", default_value = "10", value_parser = clap::value_parser!(u16).range(1..=30), global = true)]
    pub request_deadline_seconds: u16,

    /// How long cache-change announcements gather before they leave as one message, in
    /// milliseconds (1-5000; see docs/operations.md, "Caches and staleness").
    #[arg(long, env = "APP_ANNOUNCE_COALESCE_MS", default_value = "50", value_parser = clap::value_parser!(u16).range(1..=5_000), global = true)]
    pub announce_coalesce_ms: u16,

    /// PostgreSQL: seconds without a notification after which the LISTEN connection is
    /// probed, and replaced when the probe does not come back (1-3600).
    #[arg(long, env = "APP_LISTEN_PROBE_SECONDS", default_value = "30", value_parser = clap::value_parser!(u16).range(1..=3_600), global = true)]
    pub listen_probe_seconds: u16,

    /// Extra hosting address ranges for the DATACENTER fraud signal: a file of
    /// `cidr<TAB>provider` lines (`#` comments), added to the list shipped with the service.
    #[arg(long, env = "APP_FRAUD_DATACENTER_FILE", global = true)]
    pub fraud_datacenter_file: Option<PathBuf>,

    /// A placement whose held and reversed conversions reach this share (percent, 1-100) of
    /// at least `--fraud-pause-min-conversions` over 7 days is paused for delivery.
    #[arg(long, env = "APP_FRAUD_PAUSE_SHARE_PERCENT", default_value = "30", value_parser = clap::value_parser!(u8).range(1..=100), global = true)]
    pub fraud_pause_share_percent: u8,

    /// The fewest conversions over 7 days on which a placement may be paused (1-100000).
    #[arg(long, env = "APP_FRAUD_PAUSE_MIN_CONVERSIONS", default_value = "20", value_parser = clap::value_parser!(u32).range(1..=100_000), global = true)]
    pub fraud_pause_min_conversions: u32,

    /// Days after a conversion during which its advertiser may still reverse it (bulk
    /// reconciliation and survey completes); 1-365.
    #[arg(long, env = "APP_RECONCILIATION_WINDOW_DAYS", default_value = "30", value_parser = clap::value_parser!(u16).range(1..=365), global = true)]
    pub reconciliation_window_days: u16,

    /// Whole-exchange timeout of one reward-callback attempt, in seconds (1-60).
    #[arg(
        long,
        env = "APP_CALLBACK_TIMEOUT_SECONDS",
        default_value = "10",
        global = true
    )]
    pub callback_timeout_seconds: u64,

    /// Open client connections at most; at the cap new ones wait in the listen backlog.
    #[arg(
        long,
        env = "APP_MAX_CONNECTIONS",
        default_value = "4096",
        global = true
    )]
    pub max_connections: usize,

    /// How long a new connection may take to send its whole request head (from the moment it
    /// is accepted, before its protocol is known), in seconds; past it the connection closes.
    #[arg(
        long,
        env = "APP_HEADER_TIMEOUT_SECONDS",
        default_value = "10",
        global = true
    )]
    pub header_timeout_seconds: u64,

    /// How long a connection (HTTP/1.1 keep-alive or HTTP/2) may stay open with no request
    /// in flight, in seconds; past it the server closes it gracefully.
    #[arg(
        long,
        env = "APP_IDLE_TIMEOUT_SECONDS",
        default_value = "60",
        global = true
    )]
    pub idle_timeout_seconds: u64,

    /// On SIGTERM, how long in-flight requests may take before their connections close.
    #[arg(
        long,
        env = "APP_SHUTDOWN_GRACE_SECONDS",
        default_value = "20",
        global = true
    )]
    pub shutdown_grace_seconds: u64,

    /// Longest wait for a database connection, in milliseconds; past it a request answers
    /// 503 `service_unavailable`.
    #[arg(
        long,
        env = "APP_DB_ACQUIRE_TIMEOUT_MS",
        default_value = "2000",
        global = true
    )]
    pub db_acquire_timeout_ms: u64,

    /// Reward callbacks in flight to one placement's receiver at most (1-256).
    #[arg(
        long,
        env = "APP_CALLBACK_CONCURRENCY",
        default_value = "16",
        global = true
    )]
    pub callback_concurrency: usize,

    /// Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed
    /// (comma-separated addresses or CIDR ranges, e.g. `10.0.0.0/8,127.0.0.1`).
    #[arg(
        long,
        env = "APP_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_parser = parse_proxy,
        global = true
    )]
    pub trusted_proxies: Vec<ipnet::IpNet>,

    /// Folder for the development secret key and other local state.
    #[arg(long, env = "APP_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,

    /// Folder holding the compiled browser bundle (`pkg/frontend.js`, `pkg/frontend.wasm`).
    #[arg(
        long,
        env = "APP_SITE_ROOT",
        default_value = "target/site",
        global = true
    )]
    pub site_root: PathBuf,

    /// Log output: `text` or `json`.
    #[arg(long, env = "APP_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"], global = true)]
    pub log_format: String,
}

/// The sender in development; production needs an address of its own.
const DEVELOPMENT_MAIL_FROM: &str = "Marketplace <no-reply@localhost>";

fn check_mail_from(raw: &str) -> Result<String, String> {
    crate::mail::setting::parse_mailbox(raw).map(|_| raw.trim().to_owned())
}

fn parse_environment(s: &str) -> Result<Environment, String> {
    match s {
        "development" => Ok(Environment::Development),
        "production" => Ok(Environment::Production),
        other => Err(format!("`{other}` is not `development` or `production`")),
    }
}

fn parse_base_url(s: &str) -> Result<String, String> {
    let u = url::Url::parse(s).map_err(|e| format!("not a URL: {e}"))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err("must be an http(s) URL with a host".to_owned());
    }
    if u.query().is_some() || u.fragment().is_some() {
        return Err("must not carry a query or fragment".to_owned());
    }
    Ok(s.trim_end_matches('/').to_owned())
}

impl Settings {
    /// Settings from explicit flags only (environment variables still apply): used by tests.
    pub fn from_flags<I, S>(flags: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString> + Clone,
    {
        #[derive(clap::Parser)]
        struct Only {
            #[command(flatten)]
            settings: Settings,
        }
        let args = std::iter::once(std::ffi::OsString::from("server"))
            .chain(flags.into_iter().map(Into::into));
        <Only as clap::Parser>::try_parse_from(args).map(|o| o.settings)
    }

    /// Whether the public address is HTTPS (cookies are then marked Secure).
    pub fn https(&self) -> bool {
        self.base_url.starts_with("https://")
    }
}

/// A whole number of micros, 0 or more.
fn parse_micros(raw: &str) -> Result<app::model::money::Micros, String> {
    match raw.trim().parse::<i64>() {
        Ok(v) if v >= 0 => Ok(app::model::money::Micros(v)),
        _ => {
            Err("must be a whole number of micros, 0 or more (5000000000 is 5,000 USD)".to_owned())
        }
    }
}

/// PayPal's REST address: https, or http only to a stand-in on this machine.
fn parse_paypal_url(raw: &str) -> Result<String, String> {
    let url = url::Url::parse(raw.trim()).map_err(|_| "must be a URL".to_owned())?;
    let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']);
    let local = host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => Ok(raw.trim().trim_end_matches('/').to_owned()),
        "http" if local => Ok(raw.trim().trim_end_matches('/').to_owned()),
        _ => Err("must be an https:// address".to_owned()),
    }
}

/// A trusted proxy: a CIDR range, or one address (a range of one).
fn parse_proxy(raw: &str) -> Result<ipnet::IpNet, String> {
    let raw = raw.trim();
    if raw.contains('/') {
        return raw
            .parse::<ipnet::IpNet>()
            .map(|n| n.trunc())
            .map_err(|_| format!("`{raw}` is not an address or a CIDR range"));
    }
    raw.parse::<IpAddr>()
        .map(ipnet::IpNet::from)
        .map_err(|_| format!("`{raw}` is not an address or a CIDR range"))
}

impl Settings {
    /// The PayPal application, when one is configured: all three of client id, secret and
    /// webhook id, or none (a half-configured provider stops start-up rather than quietly
    /// falling back to another).
    pub fn paypal(&self) -> anyhow::Result<Option<crate::paypal::PayPalSettings>> {
        fn given(v: &Option<String>) -> Option<&str> {
            v.as_deref().map(str::trim).filter(|v| !v.is_empty())
        }
        match (
            given(&self.paypal_client_id),
            given(&self.paypal_client_secret),
            given(&self.paypal_webhook_id),
        ) {
            (None, None, None) => Ok(None),
            (Some(id), Some(secret), Some(webhook)) => Ok(Some(crate::paypal::PayPalSettings {
                client_id: id.to_owned(),
                client_secret: secret.to_owned(),
                api_url: self.paypal_api_url.clone(),
                webhook_id: webhook.to_owned(),
                return_url: format!(
                    "{}/advertiser/billing/funding",
                    self.base_url.trim_end_matches('/')
                ),
            })),
            _ => anyhow::bail!(
                "APP_PAYPAL_CLIENT_ID, APP_PAYPAL_CLIENT_SECRET and APP_PAYPAL_WEBHOOK_ID go together: set all three or none"
            ),
        }
    }

    /// Why these settings must not run in production (empty when they may): each a
    /// one-line reason an operator can act on.
    pub fn production_problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        match url::Url::parse(&self.base_url) {
            Ok(u) if u.scheme() != "https" => out.push(format!(
                "APP_BASE_URL must be the public https:// address (it is {}): signed links and secure cookies depend on it",
                self.base_url
            )),
            Ok(u) => {
                let host = u.host_str().unwrap_or_default().trim_matches(['[', ']']);
                let loopback = host.eq_ignore_ascii_case("localhost")
                    || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback());
                if loopback {
                    out.push(format!(
                        "APP_BASE_URL must be the public address, not a loopback one ({})",
                        self.base_url
                    ));
                }
            }
            Err(_) => out.push("APP_BASE_URL is not a URL".to_owned()),
        }
        if self.secret_key.is_none() {
            out.push("APP_SECRET_KEY is required (64 hexadecimal characters)".to_owned());
        }
        if self.allow_remote_development {
            out.push(
                "APP_ALLOW_REMOTE_DEVELOPMENT is a development switch: turn it off".to_owned(),
            );
        }
        if self.callback_allow_private {
            out.push("APP_CALLBACK_ALLOW_PRIVATE is a development switch: turn it off".to_owned());
        }
        if self.paypal_client_id.is_some() && !self.paypal_api_url.starts_with("https://") {
            out.push("APP_PAYPAL_API_URL must be PayPal's https:// address".to_owned());
        }
        match &self.mail_url {
            None => out.push(
                "APP_MAIL_URL is required: the mail server's smtps:// or smtp://…?tls=required URL, or `off`"
                    .to_owned(),
            ),
            Some(url) if url.unencrypted_remote() => out.push(
                "APP_MAIL_URL sends in the clear to another machine: use smtps:// or add ?tls=required"
                    .to_owned(),
            ),
            Some(crate::mail::setting::MailUrl::Smtp(_)) if self.mail_from == DEVELOPMENT_MAIL_FROM => out
                .push("APP_MAIL_FROM must be the service's own sender address".to_owned()),
            Some(_) => {}
        }
        out
    }
}
