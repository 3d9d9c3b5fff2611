//! The hosted offerwall's HTML: plain server-rendered pages with forms, so they work in any
//! web view without JavaScript. Every value from a campaign, a slot or a user is escaped.

use std::collections::HashMap;

use app::model::delivery::{OfferItem, OfferList, RewardStatus};
use app::model::publisher::Currency;
use app::model::publisher::ops::SupportCase;
use app::model::publisher::rules::format_minor;
use app::model::wall_design::WallDesign;

/// Escapes text for HTML content and quoted attributes.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// Escapes a query-string value.
pub fn q(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What every page needs: the query that keeps the user in this wall, and its look.
pub struct Frame<'a> {
    /// `token=…&slot=…` (already escaped for a URL), appended to every wall link.
    pub qs: &'a str,
    pub design: &'a WallDesign,
    pub embed: bool,
    pub show_rewards: bool,
    pub show_support: bool,
}

/// The hidden inputs that carry the wall's query through a form post.
pub fn hidden(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!(r#"<input type="hidden" name="{k}" value="{}">"#, esc(v)))
        .collect()
}

/// A whole page around `body`.
pub fn page(f: &Frame, title: &str, body: &str) -> String {
    let d = f.design;
    let brand = d.title.as_deref().unwrap_or("Earn rewards");
    let accent = d
        .accent_color
        .as_deref()
        .map(|c| format!(r#" style="--accent:{c}""#))
        .unwrap_or_default();
    let logo = d
        .logo_url
        .as_deref()
        .map(|u| format!(r#"<img class="logo" src="{}" alt="">"#, esc(u)))
        .unwrap_or_default();
    let mut nav = format!(r#"<a href="/offerwall?{}">Offers</a>"#, f.qs);
    if f.show_rewards {
        nav += &format!(r#"<a href="/offerwall/rewards?{}">My rewards</a>"#, f.qs);
    }
    if f.show_support {
        nav += &format!(r#"<a href="/offerwall/support?{}">Help</a>"#, f.qs);
    }
    let close = if f.embed {
        r#"<button type="button" class="close" data-wall-close aria-label="Close">×</button>"#
    } else {
        ""
    };
    format!(
        r#"<!doctype html>
<html lang="en"{dark}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{title} · {brand_e}</title>
<link rel="stylesheet" href="/offerwall/assets/wall-v1.css">
<script src="/offerwall/assets/wall-v1.js" defer></script>
</head>
<body{accent}{embed}>
<header class="top">{logo}<strong class="brand">{brand_e}</strong>{close}</header>
<nav class="tabs">{nav}</nav>
<main>
{body}
</main>
</body>
</html>"#,
        dark = if d.dark_mode { r#" class="dark""# } else { "" },
        title = esc(title),
        brand_e = esc(brand),
        embed = if f.embed { r#" data-embed="1""# } else { "" },
    )
}

/// A stand-alone notice (expired session, no such offer) with no navigation.
pub fn notice(title: &str, text: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>{t}</title><link rel="stylesheet" href="/offerwall/assets/wall-v1.css">
<script src="/offerwall/assets/wall-v1.js" defer></script></head>
<body><main class="notice" role="alert"><h1>{t}</h1><p>{x}</p>
<button type="button" class="close-text" data-wall-close>Close</button></main></body>
</html>"#,
        t = esc(title),
        x = esc(text)
    )
}

fn money(minor: i64, c: &Currency) -> String {
    format!("{} {}", format_minor(minor, c.decimals), esc(&c.name))
}

fn badge(status: &str) -> String {
    let label = match status {
        "EARNED" => "Earned",
        "PENDING" => "Pending",
        "REVERSED" => "Reversed",
        "REJECTED" => "Not approved",
        "COMPLETED" => "Completed",
        _ => status,
    };
    format!(
        r#"<span class="status status-{}">{label}</span>"#,
        status.to_ascii_lowercase()
    )
}

/// The offer list, or the no-fill state.
pub fn offer_list(
    f: &Frame,
    list: &OfferList,
    progress: &HashMap<String, &'static str>,
    next_qs: Option<String>,
) -> String {
    if list.items.is_empty() {
        return r#"<section class="empty" id="no-fill"><h1>No offers right now</h1>
<p>There is nothing available for you at the moment. New offers arrive often: check back later.</p></section>"#
            .to_owned();
    }
    let cards: String = list
        .items
        .iter()
        .map(|o| {
            let img = o
                .image_urls
                .first()
                .map(|u| format!(r#"<img src="{}" alt="" loading="lazy">"#, esc(u)))
                .unwrap_or_else(|| r#"<span class="ph" aria-hidden="true"></span>"#.to_owned());
            let status = progress
                .get(&o.campaign_id)
                .map(|s| badge(s))
                .unwrap_or_default();
            format!(
                r#"<li class="offer" data-offer="{id}"><a href="/offerwall/offers/{idq}?{qs}">{img}<div><h2>{title}</h2><p class="reward">+{reward}</p><p class="meta">{cat} · {steps} {noun} {status}</p></div></a></li>"#,
                id = esc(&o.campaign_id),
                idq = q(&o.campaign_id),
                qs = f.qs,
                title = esc(&o.title),
                reward = money(o.total_reward_minor_units, &o.currency),
                cat = esc(&o.category.to_lowercase().replace('_', " ")),
                steps = o.goals.len(),
                noun = if o.goals.len() == 1 { "step" } else { "steps" },
            )
        })
        .collect();
    let more = next_qs
        .map(|n| format!(r#"<p class="more"><a class="button secondary" href="/offerwall?{n}">More offers</a></p>"#))
        .unwrap_or_default();
    format!(r#"<ul class="offers" id="offers">{cards}</ul>{more}"#)
}

/// An offer's details with everything that must be read before launching.
pub fn offer_detail(
    f: &Frame,
    o: &OfferItem,
    status: Option<&str>,
    launch_form_fields: &str,
) -> String {
    let img = o
        .image_urls
        .first()
        .map(|u| format!(r#"<img class="hero" src="{}" alt="">"#, esc(u)))
        .unwrap_or_default();
    let goals: String = o
        .goals
        .iter()
        .map(|g| {
            let hold = if g.pending_minutes > 0 {
                format!(" · confirmed within {} min", g.pending_minutes)
            } else {
                String::new()
            };
            format!(
                r#"<li><span>{name}</span><strong>+{r}</strong><small>Complete within {h} h{hold}</small></li>"#,
                name = esc(&g.name),
                r = money(g.reward_minor_units, &o.currency),
                h = g.completion_window_hours,
            )
        })
        .collect();
    let completed = o.availability.status == app::model::delivery::AvailabilityStatus::Completed;
    let action = if completed {
        r#"<p class="done">You have completed this offer.</p>"#.to_owned()
    } else {
        // In an embedded wall the advertiser opens in a new tab, not inside the iframe.
        // `noopener`: the advertiser's page gets no handle on the wall's window.
        let target = if f.embed {
            r#" target="_blank" rel="noopener noreferrer""#
        } else {
            ""
        };
        format!(
            r#"<form method="post" action="/offerwall/offers/{id}/launch" class="launch"{target}>{launch_form_fields}<button type="submit" id="launch">Start offer</button></form>"#,
            id = q(&o.campaign_id)
        )
    };
    let help = if f.show_support {
        format!(
            r#"<p class="help"><a href="/offerwall/support?{}&amp;offer={}">Problem with this offer?</a></p>"#,
            f.qs,
            q(&o.campaign_id)
        )
    } else {
        String::new()
    };
    format!(
        r#"<article class="detail" data-offer="{id}">{img}<h1>{title}</h1>
<p class="reward">Total +{total} {status}</p>
<section><h2>What to do</h2><p class="requirements">{req}</p></section>
<section><h2>Rewards</h2><ul class="goals">{goals}</ul></section>
<section class="disclaimer"><h2>Before you start</h2><p>{disc}</p></section>
{action}{help}</article>"#,
        id = esc(&o.campaign_id),
        title = esc(&o.title),
        total = money(o.total_reward_minor_units, &o.currency),
        status = status.map(badge).unwrap_or_default(),
        req = esc(&o.requirements),
        disc = esc(&o.disclaimer),
    )
}

/// The user's reward progress.
pub fn rewards(r: &RewardStatus, c: &Currency, titles: &HashMap<String, String>) -> String {
    let t = &r.totals;
    let rows: String = r
        .items
        .iter()
        .map(|i| {
            let title = titles.get(&i.offer_id).map_or(i.offer_id.as_str(), String::as_str);
            format!(
                r#"<tr data-offer="{id}"><td>{title}<br><small>{goal}</small></td><td>{badge}</td><td class="num">{amount}</td><td><small>{when}</small></td></tr>"#,
                id = esc(&i.offer_id),
                title = esc(title),
                goal = esc(&i.goal_id),
                badge = badge(&i.status),
                amount = format_minor(i.reward_minor_units, c.decimals),
                when = i.updated_at.format("%Y-%m-%d %H:%M UTC"),
            )
        })
        .collect();
    let list = if r.items.is_empty() {
        r#"<p class="muted">No rewards yet. Start an offer and your progress shows here.</p>"#
            .to_owned()
    } else {
        format!(
            r#"<table class="rewards" id="reward-status"><thead><tr><th>Offer</th><th>Status</th><th class="num">{cur}</th><th>Updated</th></tr></thead><tbody>{rows}</tbody></table>"#,
            cur = esc(&c.name)
        )
    };
    format!(
        r#"<h1>My rewards</h1>
<dl class="totals" data-currency="{cur}" data-earned-minor-units="{em}" data-pending-minor-units="{pm}" data-reversed-minor-units="{vm}"><div><dt>Earned</dt><dd>{e}</dd></div><div><dt>Pending</dt><dd>{p}</dd></div><div><dt>Reversed</dt><dd>{v}</dd></div></dl>
{list}
<p class="muted small">Rewards reach your account once the app confirms them.</p>"#,
        e = money(t.earned_minor_units, c),
        p = money(t.pending_minor_units, c),
        v = money(t.reversed_minor_units, c),
        cur = esc(&c.name),
        em = t.earned_minor_units,
        pm = t.pending_minor_units,
        vm = t.reversed_minor_units,
    )
}

/// Reasons a user can pick on the support form.
pub const REASONS: [(&str, &str); 4] = [
    ("MISSING_REWARD", "I completed the offer but got no reward"),
    ("WRONG_REWARD", "I got the wrong amount"),
    ("OFFER_NOT_WORKING", "The offer does not work"),
    ("OTHER", "Something else"),
];

/// The support form and the user's cases.
pub fn support(
    form_fields: &str,
    offers: &[(String, String)],
    picked: Option<&str>,
    error: Option<&str>,
    sent: bool,
    cases: &[SupportCase],
    message: &str,
) -> String {
    let opts: String =
        std::iter::once(r#"<option value="">No particular offer</option>"#.to_owned())
            .chain(offers.iter().map(|(id, title)| {
                let sel = if picked == Some(id.as_str()) {
                    " selected"
                } else {
                    ""
                };
                format!(
                    r#"<option value="{}"{sel}>{}</option>"#,
                    esc(id),
                    esc(title)
                )
            }))
            .collect();
    let reasons: String = REASONS
        .iter()
        .map(|(v, l)| format!(r#"<option value="{v}">{l}</option>"#))
        .collect();
    let flash = match (error, sent) {
        (Some(e), _) => format!(r#"<p class="error" role="alert">{}</p>"#, esc(e)),
        (None, true) => r#"<p class="ok" role="status" id="case-sent">Thanks, your request was sent. We reply here.</p>"#.to_owned(),
        _ => String::new(),
    };
    let items: String = cases
        .iter()
        .map(|c| {
            let note = c
                .publisher_note
                .as_deref()
                .map(|n| format!(r#"<p class="reply">Reply: {}</p>"#, esc(n)))
                .unwrap_or_default();
            format!(
                r#"<li><strong>{reason}</strong> <span class="status status-{sl}">{s}</span><p>{m}</p>{note}<small>{when}</small></li>"#,
                reason = esc(&c.reason_code.replace('_', " ").to_lowercase()),
                sl = c.status.as_str().to_ascii_lowercase(),
                s = c.status.as_str().replace('_', " ").to_lowercase(),
                m = esc(&c.message),
                when = c.created_at.format("%Y-%m-%d %H:%M UTC"),
            )
        })
        .collect();
    let list = if cases.is_empty() {
        String::new()
    } else {
        format!(r#"<h2>Your requests</h2><ul class="cases" id="cases">{items}</ul>"#)
    };
    format!(
        r#"<h1>Help</h1>{flash}
<form method="post" action="/offerwall/support" class="support">{form_fields}
<label>Offer<select name="offer_id">{opts}</select></label>
<label>What happened?<select name="reason_code">{reasons}</select></label>
<label>Details<textarea name="message" minlength="10" maxlength="2000" rows="4" required placeholder="When did you complete it? What did you see?">{msg}</textarea></label>
<button type="submit">Send</button></form>
{list}"#,
        msg = esc(message)
    )
}
