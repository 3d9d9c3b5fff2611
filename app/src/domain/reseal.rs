//! Master-key rotation: re-seals every stored secret that an earlier master key sealed (or
//! that predates row binding) with the current key, one row at a time, so the previous key
//! can be dropped from `APP_SECRET_KEY_PREVIOUS` afterwards. Safe to run repeatedly and while
//! the service runs: each row is rewritten only if its sealed value is still the one read.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, Set};

use crate::domain::Ctx;
use crate::domain::callback_delivery::account_webhooks;
use crate::domain::callback_delivery::setup as callbacks;
use crate::domain::campaigns::tracking;
use crate::domain::publisher::user_identity;
use crate::domain::{accounts, mail, payouts, survey_api_keys};
use crate::error::AppError;
use entity::{
    account_webhook, callback_key, campaign_credential, mail_outbox, payout, payout_profile,
    placement_user_identity, second_factor, survey_api_credential,
};

/// How many secrets were moved to the current key, per table.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Resealed {
    pub callback_keys: u64,
    pub campaign_credentials: u64,
    pub survey_api_credentials: u64,
    pub user_identity_secrets: u64,
    /// Payout profiles' and payouts' payment details.
    pub payment_details: u64,
    /// The texts of the mail outbox's letters.
    pub mail_letters: u64,
    /// Second-factor (TOTP) secrets, confirmed and being enrolled.
    pub second_factors: u64,
    /// Account webhooks' signing secrets.
    pub webhook_secrets: u64,
}

/// Re-seals every stored secret not yet under the current key.
pub async fn reseal_all(ctx: &Ctx) -> Result<Resealed, AppError> {
    let mut out = Resealed::default();
    for k in callback_key::Entity::find().all(&ctx.db).await? {
        let old = k.secret_ciphertext.clone();
        let Some(sealed) = resealed(ctx, &callbacks::seal_binding(&k.id), &old)? else {
            continue;
        };
        let mut a = k.into_active_model();
        a.secret_ciphertext = Set(sealed);
        out.callback_keys += guarded(ctx, a, callback_key::Column::SecretCiphertext, old).await?;
    }
    for c in campaign_credential::Entity::find()
        .filter(campaign_credential::Column::SecretSealed.is_not_null())
        .all(&ctx.db)
        .await?
    {
        let Some(old) = c.secret_sealed.clone() else {
            continue;
        };
        let Some(sealed) = resealed(ctx, &tracking::seal_binding(&c.id), &old)? else {
            continue;
        };
        let mut a = c.into_active_model();
        a.secret_sealed = Set(Some(sealed));
        out.campaign_credentials +=
            guarded(ctx, a, campaign_credential::Column::SecretSealed, old).await?;
    }
    for c in survey_api_credential::Entity::find().all(&ctx.db).await? {
        let old = c.secret_ciphertext.clone();
        let Some(sealed) = resealed(ctx, &survey_api_keys::seal_binding(&c.id), &old)? else {
            continue;
        };
        let mut a = c.into_active_model();
        a.secret_ciphertext = Set(sealed);
        out.survey_api_credentials +=
            guarded(ctx, a, survey_api_credential::Column::SecretCiphertext, old).await?;
    }
    // A placement's identity secret, and the secret being rotated out for the rest of its
    // overlap.
    use placement_user_identity::Column as Identity;
    for r in placement_user_identity::Entity::find()
        .filter(
            sea_orm::Condition::any()
                .add(Identity::SecretSealed.is_not_null())
                .add(Identity::PreviousSecretSealed.is_not_null()),
        )
        .all(&ctx.db)
        .await?
    {
        let binding = user_identity::seal_binding(&r.placement_id);
        for column in [Identity::SecretSealed, Identity::PreviousSecretSealed] {
            let old = match column {
                Identity::SecretSealed => r.secret_sealed.clone(),
                _ => r.previous_secret_sealed.clone(),
            };
            let Some(old) = old else { continue };
            let Some(sealed) = resealed(ctx, &binding, &old)? else {
                continue;
            };
            let mut a = r.clone().into_active_model();
            match column {
                Identity::SecretSealed => a.secret_sealed = Set(Some(sealed)),
                _ => a.previous_secret_sealed = Set(Some(sealed)),
            }
            out.user_identity_secrets += guarded(ctx, a, column, old).await?;
        }
    }
    for r in payout_profile::Entity::find().all(&ctx.db).await? {
        let old = r.details_sealed.clone();
        let binding = payouts::profile::seal_binding(&r.account_id);
        let Some(sealed) = resealed(ctx, &binding, &old)? else {
            continue;
        };
        let mut a = r.into_active_model();
        a.details_sealed = Set(sealed);
        out.payment_details += guarded(ctx, a, payout_profile::Column::DetailsSealed, old).await?;
    }
    for r in payout::Entity::find().all(&ctx.db).await? {
        let old = r.details_sealed.clone();
        let Some(sealed) = resealed(ctx, &payouts::seal_binding(&r.id), &old)? else {
            continue;
        };
        let mut a = r.into_active_model();
        a.details_sealed = Set(sealed);
        out.payment_details += guarded(ctx, a, payout::Column::DetailsSealed, old).await?;
    }
    for r in mail_outbox::Entity::find().all(&ctx.db).await? {
        let old = r.body_sealed.clone();
        let Some(sealed) = resealed(ctx, &mail::outbox::seal_binding(&r.id), &old)? else {
            continue;
        };
        let mut a = r.into_active_model();
        a.body_sealed = Set(sealed);
        out.mail_letters += guarded(ctx, a, mail_outbox::Column::BodySealed, old).await?;
    }
    for h in account_webhook::Entity::find().all(&ctx.db).await? {
        let old = h.secret_sealed.clone();
        let binding = account_webhooks::seal_binding(&h.id);
        let Some(sealed) = resealed(ctx, &binding, &old)? else {
            continue;
        };
        let mut a = h.into_active_model();
        a.secret_sealed = Set(sealed);
        out.webhook_secrets += guarded(ctx, a, account_webhook::Column::SecretSealed, old).await?;
    }
    for r in second_factor::Entity::find().all(&ctx.db).await? {
        let binding = accounts::second_factor::seal_binding(&r.account_id);
        for (old, column) in [
            (r.secret_sealed.clone(), second_factor::Column::SecretSealed),
            (
                r.pending_sealed.clone(),
                second_factor::Column::PendingSealed,
            ),
        ] {
            let Some(old) = old else { continue };
            let Some(sealed) = resealed(ctx, &binding, &old)? else {
                continue;
            };
            let mut a = r.clone().into_active_model();
            match column {
                second_factor::Column::SecretSealed => a.secret_sealed = Set(Some(sealed)),
                _ => a.pending_sealed = Set(Some(sealed)),
            }
            out.second_factors += guarded(ctx, a, column, old).await?;
        }
    }
    Ok(out)
}

/// `old` sealed again under the current key for `binding`; `None` when it already is.
fn resealed(ctx: &Ctx, binding: &str, old: &str) -> Result<Option<String>, AppError> {
    if ctx.keys.is_current(old) {
        return Ok(None);
    }
    Ok(Some(ctx.keys.seal(binding, &ctx.keys.open(binding, old)?)?))
}

/// Writes `a` only where `column` still holds `old` (a concurrent rotation of the key itself
/// wins); returns 1 when the row was rewritten.
async fn guarded<A, C>(ctx: &Ctx, a: A, column: C, old: String) -> Result<u64, AppError>
where
    A: ActiveModelTrait + Send,
    C: ColumnTrait,
{
    let res = <A::Entity as EntityTrait>::update_many()
        .set(a)
        .filter(column.eq(old))
        .exec(&ctx.db)
        .await?;
    Ok(res.rows_affected.min(1))
}
