//! One placement: status and review, edit form, ad slots, reward callback and keys.

mod actions;
mod callback;
mod slots;
mod user_identity;

use actions::DetailActions;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;
pub(in crate::pages::publisher) use slots::{Readiness, RoundingSelect};

use self::callback::CallbackSection;
use self::slots::SlotsSection;
use self::user_identity::UserIdentitySection;
use super::deliveries::DeliveryHealthCard;
use super::{ReleasedBadge, SecretBoxes, StatusBadge, action_error, load_error};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::AccountView;
use crate::model::publisher::{Placement, PlacementStatus};
use crate::pages::RequireUser;
use crate::server_fns::publisher::*;
use crate::server_fns::user_identity::load_user_identity;

type Loaded<T> = Resource<Result<T, crate::error::AppError>>;

/// Everything the page loads and does. Created in the page body, before [`RequireUser`]:
/// its content can render more than once on the server, and resources created in there
/// would be created (and fetched) again, which breaks hydration and would consume the
/// one-time flash more than once.
#[derive(Clone, Copy)]
struct DetailData {
    actions: DetailActions,
    placement: Loaded<Placement>,
    flash: Loaded<Flash>,
    /// Created with the page (not inside a Suspense) so hydration finds it in order.
    health:
        Resource<Result<crate::model::callback_delivery::DeliveryHealth, crate::error::AppError>>,
    identity: Loaded<crate::model::user_identity::UserIdentitySettings>,
}

#[component]
pub fn PlacementDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let actions = DetailActions::new();
    let data = DetailData {
        actions,
        placement: Resource::new(
            move || (id.get(), actions.changes()),
            |(id, _)| get_placement(id),
        ),
        flash: Resource::new(move || id.get(), take_flash),
        health: Resource::new(
            move || id.get(),
            crate::server_fns::publisher::deliveries::load_delivery_health,
        ),
        identity: Resource::new(
            move || {
                (
                    id.get(),
                    actions.user_secret.version().get() + actions.user_required.version().get(),
                )
            },
            |(id, _)| load_user_identity(id),
        ),
    };
    view! {
        <Title text="Placement"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <PlacementDetail data/> }/>
    }
}

#[component]
fn PlacementDetail(data: DetailData) -> impl IntoView {
    let DetailData {
        actions,
        placement,
        flash,
        health,
        identity,
    } = data;
    view! {
        <p class="crumbs"><a href="/publisher/placements">"← Placements"</a></p>
        // One boundary reads each resource once (a resource read in two boundaries can
        // stall the async renderer): the one-time secrets sit above the placement.
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || Suspend::new(async move {
                let flashed = flash.await.ok().unwrap_or_default();
                let settings = identity.await;
                let scripted = Signal::derive(move || actions.secrets());
                let secrets = view! {
                    <SecretBoxes scripted flashed=flashed.secret/>
                    <Show when=move || actions.promote.value().get().is_some_and(|r| r.is_ok())>
                        <div class="notice ok" role="status">"The next key is now the current signing key."</div>
                    </Show>
                };
                match placement.await {
                    Err(error) => view! { {secrets} {load_error(error)} }.into_any(),
                    Ok(p) => view! {
                        {secrets}
                        <Header p=p.clone() actions/>
                        <EditForm p=p.clone() actions/>
                        <SlotsSection p=p.clone() create=actions.create_slot/>
                        <DeliveryHealthCard health/>
                        <UserIdentitySection placement_id=p.placement_id.clone() settings actions/>
                        <CallbackSection p actions flashed_test=flashed.callback_test/>
                    }
                    .into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Header(p: Placement, actions: DetailActions) -> impl IntoView {
    let can_request = matches!(p.status, PlacementStatus::Draft | PlacementStatus::Rejected);
    let rejected = p.status == PlacementStatus::Rejected;
    let note = p.review_note.clone().unwrap_or_default();
    let pid = p.placement_id.clone();
    let (pid2, pid3) = (pid.clone(), pid.clone());
    let caps = &p.capabilities;
    let summary = format!(
        "SDK sessions: {} · production delivery: {} · survey fetch: {}",
        yes_no(caps.sdk_sessions),
        yes_no(caps.production_delivery),
        yes_no(caps.survey_fetch)
    );
    view! {
        <Title text=p.name.clone()/>
        <section class="card">
            <div class="card-head">
                <h1>{p.name.clone()}</h1>
                <div class="badges"><StatusBadge status=p.status/><ReleasedBadge released=p.released/></div>
            </div>
            <dl class="facts">
                <dt>"Placement id"</dt><dd><code>{p.placement_id.clone()}</code></dd>
                <dt>"Type"</dt><dd>{p.placement_type.as_str()}" ("{p.platform.clone()}")"</dd>
                <dt>"Identity"</dt><dd><code>{p.platform_identity.clone()}</code></dd>
                <dt>"Minimum SDK"</dt><dd>{p.minimum_sdk_version.clone()}</dd>
                <dt>"Consent"</dt><dd>{if p.require_consent { "required" } else { "not required" }}</dd>
                <dt>"Capabilities"</dt><dd>{summary}</dd>
            </dl>
            {rejected.then(|| view! {
                <div class="notice error" role="status">
                    <strong>"Rejected by the reviewer: "</strong>{note}
                </div>
            })}
            <ErrorNotice error=action_error(actions.review)/>
            <ErrorNotice error=action_error(actions.app_key)/>
            <ErrorNotice error=action_error(actions.delete)/>
            <div class="actions">
                {can_request.then(|| view! {
                    <ActionForm action=actions.review attr:class="inline">
                        <CsrfField/>
                        <input type="hidden" name="placement_id" value=pid/>
                        <Submit action=actions.review label="Request review"/>
                    </ActionForm>
                })}
                <ActionForm action=actions.app_key attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="placement_id" value=pid2/>
                    <Submit action=actions.app_key label="Issue app key" class="secondary"/>
                </ActionForm>
                <ActionForm action=actions.delete attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="placement_id" value=pid3/>
                    <Submit action=actions.delete label="Delete placement" class="danger"/>
                </ActionForm>
            </div>
        </section>
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

#[component]
fn EditForm(p: Placement, actions: DetailActions) -> impl IntoView {
    let saved = move || actions.update.value().get().is_some_and(|r| r.is_ok());
    view! {
        <section class="card">
            <h2>"Settings"</h2>
            <ErrorNotice error=action_error(actions.update)/>
            <Show when=saved>
                <div class="notice ok" role="status">"Saved."</div>
            </Show>
            <ActionForm action=actions.update attr:class="grid-2">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=p.placement_id.clone()/>
                <label>"Name"<input type="text" name="name" value=p.name.clone() maxlength="120" required/></label>
                <label>"Store URL"
                    <input type="url" name="store_url" value=p.store_url.clone().unwrap_or_default()/>
                </label>
                <label class="check">
                    <input type="checkbox" name="require_consent" checked=p.require_consent/>
                    "Require user consent"
                </label>
                <div class="form-actions"><Submit action=actions.update label="Save settings"/></div>
            </ActionForm>
        </section>
    }
}
