//! Keyed rate limits of the specifications' Limits tables, in one place. Every surface
//! asks [`RateLimits::check`] with its policy and key; the server adds middleware adapters
//! for the cases keyed by token or address. Limits are per process (GCRA, `governor`) and
//! read the service's injectable clock, so tests move time instead of sleeping.
//! The delivery limits keep their state in fixed-size tables ([`bounded`]), so a flood of
//! distinct callers cannot grow the process; the account limits keep exact maps.

mod allowance;
mod bounded;
mod sign_in;

pub use allowance::{Allowance, carry, recording};

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::clock::Clock as _;
use governor::middleware::{StateInformationMiddleware, StateSnapshot};
use governor::nanos::Nanos;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};

use bounded::BoundedStore;

use crate::domain::clock::{Clock, SystemClock};
use crate::error::AppError;

/// The service clock as `governor` sees it: nanoseconds since the Unix epoch. A wall clock
/// set back makes buckets refill later, never earlier (governor saturates), so no caller
/// gains allowance from it.
#[derive(Clone)]
pub struct LimitClock(Arc<dyn Clock>);

impl governor::clock::Clock for LimitClock {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        let t = self.0.now();
        let nanos = t
            .timestamp_nanos_opt()
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0);
        Nanos::from(nanos)
    }
}

// The state middleware reports what is left after each request, for the headers.
type Bounded = RateLimiter<u64, BoundedStore, LimitClock, StateInformationMiddleware>;
type Exact = RateLimiter<u64, DefaultKeyedStateStore<u64>, LimitClock, StateInformationMiddleware>;

/// A limit from the specifications (or our own, for sign-in and registration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// SDK reads: 120 per minute per session token.
    SdkRead,
    /// SDK writes: 60 per minute per session token.
    SdkWrite,
    /// Session creation: 60 per minute per placement and source IP.
    SessionCreate,
    /// Static feed: 120 per minute per slot, key and source IP.
    StaticFeed,
    /// Provider callbacks (postbacks): 120 per minute per source IP.
    ProviderCallback,
    /// Survey fetch: 3,000 per minute per presented app key (a publisher's server asks for
    /// each of its users).
    SurveyFetch,
    /// The signed survey campaign API: 600 per minute per presented API key.
    SurveyApi,
    /// Sign-in attempts: 10 at once, then one every 30 s, per e-mail and source IP.
    SignIn,
    /// Failed sign-ins of one source address, whatever the e-mail: 30 at once, then one
    /// every 2 s; spent up, the address's attempts are refused until the next is allowed.
    /// Successful sign-ins are not counted, so an office behind one address can all sign
    /// in at nine.
    SignInAddress,
    /// Registrations: 20 at once, then one every 3 minutes, per source IP.
    Register,
    /// Reward-callback replays: 10 at once, then one every 6 s, per publisher account.
    CallbackReplay,
    /// Failed sign-ins of one account, from any address: 20 at once, then one every 3
    /// minutes. Spent up, every attempt on the account is slowed by [`SLOWDOWN`] for
    /// [`ACCOUNT_LOCK`] (never refused: a lock anyone can trigger locks the owner out).
    AccountSignInFailure,
    /// Answers to the survey entry's verification question: 5 at once, then one a minute,
    /// per respondent (so the few possible answers cannot simply be tried in turn).
    SurveyVerify,
    /// Password-reset requests for one e-mail address, whoever asks: 3 at once, then one
    /// every 10 minutes (nobody can fill a mailbox with reset letters). Counted for every
    /// address, known or not, so the answer tells nothing.
    PasswordReset,
    /// Password-reset requests of one source address: 20 at once, then one every 30 s.
    PasswordResetAddress,
    /// Wrong second-factor codes for one account (sign-in and step-up): 5, then one every
    /// 30 s, so six digits cannot be guessed (only failures count, as for addresses).
    SecondFactor,
}

/// How long an account's sign-ins stay slowed after its failed sign-in budget is spent.
pub const ACCOUNT_LOCK: Duration = Duration::from_secs(15 * 60);
/// The pause before each sign-in check of a slowed account.
pub const SLOWDOWN: Duration = Duration::from_secs(2);

/// The rate-limit bucket of a client address: IPv4 as is, IPv6 by its /64 prefix (one
/// subscriber usually holds a whole /64, so per-address limits would otherwise be free to
/// rotate around).
pub fn client_bucket(ip: std::net::IpAddr) -> String {
    match ip {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

const POLICIES: [Policy; 16] = [
    Policy::SdkRead,
    Policy::SdkWrite,
    Policy::SessionCreate,
    Policy::StaticFeed,
    Policy::ProviderCallback,
    Policy::SurveyFetch,
    Policy::SurveyApi,
    Policy::SignIn,
    Policy::SignInAddress,
    Policy::Register,
    Policy::CallbackReplay,
    Policy::AccountSignInFailure,
    Policy::SurveyVerify,
    Policy::PasswordReset,
    Policy::PasswordResetAddress,
    Policy::SecondFactor,
];

impl Policy {
    fn quota(self) -> Quota {
        let n = |v: u32| NonZeroU32::new(v).unwrap_or(NonZeroU32::MIN);
        match self {
            Policy::SdkRead | Policy::StaticFeed | Policy::ProviderCallback => {
                Quota::per_minute(n(120))
            }
            Policy::SdkWrite | Policy::SessionCreate => Quota::per_minute(n(60)),
            Policy::SurveyFetch => Quota::per_minute(n(3_000)),
            Policy::SurveyApi => Quota::per_minute(n(600)),
            Policy::SignIn => Quota::with_period(Duration::from_secs(30))
                .map_or_else(|| Quota::per_minute(n(2)), |q| q.allow_burst(n(10))),
            Policy::SignInAddress => Quota::with_period(Duration::from_secs(2))
                .map_or_else(|| Quota::per_minute(n(30)), |q| q.allow_burst(n(30))),
            Policy::Register => Quota::with_period(Duration::from_secs(180))
                .map_or_else(|| Quota::per_hour(n(20)), |q| q.allow_burst(n(20))),
            Policy::AccountSignInFailure => Quota::with_period(Duration::from_secs(180))
                .map_or_else(|| Quota::per_hour(n(20)), |q| q.allow_burst(n(20))),
            Policy::CallbackReplay => Quota::with_period(Duration::from_secs(6))
                .map_or_else(|| Quota::per_minute(n(10)), |q| q.allow_burst(n(10))),
            Policy::SurveyVerify => Quota::per_minute(n(1)).allow_burst(n(5)),
            Policy::PasswordReset => Quota::with_period(Duration::from_secs(600))
                .map_or_else(|| Quota::per_hour(n(6)), |q| q.allow_burst(n(3))),
            Policy::PasswordResetAddress => Quota::with_period(Duration::from_secs(30))
                .map_or_else(|| Quota::per_minute(n(2)), |q| q.allow_burst(n(20))),
            Policy::SecondFactor => Quota::with_period(Duration::from_secs(30))
                .map_or_else(|| Quota::per_minute(n(2)), |q| q.allow_burst(n(5))),
        }
    }

    /// The policy's name in the `RateLimit-Policy` and `RateLimit` headers.
    pub fn name(self) -> &'static str {
        match self {
            Policy::SdkRead => "sdk-read",
            Policy::SdkWrite => "sdk-write",
            Policy::SessionCreate => "session-create",
            Policy::StaticFeed => "static-feed",
            Policy::ProviderCallback => "provider-callback",
            Policy::SurveyFetch => "survey-fetch",
            Policy::SurveyApi => "survey-api",
            Policy::SignIn => "sign-in",
            Policy::SignInAddress => "sign-in-address",
            Policy::Register => "register",
            Policy::CallbackReplay => "callback-replay",
            Policy::AccountSignInFailure => "account-sign-in-failure",
            Policy::SurveyVerify => "survey-verify",
            Policy::PasswordReset => "password-reset",
            Policy::PasswordResetAddress => "password-reset-address",
            Policy::SecondFactor => "second-factor",
        }
    }

    fn index(self) -> usize {
        POLICIES.iter().position(|p| *p == self).unwrap_or(0)
    }

    /// The limiter for this policy. Delivery limits are keyed by callers anyone can make up
    /// (addresses, tokens): a fixed table of 2^14 sets × 4 keys (65,536 callers, about
    /// 1.2 MB), sized for 50,000 new callers a second (each is held about half a second
    /// before its allowance refills). Account limits stay exact: a flood must never reset
    /// a sign-in lock.
    fn limiter(self, clock: &LimitClock) -> Limiter {
        match self {
            Policy::SdkRead
            | Policy::SdkWrite
            | Policy::SessionCreate
            | Policy::StaticFeed
            | Policy::ProviderCallback
            | Policy::SurveyFetch
            | Policy::SurveyApi
            | Policy::SignInAddress => Limiter::Bounded(Bounded::new(
                self.quota(),
                BoundedStore::new(14),
                clock.clone(),
            )),
            Policy::SignIn
            | Policy::Register
            | Policy::CallbackReplay
            | Policy::AccountSignInFailure
            | Policy::SurveyVerify
            | Policy::PasswordReset
            | Policy::PasswordResetAddress
            | Policy::SecondFactor => Limiter::Exact(Exact::new(
                self.quota(),
                DefaultKeyedStateStore::default(),
                clock.clone(),
            )),
        }
    }
}

enum Limiter {
    Bounded(Bounded),
    Exact(Exact),
}

impl Limiter {
    fn check(&self, key: u64) -> Result<StateSnapshot, governor::NotUntil<Nanos>> {
        match self {
            Limiter::Bounded(l) => l.check_key(&key),
            Limiter::Exact(l) => l.check_key(&key),
        }
    }
}

/// One keyed limiter per policy. Keys are kept as 64-bit hashes (SipHash with a key
/// drawn per process, so callers cannot aim collisions): a static feed key (slot, key hash
/// and address) is over 100 characters, and a minute of traffic from many addresses would
/// otherwise hold a string per address. A collision only makes two callers share a bucket.
pub struct RateLimits {
    limiters: Vec<Limiter>,
    hasher: std::hash::RandomState,
    clock: LimitClock,
    /// Accounts slowed after too many failed sign-ins, and addresses refused after too
    /// many (keyed `address <bucket>`), until the time given (`sign_in`).
    locks: std::sync::Mutex<std::collections::HashMap<String, chrono::DateTime<chrono::Utc>>>,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self::new(Arc::new(SystemClock))
    }
}

impl RateLimits {
    /// Limits on `clock` (the service's clock; a test clock in tests).
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        let clock = LimitClock(clock);
        Self {
            limiters: POLICIES.iter().map(|p| p.limiter(&clock)).collect(),
            hasher: std::hash::RandomState::new(),
            clock,
            locks: std::sync::Mutex::default(),
        }
    }

    /// Counts one request for `key` under `policy`; `429` with a `Retry-After` when over.
    /// What is left is recorded for the request's `RateLimit` headers ([`recording`]).
    pub fn check(&self, policy: Policy, key: &str) -> Result<(), AppError> {
        match self.count(policy, key) {
            Ok(left) => {
                allowance::record(left);
                Ok(())
            }
            Err((left, retry_after)) => {
                allowance::record(left);
                Err(AppError::rate_limited(retry_after))
            }
        }
    }

    /// Counts one request: what is left, or what is left (nothing) and the seconds until
    /// the next request is allowed.
    fn count(&self, policy: Policy, key: &str) -> Result<Allowance, (Allowance, u64)> {
        let Some(limiter) = self.limiters.get(policy.index()) else {
            return Ok(Allowance::of(policy.name(), policy.quota(), u32::MAX));
        };
        use std::hash::BuildHasher;
        match limiter.check(self.hasher.hash_one(key)) {
            Ok(state) => Ok(Allowance::of(
                policy.name(),
                state.quota(),
                state.remaining_burst_capacity(),
            )),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let left = Allowance::of(policy.name(), not_until.quota(), 0);
                Err((left, wait.as_secs() + 1))
            }
        }
    }

    /// Forgets keys whose limits have fully replenished (run periodically by a sweep
    /// worker); the fixed tables need no sweeping.
    pub fn sweep(&self) {
        for l in &self.limiters {
            if let Limiter::Exact(l) = l {
                l.retain_recent();
                l.shrink_to_fit();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_share_their_64_and_ipv4_stays_exact() {
        let a = client_bucket(
            "2001:db8:1:2:aaaa::1"
                .parse()
                .unwrap_or(std::net::IpAddr::from([0; 4])),
        );
        let b = client_bucket(
            "2001:db8:1:2:ffff:1:2:3"
                .parse()
                .unwrap_or(std::net::IpAddr::from([0; 4])),
        );
        let c = client_bucket(
            "2001:db8:1:3::1"
                .parse()
                .unwrap_or(std::net::IpAddr::from([0; 4])),
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(
            client_bucket(std::net::IpAddr::from([192, 0, 2, 7])),
            "192.0.2.7"
        );
        assert_eq!(
            client_bucket(
                "::ffff:192.0.2.7"
                    .parse()
                    .unwrap_or(std::net::IpAddr::from([0; 4]))
            ),
            "192.0.2.7"
        );
    }

    #[test]
    fn twenty_failures_slow_an_account_from_any_address() {
        let limits = RateLimits::default();
        for _ in 0..20 {
            assert!(!limits.sign_in_failed("acc@example.com"));
        }
        assert!(!limits.is_slowed("acc@example.com"));
        assert!(limits.sign_in_failed("acc@example.com"));
        assert!(limits.is_slowed("acc@example.com"));
        assert!(!limits.is_slowed("other@example.com"));
    }

    #[test]
    fn sdk_writes_allow_sixty_then_refuse_with_retry_after() {
        let limits = RateLimits::default();
        for _ in 0..60 {
            assert!(limits.check(Policy::SdkWrite, "tok").is_ok());
        }
        let err = limits
            .check(Policy::SdkWrite, "tok")
            .err()
            .unwrap_or_else(AppError::internal);
        assert_eq!(err.status, 429);
        // The next request is allowed within a second (60 a minute): rounded up to 1.
        assert_eq!(
            (err.code.as_str(), err.retry_after),
            ("rate_limited", Some(1))
        );
        // Keys are independent.
        assert!(limits.check(Policy::SdkWrite, "other").is_ok());
        // Policies are independent.
        assert!(limits.check(Policy::SdkRead, "tok").is_ok());
    }

    /// Every policy's allowance and refill period on a test clock; the HTTP tests cover the
    /// routes, this covers the policies whose routes need much set-up.
    #[test]
    fn each_policy_spends_its_allowance_and_refills_on_the_clock() {
        use crate::domain::clock::TestClock;
        let clock = Arc::new(TestClock::new(
            chrono::DateTime::UNIX_EPOCH + chrono::Duration::days(20_000),
        ));
        let limits = RateLimits::new(clock.clone());
        let table = [
            (Policy::SdkRead, 120, chrono::Duration::milliseconds(500)),
            (Policy::SdkWrite, 60, chrono::Duration::seconds(1)),
            (Policy::SessionCreate, 60, chrono::Duration::seconds(1)),
            (Policy::StaticFeed, 120, chrono::Duration::milliseconds(500)),
            (
                Policy::ProviderCallback,
                120,
                chrono::Duration::milliseconds(500),
            ),
            (
                Policy::SurveyFetch,
                3_000,
                chrono::Duration::milliseconds(20),
            ),
            (Policy::SurveyApi, 600, chrono::Duration::milliseconds(100)),
            (Policy::SignIn, 10, chrono::Duration::seconds(30)),
            (Policy::SignInAddress, 30, chrono::Duration::seconds(2)),
            (Policy::Register, 20, chrono::Duration::minutes(3)),
            (Policy::CallbackReplay, 10, chrono::Duration::seconds(6)),
            (
                Policy::AccountSignInFailure,
                20,
                chrono::Duration::minutes(3),
            ),
            (Policy::SurveyVerify, 5, chrono::Duration::minutes(1)),
            (Policy::PasswordReset, 3, chrono::Duration::minutes(10)),
            (
                Policy::PasswordResetAddress,
                20,
                chrono::Duration::seconds(30),
            ),
            (Policy::SecondFactor, 5, chrono::Duration::seconds(30)),
        ];
        assert_eq!(table.len(), POLICIES.len(), "every policy is in the table");
        for (policy, allowance, refill) in table {
            let key = format!("{policy:?}");
            for i in 0..allowance {
                assert!(
                    limits.check(policy, &key).is_ok(),
                    "{policy:?}: {i} of {allowance}"
                );
            }
            let err = limits
                .check(policy, &key)
                .expect_err("one past the allowance");
            assert_eq!(err.code, "rate_limited", "{policy:?}");
            assert!(
                limits.check(policy, "another caller").is_ok(),
                "{policy:?} is per key"
            );
            clock.advance(refill);
            assert!(
                limits.check(policy, &key).is_ok(),
                "{policy:?} refilled by one"
            );
            assert!(
                limits.check(policy, &key).is_err(),
                "{policy:?} only by one"
            );
        }
        // A slowed account stays slowed for ACCOUNT_LOCK on the clock, then is not.
        for _ in 0..21 {
            limits.sign_in_failed("slow@example.com");
        }
        assert!(limits.is_slowed("slow@example.com"));
        clock.advance(chrono::Duration::from_std(ACCOUNT_LOCK).unwrap_or_default());
        clock.advance(chrono::Duration::seconds(1));
        assert!(!limits.is_slowed("slow@example.com"));
    }
}
