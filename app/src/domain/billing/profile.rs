//! Billing profiles: the legal identity invoices are made out to. Legal name and country are
//! required before any funding.

use sea_orm::sea_query::OnConflict;
use sea_orm::{ConnectionTrait, EntityTrait, Set};

use super::acting_advertiser;
use crate::domain::{Ctx, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::billing::*;
use crate::model::validate;
use entity::billing_profile;

fn optional(errs: &mut FieldErrors, field: &str, v: Option<String>, max: usize) -> Option<String> {
    let v = v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())?;
    if v.chars().count() > max || v.chars().any(char::is_control) {
        errs.add(field, format!("must be at most {max} characters"));
    }
    Some(v)
}

/// The advertiser's profile (empty fields when never saved).
pub async fn get(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
) -> Result<BillingProfile, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let row = billing_profile::Entity::find_by_id(adv.clone())
        .one(&ctx.db)
        .await?;
    Ok(view(&adv, row.as_ref()))
}

/// Replaces the profile.
pub async fn put(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
    input: BillingProfileInput,
) -> Result<BillingProfile, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let mut errs = FieldErrors::new();
    if input.account_type.is_none() {
        errs.add("accountType", "is required (BUSINESS or INDIVIDUAL)");
    }
    let legal = errs.check(
        "legalName",
        validate::display_name(input.legal_name.as_deref().unwrap_or_default(), 200),
    );
    let country = input
        .country
        .as_deref()
        .map(|c| c.trim().to_ascii_uppercase())
        .unwrap_or_default();
    if country.len() != 2 || !country.chars().all(|c| c.is_ascii_uppercase()) {
        errs.add("country", "must be a two-letter country code");
    }
    let tax = optional(&mut errs, "taxId", input.tax_id, 64);
    let addr = optional(&mut errs, "addressLine1", input.address_line1, 200);
    let city = optional(&mut errs, "city", input.city, 100);
    let postal = optional(&mut errs, "postalCode", input.postal_code, 20);
    let mut emails = Vec::new();
    if input.billing_emails.len() > 10 {
        errs.add("billingEmails", "at most 10 addresses");
    }
    for (i, e) in input.billing_emails.iter().enumerate() {
        match validate::email(e) {
            Ok(e) if !emails.contains(&e) => emails.push(e),
            Ok(_) => {}
            Err(why) => errs.add(&format!("billingEmails[{i}]"), why),
        }
    }
    errs.finish()?;
    let now = ctx.now();
    let row = billing_profile::ActiveModel {
        account_id: Set(adv.clone()),
        account_type: Set(input
            .account_type
            .map(|t| t.as_str())
            .unwrap_or("BUSINESS")
            .to_owned()),
        legal_name: Set(legal.unwrap_or_default()),
        country: Set(country),
        tax_id: Set(tax),
        address_line1: Set(addr),
        city: Set(city),
        postal_code: Set(postal),
        billing_emails: Set(serde_json::json!(emails).to_string()),
        updated_at: Set(now),
    };
    let txn = crate::domain::db::begin(&ctx.db).await?;
    billing_profile::Entity::insert(row)
        .on_conflict(
            OnConflict::column(billing_profile::Column::AccountId)
                .update_columns([
                    billing_profile::Column::AccountType,
                    billing_profile::Column::LegalName,
                    billing_profile::Column::Country,
                    billing_profile::Column::TaxId,
                    billing_profile::Column::AddressLine1,
                    billing_profile::Column::City,
                    billing_profile::Column::PostalCode,
                    billing_profile::Column::BillingEmails,
                    billing_profile::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    let detail = serde_json::json!({});
    actor
        .audit(
            &txn,
            now,
            "billing_profile.update",
            ("account", &adv),
            detail,
        )
        .await?;
    txn.commit().await?;
    let row = billing_profile::Entity::find_by_id(adv.clone())
        .one(&ctx.db)
        .await?;
    Ok(view(&adv, row.as_ref()))
}

/// Refuses funding until the profile has a legal name and a country.
pub async fn require_complete<C: ConnectionTrait>(
    db: &C,
    advertiser_id: &str,
) -> Result<(), AppError> {
    let row = billing_profile::Entity::find_by_id(advertiser_id.to_owned())
        .one(db)
        .await?;
    if row.is_some_and(|r| !r.legal_name.is_empty() && r.country.len() == 2) {
        Ok(())
    } else {
        Err(AppError::conflict(
            "complete the billing profile (legal name and country) before funding",
        )
        .with_code("billing_profile_incomplete"))
    }
}

fn view(adv: &str, r: Option<&billing_profile::Model>) -> BillingProfile {
    let Some(r) = r else {
        return BillingProfile {
            advertiser_id: adv.to_owned(),
            account_type: None,
            legal_name: None,
            country: None,
            tax_id: None,
            address_line1: None,
            city: None,
            postal_code: None,
            billing_emails: Vec::new(),
            complete: false,
            updated_at: None,
        };
    };
    BillingProfile {
        advertiser_id: adv.to_owned(),
        account_type: Some(AccountType::parse(&r.account_type).unwrap_or(AccountType::Business)),
        legal_name: Some(r.legal_name.clone()),
        country: Some(r.country.clone()),
        tax_id: r.tax_id.clone(),
        address_line1: r.address_line1.clone(),
        city: r.city.clone(),
        postal_code: r.postal_code.clone(),
        billing_emails: serde_json::from_str(&r.billing_emails).unwrap_or_default(),
        complete: !r.legal_name.is_empty() && r.country.len() == 2,
        updated_at: Some(r.updated_at),
    }
}
