//! The signed SurveyUrl: what it grants and how it is checked. Kept apart because the fetch
//! signs links and the entry reads them, and neither needs the other's rules.

use chrono::{DateTime, Utc};

use crate::domain::Ctx;
use crate::error::AppError;

/// How long a SurveyUrl stays valid.
pub const ENTRY_TTL_MINUTES: i64 = 60;

/// What a SurveyUrl grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryGrant {
    pub campaign_id: String,
    pub respondent_id: String,
    pub slot_id: Option<String>,
    pub expires: i64,
    pub verify: bool,
}

fn grant_text(g: &EntryGrant) -> String {
    format!(
        "{}.{}.{}.{}.{}",
        g.campaign_id,
        g.respondent_id,
        g.slot_id.as_deref().unwrap_or("-"),
        g.expires,
        u8::from(g.verify)
    )
}

/// The signed hosted entry link.
pub fn entry_url(
    ctx: &Ctx,
    now: DateTime<Utc>,
    campaign_id: &str,
    respondent_id: &str,
    slot_id: Option<&str>,
    verify: bool,
) -> String {
    let g = EntryGrant {
        campaign_id: campaign_id.to_owned(),
        respondent_id: respondent_id.to_owned(),
        slot_id: slot_id.map(str::to_owned),
        expires: (now + chrono::Duration::minutes(ENTRY_TTL_MINUTES)).timestamp(),
        verify,
    };
    let text = grant_text(&g);
    let sig = ctx.keys.sign(&format!("survey-entry:{text}"));
    format!("{}/surveys/v1/entry/{text}.{sig}", ctx.config.base_url)
}

/// Checks a SurveyUrl token (signature and expiry).
pub fn read_grant(ctx: &Ctx, now: DateTime<Utc>, token: &str) -> Result<EntryGrant, AppError> {
    let bad = || AppError::not_found("survey link").with_code("invalid_link");
    let (text, sig) = token.rsplit_once('.').ok_or_else(bad)?;
    if !ctx.keys.verify(&format!("survey-entry:{text}"), sig) {
        return Err(bad());
    }
    let parts: Vec<&str> = text.split('.').collect();
    let [c, r, s, e, v] = parts.as_slice() else {
        return Err(bad());
    };
    let g = EntryGrant {
        campaign_id: (*c).to_owned(),
        respondent_id: (*r).to_owned(),
        slot_id: (*s != "-").then(|| (*s).to_owned()),
        expires: e.parse().map_err(|_| bad())?,
        verify: *v == "1",
    };
    if now.timestamp() > g.expires {
        return Err(
            AppError::gone("this survey link has expired; fetch surveys again")
                .with_code("link_expired"),
        );
    }
    Ok(g)
}
