//! The survey marketplace. Advertisers: the signed survey campaign API's authentication,
//! survey campaigns and their targeting (quotas, qualifications, custom questions).
//! Publishers: the survey fetch with respondent profiles and fraud checks, the hosted
//! survey entry and the settlement of completes.

/// Subject type of survey campaign audit records.
pub const SUBJECT: &str = "survey_campaign";

pub mod allocations;
pub mod campaigns;
pub mod cost;
pub mod entries;
pub mod fetch;
pub mod fraud;
pub mod grace;
pub mod live;
pub mod matching;
pub mod profile;
pub mod questions;
pub mod quotas;
pub mod reference;
pub mod respondents;
pub mod responses;
pub mod search;
pub mod signature;
pub mod stats;
pub mod verification;

/// What the survey fetch keeps in memory in one process (issue 31; each part documents how
/// other processes' changes reach it and within what bound).
pub struct SurveyDelivery {
    /// The live surveys (`live`).
    pub live: std::sync::Arc<live::LiveSurveys>,
    /// Respondents and the fraud score's history (`respondents`).
    pub respondents: respondents::Respondents,
    /// The batch writer of fetches (`respondents::writer`).
    pub writes: std::sync::Arc<respondents::writer::Writer>,
    /// Active app keys' placements by key hash (`None`: no such active key), until
    /// `Change::AppKeys` (a key issued revokes the placement's previous one).
    pub app_keys: crate::domain::hot_cache::GuardedCache<Option<String>>,
}

impl Default for SurveyDelivery {
    fn default() -> Self {
        SurveyDelivery {
            live: std::sync::Arc::default(),
            respondents: respondents::Respondents::default(),
            writes: std::sync::Arc::default(),
            app_keys: crate::domain::hot_cache::GuardedCache::new(
                crate::domain::hot_cache::HOT_CACHE_TTL,
                50_000,
            ),
        }
    }
}
