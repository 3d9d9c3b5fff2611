//! Conversions: what advertisers report and what it does to the money. Reports arrive by
//! Custom S2S postbacks (`postbacks`), provider tokens and MMP routes (`token_postbacks`,
//! mapped by `provider_params`) and are checked without effect in the `sandbox`; each is a
//! [`reported::Reported`], accepted by the `inbox` (inline or queued for bursts) and applied
//! by `settlement` (attribution, fraud screening, caps, reserve, ledger, reward callback);
//! a conversion held by screening waits in `holds` for a decision.

pub mod holds;
pub mod inbox;
pub mod list;
pub mod postbacks;
pub mod provider_params;
pub mod reported;
pub mod reversal;
pub mod sandbox;
pub mod settlement;
pub mod token_postbacks;
