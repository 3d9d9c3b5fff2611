//! The service: configuration, CLI, HTTP surfaces and workers. `main.rs` only calls
//! [`cli::main`]; tests call [`startup::Application::build`] directly.

pub mod api;
#[cfg(feature = "bench")]
pub mod bench;
pub mod callback_sender;
pub mod cli;
pub mod config;
pub mod demo;
pub mod extract;
pub mod hosted_wall;
pub mod idempotent_answers;
pub mod layers;
pub mod mail;
pub mod metrics;
pub mod middleware;
pub mod outer_layer;
pub mod paypal;
pub mod route_facts;
pub mod routes;
pub mod serve;
pub mod session_store;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod web;
pub mod workers;

pub use config::Settings;
pub use startup::Application;
pub use state::AppState;
