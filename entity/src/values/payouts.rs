//! Publisher payouts and the monthly run (`payouts.status`, `payout_runs.status`).

crate::wire_enum!(
    /// Where a payout stands. REQUESTED and APPROVED hold the money; PAID sent it; CANCELLED,
    /// REJECTED and FAILED returned it to the available balance.
    PayoutStatus {
        Requested = "REQUESTED",
        Approved = "APPROVED",
        Paid = "PAID",
        Cancelled = "CANCELLED",
        Rejected = "REJECTED",
        Failed = "FAILED",
    }
);

crate::wire_enum!(
    /// Where a monthly run stands: QUEUED until a worker takes it (within seconds), RUNNING
    /// while it makes payouts, COMPLETED with its counts. Starting a completed month again
    /// queues it again, to create only what is missing.
    PayoutRunStatus { Queued = "QUEUED", Running = "RUNNING", Completed = "COMPLETED" }
);

impl PayoutRunStatus {
    /// As the dashboard shows it.
    pub fn label(self) -> &'static str {
        match self {
            PayoutRunStatus::Queued => "queued, starts within seconds",
            PayoutRunStatus::Running => "creating payouts",
            PayoutRunStatus::Completed => "completed",
        }
    }
}
