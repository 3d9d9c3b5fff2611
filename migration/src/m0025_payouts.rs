//! Payouts to publishers (issue 34): a payout profile per publisher (payment details sealed),
//! payouts moving through REQUESTED → APPROVED → PAID (or CANCELLED, REJECTED, FAILED), and
//! the administrator's monthly runs. At most one open payout per publisher is a database
//! rule (a partial unique index), so two concurrent requests cannot both hold money.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, integer, string, string_null, text, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0025_payouts"
    }
}

const UNIQUE: [(&str, &str); 4] = [
    (
        "idx_payouts_idem",
        "payouts (publisher_id, idempotency_key)",
    ),
    ("idx_payouts_run", "payouts (run_id, publisher_id)"),
    (
        "idx_payouts_one_open",
        "payouts (publisher_id) WHERE status IN ('REQUESTED', 'APPROVED')",
    ),
    ("idx_payout_runs_period", "payout_runs (period)"),
];

const PLAIN: [crate::PlainIndex; 2] = [
    ("idx_payouts_status", "payouts", &["status", "created_at"]),
    (
        "idx_payouts_publisher",
        "payouts",
        &["publisher_id", "created_at"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new("payout_profiles"))
                .col(string(Alias::new("account_id")).primary_key())
                .col(string(Alias::new("legal_name")))
                .col(string(Alias::new("country")))
                .col(string(Alias::new("method")))
                .col(text(Alias::new("details_sealed")))
                .col(string(Alias::new("details_hint")))
                .col(timestamp_with_time_zone(Alias::new("updated_at")))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Alias::new("payouts"))
                .col(string(Alias::new("id")).primary_key())
                .col(string(Alias::new("publisher_id")))
                .col(string_null(Alias::new("run_id")))
                .col(string(Alias::new("status")))
                .col(big_integer(Alias::new("amount_micros")))
                .col(string(Alias::new("currency")))
                .col(string(Alias::new("legal_name")))
                .col(string(Alias::new("country")))
                .col(string(Alias::new("method")))
                .col(text(Alias::new("details_sealed")))
                .col(string(Alias::new("details_hint")))
                .col(string_null(Alias::new("idempotency_key")))
                .col(string_null(Alias::new("external_reference")))
                .col(text_null(Alias::new("reason")))
                .col(string(Alias::new("requested_by")))
                .col(string_null(Alias::new("decided_by")))
                .col(timestamp_with_time_zone(Alias::new("created_at")))
                .col(timestamp_with_time_zone_null(Alias::new("approved_at")))
                .col(timestamp_with_time_zone_null(Alias::new("paid_at")))
                .col(timestamp_with_time_zone_null(Alias::new("closed_at")))
                .col(timestamp_with_time_zone(Alias::new("updated_at")))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Alias::new("payout_runs"))
                .col(string(Alias::new("id")).primary_key())
                .col(string(Alias::new("period")))
                .col(string(Alias::new("created_by")))
                .col(timestamp_with_time_zone(Alias::new("created_at")))
                .col(integer(Alias::new("created_count")))
                .col(integer(Alias::new("skipped_count")))
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        for (name, on) in UNIQUE {
            db.execute_unprepared(&format!("CREATE UNIQUE INDEX {name} ON {on}"))
                .await?;
        }
        crate::create_indexes(m, &PLAIN).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(m, &PLAIN).await?;
        let db = m.get_connection();
        for (name, _) in UNIQUE {
            db.execute_unprepared(&format!("DROP INDEX {name}")).await?;
        }
        for t in ["payout_runs", "payouts", "payout_profiles"] {
            m.drop_table(Table::drop().table(Alias::new(t)).to_owned())
                .await?;
        }
        Ok(())
    }
}
