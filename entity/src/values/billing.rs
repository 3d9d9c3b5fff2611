//! The wallet's money in and the ledger (`fundings.status`, `payprovider_orders.status`,
//! `ledger_accounts.kind`, `ledger_transactions.kind`).

crate::wire_enum!(
    /// Where a funding stands: a wire awaits the administrator's review, a provider order
    /// is open (PENDING) until captured; both end CREDITED or DECLINED.
    FundingStatus {
        AwaitingReview = "AWAITING_REVIEW", Pending = "PENDING", Credited = "CREDITED",
        Declined = "DECLINED"
    }
);

crate::wire_enum!(
    /// State of a payment provider order.
    OrderStatus { Created = "CREATED", Approved = "APPROVED", Declined = "DECLINED", Completed = "COMPLETED", Processing = "PROCESSING" }
);

crate::wire_enum!(
    /// Kinds of ledger accounts. Advertiser kinds are owned by the advertiser's account;
    /// platform kinds by the empty owner `""`; publisher kinds by the publisher's account. The
    /// reference is a campaign id (offer or survey) where the money belongs to one campaign.
    LedgerAccountKind {
        /// Money the advertiser can spend or reserve.
        Available = "AVAILABLE",
        /// Money held for one campaign (reference = campaign id).
        Reserved = "RESERVED",
        /// Money paid out for delivered conversions and completes.
        Spent = "SPENT",
        /// The platform's view of money received from outside (goes negative as funds arrive).
        FundingClearing = "FUNDING_CLEARING",
        /// The platform's mirror of an advertiser's spend on one campaign (always −SPENT): the
        /// counter-leg of the publisher's earnings and the platform's revenue.
        SpendClearing = "SPEND_CLEARING",
        /// What an advertiser that pays a survey campaign outside the wallet owes for its
        /// completes (negative; per campaign).
        ExternalReceivable = "EXTERNAL_RECEIVABLE",
        /// The platform's share of paid conversions (per campaign).
        PlatformRevenue = "PLATFORM_REVENUE",
        /// A publisher's earnings still inside the hold period (per campaign).
        PublisherPending = "PUBLISHER_PENDING",
        /// A publisher's earnings past the hold; may go negative when a conversion is reversed
        /// after its release (recovered from later earnings).
        PublisherAvailable = "PUBLISHER_AVAILABLE",
        /// A share of a new publisher's released earnings held longer, per day it is due
        /// (reference = the due day, `YYYY-MM-DD`): it covers reversals after a payout.
        PublisherReserve = "PUBLISHER_RESERVE",
        /// Money set aside for one payout (reference = payout id).
        PayoutHeld = "PAYOUT_HELD",
        /// Money paid out to publishers.
        PayoutClearing = "PAYOUT_CLEARING",
        /// What an advertiser owes after a refund or chargeback took back more than its
        /// available balance held (negative): the next funding pays it first.
        Owed = "OWED",
    }
);

crate::wire_enum!(
    /// Why a ledger transaction moved money (`ledger_transactions.kind`; the `transaction_kind`
    /// of ledger exports).
    TransactionKind {
        /// A credited funding (wire or provider) reaches the advertiser's wallet.
        FundingCredit = "funding_credit",
        /// A launched offer campaign's reserve is taken from the wallet.
        CampaignReserve = "campaign_reserve",
        /// What is left of an ended offer campaign's reserve returns to the wallet.
        CampaignRelease = "campaign_release",
        /// A paid conversion of an offer campaign.
        CampaignSpend = "campaign_spend",
        /// A paid survey complete (from the campaign's allocation).
        Spend = "spend",
        /// A survey complete of a campaign paid outside the wallet.
        ExternalSpend = "external_spend",
        /// A paid conversion or complete given back.
        Refund = "refund",
        /// A complete of a campaign paid outside the wallet given back.
        ExternalRefund = "external_refund",
        /// A survey campaign's allocation is taken from the wallet.
        SurveyAllocation = "survey_allocation",
        /// What a closed survey campaign does not need returns to the wallet.
        SurveyRelease = "survey_release",
        /// The rest of a closed survey campaign's allocation returns after its grace period.
        SurveyGraceRelease = "survey_grace_release",
        /// A publisher's pending earnings pass their hold.
        EarningsRelease = "earnings_release",
        /// A new publisher's reserve is released on its due day.
        ReserveRelease = "reserve_release",
        /// The earnings of conversions paid before earnings were kept in the ledger.
        EarningsBackfill = "earnings_backfill",
        /// A requested payout sets its amount aside.
        PayoutHold = "payout_hold",
        /// A payout is paid out.
        PayoutPaid = "payout_paid",
        /// A cancelled, rejected or failed payout returns to the available balance.
        PayoutReturn = "payout_return",
        /// A correction an operator posts by hand (the publisher sees an adjustment).
        Adjustment = "adjustment",
        /// Money of a credited funding went back to the payer (the provider's refund or a
        /// chargeback): out of the available balance, the rest owed.
        FundingReturn = "funding_return",
        /// What an advertiser owed after a return is paid from its wallet (the reserves its
        /// paused campaigns released).
        DebtPayment = "debt_payment",
    }
);
