//! Reward callbacks and their signing keys (`callback_deliveries.status`,
//! `callback_keys.state`).

crate::wire_enum!(
    /// Where a reward callback stands.
    DeliveryStatus {
        /// The goal's pending hold has not ended; nothing is sent before `nextAttemptAt`.
        Held = "HELD",
        /// The placement has no callback receiver yet; sent once one is configured.
        WaitingReceiver = "WAITING_RECEIVER",
        /// Due or waiting for its next retry (a reversal also waits for its confirmation).
        Pending = "PENDING",
        /// The receiver answered 2xx.
        Delivered = "DELIVERED",
        /// Every retry failed; replay it after fixing the receiver.
        Failed = "FAILED",
        /// A reversal or rejection arrived before the confirmation was sent: neither is sent.
        Cancelled = "CANCELLED",
    }
);

crate::wire_enum!(
    /// A placement's callback signing key: CURRENT signs; NEXT (after a rotation) waits to be
    /// promoted while receivers learn it; RETIRED no longer signs.
    CallbackKeyState { Current = "CURRENT", Next = "NEXT", Retired = "RETIRED" }
);
