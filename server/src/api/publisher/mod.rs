//! The publisher console (`/publisher/v2`), behind the foundation feature switch. The
//! static feed is a delivery route (`api::delivery_routes`), served without the console's
//! extras.

pub mod callbacks;
pub mod deliveries;
pub mod earnings;
pub mod fraud;
pub mod gallery;
pub mod operations;
pub mod payouts;
pub mod placements;
pub mod reports;
pub mod slots;
pub mod static_feed;
pub mod user_identity;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(placements::router())
        .merge(slots::router())
        .merge(callbacks::router())
        .merge(deliveries::router())
        .merge(earnings::router())
        .merge(fraud::router())
        .merge(operations::router())
        .merge(payouts::router())
        .merge(gallery::router())
        .merge(reports::router())
        .merge(user_identity::router())
}
