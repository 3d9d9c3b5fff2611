//! Offer campaigns: the campaign, its immutable revisions, its conversion-reporting
//! credentials, and development creatives.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0005_offer_campaigns");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("offer_campaigns"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string(t("status")))
            .col(string(t("name")))
            .col(string(t("tracking_provider")))
            .col(big_integer(t("budget_micros")))
            .col(text(t("config")))
            .col(big_integer(t("revision")))
            .col(big_integer_null(t("live_revision")))
            .col(string_null(t("rejection_reason")))
            .col(big_integer_null(t("mmp_verified_revision")))
            .col(timestamp_with_time_zone_null(t("mmp_verified_at")))
            .col(string_null(t("mmp_verified_by")))
            .col(text(t("ip_allowlist")))
            .col(string_null(t("cloned_from")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("submitted_at")))
            .col(timestamp_with_time_zone_null(t("approved_at")))
            .col(timestamp_with_time_zone_null(t("ended_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("offer_campaigns"), t("advertiser_id"))
                    .to(t("accounts"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_offer_campaigns_owner")
            .table(t("offer_campaigns"))
            .col(t("advertiser_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_offer_campaigns_status")
            .table(t("offer_campaigns"))
            .col(t("status"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("offer_campaign_revisions"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(big_integer(t("revision")))
            .col(text(t("config")))
            .col(string_null(t("created_by")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("offer_campaign_revisions"), t("campaign_id"))
                    .to(t("offer_campaigns"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_offer_campaign_revisions_key")
            .table(t("offer_campaign_revisions"))
            .col(t("campaign_id"))
            .col(t("revision"))
            .unique()
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("campaign_credentials"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("kind")))
            .col(string_uniq(t("key_id")))
            .col(text_null(t("secret_sealed")))
            .col(string_null(t("token_hash")))
            .col(string(t("status")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("retired_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("campaign_credentials"), t("campaign_id"))
                    .to(t("offer_campaigns"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_campaign_credentials_campaign")
            .table(t("campaign_credentials"))
            .col(t("campaign_id"))
            .col(t("kind"))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_campaign_credentials_token")
            .table(t("campaign_credentials"))
            .col(t("token_hash"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("creatives"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string(t("asset_id")))
            .col(string(t("name")))
            .col(string(t("content_type")))
            .col(big_integer(t("size_bytes")))
            .col(string(t("sha256")))
            .col(blob(t("content")))
            .col(timestamp_with_time_zone(t("created_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_creatives_asset")
            .table(t("creatives"))
            .col(t("asset_id"))
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(
        m,
        &[
            "creatives",
            "campaign_credentials",
            "offer_campaign_revisions",
            "offer_campaigns",
        ],
    )
    .await
}
