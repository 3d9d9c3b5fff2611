//! The preferences card: per topic of the organisation's side, e-mail and dashboard boxes,
//! and for advertisers the budget alert share. Boxes are named `email[i]` and `dashboard[i]`
//! (i the topic's place) with the topic as value, so a plain form post sends the checked ones.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::notice::{NoticePreferences, NoticeTopic};
use crate::pages::publisher::action_error;
use crate::server_fns::notices::NoticesSavePreferences;

/// What a topic tells, in the reader's words.
fn describe(t: NoticeTopic) -> &'static str {
    use NoticeTopic::*;
    match t {
        AdvertiserApproved => "Your advertiser account is approved",
        FundingCredited => "A funding is credited to the wallet",
        FundingRefused => "A funding is declined",
        FundingReturned => "A funding is refunded or charged back",
        CampaignApproved => "A campaign is approved",
        CampaignRejected => "A campaign is rejected",
        CampaignBudgetLow => "A campaign's budget falls below the alert share",
        CampaignBudgetExhausted => "A campaign's budget runs out",
        ConversionsHeld => "Conversions wait for review",
        ReceiverFailing => "A callback receiver or webhook fails for an hour",
        ReceiverPaused => "A callback receiver or webhook is paused after a day of failures",
        PlacementVerified => "A placement is verified",
        PlacementRejected => "A placement is not verified",
        PlacementReleased => "A placement is released to production",
        PayoutPaid => "A payout is paid",
        PayoutFailed => "A payout fails",
    }
}

#[component]
pub fn PreferencesCard(
    prefs: NoticePreferences,
    save: ServerAction<NoticesSavePreferences>,
) -> impl IntoView {
    let error = action_error(save);
    let saved = move || save.value().with(|v| matches!(v, Some(Ok(_))));
    let rows = prefs
        .topics
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let topic = c.topic.as_str();
            view! {
                <tr data-topic=topic>
                    <td>{describe(c.topic)}<br/><code class="muted">{topic}</code></td>
                    <td><input type="checkbox" name=format!("email[{i}]") value=topic checked=c.email aria-label=format!("{topic} by e-mail")/></td>
                    <td><input type="checkbox" name=format!("dashboard[{i}]") value=topic checked=c.dashboard aria-label=format!("{topic} on the dashboard")/></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card" id="preferences">
            <h2>"What you are told"</h2>
            <p class="muted">"Your own choice: every member chooses for themselves. Without a choice, your team role decides what comes by e-mail; everything shows here."</p>
            <ErrorNotice error/>
            {move || saved().then(|| view! { <p class="notice ok" role="status" id="preferences-saved">"Saved."</p> })}
            <ActionForm action=save attr:id="preferences-form">
                <CsrfField/>
                <table class="preferences">
                    <thead><tr><th>"Topic"</th><th>"E-mail"</th><th>"Dashboard"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
                {prefs.budget_alert_percent.map(|p| view! {
                    <label>"Tell us when a campaign has less than this share of its budget left (%, 0 for never)"
                        <input type="number" name="budget_alert_percent" min="0" max="50" value=p.to_string()/>
                    </label>
                })}
                <button type="submit">"Save"</button>
            </ActionForm>
        </section>
    }
}
