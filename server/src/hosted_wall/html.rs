//! The hosted offerwall's HTML: plain server-rendered pages with forms, so they work in any
//! web view without JavaScript. Every value from a campaign, a slot or a user is escaped.
//! Every word comes from the language's catalogue (`i18n`), every number and date is
//! written the language's way, and Arabic pages are laid out right to left.

use std::collections::HashMap;

use app::domain::delivery::offer_texts::OfferTexts;
use app::model::delivery::{OfferItem, OfferList, RewardStatus};
use app::model::language::Language;
use app::model::publisher::Currency;
use app::model::publisher::ops::{SupportCase, SupportStatus};
use app::model::wall_design::WallDesign;

use super::i18n::{self, Texts, fill};

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

/// What every page needs: the query that keeps the user in this wall, its look and language.
pub struct Frame<'a> {
    /// `token=…&slot=…` (already escaped for a URL), appended to every wall link.
    pub qs: &'a str,
    pub design: &'a WallDesign,
    pub embed: bool,
    pub show_rewards: bool,
    pub show_support: bool,
    pub lang: Language,
    pub t: &'static Texts,
}

impl Frame<'_> {
    fn money(&self, minor: i64, c: &Currency) -> String {
        format!(
            "{} {}",
            i18n::number(self.lang, minor, c.decimals),
            esc(&c.name)
        )
    }

    fn badge(&self, status: &str) -> String {
        let label = self.t.state(status).unwrap_or(status);
        format!(
            r#"<span class="status status-{}">{}</span>"#,
            status.to_ascii_lowercase(),
            esc(label)
        )
    }

    fn when(&self, t: &chrono::DateTime<chrono::Utc>) -> String {
        i18n::datetime(self.lang, t, self.t.months.as_ref())
    }
}

/// The hidden inputs that carry the wall's query through a form post.
pub fn hidden(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!(r#"<input type="hidden" name="{k}" value="{}">"#, esc(v)))
        .collect()
}

/// `lang` and `dir` of a page's root element.
fn root(lang: Language) -> String {
    let dir = if lang.rtl() { "rtl" } else { "ltr" };
    format!(r#"lang="{}" dir="{dir}""#, lang.as_str())
}

/// A whole page around `body`.
pub fn page(f: &Frame, title: &str, body: &str) -> String {
    let (d, t) = (f.design, f.t);
    let brand = d.title.as_deref().unwrap_or(t.brand);
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
    let mut nav = format!(r#"<a href="/offerwall?{}">{}</a>"#, f.qs, t.offers);
    if f.show_rewards {
        nav += &format!(
            r#"<a href="/offerwall/rewards?{}">{}</a>"#,
            f.qs, t.my_rewards
        );
    }
    if f.show_support {
        nav += &format!(r#"<a href="/offerwall/support?{}">{}</a>"#, f.qs, t.help);
    }
    let close = if f.embed {
        format!(
            r#"<button type="button" class="close" data-wall-close aria-label="{}">×</button>"#,
            t.close
        )
    } else {
        String::new()
    };
    format!(
        r#"<!doctype html>
<html {root}{dark}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>{title} · {brand_e}</title>
<link rel="stylesheet" href="/offerwall/assets/wall-v2.css">
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
        root = root(f.lang),
        dark = if d.dark_mode { r#" class="dark""# } else { "" },
        title = esc(title),
        brand_e = esc(brand),
        embed = if f.embed { r#" data-embed="1""# } else { "" },
    )
}

/// A stand-alone notice (expired session, no such offer) with no navigation.
pub fn notice(lang: Language, title: &str, text: &str) -> String {
    format!(
        r#"<!doctype html>
<html {root}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>{t}</title><link rel="stylesheet" href="/offerwall/assets/wall-v2.css">
<script src="/offerwall/assets/wall-v1.js" defer></script></head>
<body><main class="notice" role="alert"><h1>{t}</h1><p>{x}</p>
<button type="button" class="close-text" data-wall-close>{close}</button></main></body>
</html>"#,
        root = root(lang),
        t = esc(title),
        x = esc(text),
        close = i18n::texts(lang).close,
    )
}

/// The offer's title in the user's language (as given when the campaign has no translation).
fn title<'a>(o: &'a OfferItem, texts: &'a HashMap<String, OfferTexts>) -> &'a str {
    texts
        .get(&o.campaign_id)
        .map_or(o.title.as_str(), |x| &x.title)
}

/// The offer list, or the no-fill state.
pub fn offer_list(
    f: &Frame,
    list: &OfferList,
    texts: &HashMap<String, OfferTexts>,
    progress: &HashMap<String, &'static str>,
    next_qs: Option<String>,
) -> String {
    let t = f.t;
    if list.items.is_empty() {
        return format!(
            r#"<section class="empty" id="no-fill"><h1>{}</h1><p>{}</p></section>"#,
            t.no_fill.0, t.no_fill.1
        );
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
                .map(|s| f.badge(s))
                .unwrap_or_default();
            format!(
                r#"<li class="offer" data-offer="{id}"><a href="/offerwall/offers/{idq}?{qs}">{img}<div><h2>{title}</h2><p class="reward">+{reward}</p><p class="meta">{cat} · {steps} {status}</p></div></a></li>"#,
                id = esc(&o.campaign_id),
                idq = q(&o.campaign_id),
                qs = f.qs,
                title = esc(title(o, texts)),
                reward = f.money(o.total_reward_minor_units, &o.currency),
                cat = esc(&t.category(&o.category)),
                steps = t.step_count(o.goals.len()),
            )
        })
        .collect();
    let more = next_qs
        .map(|n| {
            format!(
                r#"<p class="more"><a class="button secondary" href="/offerwall?{n}">{}</a></p>"#,
                t.more_offers
            )
        })
        .unwrap_or_default();
    format!(r#"<ul class="offers" id="offers">{cards}</ul>{more}"#)
}

/// An offer's details with everything that must be read before launching.
pub fn offer_detail(
    f: &Frame,
    o: &OfferItem,
    texts: Option<&OfferTexts>,
    status: Option<&str>,
    launch_form_fields: &str,
) -> String {
    let t = f.t;
    let img = o
        .image_urls
        .first()
        .map(|u| format!(r#"<img class="hero" src="{}" alt="">"#, esc(u)))
        .unwrap_or_default();
    let goal_name = |g: &app::model::delivery::OfferGoal| -> String {
        texts.map_or(g.name.clone(), |x| x.goal(&g.id).to_owned())
    };
    let goals: String = o
        .goals
        .iter()
        .map(|g| {
            let hold = if g.pending_minutes > 0 {
                let n = i18n::number(f.lang, g.pending_minutes, 0);
                format!(" · {}", fill(t.confirmed_within, &[("n", &n)]))
            } else {
                String::new()
            };
            let h = i18n::number(f.lang, g.completion_window_hours, 0);
            format!(
                r#"<li><span>{name}</span><strong>+{r}</strong><small>{within}{hold}</small></li>"#,
                name = esc(&goal_name(g)),
                r = f.money(g.reward_minor_units, &o.currency),
                within = fill(t.complete_within, &[("h", &h)]),
            )
        })
        .collect();
    // The advertiser's description (or its translation); otherwise the goals to complete.
    let requirements = match texts {
        Some(x) => x.description.clone().unwrap_or_else(|| {
            let steps: Vec<String> = o.goals.iter().map(goal_name).collect();
            fill(t.complete_steps, &[("steps", &steps.join(", "))])
        }),
        None => o.requirements.clone(),
    };
    let max_pending = o.goals.iter().map(|g| g.pending_minutes).max().unwrap_or(0);
    let disclaimer = if max_pending > 0 {
        fill(
            t.disclaimer_pending,
            &[("n", &i18n::number(f.lang, max_pending, 0))],
        )
    } else {
        t.disclaimer.to_owned()
    };
    let completed = o.availability.status == app::model::delivery::AvailabilityStatus::Completed;
    let action = if completed {
        format!(r#"<p class="done">{}</p>"#, t.done)
    } else {
        // In an embedded wall the advertiser opens in a new tab, not inside the iframe.
        // `noopener`: the advertiser's page gets no handle on the wall's window.
        let target = if f.embed {
            r#" target="_blank" rel="noopener noreferrer""#
        } else {
            ""
        };
        format!(
            r#"<form method="post" action="/offerwall/offers/{id}/launch" class="launch"{target}>{launch_form_fields}<button type="submit" id="launch">{start}</button></form>"#,
            id = q(&o.campaign_id),
            start = t.start_offer,
        )
    };
    let help = if f.show_support {
        format!(
            r#"<p class="help"><a href="/offerwall/support?{}&amp;offer={}">{}</a></p>"#,
            f.qs,
            q(&o.campaign_id),
            t.problem
        )
    } else {
        String::new()
    };
    format!(
        r#"<article class="detail" data-offer="{id}">{img}<h1>{title}</h1>
<p class="reward">{total_l} +{total} {status}</p>
<section><h2>{what}</h2><p class="requirements">{req}</p></section>
<section><h2>{rewards_l}</h2><ul class="goals">{goals}</ul></section>
<section class="disclaimer"><h2>{before}</h2><p>{disc}</p></section>
{action}{help}</article>"#,
        id = esc(&o.campaign_id),
        title = esc(texts.map_or(o.title.as_str(), |x| &x.title)),
        total_l = t.total,
        total = f.money(o.total_reward_minor_units, &o.currency),
        status = status.map(|s| f.badge(s)).unwrap_or_default(),
        what = t.what_to_do,
        req = esc(&requirements),
        rewards_l = t.rewards,
        before = t.before_you_start,
        disc = esc(&disclaimer),
    )
}
/// The user's reward progress.
pub fn rewards(
    f: &Frame,
    r: &RewardStatus,
    c: &Currency,
    texts: &HashMap<String, OfferTexts>,
) -> String {
    let (t, totals) = (f.t, &r.totals);
    let rows: String = r
        .items
        .iter()
        .map(|i| {
            let x = texts.get(&i.offer_id);
            format!(
                r#"<tr data-offer="{id}"><td>{title}<br><small>{goal}</small></td><td>{badge}</td><td class="num">{amount}</td><td><small>{when}</small></td></tr>"#,
                id = esc(&i.offer_id),
                title = esc(x.map_or(i.offer_id.as_str(), |x| &x.title)),
                goal = esc(x.map_or(i.goal_id.as_str(), |x| x.goal(&i.goal_id))),
                badge = f.badge(&i.status),
                amount = i18n::number(f.lang, i.reward_minor_units, c.decimals),
                when = f.when(&i.updated_at),
            )
        })
        .collect();
    let list = if r.items.is_empty() {
        format!(r#"<p class="muted">{}</p>"#, t.no_rewards)
    } else {
        format!(
            r#"<table class="rewards" id="reward-status"><thead><tr><th>{}</th><th>{}</th><th class="num">{cur}</th><th>{}</th></tr></thead><tbody>{rows}</tbody></table>"#,
            t.offer,
            t.status,
            t.updated,
            cur = esc(&c.name)
        )
    };
    format!(
        r#"<h1>{title}</h1>
<dl class="totals" data-currency="{cur}" data-earned-minor-units="{em}" data-pending-minor-units="{pm}" data-reversed-minor-units="{vm}"><div><dt>{el}</dt><dd>{e}</dd></div><div><dt>{pl}</dt><dd>{p}</dd></div><div><dt>{vl}</dt><dd>{v}</dd></div></dl>
{list}
<p class="muted small">{note}</p>"#,
        title = t.my_rewards,
        el = t.earned,
        pl = t.pending,
        vl = t.reversed,
        e = f.money(totals.earned_minor_units, c),
        p = f.money(totals.pending_minor_units, c),
        v = f.money(totals.reversed_minor_units, c),
        cur = esc(&c.name),
        em = totals.earned_minor_units,
        pm = totals.pending_minor_units,
        vm = totals.reversed_minor_units,
        note = t.rewards_note,
    )
}

/// Reasons a user can pick on the support form (labels in `Texts::reasons`).
pub const REASONS: [&str; 4] = [
    "MISSING_REWARD",
    "WRONG_REWARD",
    "OFFER_NOT_WORKING",
    "OTHER",
];

/// What the support page shows besides the form's hidden fields.
pub struct SupportView<'a> {
    /// (offer id, title) the user may pick.
    pub offers: &'a [(String, String)],
    pub picked: Option<&'a str>,
    pub error: Option<&'a str>,
    pub sent: bool,
    pub cases: &'a [SupportCase],
    /// The message typed before a refusal.
    pub message: &'a str,
}

/// The support form and the user's cases.
pub fn support(f: &Frame, form_fields: &str, v: &SupportView) -> String {
    let t = f.t;
    let opts: String = std::iter::once(format!(
        r#"<option value="">{}</option>"#,
        t.no_particular_offer
    ))
    .chain(v.offers.iter().map(|(id, title)| {
        let sel = if v.picked == Some(id.as_str()) {
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
        .zip(t.reasons)
        .map(|(v, l)| format!(r#"<option value="{v}">{l}</option>"#))
        .collect();
    let flash = match (v.error, v.sent) {
        (Some(e), _) => format!(r#"<p class="error" role="alert">{}</p>"#, esc(e)),
        (None, true) => format!(
            r#"<p class="ok" role="status" id="case-sent">{}</p>"#,
            t.case_sent
        ),
        _ => String::new(),
    };
    let items: String = v
        .cases
        .iter()
        .map(|c| {
            let note = c
                .publisher_note
                .as_deref()
                .map(|n| format!(r#"<p class="reply">{} {}</p>"#, t.reply, esc(n)))
                .unwrap_or_default();
            let reason = REASONS
                .iter()
                .position(|r| *r == c.reason_code)
                .map_or_else(
                    || c.reason_code.replace('_', " ").to_lowercase(),
                    |i| t.reasons[i].to_owned(),
                );
            let state = match c.status {
                SupportStatus::Open => t.case_states[0],
                SupportStatus::InProgress => t.case_states[1],
                SupportStatus::Resolved => t.case_states[2],
                SupportStatus::Rejected => t.case_states[3],
            };
            format!(
                r#"<li><strong>{reason}</strong> <span class="status status-{sl}">{state}</span><p>{m}</p>{note}<small>{when}</small></li>"#,
                reason = esc(&reason),
                sl = c.status.as_str().to_ascii_lowercase(),
                m = esc(&c.message),
                when = f.when(&c.created_at),
            )
        })
        .collect();
    let list = if v.cases.is_empty() {
        String::new()
    } else {
        format!(
            r#"<h2>{}</h2><ul class="cases" id="cases">{items}</ul>"#,
            t.your_requests
        )
    };
    format!(
        r#"<h1>{help}</h1>{flash}
<form method="post" action="/offerwall/support" class="support">{form_fields}
<label>{offer}<select name="offer_id">{opts}</select></label>
<label>{what}<select name="reason_code">{reasons}</select></label>
<label>{details}<textarea name="message" minlength="10" maxlength="2000" rows="4" required placeholder="{hint}">{msg}</textarea></label>
<button type="submit">{send}</button></form>
{list}"#,
        help = t.help,
        offer = t.offer,
        what = t.what_happened,
        details = t.details,
        hint = t.details_hint,
        send = t.send,
        msg = esc(v.message)
    )
}
