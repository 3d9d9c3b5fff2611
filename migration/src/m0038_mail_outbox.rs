//! The mail outbox (issue 54, part 1): a mail is a row written in the transaction of the
//! event it tells of, so a change that rolled back sends nothing and a mail server that is
//! down loses nothing; the mail worker sends due rows with a lease and retries with backoff.

use crate::kit::*;
use sea_orm_migration::schema::{
    integer, string, string_null, text, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0038_mail_outbox");

const TABLE: &str = "mail_outbox";
const INDEXES: [crate::PlainIndex; 2] = [
    // The worker's claim: unsent mail in due order.
    (
        "idx_mail_outbox_due",
        "mail_outbox",
        &["status", "next_attempt_at"],
    ),
    // The operators' list, newest first.
    ("idx_mail_outbox_created", "mail_outbox", &["created_at"]),
];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string_null(t("account_id")))
            .col(string(t("to_address")))
            .col(string(t("topic")))
            .col(string(t("subject")))
            .col(text(t("body_sealed")))
            .col(string(t("status")))
            .col(integer(t("attempts")))
            .col(timestamp_with_time_zone(t("next_attempt_at")))
            .col(string_null(t("lease_owner")))
            .col(timestamp_with_time_zone_null(t("lease_until")))
            .col(text_null(t("last_error")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("sent_at")))
            .to_owned(),
    )
    .await?;
    crate::create_indexes(m, &INDEXES).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &INDEXES).await?;
    drop_tables(m, &[TABLE]).await
}
