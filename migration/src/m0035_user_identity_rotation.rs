//! Signed user identity that ends (issue 52): a session remembers until when its user's
//! signature holds and which secret signed it, so it stops counting as verified past the
//! signature's expiry (a refresh no longer carries it on) and once the secret that signed
//! it is rotated out; a rotation keeps the previous secret for an overlap so the
//! publisher's servers can switch without refusing their users.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{string_null, timestamp_with_time_zone_null};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0035_user_identity_rotation"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one at a time.
        for column in ["user_verified_until", "user_secret_issued_at"] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("sdk_sessions"))
                    .add_column(timestamp_with_time_zone_null(Alias::new(column)))
                    .to_owned(),
            )
            .await?;
        }
        m.alter_table(
            Table::alter()
                .table(Alias::new("placement_user_identities"))
                .add_column(string_null(Alias::new("previous_secret_sealed")))
                .to_owned(),
        )
        .await?;
        for column in ["previous_issued_at", "previous_until"] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("placement_user_identities"))
                    .add_column(timestamp_with_time_zone_null(Alias::new(column)))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            "previous_secret_sealed",
            "previous_issued_at",
            "previous_until",
        ] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("placement_user_identities"))
                    .drop_column(Alias::new(column))
                    .to_owned(),
            )
            .await?;
        }
        for column in ["user_verified_until", "user_secret_issued_at"] {
            m.alter_table(
                Table::alter()
                    .table(Alias::new("sdk_sessions"))
                    .drop_column(Alias::new(column))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
