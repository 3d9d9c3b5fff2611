//! SeaORM models, one module per table. Models never go on the wire: the `app::model`
//! view types are built from them. Column types are chosen to behave the same on SQLite
//! and PostgreSQL: text ids, `BigInteger` money, UTC timestamps truncated to microseconds.

pub mod account;
pub mod api_token;
pub mod audit_event;
pub mod survey_api_credential;
pub mod web_session;
