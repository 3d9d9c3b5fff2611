//! How the dashboards show fraud review (issue 51): a conversion's reasons and a table of
//! placements' held and reversed shares.

use leptos::prelude::*;

use crate::model::fraud::{FraudOverview, FraudReason, percent};

/// A conversion's score and reasons, each with its label, points and what was seen.
#[component]
pub fn Reasons(score: i32, reasons: Vec<FraudReason>) -> impl IntoView {
    if reasons.is_empty() {
        return view! { <span class="muted">"—"</span> }.into_any();
    }
    view! {
        <div class="reasons" data-score=score.to_string()>
            <span class="badge">{format!("score {score}")}</span>
            <ul>
                {reasons.into_iter().map(|r| view! {
                    <li data-signal=r.signal.as_str()>
                        <strong>{r.signal.label()}</strong>
                        {(r.points > 0).then(|| format!(" (+{})", r.points))}
                        ": "<span class="muted">{r.detail}</span>
                    </li>
                }).collect_view()}
            </ul>
        </div>
    }
    .into_any()
}

/// Placements with their conversions, held and reversed shares and pause, over the pause
/// window; `actions` renders a cell of controls per placement (administrators).
#[component]
pub fn PlacementRates<F, V>(overview: FraudOverview, actions: F) -> impl IntoView
where
    F: Fn(&crate::model::fraud::PlacementFraudStats) -> V + 'static,
    V: IntoView + 'static,
{
    let limit = format!(
        "Delivery pauses when held and reversed conversions reach {} of at least {} conversions over {} days.",
        percent(overview.pause_share_bps),
        overview.pause_min_conversions,
        overview.window_days
    );
    view! {
        <p class="muted">{limit}</p>
        <table>
            <thead><tr><th>"Placement"</th><th>"Conversions"</th><th>"Held"</th><th>"Reversed"</th><th>"Delivery"</th><th></th></tr></thead>
            <tbody>
                {overview.placements.into_iter().map(|p| {
                    let controls = actions(&p);
                    let delivery = match (&p.paused_at, &p.paused_reason) {
                        (Some(at), reason) => format!("Paused {} ({})", crate::pages::when(*at), reason.clone().unwrap_or_default()),
                        _ => "Delivering".to_owned(),
                    };
                    view! {
                        <tr data-placement=p.placement_id.clone() data-paused=p.paused_at.is_some().to_string()>
                            <td>{p.name.clone()}<br/><code>{p.placement_id.clone()}</code></td>
                            <td>{p.conversions}</td>
                            <td>{format!("{} ({})", p.held, percent(p.held_share_bps))}</td>
                            <td>{format!("{} ({})", p.reversed, percent(p.reversal_share_bps))}</td>
                            <td class="delivery">{delivery}</td>
                            <td>{controls}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
