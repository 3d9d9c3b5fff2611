//! The integration suite: every test runs against SQLite and PostgreSQL through the real
//! HTTP server (see `tests/support`).

mod auth;
mod billing;
mod callbacks;
mod campaigns;
mod delivery;
mod errors;
mod gallery;
mod hardening;
mod operations;
mod placements;
mod platform;
mod postbacks;
mod slots;
mod surveys;
mod tracking;
mod web;
