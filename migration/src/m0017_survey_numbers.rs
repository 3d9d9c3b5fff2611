//! The specification gives a survey's `length_of_interview` (minutes) and `conversion`
//! (percent) as numbers, so `7.5` must be accepted. They are kept as whole hundredths (no
//! binary fractions stored or compared; the API reads and writes JSON numbers): the columns
//! are renamed to say so and their whole values scaled.

use crate::kit::*;

migration!("m0017_survey_numbers");

/// (old name, new name) of the scaled columns.
const COLUMNS: [SqlIndex; 2] = [
    ("length_of_interview", "loi_hundredths"),
    ("conversion", "conversion_hundredths"),
];

async fn rename(m: &SchemaManager<'_>, from: &str, to: &str) -> Result<(), DbErr> {
    m.alter_table(
        Table::alter()
            .table(t("survey_campaigns"))
            .rename_column(t(from), t(to))
            .to_owned(),
    )
    .await
}

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
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

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
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
