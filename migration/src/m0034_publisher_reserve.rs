//! A rolling reserve on new publishers' earnings (issue 51): a share of each release is held
//! longer (in a PUBLISHER_RESERVE ledger account per due day), so a reversal after a payout
//! is covered by the publisher's own money rather than the platform's. An administrator may
//! set a publisher's share and days (none = the defaults for new publishers).

use crate::kit::*;
use sea_orm_migration::schema::integer_null;

migration!("m0034_publisher_reserve");

const COLUMNS: [&str; 2] = ["reserve_percent", "reserve_days"];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for c in COLUMNS {
        add_column(m, "publisher_earning_terms", integer_null(t(c))).await?;
    }
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for c in COLUMNS {
        m.alter_table(
            Table::alter()
                .table(t("publisher_earning_terms"))
                .drop_column(t(c))
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}
