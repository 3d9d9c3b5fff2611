//! The specification gives a survey's `length_of_interview` (minutes) and `conversion`
//! (percent) as numbers, so `7.5` must be accepted. They are kept as whole hundredths (no
//! binary fractions stored or compared; the API reads and writes JSON numbers): the columns
//! are renamed to say so and their whole values scaled.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0017_survey_numbers"
    }
}

/// (old name, new name) of the scaled columns.
const COLUMNS: [(&str, &str); 2] = [
    ("length_of_interview", "loi_hundredths"),
    ("conversion", "conversion_hundredths"),
];

async fn rename(m: &SchemaManager<'_>, from: &str, to: &str) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(Alias::new("survey_campaigns"))
            .rename_column(Alias::new(from), Alias::new(to))
            .to_owned(),
    )
    .await
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (old, new) in COLUMNS {
            rename(m, old, new).await?;
            m.get_connection()
                .execute_unprepared(&format!(
                    "UPDATE survey_campaigns SET {new} = {new} * 100 WHERE {new} IS NOT NULL"
                ))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (old, new) in COLUMNS {
            m.get_connection()
                .execute_unprepared(&format!(
                    "UPDATE survey_campaigns SET {new} = {new} / 100 WHERE {new} IS NOT NULL"
                ))
                .await?;
            rename(m, new, old).await?;
        }
        Ok(())
    }
}
