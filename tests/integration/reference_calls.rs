//! Operations no other suite calls, called as an integrator would, so that every operation
//! of the reference has a real exchange for its examples (`scripts/record-examples.py`):
//! the GET form of a Custom S2S postback, the administrator's queues and a survey
//! rejection, the responses download by GET, the reconciliation list, the payout profile
//! read and the wall's assets. Each asserts what its answer must hold.

use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::callbacks::click;
use tests::builders::surveys::{create, issue_key, signed, survey};
use tests::builders::{
    Conversion, USD, campaign_body, live_campaign, now_ts, postback_by_get, publisher,
};

both_backends!(
    a_postback_by_get_counts_like_a_post,
    administrators_review_queues_and_reject_a_survey,
    the_remaining_reads_answer
);

async fn a_postback_by_get_counts_like_a_post(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(app, &admin).await;
    let body = campaign_body("CUSTOM_S2S", 100 * USD);
    let (campaign, key_id, secret) = live_campaign(app, &adv, &admin, body).await;
    let (_, click_id) = click(app, &p, "user-get", &campaign).await;
    let c = Conversion {
        click: &click_id,
        txn: "order-get-1",
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback_by_get(app, &campaign, &key_id, &secret, &c, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["accepted"].as_bool(), r["duplicate"].as_bool()),
        (Some(true), Some(false)),
        "{r}"
    );
    // A wrong signature is refused before anything is recorded.
    let (s, e) = postback_by_get(app, &campaign, &key_id, "not-the-secret", &c, now_ts(app)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
}

async fn administrators_review_queues_and_reject_a_survey(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let (s, pending) = app.get("/admin/v1/advertisers/pending", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{pending}");
    assert!(pending["items"].is_array(), "{pending}");
    assert!(pending.get("nextCursor").is_some(), "{pending}");

    let (_, t) = app.funded_advertiser(500 * USD).await;
    let key = issue_key(app, &t, "SHA256").await;
    let id = create(app, &key, &survey("Brand tracker wave 2")).await;
    let path = format!("/api/v1/campaigns/{id}");
    let submit = json!({"status": "PENDINGAPPROVAL"});
    let (s, c) = signed(app, &key, Method::PUT, &path, Some(&submit), |u| u).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, queue) = app.get("/admin/v1/survey-campaigns", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{queue}");
    let listed = queue["campaigns"].as_array().into_iter().flatten();
    assert!(listed.clone().any(|c| c["_id"] == id.as_str()), "{queue}");

    let reject = format!("/admin/v1/survey-campaigns/{id}/reject");
    let reason = json!({"reason": "The live link must name the transaction id."});
    let (s, c) = app.post(&reject, Some(&admin), &reason).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "DRAFT", "{c}");

    // The responses download answers CSV to a signed GET (no body: the last 30 days); a
    // body on a GET is refused, as on every signed GET.
    let download = "/api/v1/campaigns/downloadresponses";
    let (s, _) = signed(app, &key, Method::GET, download, None, |u| u).await;
    assert_eq!(s, StatusCode::OK);
    let range = json!({"campaign_id": id});
    let (s, e) = signed(app, &key, Method::GET, download, Some(&range), |u| u).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
}

async fn the_remaining_reads_answer(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let (s, list) = app
        .get(
            "/performance-marketing/v2/conversions/reconciliations",
            Some(&adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert_eq!(list["items"], json!([]), "{list}");

    let p = publisher(app, &admin).await;
    let profile = "/publisher/v2/payouts/profile";
    assert_eq!(
        app.get(profile, Some(&p.token)).await.0,
        StatusCode::NOT_FOUND
    );
    let body = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": "DE89370400440532013000"});
    let (s, set) = app.put(profile, Some(&p.token), &body).await;
    assert_eq!(s, StatusCode::OK, "{set}");
    let (s, got) = app.get(profile, Some(&p.token)).await;
    assert_eq!((s, &got), (StatusCode::OK, &set));

    // Refusals have examples too: a revoke without its key, a creative that does not exist,
    // a launch from a link that is not (or no longer) valid.
    let (_, token) = tests::builders::session(app, &p, "user-revoke").await;
    let (s, e) = app
        .post(
            "/sdk/v2/sessions/ses_unknown/revoke",
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let asset = "/performance-marketing/v2/assets/ast_unknown/creatives/cre_unknown/content";
    let (s, e) = app.get(asset, Some(&adv)).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let res = app
        .client
        .post(app.url("/offerwall/offers/cmp_unknown/launch"))
        .form(&[("token", "sdk_not_a_session"), ("impression_id", "imp_x")])
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(res.text().await.expect("page").contains("no longer valid"));

    for (asset, kind) in [
        ("/offerwall/assets/wall-v1.js", "text/javascript"),
        ("/offerwall/assets/wall-v2.css", "text/css"),
    ] {
        let res = app.client.get(app.url(asset)).send().await.expect("sent");
        assert_eq!(res.status(), StatusCode::OK, "{asset}");
        let h = res.headers();
        assert!(
            h["content-type"]
                .to_str()
                .unwrap_or_default()
                .starts_with(kind),
            "{asset}"
        );
        assert!(
            h["cache-control"]
                .to_str()
                .unwrap_or_default()
                .contains("immutable"),
            "{asset}"
        );
    }
}
