//! Panels of the tracking page: credentials, signing recipe with the local test, IP
//! allowlist and web pixel.

use leptos::prelude::*;

use super::super::super::action_error;
use super::super::{field_error_in, when};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::campaign::{CampaignStatus, S2sTestResult, TrackingKind, TrackingSetup};
use crate::model::fraud::FraudRules;
use crate::server_fns::campaigns::tracking::{
    IssueTrackingSecret, RunTrackingTest, SaveFraudRules, SaveIpAllowlist, SaveWebPixel,
    curl_command,
};

/// The page's actions, created once so their answers (and the secret in them) survive the
/// reload they trigger.
#[derive(Clone, Copy)]
pub(in crate::pages::advertiser::campaigns) struct TrackingActions {
    pub issue: ServerAction<IssueTrackingSecret>,
    pub test: ServerAction<RunTrackingTest>,
    pub allowlist: ServerAction<SaveIpAllowlist>,
    pub pixel: ServerAction<SaveWebPixel>,
    pub rules: ServerAction<SaveFraudRules>,
}

#[component]
pub(in crate::pages::advertiser::campaigns) fn CredentialsPanel(
    setup: TrackingSetup,
    status: CampaignStatus,
    actions: TrackingActions,
) -> impl IntoView {
    let kind = crate::model::campaign::tracking::kind_of(&setup.tracking_provider);
    let active = setup
        .credentials
        .iter()
        .any(|c| c.kind == kind && c.is_active());
    let open = !matches!(status, CampaignStatus::Ended | CampaignStatus::Archived);
    let mmp_rotatable = matches!(status, CampaignStatus::Draft | CampaignStatus::InReview);
    // (op, label) of the button this campaign offers now.
    let button = match (kind, active) {
        (TrackingKind::CustomS2s, false) => Some(("create", "Create S2S key")),
        (TrackingKind::CustomS2s, true) => Some(("rotate", "Rotate S2S key")),
        (TrackingKind::Mmp, false) => Some(("create", "Create campaign token")),
        (TrackingKind::Mmp, true) if mmp_rotatable => Some(("rotate", "Rotate campaign token")),
        (TrackingKind::Direct, false) => Some(("create", "Create direct token")),
        (TrackingKind::Managed, false) => Some(("create", "Create managed token")),
        _ => None,
    }
    .filter(|_| open);
    let empty = setup.credentials.is_empty();
    view! {
        <section class="card" id="credentials">
            <h2>"Credentials"</h2>
            <p class="muted">
                "The secret or token is shown once, right after it is issued. Rotating replaces the active one at once."
            </p>
            <ErrorNotice error=action_error(actions.issue)/>
            {if empty {
                view! { <p class="muted no-credentials">"No credential yet."</p> }.into_any()
            } else {
                view! {
                    <table class="credentials">
                        <thead><tr><th>"Kind"</th><th>"Key id"</th><th>"Status"</th><th>"Created"</th><th>"Retired"</th></tr></thead>
                        <tbody>
                            {setup.credentials.into_iter().map(|c| view! {
                                <tr data-status=c.status.as_str()>
                                    <td>{c.kind.as_str()}</td>
                                    <td><code class="key-id">{c.key_id}</code></td>
                                    <td><span class="badge">{c.status.as_str()}</span></td>
                                    <td>{when(c.created_at)}</td>
                                    <td>{c.retired_at.map(when).unwrap_or_default()}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            {button.map(|(op, label)| view! {
                <ActionForm action=actions.issue attr:class="inline issue-form">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=setup.campaign_id.clone()/>
                    <input type="hidden" name="kind" value=kind.as_str()/>
                    <input type="hidden" name="op" value=op/>
                    <button type="submit" class=if op == "rotate" { "secondary" } else { "" }>{label}</button>
                </ActionForm>
            })}
        </section>
    }
}

/// The Custom S2S signing recipe, the local test and its curl command.
#[component]
pub(in crate::pages::advertiser::campaigns) fn SigningPanel(
    setup: TrackingSetup,
    actions: TrackingActions,
    flashed: Option<S2sTestResult>,
) -> impl IntoView {
    let recipe = setup.signing.clone()?;
    let has_key = setup
        .credentials
        .iter()
        .any(|c| c.kind == TrackingKind::CustomS2s && c.is_active());
    // The scripted answer wins over a flash left by an earlier plain post.
    let result = move || match actions.test.value().get() {
        Some(Ok(t)) => Some(t),
        _ => flashed.clone(),
    };
    let message = recipe.message_fields.join("\\n");
    Some(view! {
        <section class="card" id="signing">
            <h2>"Signing recipe"</h2>
            <dl class="facts">
                <dt>"Algorithm"</dt><dd>{recipe.algorithm.clone()}</dd>
                <dt>"Headers"</dt>
                <dd>{recipe.headers.iter().map(|h| view! { <code>{h.clone()}</code>" " }).collect_view()}</dd>
                <dt>"Signed message"</dt><dd><code>{message}</code></dd>
                <dt>"Timestamp"</dt><dd>{format!("{} (at most {} s from the server clock)", recipe.timestamp, recipe.max_skew_seconds)}</dd>
            </dl>
            <p class="muted">
                "The local test signs a sample conversion with the active key and checks it like the endpoint would. "
                "Nothing is delivered and nothing is accounted."
            </p>
            <ErrorNotice error=action_error(actions.test)/>
            {has_key.then(|| view! {
                <ActionForm action=actions.test attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=setup.campaign_id.clone()/>
                    <Submit action=actions.test label="Run local test" class="secondary"/>
                </ActionForm>
            })}
            {(!has_key).then(|| view! { <p class="muted">"Create the S2S key to run the test."</p> })}
            {move || result().map(|test| view! { <TestResult test/> })}
        </section>
    })
}

#[component]
fn TestResult(test: S2sTestResult) -> impl IntoView {
    let curl = curl_command(&test);
    let verdict = if test.valid { "valid" } else { "invalid" };
    view! {
        <div class="s2s-test" data-valid=test.valid.to_string()>
            <p class="verdict">
                <span class=format!("badge test-{verdict}")>{verdict}</span>
                " deliveredExternally: "<code class="delivered">{test.delivered_externally.to_string()}</code>
                " · accountingWrites: "<code class="accounting">{test.accounting_writes}</code>
            </p>
            <ul class="checks">
                {test.checks.into_iter().map(|c| view! {
                    <li data-ok=c.ok.to_string()>
                        {if c.ok { "✓ " } else { "✗ " }}<code>{c.name}</code>" "<span class="muted">{c.message}</span>
                    </li>
                }).collect_view()}
            </ul>
            <p class="muted">"Signed message (newline-joined):"</p>
            <pre>{test.signed_message}</pre>
            <p class="muted">"Example request, signed with your key (valid for five minutes):"</p>
            <pre class="copyable curl">{curl}</pre>
        </div>
    }
}

#[component]
pub(in crate::pages::advertiser::campaigns) fn AllowlistPanel(
    setup: TrackingSetup,
    actions: TrackingActions,
) -> impl IntoView {
    let error = action_error(actions.allowlist);
    let saved = move || actions.allowlist.value().get().is_some_and(|r| r.is_ok());
    let current = setup.ip_allowlist.join(", ");
    let summary = if setup.ip_allowlist.is_empty() {
        "Any source address may report.".to_owned()
    } else {
        format!("Only {current} may report.")
    };
    view! {
        <section class="card" id="ip-allowlist">
            <h2>"IP allowlist"</h2>
            <p class="muted allowlist-summary">{summary}</p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Allowlist saved."</div>
            </Show>
            <ActionForm action=actions.allowlist attr:class="row">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=setup.campaign_id.clone()/>
                <label class="grow">"Addresses or CIDR ranges (comma separated; empty allows any)"
                    <input type="text" name="entries" value=current placeholder="203.0.113.10, 198.51.100.0/24"/>
                    {field_error_in(error, "entries".to_owned(), true)}
                </label>
                <Submit action=actions.allowlist label="Save allowlist" class="secondary"/>
            </ActionForm>
        </section>
    }
}

#[component]
pub(in crate::pages::advertiser::campaigns) fn PixelPanel(
    setup: TrackingSetup,
    actions: TrackingActions,
) -> impl IntoView {
    let px = setup.web_pixel;
    let error = action_error(actions.pixel);
    let saved = move || actions.pixel.value().get().is_some_and(|r| r.is_ok());
    let state = if px.enabled {
        format!(
            "On: pages of {} may report, at least {} s after the click; conversions are held {} h for your review before they pay.",
            px.allowed_origins.join(", "),
            px.min_seconds_after_click,
            px.review_hours
        )
    } else {
        "Off: no pixel report is accepted.".to_owned()
    };
    view! {
        <section class="card" id="web-pixel">
            <h2>"Web pixel"</h2>
            {if px.supported {
                view! {
                    <p class="muted">"Trust level BROWSER: a browser cannot sign, so a pixel proves less than a server report. The service accepts a pixel only from your listed pages, for a click whose launch link the user followed (your page receives its click id from the link, the app never sees it), after the minimum time, and holds the conversion for your review window before it pays. Reject anything you do not recognise on the conversions page meanwhile."</p>
                    <p class="pixel-state">{state}</p>
                    <ErrorNotice error/>
                    <Show when=saved>
                        <div class="notice ok" role="status">"Pixel settings saved."</div>
                    </Show>
                    <ActionForm action=actions.pixel attr:class="grid-2">
                        <CsrfField/>
                        <input type="hidden" name="campaign_id" value=setup.campaign_id.clone()/>
                        <label class="check span-2"><input type="checkbox" name="enabled" checked=px.enabled/>"Accept pixel reports"</label>
                        <label class="span-2">"Allowed page origins (comma separated)"
                            <input type="text" name="origins" value=px.allowed_origins.join(", ") placeholder="https://shop.example"/>
                            {field_error_in(error, "allowedOrigins".to_owned(), true)}
                        </label>
                        <label>"Minimum seconds after the click"
                            <input type="number" name="min_seconds" min="0" max="86400" value=px.min_seconds_after_click.to_string()/>
                            {field_error_in(error, "minSecondsAfterClick".to_owned(), false)}
                        </label>
                        <label>"Review window (hours)"
                            <input type="number" name="review_hours" min="1" max="720" value=px.review_hours.to_string()/>
                            {field_error_in(error, "reviewHours".to_owned(), false)}
                        </label>
                        <div class="form-actions"><Submit action=actions.pixel label="Save pixel settings" class="secondary"/></div>
                    </ActionForm>
                    <p class="muted">"Place this image on the conversion page and fill the macros (the click id your page received, your order id):"</p>
                    <pre class="copyable snippet-pixel">{px.html_snippet}</pre>
                }.into_any()
            } else {
                view! { <p class="muted">"The pixel is for web campaigns that do not report by Custom S2S: a signed server report proves more, so a Custom S2S campaign takes no pixel."</p> }.into_any()
            }}
        </section>
    }
}

/// The campaign's fraud rules: when a conversion is held for review instead of paid.
#[component]
pub(in crate::pages::advertiser::campaigns) fn FraudRulesPanel(
    rules: FraudRules,
    actions: TrackingActions,
) -> impl IntoView {
    let error = action_error(actions.rules);
    let saved = move || actions.rules.value().get().is_some_and(|r| r.is_ok());
    view! {
        <section class="card" id="fraud-rules">
            <h2>"Fraud rules"</h2>
            <p class="muted">"Every approved conversion is scored from what the service knows about its click (how fast it converted, shared addresses and devices, hosting ranges, the goal order, the placement's rates). At the hold score it is held: nothing is paid and the publisher is not told until you or an administrator decide it on the conversions page. See “How we protect your budget” in the docs."</p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Fraud rules saved."</div>
            </Show>
            <ActionForm action=actions.rules attr:class="grid-2">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=rules.campaign_id.clone()/>
                <label>"Hold at score (1 to 100; default 50)"
                    <input type="number" name="hold_score" min="1" max="100" value=rules.hold_score.to_string()/>
                    {field_error_in(error, "holdScore".to_owned(), false)}
                </label>
                <label>"Fastest believable conversion (seconds after the click; empty: the goal's usual time decides)"
                    <input type="number" name="min_seconds" min="0" max="86400" value=rules.min_seconds_to_convert.map(|s| s.to_string()).unwrap_or_default()/>
                    {field_error_in(error, "minSecondsToConvert".to_owned(), false)}
                </label>
                <div class="form-actions"><Submit action=actions.rules label="Save fraud rules" class="secondary"/></div>
            </ActionForm>
        </section>
    }
}
