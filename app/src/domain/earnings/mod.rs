//! Publisher earnings (issue 34). Each paid conversion, offer or survey, credits the
//! publisher's share to its PENDING earnings for that campaign and the rest to the platform's
//! revenue, in the same ledger posting as the advertiser's spend
//! (`ledger::conversion_legs`). After the hold (30 days unless an administrator set other
//! terms for the publisher) the [`release`] worker moves them to the publisher's AVAILABLE
//! balance. A reversal posts the exact opposite from the amounts stored on the conversion,
//! out of PENDING or, once released, out of AVAILABLE (which may go negative: a debt
//! netted from the next payout, since a payout needs a positive balance, and made good by
//! later releases). Payouts draw on AVAILABLE. A new publisher's releases keep a share in
//! the [`reserve`] for longer, so its own money covers reversals after a payout.

pub mod backfill;
pub mod balance;
pub mod release;
pub mod reserve;
pub mod statements;
pub mod terms;

use crate::domain::billing::ledger::Earning;
use crate::model::publisher::earnings::EarningsState;
use entity::conversion;

/// Days a conversion's earnings stay pending unless a publisher's terms say otherwise: as
/// long as an advertiser may reverse a conversion, so most reversals take back money the
/// publisher has not been able to withdraw yet.
pub const DEFAULT_HOLD_DAYS: i64 = 30;
/// The smallest payout unless a publisher's terms say otherwise (50 USD).
pub const DEFAULT_MINIMUM_PAYOUT_MICROS: i64 = 50_000_000;
/// The longest hold an administrator may set.
pub const MAX_HOLD_DAYS: i64 = 365;

/// The publisher's side of a paid conversion as stored on it; `None` for conversions paid
/// before earnings were kept in the ledger (their reversal moves only the advertiser's
/// money) and for those already reversed.
pub(in crate::domain) fn stored_earning(c: &conversion::Model) -> Option<Earning<'_>> {
    let released = match c.earnings_state? {
        EarningsState::Pending => false,
        EarningsState::Available => true,
        EarningsState::Reversed => return None,
    };
    Some(Earning {
        publisher: c.publisher_id.as_deref()?,
        publisher_micros: crate::model::money::Micros(c.publisher_earnings_micros),
        released,
    })
}
