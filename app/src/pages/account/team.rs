//! The team card of `/account` (issue 54, part 3): the organisation's people and roles, open
//! invitations, and, for owners and admins, forms to invite, change a role, remove a member
//! and revoke an invitation; every member can leave. Plain forms that work without JavaScript.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, SecondFactorField};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::model::TeamRole;
use crate::model::team::{InvitationView, MemberView};
use crate::pages::advertiser::successes;
use crate::pages::publisher::action_error;
use crate::server_fns::team::{
    InviteMember, LeaveTeam, RemoveMember, RevokeInvitation, TeamSummary, UpdateMember, team_card,
};

/// The card's actions and data, made in the page body (see `api_keys::KeysData`).
#[derive(Clone, Copy)]
pub struct TeamData {
    invite: ServerAction<InviteMember>,
    update: ServerAction<UpdateMember>,
    remove: ServerAction<RemoveMember>,
    revoke: ServerAction<RevokeInvitation>,
    leave: ServerAction<LeaveTeam>,
    card: Resource<Result<Option<TeamSummary>, AppError>>,
}

impl TeamData {
    pub fn new() -> Self {
        let invite = ServerAction::<InviteMember>::new();
        let update = ServerAction::<UpdateMember>::new();
        let remove = ServerAction::<RemoveMember>::new();
        let revoke = ServerAction::<RevokeInvitation>::new();
        let leave = ServerAction::<LeaveTeam>::new();
        let done = [
            successes(invite),
            successes(update),
            successes(remove),
            successes(revoke),
        ];
        let card = Resource::new(
            move || done.iter().map(|d| d.get()).sum::<usize>(),
            |_| team_card(),
        );
        TeamData {
            invite,
            update,
            remove,
            revoke,
            leave,
            card,
        }
    }
}

/// What each role may do, in a line (docs/accounts.md has the whole table).
fn what(role: TeamRole) -> &'static str {
    match role {
        TeamRole::Owner => "everything, the team included",
        TeamRole::Admin => "everything but owners",
        TeamRole::Finance => "billing, funding, earnings, payouts",
        TeamRole::Developer => "placements, callbacks, tracking, conversions, API keys",
        TeamRole::Viewer => "reads only",
    }
}

fn role_options(selected: TeamRole, owner: bool) -> impl IntoView {
    TeamRole::ALL
        .iter()
        .filter(move |r| owner || **r != TeamRole::Owner)
        .map(|r| view! { <option value=r.as_str() selected=*r == selected>{r.as_str()}</option> })
        .collect_view()
}

#[component]
pub fn TeamCard(data: TeamData) -> impl IntoView {
    let TeamData {
        invite,
        update,
        remove,
        revoke,
        leave,
        card,
    } = data;
    let error = Signal::derive(move || {
        action_error(invite)
            .get()
            .or(action_error(update).get())
            .or(action_error(remove).get())
            .or(action_error(revoke).get())
            .or(action_error(leave).get())
    });
    view! {
        {loaded(card, error_line, move |c| {
            let Some(c) = c else { return ().into_any() };
            let manage = c.role.manages_team();
            let owner = c.role == TeamRole::Owner;
            let registered = c.list.members.iter().any(|m| m.you && m.registered);
            let members = c.list.members.into_iter().map(|m| member_row(m, manage, owner, update, remove)).collect_view();
            let open = !c.list.invitations.is_empty();
            let invitations = c.list.invitations.into_iter().map(|i| invitation_row(i, manage, owner, revoke)).collect_view();
            view! {
                <section class="card" id="team">
                    <h2>"Team"</h2>
                    <p class="muted">"Everyone reads everything of the organisation; what each person may change follows their role. Your role: "<strong>{c.role.as_str()}</strong>" ("{what(c.role)}")."</p>
                    <ErrorNotice error/>
                    <table class="team">
                        <thead><tr><th>"Person"</th><th>"Role"</th><th>"Joined"</th><th></th></tr></thead>
                        <tbody>{members}</tbody>
                    </table>
                    <h3>"Open invitations"</h3>
                    {if open {
                        view! {
                            <table class="invitations">
                                <thead><tr><th>"Invited"</th><th>"Role"</th><th>"By"</th><th>"Expires"</th><th></th></tr></thead>
                                <tbody>{invitations}</tbody>
                            </table>
                        }.into_any()
                    } else {
                        view! { <p class="muted" id="no-invitations">"No invitation is waiting for an answer."</p> }.into_any()
                    }}
                    {manage.then(|| view! {
                        <h3>"Invite a person"</h3>
                        <ActionForm action=invite>
                            <CsrfField/>
                            <label>"E-mail"<input type="email" name="email" required/></label>
                            <label>"Role"<select name="role">{role_options(TeamRole::Viewer, owner)}</select></label>
                            <SecondFactorField/>
                            <button type="submit">"Send the invitation"</button>
                        </ActionForm>
                    })}
                    {(!registered).then(|| view! {
                        <ActionForm action=leave>
                            <CsrfField/>
                            <button type="submit" class="danger">"Leave the team"</button>
                        </ActionForm>
                    })}
                </section>
            }.into_any()
        })}
    }
}

fn member_row(
    m: MemberView,
    manage: bool,
    owner: bool,
    update: ServerAction<UpdateMember>,
    remove: ServerAction<RemoveMember>,
) -> impl IntoView {
    let may_touch = manage && (owner || m.role != TeamRole::Owner);
    let controls = may_touch.then(|| {
        let (id, gone) = (m.member_id.clone(), m.member_id.clone());
        view! {
            <ActionForm action=update>
                <CsrfField/>
                <input type="hidden" name="member_id" value=id.clone()/>
                <select name="role" aria-label="Role">{role_options(m.role, owner)}</select>
                <button type="submit">"Change the role"</button>
            </ActionForm>
            {(!m.registered && !m.you).then(move || view! {
                <ActionForm action=remove>
                    <CsrfField/>
                    <input type="hidden" name="member_id" value=gone/>
                    <button type="submit" class="danger">"Remove"</button>
                </ActionForm>
            })}
        }
    });
    view! {
        <tr data-member=m.member_id.clone()>
            <td>{m.email.clone()}{m.you.then_some(" (you)")}</td>
            <td>{m.role.as_str()}</td>
            <td>{m.joined_at.format("%Y-%m-%d").to_string()}</td>
            <td>{controls}</td>
        </tr>
    }
}

fn invitation_row(
    i: InvitationView,
    manage: bool,
    owner: bool,
    revoke: ServerAction<RevokeInvitation>,
) -> impl IntoView {
    let may = manage && (owner || i.role != TeamRole::Owner);
    let id = i.invitation_id.clone();
    view! {
        <tr data-invitation=i.invitation_id.clone()>
            <td>{i.email.clone()}</td>
            <td>{i.role.as_str()}</td>
            <td>{i.invited_by.clone()}</td>
            <td>{i.expires_at.format("%Y-%m-%d %H:%M UTC").to_string()}</td>
            <td>{may.then(|| view! {
                <ActionForm action=revoke>
                    <CsrfField/>
                    <input type="hidden" name="invitation_id" value=id/>
                    <button type="submit" class="danger">"Revoke"</button>
                </ActionForm>
            })}</td>
        </tr>
    }
}
