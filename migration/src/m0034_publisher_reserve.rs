//! A rolling reserve on new publishers' earnings (issue 51): a share of each release is held
//! longer (in a PUBLISHER_RESERVE ledger account per due day), so a reversal after a payout
//! is covered by the publisher's own money rather than the platform's. An administrator may
//! set a publisher's share and days (none = the defaults for new publishers).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::integer_null;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0034_publisher_reserve"
    }
}

const COLUMNS: [&str; 2] = ["reserve_percent", "reserve_days"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for c in COLUMNS {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("publisher_earning_terms"))
                    .add_column(integer_null(Alias::new(c)))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for c in COLUMNS {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("publisher_earning_terms"))
                    .drop_column(Alias::new(c))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
