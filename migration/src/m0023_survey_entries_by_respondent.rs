//! The survey fetch reads the surveys a respondent entered by respondent (issue 31); the
//! existing indexes of `survey_entries` lead with the campaign.

use crate::kit::*;

migration!("m0023_survey_entries_by_respondent");

const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_survey_entries_by_respondent",
    "survey_entries",
    &["respondent_id"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await
}
