//! Delivery: SDK sessions, impressions and launches (clicks), the conversion postback inbox,
//! settled conversions and the reward-callback outbox.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0007_delivery");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("sdk_sessions"))
            .col(string(t("id")).primary_key())
            .col(string_uniq(t("token_hash")))
            .col(string(t("placement_id")))
            .col(string_null(t("ad_slot_id")))
            .col(string(t("external_user_id")))
            .col(string(t("platform")))
            .col(string(t("sdk_version")))
            .col(string(t("package_bundle_or_domain")))
            .col(string(t("environment")))
            .col(string(t("consent")))
            .col(string_null(t("att_status")))
            .col(timestamp_with_time_zone(t("issued_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("revoked_at")))
            .col(string_null(t("replaced_by")))
            .col(string_null(t("refresh_key")))
            .col(text_null(t("sealed_token")))
            .col(string_null(t("revoke_key")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("sdk_sessions"), t("placement_id"))
                    .to(t("placements"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(idx(
        "idx_sdk_sessions_user",
        "sdk_sessions",
        &["placement_id", "external_user_id"],
    ))
    .await?;
    // A retried SDK support request finds the case it opened.
    m.create_index(unique_idx(
        "idx_support_cases_idempotency",
        "support_cases",
        &["placement_id", "external_user_id", "idempotency_key"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("sdk_impressions"))
            .col(string(t("id")).primary_key())
            .col(string(t("session_id")))
            .col(string(t("placement_id")))
            .col(string(t("ad_slot_id")))
            .col(string(t("campaign_id")))
            .col(string(t("external_user_id")))
            .col(string(t("idempotency_key")))
            .col(boolean(t("duplicate")))
            .col(timestamp_with_time_zone(t("recorded_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(unique_idx(
        "idx_sdk_impressions_key",
        "sdk_impressions",
        &["session_id", "idempotency_key"],
    ))
    .await?;
    m.create_index(idx(
        "idx_sdk_impressions_report",
        "sdk_impressions",
        &["placement_id", "recorded_at"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("sdk_launches"))
            .col(string(t("id")).primary_key())
            .col(string_uniq(t("click_id")))
            .col(string(t("session_id")))
            .col(string(t("impression_id")))
            .col(string(t("placement_id")))
            .col(string(t("ad_slot_id")))
            .col(string(t("campaign_id")))
            .col(big_integer(t("campaign_revision")))
            .col(string(t("external_user_id")))
            .col(string(t("idempotency_key")))
            .col(string(t("trace_id")))
            .col(text(t("destination_url")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("expires_at")))
            .col(timestamp_with_time_zone_null(t("opened_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(unique_idx(
        "idx_sdk_launches_key",
        "sdk_launches",
        &["session_id", "idempotency_key"],
    ))
    .await?;
    m.create_index(idx(
        "idx_sdk_launches_report",
        "sdk_launches",
        &["placement_id", "created_at"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("conversions"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("advertiser_id")))
            .col(string(t("transaction_id")))
            .col(string(t("click_id")))
            .col(string(t("goal_id")))
            .col(string(t("status")))
            .col(string(t("settlement")))
            .col(string_null(t("placement_id")))
            .col(string_null(t("ad_slot_id")))
            .col(string_null(t("session_id")))
            .col(string_null(t("external_user_id")))
            .col(big_integer(t("payout_micros")))
            .col(big_integer(t("publisher_earnings_micros")))
            .col(big_integer(t("reward_minor_units")))
            .col(timestamp_with_time_zone(t("occurred_at")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(unique_idx(
        "idx_conversions_transaction",
        "conversions",
        &["campaign_id", "transaction_id"],
    ))
    .await?;
    m.create_index(idx(
        "idx_conversions_report",
        "conversions",
        &["placement_id", "created_at"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("postback_events"))
            .col(string(t("id")).primary_key())
            .col(string(t("campaign_id")))
            .col(string(t("source")))
            .col(string(t("transaction_id")))
            .col(string(t("click_id")))
            .col(string(t("goal_id")))
            .col(string(t("status")))
            .col(string(t("occurred_at")))
            .col(string(t("event_hash")))
            .col(string(t("outcome")))
            .col(string_null(t("conversion_id")))
            .col(timestamp_with_time_zone(t("received_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(unique_idx(
        "idx_postback_events_exact",
        "postback_events",
        &["campaign_id", "event_hash"],
    ))
    .await?;
    m.create_table(
        Table::create()
            .table(t("callback_deliveries"))
            .col(string(t("id")).primary_key())
            .col(string(t("placement_id")))
            .col(string(t("owner_account_id")))
            .col(string(t("conversion_id")))
            .col(string(t("event")))
            .col(text(t("payload")))
            .col(string(t("status")))
            .col(integer(t("attempts")))
            .col(timestamp_with_time_zone(t("next_attempt_at")))
            .col(integer_null(t("last_response_status")))
            .col(text_null(t("last_error")))
            .col(string_null(t("key_id")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("delivered_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(unique_idx(
        "idx_callback_deliveries_event",
        "callback_deliveries",
        &["conversion_id", "event"],
    ))
    .await?;
    m.create_index(idx(
        "idx_callback_deliveries_due",
        "callback_deliveries",
        &["status", "next_attempt_at"],
    ))
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(
        m,
        &[
            "callback_deliveries",
            "postback_events",
            "conversions",
            "sdk_launches",
            "sdk_impressions",
            "sdk_sessions",
        ],
    )
    .await
}
