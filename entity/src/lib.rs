//! SeaORM models, one module per table. Models never go on the wire: the `app::model`
//! view types are built from them. Column types are chosen to behave the same on SQLite
//! and PostgreSQL: text ids, `BigInteger` money, UTC timestamps truncated to microseconds.

pub mod account;
pub mod ad_slot;
pub mod ad_slot_revision;
pub mod allocation;
pub mod api_token;
pub mod app_key;
pub mod audit_event;
pub mod billing_profile;
pub mod blacklist;
pub mod callback_delivery;
pub mod callback_delivery_attempt;
pub mod callback_key;
pub mod callback_receiver;
pub mod campaign_credential;
pub mod conversion;
pub mod creative;
pub mod funding;
pub mod ledger_account;
pub mod ledger_entry;
pub mod ledger_transaction;
pub mod offer_campaign;
pub mod offer_campaign_revision;
pub mod payprovider_order;
pub mod placement;
pub mod postback_event;
pub mod sandbox_callback;
pub mod sdk_impression;
pub mod sdk_launch;
pub mod sdk_session;
pub mod static_key;
pub mod support_case;
pub mod support_evidence;
pub mod survey_api_credential;
pub mod survey_campaign;
pub mod survey_custom_question;
pub mod survey_entry;
pub mod survey_fetch;
pub mod survey_qualification;
pub mod survey_quota;
pub mod survey_reference;
pub mod survey_respondent;
pub mod survey_respondent_answer;
pub mod user_ban;
pub mod web_session;
