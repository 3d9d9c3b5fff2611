//! Indexes the delivery hot paths need once a placement has history: a user's counted
//! conversions on a placement (every offer list, single offer, impression and launch), a
//! campaign's approved conversions by day (caps at launch and settlement), and launches by
//! campaign and time (the inventory snapshot's ranking counters).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0013_delivery_indexes"
    }
}

const INDEXES: [(&str, &str, &[&str]); 3] = [
    (
        "idx_conversions_user",
        "conversions",
        &["placement_id", "external_user_id"],
    ),
    (
        "idx_conversions_campaign_settlement",
        "conversions",
        &["campaign_id", "settlement", "created_at"],
    ),
    (
        "idx_sdk_launches_campaign",
        "sdk_launches",
        &["campaign_id", "created_at"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, cols) in INDEXES {
            let mut i = Index::create();
            i.name(name).table(Alias::new(table));
            for c in cols {
                i.col(Alias::new(*c));
            }
            m.create_index(i.to_owned()).await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, _) in INDEXES {
            m.drop_index(Index::drop().name(name).table(Alias::new(table)).to_owned())
                .await?;
        }
        Ok(())
    }
}
