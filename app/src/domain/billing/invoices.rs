//! Monthly invoices, derived from the ledger on read so they can never disagree with it:
//! one line per credited funding and one per campaign's spend in the month.

use std::collections::BTreeMap;

use chrono::Datelike;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use super::{CURRENCY, acting_advertiser};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::billing::*;
use crate::model::money::format_micros;
use entity::{ledger_account, ledger_entry, ledger_transaction};

/// Up to 100 newest monthly invoices of the advertiser.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
) -> Result<InvoiceList, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let accounts = ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(adv.clone()))
        .all(&ctx.db)
        .await?;
    let available: Vec<&str> = accounts
        .iter()
        .filter(|a| a.kind == "AVAILABLE")
        .map(|a| a.id.as_str())
        .collect();
    let spent: Vec<&str> = accounts
        .iter()
        .filter(|a| a.kind == "SPENT")
        .map(|a| a.id.as_str())
        .collect();
    let txs = ledger_transaction::Entity::find()
        .filter(ledger_transaction::Column::OwnerAccountId.eq(adv.clone()))
        .filter(ledger_transaction::Column::Kind.is_in([
            "funding_credit",
            "spend",
            "campaign_spend",
            "refund",
        ]))
        .order_by_asc(ledger_transaction::Column::CreatedAt)
        .all(&ctx.db)
        .await?;
    let ids: Vec<String> = txs.iter().map(|t| t.id.clone()).collect();
    let entries = if ids.is_empty() {
        Vec::new()
    } else {
        ledger_entry::Entity::find()
            .filter(ledger_entry::Column::TransactionId.is_in(ids))
            .all(&ctx.db)
            .await?
    };
    let now = ctx.now();
    let current = format!("{:04}-{:02}", now.year(), now.month());
    // period → (funding lines, spend per campaign)
    let mut months: BTreeMap<String, (Vec<InvoiceLine>, BTreeMap<String, i64>)> = BTreeMap::new();
    for t in &txs {
        let period = format!("{:04}-{:02}", t.created_at.year(), t.created_at.month());
        let month = months.entry(period).or_default();
        let amount_in = |accs: &[&str]| {
            entries
                .iter()
                .filter(|e| {
                    e.transaction_id == t.id && accs.contains(&e.ledger_account_id.as_str())
                })
                .map(|e| e.amount_micros)
                .sum::<i64>()
        };
        match t.kind.as_str() {
            "funding_credit" => {
                let micros = amount_in(&available);
                month.0.push(InvoiceLine {
                    kind: "FUNDING".to_owned(),
                    description: format!("Wallet funding {}", t.created_at.format("%Y-%m-%d")),
                    reference: t.reference_id.clone(),
                    amount_micros: micros,
                    amount: format_micros(micros),
                });
            }
            _ => *month.1.entry(t.reference_id.clone()).or_default() += amount_in(&spent),
        }
    }
    let mut items: Vec<Invoice> =
        months
            .into_iter()
            .map(|(period, (mut lines, spend))| {
                lines.extend(spend.into_iter().filter(|(_, m)| *m != 0).map(
                    |(campaign, micros)| InvoiceLine {
                        kind: "SPEND".to_owned(),
                        description: format!("Delivered results, campaign {campaign}"),
                        reference: campaign,
                        amount_micros: micros,
                        amount: format_micros(micros),
                    },
                ));
                let funded: i64 = lines
                    .iter()
                    .filter(|l| l.kind == "FUNDING")
                    .map(|l| l.amount_micros)
                    .sum();
                let spent: i64 = lines
                    .iter()
                    .filter(|l| l.kind == "SPEND")
                    .map(|l| l.amount_micros)
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
                    funded_micros: funded,
                    funded: format_micros(funded),
                    spent_micros: spent,
                    spent: format_micros(spent),
                    lines,
                }
            })
            .collect();
    items.reverse();
    items.truncate(100);
    Ok(InvoiceList { items })
}
