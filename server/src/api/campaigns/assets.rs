//! Development-only creatives (404 in production): upload capability, upload, list,
//! content, and asset validation. `assetId` is the offer campaign id.

use app::domain::campaigns::assets;
use app::error::AppError;
use app::model::campaign::*;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(capability))
        .routes(routes!(list, upload))
        .routes(routes!(content))
        .routes(routes!(validate))
}

/// Whether creatives can be uploaded here (development only), size and type limits.
#[utoipa::path(get, path = "/upload-capability", tag = "assets", security(("dashboardBearer" = [])),
    responses((status = 200, body = UploadCapability)))]
async fn capability(
    State(s): State<AppState>,
    Authenticated(_p): Authenticated,
) -> AppJson<UploadCapability> {
    AppJson(assets::capability(&s.ctx))
}

/// Creatives of the asset (the campaign), newest first.
#[utoipa::path(get, path = "/assets/{assetId}/creatives", tag = "assets", security(("dashboardBearer" = [])),
    params(("assetId" = String, Path, description = "offer campaign id")), responses((status = 200, body = CreativeList), (status = 404, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(asset): AppPath<String>,
) -> Result<AppJson<CreativeList>, AppError> {
    assets::list(&s.ctx, &p, &asset).await.map(AppJson)
}

/// Upload an image creative as base64 (PNG, JPEG, GIF or WebP, at most 512 KiB; the bytes
/// must match `contentType`).
#[utoipa::path(post, path = "/assets/{assetId}/creatives", tag = "assets", security(("dashboardBearer" = [])),
    params(("assetId" = String, Path, description = "offer campaign id")), request_body = CreativeUpload,
    responses((status = 201, body = Creative), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 413, body = ErrorBody)))]
async fn upload(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(asset): AppPath<String>,
    AppJson(b): AppJson<CreativeUpload>,
) -> Result<(StatusCode, AppJson<Creative>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(assets::upload(&s.ctx, &p, &asset, b).await?),
    ))
}

/// The creative's bytes with their content type.
#[utoipa::path(get, path = "/assets/{assetId}/creatives/{creativeId}/content", tag = "assets", security(("dashboardBearer" = [])),
    params(("assetId" = String, Path), ("creativeId" = String, Path)),
    responses((status = 200, content_type = "image/*", description = "the image"), (status = 404, body = ErrorBody)))]
async fn content(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((asset, creative)): AppPath<(String, String)>,
) -> Result<Response, AppError> {
    let (content_type, bytes) = assets::content(&s.ctx, &p, &asset, &creative).await?;
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            (header::CACHE_CONTROL, "private, max-age=300".to_owned()),
        ],
        bytes,
    )
        .into_response())
}

/// Whether a URL or an uploaded creative can be used in a campaign, with reasons.
#[utoipa::path(post, path = "/campaigns/validate-asset", tag = "assets", security(("dashboardBearer" = [])),
    request_body = ValidateAssetRequest, responses((status = 200, body = AssetValidation)))]
async fn validate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<ValidateAssetRequest>,
) -> Result<AppJson<AssetValidation>, AppError> {
    assets::validate(&s.ctx, &p, b).await.map(AppJson)
}
