//! Two rules the database now keeps:
//! - A closed survey keeps paying the completes that were in the field: `closed_at` records
//!   when it closed, so the reservation kept for open entries is released once the grace
//!   period after it has passed (`app::domain::surveys::grace`).
//! - One active static feed key per slot and one app key per placement, as for the other
//!   keys (m0010): concurrent issuers could otherwise leave two working keys behind. Creating
//!   the indexes fails if a database already holds two active keys of one slot or placement;
//!   deactivate the older one first.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::timestamp_with_time_zone_null;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0020_survey_grace_one_feed_key"
    }
}

const INDEXES: [(&str, &str); 2] = [
    (
        "idx_static_keys_active",
        "static_keys (ad_slot_id) WHERE deactivated_at IS NULL",
    ),
    (
        "idx_app_keys_active",
        "app_keys (placement_id) WHERE revoked_at IS NULL",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new("survey_campaigns"))
                .add_column(timestamp_with_time_zone_null(Alias::new("closed_at")))
                .to_owned(),
        )
        .await?;
        let db = m.get_connection();
        for (name, on) in INDEXES {
            db.execute_unprepared(&format!("CREATE UNIQUE INDEX {name} ON {on}"))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        let db = m.get_connection();
        for (name, _) in INDEXES {
            db.execute_unprepared(&format!("DROP INDEX {name}")).await?;
        }
        m.alter_table(
            Table::alter()
                .table(Alias::new("survey_campaigns"))
                .drop_column(Alias::new("closed_at"))
                .to_owned(),
        )
        .await
    }
}
