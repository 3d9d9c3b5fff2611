//! Wire and view types shared by the JSON APIs, the server functions and the browser.
//! Pure: no database, no clock; compiles to wasm.

pub mod account;
pub mod billing;
pub mod money;
pub mod publisher;
pub mod publisher_ops;
pub mod publisher_rules;
pub mod survey_api;
pub mod validate;

pub use account::*;
pub use survey_api::*;
