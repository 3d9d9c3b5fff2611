//! What the limits told a request, for the `RateLimit-Policy` and `RateLimit` response
//! headers (draft-ietf-httpapi-ratelimit-headers). Each check made while a request is
//! served is recorded in a task-local the server's outer layer sets up around the handler
//! ([`recording`]); the layer writes the headers, so every limited route, JSON or
//! dashboard, carries them without its handler knowing. Outside a recording (workers,
//! tests of the domain) a check records nothing.

use std::cell::RefCell;
use std::future::Future;

use governor::Quota;

/// One policy's state after a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// The policy's name in the headers, e.g. `sdk-write`.
    pub policy: &'static str,
    /// Requests allowed at once (`q`).
    pub quota: u32,
    /// Seconds in which a spent allowance becomes whole again (`w`): `q` per `w` is the
    /// sustained rate.
    pub window_secs: u64,
    /// Requests left now (`r`).
    pub remaining: u32,
    /// Seconds until the allowance is whole again (`t`), rounded up.
    pub reset_secs: u64,
}

impl Allowance {
    pub(super) fn of(policy: &'static str, quota: Quota, remaining: u32) -> Self {
        let burst = quota.burst_size().get();
        let spent = burst.saturating_sub(remaining);
        let per_one = quota.replenish_interval();
        Self {
            policy,
            quota: burst,
            window_secs: ceil_secs(quota.burst_size_replenished_in()),
            remaining,
            reset_secs: ceil_secs(per_one.saturating_mul(spent)),
        }
    }
}

fn ceil_secs(d: std::time::Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

tokio::task_local! {
    static SEEN: RefCell<Vec<Allowance>>;
}

/// Runs `f` (a request's handler) recording the allowances its checks report.
pub async fn recording<F: Future>(f: F) -> (F::Output, Vec<Allowance>) {
    SEEN.scope(RefCell::new(Vec::new()), async move {
        let out = f.await;
        let seen = SEEN.with(RefCell::take);
        (out, seen)
    })
    .await
}

/// Records the checks a part of the request made on a task of its own (its `recording`).
pub fn carry(seen: Vec<Allowance>) {
    for a in seen {
        record(a);
    }
}

/// Records one check's result for the request being served, if any. A policy checked twice
/// keeps its latest state.
pub(super) fn record(a: Allowance) {
    let _ = SEEN.try_with(|seen| {
        let mut seen = seen.borrow_mut();
        seen.retain(|s| s.policy != a.policy);
        seen.push(a);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::num::NonZeroU32;

    #[test]
    fn a_per_minute_quota_shows_its_minute_and_the_time_to_refill() {
        let q = Quota::per_minute(NonZeroU32::new(60).unwrap_or(NonZeroU32::MIN));
        let a = Allowance::of("sdk-write", q, 57);
        assert_eq!(
            (a.quota, a.window_secs, a.remaining, a.reset_secs),
            (60, 60, 57, 3)
        );
        let whole = Allowance::of("sdk-write", q, 60);
        assert_eq!(whole.reset_secs, 0);
    }

    #[tokio::test]
    async fn checks_inside_a_recording_are_recorded_once_per_policy() {
        let q = Quota::per_minute(NonZeroU32::new(10).unwrap_or(NonZeroU32::MIN));
        let ((), seen) = recording(async {
            record(Allowance::of("a", q, 9));
            record(Allowance::of("b", q, 4));
            record(Allowance::of("a", q, 8));
        })
        .await;
        let names: Vec<_> = seen.iter().map(|a| (a.policy, a.remaining)).collect();
        assert_eq!(names, vec![("b", 4), ("a", 8)]);
        // Outside a recording nothing is kept and nothing fails.
        record(Allowance::of("a", q, 1));
    }
}
