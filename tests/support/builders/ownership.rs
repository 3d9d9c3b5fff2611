//! Everything one account can own, made once: a publisher's placement, slots, keys, cases,
//! bans and blacklists, an advertiser's campaigns, fundings and surveys, with their ids by
//! path parameter, for the tests that call every route as somebody else.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use super::billing::ORDER;
use super::callbacks::configure;
use super::offers::{USD, campaign_body, create as create_campaign};
use super::publisher::{keyed, publisher, session, static_slot};
use super::surveys::{Key, call, create as create_survey, issue_key, survey};
use crate::TestApp;

/// The first account's resources.
pub struct Owned {
    pub publisher: String,
    pub advertiser: String,
    pub key: Key,
    /// Path parameter → id (offer campaign for `campaignId`; see [`id_for`]).
    pub ids: BTreeMap<&'static str, String>,
    pub survey: String,
}

fn id_of(v: &Value, field: &str) -> String {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} in {v}"))
        .to_owned()
}

/// A REQUESTED payout of the publisher, written straight into the database (earning the
/// money first takes a live campaign and its conversions; `payouts.rs` covers that path).
async fn payout(app: &TestApp, publisher: &str) -> String {
    use sea_orm::{EntityTrait, Set};
    let now = app.clock_now();
    let id = format!("pyo_access_{}", publisher.trim_start_matches("acc_"));
    let sealed = app
        .state
        .ctx
        .keys
        .seal(
            &app::domain::payouts::seal_binding(&id),
            "DE89370400440532013000",
        )
        .expect("seal");
    let row = entity::payout::ActiveModel {
        id: Set(id.clone()),
        publisher_id: Set(publisher.to_owned()),
        run_id: Set(None),
        status: Set(entity::values::PayoutStatus::Requested),
        amount_micros: Set(60 * USD),
        currency: Set("USD".into()),
        legal_name: Set("Pixel Quest".into()),
        country: Set("DE".into()),
        method: Set("BANK_TRANSFER".into()),
        details_sealed: Set(sealed),
        details_hint: Set("IBAN ••••3000".into()),
        idempotency_key: Set(None),
        external_reference: Set(None),
        reason: Set(None),
        requested_by: Set(publisher.to_owned()),
        decided_by: Set(None),
        first_approved_by: Set(None),
        first_approved_at: Set(None),
        batch_id: Set(None),
        provider_item_id: Set(None),
        created_at: Set(now),
        approved_at: Set(None),
        paid_at: Set(None),
        closed_at: Set(None),
        updated_at: Set(now),
    };
    entity::payout::Entity::insert(row)
        .exec_without_returning(&app.state.ctx.db)
        .await
        .expect("payout");
    id
}

/// A previewed reconciliation of the advertiser (one line no conversion has).
async fn reconciliation(app: &TestApp, adv: &str) -> String {
    let res = app
        .client
        .post(app.url("/performance-marketing/v2/conversions/reconciliations"))
        .bearer_auth(adv)
        .header("idempotency-key", "access-reconciliation")
        .json(&json!({"action": "reverse", "reason": "access", "lines": [{"transactionId": "tx-none"}]}))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::CREATED);
    let r: Value = res.json().await.expect("json");
    id_of(&r, "reconciliationId")
}

pub async fn make(app: &TestApp, admin: &str) -> Owned {
    let mut ids = BTreeMap::new();
    let p = publisher(app, admin).await;
    static_slot(app, &p).await;
    configure(app, &p, "https://receiver.example/rewards").await;
    let (s, bl) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&p.token),
            &json!({"kind": "CATEGORY", "value": "FINANCE"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{bl}");
    let (s, ban) = app
        .post(
            "/publisher/v2/user-bans",
            Some(&p.token),
            &json!({"placementId": p.placement, "externalUserId": "cheater", "reason": "reward fraud"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{ban}");
    let (sid, token) = session(app, &p, "user-1").await;
    let body = json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "I reached level 10 yesterday but got nothing."});
    let (s, case) = keyed(app, "/sdk/v2/support", &token, "case-access-1", &body).await;
    assert_eq!(s, StatusCode::CREATED, "{case}");
    ids.insert("placementId", p.placement.clone());
    ids.insert("adSlotId", p.slot.clone());
    ids.insert("blacklistId", id_of(&bl, "blacklistId"));
    ids.insert("banId", id_of(&ban, "banId"));
    ids.insert("supportCaseId", id_of(&case, "supportCaseId"));
    ids.insert(
        "deliveryId",
        super::callbacks::insert(
            app,
            &p.placement,
            &p.user.account_id,
            &format!("cnv_access_{}", p.placement),
            "DELIVERED",
            app.clock_now(),
        )
        .await,
    );

    ids.insert("payoutId", payout(app, &p.user.account_id).await);
    let (s, run) = app
        .post(
            "/admin/v1/payouts/runs",
            Some(admin),
            &json!({"period": "2026-01"}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{run}");
    ids.insert("runId", id_of(&run, "id"));
    ids.insert("batchId", payout_batch(app).await);

    let (adv_user, adv) = app.funded_advertiser(500 * USD).await;
    let campaign = create_campaign(app, &adv, &campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (s, f) = app
        .post(
            "/performance-marketing/v2/billing/funding/wire",
            Some(&adv),
            &json!({"amount": 150_000_000, "currency": "USD", "externalReference": "ACCESS-1"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{f}");
    let (s, order) = app
        .post(
            ORDER,
            Some(&adv),
            &json!({"amount": 40_000_000, "currency": "USD", "idempotencyKey": "order:access:0001"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    ids.insert("campaignId", campaign.clone());
    ids.insert("assetId", campaign);
    ids.insert("fundingId", id_of(&f, "fundingId"));
    ids.insert("orderId", id_of(&order, "orderId"));
    ids.insert("accountId", adv_user.account_id.clone());

    let key = issue_key(app, &adv, "SHA256").await;
    let survey_id = create_survey(app, &key, &survey("Access survey")).await;
    let base = format!("/api/v1/campaigns/{survey_id}");
    let (s, q) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "All", "num_respondents": 10})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{q}");
    let quota = q["campaignQuota"]["_id"]
        .as_str()
        .expect("quota")
        .to_owned();
    let (s, g) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota/{quota}/campaignsqualification"),
        Some(&json!({"question_id": "GENDER", "answer_ids": ["2"]})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{g}");
    let (s, cq) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/customquestion"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{cq}");
    let qid = id_of(&cq, "_id");
    let (s, o) = call(
        app,
        &key,
        Method::POST,
        &format!("/api/v1/campaigns/cq/{qid}/createoption"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{o}");
    ids.insert("campaignQuotaId", quota);
    ids.insert(
        "campaignQualificationsId",
        g["campaignQualification"]["_id"]
            .as_str()
            .expect("qualification")
            .to_owned(),
    );
    ids.insert("customquestionId", qid);
    ids.insert(
        "option_id",
        o["customQuestions"]["options"][0]["option_id"]
            .as_str()
            .expect("option")
            .to_owned(),
    );
    ids.insert("reconciliationId", reconciliation(app, &adv).await);
    Owned {
        publisher: p.token,
        advertiser: adv,
        key,
        ids,
        survey: survey_id,
    }
}

/// An (empty) bank-file payout batch, written straight into the database.
async fn payout_batch(app: &TestApp) -> String {
    use sea_orm::{EntityTrait, Set};
    let now = app.clock_now();
    let id = format!("pbt_{}", uuid::Uuid::new_v4().simple());
    let row = entity::payout_batch::ActiveModel {
        id: Set(id.clone()),
        rail: Set(entity::values::PayoutRail::BankFile),
        status: Set(entity::values::PayoutBatchStatus::Sent),
        provider_batch_id: Set(None),
        reference: Set(None),
        payout_count: Set(0),
        total_micros: Set(0),
        currency: Set("USD".into()),
        error: Set(None),
        created_by: Set("acc_access".into()),
        created_at: Set(now),
        updated_at: Set(now),
        checked_at: Set(None),
        completed_at: Set(None),
    };
    entity::payout_batch::Entity::insert(row)
        .exec_without_returning(&app.state.ctx.db)
        .await
        .expect("payout batch");
    id
}
