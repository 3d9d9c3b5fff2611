//! The version row other processes poll on SQLite to learn that a cached row changed
//! (app::domain::changes; PostgreSQL uses `NOTIFY` and never reads it).

use crate::kit::*;
use sea_orm_migration::schema::{big_integer, integer};

migration!("m0022_cache_changes");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("cache_changes"))
            .col(integer(t("id")).primary_key())
            .col(big_integer(t("version")).default(0))
            .to_owned(),
    )
    .await?;
    m.exec_stmt(
        Query::insert()
            .into_table(t("cache_changes"))
            .columns([t("id"), t("version")])
            .values_panic([1.into(), 0.into()])
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.drop_table(Table::drop().table(t("cache_changes")).to_owned())
        .await
}
