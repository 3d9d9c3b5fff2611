//! Survey-fetch app keys (CONTRACT.md section 4): one per placement, shown once, stored as SHA-256.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use super::owned_placement;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::publisher::AppKeyIssued;
use entity::app_key;

/// Prefix of survey-fetch app keys.
pub const PREFIX: &str = "mkt_apk";

/// Issues a new app key; the previous one stops working.
pub async fn issue(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<AppKeyIssued, AppError> {
    crate::domain::db::retry_on_race(|| issue_once(ctx, actor, placement_id)).await
}

async fn issue_once(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<AppKeyIssued, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    // Issuers of one placement take turns (the row lock), so each revokes the key before it.
    entity::placement::Entity::find_by_id(p.id.clone())
        .lock_exclusive()
        .one(&txn)
        .await?;
    app_key::Entity::update_many()
        .col_expr(app_key::Column::RevokedAt, Expr::value(Some(now)))
        .filter(app_key::Column::PlacementId.eq(p.id.clone()))
        .filter(app_key::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    let key = crypto::random_token(PREFIX);
    let id = new_id("apk");
    app_key::ActiveModel {
        id: Set(id.clone()),
        placement_id: Set(p.id.clone()),
        key_hash: Set(crypto::sha256_hex(&key)),
        created_at: Set(now),
        revoked_at: Set(None),
    }
    .insert(&txn)
    .await
    // Two issuers at once: the database keeps one active key; the loser runs again.
    .map_err(crate::domain::db::race_on_unique)?;
    let detail = serde_json::json!({"appKeyId": id});
    actor
        .audit(&txn, now, "app_key.issue", ("placement", &p.id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::AppKeys]).await?;
    Ok(AppKeyIssued {
        app_key: key,
        placement_id: p.id,
    })
}
