//! One ad slot: its configuration form with a live reward preview, state changes, SDK
//! snippets and (STATIC_API slots) the static feed key.

mod panels;
mod wall;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use self::panels::{LiveCurrency, PreviewPanel, SnippetsPanel, StateForm, StaticKeyForm};
use self::wall::WallSection;
use super::{SecretBoxes, SlotStateBadge, action_error, load_error};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::AccountView;
use crate::model::publisher::{
    AdSlot, OfferSort, Placement, PlacementStatus, RewardPreview, SlotType, Snippets,
};
use crate::pages::RequireUser;
use crate::pages::publisher::placement::{Readiness, RoundingSelect};
use crate::server_fns::publisher::*;

/// The page's actions, created once so that their answers survive the reload they trigger.
#[derive(Clone, Copy)]
pub(in crate::pages::publisher) struct SlotActions {
    pub update: ServerAction<UpdateSlot>,
    pub state: ServerAction<SetSlotState>,
    pub static_key: ServerAction<IssueStaticKey>,
}

type Loaded<T> = Resource<Result<T, crate::error::AppError>>;

/// Everything the page loads and does. Created in the page body, before [`RequireUser`]
/// (see the placement page for why).
#[derive(Clone, Copy)]
struct SlotData {
    sid: Memo<String>,
    usd: Memo<String>,
    actions: SlotActions,
    placement: Loaded<Placement>,
    preview: Loaded<RewardPreview>,
    snippets: Loaded<Snippets>,
    flash: Loaded<Flash>,
}

#[component]
pub fn SlotEditorPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let pid = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let sid = Memo::new(move |_| params.read().get("slot_id").unwrap_or_default());
    let usd = Memo::new(move |_| query.read().get("usd").unwrap_or_else(|| "1.00".to_owned()));
    let actions = SlotActions {
        update: ServerAction::new(),
        state: ServerAction::new(),
        static_key: ServerAction::new(),
    };
    let changes = move || actions.update.version().get() + actions.state.version().get();
    let data = SlotData {
        sid,
        usd,
        actions,
        placement: Resource::new(
            move || (pid.get(), changes()),
            |(pid, _)| get_placement(pid),
        ),
        preview: Resource::new(
            move || (pid.get(), sid.get(), usd.get(), changes()),
            |(p, s, usd, _)| preview_reward(p, s, usd),
        ),
        snippets: Resource::new(move || (pid.get(), sid.get()), |(p, s)| slot_snippets(p, s)),
        flash: Resource::new(move || sid.get(), take_flash),
    };
    view! {
        <Title text="Ad slot"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <SlotEditor data/> }/>
    }
}

#[component]
fn SlotEditor(data: SlotData) -> impl IntoView {
    let SlotData {
        sid,
        usd,
        actions,
        placement,
        preview,
        snippets,
        flash,
    } = data;
    let scripted = Signal::derive(move || match actions.static_key.value().get() {
        Some(Ok(k)) => vec![OneTimeSecret {
            label: format!(
                "Static feed key {} (expires {})",
                k.static_key_id,
                k.expires_at.format("%Y-%m-%d")
            ),
            value: k.token,
        }],
        _ => Vec::new(),
    });
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let flashed = flash.await.ok().unwrap_or_default().secret;
                view! { <SecretBoxes scripted flashed/> }
            })}
        </Suspense>
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || Suspend::new(async move {
                let (p, preview, snippets) = (placement.await, preview.await, snippets.await);
                let found = p.and_then(|p| {
                    let slot = p.ad_slots.clone().unwrap_or_default().into_iter()
                        .find(|s| s.ad_slot_id == sid.get_untracked());
                    slot.map(|s| (p, s)).ok_or_else(|| crate::error::AppError::not_found("ad slot"))
                });
                match found {
                    Err(error) => load_error(error),
                    Ok((p, slot)) => {
                        let live = LiveCurrency::new(&slot.currency, usd.get_untracked());
                        view! {
                            <p class="crumbs">
                                <a href="/publisher/placements">"Placements"</a>" / "
                                <a href=format!("/publisher/placements/{}", p.placement_id)>{p.name.clone()}</a>
                            </p>
                            <Overview p=p.clone() ad_slot=slot.clone() actions/>
                            <div class="columns">
                                <EditForm ad_slot=slot.clone() actions live/>
                                <PreviewPanel live server=preview/>
                            </div>
                            {(slot.slot_type == SlotType::Offerwall).then(|| view! {
                                <WallSection ad_slot=slot.clone() verified=p.status == PlacementStatus::Verified/>
                            })}
                            {(slot.slot_type == SlotType::StaticApi).then(|| view! {
                                <StaticKeyForm ad_slot=slot.clone() action=actions.static_key/>
                            })}
                            <SnippetsPanel snippets/>
                        }
                        .into_any()
                    }
                }
            })}
        </Transition>
    }
}

#[component]
fn Overview(p: Placement, ad_slot: AdSlot, actions: SlotActions) -> impl IntoView {
    let slot = ad_slot;
    view! {
        <Title text=slot.name.clone()/>
        <section class="card">
            <div class="card-head">
                <h1>{slot.name.clone()}</h1>
                <div class="badges"><SlotStateBadge state=slot.state/></div>
            </div>
            <dl class="facts">
                <dt>"Ad slot id"</dt><dd><code>{slot.ad_slot_id.clone()}</code></dd>
                <dt>"Type"</dt><dd>{slot.slot_type.as_str()}</dd>
                <dt>"Placement"</dt><dd>{p.name.clone()}" · "{p.status.as_str()}{if p.released { " · released" } else { " · not released" }}</dd>
                <dt>"Configuration version"</dt><dd>{slot.configuration_version}</dd>
                <dt>"Readiness"</dt><dd><Readiness reasons=slot.readiness.reasons.clone()/></dd>
            </dl>
            <StateForm ad_slot=slot action=actions.state/>
        </section>
    }
}

#[component]
fn EditForm(ad_slot: AdSlot, actions: SlotActions, live: LiveCurrency) -> impl IntoView {
    let slot = ad_slot;
    let c = slot.currency.clone();
    let pol = slot.policy.clone();
    let od = slot.offer_delivery.clone();
    let saved = move || actions.update.value().get().is_some_and(|r| r.is_ok());
    view! {
        <section class="card grow">
            <h2>"Configuration"</h2>
            <ErrorNotice error=action_error(actions.update)/>
            <Show when=saved>
                <div class="notice ok" role="status">"Saved as a new configuration version."</div>
            </Show>
            <ActionForm action=actions.update attr:class="grid-2">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=slot.placement_id.clone()/>
                <input type="hidden" name="slot_id" value=slot.ad_slot_id.clone()/>
                <label class="span-2">"Name"<input type="text" name="name" value=slot.name.clone() maxlength="80" required/></label>
                <fieldset class="span-2 grid-2">
                    <legend>"Currency"</legend>
                    <label>"Name"<input type="text" name="currency_name" value=c.name.clone() on:input=live.bind(live.name)/></label>
                    <label>"Decimals"<input type="number" name="decimals" min="0" max="8" value=c.decimals on:input=live.bind(live.decimals)/></label>
                    <label>"Rate: minor units"<input type="number" name="rate_numerator" min="0" value=c.rate_numerator_minor_units on:input=live.bind(live.numerator)/></label>
                    <label>"per USD micros"<input type="number" name="rate_denominator" min="1" value=c.rate_denominator_usd_micros.get() on:input=live.bind(live.denominator)/></label>
                    <label>"Minimum payout (minor units)"<input type="number" name="minimum_payout" min="0" value=c.minimum_payout_minor_units on:input=live.bind(live.minimum)/></label>
                    <label>"Rounding"<RoundingSelect selected=c.rounding on_change=Callback::new(move |v| { live.rounding.set(v); live.touched.set(true); })/></label>
                </fieldset>
                <fieldset class="span-2 grid-2">
                    <legend>"Policy (comma-separated)"</legend>
                    <label>"Allowed countries"<input type="text" name="allowed_countries" placeholder="US, CA" value=pol.allowed_countries.join(", ")/></label>
                    <label>"Blocked countries"<input type="text" name="blocked_countries" value=pol.blocked_countries.join(", ")/></label>
                    <label>"Blocked campaign ids"<input type="text" name="blocked_campaign_ids" value=pol.blocked_campaign_ids.join(", ")/></label>
                    <label>"Excluded task types"<input type="text" name="excluded_task_types" value=pol.excluded_campaign_task_types.join(", ")/></label>
                    <label class="span-2">"Excluded categories"<input type="text" name="excluded_categories" value=pol.excluded_campaign_categories.join(", ")/></label>
                </fieldset>
                <fieldset class="span-2 grid-2">
                    <legend>"Offer delivery"</legend>
                    <label>"Sort"
                        <select name="sort">
                            {OfferSort::ALL.iter().map(|s| view! {
                                <option value=s.as_str() selected=*s == od.sort>{s.as_str()}</option>
                            }).collect_view()}
                        </select>
                    </label>
                    <label>"Minimum payout (USD micros)"<input type="number" name="minimum_payout_micros" min="0" value=od.minimum_payout_micros.get()/></label>
                </fieldset>
                <div class="form-actions span-2"><Submit action=actions.update label="Save configuration"/></div>
            </ActionForm>
        </section>
    }
}
