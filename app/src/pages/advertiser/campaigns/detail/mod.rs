//! `/advertiser/campaigns/:id`: status and money, lifecycle buttons, clone, readiness,
//! targeting and goals, the edit form, revisions and the audit trail.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::super::{action_error, successes};
mod parts;

use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::campaign::rules::advertiser_moves;
use crate::model::campaign::{Campaign, CampaignStatus};
use crate::pages::RequireUser;
use crate::pages::advertiser::campaigns::offer_form::OfferForm;
use crate::pages::advertiser::campaigns::targeting_form::TargetingForm;
use crate::pages::advertiser::campaigns::translations_form::TranslationsForm;
use crate::pages::advertiser::campaigns::{
    CampaignBadge, campaign_load_error, field_error_at, move_label,
};
use crate::server_fns::campaigns::offer::EditCampaignOffer;
use crate::server_fns::campaigns::targeting::EditCampaignTargeting;
use crate::server_fns::campaigns::translations::EditCampaignTranslation;
use crate::server_fns::campaigns::{
    CampaignOverview, CloneOfferCampaign, EditOfferCampaign, MoveCampaign, campaign_page_data,
};
use parts::{AuditPanel, GoalsPanel, ReadinessPanel, RevisionsPanel};

/// The page's actions, created once so their answers survive the reload they trigger.
#[derive(Clone, Copy)]
struct DetailActions {
    edit: ServerAction<EditOfferCampaign>,
    moves: ServerAction<MoveCampaign>,
    clone: ServerAction<CloneOfferCampaign>,
    targeting: ServerAction<EditCampaignTargeting>,
    offer: ServerAction<EditCampaignOffer>,
    translation: ServerAction<EditCampaignTranslation>,
}

/// Everything the page loads and does, created in the page body before [`RequireUser`].
#[derive(Clone, Copy)]
struct DetailData {
    actions: DetailActions,
    overview: Resource<Result<CampaignOverview, AppError>>,
}

#[component]
pub fn CampaignDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let actions = DetailActions {
        edit: ServerAction::new(),
        moves: ServerAction::new(),
        clone: ServerAction::new(),
        targeting: ServerAction::new(),
        offer: ServerAction::new(),
        translation: ServerAction::new(),
    };
    let (edited, moved) = (successes(actions.edit), successes(actions.moves));
    let (targeted, offered) = (successes(actions.targeting), successes(actions.offer));
    let translated = successes(actions.translation);
    let overview = Resource::new(
        move || {
            (
                id.get(),
                edited.get(),
                moved.get(),
                targeted.get(),
                offered.get(),
                translated.get(),
            )
        },
        |(id, ..)| campaign_page_data(id),
    );
    let data = DetailData { actions, overview };
    view! {
        <Title text="Campaign"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <CampaignDetail data/> }/>
    }
}

#[component]
fn CampaignDetail(data: DetailData) -> impl IntoView {
    let DetailData { actions, overview } = data;
    let moved = move || {
        actions.moves.value().get().and_then(Result::ok).map(|c| {
            view! {
                <div class="notice ok" role="status" id="moved">
                    {format!("The campaign is now {}.", c.status.as_str())}
                </div>
            }
        })
    };
    view! {
        <p class="crumbs"><a href="/advertiser/campaigns" rel="external">"← Campaigns"</a></p>
        {moved}
        {loaded(overview, campaign_load_error, move |o| {
            let c = o.campaign.clone();
            let r = o.readiness.clone();
            let (revisions, audit) = (o.revisions.clone(), o.audit.clone());
            view! {
                <Title text=c.config.name.clone()/>
                <Header o actions/>
                <ReadinessPanel r status=c.status/>
                <GoalsPanel c=c.clone()/>
                <EditForm c=c.clone() actions/>
                <OfferForm c=c.clone() action=actions.offer/>
                <TargetingForm c=c.clone() action=actions.targeting/>
                <TranslationsForm c action=actions.translation/>
                <RevisionsPanel items=revisions/>
                <AuditPanel items=audit/>
            }
            .into_any()
        }
        )}
    }
}

#[component]
fn Header(o: CampaignOverview, actions: DetailActions) -> impl IntoView {
    let c = o.campaign;
    let id = c.campaign_id.clone();
    let base = format!("/advertiser/campaigns/{id}");
    let rejected = (c.status == CampaignStatus::Rejected)
        .then(|| c.rejection_reason.clone().unwrap_or_default());
    let live = c
        .live_revision
        .map(|r| format!("revision {r}"))
        .unwrap_or_else(|| "not approved yet".to_owned());
    let wallet = o.balance.map(|b| {
        format!(
            "Wallet: {} available, {} reserved by campaigns.",
            b.available_micros.money(&b.currency),
            b.reserved_micros.money(&b.currency)
        )
    });
    view! {
        <section class="card" id="campaign">
            <div class="card-head">
                <h1>{c.config.name.clone()}</h1>
                <div class="badges"><CampaignBadge status=c.status/></div>
            </div>
            <dl class="facts">
                <dt>"Campaign id"</dt><dd><code>{id.clone()}</code></dd>
                <dt>"Tracking"</dt><dd><code>{c.config.tracking_provider.clone()}</code></dd>
                <dt>"Budget"</dt><dd class="budget">{c.config.budget_micros.money("USD")}</dd>
                <dt>"Reserved"</dt><dd class="reserved">{c.reserved_micros.money("USD")}</dd>
                <dt>"Spent"</dt><dd class="spent">{c.spent_micros.money("USD")}</dd>
                <dt>"Revision"</dt>
                <dd>
                    {c.revision}" (live: "{live}")"
                    {c.pending_revision.then(|| view! { " " <span class="badge">"pending review"</span> })}
                </dd>
            </dl>
            {wallet.map(|w| view! { <p class="muted wallet">{w}</p> })}
            {rejected.map(|why| view! {
                <div class="notice error" role="status" id="rejection">
                    <strong>"Rejected by the reviewer: "</strong>{why}
                </div>
            })}
            <ErrorNotice error=action_error(actions.moves)/>
            <ErrorNotice error=action_error(actions.clone)/>
            <div class="actions">
                <Moves id=id.clone() status=c.status moves=actions.moves/>
                <a class="button secondary" href=format!("{base}/tracking") rel="external">"Tracking setup"</a>
                <a class="button secondary" href=format!("{base}/report") rel="external">"Report"</a>
            </div>
            <ActionForm action=actions.clone attr:class="row clone-form">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=id/>
                <label class="grow">"Name of the copy"
                    <input type="text" name="name" maxlength="120" placeholder=format!("Copy of {}", c.config.name)/>
                </label>
                <Submit action=actions.clone label="Clone campaign" class="secondary"/>
            </ActionForm>
        </section>
    }
}

/// The lifecycle buttons allowed from the current status (one form, the button names the move).
#[component]
fn Moves(id: String, status: CampaignStatus, moves: ServerAction<MoveCampaign>) -> impl IntoView {
    let allowed = advertiser_moves(status);
    (!allowed.is_empty()).then(|| {
        view! {
            <ActionForm action=moves attr:class="inline lifecycle">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=id/>
                {allowed.iter().map(|to| {
                    let class = match to {
                        CampaignStatus::Ended | CampaignStatus::Archived => "danger",
                        CampaignStatus::InReview | CampaignStatus::Live => "",
                        _ => "secondary",
                    };
                    view! {
                        <button type="submit" name="to" value=to.as_str() class=class>
                            {move_label(status, *to)}
                        </button>
                    }
                }).collect_view()}
            </ActionForm>
        }
    })
}

/// Name, budget and destination URL (PATCH semantics: unchanged fields make no revision).
#[component]
fn EditForm(c: Campaign, actions: DetailActions) -> impl IntoView {
    let error = action_error(actions.edit);
    let saved = move || actions.edit.value().get().is_some_and(|r| r.is_ok());
    let read_only = matches!(c.status, CampaignStatus::Ended | CampaignStatus::Archived);
    view! {
        <section class="card" id="edit">
            <h2>"Settings"</h2>
            <p class="muted">
                {if read_only {
                    "An ended campaign cannot be edited."
                } else {
                    "Before the first submission edits rewrite the draft; afterwards every edit is a new revision that needs review, and a live campaign keeps delivering its approved revision meanwhile."
                }}
            </p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Saved."</div>
            </Show>
            <ActionForm action=actions.edit attr:class="grid-2 edit-form">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=c.campaign_id.clone()/>
                <label>"Name"
                    <input type="text" name="name" maxlength="120" value=c.config.name.clone()/>
                    {field_error_at(error, "name".to_owned())}
                </label>
                <label>"Total budget (USD)"
                    <input type="text" name="budget" inputmode="decimal" value=c.budget.clone()/>
                    {field_error_at(error, "budgetMicros".to_owned())}
                </label>
                <label class="span-2">"Destination URL"
                    <input type="text" name="destination_url" inputmode="url" value=c.config.destination_url.clone()/>
                    <small class="muted">"Must contain "<code>"{click_id}"</code>"."</small>
                    {field_error_at(error, "destinationUrl".to_owned())}
                </label>
                <div class="form-actions">
                    <button type="submit" disabled=read_only>"Save settings"</button>
                </div>
            </ActionForm>
        </section>
    }
}
