//! A browser session names its account in a column (`account_id`, null while signed out),
//! so "where you are signed in" lists an account's sessions with one indexed read instead of
//! opening every session's record.

use crate::kit::*;
use sea_orm_migration::schema::string_null;

migration!("m0042_session_accounts");

const INDEXES: [crate::PlainIndex; 1] =
    [("idx_web_sessions_account", "web_sessions", &["account_id"])];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(m, "web_sessions", string_null(t("account_id"))).await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_column(m, "web_sessions", "account_id").await
}
