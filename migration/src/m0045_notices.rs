//! Being told (issue 54, part 6): `notices` holds what an organisation was told (one row per
//! event, read by every member on the dashboard; `accounts.notices_seen_at` marks what a
//! member has seen), `notice_preferences` what each member chose to get by e-mail and on the
//! dashboard (a missing row is the role's default), and `account_webhooks` the endpoints an
//! organisation registered for the same events (their deliveries are rows of
//! `callback_deliveries` under the endpoint's id, so the reward-callback worker sends,
//! retries, pauses and logs them; the signing secret is sealed on the endpoint's row). An advertiser's
//! `budget_alert_percent` is the share of a campaign's budget below which it is told (0: off).
//! `callback_receivers.told_failing_at` keeps a failing receiver's owner from being told twice
//! in one failing streak.

use crate::kit::*;
use sea_orm_migration::schema::{
    boolean, integer, string, string_null, text, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0045_notices");

const INDEXES: [crate::PlainIndex; 2] = [
    (
        "idx_notices_account",
        "notices",
        &["account_id", "created_at"],
    ),
    (
        "idx_account_webhooks_account",
        "account_webhooks",
        &["account_id"],
    ),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    add_column(
        m,
        "accounts",
        timestamp_with_time_zone_null(t("notices_seen_at")),
    )
    .await?;
    add_column(
        m,
        "accounts",
        integer(t("budget_alert_percent")).default(20),
    )
    .await?;
    add_column(
        m,
        "callback_receivers",
        timestamp_with_time_zone_null(t("told_failing_at")),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("notices"))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("topic")))
            .col(string(t("title")))
            .col(text(t("body")))
            .col(string(t("link")))
            .col(string_null(t("subject_type")))
            .col(string_null(t("subject_id")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(&mut fk((t("notices"), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("notice_preferences"))
            .col(string(t("account_id")))
            .col(string(t("topic")))
            .col(boolean(t("email")))
            .col(boolean(t("dashboard")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .primary_key(Index::create().col(t("account_id")).col(t("topic")))
            .foreign_key(&mut fk((t("notice_preferences"), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.create_table(
        Table::create()
            .table(t("account_webhooks"))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("url")))
            .col(text(t("topics")))
            .col(string(t("description")))
            .col(text(t("secret_sealed")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("disabled_at")))
            .foreign_key(&mut fk((t("account_webhooks"), "account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_tables(m, &["account_webhooks", "notice_preferences", "notices"]).await?;
    drop_column(m, "callback_receivers", "told_failing_at").await?;
    drop_column(m, "accounts", "budget_alert_percent").await?;
    drop_column(m, "accounts", "notices_seen_at").await
}
