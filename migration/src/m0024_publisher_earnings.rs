//! Publisher earnings in the ledger (issue 34): each paid conversion records whose earnings
//! it made and where they stand (PENDING in the hold, AVAILABLE after it, REVERSED), and an
//! administrator may set a publisher's hold and minimum payout. The partial indexes cover
//! only the conversions still in the hold, so they stay small however large the table grows.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer_null, integer_null, string, string_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0024_publisher_earnings"
    }
}

const PARTIAL_INDEXES: [(&str, &str); 2] = [
    (
        "idx_conversions_earnings_due",
        "conversions (earnings_at) WHERE earnings_state = 'PENDING'",
    ),
    (
        "idx_conversions_publisher_pending",
        "conversions (publisher_id, earnings_at) WHERE earnings_state = 'PENDING'",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one column at a time.
        for col in [
            string_null(Alias::new("publisher_id")),
            string_null(Alias::new("earnings_state")),
            timestamp_with_time_zone_null(Alias::new("earnings_at")),
            timestamp_with_time_zone_null(Alias::new("reversed_at")),
        ] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("conversions"))
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        m.create_table(
            Table::create()
                .table(Alias::new("publisher_earning_terms"))
                .col(string(Alias::new("account_id")).primary_key())
                .col(integer_null(Alias::new("hold_days")))
                .col(big_integer_null(Alias::new("minimum_payout_micros")))
                .col(string(Alias::new("updated_by")))
                .col(timestamp_with_time_zone(Alias::new("updated_at")))
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        for (name, on) in PARTIAL_INDEXES {
            db.execute_unprepared(&format!("CREATE INDEX {name} ON {on}"))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        for (name, _) in PARTIAL_INDEXES {
            db.execute_unprepared(&format!("DROP INDEX {name}")).await?;
        }
        m.drop_table(
            Table::drop()
                .table(Alias::new("publisher_earning_terms"))
                .to_owned(),
        )
        .await?;
        for col in [
            "reversed_at",
            "earnings_at",
            "earnings_state",
            "publisher_id",
        ] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("conversions"))
                    .drop_column(Alias::new(col))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
