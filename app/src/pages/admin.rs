//! Administrator home: the queue of advertisers awaiting approval, then the placement
//! review queue and the verified placements awaiting release.

use leptos::prelude::*;
use leptos_meta::Title;

use super::RequireUser;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::publisher::{Placement, PlacementList};
use crate::server_fns::admin::{ApproveAdvertiser, pending_advertisers};
use crate::server_fns::publisher::{ReleasePlacement, ReviewPlacement, placement_queue};

/// The page's actions and resources. Created in the page body, before [`RequireUser`]:
/// its content can render more than once on the server, and a resource created in there
/// would be created again and break hydration.
#[derive(Clone, Copy)]
struct AdminData {
    approve: ServerAction<ApproveAdvertiser>,
    queue: Resource<Result<Vec<AccountView>, AppError>>,
    placements: PlacementQueues,
}

impl AdminData {
    fn new() -> Self {
        let approve = ServerAction::<ApproveAdvertiser>::new();
        let review = ServerAction::<ReviewPlacement>::new();
        let release = ServerAction::<ReleasePlacement>::new();
        AdminData {
            approve,
            queue: Resource::new(move || approve.version().get(), |_| pending_advertisers()),
            placements: PlacementQueues {
                review,
                release,
                pending: Resource::new(move || review.version().get(), |_| placement_queue(None)),
                verified: Resource::new(
                    move || (review.version().get(), release.version().get()),
                    |_| placement_queue(Some("VERIFIED".to_owned())),
                ),
            },
        }
    }
}

#[component]
pub fn AdminHome() -> impl IntoView {
    let data = AdminData::new();
    view! {
        <Title text="Admin"/>
        <RequireUser signed_in=move |u: AccountView| {
            if u.role.is_admin() {
                let AdminData { approve, queue, placements } = data;
                view! { <AdvertiserQueue approve queue/><PlacementReview placements/> }.into_any()
            } else {
                view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any()
            }
        }/>
    }
}

#[component]
fn AdvertiserQueue(
    approve: ServerAction<ApproveAdvertiser>,
    queue: Resource<Result<Vec<AccountView>, AppError>>,
) -> impl IntoView {
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

/// The placement review queue and the verified placements awaiting release.
#[derive(Clone, Copy)]
struct PlacementQueues {
    review: ServerAction<ReviewPlacement>,
    release: ServerAction<ReleasePlacement>,
    pending: Resource<Result<PlacementList, AppError>>,
    verified: Resource<Result<PlacementList, AppError>>,
}

/// Placements awaiting review (verify or reject with a note), then verified placements
/// awaiting their production release.
#[component]
fn PlacementReview(placements: PlacementQueues) -> impl IntoView {
    let PlacementQueues {
        review,
        release,
        pending,
        verified,
    } = placements;
    let review_error = Signal::derive(move || review.value().get().and_then(Result::err));
    let release_error = Signal::derive(move || release.value().get().and_then(Result::err));
    view! {
        <section class="card" id="placement-review">
            <h1>"Placements awaiting review"</h1>
            <ErrorNotice error=review_error/>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match pending.await {
                        Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
                        Ok(l) if l.items.is_empty() => view! { <p class="muted">"No placement is waiting for review."</p> }.into_any(),
                        Ok(l) => view! {
                            <table class="review">
                                <thead><tr><th>"Placement"</th><th>"Identity"</th><th>"Callback"</th><th>"Decision"</th></tr></thead>
                                <tbody>
                                    {l.items.into_iter().map(|p| view! { <ReviewRow p review/> }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
        </section>
        <section class="card" id="placement-release">
            <h1>"Verified, awaiting release"</h1>
            <ErrorNotice error=release_error/>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let waiting = verified.await.map(|l| {
                        l.items.into_iter().filter(|p| !p.released).collect::<Vec<_>>()
                    });
                    match waiting {
                        Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
                        Ok(list) if list.is_empty() => view! { <p class="muted">"Nothing to release."</p> }.into_any(),
                        Ok(list) => view! {
                            <table class="release">
                                <thead><tr><th>"Placement"</th><th>"Identity"</th><th>"Verified"</th><th></th></tr></thead>
                                <tbody>
                                    {list.into_iter().map(|p| view! {
                                        <tr>
                                            <td><strong>{p.name}</strong>" "<span class="muted">{p.placement_type.as_str()}</span><br/><code class="muted">{p.placement_id.clone()}</code></td>
                                            <td><code>{p.platform_identity}</code></td>
                                            <td>{p.updated_at.format("%Y-%m-%d %H:%M UTC").to_string()}</td>
                                            <td>
                                                <ActionForm action=release>
                                                    <CsrfField/>
                                                    <input type="hidden" name="placement_id" value=p.placement_id/>
                                                    <button type="submit">"Release"</button>
                                                </ActionForm>
                                            </td>
                                        </tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn ReviewRow(p: Placement, review: ServerAction<ReviewPlacement>) -> impl IntoView {
    let callback = p
        .callback
        .url
        .clone()
        .unwrap_or_else(|| "not configured".to_owned());
    view! {
        <tr>
            <td>
                <strong>{p.name}</strong>" "<span class="muted">{p.placement_type.as_str()}</span><br/>
                <code class="muted">{p.placement_id.clone()}</code>
            </td>
            <td>
                <code>{p.platform_identity}</code>
                {p.store_url.map(|u| view! { <br/><a href=u.clone() rel="noopener noreferrer">{u.clone()}</a> })}
            </td>
            <td><code>{callback}</code></td>
            <td>
                <ActionForm action=review attr:class="review-form">
                    <CsrfField/>
                    <input type="hidden" name="placement_id" value=p.placement_id/>
                    <textarea name="note" rows="2" maxlength="2000" aria-label="Review note"
                        placeholder="Note to the publisher (required to reject)"></textarea>
                    <span class="actions">
                        <button type="submit" name="decision" value="VERIFIED">"Verify"</button>
                        <button type="submit" name="decision" value="REJECTED" class="danger">"Reject"</button>
                    </span>
                </ActionForm>
            </td>
        </tr>
    }
}
