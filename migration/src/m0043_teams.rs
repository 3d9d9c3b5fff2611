//! Teams (issue 54, part 3): an account is an organisation and each person who signs in to
//! it is a row of `accounts` of its own. The row that registered is the organisation
//! (`organisation_id` null); a member's row names it. Every person has a team role (the
//! registering person starts OWNER). Invitations go out by e-mail as a single-use link of
//! which only the SHA-256 is kept.

use crate::kit::*;
use sea_orm_migration::schema::{
    string, string_null, timestamp_with_time_zone, timestamp_with_time_zone_null,
};

migration!("m0043_teams");

const TABLE: &str = "invitations";
const UNIQUE: SqlIndex = ("idx_invitations_hash", "invitations (token_hash)");
const INDEXES: [crate::PlainIndex; 2] = [
    (
        "idx_accounts_organisation",
        "accounts",
        &["organisation_id"],
    ),
    (
        "idx_invitations_account",
        "invitations",
        &["account_id", "created_at"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(m, "accounts", string_null(t("organisation_id"))).await?;
    add_column(
        m,
        "accounts",
        string(t("team_role")).default("OWNER".to_owned()),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("email")))
            .col(string(t("team_role")))
            .col(string(t("token_hash")))
            .col(string(t("invited_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("accepted_at")))
            .col(timestamp_with_time_zone_null(t("revoked_at")))
            .foreign_key(&mut fk((t(TABLE), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    create_unique_sql_indexes(m, &[UNIQUE]).await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_sql_indexes(m, &[UNIQUE]).await?;
    drop_tables(m, &[TABLE]).await?;
    drop_column(m, "accounts", "team_role").await?;
    drop_column(m, "accounts", "organisation_id").await
}
