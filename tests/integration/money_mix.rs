//! Fundings, refunds, chargebacks, repeated webhooks and campaign launches in a random order
//! (issue 55): after every step the ledger reconciles and the advertiser's money adds up,
//! `available + reserved − debt = credited − returned`, with nothing negative. The order
//! comes from a fixed seed per run, so a failure replays.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::billing::*;
use tests::builders::offers::{
    USD, approve as approve_campaign, campaign_body, create, transition,
};
use tests::{Backend, each_backend};

use crate::paypal::{approve, capture_path, open, send_webhook, start};
use app::domain::billing::ledger;

each_backend!(fundings_returns_and_launches_in_any_order_add_up);

/// A small deterministic generator (the test needs variety, not quality).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below
    }
}

struct Funded {
    capture: String,
    amount: i64,
    returned: i64,
}

async fn fundings_returns_and_launches_in_any_order_add_up(backend: Backend) {
    let (paypal, app) = start(backend).await;
    let admin = app.admin_token().await;
    let (_, t) = app.funded_advertiser(0).await;
    let seed = match backend {
        Backend::Sqlite => 55,
        Backend::Postgres => 56,
    };
    let mut rng = Lcg(seed);
    let mut fundings: Vec<Funded> = Vec::new();
    let mut sent: Vec<(Vec<(String, String)>, String)> = Vec::new();
    let (mut credited, mut returned) = (0_i64, 0_i64);
    for step in 0..30 {
        let what = rng.next(6);
        match what {
            0 | 1 if fundings.len() < 8 => {
                let amount = (10 + rng.next(300) as i64) * USD;
                let (s, order) = open(&app, &t, amount, &format!("mix-order-{step:04}")).await;
                assert_eq!(s, StatusCode::CREATED, "{order}");
                approve(&app, &order).await;
                let id = order["orderId"].as_str().expect("orderId").to_owned();
                let (s, f) = app.post(&capture_path(&id), Some(&t), &json!({})).await;
                assert_eq!(s, StatusCode::OK, "{f}");
                fundings.push(Funded {
                    capture: format!("CAP-{id}"),
                    amount,
                    returned: 0,
                });
                credited += amount;
            }
            2 if !fundings.is_empty() => {
                let i = rng.next(fundings.len() as u64) as usize;
                let f = &mut fundings[i];
                // Sometimes more than is left: only what is left goes back.
                let asked = (1 + rng.next(200) as i64) * USD;
                let chargeback = rng.next(2) == 0;
                let event = if chargeback {
                    "PAYMENT.CAPTURE.REVERSED"
                } else {
                    "PAYMENT.CAPTURE.REFUNDED"
                };
                let value = format!("{}.00", asked / USD);
                let e = paypal.return_event(event, &f.capture, &format!("RET-{step}"), &value);
                let (s, r) = send_webhook(&app, e.clone()).await;
                assert_eq!(s, StatusCode::OK, "{r}");
                let back = asked.min(f.amount - f.returned);
                f.returned += back;
                returned += back;
                sent.push(e);
            }
            3 => {
                let amount = (100 + rng.next(400) as i64) * USD;
                let body = json!({"amount": amount, "currency": "USD", "externalReference": format!("MIX-WIRE-{step}")});
                let (s, w) = app.post(WIRE, Some(&t), &body).await;
                assert_eq!(s, StatusCode::CREATED, "{w}");
                let path = format!(
                    "/admin/v1/funding/{}/approve",
                    w["fundingId"].as_str().expect("id")
                );
                let (s, w) = app.post(&path, Some(&admin), &json!({})).await;
                assert_eq!(s, StatusCode::OK, "{w}");
                credited += amount;
            }
            4 => {
                // A launch reserves its budget, or is refused for lack of money.
                let budget = (20 + rng.next(300) as i64) * USD;
                let id = create(&app, &t, &campaign_body("CUSTOM_S2S", budget)).await;
                let (s, _) = app
                    .post(&format!("/performance-marketing/v2/campaigns/{id}/tracking/custom-s2s/credentials"), Some(&t), &json!({}))
                    .await;
                assert_eq!(s, StatusCode::CREATED);
                assert_eq!(
                    transition(&app, &t, &id, "IN_REVIEW").await.0,
                    StatusCode::OK
                );
                let (s, c) = approve_campaign(&app, &admin, &id).await;
                assert!(s == StatusCode::OK || s == StatusCode::CONFLICT, "{s} {c}");
            }
            _ if !sent.is_empty() => {
                // PayPal delivers an earlier return again: nothing moves.
                let i = rng.next(sent.len() as u64) as usize;
                let (s, r) = send_webhook(&app, sent[i].clone()).await;
                assert_eq!(s, StatusCode::OK, "{r}");
            }
            _ => {}
        }
        let (_, b) = app.get(BALANCE, Some(&t)).await;
        let m = |f: &str| b[f].as_i64().unwrap_or_else(|| panic!("{f} in {b}"));
        let (available, reserved, debt) =
            (m("availableMicros"), m("reservedMicros"), m("debtMicros"));
        assert!(
            available >= 0 && reserved >= 0 && debt >= 0,
            "step {step} ({what}): {b}"
        );
        assert_eq!(
            available + reserved - debt,
            credited - returned,
            "step {step} ({what}): {b}"
        );
        assert_eq!(
            ledger::reconcile(&app.state.ctx.db)
                .await
                .expect("reconcile"),
            ledger::Reconciliation::default(),
            "step {step} ({what})"
        );
    }
    let listed: Value = app
        .get(
            "/performance-marketing/v2/billing/funding?limit=100",
            Some(&t),
        )
        .await
        .1;
    let back: i64 = listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|f| f["returnedMicros"].as_i64())
        .sum();
    assert_eq!(back, returned, "the fundings show what went back");
    assert!(
        returned > 0 && credited > returned,
        "the seed exercised returns: {returned} of {credited}"
    );
}
