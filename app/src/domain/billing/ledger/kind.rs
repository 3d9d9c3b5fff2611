//! The kinds of ledger accounts, and which of them may be debited below zero.

/// Kinds of ledger accounts. Advertiser kinds are owned by the advertiser's account;
/// platform kinds by the empty owner `""`; publisher kinds by the publisher's account. The
/// reference is a campaign id (offer or survey) where the money belongs to one campaign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Money the advertiser can spend or reserve.
    Available,
    /// Money held for one campaign (reference = campaign id).
    Reserved,
    /// Money paid out for delivered conversions and completes.
    Spent,
    /// The platform's view of money received from outside (goes negative as funds arrive).
    FundingClearing,
    /// The platform's mirror of an advertiser's spend on one campaign (always −SPENT): the
    /// counter-leg of the publisher's earnings and the platform's revenue.
    SpendClearing,
    /// What an advertiser that pays a survey campaign outside the wallet owes for its
    /// completes (negative; per campaign).
    ExternalReceivable,
    /// The platform's share of paid conversions (per campaign).
    PlatformRevenue,
    /// A publisher's earnings still inside the hold period (per campaign).
    PublisherPending,
    /// A publisher's earnings past the hold; may go negative when a conversion is reversed
    /// after its release (recovered from later earnings).
    PublisherAvailable,
    /// A share of a new publisher's released earnings held longer, per day it is due
    /// (reference = the due day, `YYYY-MM-DD`): it covers reversals after a payout.
    PublisherReserve,
    /// Money set aside for one payout (reference = payout id).
    PayoutHeld,
    /// Money paid out to publishers.
    PayoutClearing,
}

impl Kind {
    pub const ALL: [Kind; 12] = [
        Kind::Available,
        Kind::Reserved,
        Kind::Spent,
        Kind::FundingClearing,
        Kind::SpendClearing,
        Kind::ExternalReceivable,
        Kind::PlatformRevenue,
        Kind::PublisherPending,
        Kind::PublisherAvailable,
        Kind::PublisherReserve,
        Kind::PayoutHeld,
        Kind::PayoutClearing,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Available => "AVAILABLE",
            Kind::Reserved => "RESERVED",
            Kind::Spent => "SPENT",
            Kind::FundingClearing => "FUNDING_CLEARING",
            Kind::SpendClearing => "SPEND_CLEARING",
            Kind::ExternalReceivable => "EXTERNAL_RECEIVABLE",
            Kind::PlatformRevenue => "PLATFORM_REVENUE",
            Kind::PublisherPending => "PUBLISHER_PENDING",
            Kind::PublisherAvailable => "PUBLISHER_AVAILABLE",
            Kind::PublisherReserve => "PUBLISHER_RESERVE",
            Kind::PayoutHeld => "PAYOUT_HELD",
            Kind::PayoutClearing => "PAYOUT_CLEARING",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "AVAILABLE" => Kind::Available,
            "RESERVED" => Kind::Reserved,
            "SPENT" => Kind::Spent,
            "FUNDING_CLEARING" => Kind::FundingClearing,
            "SPEND_CLEARING" => Kind::SpendClearing,
            "EXTERNAL_RECEIVABLE" => Kind::ExternalReceivable,
            "PLATFORM_REVENUE" => Kind::PlatformRevenue,
            "PUBLISHER_PENDING" => Kind::PublisherPending,
            "PUBLISHER_AVAILABLE" => Kind::PublisherAvailable,
            "PUBLISHER_RESERVE" => Kind::PublisherReserve,
            "PAYOUT_HELD" => Kind::PayoutHeld,
            "PAYOUT_CLEARING" => Kind::PayoutClearing,
            _ => return None,
        })
    }

    /// Whether a debit is refused in SQL when it would take the balance below zero. Only
    /// money someone could try to spend twice is guarded (each guard costs a statement);
    /// the platform and publisher kinds move by construction in exact pairs, which
    /// [`super::reconcile`] checks.
    pub(super) fn guards_debits(self) -> bool {
        matches!(
            self,
            Kind::Available | Kind::Reserved | Kind::Spent | Kind::PayoutHeld
        )
    }

    /// Whether a negative balance is normal for the kind (otherwise [`super::reconcile`]
    /// reports it).
    pub fn may_go_negative(self) -> bool {
        matches!(
            self,
            Kind::FundingClearing
                | Kind::SpendClearing
                | Kind::ExternalReceivable
                | Kind::PublisherAvailable
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn every_kind_reads_back_from_its_text() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Kind::parse("available"), None);
    }
}
