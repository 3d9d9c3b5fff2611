//! A server-rendered SVG bar chart (no script, no chart library), used by the reports.

use leptos::prelude::*;

/// One bar: its value (negative values draw as zero) and the tooltip.
#[derive(Debug, Clone)]
pub struct Bar {
    pub value: i64,
    pub title: String,
}

#[component]
pub fn BarChart(
    /// Element id of the figure.
    id: &'static str,
    /// Accessible name of the chart.
    label: &'static str,
    bars: Vec<Bar>,
    caption: String,
) -> impl IntoView {
    const W: f64 = 720.0;
    const H: f64 = 160.0;
    let n = bars.len().max(1) as f64;
    let max = bars.iter().map(|b| b.value).max().unwrap_or(0);
    let slot = W / n;
    let rects = bars
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            let h = if max > 0 {
                (b.value.max(0) as f64 / max as f64) * (H - 20.0)
            } else {
                0.0
            };
            view! {
                <rect class="bar" x=format!("{:.2}", i as f64 * slot + slot * 0.1) y=format!("{:.2}", H - h)
                    width=format!("{:.2}", (slot * 0.8).max(1.0)) height=format!("{h:.2}")>
                    <title>{b.title}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <figure class="chart" id=id>
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label preserveAspectRatio="none">
                <line x1="0" y1=H.to_string() x2=W.to_string() y2=H.to_string() class="axis"/>
                {rects}
            </svg>
            <figcaption class="muted">{caption}</figcaption>
        </figure>
    }
}
