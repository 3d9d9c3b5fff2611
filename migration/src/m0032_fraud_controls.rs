//! Fraud controls on offer conversions (issue 51): what a conversion's click looked like
//! (the address and device it came from, how long after the click it converted), its fraud
//! score and reasons, a hold awaiting a decision (or the end of a web pixel's review
//! window), and who decided it; the click's addresses on launches; the device an SDK
//! session reports; a campaign's web pixel settings and fraud rules; a placement paused for
//! delivery because too many of its conversions were held or reversed.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::{
    big_integer_null, integer, string_null, text, text_null, timestamp_with_time_zone_null,
};

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m0032_fraud_controls"
    }
}

/// The columns each table gains (one statement per column: SQLite alters one at a time).
fn columns() -> Vec<(&'static str, ColumnDef)> {
    let text_default = |name: &str| text(Alias::new(name)).default("{}").to_owned();
    vec![
        (
            "conversions",
            integer(Alias::new("fraud_score")).default(0).to_owned(),
        ),
        ("conversions", text_null(Alias::new("fraud_reasons"))),
        (
            "conversions",
            timestamp_with_time_zone_null(Alias::new("held_at")),
        ),
        (
            "conversions",
            timestamp_with_time_zone_null(Alias::new("held_until")),
        ),
        ("conversions", string_null(Alias::new("click_ip"))),
        ("conversions", string_null(Alias::new("click_network"))),
        ("conversions", string_null(Alias::new("device_id"))),
        (
            "conversions",
            big_integer_null(Alias::new("seconds_to_convert")),
        ),
        ("conversions", string_null(Alias::new("decided_by"))),
        (
            "conversions",
            timestamp_with_time_zone_null(Alias::new("decided_at")),
        ),
        ("conversions", text_null(Alias::new("decision_note"))),
        ("sdk_launches", string_null(Alias::new("client_ip"))),
        ("sdk_launches", string_null(Alias::new("opened_ip"))),
        ("sdk_launches", string_null(Alias::new("device_id"))),
        ("sdk_sessions", string_null(Alias::new("device_id"))),
        ("offer_campaigns", text_default("web_pixel")),
        ("offer_campaigns", text_default("fraud_rules")),
        (
            "placements",
            timestamp_with_time_zone_null(Alias::new("delivery_paused_at")),
        ),
        (
            "placements",
            text_null(Alias::new("delivery_paused_reason")),
        ),
        (
            "placements",
            timestamp_with_time_zone_null(Alias::new("delivery_resumed_at")),
        ),
    ]
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (table, col) in columns() {
            m.alter_table(
                Table::alter()
                    .table(Alias::new(table))
                    .add_column(col)
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, m: &SchemaManager) -> Result<(), DbErr> {
        for (table, col) in columns().into_iter().rev() {
            m.alter_table(
                Table::alter()
                    .table(Alias::new(table))
                    .drop_column(Alias::new(col.get_column_name()))
                    .to_owned(),
            )
            .await?;
        }
        Ok(())
    }
}
