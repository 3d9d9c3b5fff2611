//! The publisher offer gallery from the dashboard.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::ops::OfferGallery;

/// Live offers the publisher is eligible for, with the page's filters.
#[server(prefix = "/fn", endpoint = "publisher_offer_gallery")]
pub async fn offer_gallery_data(
    placement_id: Option<String>,
    country: Option<String>,
    platform: Option<String>,
) -> Result<OfferGallery, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::publisher::gallery::{GalleryQuery, gallery};
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
        gallery(
            &ctx,
            &p,
            GalleryQuery {
                placement_id,
                country,
                platform,
                // The page shows the 200 best paid; the API pages through all.
                limit: Some(200),
                cursor: None,
            },
        )
        .await
    })
    .await
}
