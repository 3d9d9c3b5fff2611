//! Stored answers of idempotent creating requests (issue 35, part 4): every POST of the
//! dashboard JSON API that carries an `Idempotency-Key` is recorded here per account and
//! key, first as in progress, then with the answer a retry is given again for 24 hours.

use crate::kit::*;
use sea_orm_migration::schema::{
    integer_null, string, string_null, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

migration!("m0030_idempotent_requests");

const TABLE: &str = "idempotent_requests";
const UNIQUE: (&str, &str) = (
    "idx_idempotent_requests_key",
    "idempotent_requests (account_id, idempotency_key)",
);
const PLAIN: [crate::PlainIndex; 1] = [(
    "idx_idempotent_requests_created",
    "idempotent_requests",
    &["created_at"],
)];

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t(TABLE))
            .col(string(t("id")).primary_key())
            .col(string(t("account_id")))
            .col(string(t("idempotency_key")))
            .col(string(t("request_hash")))
            .col(integer_null(t("status_code")))
            .col(string_null(t("content_type")))
            .col(text_null(t("response")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("locked_until")))
            .to_owned(),
    )
    .await?;
    m.get_connection()
        .execute_unprepared(&format!("CREATE UNIQUE INDEX {} ON {}", UNIQUE.0, UNIQUE.1))
        .await?;
    crate::create_indexes(m, &PLAIN).await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    crate::drop_indexes(m, &PLAIN).await?;
    m.get_connection()
        .execute_unprepared(&format!("DROP INDEX {}", UNIQUE.0))
        .await?;
    m.drop_table(Table::drop().table(t(TABLE)).to_owned()).await
}
