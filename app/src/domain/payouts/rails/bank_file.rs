//! Bank transfers as an ISO 20022 `pain.001.001.03` credit-transfer file (the
//! CustomerCreditTransferInitiation every European bank's portal takes; the schema is in
//! `docs/schemas/`). The operator downloads the file of a batch, uploads it to the platform's
//! bank and confirms the batch with the bank's reference, naming any transfer the bank
//! refused: the others are PAID, each once (the ledger's `payout_paid:<id>` key and the
//! SENDING guard), the refused ones FAILED with their money back. The debtor is the
//! platform's own account, the one advertisers wire to (`billing::funding::wire_config`).
//!
//! The file is drawn from the batch each time it is downloaded (same ids, same sums), so it
//! holds no copy of the payees' details at rest; each download is audited.

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::{apply_report, details_of, load};
use crate::domain::accounts::second_factor;
use crate::domain::billing::funding::wire_config;
use crate::domain::billing::payprovider::{PayoutItemOutcome, PayoutItemReport};
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::payout_batches::*;
use crate::model::publisher::payouts::PayoutStatus;
use entity::payout_batch;

/// The schema's namespace.
const NAMESPACE: &str = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03";

/// An id as the file's Max35Text identifiers take it (ours are 36 characters with the `_`).
fn file_id(id: &str) -> String {
    id.replace('_', "").chars().take(35).collect()
}

/// Text cut to the schema's length, on a character boundary.
fn cut(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// One transfer of the file.
struct Transfer {
    id: String,
    amount: String,
    currency: String,
    name: String,
    country: String,
    iban: String,
}

/// `GET /admin/v1/payout-batches/{id}/file`: the batch's `pain.001` file and its name.
/// Asks for a second-factor code: the file holds every payee's account.
pub async fn file(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    code: Option<&str>,
) -> Result<(String, Vec<u8>), AppError> {
    actor.require_admin()?;
    second_factor::step_up(ctx, actor, code).await?;
    let (b, payouts) = load(ctx, id).await?;
    if b.rail != PayoutRail::BankFile {
        return Err(
            AppError::conflict("only a bank-file batch has a file").with_code("invalid_transition")
        );
    }
    let transfers = payouts
        .iter()
        .map(|p| {
            Ok(Transfer {
                id: file_id(&p.id),
                amount: Micros(p.amount_micros).in_decimals(2),
                currency: p.currency.clone(),
                name: cut(&p.legal_name, 140),
                country: p.country.to_ascii_uppercase(),
                iban: details_of(ctx, p)?,
            })
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    let xml = document(&b, &transfers, ctx.now()).map_err(|e| {
        tracing::error!(error = %e, "writing a pain.001 file failed");
        AppError::internal()
    })?;
    let txn = db::begin(&ctx.db).await?;
    let detail = serde_json::json!({"payouts": payouts.len(), "totalMicros": b.total_micros});
    actor
        .audit(
            &txn,
            ctx.now(),
            "payout_batch.file_downloaded",
            ("payout_batch", &b.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok((format!("{}.pain.001.xml", b.id), xml))
}

fn document(
    b: &payout_batch::Model,
    transfers: &[Transfer],
    now: chrono::DateTime<chrono::Utc>,
) -> std::io::Result<Vec<u8>> {
    let debtor = wire_config();
    let total = Micros(b.total_micros).in_decimals(2);
    let count = transfers.len().to_string();
    let msg_id = file_id(&b.id);
    // Euro transfers go as SEPA credit transfers; other currencies as plain transfers.
    let sepa = b.currency.eq_ignore_ascii_case("EUR");
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 1);
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("Document")
        .with_attribute(("xmlns", NAMESPACE))
        .write_inner_content(|w| {
            w.create_element("CstmrCdtTrfInitn")
                .write_inner_content(|w| {
                    w.create_element("GrpHdr").write_inner_content(|w| {
                        text(w, "MsgId", &msg_id)?;
                        text(w, "CreDtTm", &now.format("%Y-%m-%dT%H:%M:%S").to_string())?;
                        text(w, "NbOfTxs", &count)?;
                        text(w, "CtrlSum", &total)?;
                        w.create_element("InitgPty")
                            .write_inner_content(|w| text(w, "Nm", &debtor.beneficiary))?;
                        Ok(())
                    })?;
                    w.create_element("PmtInf").write_inner_content(|w| {
                        text(w, "PmtInfId", &msg_id)?;
                        text(w, "PmtMtd", "TRF")?;
                        text(w, "BtchBookg", "true")?;
                        text(w, "NbOfTxs", &count)?;
                        text(w, "CtrlSum", &total)?;
                        if sepa {
                            w.create_element("PmtTpInf").write_inner_content(|w| {
                                w.create_element("SvcLvl")
                                    .write_inner_content(|w| text(w, "Cd", "SEPA"))?;
                                Ok(())
                            })?;
                        }
                        text(w, "ReqdExctnDt", &now.format("%Y-%m-%d").to_string())?;
                        w.create_element("Dbtr")
                            .write_inner_content(|w| text(w, "Nm", &debtor.beneficiary))?;
                        account(w, "DbtrAcct", &debtor.iban)?;
                        w.create_element("DbtrAgt").write_inner_content(|w| {
                            w.create_element("FinInstnId")
                                .write_inner_content(|w| text(w, "BIC", &debtor.bic))?;
                            Ok(())
                        })?;
                        // Each side pays its own bank (SLEV is SEPA's name for the same rule).
                        let charges = if sepa { "SLEV" } else { "SHAR" };
                        text(w, "ChrgBr", charges)?;
                        for t in transfers {
                            transfer(w, t)?;
                        }
                        Ok(())
                    })?;
                    Ok(())
                })?;
            Ok(())
        })?;
    Ok(w.into_inner())
}

fn transfer(w: &mut Writer<Vec<u8>>, t: &Transfer) -> std::io::Result<()> {
    w.create_element("CdtTrfTxInf").write_inner_content(|w| {
        w.create_element("PmtId")
            .write_inner_content(|w| text(w, "EndToEndId", &t.id))?;
        w.create_element("Amt").write_inner_content(|w| {
            w.create_element("InstdAmt")
                .with_attribute(("Ccy", t.currency.as_str()))
                .write_text_content(BytesText::new(&t.amount))?;
            Ok(())
        })?;
        w.create_element("Cdtr").write_inner_content(|w| {
            text(w, "Nm", &t.name)?;
            w.create_element("PstlAdr")
                .write_inner_content(|w| text(w, "Ctry", &t.country))?;
            Ok(())
        })?;
        account(w, "CdtrAcct", &t.iban)?;
        w.create_element("RmtInf")
            .write_inner_content(|w| text(w, "Ustrd", &format!("Marketplace payout {}", t.id)))?;
        Ok(())
    })?;
    Ok(())
}

fn account(w: &mut Writer<Vec<u8>>, name: &str, iban: &str) -> std::io::Result<()> {
    w.create_element(name).write_inner_content(|w| {
        w.create_element("Id")
            .write_inner_content(|w| text(w, "IBAN", iban))?;
        Ok(())
    })?;
    Ok(())
}

fn text(w: &mut Writer<Vec<u8>>, name: &str, value: &str) -> std::io::Result<()> {
    w.create_element(name)
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

/// `POST /admin/v1/payout-batches/{id}/confirm`: the bank took the file. Every SENDING
/// payout of the batch is PAID, except those listed as failed, which return their money.
pub async fn confirm(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: PayoutBatchConfirmation,
) -> Result<PayoutBatch, AppError> {
    actor.require_admin()?;
    let reference = req.reference.trim();
    if reference.is_empty() || reference.chars().count() > 140 {
        return Err(AppError::field(
            "reference",
            "is required (at most 140 characters)",
        ));
    }
    if req.failed.len() > super::MAX_BATCH as usize
        || req
            .failed
            .iter()
            .any(|f| f.reason.trim().is_empty() || f.reason.chars().count() > 500)
    {
        return Err(AppError::field(
            "failed",
            "each needs a reason of 1 to 500 characters",
        ));
    }
    let (b, payouts) = load(ctx, id).await?;
    if b.rail != PayoutRail::BankFile {
        return Err(AppError::conflict(
            "only a bank-file batch is confirmed; PayPal reports its own",
        )
        .with_code("invalid_transition"));
    }
    if b.status != PayoutBatchStatus::Sent {
        return Err(
            AppError::conflict("this batch was confirmed already").with_code("batch_completed")
        );
    }
    if let Some(stranger) = req
        .failed
        .iter()
        .find(|f| !payouts.iter().any(|p| p.id == f.payout_id))
    {
        return Err(AppError::field(
            "failed",
            format!("{} is not in this batch", cut(&stranger.payout_id, 64)),
        ));
    }
    {
        // The reference first, under the batch's guard: a second confirmation is refused
        // even while the first is still marking payouts.
        let claimed = payout_batch::Entity::update_many()
            .col_expr(
                payout_batch::Column::Reference,
                Expr::value(Some(reference.to_owned())),
            )
            .filter(payout_batch::Column::Id.eq(id.to_owned()))
            .filter(payout_batch::Column::Reference.is_null())
            .exec(&ctx.db)
            .await?;
        if claimed.rows_affected == 0 {
            return Err(
                AppError::conflict("this batch was confirmed already").with_code("batch_completed")
            );
        }
    }
    let txn = db::begin(&ctx.db).await?;
    let detail = serde_json::json!({"reference": reference, "failed": req.failed.len()});
    actor
        .audit(
            &txn,
            ctx.now(),
            "payout_batch.confirmed",
            ("payout_batch", id),
            detail,
        )
        .await?;
    txn.commit().await?;
    for p in payouts.iter().filter(|p| p.status == PayoutStatus::Sending) {
        let failed = req.failed.iter().find(|f| f.payout_id == p.id);
        let report = PayoutItemReport {
            payout_id: p.id.clone(),
            item_id: file_id(&p.id),
            transaction_id: Some(reference.to_owned()),
            outcome: if failed.is_some() {
                PayoutItemOutcome::Failed
            } else {
                PayoutItemOutcome::Paid
            },
            detail: failed.map_or_else(|| "paid".to_owned(), |f| f.reason.trim().to_owned()),
        };
        apply_report(ctx, Some(id), &report).await?;
    }
    super::complete_if_done(ctx, id).await?;
    super::get(ctx, actor, id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_fit_the_files_identifiers() {
        let id = "pyo_0123456789abcdef0123456789abcdef";
        assert_eq!(file_id(id).len(), 35);
        assert!(!file_id(id).contains('_'));
        assert_eq!(cut("Ærøskøbing", 3), "Ærø");
    }
}
