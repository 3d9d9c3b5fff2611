//! SeaORM models, one module per table. Models never go on the wire: the `app::model`
//! view types are built from them. Column types are chosen to behave the same on SQLite
//! and PostgreSQL: text ids, `BigInteger` money, UTC timestamps truncated to microseconds.
//!
//! The tables need the `db` feature (on by default); [`values`] (statuses, kinds and the
//! other closed sets of text values, with [`wire_enum!`]) compiles without it, for the
//! browser build.
pub mod values;

/// What the exported macros name from this crate's dependencies, so a crate that expands
/// them needs neither.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "db")]
    pub use sea_orm;
    #[cfg(feature = "openapi")]
    pub use utoipa;
}

#[cfg(feature = "db")]
pub mod account;
#[cfg(feature = "db")]
pub mod ad_slot;
#[cfg(feature = "db")]
pub mod ad_slot_revision;
#[cfg(feature = "db")]
pub mod allocation;
#[cfg(feature = "db")]
pub mod api_key;
#[cfg(feature = "db")]
pub mod api_token;
#[cfg(feature = "db")]
pub mod app_key;
#[cfg(feature = "db")]
pub mod audit_event;
#[cfg(feature = "db")]
pub mod billing_profile;
#[cfg(feature = "db")]
pub mod blacklist;
#[cfg(feature = "db")]
pub mod callback_delivery;
#[cfg(feature = "db")]
pub mod callback_delivery_attempt;
#[cfg(feature = "db")]
pub mod callback_key;
#[cfg(feature = "db")]
pub mod callback_receiver;
#[cfg(feature = "db")]
pub mod campaign_credential;
#[cfg(feature = "db")]
pub mod conversion;
#[cfg(feature = "db")]
pub mod creative;
#[cfg(feature = "db")]
pub mod funding;
#[cfg(feature = "db")]
pub mod idempotent_request;
#[cfg(feature = "db")]
pub mod invitation;
#[cfg(feature = "db")]
pub mod ledger_account;
#[cfg(feature = "db")]
pub mod ledger_entry;
#[cfg(feature = "db")]
pub mod ledger_transaction;
#[cfg(feature = "db")]
pub mod mail_outbox;
#[cfg(feature = "db")]
pub mod offer_campaign;
#[cfg(feature = "db")]
pub mod offer_campaign_revision;
#[cfg(feature = "db")]
pub mod password_reset;
#[cfg(feature = "db")]
pub mod payout;
#[cfg(feature = "db")]
pub mod payout_profile;
#[cfg(feature = "db")]
pub mod payout_run;
#[cfg(feature = "db")]
pub mod payprovider_order;
#[cfg(feature = "db")]
pub mod placement;
#[cfg(feature = "db")]
pub mod placement_user_identity;
#[cfg(feature = "db")]
pub mod postback_event;
#[cfg(feature = "db")]
pub mod publisher_earning_terms;
#[cfg(feature = "db")]
pub mod reconciliation_batch;
#[cfg(feature = "db")]
pub mod reconciliation_line;
#[cfg(feature = "db")]
pub mod recovery_code;
#[cfg(feature = "db")]
pub mod sandbox_callback;
#[cfg(feature = "db")]
pub mod sdk_impression;
#[cfg(feature = "db")]
pub mod sdk_launch;
#[cfg(feature = "db")]
pub mod sdk_session;
#[cfg(feature = "db")]
pub mod second_factor;
#[cfg(feature = "db")]
pub mod static_key;
#[cfg(feature = "db")]
pub mod support_case;
#[cfg(feature = "db")]
pub mod support_evidence;
#[cfg(feature = "db")]
pub mod survey_api_credential;
#[cfg(feature = "db")]
pub mod survey_campaign;
#[cfg(feature = "db")]
pub mod survey_custom_question;
#[cfg(feature = "db")]
pub mod survey_entry;
#[cfg(feature = "db")]
pub mod survey_fetch;
#[cfg(feature = "db")]
pub mod survey_qualification;
#[cfg(feature = "db")]
pub mod survey_quota;
#[cfg(feature = "db")]
pub mod survey_reference;
#[cfg(feature = "db")]
pub mod survey_respondent;
#[cfg(feature = "db")]
pub mod survey_respondent_answer;
#[cfg(feature = "db")]
pub mod survey_signature_use;
#[cfg(feature = "db")]
pub mod user_ban;
#[cfg(feature = "db")]
pub mod web_session;
