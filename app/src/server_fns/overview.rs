//! The home pages' figures (`domain::overview`).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::overview::Overview;

#[server(prefix = "/fn", endpoint = "publisher_overview")]
pub async fn publisher_overview() -> Result<Overview, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::overview::publisher::overview(&ctx, &p).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "advertiser_overview")]
pub async fn advertiser_overview() -> Result<Overview, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::overview::advertiser::overview(&ctx, &p).await
    })
    .await
}
