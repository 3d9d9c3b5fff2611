//! Survey campaign API credentials: an API key (stored hashed, looked up) and a signing
//! secret (stored encrypted, because the server recomputes the `enc` digest with it).
//! Issuing a credential revokes the advertiser's earlier ones: one active key at a time.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{Ctx, Principal, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::{EncryptionType, SurveyApiCredentialIssued};
use entity::survey_api_credential as cred;

/// Issues a new credential for an approved advertiser; the secret is returned only here.
pub async fn issue(
    ctx: &Ctx,
    actor: &Principal,
    encryption: EncryptionType,
) -> Result<SurveyApiCredentialIssued, AppError> {
    actor.require_approved_advertiser()?;
    crate::domain::db::retry_on_race(|| issue_once(ctx, actor, encryption)).await
}

async fn issue_once(
    ctx: &Ctx,
    actor: &Principal,
    encryption: EncryptionType,
) -> Result<SurveyApiCredentialIssued, AppError> {
    let now = ctx.now();
    let api_key = crypto::random_token("mkt_sak");
    let secret = crypto::random_token("mkt_sas");
    let txn = crate::domain::db::begin(&ctx.db).await?;
    cred::Entity::update_many()
        .col_expr(cred::Column::RevokedAt, Expr::value(Some(now)))
        .filter(cred::Column::AccountId.eq(actor.account_id.clone()))
        .filter(cred::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    let id = new_id("sak");
    cred::ActiveModel {
        id: Set(id.clone()),
        account_id: Set(actor.account_id.clone()),
        api_key_hash: Set(crypto::sha256_hex(&api_key)),
        api_key_prefix: Set(api_key.chars().take(12).collect()),
        secret_ciphertext: Set(ctx.keys.seal(&seal_binding(&id), &secret)?),
        encryption_type: Set(encryption.as_str().to_owned()),
        created_at: Set(now),
        revoked_at: Set(None),
    }
    .insert(&txn)
    .await
    .map_err(crate::domain::db::race_on_unique)?;
    let detail = serde_json::json!({"encryptionType": encryption.as_str()});
    actor
        .audit(
            &txn,
            now,
            "survey_api_credential.issue",
            ("survey_api_credential", &id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(SurveyApiCredentialIssued {
        api_key,
        secret,
        encryption_type: encryption,
    })
}

/// What a survey API credential's sealed secret is bound to (its row).
pub(crate) fn seal_binding(credential_id: &str) -> String {
    format!("survey_api_credentials:{credential_id}")
}

/// The plain signing secret of a stored survey API credential.
pub fn open_secret(ctx: &Ctx, c: &cred::Model) -> Result<String, AppError> {
    ctx.keys.open(&seal_binding(&c.id), &c.secret_ciphertext)
}

/// The advertiser's active credential (never its secret): `(key prefix, algorithm, issued)`.
pub async fn active(
    ctx: &Ctx,
    actor: &Principal,
) -> Result<Option<(String, String, chrono::DateTime<chrono::Utc>)>, AppError> {
    Ok(cred::Entity::find()
        .filter(cred::Column::AccountId.eq(actor.account_id.clone()))
        .filter(cred::Column::RevokedAt.is_null())
        .one(&ctx.db)
        .await?
        .map(|c| (c.api_key_prefix, c.encryption_type, c.created_at)))
}
