//! All business rules, queries and transactions (server only). JSON handlers and Leptos
//! server functions both call these functions; authorisation is checked here so that no
//! surface can forget it. Nothing here imports leptos.
//!
//! ## The order of rooms
//!
//! Lowest first. A room imports only rooms listed before it (left of it on its line, or on
//! a line above); a lower room that must react to a higher one's event learns of it through
//! the change door (`changes`) or an event it owns, never by importing it. `Ctx` and the
//! re-exports of this file are everyone's. `scripts/structure.py` reads this list and
//! `.ci/run` fails on an import against it.
//!
//! - foundations: `clock`, `ids`, `sql`, `db`, `crypto`, `password`, `paging`, `report_range`, `rate_limit`, `audit`, `principal`, `mail`, `hot_cache`, `changes`, `idempotency`, `notices`
//! - parties: `accounts`, `tokens`, `survey_api_keys`
//! - money: `billing`
//! - what is sold, and where: `campaigns`, `publisher`
//! - judgements and what is owed: `fraud`, `earnings`, `payouts`
//! - events: `callback_delivery`, `conversions`
//! - surfaces: `delivery`, `surveys`, `reconciliation`, `overview`
//! - maintenance: `reseal`

pub mod accounts;
pub mod audit;
pub mod billing;
pub mod callback_delivery;
pub mod campaigns;
pub mod changes;
pub mod clock;
pub mod conversions;
pub mod crypto;
pub mod db;
pub mod delivery;
pub mod earnings;
pub mod fraud;
pub mod hot_cache;
pub mod idempotency;
pub mod ids;
pub mod mail;
pub mod notices;
pub mod overview;
pub mod paging;
pub mod password;
pub mod payouts;
pub mod principal;
pub mod publisher;
pub mod rate_limit;
pub mod reconciliation;
pub mod report_range;
pub mod reseal;
pub mod sql;
pub mod survey_api_keys;
pub mod surveys;
pub mod tokens;

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;

pub use clock::{Clock, SystemClock, TestClock};
pub use crypto::Keys;
pub use principal::Principal;
pub use rate_limit::{Policy, RateLimits};

/// Where the service runs; production switches off development-only surfaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Environment {
    Development,
    Production,
}

impl Environment {
    pub fn as_str(self) -> &'static str {
        match self {
            Environment::Development => "development",
            Environment::Production => "production",
        }
    }
}

/// Settings the rules depend on (the HTTP-only settings stay in the server crate).
#[derive(Debug, Clone)]
pub struct DomainConfig {
    pub environment: Environment,
    /// Public address used in links the service signs, without a trailing slash.
    pub base_url: String,
    /// Lifetime of a dashboard bearer token.
    pub dashboard_token_ttl: chrono::Duration,
    /// Allow reward callbacks to loopback and private addresses (never in production).
    pub callback_allow_private: bool,
    /// Measurement partners can be selected and report conversions (`APP_FEATURE_MMP_MANUAL`).
    pub mmp_manual_enabled: bool,
    /// Survey respondents from these ranges are refused as fraud (`APP_SURVEY_BLOCKED_RANGES`).
    pub survey_blocked_ranges: Vec<ipnet::IpNet>,
    /// How long after a conversion its advertiser may reverse it by reconciliation or a
    /// survey reversal (`APP_RECONCILIATION_WINDOW_DAYS`, 30 days by default).
    pub reconciliation_window: chrono::Duration,
    /// Where mail goes (`APP_MAIL_URL`; the transport itself is the server's).
    pub mail: mail::MailSetup,
    /// Administrators act as administrators only once they have a second factor
    /// (`APP_ADMIN_SECOND_FACTOR`; required in production unless set).
    pub admins_need_second_factor: bool,
    /// Payouts of at least this many micros need a second administrator's approval
    /// (`APP_PAYOUT_SECOND_APPROVAL_MICROS`; 0: one approval is enough whatever the amount).
    pub payout_second_approval_micros: crate::model::money::Micros,
}

/// Everything a domain call needs: database, clock, keys, settings and limiters.
#[derive(Clone)]
pub struct Ctx {
    pub db: DatabaseConnection,
    pub clock: Arc<dyn Clock>,
    pub keys: Arc<Keys>,
    pub config: Arc<DomainConfig>,
    pub limits: Arc<RateLimits>,
    /// The payment provider used for wallet funding.
    pub payments: Arc<dyn billing::payprovider::PaymentProvider>,
    /// The live offer inventory in memory (campaigns::snapshot).
    pub inventory: Arc<campaigns::snapshot::Inventory>,
    /// Placements, slots and blacklists as delivery reads them (publisher::delivery_config).
    pub delivery_configs: Arc<publisher::delivery_config::DeliveryConfigs>,
    /// Sessions, bans, completions, static keys and launch links as the hot paths read
    /// them (hot_cache).
    pub hot: Arc<hot_cache::HotCaches>,
    /// The conversion inbox's queue for bursts (conversions::inbox).
    pub inbox: Arc<conversions::inbox::Inbox>,
    /// The HTTP client of reward callbacks (the dashboard's test send uses it).
    pub transport: Arc<dyn callback_delivery::transport::Transport>,
    /// Wakes the reward-callback worker when deliveries become due (callback_delivery).
    pub deliveries: Arc<callback_delivery::DueSignal>,
    /// Live surveys, respondents and the fetch writer of the survey fetch (surveys).
    pub surveys: Arc<surveys::SurveyDelivery>,
    /// Announces committed changes to every cache of every process (changes).
    pub changes: Arc<changes::Changes>,
    /// Fraud signals' statistics, hosting ranges and the placements to check (fraud).
    pub fraud: Arc<fraud::Fraud>,
}

impl Ctx {
    /// The current time, truncated to microseconds so both databases round-trip it exactly.
    /// Read once per domain call and passed down.
    pub fn now(&self) -> DateTime<Utc> {
        clock::truncate_micros(self.clock.now())
    }
}
