//! Monthly invoices, derived from the ledger on read so they can never disagree with it:
//! one line per credited funding and one per campaign's spend in the month. The database
//! sums the entries (grouped per month and campaign), so a busy advertiser's invoices cost two
//! aggregate queries, not a scan of every transaction.

use std::collections::BTreeMap;

use chrono::{DateTime, Datelike, Utc};
use sea_orm::{DatabaseBackend, FromQueryResult};

use super::{CURRENCY, acting_advertiser};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::billing::*;
use crate::model::money::format_micros;

/// One credited funding: its reference, when it was credited and how much reached AVAILABLE.
#[derive(Debug, FromQueryResult)]
struct FundingRow {
    reference: String,
    created_at: DateTime<Utc>,
    micros: i64,
}

/// One campaign's net spend (spend minus refunds) in one month.
#[derive(Debug, FromQueryResult)]
struct SpendRow {
    period: String,
    reference: String,
    micros: i64,
}

fn month_of(backend: DatabaseBackend, column: &str) -> String {
    crate::domain::sql::prefix_of(backend, column, 7)
}

use crate::domain::sql::statement;
use crate::model::money::Micros;

/// Up to 100 newest monthly invoices of the advertiser.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
) -> Result<InvoiceList, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let backend = ctx.db.get_database_backend();
    let joined = "FROM ledger_entries e \
         JOIN ledger_transactions t ON t.id = e.transaction_id \
         JOIN ledger_accounts a ON a.id = e.ledger_account_id \
         WHERE t.owner_account_id = ? AND a.owner_account_id = ?";
    let fundings = FundingRow::find_by_statement(statement(
        backend,
        &format!(
            "SELECT t.reference_id AS reference, t.created_at AS created_at, \
             CAST(SUM(e.amount_micros) AS BIGINT) AS micros {joined} \
             AND t.kind = 'funding_credit' AND a.kind = 'AVAILABLE' \
             GROUP BY t.id, t.reference_id, t.created_at ORDER BY t.created_at"
        ),
        vec![adv.clone().into(), adv.clone().into()],
    ))
    .all(&ctx.db)
    .await?;
    let month = month_of(backend, "t.created_at");
    let spends = SpendRow::find_by_statement(statement(
        backend,
        &format!(
            "SELECT {month} AS period, t.reference_id AS reference, \
             CAST(SUM(e.amount_micros) AS BIGINT) AS micros {joined} \
             AND t.kind IN ('spend', 'campaign_spend', 'refund') AND a.kind = 'SPENT' \
             GROUP BY {month}, t.reference_id"
        ),
        vec![adv.clone().into(), adv.clone().into()],
    ))
    .all(&ctx.db)
    .await?;
    let now = ctx.now();
    let current = format!("{:04}-{:02}", now.year(), now.month());
    // period → (funding lines, spend per campaign)
    let mut months: BTreeMap<String, (Vec<InvoiceLine>, BTreeMap<String, i64>)> = BTreeMap::new();
    for f in fundings {
        let period = format!("{:04}-{:02}", f.created_at.year(), f.created_at.month());
        months.entry(period).or_default().0.push(InvoiceLine {
            kind: InvoiceLineKind::Funding,
            description: format!("Wallet funding {}", f.created_at.format("%Y-%m-%d")),
            reference: f.reference,
            amount_micros: Micros(f.micros),
            amount: format_micros(f.micros),
        });
    }
    for r in spends {
        *months
            .entry(r.period)
            .or_default()
            .1
            .entry(r.reference)
            .or_default() += r.micros;
    }
    let mut items: Vec<Invoice> =
        months
            .into_iter()
            .map(|(period, (mut lines, spend))| {
                lines.extend(spend.into_iter().filter(|(_, m)| *m != 0).map(
                    |(campaign, micros)| InvoiceLine {
                        kind: InvoiceLineKind::Spend,
                        description: format!("Delivered results, campaign {campaign}"),
                        reference: campaign,
                        amount_micros: Micros(micros),
                        amount: format_micros(micros),
                    },
                ));
                let funded: i64 = lines
                    .iter()
                    .filter(|l| l.kind == InvoiceLineKind::Funding)
                    .map(|l| l.amount_micros.get())
                    .sum();
                let spent: i64 = lines
                    .iter()
                    .filter(|l| l.kind == InvoiceLineKind::Spend)
                    .map(|l| l.amount_micros.get())
                    .sum();
                Invoice {
                    invoice_id: format!(
                        "INV-{}-{}",
                        period.replace('-', ""),
                        &adv.trim_start_matches("acc_")
                            .chars()
                            .rev()
                            .take(8)
                            .collect::<String>()
                    ),
                    advertiser_id: adv.clone(),
                    status: if period == current { "OPEN" } else { "ISSUED" }.to_owned(),
                    period,
                    currency: CURRENCY.to_owned(),
                    funded_micros: Micros(funded),
                    funded: format_micros(funded),
                    spent_micros: Micros(spent),
                    spent: format_micros(spent),
                    lines,
                }
            })
            .collect();
    items.reverse();
    items.truncate(100);
    Ok(InvoiceList { items })
}
