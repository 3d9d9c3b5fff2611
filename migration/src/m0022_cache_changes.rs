//! The version row other processes poll on SQLite to learn that a cached row changed
//! (app::domain::changes; PostgreSQL uses `NOTIFY` and never reads it).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{big_integer, integer};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0022_cache_changes"
    }
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.create_table(
            Table::create()
                .table(Alias::new("cache_changes"))
                .col(integer(Alias::new("id")).primary_key())
                .col(big_integer(Alias::new("version")).default(0))
                .to_owned(),
        )
        .await?;
        m.exec_stmt(
            Query::insert()
                .into_table(Alias::new("cache_changes"))
                .columns([Alias::new("id"), Alias::new("version")])
                .values_panic([1.into(), 0.into()])
                .to_owned(),
        )
        .await
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        m.drop_table(Table::drop().table(Alias::new("cache_changes")).to_owned())
            .await
    }
}
