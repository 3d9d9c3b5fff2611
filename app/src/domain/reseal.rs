//! Master-key rotation: re-seals every stored secret that an earlier master key sealed (or
//! that predates row binding) with the current key, one row at a time, so the previous key
//! can be dropped from `APP_SECRET_KEY_PREVIOUS` afterwards. Safe to run repeatedly and while
//! the service runs: each row is rewritten only if its sealed value is still the one read.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, Set};

use crate::domain::Ctx;
use crate::domain::callback_delivery::setup as callbacks;
use crate::domain::campaigns::tracking;
use crate::domain::publisher::user_identity;
use crate::domain::{payouts, survey_api_keys};
use crate::error::AppError;
use entity::{
    callback_key, campaign_credential, payout, payout_profile, placement_user_identity,
    survey_api_credential,
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
}

/// Re-seals every stored secret not yet under the current key.
pub async fn reseal_all(ctx: &Ctx) -> Result<Resealed, AppError> {
    let mut out = Resealed::default();
    for k in callback_key::Entity::find().all(&ctx.db).await? {
        if ctx.keys.is_current(&k.secret_ciphertext) {
            continue;
        }
        let binding = callbacks::seal_binding(&k.id);
        let sealed = ctx
            .keys
            .seal(&binding, &ctx.keys.open(&binding, &k.secret_ciphertext)?)?;
        let old = k.secret_ciphertext.clone();
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
        if ctx.keys.is_current(&old) {
            continue;
        }
        let binding = tracking::seal_binding(&c.id);
        let sealed = ctx.keys.seal(&binding, &ctx.keys.open(&binding, &old)?)?;
        let mut a = c.into_active_model();
        a.secret_sealed = Set(Some(sealed));
        out.campaign_credentials +=
            guarded(ctx, a, campaign_credential::Column::SecretSealed, old).await?;
    }
    for c in survey_api_credential::Entity::find().all(&ctx.db).await? {
        if ctx.keys.is_current(&c.secret_ciphertext) {
            continue;
        }
        let binding = survey_api_keys::seal_binding(&c.id);
        let sealed = ctx
            .keys
            .seal(&binding, &ctx.keys.open(&binding, &c.secret_ciphertext)?)?;
        let old = c.secret_ciphertext.clone();
        let mut a = c.into_active_model();
        a.secret_ciphertext = Set(sealed);
        out.survey_api_credentials +=
            guarded(ctx, a, survey_api_credential::Column::SecretCiphertext, old).await?;
    }
    for r in placement_user_identity::Entity::find()
        .filter(placement_user_identity::Column::SecretSealed.is_not_null())
        .all(&ctx.db)
        .await?
    {
        let Some(old) = r.secret_sealed.clone() else {
            continue;
        };
        if ctx.keys.is_current(&old) {
            continue;
        }
        let binding = user_identity::seal_binding(&r.placement_id);
        let sealed = ctx.keys.seal(&binding, &ctx.keys.open(&binding, &old)?)?;
        let mut a = r.into_active_model();
        a.secret_sealed = Set(Some(sealed));
        out.user_identity_secrets +=
            guarded(ctx, a, placement_user_identity::Column::SecretSealed, old).await?;
    }
    // The secret being rotated out, for the rest of its overlap.
    for r in placement_user_identity::Entity::find()
        .filter(placement_user_identity::Column::PreviousSecretSealed.is_not_null())
        .all(&ctx.db)
        .await?
    {
        let Some(old) = r.previous_secret_sealed.clone() else {
            continue;
        };
        if ctx.keys.is_current(&old) {
            continue;
        }
        let binding = user_identity::seal_binding(&r.placement_id);
        let sealed = ctx.keys.seal(&binding, &ctx.keys.open(&binding, &old)?)?;
        let mut a = r.into_active_model();
        a.previous_secret_sealed = Set(Some(sealed));
        out.user_identity_secrets += guarded(
            ctx,
            a,
            placement_user_identity::Column::PreviousSecretSealed,
            old,
        )
        .await?;
    }
    for r in payout_profile::Entity::find().all(&ctx.db).await? {
        if ctx.keys.is_current(&r.details_sealed) {
            continue;
        }
        let binding = payouts::profile::seal_binding(&r.account_id);
        let old = r.details_sealed.clone();
        let sealed = ctx.keys.seal(&binding, &ctx.keys.open(&binding, &old)?)?;
        let mut a = r.into_active_model();
        a.details_sealed = Set(sealed);
        out.payment_details += guarded(ctx, a, payout_profile::Column::DetailsSealed, old).await?;
    }
    for r in payout::Entity::find().all(&ctx.db).await? {
        if ctx.keys.is_current(&r.details_sealed) {
            continue;
        }
        let binding = payouts::seal_binding(&r.id);
        let old = r.details_sealed.clone();
        let sealed = ctx.keys.seal(&binding, &ctx.keys.open(&binding, &old)?)?;
        let mut a = r.into_active_model();
        a.details_sealed = Set(sealed);
        out.payment_details += guarded(ctx, a, payout::Column::DetailsSealed, old).await?;
    }
    Ok(out)
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
