//! Reported conversions and where they settled (`conversions.status`, `.settlement` and
//! `.earnings_state`, `postback_events.status`, `sandbox_callbacks.status`).

crate::wire_enum!(
    /// The conversion statuses an advertiser reports (the specification's event values; the
    /// `status` of a stored report).
    ReportedStatus { Pending = "pending", Approved = "approved", Rejected = "rejected", Reversed = "reversed" }
);

crate::wire_enum!(
    /// Where a conversion stands (`conversions.settlement`; also the outcome of the inbox
    /// row of the report that put it there). PENDING: reported pending, nothing paid yet.
    /// APPROVED: paid. REJECTED: closed without payment. REVERSED: paid, then given back.
    /// HELD: approved by the report but held for review (its fraud score reached the
    /// campaign's hold score, or a web pixel's review window runs): nothing paid, no reward
    /// callback, until it is approved or rejected. UNMATCHED_CLICK: no launch has the click
    /// id. UNKNOWN_GOAL: the campaign (at the launch's revision) has no such goal.
    /// OUT_OF_WINDOW: later than the attribution window after the launch. CAP_REACHED: a cap
    /// refused it. NO_BUDGET: neither the reserve nor the wallet could pay; a later report
    /// may settle it.
    Settlement {
        Pending = "PENDING",
        Approved = "APPROVED",
        Rejected = "REJECTED",
        Reversed = "REVERSED",
        Held = "HELD",
        UnmatchedClick = "UNMATCHED_CLICK",
        UnknownGoal = "UNKNOWN_GOAL",
        OutOfWindow = "OUT_OF_WINDOW",
        CapReached = "CAP_REACHED",
        NoBudget = "NO_BUDGET",
    }
);

crate::wire_enum!(
    /// Where a conversion's publisher earnings stand (`conversions.earnings_state`; absent
    /// for conversions paid before publisher earnings were kept in the ledger).
    EarningsState { Pending = "PENDING", Available = "AVAILABLE", Reversed = "REVERSED" }
);

crate::wire_enum!(
    /// What an inbox row records instead of a settlement.
    InboxState {
        /// Accepted during a burst, waiting for the settler.
        Queued = "QUEUED",
        /// A report of a conversion in a terminal state: recorded, not applied.
        NoChange = "NO_CHANGE",
        /// The transaction id was held by an earlier report with another click or goal.
        TransactionConflict = "TRANSACTION_CONFLICT",
        /// Settling failed repeatedly (logged).
        SettlementFailed = "SETTLEMENT_FAILED",
    }
);

/// The outcome of one report, as its inbox row stores it (`postback_events.outcome`): the
/// settlement the report led to, or an inbox state. Stored as the text of either.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PostbackOutcome {
    Settled(Settlement),
    Inbox(InboxState),
}

impl PostbackOutcome {
    pub const fn as_str(self) -> &'static str {
        match self {
            PostbackOutcome::Settled(s) => s.as_str(),
            PostbackOutcome::Inbox(i) => i.as_str(),
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Settlement::parse(s)
            .map(PostbackOutcome::Settled)
            .or_else(|| InboxState::parse(s).map(PostbackOutcome::Inbox))
    }
}

crate::__wire_enum_column!(PostbackOutcome);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_inbox_state_shares_a_text_with_a_settlement() {
        for i in InboxState::ALL {
            assert_eq!(Settlement::parse(i.as_str()), None);
            assert_eq!(
                PostbackOutcome::parse(i.as_str()),
                Some(PostbackOutcome::Inbox(*i))
            );
        }
        for s in Settlement::ALL {
            assert_eq!(
                PostbackOutcome::parse(s.as_str()),
                Some(PostbackOutcome::Settled(*s))
            );
        }
    }
}
