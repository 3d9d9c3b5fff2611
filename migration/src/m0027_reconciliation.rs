//! Bulk reconciliation of conversions by their advertiser (issue 34): a batch of up to
//! 10,000 transaction ids to approve or reverse, previewed when it is created and applied
//! by a worker in small transactions, with one result per line. The same idempotency key
//! answers the same batch.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer, integer, string, string_null, text, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0027_reconciliation"
    }
}

const UNIQUE: [(&str, &str); 2] = [
    (
        "idx_reconciliations_idem",
        "reconciliation_batches (advertiser_id, idempotency_key)",
    ),
    (
        "idx_reconciliation_lines_no",
        "reconciliation_lines (batch_id, line_no)",
    ),
];

const PLAIN: [crate::PlainIndex; 2] = [
    (
        "idx_reconciliations_status",
        "reconciliation_batches",
        &["status", "queued_at"],
    ),
    (
        "idx_reconciliations_advertiser",
        "reconciliation_batches",
        &["advertiser_id", "id"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new("reconciliation_batches"))
                .col(string(Alias::new("id")).primary_key())
                .col(string(Alias::new("advertiser_id")))
                .col(string(Alias::new("idempotency_key")))
                .col(string(Alias::new("action")))
                .col(text(Alias::new("reason")))
                .col(string(Alias::new("status")))
                .col(integer(Alias::new("line_count")))
                .col(string(Alias::new("created_by")))
                .col(timestamp_with_time_zone(Alias::new("created_at")))
                .col(timestamp_with_time_zone_null(Alias::new("queued_at")))
                .col(timestamp_with_time_zone_null(Alias::new("finished_at")))
                .col(string_null(Alias::new("lease_owner")))
                .col(timestamp_with_time_zone_null(Alias::new("lease_until")))
                .to_owned(),
        )
        .await?;
        m.create_table(
            Table::create()
                .table(Alias::new("reconciliation_lines"))
                .col(string(Alias::new("id")).primary_key())
                .col(string(Alias::new("batch_id")))
                .col(integer(Alias::new("line_no")))
                .col(string(Alias::new("transaction_id")))
                .col(string_null(Alias::new("campaign_id")))
                .col(string_null(Alias::new("conversion_id")))
                .col(string(Alias::new("preview")))
                .col(string_null(Alias::new("result")))
                .col(big_integer(Alias::new("payout_micros")))
                .col(timestamp_with_time_zone_null(Alias::new("applied_at")))
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
        for t in ["reconciliation_lines", "reconciliation_batches"] {
            m.drop_table(Table::drop().table(Alias::new(t)).to_owned())
                .await?;
        }
        Ok(())
    }
}
