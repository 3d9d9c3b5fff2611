//! Wire and view types shared by the JSON APIs, the server functions and the browser.
//! Pure: no database, no clock; compiles to wasm.

// `wire_enum!` is declared in `entity::values` (one mechanism for stored statuses and wire
// codes alike) and imported crate-wide in `lib.rs`.

pub mod account;
pub mod api_key;
pub mod billing;
pub mod callback_delivery;
pub mod campaign;
pub mod delivery;
pub mod fraud;
pub mod language;
pub mod mail;
pub mod money;
pub mod notice;
pub mod overview;
pub mod postbacks;
pub mod publisher;
pub mod report;
pub mod second_factor;
pub mod signed_in;
pub mod survey;
pub mod team;
pub mod user_identity;
pub mod validate;
pub mod wall_design;

pub use account::*;
pub use mail::MailTopic;
pub use notice::NoticeTopic;
pub use survey::credentials::*;
