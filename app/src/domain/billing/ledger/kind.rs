//! The kinds of ledger accounts, and which of them may be debited below zero.

/// Kinds of ledger accounts (declared with the column, `ledger_accounts.kind`).
pub use entity::values::LedgerAccountKind as Kind;

/// Whether a debit is refused in SQL when it would take the balance below zero. Only
/// money someone could try to spend twice is guarded (each guard costs a statement);
/// the platform and publisher kinds move by construction in exact pairs, which
/// [`super::reconcile`] checks.
pub(super) fn guards_debits(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Available | Kind::Reserved | Kind::Spent | Kind::PayoutHeld
    )
}

/// Whether a negative balance is normal for the kind (otherwise [`super::reconcile`]
/// reports it).
pub fn may_go_negative(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::FundingClearing
            | Kind::SpendClearing
            | Kind::ExternalReceivable
            | Kind::PublisherAvailable
            | Kind::Owed
    )
}
