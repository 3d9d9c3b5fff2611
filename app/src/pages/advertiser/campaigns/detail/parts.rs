//! Read-only panels of the campaign page: readiness, targeting and goals, revisions, audit.

use leptos::prelude::*;

use crate::model::campaign::{
    AuditEntry, Campaign, CampaignReadiness, CampaignRevision, CampaignStatus,
};
use crate::pages::advertiser::campaigns::when;

/// What blocks submission (SUBMIT) or launch (LAUNCH), and advice (NONE). The headline says
/// what is true for the campaign's state: a live campaign is not "ready to submit".
#[component]
pub(super) fn ReadinessPanel(r: CampaignReadiness, status: CampaignStatus) -> impl IntoView {
    let flag = |ok: bool| if ok { "yes" } else { "no" };
    let empty = r.reasons.is_empty();
    let state = match status {
        CampaignStatus::Draft | CampaignStatus::Rejected => view! {
            <dl class="facts">
                <dt>"Ready to submit"</dt><dd class="ready-submit">{flag(r.ready_to_submit)}</dd>
                <dt>"Ready to launch"</dt><dd class="ready-launch">{flag(r.ready_to_launch)}</dd>
            </dl>
        }
        .into_any(),
        CampaignStatus::InReview => view! {
            <dl class="facts">
                <dt>"In review"</dt><dd>"an administrator is checking this revision"</dd>
                <dt>"Ready to launch"</dt><dd class="ready-launch">{flag(r.ready_to_launch)}</dd>
            </dl>
        }
        .into_any(),
        CampaignStatus::Live => view! { <p class="ok-text state-line">"Live: delivering to publishers while budget remains."</p> }.into_any(),
        CampaignStatus::Paused => view! { <p class="state-line">"Paused: not delivering; resume to deliver again."</p> }.into_any(),
        CampaignStatus::Ended | CampaignStatus::Archived => view! { <p class="state-line">"Ended: no longer delivering."</p> }.into_any(),
    };
    view! {
        <section class="card" id="readiness">
            <h2>"Readiness"</h2>
            {state}
            {if empty {
                view! { <p class="ok-text">"Nothing stands in the way."</p> }.into_any()
            } else {
                view! {
                    <ul class="checklist">
                        {r.reasons.into_iter().map(|x| {
                            let class = format!("badge blocks-{}", x.blocks.as_str().to_ascii_lowercase());
                            let label = match x.blocks.as_str() {
                                "SUBMIT" => "blocks submission",
                                "LAUNCH" => "blocks launch",
                                _ => "advice",
                            };
                            view! {
                                <li data-code=x.code.clone() data-blocks=x.blocks.as_str()>
                                    <span class=class>{label}</span>" "{x.message}
                                </li>
                            }
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}

/// Targeting, destination and goals of the newest revision.
#[component]
pub(super) fn GoalsPanel(c: Campaign) -> impl IntoView {
    let cfg = c.config;
    let platforms = cfg
        .platforms
        .iter()
        .map(|p| p.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    view! {
        <section class="card" id="targeting">
            <h2>"Targeting and goals"</h2>
            <dl class="facts">
                <dt>"Destination"</dt><dd><code>{cfg.destination_url}</code></dd>
                <dt>"Platforms"</dt><dd>{platforms}</dd>
                <dt>"Countries"</dt><dd>{cfg.countries.join(", ")}</dd>
                <dt>"Category"</dt><dd>{cfg.category}</dd>
                <dt>"Task type"</dt><dd>{cfg.task_type}</dd>
            </dl>
            <table class="goals">
                <thead><tr><th>"Goal id"</th><th>"Name"</th><th>"Payout"</th><th>"Pending"</th></tr></thead>
                <tbody>
                    {cfg.goals.into_iter().map(|g| view! {
                        <tr>
                            <td><code>{g.external_goal_id}</code></td>
                            <td>{g.name}</td>
                            <td class="num">{g.payout_micros.money("USD")}</td>
                            <td>{format!("{} min", g.pending_minutes)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

#[component]
pub(super) fn RevisionsPanel(items: Vec<CampaignRevision>) -> impl IntoView {
    view! {
        <section class="card" id="revisions">
            <h2>"Revisions"</h2>
            <table class="revisions">
                <thead><tr><th>"Revision"</th><th>"Created"</th><th>"Name"</th><th>"Budget"</th><th>"Destination"</th><th></th></tr></thead>
                <tbody>
                    {items.into_iter().map(|r| view! {
                        <tr data-revision=r.revision.to_string()>
                            <td>{r.revision}</td>
                            <td>{when(r.created_at)}</td>
                            <td>{r.config.name.clone()}</td>
                            <td class="num">{r.config.budget_micros.money("USD")}</td>
                            <td><code>{r.config.destination_url.clone()}</code></td>
                            <td>{r.live.then(|| view! { <span class="badge campaign-live">"LIVE"</span> })}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

#[component]
pub(super) fn AuditPanel(items: Vec<AuditEntry>) -> impl IntoView {
    view! {
        <section class="card" id="audit">
            <h2>"Audit trail"</h2>
            <table class="audit">
                <thead><tr><th>"When"</th><th>"Action"</th><th>"By"</th><th>"Detail"</th></tr></thead>
                <tbody>
                    {items.into_iter().map(|a| view! {
                        <tr>
                            <td>{when(a.at)}</td>
                            <td><code>{a.action}</code></td>
                            <td>{a.actor.or(a.actor_account_id).unwrap_or_else(|| "system".to_owned())}</td>
                            <td><code class="detail">{a.detail.to_string()}</code></td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}
