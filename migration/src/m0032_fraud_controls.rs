//! Fraud controls on offer conversions (issue 51): what a conversion's click looked like
//! (the address and device it came from, how long after the click it converted), its fraud
//! score and reasons, a hold awaiting a decision (or the end of a web pixel's review
//! window), and who decided it; the click's addresses on launches; the device an SDK
//! session reports; a campaign's web pixel settings and fraud rules; a placement paused for
//! delivery because too many of its conversions were held or reversed.

use crate::kit::*;
use sea_orm_migration::schema::{
    big_integer_null, integer, string_null, text, text_null, timestamp_with_time_zone_null,
};

migration!("m0032_fraud_controls");

/// The columns each table gains (one statement per column: SQLite alters one at a time).
fn columns() -> Vec<(&'static str, ColumnDef)> {
    let text_default = |name: &str| text(t(name)).default("{}").to_owned();
    vec![
        (
            "conversions",
            integer(t("fraud_score")).default(0).to_owned(),
        ),
        ("conversions", text_null(t("fraud_reasons"))),
        ("conversions", timestamp_with_time_zone_null(t("held_at"))),
        (
            "conversions",
            timestamp_with_time_zone_null(t("held_until")),
        ),
        ("conversions", string_null(t("click_ip"))),
        ("conversions", string_null(t("click_network"))),
        ("conversions", string_null(t("device_id"))),
        ("conversions", big_integer_null(t("seconds_to_convert"))),
        ("conversions", string_null(t("decided_by"))),
        (
            "conversions",
            timestamp_with_time_zone_null(t("decided_at")),
        ),
        ("conversions", text_null(t("decision_note"))),
        ("sdk_launches", string_null(t("client_ip"))),
        ("sdk_launches", string_null(t("opened_ip"))),
        ("sdk_launches", string_null(t("device_id"))),
        ("sdk_sessions", string_null(t("device_id"))),
        ("offer_campaigns", text_default("web_pixel")),
        ("offer_campaigns", text_default("fraud_rules")),
        (
            "placements",
            timestamp_with_time_zone_null(t("delivery_paused_at")),
        ),
        ("placements", text_null(t("delivery_paused_reason"))),
        (
            "placements",
            timestamp_with_time_zone_null(t("delivery_resumed_at")),
        ),
    ]
}

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for (table, col) in columns() {
        add_column(m, table, col).await?;
    }
    Ok(())
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    for (table, col) in columns().into_iter().rev() {
        drop_column(m, table, &col.get_column_name()).await?;
    }
    Ok(())
}
