//! Schema migrations. Each file is one step; never edit a released step, add a new one.
pub use sea_orm_migration::prelude::*;

mod kit;
mod m0001_foundation;
mod m0002_publisher;
mod m0003_support_cases;
mod m0004_billing;
mod m0005_offer_campaigns;
mod m0006_survey_campaigns;
mod m0007_delivery;
mod m0008_callback_delivery;
mod m0009_sandbox_callbacks;
mod m0010_one_active_key;
mod m0011_hashed_sessions_survey_revision;
mod m0012_survey_marketplace;
mod m0013_delivery_indexes;
mod m0014_support_evidence;
mod m0015_postback_inbox;
mod m0016_callback_receivers;
mod m0017_survey_numbers;
mod m0018_one_survey_entry;
mod m0019_survey_signature_uses;
mod m0020_survey_grace_one_feed_key;
mod m0021_signed_user_identity;
mod m0022_cache_changes;
mod m0023_survey_entries_by_respondent;
mod m0024_publisher_earnings;
mod m0025_payouts;
mod m0026_conversions_by_advertiser;
mod m0027_reconciliation;
mod m0028_ledger_entries_by_account_time;
mod m0029_drop_ledger_entries_account;
mod m0030_idempotent_requests;
mod m0031_session_language;
mod m0032_fraud_controls;
mod m0033_fraud_indexes;
mod m0034_publisher_reserve;
mod m0035_user_identity_rotation;
mod m0036_payout_run_jobs;
mod m0037_drop_duplicate_index;
mod m0038_mail_outbox;
mod m0039_password_resets;
mod m0040_api_keys;
mod m0041_second_factors;
mod m0042_session_accounts;
mod m0043_teams;
mod m0044_email_links;
mod m0045_notices;
mod m0046_payout_second_approval;
mod m0047_funding_returns;
mod m0048_payout_batches;

/// All migrations in order.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m0001_foundation::Migration),
            Box::new(m0002_publisher::Migration),
            Box::new(m0003_support_cases::Migration),
            Box::new(m0004_billing::Migration),
            Box::new(m0005_offer_campaigns::Migration),
            Box::new(m0006_survey_campaigns::Migration),
            Box::new(m0007_delivery::Migration),
            Box::new(m0008_callback_delivery::Migration),
            Box::new(m0009_sandbox_callbacks::Migration),
            Box::new(m0010_one_active_key::Migration),
            Box::new(m0011_hashed_sessions_survey_revision::Migration),
            Box::new(m0012_survey_marketplace::Migration),
            Box::new(m0013_delivery_indexes::Migration),
            Box::new(m0014_support_evidence::Migration),
            Box::new(m0015_postback_inbox::Migration),
            Box::new(m0016_callback_receivers::Migration),
            Box::new(m0017_survey_numbers::Migration),
            Box::new(m0018_one_survey_entry::Migration),
            Box::new(m0019_survey_signature_uses::Migration),
            Box::new(m0020_survey_grace_one_feed_key::Migration),
            Box::new(m0021_signed_user_identity::Migration),
            Box::new(m0022_cache_changes::Migration),
            Box::new(m0023_survey_entries_by_respondent::Migration),
            Box::new(m0024_publisher_earnings::Migration),
            Box::new(m0025_payouts::Migration),
            Box::new(m0026_conversions_by_advertiser::Migration),
            Box::new(m0027_reconciliation::Migration),
            Box::new(m0028_ledger_entries_by_account_time::Migration),
            Box::new(m0029_drop_ledger_entries_account::Migration),
            Box::new(m0030_idempotent_requests::Migration),
            Box::new(m0031_session_language::Migration),
            Box::new(m0032_fraud_controls::Migration),
            Box::new(m0033_fraud_indexes::Migration),
            Box::new(m0034_publisher_reserve::Migration),
            Box::new(m0035_user_identity_rotation::Migration),
            Box::new(m0036_payout_run_jobs::Migration),
            Box::new(m0037_drop_duplicate_index::Migration),
            Box::new(m0038_mail_outbox::Migration),
            Box::new(m0039_password_resets::Migration),
            Box::new(m0040_api_keys::Migration),
            Box::new(m0041_second_factors::Migration),
            Box::new(m0042_session_accounts::Migration),
            Box::new(m0043_teams::Migration),
            Box::new(m0044_email_links::Migration),
            Box::new(m0045_notices::Migration),
            Box::new(m0046_payout_second_approval::Migration),
            Box::new(m0047_funding_returns::Migration),
            Box::new(m0048_payout_batches::Migration),
        ]
    }
}

/// A plain index: name, table and columns.
pub type PlainIndex = (&'static str, &'static str, &'static [&'static str]);

/// Creates plain (non-unique) indexes.
pub(crate) async fn create_indexes(
    m: &SchemaManager<'_>,
    list: &[PlainIndex],
) -> Result<(), DbErr> {
    for (name, table, cols) in list {
        let mut i = Index::create();
        i.name(*name).table(Alias::new(*table));
        for c in *cols {
            i.col(Alias::new(*c));
        }
        m.create_index(i.to_owned()).await?;
    }
    Ok(())
}

/// Drops indexes made by [`create_indexes`].
pub(crate) async fn drop_indexes(m: &SchemaManager<'_>, list: &[PlainIndex]) -> Result<(), DbErr> {
    for (name, table, _) in list {
        m.drop_index(
            Index::drop()
                .name(*name)
                .table(Alias::new(*table))
                .to_owned(),
        )
        .await?;
    }
    Ok(())
}

/// Drops an index a failed `CONCURRENTLY` build left invalid (PostgreSQL), which `IF NOT
/// EXISTS` would otherwise keep.
async fn drop_invalid(db: &SchemaManagerConnection<'_>, name: &str) -> Result<(), DbErr> {
    db.execute_unprepared(&format!(
        "DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
         WHERE c.relname = '{name}' AND NOT i.indisvalid) THEN EXECUTE 'DROP INDEX \"{name}\"'; END IF; END $$"
    ))
    .await?;
    Ok(())
}

/// Like [`create_indexes_concurrently`] for indexes given as `(name, "(columns) WHERE
/// condition")` on `table`: partial (and covering) indexes, built without blocking writes on
/// PostgreSQL, an invalid leftover of a failed build dropped first.
pub async fn create_partial_indexes_concurrently(
    m: &SchemaManager<'_>,
    table: &str,
    list: &[(&str, &str)],
) -> Result<(), DbErr> {
    let db = m.get_connection();
    let postgres = m.get_database_backend() == sea_orm_migration::sea_orm::DbBackend::Postgres;
    for (name, spec) in list {
        if postgres {
            drop_invalid(db, name).await?;
        }
        let concurrently = if postgres { "CONCURRENTLY " } else { "" };
        db.execute_unprepared(&format!(
            "CREATE INDEX {concurrently}IF NOT EXISTS \"{name}\" ON \"{table}\" {spec}"
        ))
        .await?;
    }
    Ok(())
}

/// Creates plain indexes on tables that may already be large, without blocking writes: on
/// PostgreSQL `CREATE INDEX CONCURRENTLY IF NOT EXISTS` (the table stays writable while the
/// index builds), elsewhere a plain `CREATE INDEX IF NOT EXISTS`.
///
/// The rule for new indexes on tables that grow with traffic (conversions, clicks,
/// impressions, sessions, deliveries, survey entries, ledger lines): put them in a migration
/// of their own whose `use_transaction` answers `Some(false)` (PostgreSQL refuses
/// `CONCURRENTLY` inside a transaction) and create them with this. A build that failed half
/// way leaves an invalid index, which `IF NOT EXISTS` would keep: it is dropped first.
pub async fn create_indexes_concurrently(
    m: &SchemaManager<'_>,
    list: &[PlainIndex],
) -> Result<(), DbErr> {
    let db = m.get_connection();
    for (name, table, cols) in list {
        let cols = cols
            .iter()
            .map(|c| format!("\"{c}\""))
            .collect::<Vec<_>>()
            .join(", ");
        if m.get_database_backend() == sea_orm_migration::sea_orm::DbBackend::Postgres {
            drop_invalid(db, name).await?;
            db.execute_unprepared(&format!(
                "CREATE INDEX CONCURRENTLY IF NOT EXISTS \"{name}\" ON \"{table}\" ({cols})"
            ))
            .await?;
        } else {
            db.execute_unprepared(&format!(
                "CREATE INDEX IF NOT EXISTS \"{name}\" ON \"{table}\" ({cols})"
            ))
            .await?;
        }
    }
    Ok(())
}
