//! The survey fetch reads the surveys a respondent entered by respondent (issue 31); the
//! existing indexes of `survey_entries` lead with the campaign.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0023_survey_entries_by_respondent"
    }
}

const INDEXES: [crate::PlainIndex; 1] = [(
    "idx_survey_entries_by_respondent",
    "survey_entries",
    &["respondent_id"],
)];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::create_indexes(m, &INDEXES).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(m, &INDEXES).await
    }
}
