//! The integration suite: every test runs against SQLite and PostgreSQL through the real
//! HTTP server (see `tests/support`).

mod auth;
mod billing;
mod callback_delivery;
mod callbacks;
mod campaigns;
mod delivery;
mod errors;
mod evidence;
mod gallery;
mod hardening;
mod hosted_wall;
mod hot_cache;
mod http_stack;
mod inventory;
mod operations;
mod outage;
mod placement_view;
mod placements;
mod platform;
mod postbacks;
mod records;
mod retire;
mod slots;
mod survey_fetch;
mod survey_limits;
mod survey_payment;
mod survey_races;
mod survey_review;
mod survey_signatures;
mod survey_targeting;
mod surveys;
mod targeting;
mod tracking;
mod web;
mod web_pixel;
