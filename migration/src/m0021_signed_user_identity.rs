//! Signed user identity: a placement may hold a secret its server signs `externalUserId`
//! with (sealed, like the other secrets), and may require that signature before a session
//! sees the user's support history and reward history. Each session records whether its
//! user was signed.

use crate::kit::*;
use sea_orm_migration::schema::{
    boolean, string, string_null, timestamp_with_time_zone, timestamp_with_time_zone_null,
};

migration!("m0021_signed_user_identity");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("placement_user_identities"))
            .col(string(t("placement_id")).primary_key())
            .col(string_null(t("secret_sealed")))
            .col(boolean(t("required")).default(false))
            .col(timestamp_with_time_zone_null(t("issued_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    add_column(
        m,
        "sdk_sessions",
        boolean(t("user_verified")).default(false),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_column(m, "sdk_sessions", "user_verified").await?;
    m.drop_table(
        Table::drop()
            .table(t("placement_user_identities"))
            .to_owned(),
    )
    .await
}
