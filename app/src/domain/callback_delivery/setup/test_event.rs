//! Test events for a placement's reward callback. `test` builds the signed request a reward
//! confirmation would carry and sends nothing (the specification's `callback/test`);
//! `send_test` sends that request to the configured receiver through the callback client
//! (the same address, TLS and redirect rules as real callbacks) and reports the answer's
//! status and timing, never its body.
//! A test event says `"test": true`, uses `evt_test_`/`txn_test_` ids, and is never
//! credited, recorded as a delivery or retried.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::{sign_delivery, signing_key};
use crate::domain::callback_delivery::dispatch::{Attempt, Outcome};
use crate::domain::callback_delivery::outbox;
use crate::domain::callback_delivery::payload::RewardPayload;
use crate::domain::publisher::owned_placement;
use crate::domain::rate_limit::Policy;
use crate::domain::{Ctx, Principal, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::*;

/// The longest a test send waits for the receiver (under the 10-second request deadline).
const TEST_SEND_LIMIT: std::time::Duration = std::time::Duration::from_secs(8);

/// Builds the payload and headers that a reward confirmation would carry, signed with the
/// CURRENT key. Nothing is sent and nothing is accounted.
pub async fn test(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackTest, AppError> {
    Ok(build(ctx, actor, placement_id).await?.0)
}

/// Sends a signed test event to the placement's receiver and reports the answer. Test
/// sends share the publisher's replay budget, so they cannot be used to flood a host.
pub async fn send_test(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<CallbackTest, AppError> {
    let (mut test, attempt) = build(ctx, actor, placement_id).await?;
    ctx.limits
        .check(Policy::CallbackReplay, &actor.account_id)?;
    // Inside the request deadline (10 s): a receiver slower than this is reported as a
    // timeout here rather than cut off by the deadline with a generic error.
    let started_at = ctx.now();
    let outcome = tokio::time::timeout(
        TEST_SEND_LIMIT,
        ctx.transport.send(ctx, &test.url, &attempt),
    )
    .await
    .unwrap_or_else(|_| Outcome {
        started_at,
        latency_ms: TEST_SEND_LIMIT.as_millis() as i64,
        error_class: Some("timeout".to_owned()),
        error_message: Some("no answer within 8 seconds".to_owned()),
        ..Outcome::default()
    });
    tracing::info!(
        placement = %placement_id,
        status = outcome.response_status,
        error = outcome.error_class.as_deref().unwrap_or(""),
        "callback test sent"
    );
    test.delivered_externally = true;
    test.answer = Some(answer(outcome));
    Ok(test)
}

fn answer(o: Outcome) -> CallbackTestAnswer {
    CallbackTestAnswer {
        accepted: o.delivered(),
        response_status: o.response_status,
        latency_ms: o.latency_ms,
        error_class: o.error_class,
        error_message: o.error_message,
        // Status and timing only: showing the receiver's answer would make this a tool that
        // fetches what any host:port says (issue 52). The publisher reads its own receiver's
        // logs for the body.
        response_excerpt: None,
    }
}

async fn build(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
) -> Result<(CallbackTest, Attempt), AppError> {
    let p = owned_placement(&ctx.db, actor, placement_id).await?;
    let url = p
        .callback_url
        .clone()
        .ok_or_else(|| AppError::conflict("configure the callback first"))?;
    let key = signing_key(ctx, &ctx.db, &p.id).await?;
    let slot = entity::ad_slot::Entity::find()
        .filter(entity::ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(entity::ad_slot::Column::ArchivedAt.is_null())
        .one(&ctx.db)
        .await?;
    let currency = slot
        .as_ref()
        .map(crate::domain::publisher::slots::currency_of)
        .unwrap_or(Currency {
            name: "Points".to_owned(),
            decimals: 0,
            rate_numerator_minor_units: 100,
            rate_denominator_usd_micros: Micros(1_000_000),
            minimum_payout_minor_units: 0,
            rounding: Rounding::Down,
        });
    let reward = crate::domain::publisher::slots::preview(&currency, Micros(1_000_000))?;
    let now = ctx.now();
    let event_id = new_id("evt_test");
    let payload = RewardPayload {
        event_id: &event_id,
        event_type: outbox::CONFIRMED,
        test: true,
        transaction_id: &new_id("txn_test"),
        placement_id: &p.id,
        ad_slot_id: slot.as_ref().map(|s| s.id.as_str()),
        external_user_id: "test-user",
        campaign_id: "cmp_test",
        goal_id: "install",
        reward: &reward,
        occurred_at: now,
    }
    .to_json();
    let nonce = hex::encode(crypto::random_bytes::<16>());
    let signed = sign_delivery(&key, &payload, now, &nonce, &event_id);
    let test = CallbackTest {
        url,
        method: "POST".to_owned(),
        headers: signed.headers.clone(),
        payload,
        body: signed.body.clone(),
        signed_string: signed.signed_string.clone(),
        delivered_externally: false,
        accounting_writes: 0,
        answer: None,
    };
    let timestamp = test
        .headers
        .get("X-Service-Timestamp")
        .cloned()
        .unwrap_or_default();
    let attempt = Attempt {
        signed,
        key_id: key.id,
        nonce,
        timestamp,
    };
    Ok((test, attempt))
}
