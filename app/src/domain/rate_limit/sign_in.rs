//! Sign-in protection kept beside the limiters (docs/decisions.md, "Sign-in protection"):
//! an account whose failed sign-ins from anywhere spend their budget is slowed (never
//! refused), and an address whose failed sign-ins, whatever the e-mails, spend theirs is
//! refused until its next attempt is allowed. Only failures count against an address: fifty
//! people behind one office address all sign in at nine, while guessing still pays Argon2
//! work for every try and stops after thirty.

use super::{ACCOUNT_LOCK, Policy, RateLimits, allowance};
use crate::error::AppError;

/// The key of an address in the lock table (an e-mail never holds a space).
fn address_key(client: &str) -> String {
    format!("address {client}")
}

/// The key of an account's second-factor codes in the lock table.
fn second_factor_key(account: &str) -> String {
    format!("second-factor {account}")
}

impl RateLimits {
    /// Whether `key` (an account) is slowed now.
    pub fn is_slowed(&self, key: &str) -> bool {
        self.locked_until(key).is_some()
    }

    /// Counts one failed sign-in of `key`; returns true when this failure started its
    /// slowdown.
    pub fn sign_in_failed(&self, key: &str) -> bool {
        // Counted, not shown: this limit slows an account, it never answers the caller.
        if self.count(Policy::AccountSignInFailure, key).is_ok() {
            return false;
        }
        let lock = chrono::Duration::from_std(ACCOUNT_LOCK).unwrap_or(chrono::Duration::zero());
        self.lock(key.to_owned(), self.clock.0.now() + lock);
        true
    }

    /// `429` with the seconds to wait when `client`'s failed sign-ins spent its budget.
    pub fn sign_in_address_allowed(&self, client: &str) -> Result<(), AppError> {
        self.failures_allowed(&address_key(client))
    }

    /// Counts one failed sign-in from `client` (its `RateLimit` header shows what is left);
    /// when the budget is spent the address is refused until its next attempt is allowed.
    pub fn sign_in_address_failed(&self, client: &str) {
        self.failed(Policy::SignInAddress, client, address_key(client));
    }

    /// `429` while `account`'s wrong second-factor codes spent their budget
    /// (`Policy::SecondFactor`): six digits cannot be guessed, and a person who types the
    /// right code is never slowed by earlier successes.
    pub fn second_factor_allowed(&self, account: &str) -> Result<(), AppError> {
        self.failures_allowed(&second_factor_key(account))
    }

    /// Counts one wrong second-factor code of `account`.
    pub fn second_factor_failed(&self, account: &str) {
        self.failed(Policy::SecondFactor, account, second_factor_key(account));
    }

    fn failures_allowed(&self, lock_key: &str) -> Result<(), AppError> {
        match self.locked_until(lock_key) {
            Some(until) => {
                let secs = (until - self.clock.0.now()).num_seconds().max(0);
                Err(AppError::rate_limited(u64::try_from(secs).unwrap_or(0) + 1))
            }
            None => Ok(()),
        }
    }

    fn failed(&self, policy: Policy, key: &str, lock_key: String) {
        let wait = match self.count(policy, key) {
            // The last of the budget: the next attempt waits for the next refill.
            Ok(left) if left.remaining == 0 => {
                allowance::record(left);
                policy.quota().replenish_interval().as_secs().max(1)
            }
            Ok(left) => return allowance::record(left),
            Err((left, retry_after)) => {
                allowance::record(left);
                retry_after
            }
        };
        let wait = chrono::Duration::seconds(i64::try_from(wait).unwrap_or(60));
        self.lock(lock_key, self.clock.0.now() + wait);
    }

    fn locked_until(&self, key: &str) -> Option<chrono::DateTime<chrono::Utc>> {
        let now = self.clock.0.now();
        self.locks.lock().ok().and_then(|mut m| {
            m.retain(|_, until| *until > now);
            m.get(key).copied()
        })
    }

    fn lock(&self, key: String, until: chrono::DateTime<chrono::Utc>) {
        if let Ok(mut m) = self.locks.lock() {
            m.insert(key, until);
        }
    }
}
