//! The offerwall in the user's language: a session records the language its app asked for
//! (`lang`, a BCP 47 tag), which the hosted wall prefers over the browser's
//! `Accept-Language`, and which a refresh keeps.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::string_null;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0031_session_language"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new("sdk_sessions"))
                .add_column(string_null(Alias::new("language")))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new("sdk_sessions"))
                .drop_column(Alias::new("language"))
                .to_owned(),
        )
        .await
    }
}
