//! Publisher payouts and the monthly run (`payouts.status`, `payout_runs.status`).

crate::wire_enum!(
    /// Where a payout stands. REQUESTED, APPROVED and SENDING (in a batch on its way: PayPal
    /// Payouts or a bank file) hold the money; PAID sent it; CANCELLED, REJECTED and FAILED
    /// returned it to the available balance.
    PayoutStatus {
        Requested = "REQUESTED",
        Approved = "APPROVED",
        Sending = "SENDING",
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

crate::wire_enum!(
    /// How a batch of approved payouts leaves: PayPal Payouts (payouts to a payment-service
    /// account) or an ISO 20022 `pain.001` credit-transfer file for the platform's bank (bank
    /// transfers).
    PayoutRail { PayPal = "PAYPAL", BankFile = "BANK_FILE" }
);

crate::wire_enum!(
    /// Where a payout batch stands: SUBMITTING until PayPal accepted it (retried when PayPal
    /// could not be reached), SENT while its items are on their way (a bank file waits for
    /// the operator's confirmation), COMPLETED when every payout in it is PAID or FAILED,
    /// REFUSED when PayPal refused the batch (its payouts are APPROVED again).
    PayoutBatchStatus {
        Submitting = "SUBMITTING",
        Sent = "SENT",
        Completed = "COMPLETED",
        Refused = "REFUSED",
    }
);
