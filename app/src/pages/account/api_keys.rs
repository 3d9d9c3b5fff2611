//! The API keys card of `/account`: the account's keys (name, prefix, grants, last use),
//! a form to create one (shown once) and a revoke button per key. Plain forms that work
//! without JavaScript (a created key travels in a flash to the page the form returns to).

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, SecondFactorField, Submit};
use crate::components::loaded::{error_line, loaded};
use crate::model::OneTimeSecret;
use crate::model::api_key::{ApiKeyView, KeyArea};
use crate::pages::advertiser::successes;
use crate::pages::publisher::action_error;
use crate::server_fns::api_keys::{CreateApiKey, RevokeApiKey, api_keys_card};

/// The card's actions and data, made in the page body (the signed-in part of a page can
/// render more than once; its resources must not be made again each time).
#[derive(Clone, Copy)]
pub struct KeysData {
    create: ServerAction<CreateApiKey>,
    revoke: ServerAction<RevokeApiKey>,
    card: Resource<Result<crate::server_fns::api_keys::KeysSummary, crate::error::AppError>>,
}

impl KeysData {
    pub fn new() -> Self {
        let create = ServerAction::<CreateApiKey>::new();
        let revoke = ServerAction::<RevokeApiKey>::new();
        let (made, gone) = (successes(create), successes(revoke));
        let card = Resource::new(move || (made.get(), gone.get()), |_| api_keys_card());
        KeysData {
            create,
            revoke,
            card,
        }
    }
}

#[component]
pub fn ApiKeysCard(data: KeysData) -> impl IntoView {
    let KeysData {
        create,
        revoke,
        card,
    } = data;
    let error = Signal::derive(move || action_error(create).get().or(action_error(revoke).get()));
    let fresh = Signal::derive(move || create.value().get().and_then(Result::ok));
    view! {
        <section class="card" id="api-keys">
            <h2>"API keys"</h2>
            <p class="muted">"For integrations: send a key as "<code>"Authorization: Bearer mkt_key_…"</code>" wherever the API takes a dashboard token. Each key reads or writes only the areas you grant; keys cannot manage keys, tokens or the account. Revoking a key stops it at once."</p>
            <ErrorNotice error/>
            {loaded(card, error_line, move |c| {
                let shown = fresh.get_untracked().or(c.issued.clone());
                view! {
                    {shown.map(|s| view! { <Shown secret=s/> })}
                    <KeyTable keys=c.keys revoke/>
                    {(!c.areas.is_empty()).then(|| view! { <NewKeyForm areas=c.areas.clone() create/> })}
                }.into_any()
            })}
        </section>
    }
}

#[component]
fn Shown(secret: OneTimeSecret) -> impl IntoView {
    view! {
        <div class="notice secret" role="status" id="api-key-shown">
            <strong>{secret.label}</strong>
            <p>"Copy the key now: it will not be shown again."</p>
            <pre class="secret-value"><code>{secret.value}</code></pre>
        </div>
    }
}

fn when(t: Option<chrono::DateTime<chrono::Utc>>, none: &'static str) -> String {
    t.map_or_else(
        || none.to_owned(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

#[component]
fn KeyTable(keys: Vec<ApiKeyView>, revoke: ServerAction<RevokeApiKey>) -> impl IntoView {
    if keys.is_empty() {
        return view! { <p id="no-api-keys">"No API keys yet."</p> }.into_any();
    }
    let rows = keys
        .into_iter()
        .map(|k| {
            let state = match (k.revoked_at, k.expires_at) {
                (Some(t), _) => format!("revoked {}", when(Some(t), "")),
                (None, Some(t)) => format!("expires {}", when(Some(t), "")),
                (None, None) => "active".to_owned(),
            };
            let live = k.revoked_at.is_none();
            let id = k.id.clone();
            view! {
                <tr data-key=k.id.clone()>
                    <td>{k.name}</td>
                    <td><code>{k.prefix}"…"</code></td>
                    <td>{k.scopes.join(", ")}</td>
                    <td>{when(Some(k.created_at), "")}</td>
                    <td>{when(k.last_used_at, "never")}</td>
                    <td>{state}</td>
                    <td>{live.then(|| view! {
                        <ActionForm action=revoke>
                            <CsrfField/>
                            <input type="hidden" name="key_id" value=id.clone()/>
                            <button type="submit" class="danger">"Revoke"</button>
                        </ActionForm>
                    })}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="api-keys">
            <thead><tr><th>"Name"</th><th>"Key"</th><th>"Grants"</th><th>"Created"</th><th>"Last used"</th><th>"State"</th><th></th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

#[component]
fn NewKeyForm(areas: Vec<KeyArea>, create: ServerAction<CreateApiKey>) -> impl IntoView {
    let fields = areas
        .into_iter()
        .map(|a| {
            view! {
                <label>{a.as_str()}
                    <select name=a.as_str()>
                        <option value="" selected=true>"no access"</option>
                        <option value="read">"read"</option>
                        <option value="write">"read and write"</option>
                    </select>
                </label>
            }
        })
        .collect_view();
    view! {
        <h3>"Create a key"</h3>
        <ActionForm action=create attr:id="new-api-key">
            <CsrfField/>
            <label>"Name"<input name="name" maxlength="80" required placeholder="Reporting job"/></label>
            <fieldset class="row"><legend>"Grants"</legend>{fields}</fieldset>
            <label>"Expires after (days, empty for never)"<input name="expires_in_days" type="number" min="1" max="730"/></label>
            <SecondFactorField/>
            <Submit action=create label="Create the key"/>
        </ActionForm>
    }
}
