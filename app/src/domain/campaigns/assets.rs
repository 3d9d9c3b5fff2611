//! Development-only creative uploads. An asset is an offer campaign's creative set, so
//! `assetId` is the campaign id. Files are images up to 512 KiB whose bytes match the
//! declared type; in production every route here answers 404.

use base64::Engine;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};

use super::owned_campaign;
use crate::domain::{Ctx, Environment, Principal, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::*;
use crate::model::publisher::rules::store_url;
use entity::creative;

/// Largest upload.
pub const MAX_BYTES: usize = 512 * 1024;
/// Accepted image types.
pub const CONTENT_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

fn require_development(ctx: &Ctx) -> Result<(), AppError> {
    if ctx.config.environment == Environment::Production {
        Err(AppError::not_found("route"))
    } else {
        Ok(())
    }
}

/// The type the bytes actually are, from their signature.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0x89, b'P', b'N', b'G', ..] => Some("image/png"),
        [0xFF, 0xD8, 0xFF, ..] => Some("image/jpeg"),
        [b'G', b'I', b'F', b'8', ..] => Some("image/gif"),
        [
            b'R',
            b'I',
            b'F',
            b'F',
            _,
            _,
            _,
            _,
            b'W',
            b'E',
            b'B',
            b'P',
            ..,
        ] => Some("image/webp"),
        _ => None,
    }
}

/// `GET upload-capability`.
pub fn capability(ctx: &Ctx) -> UploadCapability {
    UploadCapability {
        enabled: ctx.config.environment != Environment::Production,
        development_only: true,
        max_bytes: MAX_BYTES as i64,
        content_types: CONTENT_TYPES.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn view(ctx: &Ctx, c: creative::Model) -> Creative {
    Creative {
        content_url: format!(
            "{}/performance-marketing/v2/assets/{}/creatives/{}/content",
            ctx.config.base_url, c.asset_id, c.id
        ),
        creative_id: c.id,
        asset_id: c.asset_id,
        name: c.name,
        content_type: c.content_type,
        size_bytes: c.size_bytes,
        sha256: c.sha256,
        created_at: c.created_at,
    }
}

/// Whether the advertiser uploaded `creative_id`.
pub async fn exists<C: ConnectionTrait>(
    db: &C,
    advertiser: &str,
    creative_id: &str,
) -> Result<bool, AppError> {
    Ok(creative::Entity::find_by_id(creative_id.to_owned())
        .filter(creative::Column::AdvertiserId.eq(advertiser.to_owned()))
        .count(db)
        .await?
        > 0)
}

/// `POST assets/{assetId}/creatives`.
pub async fn upload(
    ctx: &Ctx,
    actor: &Principal,
    asset_id: &str,
    req: CreativeUpload,
) -> Result<Creative, AppError> {
    require_development(ctx)?;
    let m = owned_campaign(&ctx.db, actor, asset_id).await?;
    let name = req.name.trim().to_owned();
    if !(1..=120).contains(&name.chars().count()) {
        return Err(AppError::field("name", "must be 1-120 characters"));
    }
    let declared = req.content_type.trim().to_ascii_lowercase();
    if !CONTENT_TYPES.contains(&declared.as_str()) {
        return Err(AppError::field(
            "contentType",
            format!("must be one of {}", CONTENT_TYPES.join(", ")),
        ));
    }
    if req.data_base64.len() > MAX_BYTES * 4 / 3 + 8 {
        return Err(AppError::payload_too_large(MAX_BYTES));
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(req.data_base64.trim())
        .map_err(|_| AppError::field("dataBase64", "is not valid base64"))?;
    if bytes.is_empty() {
        return Err(AppError::field("dataBase64", "is empty"));
    }
    if bytes.len() > MAX_BYTES {
        return Err(AppError::payload_too_large(MAX_BYTES));
    }
    if sniff(&bytes) != Some(declared.as_str()) {
        return Err(AppError::field(
            "dataBase64",
            format!("the bytes are not a {declared} image"),
        ));
    }
    let row = creative::ActiveModel {
        id: Set(new_id("crt")),
        advertiser_id: Set(m.advertiser_id.clone()),
        asset_id: Set(m.id.clone()),
        name: Set(name),
        content_type: Set(declared),
        size_bytes: Set(bytes.len() as i64),
        sha256: Set(crypto::sha256_bytes_hex(&bytes)),
        content: Set(bytes),
        created_at: Set(ctx.now()),
    }
    .insert(&ctx.db)
    .await?;
    Ok(view(ctx, row))
}

/// `GET assets/{assetId}/creatives`, newest first.
pub async fn list(ctx: &Ctx, actor: &Principal, asset_id: &str) -> Result<CreativeList, AppError> {
    require_development(ctx)?;
    let m = owned_campaign(&ctx.db, actor, asset_id).await?;
    let rows = creative::Entity::find()
        .filter(creative::Column::AssetId.eq(m.id.clone()))
        .order_by_desc(creative::Column::CreatedAt)
        .all(&ctx.db)
        .await?;
    Ok(CreativeList {
        items: rows.into_iter().map(|c| view(ctx, c)).collect(),
    })
}

/// `GET assets/{assetId}/creatives/{creativeId}/content`: (content type, bytes).
pub async fn content(
    ctx: &Ctx,
    actor: &Principal,
    asset_id: &str,
    creative_id: &str,
) -> Result<(String, Vec<u8>), AppError> {
    require_development(ctx)?;
    let m = owned_campaign(&ctx.db, actor, asset_id).await?;
    let c = creative::Entity::find_by_id(creative_id.to_owned())
        .filter(creative::Column::AssetId.eq(m.id.clone()))
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("creative"))?;
    Ok((c.content_type, c.content))
}

/// `POST campaigns/validate-asset`: can this URL or upload be used as a creative?
pub async fn validate(
    ctx: &Ctx,
    actor: &Principal,
    req: ValidateAssetRequest,
) -> Result<AssetValidation, AppError> {
    actor.require_approved_advertiser()?;
    let mut reasons = Vec::new();
    let mut content_type = None;
    match (&req.url, &req.creative_id) {
        (Some(u), None) => {
            if let Err(e) = store_url(u) {
                reasons.push(format!("url {e}"));
            }
        }
        (None, Some(id)) => {
            let c = creative::Entity::find_by_id(id.clone())
                .one(&ctx.db)
                .await?;
            match c.filter(|c| actor.role.is_admin() || c.advertiser_id == actor.account_id) {
                Some(c) => content_type = Some(c.content_type),
                None => reasons.push("no such uploaded creative".to_owned()),
            }
        }
        _ => reasons.push("send exactly one of url or creativeId".to_owned()),
    }
    if req.kind == Some(CreativeKind::Video) && content_type.is_some() {
        reasons.push("uploaded creatives are images; a VIDEO needs a url".to_owned());
    }
    Ok(AssetValidation {
        valid: reasons.is_empty(),
        reasons,
        content_type,
    })
}
