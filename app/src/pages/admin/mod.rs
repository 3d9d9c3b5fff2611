//! Administrator home: the queue of advertisers awaiting approval, the wire fundings
//! awaiting review, the offer and survey campaigns awaiting review, then the placement
//! review queue and the verified placements awaiting release.

mod fraud;
mod mail;
mod payout_batches;
mod payouts;
mod revenue;
mod surveys;

pub use fraud::AdminFraudPage;
pub use mail::AdminMailPage;
pub use payouts::AdminPayoutsPage;

use leptos::prelude::*;
use leptos_meta::Title;

use self::surveys::{SurveyQueue, SurveyReview};
use super::RequireUser;
use super::advertiser::{CampaignQueue, CampaignReview};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::fraud::FraudOverview;
use crate::model::publisher::{Placement, PlacementList};
use crate::server_fns::admin::{ApproveAdvertiser, pending_advertisers};
use crate::server_fns::billing::{ApproveWireFunding, WireReview, funding_review_queue};
use crate::server_fns::fraud::fraud_summary;
use crate::server_fns::publisher::{ReleasePlacement, ReviewPlacement, placement_queue};

/// The page's actions and resources. Created in the page body, before [`RequireUser`]:
/// its content can render more than once on the server, and a resource created in there
/// would be created again and break hydration.
#[derive(Clone, Copy)]
struct AdminData {
    approve: ServerAction<ApproveAdvertiser>,
    queue: Resource<Result<Vec<AccountView>, AppError>>,
    fundings: FundingQueue,
    campaigns: CampaignQueue,
    surveys: SurveyQueue,
    placements: PlacementQueues,
    fraud: Resource<Result<FraudOverview, AppError>>,
}

impl AdminData {
    fn new() -> Self {
        let approve = ServerAction::<ApproveAdvertiser>::new();
        let review = ServerAction::<ReviewPlacement>::new();
        let release = ServerAction::<ReleasePlacement>::new();
        let approve_wire = ServerAction::<ApproveWireFunding>::new();
        AdminData {
            approve,
            queue: Resource::new(move || approve.version().get(), |_| pending_advertisers()),
            fundings: FundingQueue {
                approve: approve_wire,
                queue: Resource::new(
                    move || approve_wire.version().get(),
                    |_| funding_review_queue(),
                ),
            },
            campaigns: CampaignQueue::new(),
            fraud: Resource::new(|| (), |()| fraud_summary()),
            surveys: SurveyQueue::new(),
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
                let AdminData { approve, queue, fundings, campaigns, surveys, placements, fraud } = data;
                view! {
                    <p class="areas"><a class="button secondary" href="/admin/payouts" rel="external">"Publisher payouts"</a>" "<a class="button secondary" href="/admin/fraud" rel="external">"Fraud review"</a>" "<a class="button secondary" href="/admin/mail" rel="external">"Mail"</a></p>
                    <FraudAttention fraud/>
                    <AdvertiserQueue approve queue/>
                    <FundingReview fundings/>
                    <CampaignReview campaigns/>
                    <SurveyReview surveys/>
                    <PlacementReview placements/>
                }
                .into_any()
            } else {
                view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any()
            }
        }/>
    }
}

/// What fraud review needs from an administrator: placements paused for fraud and
/// placements with held conversions (nothing when there are none).
#[component]
fn FraudAttention(fraud: Resource<Result<FraudOverview, AppError>>) -> impl IntoView {
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let Ok(o) = fraud.await else { return ().into_any() };
                let paused = o.placements.iter().filter(|p| p.paused_at.is_some()).count();
                let holding = o.placements.iter().filter(|p| p.held > 0).count();
                if paused + holding == 0 {
                    return ().into_any();
                }
                view! {
                    <section class="card attention" id="fraud-attention">
                        <p>{format!("Fraud review: {paused} placement(s) paused for delivery, {holding} placement(s) with conversions held for a decision.")}</p>
                        <p><a href="/admin/fraud" rel="external">"Open the fraud review"</a></p>
                    </section>
                }.into_any()
            })}
        </Suspense>
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
                                                    <Submit action=approve label="Approve"/>
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

/// Wire fundings awaiting review and the approval that credits them.
#[derive(Clone, Copy)]
struct FundingQueue {
    approve: ServerAction<ApproveWireFunding>,
    queue: Resource<Result<Vec<WireReview>, AppError>>,
}

/// Announced wire transfers: approve one once the money has arrived on the bank account.
#[component]
fn FundingReview(fundings: FundingQueue) -> impl IntoView {
    let FundingQueue { approve, queue } = fundings;
    let error = Signal::derive(move || approve.value().get().and_then(Result::err));
    let credited = move || {
        approve.value().get().and_then(Result::ok).map(|f| {
            view! {
                <div class="notice ok" role="status">
                    {format!("Credited {} to {}.", f.amount_micros.money(&f.currency), f.advertiser_id)}
                </div>
            }
        })
    };
    view! {
        <section class="card" id="funding-review">
            <h1>"Wire transfers awaiting review"</h1>
            <p class="muted">"Approve a transfer once it has arrived: the amount is credited to the advertiser's balance."</p>
            {credited}
            <ErrorNotice error/>
            {loaded(queue, error_line, move |value| match value {
                list if list.is_empty() => view! { <p class="muted">"No wire transfer is waiting."</p> }.into_any(),
                list => view! {
                    <table class="funding-review">
                        <thead><tr><th>"Advertiser"</th><th>"Amount"</th><th>"Reference"</th><th>"Announced"</th><th></th></tr></thead>
                        <tbody>
                            {list.into_iter().map(|r| {
                                let f = r.funding;
                                view! {
                                    <tr>
                                        <td>
                                            <strong>{r.company_name}</strong>" "<span class="muted">{r.email}</span><br/>
                                            <code class="muted">{f.advertiser_id.clone()}</code>
                                        </td>
                                        <td class="num">{f.amount_micros.money(&f.currency)}</td>
                                        <td><code>{f.external_reference.clone().unwrap_or_default()}</code></td>
                                        <td>{f.created_at.format("%Y-%m-%d %H:%M UTC").to_string()}</td>
                                        <td>
                                            <ActionForm action=approve>
                                                <CsrfField/>
                                                <input type="hidden" name="funding_id" value=f.funding_id.clone()/>
                                                <Submit action=approve label="Approve"/>
                                            </ActionForm>
                                        </td>
                                    </tr>
                                }
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            })}
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
            {loaded(pending, error_line, move |value| match value {
                l if l.items.is_empty() => view! { <p class="muted">"No placement is waiting for review."</p> }.into_any(),
                l => view! {
                    <table class="review">
                        <thead><tr><th>"Placement"</th><th>"Identity"</th><th>"Callback"</th><th>"Decision"</th></tr></thead>
                        <tbody>
                            {l.items.into_iter().map(|p| view! { <ReviewRow p review/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            })}
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
                                                    <Submit action=release label="Release"/>
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
