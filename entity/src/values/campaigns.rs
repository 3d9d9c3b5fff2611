//! Offer campaigns, their tracking credentials and reconciliations
//! (`offer_campaigns.status`, `campaign_credentials.kind` and `.status`,
//! `reconciliation_batches.status`).

crate::wire_enum!(
    /// Offer campaign lifecycle (docs/decisions.md, "Offer campaign states").
    CampaignStatus {
        Draft = "DRAFT", InReview = "IN_REVIEW", Rejected = "REJECTED", Live = "LIVE",
        Paused = "PAUSED", Ended = "ENDED", Archived = "ARCHIVED"
    }
);

crate::wire_enum!(
    /// How a tracking provider reports conversions, which decides their authentication.
    TrackingKind { CustomS2s = "CUSTOM_S2S", Mmp = "MMP", Direct = "DIRECT", Managed = "MANAGED" }
);

crate::wire_enum!(
    /// Whether a campaign credential is in use.
    CredentialStatus { Active = "ACTIVE", Retired = "RETIRED" }
);

crate::wire_enum!(
    /// Where a reconciliation stands: PREVIEWED when created (nothing changed yet), QUEUED
    /// once applied, APPLYING while the worker works through it, DONE with a result per
    /// line.
    ReconciliationStatus {
        Previewed = "PREVIEWED", Queued = "QUEUED", Applying = "APPLYING", Done = "DONE"
    }
);

crate::wire_enum!(
    /// What the preview found for a line, and what applying it did
    /// (`reconciliation_lines.preview` and `.result`). WILL_APPLY (preview only) becomes
    /// APPLIED, ALREADY_IN_STATE, NO_BUDGET or CAP_REACHED (an approval the budget or a cap
    /// refused) once applied. ALREADY_IN_STATE: the conversion is already approved (approve)
    /// or rejected/reversed (reverse). UNKNOWN: no conversion of the caller has this
    /// transaction id (in this campaign). AMBIGUOUS: conversions of several campaigns have it
    /// (name the campaign). OUTSIDE_WINDOW: later than the reconciliation window after the
    /// conversion. NOT_ALLOWED: the conversion cannot take this action (an unpaid or
    /// unattributed conversion reversed, a reversed one approved). DUPLICATE_LINE: the same
    /// transaction id (and campaign) appears earlier in the request. FAILED (applying only):
    /// the line could not be applied (an internal error, three tries); nothing about its
    /// conversion changed, and the operator has it in the log.
    LineState {
        WillApply = "WILL_APPLY", Applied = "APPLIED", AlreadyInState = "ALREADY_IN_STATE",
        Unknown = "UNKNOWN", Ambiguous = "AMBIGUOUS", OutsideWindow = "OUTSIDE_WINDOW",
        NotAllowed = "NOT_ALLOWED", DuplicateLine = "DUPLICATE_LINE", NoBudget = "NO_BUDGET",
        CapReached = "CAP_REACHED", Failed = "FAILED"
    }
);
