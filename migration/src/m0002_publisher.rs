//! Publisher console: placements, ad slots and their revisions, static keys, reward
//! callback keys, survey app keys, blacklists and user bans.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0002_publisher");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("placements"))
            .col(string(t("id")).primary_key())
            .col(string(t("owner_account_id")))
            .col(string(t("type")))
            .col(string(t("name")))
            .col(string(t("platform_identity")))
            .col(string(t("platform")))
            .col(string_null(t("store_url")))
            .col(string(t("minimum_sdk_version")))
            .col(string_null(t("recommended_sdk_version")))
            .col(boolean(t("require_consent")))
            .col(string(t("status")))
            .col(boolean(t("released")))
            .col(timestamp_with_time_zone_null(t("released_at")))
            .col(string_null(t("review_note")))
            .col(timestamp_with_time_zone_null(t("reviewed_at")))
            .col(string_null(t("callback_url")))
            .col(text(t("privacy_settings")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("archived_at")))
            .foreign_key(&mut fk((t("placements"), "owner_account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_placements_owner",
        "placements",
        &["owner_account_id", "created_at"],
    ))
    .await?;
    m.create_index(idx("idx_placements_status", "placements", &["status"]))
        .await?;

    m.create_table(
        Table::create()
            .table(t("ad_slots"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string(t("name")))
            .col(string(t("type")))
            .col(string(t("state")))
            .col(string(t("currency_name")))
            .col(integer(t("currency_decimals")))
            .col(big_integer(t("rate_numerator_minor_units")))
            .col(big_integer(t("rate_denominator_usd_micros")))
            .col(big_integer(t("minimum_payout_minor_units")))
            .col(string(t("rounding")))
            .col(text(t("design")))
            .col(text(t("exposure")))
            .col(text(t("policy")))
            .col(text(t("offer_delivery")))
            .col(integer(t("configuration_version")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("archived_at")))
            .foreign_key(&mut fk((t("ad_slots"), "placement_id"), "placements"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx("idx_ad_slots_placement", "ad_slots", &["placement_id"]))
        .await?;

    m.create_table(
        Table::create()
            .table(t("ad_slot_revisions"))
            .col(string(t("id")).primary_key())
            .col(string(t("ad_slot_id")))
            .col(integer(t("version")))
            .col(text(t("configuration")))
            .col(string_null(t("actor_account_id")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(&mut fk((t("ad_slot_revisions"), "ad_slot_id"), "ad_slots"))
            .to_owned(),
    )
    .await?;
    m.create_index(
        idx(
            "idx_ad_slot_revisions_slot",
            "ad_slot_revisions",
            &["ad_slot_id", "version"],
        )
        .unique()
        .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("static_keys"))
            .col(string(t("id")).primary_key())
            .col(string(t("ad_slot_id")))
            .col(string_uniq(t("key_hash")))
            .col(string(t("reason")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("deactivated_at")))
            .foreign_key(&mut fk((t("static_keys"), "ad_slot_id"), "ad_slots"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx("idx_static_keys_slot", "static_keys", &["ad_slot_id"]))
        .await?;

    m.create_table(
        Table::create()
            .table(t("callback_keys"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string(t("state")))
            .col(text(t("secret_ciphertext")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("promoted_at")))
            .col(timestamp_with_time_zone_null(t("retired_at")))
            .foreign_key(&mut fk((t("callback_keys"), "placement_id"), "placements"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_callback_keys_placement",
        "callback_keys",
        &["placement_id", "state"],
    ))
    .await?;

    m.create_table(
        Table::create()
            .table(t("app_keys"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string_uniq(t("key_hash")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone_null(t("revoked_at")))
            .foreign_key(&mut fk((t("app_keys"), "placement_id"), "placements"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("blacklists"))
            .col(string(t("id")).primary_key())
            .col(string(t("owner_account_id")))
            .col(string_null(t("placement_id")))
            .col(string(t("kind")))
            .col(string(t("value")))
            .col(string_null(t("reason")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(&mut fk((t("blacklists"), "owner_account_id"), "accounts"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_blacklists_owner",
        "blacklists",
        &["owner_account_id"],
    ))
    .await?;

    m.create_table(
        Table::create()
            .table(t("user_bans"))
            .col(string(t("id")).primary_key())
            .col(string(t("owner_account_id")))
            .col(string(t("placement_id")))
            .col(string(t("external_user_id")))
            .col(string(t("reason")))
            .col(string(t("status")))
            .col(timestamp_with_time_zone_null(t("expires_at")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(&mut fk((t("user_bans"), "placement_id"), "placements"))
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_user_bans_user",
        "user_bans",
        &["placement_id", "external_user_id"],
    ))
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(
        m,
        &[
            "user_bans",
            "blacklists",
            "app_keys",
            "callback_keys",
            "static_keys",
            "ad_slot_revisions",
            "ad_slots",
            "placements",
        ],
    )
    .await
}
