//! The offerwall in the user's language: a session records the language its app asked for
//! (`lang`, a BCP 47 tag), which the hosted wall prefers over the browser's
//! `Accept-Language`, and which a refresh keeps.

use crate::kit::*;
use sea_orm_migration::schema::string_null;

migration!("m0031_session_language");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(m, "sdk_sessions", string_null(t("language"))).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_column(m, "sdk_sessions", "language").await
}
