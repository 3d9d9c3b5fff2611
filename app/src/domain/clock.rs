//! Injectable time. Rules never read the wall clock directly, so expiry is tested by
//! moving a [`TestClock`] instead of sleeping.

use chrono::{DateTime, Duration, DurationRound, Utc};
use std::sync::Mutex;

/// A source of the current time.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The real clock.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when told to.
#[derive(Debug)]
pub struct TestClock(Mutex<DateTime<Utc>>);

impl TestClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        Self(Mutex::new(start))
    }

    /// Moves the clock forward (or back, with a negative duration).
    pub fn advance(&self, by: Duration) {
        let mut t = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *t += by;
    }

    pub fn set(&self, to: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = to;
    }
}

impl Clock for TestClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Drops sub-microsecond precision (PostgreSQL keeps microseconds).
pub fn truncate_micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(Duration::microseconds(1)).unwrap_or(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_clock_moves_only_when_told() {
        let start = DateTime::parse_from_rfc3339("2026-01-01T00:00:00Z").map(|t| t.to_utc());
        let start = start.unwrap_or_default();
        let c = TestClock::new(start);
        assert_eq!(c.now(), start);
        c.advance(Duration::minutes(15));
        assert_eq!(c.now(), start + Duration::minutes(15));
    }

    #[test]
    fn truncation_keeps_microseconds() {
        let t = DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap_or_default();
        assert_eq!(truncate_micros(t).timestamp_subsec_nanos(), 123_456_000);
    }
}
