//! Survey campaigns and respondents' entries (`survey_campaigns.status` and
//! `.payment_status`, `survey_entries.status`).

crate::wire_enum!(
    /// Survey campaign status: created as DRAFT; PENDINGAPPROVAL once submitted; LIVE after an
    /// administrator approves a funded campaign; PAUSED and CLOSED afterwards.
    SurveyStatus {
        Draft = "DRAFT", PendingApproval = "PENDINGAPPROVAL", Live = "LIVE", Paused = "PAUSED",
        Closed = "CLOSED"
    }
);

crate::wire_enum!(
    /// How a survey campaign is paid: not yet, from the shared wallet, or outside it (invoice).
    PaymentStatus { Unpaid = "UNPAID", Wallet = "PAID_WALLET", External = "PAID_EXTERNALLY" }
);

crate::wire_enum!(
    /// Where a respondent's entry into a survey stands: ENTERED on the redirect, then the
    /// outcome the advertiser reports.
    EntryStatus {
        Entered = "ENTERED", Complete = "COMPLETE", Terminated = "TERMINATED",
        Overquota = "OVERQUOTA", QualityFail = "QUALITY_FAIL"
    }
);

crate::wire_enum!(
    /// What a survey fetch answered (`survey_fetches.outcome`).
    FetchOutcome { Success = "SUCCESS", NotFound = "NOT_FOUND", FraudBlocked = "FRAUD_BLOCKED" }
);
