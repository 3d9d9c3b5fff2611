//! Browser sessions are keyed by the SHA-256 of their id from now on, so the rows keyed by
//! raw ids are dropped (their users sign in once more). Survey campaigns gain a `revision`
//! that every edit increments, so an administrator's approval can name what was reviewed.
use crate::kit::*;

migration!("m0011_hashed_sessions_survey_revision");

#[derive(DeriveIden)]
enum SurveyCampaigns {
    Table,
    Revision,
}

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.get_connection()
        .execute_unprepared("DELETE FROM web_sessions")
        .await?;
    m.alter_table(
        Table::alter()
            .table(SurveyCampaigns::Table)
            .add_column(
                ColumnDef::new(SurveyCampaigns::Revision)
                    .big_integer()
                    .not_null()
                    .default(1),
            )
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(SurveyCampaigns::Table)
            .drop_column(SurveyCampaigns::Revision)
            .to_owned(),
    )
    .await
}
