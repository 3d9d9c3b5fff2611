//! The application crate: wire and view types (`model`), the error type, the business
//! rules (`domain`, server only) and the Leptos dashboards (`pages`, `components`,
//! `server_fns`). The frontend crate compiles it with `hydrate`, the server with `ssr`.

/// `wire_enum!`, for every closed set of wire values (docs/architecture.md).
#[macro_use]
extern crate entity;

#[cfg(feature = "ssr")]
pub mod auth;
pub mod components;
pub mod error;
pub mod model;
pub mod pages;
pub mod server_fns;
mod shell;

#[cfg(feature = "ssr")]
pub mod domain;

pub use shell::{App, shell};
