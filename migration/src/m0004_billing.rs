//! The advertiser wallet: billing profiles, a double-entry ledger (accounts, transactions,
//! entries, all in integer micros), fundings, and the development payment provider's orders.
use crate::kit::*;
use sea_orm_migration::schema::*;

migration!("m0004_billing");

async fn up(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    m.create_table(
        Table::create()
            .table(t("billing_profiles"))
            .col(string(t("account_id")).primary_key())
            .col(string(t("account_type")))
            .col(string(t("legal_name")))
            .col(string(t("country")))
            .col(string_null(t("tax_id")))
            .col(string_null(t("address_line1")))
            .col(string_null(t("city")))
            .col(string_null(t("postal_code")))
            .col(text(t("billing_emails")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("billing_profiles"), t("account_id"))
                    .to(t("accounts"), t("id")),
            )
            .to_owned(),
    )
    .await?;

    // owner "" = the platform; reference "" = none (a campaign id for reservations).
    m.create_table(
        Table::create()
            .table(t("ledger_accounts"))
            .col(string(t("id")).primary_key())
            .col(string(t("owner_account_id")))
            .col(string(t("kind")))
            .col(string(t("reference_id")))
            .col(big_integer(t("balance_micros")))
            .col(timestamp_with_time_zone(t("created_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_ledger_accounts_key")
            .table(t("ledger_accounts"))
            .col(t("owner_account_id"))
            .col(t("kind"))
            .col(t("reference_id"))
            .unique()
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("ledger_transactions"))
            .col(string(t("id")).primary_key())
            .col(string(t("kind")))
            .col(string(t("owner_account_id")))
            .col(string(t("reference_type")))
            .col(string(t("reference_id")))
            .col(string_uniq(t("dedupe_key")))
            .col(string_null(t("memo")))
            .col(timestamp_with_time_zone(t("created_at")))
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_ledger_tx_owner")
            .table(t("ledger_transactions"))
            .col(t("owner_account_id"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("ledger_entries"))
            .col(string(t("id")).primary_key())
            .col(string(t("transaction_id")))
            .col(string(t("ledger_account_id")))
            .col(big_integer(t("amount_micros")))
            .col(timestamp_with_time_zone(t("created_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("ledger_entries"), t("transaction_id"))
                    .to(t("ledger_transactions"), t("id")),
            )
            .foreign_key(
                ForeignKey::create()
                    .from(t("ledger_entries"), t("ledger_account_id"))
                    .to(t("ledger_accounts"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_ledger_entries_account")
            .table(t("ledger_entries"))
            .col(t("ledger_account_id"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("fundings"))
            .col(string(t("id")).primary_key())
            .col(string(t("advertiser_id")))
            .col(string(t("method")))
            .col(string(t("status")))
            .col(big_integer(t("amount_micros")))
            .col(string(t("currency")))
            .col(string_null(t("external_reference")))
            .col(string_null(t("idempotency_key")))
            .col(string_null(t("provider_order_id")))
            .col(string_null(t("reviewed_by")))
            .col(string_null(t("ledger_transaction_id")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .col(timestamp_with_time_zone_null(t("credited_at")))
            .foreign_key(
                ForeignKey::create()
                    .from(t("fundings"), t("advertiser_id"))
                    .to(t("accounts"), t("id")),
            )
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_fundings_wire_ref")
            .table(t("fundings"))
            .col(t("advertiser_id"))
            .col(t("external_reference"))
            .unique()
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_fundings_idem")
            .table(t("fundings"))
            .col(t("advertiser_id"))
            .col(t("idempotency_key"))
            .unique()
            .to_owned(),
    )
    .await?;
    m.create_index(
        Index::create()
            .name("idx_fundings_status")
            .table(t("fundings"))
            .col(t("status"))
            .col(t("created_at"))
            .to_owned(),
    )
    .await?;

    m.create_table(
        Table::create()
            .table(t("payprovider_orders"))
            .col(string(t("id")).primary_key())
            .col(string(t("funding_id")))
            .col(big_integer(t("amount_micros")))
            .col(string(t("currency")))
            .col(string(t("status")))
            .col(timestamp_with_time_zone(t("created_at")))
            .col(timestamp_with_time_zone(t("updated_at")))
            .to_owned(),
    )
    .await
}

async fn down(m: &SchemaManager<'_>) -> Result<(), DbErr> {
    drop_tables(
        m,
        &[
            "payprovider_orders",
            "fundings",
            "ledger_entries",
            "ledger_transactions",
            "ledger_accounts",
            "billing_profiles",
        ],
    )
    .await
}
