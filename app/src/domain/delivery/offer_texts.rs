//! The advertiser's texts of an offer in the user's language: the campaign's translation
//! for that language where it has one (`translations`), otherwise the texts as the
//! advertiser gave them. Read from the live inventory snapshot, so a page of offers costs
//! no query.

use std::collections::HashMap;

use crate::domain::Ctx;
use crate::model::campaign::CampaignConfig;
use crate::model::language::Language;

/// An offer's own texts for one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferTexts {
    pub title: String,
    /// What to do, when the advertiser wrote it (the wall says "complete the goals"
    /// otherwise, in the user's language).
    pub description: Option<String>,
    /// Goal names by `externalGoalId`.
    pub goal_names: HashMap<String, String>,
}

impl OfferTexts {
    /// The texts of `config` in `lang`.
    pub fn of(config: &CampaignConfig, lang: Language) -> OfferTexts {
        let t = config.translations.get(lang.as_str());
        let description = t
            .and_then(|t| t.description.clone())
            .or_else(|| config.description.clone())
            .filter(|d| !d.trim().is_empty());
        OfferTexts {
            title: t
                .and_then(|t| t.name.clone())
                .unwrap_or_else(|| config.name.clone()),
            description,
            goal_names: config
                .goals
                .iter()
                .map(|g| {
                    let name = t
                        .and_then(|t| t.goals.get(&g.external_goal_id))
                        .unwrap_or(&g.name);
                    (g.external_goal_id.clone(), name.clone())
                })
                .collect(),
        }
    }

    /// A goal's name (its id when the goal is unknown).
    pub fn goal<'a>(&'a self, id: &'a str) -> &'a str {
        self.goal_names.get(id).map_or(id, String::as_str)
    }
}

/// The texts of the live offers among `ids` (an offer that ended is left out; callers keep
/// what they have for it).
pub async fn for_offers<'a>(
    ctx: &Ctx,
    ids: impl Iterator<Item = &'a str>,
    lang: Language,
) -> HashMap<String, OfferTexts> {
    let Ok(snap) = crate::domain::campaigns::snapshot::snapshot(ctx).await else {
        return HashMap::new();
    };
    ids.filter_map(|id| {
        snap.get(id)
            .map(|o| (id.to_owned(), OfferTexts::of(&o.config, lang)))
    })
    .collect()
}
