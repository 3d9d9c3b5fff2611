//! `/advertiser/campaigns/:id/tracking`: where and how conversions are reported, the
//! campaign's credentials (secret or token shown once), the local S2S test with a ready
//! curl command, the IP allowlist, the web pixel and the fraud rules.

mod panels;

use panels::TrackingActions;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use self::panels::{AllowlistPanel, CredentialsPanel, FraudRulesPanel, PixelPanel, SigningPanel};
use super::super::successes;
use super::{CampaignBadge, campaign_load_error};
use crate::components::form::OnceSecret;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::campaign::TrackingSetup;
use crate::model::postbacks::{TOKEN_HEADER, TOKEN_PARAM, partner_params};
use crate::pages::RequireUser;
use crate::server_fns::campaigns::tracking::{
    CampaignFlash, TrackingOverview, secret_of, take_campaign_flash, tracking_page_data,
};

/// Everything the page loads and does, created in the page body before [`RequireUser`]
/// (a resource created in there would be fetched again and consume the flash twice).
#[derive(Clone, Copy)]
struct TrackingData {
    id: Memo<String>,
    actions: TrackingActions,
    overview: Resource<Result<TrackingOverview, AppError>>,
    flash: Resource<Result<CampaignFlash, AppError>>,
}

#[component]
pub fn CampaignTrackingPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let actions = TrackingActions {
        issue: ServerAction::new(),
        test: ServerAction::new(),
        allowlist: ServerAction::new(),
        pixel: ServerAction::new(),
        rules: ServerAction::new(),
    };
    let (issued, saved) = (successes(actions.issue), successes(actions.allowlist));
    let (pixel, rules) = (successes(actions.pixel), successes(actions.rules));
    let data = TrackingData {
        id,
        actions,
        overview: Resource::new(
            move || {
                (
                    id.get(),
                    issued.get(),
                    saved.get(),
                    pixel.get(),
                    rules.get(),
                )
            },
            |(id, ..)| tracking_page_data(id),
        ),
        flash: Resource::new(move || id.get(), take_campaign_flash),
    };
    view! {
        <Title text="Tracking setup"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <Tracking data/> }/>
    }
}

#[component]
fn Tracking(data: TrackingData) -> impl IntoView {
    let TrackingData {
        id,
        actions,
        overview,
        flash,
    } = data;
    let back = move || format!("/advertiser/campaigns/{}", id.get());
    view! {
        <p class="crumbs"><a href=back rel="external">"← Campaign"</a></p>
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || Suspend::new(async move {
                let flashed = flash.await.ok().unwrap_or_default();
                match overview.await {
                    Err(error) => campaign_load_error(error),
                    Ok(o) => {
                        let secret = flashed.secret.clone();
                        let scripted = move || {
                            actions.issue.value().get().and_then(Result::ok).as_ref().and_then(secret_of)
                        };
                        let setup = o.setup.clone();
                        view! {
                            <Title text=format!("Tracking · {}", o.campaign.config.name)/>
                            <section class="card" id="tracking-summary">
                                <div class="card-head">
                                    <h1>"Tracking setup: "{o.campaign.config.name.clone()}</h1>
                                    <CampaignBadge status=o.campaign.status/>
                                </div>
                                <Summary setup=setup.clone()/>
                            </section>
                            <div id="secrets">
                                {secret.map(|secret| view! { <OnceSecret secret/> })}
                                {move || scripted().map(|secret| view! { <OnceSecret secret/> })}
                            </div>
                            <CredentialsPanel setup=setup.clone() status=o.campaign.status actions/>
                            <SigningPanel setup=setup.clone() actions flashed=flashed.test/>
                            <AllowlistPanel setup=setup.clone() actions/>
                            <PixelPanel setup actions/>
                            <FraudRulesPanel rules=o.fraud_rules.clone() actions/>
                        }
                        .into_any()
                    }
                }
            })}
        </Transition>
    }
}

/// Endpoint, authentication, required parameters and the live-test verification.
#[component]
fn Summary(setup: TrackingSetup) -> impl IntoView {
    let ep = setup.endpoint;
    let methods = if ep.also_accepts_get {
        format!("{} (GET also accepted)", ep.method)
    } else {
        ep.method.clone()
    };
    let verification = setup.mmp_verification.map(|v| {
        format!(
            "revision {} verified {} by {}{}",
            v.verified_revision,
            super::when(v.verified_at),
            v.verified_by,
            if v.current {
                ""
            } else {
                " (an older revision: verify again)"
            }
        )
    });
    let mmp = setup.tracking_provider.starts_with("MMP:");
    let how = how_to_authenticate(&setup.tracking_provider);
    let partner = setup
        .tracking_provider
        .strip_prefix("MMP:")
        .and_then(partner_params)
        .map(|p| p.summary());
    view! {
        <dl class="facts">
            <dt>"Provider"</dt><dd><code>{setup.tracking_provider.clone()}</code></dd>
            <dt>"Endpoint"</dt><dd><code class="endpoint-url">{ep.url}</code></dd>
            <dt>"Method"</dt><dd>{methods}</dd>
            <dt>"Authentication"</dt><dd><code class="callback-auth">{setup.callback_authentication}</code></dd>
            <dt>"How to authenticate"</dt><dd class="callback-how">{how}</dd>
            <dt>"Required parameters"</dt>
            <dd class="required-parameters">
                {setup.required_parameters.into_iter().map(|p| view! { <code>{p}</code>" " }).collect_view()}
            </dd>
            {partner.map(|names| view! {
                <dt>"Partner parameter names"</dt>
                <dd class="partner-parameters">{names}</dd>
            })}
            {mmp.then(|| view! {
                <dt>"Live-test verification"</dt>
                <dd>{verification.unwrap_or_else(|| "not verified yet: an administrator verifies a live test before launch".to_owned())}</dd>
            })}
        </dl>
    }
}

/// One line per provider kind: how a callback proves who sent it.
fn how_to_authenticate(provider: &str) -> String {
    let token = |what: &str| {
        format!(
            "Send the {what} in the {TOKEN_HEADER} header (preferred: it stays out of URL logs) or as the `{TOKEN_PARAM}` parameter."
        )
    };
    match provider {
        "CUSTOM_S2S" => "Sign each callback with the X-Service-Key-Id, X-Service-Timestamp and X-Service-Signature headers (recipe below).".to_owned(),
        "DIRECT" => token("direct token"),
        "MANAGED" => token("managed token"),
        _ => token("campaign token"),
    }
}
