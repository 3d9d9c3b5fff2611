//! Signed user identity that ends (issue 52): a session remembers until when its user's
//! signature holds and which secret signed it, so it stops counting as verified past the
//! signature's expiry (a refresh no longer carries it on) and once the secret that signed
//! it is rotated out; a rotation keeps the previous secret for an overlap so the
//! publisher's servers can switch without refusing their users.

use crate::kit::*;
use sea_orm_migration::schema::{string_null, timestamp_with_time_zone_null};

migration!("m0035_user_identity_rotation");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    // One column per statement: SQLite alters one at a time.
    for column in ["user_verified_until", "user_secret_issued_at"] {
        add_column(m, "sdk_sessions", timestamp_with_time_zone_null(t(column))).await?;
    }
    add_column(
        m,
        "placement_user_identities",
        string_null(t("previous_secret_sealed")),
    )
    .await?;
    for column in ["previous_issued_at", "previous_until"] {
        add_column(
            m,
            "placement_user_identities",
            timestamp_with_time_zone_null(t(column)),
        )
        .await?;
    }
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for column in [
        "previous_secret_sealed",
        "previous_issued_at",
        "previous_until",
    ] {
        drop_column(m, "placement_user_identities", column).await?;
    }
    for column in ["user_verified_until", "user_secret_issued_at"] {
        drop_column(m, "sdk_sessions", column).await?;
    }
    Ok(())
}
