//! One paid survey transaction per respondent and campaign: "already entered" was checked
//! and then inserted without a lock, so parallel opens of one SurveyUrl made several
//! transactions, each payable. The database now refuses a second real entry (test entries
//! aside); the opener that loses the race answers with the winner's transaction. Creating
//! the index fails if a database already holds duplicates: list them with
//! `SELECT campaign_id, respondent_id, COUNT(*) FROM survey_entries WHERE test = false
//! GROUP BY 1, 2 HAVING COUNT(*) > 1` and keep one entry each before migrating.

use crate::kit::*;

migration!("m0018_one_survey_entry");

/// The same statement on SQLite and PostgreSQL (both support partial unique indexes).
const UNIQUE: &str = "CREATE UNIQUE INDEX idx_survey_entries_one_per_respondent \
     ON survey_entries (campaign_id, respondent_id) WHERE test = false";

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.get_connection().execute_unprepared(UNIQUE).await?;
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.get_connection()
        .execute_unprepared("DROP INDEX idx_survey_entries_one_per_respondent")
        .await?;
    Ok(())
}
