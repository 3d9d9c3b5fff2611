//! Leptos server functions: thin wrappers that read the browser session, check CSRF and
//! call `domain`. No SQL and no rules live here.

pub mod admin;
pub mod api_keys;
pub mod auth;
pub mod billing;
pub mod campaigns;
pub mod earnings;
pub mod email;
mod error;
pub mod fraud;
pub mod mail;
pub mod notices;
pub mod overview;
pub mod payout_batches;
pub mod publisher;
pub mod roles;
pub mod second_factor;
pub mod surveys;
pub mod team;
pub mod user_identity;

#[cfg(feature = "ssr")]
pub mod fields;
#[cfg(feature = "ssr")]
pub mod flash;
#[cfg(feature = "ssr")]
pub mod web;
