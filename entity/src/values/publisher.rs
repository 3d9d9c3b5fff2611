//! A publisher's placements, slots and operations (`placements.status`, `ad_slots.state`,
//! `blacklists.kind`, `user_bans.status`, `support_cases.status`).

crate::wire_enum!(
    /// Review state of a placement.
    PlacementStatus { Draft = "DRAFT", PendingReview = "PENDING_REVIEW", Verified = "VERIFIED", Rejected = "REJECTED" }
);

crate::wire_enum!(
    /// Slot lifecycle: DRAFT until ready, READY, ACTIVE once activated on a released
    /// placement, DISABLED when paused by the publisher.
    SlotState { Draft = "DRAFT", Ready = "READY", Active = "ACTIVE", Disabled = "DISABLED" }
);

crate::wire_enum!(
    /// What a blacklist entry excludes from delivery: an offer campaign id, an advertiser
    /// account id, a campaign category (GAMES), a task type (INSTALL) or a destination
    /// domain (and its subdomains).
    BlacklistKind {
        Campaign = "CAMPAIGN", Advertiser = "ADVERTISER", Category = "CATEGORY",
        TaskType = "TASK_TYPE", Domain = "DOMAIN"
    }
);

crate::wire_enum!(
    /// Whether a ban is in force.
    BanStatus { Active = "ACTIVE", Lifted = "LIFTED" }
);

crate::wire_enum!(
    /// Handling state of a support case.
    SupportStatus { Open = "OPEN", InProgress = "IN_PROGRESS", Resolved = "RESOLVED", Rejected = "REJECTED" }
);
