//! Keyed rate limits of the specifications' Limits tables, in one place. Every surface
//! asks [`RateLimits::check`] with its policy and key; the server adds middleware adapters
//! for the cases keyed by token or address. Limits are per process (GCRA, `governor`).

use std::num::NonZeroU32;
use std::time::Duration;

use governor::clock::{Clock as _, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::error::AppError;

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
    /// Sign-in attempts: 10 at once, then one every 30 s, per e-mail and source IP.
    SignIn,
    /// Registrations: 20 at once, then one every 3 minutes, per source IP.
    Register,
    /// Reward-callback replays: 10 at once, then one every 6 s, per publisher account.
    CallbackReplay,
}

const POLICIES: [Policy; 8] = [
    Policy::SdkRead,
    Policy::SdkWrite,
    Policy::SessionCreate,
    Policy::StaticFeed,
    Policy::ProviderCallback,
    Policy::SignIn,
    Policy::Register,
    Policy::CallbackReplay,
];

impl Policy {
    fn quota(self) -> Quota {
        let n = |v: u32| NonZeroU32::new(v).unwrap_or(NonZeroU32::MIN);
        match self {
            Policy::SdkRead | Policy::StaticFeed | Policy::ProviderCallback => {
                Quota::per_minute(n(120))
            }
            Policy::SdkWrite | Policy::SessionCreate => Quota::per_minute(n(60)),
            Policy::SignIn => Quota::with_period(Duration::from_secs(30))
                .map_or_else(|| Quota::per_minute(n(2)), |q| q.allow_burst(n(10))),
            Policy::Register => Quota::with_period(Duration::from_secs(180))
                .map_or_else(|| Quota::per_hour(n(20)), |q| q.allow_burst(n(20))),
            Policy::CallbackReplay => Quota::with_period(Duration::from_secs(6))
                .map_or_else(|| Quota::per_minute(n(10)), |q| q.allow_burst(n(10))),
        }
    }

    fn index(self) -> usize {
        POLICIES.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// One keyed limiter per policy.
pub struct RateLimits {
    limiters: Vec<DefaultKeyedRateLimiter<String>>,
    clock: DefaultClock,
}

impl Default for RateLimits {
    fn default() -> Self {
        Self::new()
    }
}

impl RateLimits {
    pub fn new() -> Self {
        Self {
            limiters: POLICIES
                .iter()
                .map(|p| RateLimiter::keyed(p.quota()))
                .collect(),
            clock: DefaultClock::default(),
        }
    }

    /// Counts one request for `key` under `policy`; `429` with a `Retry-After` when over.
    pub fn check(&self, policy: Policy, key: &str) -> Result<(), AppError> {
        let Some(limiter) = self.limiters.get(policy.index()) else {
            return Ok(());
        };
        match limiter.check_key(&key.to_owned()) {
            Ok(()) => Ok(()),
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                Err(AppError::rate_limited(wait.as_secs() + 1))
            }
        }
    }

    /// Forgets keys whose limits have fully replenished (run periodically by a sweep worker).
    pub fn sweep(&self) {
        for l in &self.limiters {
            l.retain_recent();
            l.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_writes_allow_sixty_then_refuse_with_retry_after() {
        let limits = RateLimits::new();
        for _ in 0..60 {
            assert!(limits.check(Policy::SdkWrite, "tok").is_ok());
        }
        let err = limits
            .check(Policy::SdkWrite, "tok")
            .err()
            .unwrap_or_else(AppError::internal);
        assert_eq!(err.status, 429);
        assert!(err.retry_after.unwrap_or(0) >= 1);
        // Keys are independent.
        assert!(limits.check(Policy::SdkWrite, "other").is_ok());
        // Policies are independent.
        assert!(limits.check(Policy::SdkRead, "tok").is_ok());
    }
}
