//! Administrator home: the queue of advertisers awaiting approval.

use leptos::prelude::*;
use leptos_meta::Title;

use super::RequireUser;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::AccountView;
use crate::server_fns::admin::{ApproveAdvertiser, pending_advertisers};

#[component]
pub fn AdminHome() -> impl IntoView {
    view! {
        <Title text="Admin"/>
        <RequireUser signed_in=|u: AccountView| {
            if u.role.is_admin() { view! { <AdvertiserQueue/> }.into_any() } else {
                view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any()
            }
        }/>
    }
}

#[component]
fn AdvertiserQueue() -> impl IntoView {
    let approve = ServerAction::<ApproveAdvertiser>::new();
    let queue = Resource::new(move || approve.version().get(), |_| pending_advertisers());
    let error = Signal::derive(move || approve.value().get().and_then(Result::err));
    view! {
        <section class="card">
            <h1>"Advertisers awaiting approval"</h1>
            <ErrorNotice error/>
            <Suspense fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match queue.await {
                        Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted">"Nobody is waiting."</p> }.into_any(),
                        Ok(list) => view! {
                            <table>
                                <thead><tr><th>"Company"</th><th>"E-mail"</th><th>"Registered"</th><th></th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|a| view! {
                                        <tr>
                                            <td>{a.company_name}</td>
                                            <td>{a.email}</td>
                                            <td>{a.created_at.format("%Y-%m-%d %H:%M UTC").to_string()}</td>
                                            <td>
                                                <ActionForm action=approve>
                                                    <CsrfField/>
                                                    <input type="hidden" name="account_id" value=a.account_id/>
                                                    <button type="submit">"Approve"</button>
                                                </ActionForm>
                                            </td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}
