//! `/advertiser/surveys`: the signed survey API's credential (issue a key, shown once, with a
//! signing example per algorithm) and the survey campaigns with their payment and review
//! state: pay from the wallet, submit for review, open the targeting editor.

mod detail;
mod form;
mod targeting;

pub use detail::SurveyDetailPage;

use leptos::prelude::*;
use leptos_meta::Title;

use super::{action_error, load_error, successes};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::survey::campaign::{PaymentStatus, SurveyCampaign, SurveyStatus};
use crate::pages::RequireUser;
use crate::server_fns::surveys::campaign::{CreateSurveyCampaign, survey_markets};
use crate::server_fns::surveys::{
    AllocateSurvey, IssueSurveyKey, SubmitSurvey, SurveyKeyInfo, SurveysSummary, survey_overview,
};

#[derive(Clone, Copy)]
struct SurveysData {
    create: ServerAction<CreateSurveyCampaign>,
    markets: form::Markets,
    issue: ServerAction<IssueSurveyKey>,
    allocate: ServerAction<AllocateSurvey>,
    submit: ServerAction<SubmitSurvey>,
    overview: Resource<Result<SurveysSummary, AppError>>,
}

#[component]
pub fn SurveysPage() -> impl IntoView {
    let issue = ServerAction::<IssueSurveyKey>::new();
    let allocate = ServerAction::<AllocateSurvey>::new();
    let submit = ServerAction::<SubmitSurvey>::new();
    let (a, b, c) = (successes(issue), successes(allocate), successes(submit));
    // Created in the page body, before RequireUser (its content can render more than once).
    let query = leptos_router::hooks::use_query_map();
    let filter = Memo::new(move |_| {
        let q = query.read();
        let get = |k: &str| q.get(k).filter(|v| !v.is_empty());
        (get("name"), get("status"), get("cursor"))
    });
    let overview = Resource::new(
        move || (filter.get(), a.get(), b.get(), c.get()),
        |((name, status, cursor), ..)| survey_overview(name, status, cursor),
    );
    let data = SurveysData {
        create: ServerAction::new(),
        markets: Resource::new(|| (), |()| survey_markets()),
        issue,
        allocate,
        submit,
        overview,
    };
    view! {
        <Title text="Survey campaigns"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <SurveysView data/> }/>
    }
}

#[component]
fn SurveysView(data: SurveysData) -> impl IntoView {
    let SurveysData {
        create,
        markets,
        issue,
        allocate,
        submit,
        overview,
    } = data;
    let error = Signal::derive(move || {
        action_error(issue)
            .get()
            .or(action_error(allocate).get())
            .or(action_error(submit).get())
    });
    let fresh = Signal::derive(move || issue.value().get().and_then(Result::ok));
    view! {
        <p class="crumbs"><a href="/advertiser" rel="external">"← Advertiser"</a></p>
        <ErrorNotice error/>
        {loaded(overview, load_error, move |o| {
            let shown = fresh.get_untracked().or(o.issued.clone());
            view! {
                <KeyCard key=o.key.clone() shown issue/>
                <CampaignTable campaigns=o.campaigns next=o.next_cursor allocate submit/>
                <form::NewSurveyForm create markets/>
            }.into_any()
        }
        )}
    }
}

#[component]
fn KeyCard(
    key: Option<SurveyKeyInfo>,
    shown: Option<crate::model::OneTimeSecret>,
    issue: ServerAction<IssueSurveyKey>,
) -> impl IntoView {
    let current = match key {
        Some(k) => format!(
            "Active key {}… ({}), issued {}",
            k.prefix,
            k.encryption_type,
            k.created_at.format("%Y-%m-%d %H:%M UTC")
        ),
        None => "No survey API key yet.".to_owned(),
    };
    view! {
        <section class="card" id="survey-key">
            <h1>"Survey API"</h1>
            <p class="muted">"Survey campaigns are created and managed through the signed survey API under /api/v1/campaigns (see docs/surveys.md). Each request carries X-Api-Key and ?enc=, the hex digest of the full URL without query, the JSON body (when there is one) and your secret."</p>
            <p id="survey-key-status">{current}</p>
            {shown.map(|s| view! {
                <div class="notice secret" role="status">
                    <strong>{s.label}</strong>
                    <p>"Copy both now: the secret will not be shown again. Issuing a new key revokes this one."</p>
                    <pre class="secret-value"><code>{s.value}</code></pre>
                </div>
            })}
            <ActionForm action=issue attr:class="row">
                <CsrfField/>
                <label>"Algorithm"
                    <select name="encryption_type">
                        <option value="SHA3-256" selected=true>"SHA3-256"</option>
                        <option value="SHA256">"SHA256"</option>
                        <option value="SHA1">"SHA1 (deprecated)"</option>
                    </select>
                </label>
                <Submit action=issue label="Issue a new key"/>
            </ActionForm>
            <details>
                <summary>"Signing examples"</summary>
                <pre><code>{SIGNING_EXAMPLES}</code></pre>
            </details>
        </section>
    }
}

const SIGNING_EXAMPLES: &str = r#"# Python 3: sign and send a survey API request
import hashlib, json, urllib.request
url = "https://YOUR-HOST/api/v1/campaigns/create"
body = json.dumps({"name": "Brand study", "country_language_id": "en-US",
    "survey_live_link": "https://s.example/live?tid={transaction_id}",
    "survey_test_link": "https://s.example/test?tid={transaction_id}"}, separators=(",", ":"))
secret = "mkt_sas_..."
text = (url + body + secret).encode()
enc = hashlib.sha3_256(text).hexdigest()   # SHA3-256 key
# enc = hashlib.sha256(text).hexdigest()   # SHA256 key
# enc = hashlib.sha1(text).hexdigest()     # SHA1 key (deprecated)
req = urllib.request.Request(url + "?enc=" + enc, data=body.encode(), method="POST",
    headers={"X-Api-Key": "mkt_sak_...", "Content-Type": "application/json"})
print(urllib.request.urlopen(req).read())

# Shell: the same digest (send exactly the bytes you signed)
printf '%s%s%s' "$URL" "$BODY" "$SECRET" | openssl dgst -sha3-256   # or -sha256, -sha1
"#;

fn badge(status: SurveyStatus) -> impl IntoView {
    let class = format!("badge campaign-{}", status.as_str().to_ascii_lowercase());
    view! { <span class=class data-status=status.as_str()>{status.as_str()}</span> }
}

/// Finds campaigns by part of their name and by status (a plain GET form).
#[component]
fn SurveyFilter() -> impl IntoView {
    let query = leptos_router::hooks::use_query_map();
    let name = move || query.read().get("name").unwrap_or_default();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let choices = SurveyStatus::ALL
        .iter()
        .map(|s| (s.as_str(), s.as_str()))
        .collect::<Vec<_>>();
    view! {
        <leptos_router::components::Form method="get" action="/advertiser/surveys" attr:class="filters">
            <input name="name" placeholder="Name contains" aria-label="Name contains" value=name/>
            <crate::components::form::StatusSelect current=status all="All statuses" choices/>
            <button type="submit" class="secondary">"Find"</button>
        </leptos_router::components::Form>
    }
}

/// The "Older →" link of the list, keeping its filters.
fn older_link(next: Option<String>) -> Option<String> {
    let query = leptos_router::hooks::use_query_map();
    let q = query.read_untracked();
    let keep = |k: &str| crate::pages::query_value(&q.get(k).unwrap_or_default());
    next.map(|c| {
        format!(
            "/advertiser/surveys?name={}&status={}&cursor={c}",
            keep("name"),
            keep("status")
        )
    })
}

#[component]
fn CampaignTable(
    campaigns: Vec<SurveyCampaign>,
    next: Option<String>,
    allocate: ServerAction<AllocateSurvey>,
    submit: ServerAction<SubmitSurvey>,
) -> impl IntoView {
    if campaigns.is_empty() {
        return view! {
            <section class="card" id="surveys"><h2>"Survey campaigns"</h2>
                <SurveyFilter/>
                <p class="muted">"No survey campaign matches. Create one below or with POST /api/v1/campaigns/create."</p>
            </section>
        }
        .into_any();
    }
    let older = older_link(next);
    view! {
        <section class="card" id="surveys">
            <h2>"Survey campaigns"</h2>
            <SurveyFilter/>
            <table>
                <thead><tr><th>"Campaign"</th><th>"Status"</th><th>"Market"</th><th class="num">"CPI"</th><th class="num">"Completes"</th><th class="num">"Estimated cost"</th><th>"Next step"</th></tr></thead>
                <tbody>
                    {campaigns.into_iter().map(|c| view! { <CampaignRow c allocate submit/> }).collect_view()}
                </tbody>
            </table>
            <crate::pages::OlderLink href=older/>
        </section>
    }
    .into_any()
}

#[component]
fn CampaignRow(
    c: SurveyCampaign,
    allocate: ServerAction<AllocateSurvey>,
    submit: ServerAction<SubmitSurvey>,
) -> impl IntoView {
    let href = format!("/advertiser/surveys/{}", c._id);
    let unpaid = c.payment_status == PaymentStatus::Unpaid;
    let draft = c.status == SurveyStatus::Draft;
    let open = matches!(
        c.status,
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    );
    let next = if open && unpaid {
        let id = c._id.clone();
        view! {
            <ActionForm action=allocate>
                <CsrfField/><input type="hidden" name="campaign_id" value=id/>
                <Submit action=allocate label="Pay from wallet" class="secondary"/>
            </ActionForm>
        }
        .into_any()
    } else if draft {
        let id = c._id.clone();
        view! {
            <ActionForm action=submit>
                <CsrfField/><input type="hidden" name="campaign_id" value=id/>
                <Submit action=submit label="Submit for review" class="secondary"/>
            </ActionForm>
        }
        .into_any()
    } else if c.status == SurveyStatus::PendingApproval {
        view! { <span class="muted">"Awaiting administrator approval"</span> }.into_any()
    } else {
        ().into_any()
    };
    view! {
        <tr data-survey=c._id.clone()>
            <td><a href=href rel="external">{c.name.clone()}</a><br/><code class="muted">{c._id.clone()}</code></td>
            <td>{badge(c.status)}<br/><span class="muted">{c.payment_status.as_str()}</span></td>
            <td>{c.country_language_id.clone()}</td>
            <td class="num">{c.cpi.clone().unwrap_or_else(|| "—".into())}</td>
            <td class="num">{c.planned_completes.map(|n| n.to_string()).unwrap_or_else(|| "—".into())}</td>
            <td class="num">{c.estimated_cost_micros.money("USD")}</td>
            <td>{next}</td>
        </tr>
    }
}
