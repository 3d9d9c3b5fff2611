//! Leptos server functions: thin wrappers that read the browser session, check CSRF and
//! call `domain`. No SQL and no rules live here.

pub mod admin;
pub mod auth;
pub mod billing;
pub mod campaigns;
pub mod campaigns_admin;
pub mod campaigns_targeting;
pub mod campaigns_tracking;
pub mod publisher;
pub mod publisher_deliveries;
pub mod publisher_gallery;
pub mod publisher_reports;
pub mod publisher_support;
pub mod publisher_wall;
pub mod surveys;
pub mod user_identity;

#[cfg(feature = "ssr")]
pub mod flash;
#[cfg(feature = "ssr")]
pub mod web;
