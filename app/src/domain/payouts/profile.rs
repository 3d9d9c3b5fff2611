//! The publisher's payout profile. The payment details are sealed like every other secret
//! and shown only as a hint; the audit trail records that they changed, never what they are.

use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};

use crate::domain::{Ctx, Principal, db};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::payouts::{PayoutMethod, PayoutProfile, PayoutProfileInput};
use entity::payout_profile;

/// The sealing binding of a profile's payment details.
pub fn seal_binding(account_id: &str) -> String {
    format!("payout_profiles:{account_id}")
}

pub(crate) fn view(m: &payout_profile::Model) -> PayoutProfile {
    PayoutProfile {
        legal_name: m.legal_name.clone(),
        country: m.country.clone(),
        method: PayoutMethod::parse(&m.method).unwrap_or(PayoutMethod::BankTransfer),
        details_hint: m.details_hint.clone(),
        updated_at: m.updated_at,
    }
}

/// The stored profile of a publisher, if any.
pub(super) async fn find<C: ConnectionTrait>(
    db: &C,
    publisher_id: &str,
) -> Result<Option<payout_profile::Model>, AppError> {
    Ok(payout_profile::Entity::find_by_id(publisher_id.to_owned())
        .one(db)
        .await?)
}

/// `GET /publisher/v2/payouts/profile` (404 until it is set).
pub async fn get(ctx: &Ctx, actor: &Principal) -> Result<PayoutProfile, AppError> {
    actor.require_publisher()?;
    find(&ctx.db, &actor.account_id)
        .await?
        .map(|m| view(&m))
        .ok_or_else(|| AppError::not_found("payout profile"))
}

/// Checks an IBAN's shape and checksum (ISO 13616 mod 97).
fn iban(raw: &str) -> Result<String, String> {
    let s: String = raw
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_uppercase();
    let shaped = (15..=34).contains(&s.len())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
        && s[..2].chars().all(|c| c.is_ascii_alphabetic())
        && s[2..4].chars().all(|c| c.is_ascii_digit());
    if !shaped {
        return Err("must be an IBAN".into());
    }
    let moved = format!("{}{}", &s[4..], &s[..4]);
    let mut rem: u32 = 0;
    for c in moved.chars() {
        let v = c.to_digit(36).unwrap_or(0);
        for d in if v >= 10 {
            vec![v / 10, v % 10]
        } else {
            vec![v]
        } {
            rem = (rem * 10 + d) % 97;
        }
    }
    if rem != 1 {
        return Err("is not a valid IBAN (checksum)".into());
    }
    Ok(s)
}

fn hint(method: PayoutMethod, details: &str) -> String {
    let tail: String = details
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    match method {
        PayoutMethod::BankTransfer => format!("IBAN ••••{tail}"),
        PayoutMethod::PaymentService => format!("account ••••{tail}"),
    }
}

/// `PUT /publisher/v2/payouts/profile`: every field is required. An account with a second
/// factor confirms with a code (`second_factor`) first.
pub async fn put(
    ctx: &Ctx,
    actor: &Principal,
    input: PayoutProfileInput,
    second_factor: Option<&str>,
) -> Result<PayoutProfile, AppError> {
    actor.require_publisher()?;
    crate::domain::accounts::second_factor::step_up(ctx, actor, second_factor).await?;
    let mut errs = FieldErrors::new();
    let text = |v: &Option<String>| v.as_deref().map(str::trim).unwrap_or_default().to_owned();
    let name = text(&input.legal_name);
    if name.is_empty() || name.chars().count() > 200 {
        errs.add("legalName", "is required (at most 200 characters)");
    }
    let country = text(&input.country).to_ascii_uppercase();
    if country.len() != 2 || !country.chars().all(|c| c.is_ascii_alphabetic()) {
        errs.add("country", "must be an ISO 3166-1 alpha-2 code such as DE");
    }
    let method = PayoutMethod::parse(&text(&input.method));
    if method.is_none() {
        errs.add("method", "must be BANK_TRANSFER or PAYMENT_SERVICE");
    }
    let raw = text(&input.details);
    let details = match method {
        Some(PayoutMethod::BankTransfer) => errs.check("details", iban(&raw)),
        Some(PayoutMethod::PaymentService) if (3..=200).contains(&raw.chars().count()) => Some(raw),
        Some(PayoutMethod::PaymentService) => {
            errs.add(
                "details",
                "must be the payment-service account (3 to 200 characters)",
            );
            None
        }
        None => None,
    };
    errs.finish()?;
    let (Some(method), Some(details)) = (method, details) else {
        return Err(AppError::internal());
    };
    let id = actor.account_id.clone();
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let exists = find(&txn, &id).await?.is_some();
    let row = payout_profile::ActiveModel {
        account_id: Set(id.clone()),
        legal_name: Set(name),
        country: Set(country),
        method: Set(method.as_str().to_owned()),
        details_sealed: Set(ctx.keys.seal(&seal_binding(&id), &details)?),
        details_hint: Set(hint(method, &details)),
        updated_at: Set(now),
    };
    let saved = if exists {
        row.update(&txn).await?
    } else {
        row.insert(&txn).await?
    };
    let detail = serde_json::json!({"method": method.as_str(), "country": saved.country});
    actor
        .audit(
            &txn,
            now,
            "payout_profile.updated",
            ("payout_profile", &id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(view(&saved))
}

#[cfg(test)]
mod tests {
    use super::iban;

    #[test]
    fn ibans_are_checked_by_their_checksum() {
        assert_eq!(
            iban("de89 3704 0044 0532 0130 00").as_deref(),
            Ok("DE89370400440532013000")
        );
        assert!(iban("DE89370400440532013001").is_err());
        assert!(iban("not an iban").is_err());
    }
}
