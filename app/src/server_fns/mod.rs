//! Leptos server functions: thin wrappers that read the browser session, check CSRF and
//! call `domain`. No SQL and no rules live here.

pub mod admin;
pub mod auth;
pub mod billing;
pub mod publisher;

#[cfg(feature = "ssr")]
pub mod web;
