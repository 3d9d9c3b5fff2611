//! Stored answers of idempotent creating requests (issue 35, part 4): every POST of the
//! dashboard JSON API that carries an `Idempotency-Key` is recorded here per account and
//! key, first as in progress, then with the answer a retry is given again for 24 hours.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    integer_null, string, string_null, text_null, timestamp_with_time_zone,
    timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0030_idempotent_requests"
    }
}

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

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new(TABLE))
                .col(string(Alias::new("id")).primary_key())
                .col(string(Alias::new("account_id")))
                .col(string(Alias::new("idempotency_key")))
                .col(string(Alias::new("request_hash")))
                .col(integer_null(Alias::new("status_code")))
                .col(string_null(Alias::new("content_type")))
                .col(text_null(Alias::new("response")))
                .col(timestamp_with_time_zone(Alias::new("created_at")))
                .col(timestamp_with_time_zone_null(Alias::new("locked_until")))
                .to_owned(),
        )
        .await?;
        m.get_connection()
            .execute_unprepared(&format!("CREATE UNIQUE INDEX {} ON {}", UNIQUE.0, UNIQUE.1))
            .await?;
        crate::create_indexes(m, &PLAIN).await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        crate::drop_indexes(m, &PLAIN).await?;
        m.get_connection()
            .execute_unprepared(&format!("DROP INDEX {}", UNIQUE.0))
            .await?;
        m.drop_table(Table::drop().table(Alias::new(TABLE)).to_owned())
            .await
    }
}
