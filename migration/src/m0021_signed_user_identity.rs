//! Signed user identity: a placement may hold a secret its server signs `externalUserId`
//! with (sealed, like the other secrets), and may require that signature before a session
//! sees the user's support history and reward history. Each session records whether its
//! user was signed.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    boolean, string, string_null, timestamp_with_time_zone, timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0021_signed_user_identity"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new("placement_user_identities"))
                .col(string(Alias::new("placement_id")).primary_key())
                .col(string_null(Alias::new("secret_sealed")))
                .col(boolean(Alias::new("required")).default(false))
                .col(timestamp_with_time_zone_null(Alias::new("issued_at")))
                .col(timestamp_with_time_zone(Alias::new("updated_at")))
                .to_owned(),
        )
        .await?;
        m.alter_table(
            Table::alter()
                .table(Alias::new("sdk_sessions"))
                .add_column(boolean(Alias::new("user_verified")).default(false))
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.alter_table(
            Table::alter()
                .table(Alias::new("sdk_sessions"))
                .drop_column(Alias::new("user_verified"))
                .to_owned(),
        )
        .await?;
        m.drop_table(
            Table::drop()
                .table(Alias::new("placement_user_identities"))
                .to_owned(),
        )
        .await
    }
}
