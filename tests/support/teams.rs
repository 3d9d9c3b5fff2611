//! Teams in tests: inviting a member with a role and signing them in (issue 54, part 3);
//! the tokens of mailed links.

use reqwest::StatusCode;
use serde_json::json;

use crate::{TestApp, TestUser};

impl TestApp {
    /// The token of the newest invitation letter to `email` (read from the outbox).
    pub async fn invitation_token(&self, email: &str) -> String {
        self.mailed_token(email, "account.team_invitation").await
    }

    /// The token in the link of the newest letter of `topic` to `email` (read from the outbox).
    pub async fn mailed_token(&self, email: &str, topic: &str) -> String {
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
        let letter = entity::mail_outbox::Entity::find()
            .filter(entity::mail_outbox::Column::ToAddress.eq(email.to_ascii_lowercase()))
            .filter(entity::mail_outbox::Column::Topic.eq(topic))
            .order_by_desc(entity::mail_outbox::Column::CreatedAt)
            .order_by_desc(entity::mail_outbox::Column::Id)
            .one(&self.state.ctx.db)
            .await
            .expect("outbox")
            .unwrap_or_else(|| panic!("a letter {topic} to {email}"));
        let text = app::domain::mail::outbox::text_of(&self.state.ctx, &letter).expect("open");
        let start = text.find("token=").expect("a link") + 6;
        text[start..]
            .split(char::is_whitespace)
            .next()
            .unwrap_or_default()
            .to_owned()
    }

    /// Invites a new person with team role `role` (by the owner's `owner_token`), accepts the
    /// invitation and signs them in: the member (`account_id` is the person's own id, the
    /// member id of `/auth/v1/members`) and their token.
    pub async fn member(&self, owner_token: &str, role: &str) -> (TestUser, String) {
        let email = format!("member-{}@example.com", uuid::Uuid::new_v4().simple());
        let (s, b) = self
            .post(
                "/auth/v1/members/invitations",
                Some(owner_token),
                &json!({"email": email, "role": role}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        let token = self.invitation_token(&email).await;
        let password = "correct horse battery".to_owned();
        let (s, view) = self
            .post(
                "/auth/v1/invitations/accept",
                None,
                &json!({"token": token, "password": password}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{view}");
        assert!(view["accountId"].is_string(), "{view}");
        let mut user = TestUser {
            account_id: String::new(),
            email,
            password,
        };
        let t = self.token(&user).await;
        // `account_id` is the person's own id here (the organisation's is the owner's).
        let (_, team) = self.get("/auth/v1/members", Some(&t)).await;
        user.account_id = team["members"]
            .as_array()
            .and_then(|m| m.iter().find(|m| m["you"] == true))
            .and_then(|m| m["memberId"].as_str())
            .expect("the member in the list")
            .to_owned();
        (user, t)
    }
}
