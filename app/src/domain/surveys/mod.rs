//! The survey marketplace. Advertisers: the signed survey campaign API's authentication,
//! survey campaigns and their targeting (quotas, qualifications, custom questions).
//! Publishers: the survey fetch with respondent profiles and fraud checks, the hosted
//! survey entry and the settlement of completes.

pub mod campaigns;
pub mod cost;
pub mod entries;
pub mod fetch;
pub mod fraud;
pub mod grace;
pub mod matching;
pub mod profile;
pub mod questions;
pub mod quotas;
pub mod reference;
pub mod responses;
pub mod search;
pub mod signature;
pub mod stats;
pub mod verification;
