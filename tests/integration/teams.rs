//! Teams (issue 54, part 3): an invitation's link works once and makes a member who signs in
//! with their own password; each role writes only its areas (the API and the dashboard);
//! a member's key never reaches further than the member's role; the audit trail names the
//! person; the last owner and the person who registered stay; a removed member is signed
//! out at once.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    an_invitation_makes_a_member_once,
    roles_write_only_their_areas,
    a_members_key_follows_the_members_role,
    owners_stay_and_removed_members_are_signed_out,
    the_audit_trail_names_the_person,
    an_address_that_registered_meanwhile_is_taken,
);

const INVITE: &str = "/auth/v1/members/invitations";
const ACCEPT: &str = "/auth/v1/invitations/accept";

fn role_refused(answer: &(StatusCode, serde_json::Value)) -> bool {
    answer.0 == StatusCode::FORBIDDEN && error_code(&answer.1) == "insufficient_role"
}

async fn an_invitation_makes_a_member_once(app: TestApp) {
    let (owner, token) = app.signed_in(Role::Publisher).await;
    let email = "New.Person@Example.com";
    let (s, inv) = app
        .post(
            INVITE,
            Some(&token),
            &json!({"email": email, "role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{inv}");
    assert_eq!(inv["email"], "new.person@example.com");
    assert_eq!(inv["role"], "VIEWER");
    assert!(
        inv.get("token").is_none(),
        "the link goes by mail only: {inv}"
    );
    let link = app.invitation_token("new.person@example.com").await;
    assert!(link.starts_with("mkt_inv_"), "{link}");

    // A refused password leaves the link usable; then it works once.
    let short = app
        .post(ACCEPT, None, &json!({"token": link, "password": "short"}))
        .await;
    assert_eq!(short.0, StatusCode::BAD_REQUEST, "{:?}", short.1);
    let body = json!({"token": link, "password": "a member's own passphrase"});
    let (s, me) = app.post(ACCEPT, None, &body).await;
    assert_eq!(s, StatusCode::CREATED, "{me}");
    assert_eq!(
        me["accountId"],
        owner.account_id.as_str(),
        "the organisation"
    );
    assert_eq!(me["teamRole"], "VIEWER");
    assert_eq!(me["email"], "new.person@example.com");
    let again = app.post(ACCEPT, None, &body).await;
    assert_eq!(again.0, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&again.1), "invitation_invalid");

    // The member signs in with their own password and sees the organisation.
    let (s, t) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": email, "password": "a member's own passphrase"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    let member_token = t["token"].as_str().expect("token");
    let (_, me) = app.get("/auth/v1/me", Some(member_token)).await;
    assert_eq!(me["accountId"], owner.account_id.as_str());
    assert_eq!(me["teamRole"], "VIEWER");
    let (_, team) = app.get("/auth/v1/members", Some(member_token)).await;
    let members = team["members"].as_array().expect("members");
    assert_eq!(members.len(), 2, "{team}");
    assert_eq!(members[0]["registered"], true);
    assert_eq!(members[0]["role"], "OWNER");
    assert_eq!(members[1]["you"], true);
    assert!(team["invitations"].as_array().expect("open").is_empty());

    // An address with an account cannot be invited; a revoked invitation's link is refused.
    let taken = app
        .post(
            INVITE,
            Some(&token),
            &json!({"email": email, "role": "ADMIN"}),
        )
        .await;
    assert_eq!(error_code(&taken.1), "email_taken", "{:?}", taken.1);
    let (_, inv) = app
        .post(
            INVITE,
            Some(&token),
            &json!({"email": "later@example.com", "role": "FINANCE"}),
        )
        .await;
    let later = app.invitation_token("later@example.com").await;
    let id = inv["invitationId"].as_str().expect("id");
    let viewer_revokes = app
        .delete(&format!("{INVITE}/{id}"), Some(member_token))
        .await;
    assert!(role_refused(&viewer_revokes), "{viewer_revokes:?}");
    let (s, _) = app.delete(&format!("{INVITE}/{id}"), Some(&token)).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let revoked = app
        .post(
            ACCEPT,
            None,
            &json!({"token": later, "password": "another passphrase"}),
        )
        .await;
    assert_eq!(error_code(&revoked.1), "invitation_invalid");
    // Expired after seven days.
    app.post(
        INVITE,
        Some(&token),
        &json!({"email": "slow@example.com", "role": "VIEWER"}),
    )
    .await;
    let slow = app.invitation_token("slow@example.com").await;
    app.clock
        .advance(chrono::Duration::days(7) + chrono::Duration::seconds(1));
    let expired = app
        .post(
            ACCEPT,
            None,
            &json!({"token": slow, "password": "another passphrase"}),
        )
        .await;
    assert_eq!(error_code(&expired.1), "invitation_invalid");
}

async fn roles_write_only_their_areas(app: TestApp) {
    let (_, owner) = app.signed_in(Role::Publisher).await;
    let (_, viewer) = app.member(&owner, "VIEWER").await;
    let (_, developer) = app.member(&owner, "DEVELOPER").await;
    let (_, finance) = app.member(&owner, "FINANCE").await;
    let placement = app.website_placement(&owner, "team.example").await;
    let pid = placement["placementId"].as_str().expect("id");
    let create = |name: &str| json!({"type": "WEBSITE", "name": name, "platformIdentity": format!("{name}.example")});

    // Everyone reads.
    for t in [&viewer, &developer, &finance] {
        let (s, list) = app.get("/publisher/v2/placements", Some(t)).await;
        assert_eq!(s, StatusCode::OK, "{list}");
        assert!(list.to_string().contains(pid));
    }
    // Placements: the developer writes, the viewer and finance do not.
    let by_viewer = app
        .post("/publisher/v2/placements", Some(&viewer), &create("viewer"))
        .await;
    assert!(role_refused(&by_viewer), "{by_viewer:?}");
    let by_finance = app
        .post(
            "/publisher/v2/placements",
            Some(&finance),
            &create("finance"),
        )
        .await;
    assert!(role_refused(&by_finance), "{by_finance:?}");
    let (s, b) = app
        .post("/publisher/v2/placements", Some(&developer), &create("dev"))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    // Money: finance may ask for a payout profile change, the developer may not.
    let profile = json!({"method": "PAYPAL", "details": {"email": "pay@example.com"}});
    let by_dev = app
        .put("/publisher/v2/payouts/profile", Some(&developer), &profile)
        .await;
    assert!(role_refused(&by_dev), "{by_dev:?}");
    let by_fin = app
        .put("/publisher/v2/payouts/profile", Some(&finance), &profile)
        .await;
    assert!(!role_refused(&by_fin), "{by_fin:?}");
    // The team: only owners and admins manage it.
    let invite = json!({"email": "x@example.com", "role": "VIEWER"});
    for t in [&viewer, &developer, &finance] {
        assert!(role_refused(&app.post(INVITE, Some(t), &invite).await));
    }
    // Nothing a viewer tried was written.
    let (_, list) = app.get("/publisher/v2/placements", Some(&owner)).await;
    assert!(!list.to_string().contains("viewer.example"), "{list}");
}

async fn a_members_key_follows_the_members_role(app: TestApp) {
    let (_, owner) = app.signed_in(Role::Publisher).await;
    let (dev, developer) = app.member(&owner, "DEVELOPER").await;
    let (_, finance) = app.member(&owner, "FINANCE").await;
    let key_of = |token: &str, scopes: serde_json::Value| {
        let (app, token) = (&app, token.to_owned());
        async move {
            app.post(
                "/auth/v1/api-keys",
                Some(&token),
                &json!({"name": "k", "scopes": scopes}),
            )
            .await
        }
    };
    // Finance keeps no keys; a developer's key cannot grant what the developer cannot do.
    assert!(role_refused(
        &key_of(&finance, json!(["earnings:read"])).await
    ));
    let wide = key_of(&developer, json!(["earnings:write"])).await;
    assert!(role_refused(&wide), "{wide:?}");
    let (s, k) = key_of(&developer, json!(["placements:write", "earnings:read"])).await;
    assert_eq!(s, StatusCode::CREATED, "{k}");
    let key = k["key"].as_str().expect("key").to_owned();
    let body = json!({"type": "WEBSITE", "name": "Keyed", "platformIdentity": "keyed.example"});
    let (s, b) = app
        .post("/publisher/v2/placements", Some(&key), &body)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    // The developer becomes a viewer: the key's write stops with the next request.
    let (s, b) = app
        .patch(
            &format!("/auth/v1/members/{}", dev.account_id),
            Some(&owner),
            &json!({"role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let body = json!({"type": "WEBSITE", "name": "Keyed 2", "platformIdentity": "keyed2.example"});
    let after = app
        .post("/publisher/v2/placements", Some(&key), &body)
        .await;
    assert!(role_refused(&after), "{after:?}");
    let (s, _) = app.get("/publisher/v2/placements", Some(&key)).await;
    assert_eq!(s, StatusCode::OK, "reads stay");
}

async fn owners_stay_and_removed_members_are_signed_out(app: TestApp) {
    let (owner_user, owner) = app.signed_in(Role::Advertiser).await;
    let (adm, admin) = app.member(&owner, "ADMIN").await;
    let (dev, developer) = app.member(&owner, "DEVELOPER").await;
    let me = |id: &str| format!("/auth/v1/members/{id}");
    // The only owner cannot give up the role; the one who registered cannot be removed.
    let demote = app
        .patch(
            &me(&owner_user.account_id),
            Some(&owner),
            &json!({"role": "ADMIN"}),
        )
        .await;
    assert_eq!(error_code(&demote.1), "last_owner", "{demote:?}");
    let remove_registered = app.delete(&me(&owner_user.account_id), Some(&admin)).await;
    assert!(
        role_refused(&remove_registered),
        "an admin never touches an owner"
    );
    let leave_registered = app.delete(&me(&owner_user.account_id), Some(&owner)).await;
    assert_eq!(error_code(&leave_registered.1), "registered_member");
    // An admin cannot make an owner; an owner can, and then may step down.
    let by_admin = app
        .patch(
            &me(&dev.account_id),
            Some(&admin),
            &json!({"role": "OWNER"}),
        )
        .await;
    assert!(role_refused(&by_admin), "{by_admin:?}");
    let (s, _) = app
        .patch(
            &me(&adm.account_id),
            Some(&owner),
            &json!({"role": "OWNER"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, b) = app
        .patch(
            &me(&owner_user.account_id),
            Some(&owner),
            &json!({"role": "ADMIN"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let last = app
        .patch(
            &me(&adm.account_id),
            Some(&admin),
            &json!({"role": "VIEWER"}),
        )
        .await;
    assert_eq!(error_code(&last.1), "last_owner", "{last:?}");
    // Removing a member signs them out at once, token and key alike, and frees the address.
    let (_, k) = app
        .post(
            "/auth/v1/api-keys",
            Some(&developer),
            &json!({"name": "k", "scopes": ["campaigns:read"]}),
        )
        .await;
    let key = k["key"].as_str().expect("key").to_owned();
    let (s, _) = app.delete(&me(&dev.account_id), Some(&admin)).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(
        app.get("/auth/v1/me", Some(&developer)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.get("/auth/v1/me", Some(&key)).await.0,
        StatusCode::UNAUTHORIZED
    );
    let signs_in = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": dev.email, "password": dev.password}),
        )
        .await;
    assert_eq!(signs_in.0, StatusCode::UNAUTHORIZED);
    let (s, _) = app
        .post(
            INVITE,
            Some(&admin),
            &json!({"email": dev.email, "role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "the address is free again");
    // A member may leave, but not the last owner.
    let alone = app.delete(&me(&adm.account_id), Some(&admin)).await;
    assert_eq!(error_code(&alone.1), "last_owner", "{alone:?}");
    let (s, _) = app
        .patch(
            &me(&owner_user.account_id),
            Some(&admin),
            &json!({"role": "OWNER"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = app.delete(&me(&adm.account_id), Some(&admin)).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "a second owner leaves");
    // Administrators have no team.
    let operator = app.admin_token().await;
    let none = app.get("/auth/v1/members", Some(&operator)).await;
    assert_eq!(error_code(&none.1), "no_team");
}

async fn the_audit_trail_names_the_person(app: TestApp) {
    let (owner_user, owner) = app.signed_in(Role::Publisher).await;
    let (dev, developer) = app.member(&owner, "DEVELOPER").await;
    let body = json!({"type": "WEBSITE", "name": "Audited", "platformIdentity": "audited.example"});
    let (s, p) = app
        .post("/publisher/v2/placements", Some(&developer), &body)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let id = p["placementId"].as_str().expect("id");
    let events = entity::audit_event::Entity::find()
        .filter(entity::audit_event::Column::SubjectId.eq(id))
        .all(&app.state.ctx.db)
        .await
        .expect("audit");
    assert!(!events.is_empty(), "the creation is audited");
    assert!(
        events
            .iter()
            .all(|e| e.actor_account_id.as_deref() == Some(dev.account_id.as_str())),
        "the person, not the organisation {}: {events:?}",
        owner_user.account_id
    );
    // The placement is the organisation's: the owner reads it.
    let (s, _) = app
        .get(&format!("/publisher/v2/placements/{id}"), Some(&owner))
        .await;
    assert_eq!(s, StatusCode::OK);
}

/// An invited address that registered an account of its own before the invitation was
/// answered: the answer names the reason (409 `email_taken`), no second account is made,
/// and the invitation stays open for the owner to revoke.
async fn an_address_that_registered_meanwhile_is_taken(app: TestApp) {
    let (_, token) = app.signed_in(Role::Publisher).await;
    let email = "meanwhile@example.com";
    let (s, inv) = app
        .post(
            INVITE,
            Some(&token),
            &json!({"email": email, "role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{inv}");
    let link = app.invitation_token(email).await;
    let (s, own) = app
        .post(
            "/auth/v1/accounts",
            None,
            &json!({"email": email, "password": "long enough pw", "role": "ADVERTISER", "companyName": "Own Co"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{own}");
    let body = json!({"token": link, "password": "a member's own passphrase"});
    let (s, err) = app.post(ACCEPT, None, &body).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::CONFLICT, "email_taken"),
        "{err}"
    );
    let accounts = entity::account::Entity::find()
        .filter(entity::account::Column::Email.eq(email))
        .all(&app.state.ctx.db)
        .await
        .expect("accounts");
    assert_eq!(accounts.len(), 1, "no second account");
    let (_, team) = app.get("/auth/v1/members", Some(&token)).await;
    let open: Vec<_> = team["invitations"].as_array().cloned().unwrap_or_default();
    assert!(
        open.iter().any(|i| i["email"] == email),
        "still open: {team}"
    );
}
